import { z } from "zod";
import { normalizeLines, normalizeLinesIn } from "~/utils/text";

/** Limits of the writing tools (docs/product.md: Rules, Constants). */
export const WRITING_LIMITS = {
  projectName: 50,
  projectsPerKind: 50,
  theme: 20_000,
  draft: 200_000,
  characterName: 50,
  characterField: 2_000,
  charactersPerProject: 50,
  plotTitle: 100,
  plotSummary: 5_000,
  plotEnvironment: 2_000,
  plotNotes: 5_000,
  plotsPerProject: 100,
  plotContent: 200_000,
  expectedWordsDefault: 1_000,
  expectedWordsMin: 100,
  expectedWordsMax: 20_000,
  /** The reference-work limit: a source under 20,000 characters. */
  sourceChars: 20_000,
} as const;

export const WRITING_MESSAGES = {
  projectName: "请输入项目名称",
  projectNameMax: `项目名称不能超过${WRITING_LIMITS.projectName}个字符`,
  tooManyProjects: `最多只能创建${WRITING_LIMITS.projectsPerKind}个项目`,
  projectMissing: "写作项目不存在",
  themeMax: `整体设定不能超过${WRITING_LIMITS.theme}个字符`,
  draftMax: `草稿不能超过${WRITING_LIMITS.draft}个字符`,
  characterName: "请输入角色姓名",
  characterPersonality: "请输入角色性格",
  characterAppearance: "请输入角色外貌",
  characterNameMax: `角色姓名不能超过${WRITING_LIMITS.characterName}个字符`,
  characterFieldMax: `每项设定不能超过${WRITING_LIMITS.characterField}个字符`,
  tooManyCharacters: `每个项目最多${WRITING_LIMITS.charactersPerProject}个角色`,
  characterMissing: "角色不存在",
  plotTitle: "请输入情节标题",
  plotSummary: "请输入情节概要",
  plotEnvironment: "请输入情节环境",
  plotTitleMax: `情节标题不能超过${WRITING_LIMITS.plotTitle}个字符`,
  plotSummaryMax: `情节概要不能超过${WRITING_LIMITS.plotSummary}个字符`,
  plotEnvironmentMax: `情节环境不能超过${WRITING_LIMITS.plotEnvironment}个字符`,
  plotNotesMax: `补充说明不能超过${WRITING_LIMITS.plotNotes}个字符`,
  expectedWordsMin: `预计字数不能少于${WRITING_LIMITS.expectedWordsMin}字`,
  expectedWordsMax: `预计字数不能超过${WRITING_LIMITS.expectedWordsMax}字`,
  plotCharactersMax: `每个情节最多选择${WRITING_LIMITS.charactersPerProject}个角色`,
  plotCharacterUnknown: "所选角色不存在，请刷新页面后重试",
  tooManyPlots: `每个项目最多${WRITING_LIMITS.plotsPerProject}个情节`,
  plotMissing: "情节不存在",
  contentMax: `情节内容不能超过${WRITING_LIMITS.plotContent}个字符`,
  versionMissing: "版本不存在",
  // Generation preconditions, in the order section 5 checks them.
  needTheme: "请先填写整体设定",
  needCharacter: "请至少创建一个角色",
  needPlotCharacter: "请为当前情节选择至少一个角色",
  needPlot: "请先选择一个情节",
  needLogin: "请先登录",
  // The reference-work picker.
  sourceRequired: "请选择一篇参考作品或粘贴文本",
  sourceTooLong: `参考作品需少于${WRITING_LIMITS.sourceChars}字`,
  sourceNotSingle: "只能选择单章作品作为参考",
  sourceUnavailable: "无法使用该作品：只能选择自己的、已购买的或免费的作品",
  saveFailed: "保存失败",
} as const;

const linesOrEmpty = (v: unknown) => (typeof v === "string" ? normalizeLines(v) : "");

const requiredText = (message: string, max: number, maxMessage: string) =>
  z.preprocess(normalizeLinesIn, z.string({ error: message }).trim().min(1, message).max(max, maxMessage));

// Conform turns an empty field into undefined before the inner schema sees it, hence optional().
const optionalText = (max: number, maxMessage: string) =>
  z.preprocess(linesOrEmpty, z.string().trim().max(max, maxMessage).optional()).transform((v) => v ?? "");

const longText = (max: number, maxMessage: string) =>
  z.preprocess(linesOrEmpty, z.string().max(max, maxMessage).optional()).transform((v) => v ?? "");

export const projectNameSchema = z.object({
  name: requiredText(WRITING_MESSAGES.projectName, WRITING_LIMITS.projectName, WRITING_MESSAGES.projectNameMax),
});

export const themeSchema = z.object({
  theme: optionalText(WRITING_LIMITS.theme, WRITING_MESSAGES.themeMax),
});

export const draftSchema = z.object({
  draft: longText(WRITING_LIMITS.draft, WRITING_MESSAGES.draftMax),
});

/** Section 5: name, personality and appearance are required; other is optional. */
export const characterSchema = z.object({
  id: z.string().uuid().optional(),
  name: requiredText(WRITING_MESSAGES.characterName, WRITING_LIMITS.characterName, WRITING_MESSAGES.characterNameMax),
  personality: requiredText(WRITING_MESSAGES.characterPersonality, WRITING_LIMITS.characterField, WRITING_MESSAGES.characterFieldMax),
  appearance: requiredText(WRITING_MESSAGES.characterAppearance, WRITING_LIMITS.characterField, WRITING_MESSAGES.characterFieldMax),
  other: optionalText(WRITING_LIMITS.characterField, WRITING_MESSAGES.characterFieldMax),
});

/**
 * Section 5: expected words default to 1000, and anything that is not a number falls
 * back to 1000; a number must be at least 100 (and, here, at most 20,000).
 */
export function parseExpectedWords(value: unknown): number {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
  const n = Number(text);
  if (!text || !Number.isFinite(n)) return WRITING_LIMITS.expectedWordsDefault;
  return Math.floor(n);
}

export const expectedWordsSchema = z
  .unknown()
  .optional()
  .transform(parseExpectedWords)
  .pipe(
    z
      .number()
      .min(WRITING_LIMITS.expectedWordsMin, WRITING_MESSAGES.expectedWordsMin)
      .max(WRITING_LIMITS.expectedWordsMax, WRITING_MESSAGES.expectedWordsMax),
  );

/** Section 5: title, summary, environment and expected words required; the rest optional. */
export const plotSchema = z.object({
  id: z.string().uuid().optional(),
  title: requiredText(WRITING_MESSAGES.plotTitle, WRITING_LIMITS.plotTitle, WRITING_MESSAGES.plotTitleMax),
  summary: requiredText(WRITING_MESSAGES.plotSummary, WRITING_LIMITS.plotSummary, WRITING_MESSAGES.plotSummaryMax),
  environment: requiredText(WRITING_MESSAGES.plotEnvironment, WRITING_LIMITS.plotEnvironment, WRITING_MESSAGES.plotEnvironmentMax),
  expectedWords: expectedWordsSchema,
  characterIds: z
    .preprocess(
      (v) => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v]),
      z.array(z.string().uuid(WRITING_MESSAGES.plotCharacterUnknown)).max(WRITING_LIMITS.charactersPerProject, WRITING_MESSAGES.plotCharactersMax),
    )
    .transform((ids) => [...new Set(ids)]),
  additionalNotes: optionalText(WRITING_LIMITS.plotNotes, WRITING_MESSAGES.plotNotesMax),
});

export const plotContentSchema = z.object({
  plotId: z.string().uuid(WRITING_MESSAGES.plotMissing),
  content: longText(WRITING_LIMITS.plotContent, WRITING_MESSAGES.contentMax),
});

/** The short-piece imitation source: one of the picker's works, or pasted text. */
export const sourceSchema = z
  .object({
    sourceWorkId: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v && /^\d{1,15}$/.test(v) ? Number(v) : undefined)),
    sourceText: z
      .string()
      .optional()
      .transform((v) => normalizeLines(v ?? "").trim()),
  })
  .superRefine((v, ctx) => {
    if (!v.sourceWorkId && !v.sourceText) {
      ctx.addIssue({ code: "custom", path: ["sourceWorkId"], message: WRITING_MESSAGES.sourceRequired });
    }
  });

export type CharacterInput = z.infer<typeof characterSchema>;
export type PlotInput = z.infer<typeof plotSchema>;

/**
 * A generation's request: the project and the selected plot (section 5's preconditions),
 * and, from the page with JavaScript, the overall setting and plot text on screen.
 */
export const generateSchema = z.object({
  projectId: z.string().uuid(WRITING_MESSAGES.projectMissing),
  plotId: z
    .string()
    .optional()
    .transform((v) => (v && /^[0-9a-f-]{36}$/i.test(v) ? v : undefined)),
  theme: z.preprocess(normalizeLinesIn, z.string().trim().max(WRITING_LIMITS.theme, WRITING_MESSAGES.themeMax).optional()),
  content: z.preprocess(normalizeLinesIn, z.string().max(WRITING_LIMITS.plotContent, WRITING_MESSAGES.contentMax).optional()),
});
