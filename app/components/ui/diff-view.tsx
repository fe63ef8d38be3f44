import type { DiffPart } from "~/utils/text-diff";

/**
 * A difference (app/utils/text-diff.ts): insertions in `<ins>`, deletions in `<del>`, each
 * also named in words for screen readers and marked by underline / strike-through, not by
 * colour alone. Used by the editor's AI candidates and the review of an edit (decision 213).
 */
export function DiffView({ parts, testId }: { parts: DiffPart[]; testId?: string }) {
  let added = 0;
  let removed = 0;
  for (const p of parts) {
    if (p.added) added += Array.from(p.value).length;
    else if (p.removed) removed += Array.from(p.value).length;
  }
  return (
    <div className="diff-view" data-testid={testId}>
      <p className="muted diff-summary">
        新增 {added} 字，删去 {removed} 字（<ins>下划线</ins>为新增，<del>删除线</del>为删去）
      </p>
      <div className="diff-text">
        {parts.map((p, i) =>
          p.added ? (
            <ins key={i}>
              <span className="sr-only">［新增：</span>
              {p.value}
              <span className="sr-only">］</span>
            </ins>
          ) : p.removed ? (
            <del key={i}>
              <span className="sr-only">［删去：</span>
              {p.value}
              <span className="sr-only">］</span>
            </del>
          ) : (
            <span key={i}>{p.value}</span>
          ),
        )}
      </div>
    </div>
  );
}
