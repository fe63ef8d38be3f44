import { Form, useFetcher } from "react-router";
import type { WritingActionData } from "~/types/writing";
import { WRITING_LIMITS } from "~/schemas/writing";
import { HiddenFields } from "./hidden-fields";
import { useAutosave } from "./use-autosave";
import { FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

/** The draft panel: free text kept with the project (saved by its button, or as you type with JavaScript). */
export function DraftPanel({ draft, projectId, actionData }: { draft: string; projectId: string; actionData?: WritingActionData }) {
  const autosave = useFetcher<WritingActionData>({ key: `draft-${projectId}` });
  const { schedule, waiting } = useAutosave(() => autosave.state !== "idle");
  const posting = useIsPending({ intent: "save-draft", state: "non-idle" });
  const saving = autosave.state !== "idle" || posting;
  const error = actionData?.intent === "save-draft" ? (actionData.result?.error?.draft?.[0] ?? actionData.error) : undefined;
  return (
    <Form method="post" className="writing-card draft-panel" preventScrollReset>
      <HiddenFields projectId={projectId} tab="draft" />
      <div className="card-head">
        <h2>
          <label htmlFor="writing-draft">草稿</label>
        </h2>
        <span className="muted" aria-live="polite">
          {saving ? "保存中..." : waiting ? "未保存" : autosave.data?.ok ? "已自动保存" : ""}
        </span>
      </div>
      <textarea
        id="writing-draft"
        name="draft"
        rows={24}
        maxLength={WRITING_LIMITS.draft}
        defaultValue={draft}
        placeholder="在此粘贴你的文本"
        onChange={(e) => {
          const value = e.currentTarget.value;
          schedule(() => autosave.submit({ intent: "save-draft", projectId, draft: value, fetcher: "1" }, { method: "post" }));
        }}
      />
      <FormError errors={error} />
      <div className="form-actions">
        <button type="submit" name="intent" value="save-draft" className="btn btn-primary">
          保存草稿
        </button>
      </div>
    </Form>
  );
}
