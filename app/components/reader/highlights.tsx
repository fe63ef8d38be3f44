import { useEffect, useRef, useState, type ReactNode } from "react";
import { useFetcher } from "react-router";
import { MARK_NOTE_MAX } from "~/schemas/reader-mark-rules";
import type { ChapterMark } from "~/types/reader-marks";
import { markStillMatches } from "~/utils/reader-marks";
import { useChapterSelection } from "./chapter-selection";

/**
 * 划线 (decision 241): a paragraph's text with the reader's highlights drawn on it (server
 * rendered too). A highlight whose quote no longer matches the text there (the author
 * changed the chapter) is not drawn; the lists say 原文已修改.
 */
export function MarkedText({ text, marks }: { text: string; marks: ChapterMark[] }) {
  const ranges = marks
    .filter((mark) => mark.kind === "highlight" && markStillMatches(mark, text))
    .map((mark) => ({ start: mark.start, end: mark.end, note: mark.note }))
    .sort((a, b) => a.start - b.start);
  if (ranges.length === 0) return <>{text}</>;
  // Overlapping highlights are drawn as one.
  const merged: { start: number; end: number; notes: string[] }[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) {
      last.end = Math.max(last.end, r.end);
      if (r.note) last.notes.push(r.note);
    } else merged.push({ start: r.start, end: r.end, notes: r.note ? [r.note] : [] });
  }
  const parts: ReactNode[] = [];
  let at = 0;
  for (const m of merged) {
    if (m.start > at) parts.push(text.slice(at, m.start));
    parts.push(
      <mark key={m.start} className="reader-highlight" data-testid="reader-highlight" title={m.notes.join("\n") || undefined}>
        {text.slice(m.start, m.end)}
      </mark>,
    );
    at = m.end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

interface MarkAnswer {
  ok?: boolean;
  message?: string;
  error?: string;
}

type Place = { paragraph: number; start: number; end: number; quote: string };

/**
 * With JavaScript: after a selection in the chapter (mouse or touch), a bar at the foot of
 * the screen offers 划线 (the selection) and 加书签 (its paragraph), with an optional note;
 * it posts to /works/:id/marks through a fetcher and the page reloads its marks.
 */
export function MarkPopup({ workId, chapterId, back }: { workId: number; chapterId: number; back: string }) {
  const fetcher = useFetcher<MarkAnswer>({ key: `marks-${chapterId}` });
  const { selection, live } = useChapterSelection();
  const [pending, setPending] = useState<Place | null>(null);
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const barRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const place = selection?.place;
    if (live && place) {
      setPending(place);
      setDone(null);
    } else if (!live && !note && !barRef.current?.contains(document.activeElement)) {
      setPending(null);
    }
  }, [live, selection]); // eslint-disable-line react-hooks/exhaustive-deps

  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    if (!answer?.ok) return;
    setDone(answer.message ?? null);
    setPending(null);
    setNote("");
    document.getSelection()?.removeAllRanges();
  }, [answer]);

  if (!pending) {
    return done ? (
      <p role="status" className="mark-done">
        {done}
      </p>
    ) : null;
  }
  // A tap on a button keeps the selection (and the note field its focus).
  const keep = (event: { preventDefault: () => void }) => event.preventDefault();
  return (
    <div ref={barRef} className="mark-popup" data-testid="mark-popup">
      <fetcher.Form method="post" action={`/works/${workId}/marks`} className="mark-popup-form">
        <input type="hidden" name="chapterId" value={chapterId} />
        <input type="hidden" name="paragraph" value={pending.paragraph} />
        <input type="hidden" name="start" value={pending.start} />
        <input type="hidden" name="end" value={pending.end} />
        <input type="hidden" name="quote" value={pending.quote} />
        <input type="hidden" name="back" value={back} />
        <input type="hidden" name="enhanced" value="1" />
        <label htmlFor={`mark-popup-note-${chapterId}`} className="sr-only">
          笔记（可不填）
        </label>
        <input
          id={`mark-popup-note-${chapterId}`}
          name="note"
          placeholder="笔记（可不填）"
          maxLength={MARK_NOTE_MAX}
          value={note}
          onChange={(e) => setNote(e.currentTarget.value)}
        />
        <div className="mark-popup-actions">
          <button type="submit" name="intent" value="highlight" className="btn btn-small btn-primary" onPointerDown={keep} disabled={fetcher.state !== "idle"}>
            划线
          </button>
          <button type="submit" name="intent" value="bookmark" className="btn btn-small" onPointerDown={keep} disabled={fetcher.state !== "idle"}>
            加书签
          </button>
          <button
            type="button"
            className="btn btn-small"
            onPointerDown={keep}
            onClick={() => {
              setPending(null);
              setNote("");
              document.getSelection()?.removeAllRanges();
            }}
          >
            取消
          </button>
        </div>
        {answer?.error ? (
          <p role="alert" className="notice notice-error">
            {answer.error}
          </p>
        ) : null}
      </fetcher.Form>
    </div>
  );
}
