import type { ReactNode } from "react";

/**
 * A wide table that scrolls sideways on a phone. The scrolling box is a named region in
 * the tab order, so a keyboard user can reach it and scroll it with the arrow keys even
 * when the table holds no link (axe: scrollable-region-focusable; docs/decisions/071).
 */
export function TableScroll({ label, className = "table-scroll", children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={className} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
