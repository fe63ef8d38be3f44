import { Form, Link, useNavigate } from "react-router";
import type { WritingActionData } from "~/types/writing";
import { WRITING_LIMITS } from "~/schemas/writing";
import { ConfirmBox } from "./confirm-box";
import { useWritingHref, useWritingParam } from "./url";
import { FieldError } from "~/components/ui/forms";

/**
 * The user's projects of this tool: switch between them (a link each), create one with
 * a name, rename or delete (after confirmation) the open one.
 */
export function ProjectBar({
  projects,
  current,
  actionData,
}: {
  projects: { id: string; name: string }[];
  current: { id: string; name: string } | null;
  actionData?: WritingActionData;
}) {
  const href = useWritingHref();
  const navigate = useNavigate();
  const confirm = useWritingParam("confirm");
  const renameError = actionData?.intent === "rename-project" ? actionData.result?.error?.name?.[0] : undefined;
  const createError = actionData?.intent === "create-project" ? actionData.error : undefined;
  return (
    <div className="project-bar">
      {projects.length > 0 ? (
        <Form method="get" className="project-switch" onChange={(e) => navigate(`?project=${new FormData(e.currentTarget).get("project")}`)}>
          <label>
            <span>项目</span>
            <select name="project" defaultValue={current?.id} key={current?.id} aria-label="切换项目">
              {projects.map((p) => (
                <option key={p.id} value={p.id}>{p.name}</option>
              ))}
            </select>
          </label>
          <noscript>
            <button type="submit" className="btn btn-small">打开</button>
          </noscript>
        </Form>
      ) : null}
      {current ? (
        <details className="project-menu">
          <summary className="btn btn-small">重命名</summary>
          <Form method="post" className="inline-form project-rename" preventScrollReset>
            <input type="hidden" name="projectId" value={current.id} />
            <input type="text" name="name" defaultValue={current.name} maxLength={WRITING_LIMITS.projectName} required aria-label="项目名称" />
            <button type="submit" name="intent" value="rename-project" className="btn btn-small">保存</button>
          </Form>
        </details>
      ) : null}
      <FieldError errors={renameError} />
      <Form method="post" className="inline-form project-new" preventScrollReset>
        <input type="text" name="name" placeholder="新项目名称" maxLength={WRITING_LIMITS.projectName} aria-label="新项目名称" />
        <button type="submit" name="intent" value="create-project" className="btn btn-small btn-primary">新建项目</button>
      </Form>
      <FieldError errors={createError} />
      {current ? (
        <Link to={href({ confirm: "project", edit: null })} className="btn btn-small btn-danger" preventScrollReset>
          删除项目
        </Link>
      ) : null}
      {current && confirm === "project" ? (
        <ConfirmBox
          question={`确定删除项目“${current.name}”吗？其中的角色、情节、正文和草稿都会删除。`}
          intent="delete-project"
          fields={{}}
          projectId={current.id}
          cancelHref={href({ confirm: null })}
        />
      ) : null}
    </div>
  );
}
