import type { AiLevel } from "~/utils/ai-labels";

export type { AiLevel };

const LABELS = { assisted: "AI辅助", generated: "AI生成" } as const;
const TITLES = {
  assisted: "部分内容由作者使用本站 AI 生成后采用",
  generated: "大部分内容由作者使用本站 AI 生成",
} as const;

/** 无 shows nothing; AI辅助 and AI生成 a badge that says so. */
export function AiLevelBadge({ level }: { level: AiLevel | null | undefined }) {
  if (!level || level === "none") return null;
  return (
    <span className={`badge badge-ai badge-ai-${level}`} title={TITLES[level]} data-ai-level={level}>
      {LABELS[level]}
    </span>
  );
}
