import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { useChapterSelection } from "./chapter-selection";
import { TYPO_MESSAGES, TYPO_SENTENCE_MAX, TYPO_SUGGESTION_MAX } from "~/schemas/typo-report-rules";

interface TypoAnswer {
  ok?: boolean;
  error?: string;
  field?: string | null;
}

/**
 * 报错 under a chapter (docs/product.md#typo-reports, decision 234): a small form in a native
 * disclosure (the sentence quoted, an optional correction) that works without JavaScript.
 * With JavaScript, text selected in the chapter offers 报告选中的错别字, which opens the form
 * with the selection as the sentence; the answer comes back through a fetcher.
 */
export function TypoReport({ workId, chapterId, back }: { workId: number; chapterId: number; back: string }) {
  const fetcher = useFetcher<TypoAnswer>({ key: `typo-${chapterId}` });
  const [hydrated, setHydrated] = useState(false);
  const [selected, setSelected] = useState("");
  const [open, setOpen] = useState(false);
  const [sentence, setSentence] = useState("");
  const [suggestion, setSuggestion] = useState("");
  const detailsRef = useRef<HTMLDetailsElement>(null);
  useEffect(() => setHydrated(true), []);

  // The chapter's selection, cut to the sentence's limit (chapter-selection.ts).
  const chosen = useChapterSelection().selection?.text ?? "";
  useEffect(() => setSelected(Array.from(chosen).slice(0, TYPO_SENTENCE_MAX).join("")), [chosen]);

  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    if (answer?.ok) {
      setSentence("");
      setSuggestion("");
      setSelected("");
    }
  }, [answer]);

  const reportSelection = () => {
    setSentence(selected);
    setOpen(true);
    if (detailsRef.current) detailsRef.current.open = true;
  };

  return (
    <div className="typo-report">
      {hydrated && selected ? (
        <button type="button" className="btn btn-small" onClick={reportSelection}>
          报告选中的错别字
        </button>
      ) : null}
      <details ref={detailsRef} open={open || undefined} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary className="btn btn-small">报错</summary>
        <fetcher.Form method="post" action={`/works/${workId}/typo`} className="typo-form">
          <input type="hidden" name="chapterId" value={chapterId} />
          <input type="hidden" name="back" value={back} />
          {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
          <label htmlFor={`typo-sentence-${chapterId}`}>有错别字的句子（从正文中选中或复制）</label>
          <textarea
            id={`typo-sentence-${chapterId}`}
            name="sentence"
            rows={2}
            required
            maxLength={TYPO_SENTENCE_MAX}
            value={sentence}
            onChange={(e) => setSentence(e.currentTarget.value)}
            aria-invalid={answer?.field === "sentence" || undefined}
          />
          <label htmlFor={`typo-suggestion-${chapterId}`}>建议改为（可不填）</label>
          <input
            id={`typo-suggestion-${chapterId}`}
            name="suggestion"
            maxLength={TYPO_SUGGESTION_MAX}
            value={suggestion}
            onChange={(e) => setSuggestion(e.currentTarget.value)}
          />
          <button type="submit" className="btn btn-small btn-primary" disabled={fetcher.state !== "idle"}>
            发送给作者
          </button>
          {answer?.ok ? (
            <p role="status" className="notice notice-success">
              {TYPO_MESSAGES.sent}
            </p>
          ) : answer?.error ? (
            <p role="alert" className="notice notice-error">
              {answer.error}
            </p>
          ) : null}
        </fetcher.Form>
      </details>
    </div>
  );
}
