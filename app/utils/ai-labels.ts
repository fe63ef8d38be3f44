/**
 * The AI labels readers see (docs/product.md D15, docs/decisions/126): a chapter's or a
 * work's level from the generation log, and the /works filter by it. Client-safe.
 */
export type AiLevel = "none" | "assisted" | "generated";

export const AI_FILTERS = ["none", "assisted", "generated"] as const;
export type AiFilter = (typeof AI_FILTERS)[number];

export const AI_FILTER_LABELS: Record<AiFilter, string> = { none: "无 AI 内容", assisted: "AI辅助", generated: "AI生成" };

export function parseAiFilter(value: string | null): AiFilter | null {
  return AI_FILTERS.find((f) => f === value) ?? null;
}
