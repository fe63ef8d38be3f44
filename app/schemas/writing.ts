import { z } from "zod";
import { normalizeLines, normalizeLinesIn } from "~/utils/text";
import { flag, sentOrMissing, sentText } from "./form-fields";

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
  // Generation preconditions, in docs/product.md's order (Rules, Writing tools).
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
 * @internal
 */
export function parseExpectedWords(value: unknown): number {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
  const n = Number(text);
  if (!text || !Number.isFinite(n)) return WRITING_LIMITS.expectedWordsDefault;
  return Math.floor(n);
}

const expectedWordsSchema = z
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

/**
 * What the writing page's forms post besides their own fields (decision 173), read once
 * before the intent's schema: the intent, the project and the plot on screen, the tab to
 * go back to, `fetcher` (1 from a fetcher, answered with data rather than a redirect), and
 * the fields of the buttons whose rows the writing functions look up themselves (a
 * character, a plot and its direction, the plots' order, a version, an operation and its
 * candidate, the text 生成 saves first). Refuses nothing: an unknown intent is 未知操作, a
 * missing or wrong id the function's own 不存在.
 */
export const writingFormSchema = z.object({
  intent: sentText,
  projectId: sentText,
  selectedPlotId: sentText.transform((id) => id || undefined),
  tab: z
    .unknown()
    .optional()
    .transform((value) => (value === "draft" ? ("draft" as const) : undefined)),
  fetcher: flag,
  characterId: sentText,
  plotId: sentText,
  direction: z
    .unknown()
    .optional()
    .transform((value) => (value === "up" ? ("up" as const) : ("down" as const))),
  order: sentText.transform((order) => order.split(",").filter(Boolean)),
  versionId: sentText,
  operationId: sentText,
  /** A candidate's index as a number (NaN when missing, which acceptCandidate answers 该候选不存在). */
  index: z
    .unknown()
    .catch(undefined)
    .transform((value) => Number(value ?? NaN)),
  /** The plot's text 生成 saves first: an emptied textarea ("") is saved, a missing one is not. */
  content: sentOrMissing,
});

export type CharacterInput = z.infer<typeof characterSchema>;
export type PlotInput = z.infer<typeof plotSchema>;

/**
 * A generation's request: the project and the selected plot (docs/product.md's preconditions),
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

// ---- The editor's operations on a selection (decision 130) ----------------------------

export const TEXT_OPERATIONS = ["continue", "rewrite", "expand", "condense", "polish"] as const;
export type TextOperation = (typeof TEXT_OPERATIONS)[number];
export const TEXT_OPERATION_LABELS: Record<TextOperation, string> = {
  continue: "续写",
  rewrite: "改写",
  expand: "扩写",
  condense: "缩写",
  polish: "润色",
};

export const OPERATION_LIMITS = {
  /** The longest selection one operation works on. */
  selection: 5_000,
  /** Candidates per operation: the author picks 1 to 3. */
  candidates: 3,
  /** Text before and after the selection that goes into the prompt. */
  before: 1_500,
  after: 500,
  /** 续写 writes about this many characters. */
  continueWords: 500,
} as const;

export const OPERATION_MESSAGES = {
  operation: "请选择要进行的操作",
  count: `候选数量为1到${OPERATION_LIMITS.candidates}个`,
  requestKey: "请求已失效，请刷新页面后重试",
  noText: "正文为空，请先写一些内容",
  needSelection: "请先选中要修改的文字（没有JavaScript时请填写段落编号，留空则为全文）",
  selectionTooLong: `选中的文字过长，一次最多${OPERATION_LIMITS.selection}字`,
  selectionRange: "选中的范围不在正文内，请重新选择",
  paragraph: (total: number) => (total > 0 ? `请输入1到${total}之间的段落编号（留空为全文）` : "正文为空，请先写一些内容"),
  paragraphNumber: "段落编号应为正整数（留空为全文）",
  needTextBefore: "续写需要在光标前有正文，请先写几句",
  submitted: "这个操作已经提交过了",
  operationMissing: "该操作不存在",
  operationClosed: "该操作已处理过（已采用或已放弃）",
  candidateMissing: "该候选不存在",
  candidateEmpty: "该候选没有可以采用的内容",
  textChanged: "正文在这次操作之后改动过，不能再采用这个候选。请重新选择文字后再试",
  tooLongAfter: `采用后情节内容将超过${WRITING_LIMITS.plotContent}个字符`,
} as const;

/** A selection's offset: a whole number from 0, else the range message (never zod's English). */
const optionalInt = z.preprocess(
  (v) => (v === "" || v === null || v === undefined ? undefined : v),
  z.coerce
    .number({ error: OPERATION_MESSAGES.selectionRange })
    .int(OPERATION_MESSAGES.selectionRange)
    .min(0, OPERATION_MESSAGES.selectionRange)
    .max(Number.MAX_SAFE_INTEGER, OPERATION_MESSAGES.selectionRange)
    .optional(),
);

/**
 * One operation on the plot's text: 续写 at the cursor (start = end), or 改写/扩写/缩写/润色 on
 * a selection (UTF-16 offsets into the text on screen, `content`, saved first when it
 * differs). Without JavaScript there is no selection: `paragraph` (1-based, non-empty
 * lines) or, left empty, the whole text; 续写 continues after that paragraph or at the end.
 */
export const operationSchema = z.object({
  projectId: z.string().uuid(WRITING_MESSAGES.projectMissing),
  plotId: z.string({ error: WRITING_MESSAGES.needPlot }).uuid(WRITING_MESSAGES.plotMissing),
  operation: z.enum(TEXT_OPERATIONS, { error: OPERATION_MESSAGES.operation }),
  count: z.coerce.number({ error: OPERATION_MESSAGES.count }).int(OPERATION_MESSAGES.count).min(1, OPERATION_MESSAGES.count).max(OPERATION_LIMITS.candidates, OPERATION_MESSAGES.count),
  requestKey: z.string({ error: OPERATION_MESSAGES.requestKey }).regex(/^[A-Za-z0-9_-]{16,64}$/, OPERATION_MESSAGES.requestKey),
  start: optionalInt,
  end: optionalInt,
  paragraph: z.preprocess(
    (v) => (typeof v === "string" ? v.trim() : v),
    z
      .union([
        z.literal(""),
        z.coerce
          .number({ error: OPERATION_MESSAGES.paragraphNumber })
          .int(OPERATION_MESSAGES.paragraphNumber)
          .min(1, OPERATION_MESSAGES.paragraphNumber)
          .max(Number.MAX_SAFE_INTEGER, OPERATION_MESSAGES.paragraphNumber),
      ], { error: OPERATION_MESSAGES.paragraphNumber })
      .optional(),
  ),
  content: z.preprocess(normalizeLinesIn, z.string().max(WRITING_LIMITS.plotContent, WRITING_MESSAGES.contentMax).optional()),
});
export type OperationInput = z.infer<typeof operationSchema>;

// ---- 存为章节: a plot's text to a chapter of one's own work (docs/product.md) ----------

export const TO_CHAPTER_MESSAGES = {
  work: "请选择作品",
  mode: "请选择保存方式",
  chapter: "请选择要追加到的存稿章节",
  emptyText: "情节正文为空，没有可以保存的内容",
  saved: "已存为章节",
} as const;

export const toChapterSchema = z
  .object({
    projectId: z.string().uuid(WRITING_MESSAGES.projectMissing),
    plotId: z.string({ error: WRITING_MESSAGES.needPlot }).uuid(WRITING_MESSAGES.plotMissing),
    mode: z.enum(["draft", "publish", "append"], { error: TO_CHAPTER_MESSAGES.mode }),
    workId: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().positive().optional()),
    chapterId: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().positive().optional()),
    title: z.string().trim().max(100, "章节标题不能超过100个字").optional(),
    formToken: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, "表单已失效，请刷新页面后重试").optional(),
  })
  .superRefine((v, ctx) => {
    if (v.mode === "append" && !v.chapterId) ctx.addIssue({ code: "custom", path: ["chapterId"], message: TO_CHAPTER_MESSAGES.chapter });
    if (v.mode !== "append" && !v.workId) ctx.addIssue({ code: "custom", path: ["workId"], message: TO_CHAPTER_MESSAGES.work });
  });
export type ToChapterInput = z.infer<typeof toChapterSchema>;
