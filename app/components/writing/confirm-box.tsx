import { Form, Link } from "react-router";
import { HiddenFields } from "./hidden-fields";
import { useWritingHref } from "./url";

/**
 * A deletion asks first (docs/product.md: Rules). The question is part of the page (a
 * link opens it), so it works the same with and without JavaScript.
 */
export function ConfirmBox({
  question,
  intent,
  fields,
  projectId,
  selectedPlotId,
  cancelHref,
}: {
  question: string;
  intent: string;
  fields: Record<string, string>;
  projectId: string;
  selectedPlotId?: string | null;
  cancelHref: string;
}) {
  return (
    <div className="confirm-box" role="alertdialog" aria-label={question}>
      <p>{question}</p>
      <Form method="post" preventScrollReset className="confirm-actions">
        <HiddenFields projectId={projectId} selectedPlotId={selectedPlotId} />
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button type="submit" name="intent" value={intent} className="btn btn-small btn-danger">
          确认删除
        </button>
        <Link to={cancelHref} className="btn btn-small" preventScrollReset>
          取消
        </Link>
      </Form>
    </div>
  );
}

/**
 * A list item's 编辑 and 删除 links (the character and plot lists): each opens the item's form
 * or its deletion question in the page, named by `item` (`character:<id>`, `plot:<id>`).
 */
export function EditDeleteLinks({ item, label }: { item: string; label: string }) {
  const href = useWritingHref();
  return (
    <>
      <Link to={href({ edit: item, confirm: null })} className="btn btn-small" preventScrollReset aria-label={`编辑${label}`}>
        编辑
      </Link>
      <Link to={href({ confirm: item, edit: null })} className="btn btn-small btn-danger" preventScrollReset aria-label={`删除${label}`}>
        删除
      </Link>
    </>
  );
}
