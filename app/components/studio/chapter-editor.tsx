import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from "@conform-to/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Form, Link } from "react-router";
import { ReleaseFields } from "~/components/studio/release-fields";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { useLeaveWarning } from "~/components/use-leave-warning";
import { AUTHOR_NOTE_MAX, CHAPTER_KIND_LABELS, chapterEditSchema, type ChapterKind } from "~/schemas/studio";
import { formatShanghai } from "~/utils/shanghai-time";
import { countWords } from "~/utils/text";
import { useChapterAutosave, type AutosaveStatus } from "./use-chapter-autosave";
import { SubmitButton } from "~/components/ui/submit-button";
import { EditReviewNote, ReviewNote } from "./review-note";
import type { EditReviewFacts, ReviewNoteFacts } from "~/types/studio";

interface EditedChapter {
  id: number;
  title: string;
  content: string;
  /** 作者的话 (decision 202), the working copy's when there is one. */
  authorNote: string;
  pending: boolean;
  revision: number;
  state: "draft" | "scheduled" | "published" | "review";
  publishAt: { text: string; input: string } | null;
  /** A reviewer sent this draft back: the reason, shown above the text (docs/product.md#review). */
  review: ReviewNoteFacts | null;
  /** A published chapter's edit under review, or its last one sent back (decision 213). */
  edit: EditReviewFacts | null;
  number: number | null;
  /** 正文, 请假条 or 作品相关 (decision 203): a notice has no number. */
  kind: ChapterKind;
}

function statusText(status: AutosaveStatus): string {
  switch (status.kind) {
    case "idle":
      return "";
    case "dirty":
      return "有未保存的修改";
    case "saving":
      return "正在自动保存…";
    case "saved":
      return status.pending
        ? `已自动保存（${formatShanghai(status.at).slice(-5)}）：修改稿，点“保存”后读者才能看到`
        : `已自动保存（${formatShanghai(status.at).slice(-5)}）`;
    case "error":
      return status.message;
  }
}

/**
 * The studio's chapter editor (docs/product.md#author-studio, decision 095): the plain
 * 保存 form, plus, with JavaScript, autosave, a live 字数, the leave warning while text is
 * unsaved, and a focus mode that hides the page around the text (a link to ?focus=1
 * without JavaScript).
 */
export function ChapterEditor({
  workId,
  chapter,
  focus,
  lastResult,
}: {
  workId: number;
  chapter: EditedChapter;
  focus: boolean;
  lastResult: SubmissionResult<string[]> | null | undefined;
}) {
  const base = `/works/${workId}/chapters/${chapter.id}`;
  const autosave = useChapterAutosave({ url: `${base}/autosave`, revision: chapter.revision, draft: { content: chapter.content, authorNote: chapter.authorNote } });
  // The text and 作者的话 autosave together: each edit sends both as they are now.
  const draft = useRef({ content: chapter.content, authorNote: chapter.authorNote });
  const edit = (change: Partial<typeof draft.current>) => {
    draft.current = { ...draft.current, ...change };
    autosave.change(draft.current);
  };
  // The title is saved by 保存 only: a changed one counts as unsaved too.
  const titleChanged = useRef(false);
  const leaveWarning = useLeaveWarning(() => autosave.unsaved() || titleChanged.current);
  const [words, setWords] = useState(() => countWords(chapter.content));
  const [focusOn, setFocusOn] = useState(focus);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const formRef = useRef<HTMLFormElement>(null);
  const [form, fields] = useSchemaForm(chapterEditSchema, {
    id: `chapter-edit-${chapter.id}`,
    lastResult,
    defaultValue: {
      title: chapter.title,
      content: chapter.content,
      authorNote: chapter.authorNote,
      release: chapter.state === "draft" ? "draft" : chapter.state === "scheduled" || (chapter.state === "review" && chapter.publishAt) ? "at" : "now",
      publishAt: chapter.publishAt?.input,
    },
  });

  // 保存 posts the revision the last autosave returned. Set as the form data is built:
  // React puts a hidden input's rendered value back on every render.
  useEffect(() => {
    const element = formRef.current;
    if (!element) return;
    const onFormData = (event: FormDataEvent) => event.formData.set("revision", String(autosave.revision()));
    element.addEventListener("formdata", onFormData);
    return () => element.removeEventListener("formdata", onFormData);
    // autosave.revision reads a ref: the first render's function stays current.
  }, []);

  useEffect(() => {
    if (!focusOn) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setFocusOn(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [focusOn]);

  // 保存 posts the text with the revision it is based on: an autosave on its way first.
  const onSubmitCapture = (event: FormEvent<HTMLFormElement>) => {
    const saving = autosave.inFlight();
    if (!saving) return;
    event.preventDefault();
    void saving.then(() => formRef.current?.requestSubmit());
  };

  const status = autosave.status;
  const heading = chapter.number
    ? `编辑第 ${chapter.number} 章`
    : chapter.kind !== "chapter"
      ? `编辑${CHAPTER_KIND_LABELS[chapter.kind]}${chapter.state === "published" ? "" : chapter.state === "draft" ? "（存稿）" : chapter.state === "review" ? "（审核中，保存后重新提交审核）" : `（${chapter.publishAt?.text} 发布）`}`
    : chapter.state === "draft"
      ? "编辑存稿"
      : chapter.state === "review"
        ? "编辑审核中的章节（保存后重新提交审核）"
        : `编辑定时章节（${chapter.publishAt?.text} 发布）`;
  return (
    <div className={focusOn ? "chapter-editor focus-mode" : "chapter-editor"}>
      <div className="editor-bar">
        <h2>{heading}</h2>
        <p className="editor-links">
          {hydrated ? (
            <button type="button" className="link-button" onClick={() => setFocusOn((on) => !on)}>
              {focusOn ? "退出专注模式" : "专注模式"}
            </button>
          ) : (
            // Without JavaScript the page itself switches (?focus=1).
            <a href={focusOn ? base : `${base}?focus=1`}>{focusOn ? "退出专注模式" : "专注模式"}</a>
          )}
          <Link to={`${base}/revisions`}>历史版本</Link>
        </p>
      </div>
      {chapter.review ? <ReviewNote review={chapter.review} appealHref={`${base}/appeal`} /> : null}
      {chapter.edit ? <EditReviewNote edit={chapter.edit} /> : null}
      {chapter.pending && !chapter.edit ? (
        <p className="notice">这是自动保存的修改稿，读者看到的仍是上次保存的版本；点“保存”后修改才会发布。</p>
      ) : null}
      <Form method="post" {...getFormProps(form)} {...leaveWarning} ref={formRef} onSubmitCapture={onSubmitCapture} className="studio-form">
        <input type="hidden" name="revision" defaultValue={chapter.revision} />
        <label className="field">
          <span>章节标题</span>
          <input
            {...getInputProps(fields.title, { type: "text" })}
            key={fields.title.key}
            onInput={(event) => {
              titleChanged.current = event.currentTarget.value !== chapter.title;
            }}
          />
          <FieldError field={fields.title} />
        </label>
        <label className="field editor-text">
          <span>正文</span>
          <textarea
            {...getTextareaProps(fields.content)}
            key={fields.content.key}
            rows={24}
            onInput={(event) => {
              const text = event.currentTarget.value;
              setWords(countWords(text));
              edit({ content: text });
            }}
            onBlur={() => void autosave.flush()}
          />
          <FieldError field={fields.content} />
        </label>
        <label className="field author-note-field">
          <span>作者的话（选填，最多 {AUTHOR_NOTE_MAX} 字，不计入字数，读者在章节末尾看到）</span>
          <textarea
            {...getTextareaProps(fields.authorNote)}
            key={fields.authorNote.key}
            rows={4}
            onInput={(event) => edit({ authorNote: event.currentTarget.value })}
            onBlur={() => void autosave.flush()}
          />
          <FieldError field={fields.authorNote} />
        </label>
        <p className="editor-meta">
          <span className="editor-words">字数：{words}</span>
          <span role="status" aria-live="polite" className={status.kind === "error" ? "editor-status error" : "editor-status"}>
            {statusText(status)}
            {status.kind === "error" && status.stale ? (
              <>
                {" "}
                <a href={base} onClick={() => autosave.discard()}>
                  重新载入
                </a>
                （本页未保存的修改会丢失，需要时请先复制）
              </>
            ) : null}
          </span>
        </p>
        {chapter.state === "published" ? null : <ReleaseFields release={fields.release} publishAt={fields.publishAt} />}
        <FormError form={form} />
        <div className="form-actions">
          <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
            保存
          </SubmitButton>
          <Link className="btn" to={`/works/${workId}/chapters?chapter=${chapter.id}#c-${chapter.id}`}>
            返回章节管理
          </Link>
        </div>
      </Form>
    </div>
  );
}
