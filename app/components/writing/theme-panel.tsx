import { Form, useFetcher } from "react-router";
import type { WritingActionData } from "~/types/writing";
import { WRITING_LIMITS } from "~/schemas/writing";
import { HiddenFields } from "./hidden-fields";
import { FormError } from "~/components/ui/forms";

/**
 * The overall setting (整体设定), the prompt's synopsis. Saved with its button, and with
 * JavaScript also when the field loses focus; 生成 sends what is on screen as well.
 */
export function ThemePanel({
  theme,
  projectId,
  selectedPlotId,
  label,
  actionData,
}: {
  theme: string;
  projectId: string;
  selectedPlotId: string | null;
  label: string;
  actionData?: WritingActionData;
}) {
  const autosave = useFetcher<WritingActionData>({ key: `theme-${projectId}` });
  const error = actionData?.intent === "save-theme" ? actionData.result?.error?.theme?.[0] : undefined;
  return (
    <section className="writing-card" aria-labelledby="theme-heading">
      <Form method="post" preventScrollReset>
        <HiddenFields projectId={projectId} selectedPlotId={selectedPlotId} />
        <div className="card-head">
          <h2 id="theme-heading">
            <label htmlFor="writing-theme">{label}</label>
          </h2>
          <span className="muted" aria-live="polite">
            {autosave.state !== "idle" ? "保存中..." : autosave.data?.ok ? "已保存" : ""}
          </span>
        </div>
        <textarea
          id="writing-theme"
          name="theme"
          rows={4}
          maxLength={WRITING_LIMITS.theme}
          defaultValue={theme}
          key={`${projectId}-${theme}`}
          placeholder="故事发生在什么时代、什么地方？主线是什么？想要怎样的基调？"
          onBlur={(e) => {
            if (e.currentTarget.value !== theme) {
              autosave.submit({ intent: "save-theme", projectId, theme: e.currentTarget.value, fetcher: "1" }, { method: "post" });
            }
          }}
        />
        <FormError errors={error} />
        <div className="form-actions">
          <button type="submit" name="intent" value="save-theme" className="btn btn-small">保存设定</button>
        </div>
      </Form>
    </section>
  );
}
