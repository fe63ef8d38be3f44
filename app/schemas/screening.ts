import { z } from "zod";

/** docs/product.md#screening: the sensitive-word lists (docs/decisions/195). */

export const SCREENING_CATEGORIES = ["政治", "色情", "暴力", "广告", "违禁品", "其他"] as const;
export type ScreeningCategory = (typeof SCREENING_CATEGORIES)[number];

export const SCREENING_LEVELS = { forbid: "禁止", review: "审核", replace: "替换" } as const;
export type ScreeningLevelKey = keyof typeof SCREENING_LEVELS;

/** A word's length in characters (a phrase, not a passage). */
export const SCREENING_WORD_MAX = 50;
/** An imported list's size: 5 MB is about 500,000 lines. */
export const SCREENING_IMPORT_MAX_BYTES = 5 * 1024 * 1024;
/** A line of an imported list: a word, a category and a level, with tabs. */
export const SCREENING_LINE_MAX = 200;
/** The defaults of a line that gives only the word (or the word and its category). */
export const SCREENING_DEFAULT_CATEGORY: ScreeningCategory = "其他";
export const SCREENING_DEFAULT_LEVEL: ScreeningLevelKey = "forbid";

export const SCREENING_MESSAGES = {
  word: "请输入词语",
  wordTooLong: `词语不能超过${SCREENING_WORD_MAX}个字`,
  wordBlank: "词语不能只有空格、标点或不可见字符",
  wordTaken: (word: string, existing: string) => (word === existing ? `「${word}」已在词库中` : `「${word}」已在词库中（写作「${existing}」）`),
  category: `请选择分类（${SCREENING_CATEGORIES.join("、")}）`,
  level: "请选择级别（禁止、审核、替换）",
  missing: "词语不存在或已删除",
  added: "词语已添加",
  deleted: "词语已删除",
  importFile: "请选择要导入的TXT文件",
  importTooLarge: "词库文件不能超过5MB",
  importNotUtf8: "文件不是UTF-8编码（可能是GBK），请另存为UTF-8后再导入",
  importEmpty: "文件里没有词语（空行和以 # 开头的行不算）",
  importLineTooLong: (line: number) => `第${line}行过长（超过${SCREENING_LINE_MAX}个字符），请检查是否用换行分隔词语`,
  importColumns: (line: number) => `第${line}行格式不对：应为「词语<Tab>分类<Tab>级别」，分类和级别可省略`,
  importWord: (line: number, reason: string) => `第${line}行：${reason}`,
  importCategory: (line: number, value: string) => `第${line}行：分类「${value}」不存在（可用：${SCREENING_CATEGORIES.join("、")}）`,
  importLevel: (line: number, value: string) => `第${line}行：级别「${value}」不存在（可用：禁止、审核、替换）`,
  importDuplicate: (line: number, first: number, word: string) => `第${line}行的「${word}」与第${first}行重复，请删去一行后再导入`,
  imported: (added: number, updated: number) => `已导入：新增${added}个词语，更新${updated}个词语`,
  /** What a writer reads when a text holds a 禁止 word. */
  refused: (what: string, words: string[]) => `${what}含有禁止使用的词语：${words.map((w) => `「${w}」`).join("、")}，请修改后再提交`,
} as const;

const word = z
  .string({ error: SCREENING_MESSAGES.word })
  .trim()
  .min(1, SCREENING_MESSAGES.word)
  .max(SCREENING_WORD_MAX, SCREENING_MESSAGES.wordTooLong);
const category = z.enum(SCREENING_CATEGORIES, { error: SCREENING_MESSAGES.category });
const level = z.enum(["forbid", "review", "replace"], { error: SCREENING_MESSAGES.level });
const id = z.coerce.number({ error: SCREENING_MESSAGES.missing }).int().positive(SCREENING_MESSAGES.missing).max(Number.MAX_SAFE_INTEGER, SCREENING_MESSAGES.missing);

/** /admin/screening: add one word, delete one, import a TXT (its file read beside the form). */
export const screeningActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("add"), word, category, level }),
  z.object({ intent: z.literal("delete"), id }),
  z.object({ intent: z.literal("import"), category: category.default(SCREENING_DEFAULT_CATEGORY), level: level.default(SCREENING_DEFAULT_LEVEL) }),
]);

/** The list's filters (a GET form, read leniently: anything else is no filter). */
export interface ScreeningFilters {
  q: string;
  category: ScreeningCategory | null;
  level: ScreeningLevelKey | null;
}

export function parseScreeningFilters(params: URLSearchParams): ScreeningFilters {
  const c = params.get("category");
  const l = params.get("level");
  return {
    q: (params.get("q") ?? "").trim().slice(0, SCREENING_WORD_MAX),
    category: (SCREENING_CATEGORIES as readonly string[]).includes(c ?? "") ? (c as ScreeningCategory) : null,
    level: l && l in SCREENING_LEVELS ? (l as ScreeningLevelKey) : null,
  };
}
