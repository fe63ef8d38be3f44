import { z } from "zod";
import { parseShanghaiLocal } from "~/utils/shanghai-time";

/**
 * The operator's front page (docs/product.md#front-page): 编辑推荐 rows, works removed from
 * the rankings, announcements (公告), and the filing numbers in the footer.
 */

export const CURATED_ROW_NAME_MAX = 30;
/** Works a row may hold (scheduled ones included); the home page shows its first CURATED_ROW_SHOWN current ones. */
export const CURATED_ROW_WORKS_MAX = 24;
export const CURATED_ROW_SHOWN = 12;
export const CURATED_ROWS_MAX = 10;
export const ANNOUNCEMENT_TITLE_MAX = 100;
export const ANNOUNCEMENT_BODY_MAX = 5000;
export const RANKING_REASON_MAX = 200;
export const FILING_NUMBER_MAX = 50;

export const FRONT_PAGE_MESSAGES = {
  rowName: "请输入推荐位名称",
  rowNameTooLong: `推荐位名称不能超过${CURATED_ROW_NAME_MAX}个字`,
  rowMissing: "推荐位不存在",
  rowsFull: `推荐位最多${CURATED_ROWS_MAX}个`,
  rowFull: `一个推荐位最多放${CURATED_ROW_WORKS_MAX}部作品`,
  workId: "请输入作品编号（数字）",
  workMissing: "作品不存在",
  workNotInRow: "该作品不在这个推荐位中",
  workAlreadyInRow: "该作品已在这个推荐位中",
  alreadyFirst: "已经是第一个了",
  alreadyLast: "已经是最后一个了",
  badTime: "时间格式不正确，请按“年-月-日 时:分”填写",
  endBeforeStart: "结束时间必须晚于开始时间",
  endInPast: "结束时间必须晚于现在",
  title: "请输入公告标题",
  titleTooLong: `公告标题不能超过${ANNOUNCEMENT_TITLE_MAX}个字`,
  body: "请输入公告内容",
  bodyTooLong: `公告内容不能超过${ANNOUNCEMENT_BODY_MAX}个字`,
  announcementMissing: "公告不存在或已结束",
  announcementEnded: "该公告已经结束",
  reason: "请填写移出排行的原因",
  reasonTooLong: `原因不能超过${RANKING_REASON_MAX}个字`,
  alreadyRemoved: "该作品已移出排行",
  notRemoved: "该作品未被移出排行",
  icpTooLong: `ICP备案号不能超过${FILING_NUMBER_MAX}个字`,
  policeFiling: "公安联网备案号应包含备案编号中的数字",
  policeTooLong: `公安联网备案号不能超过${FILING_NUMBER_MAX}个字`,
} as const;

const chars = (v: string) => Array.from(v).length;

/** A text field: trimmed, required, at most `max` characters (counted as people count them). */
const text = (max: number, empty: string, tooLong: string) =>
  z
    .string({ error: empty })
    .trim()
    .min(1, empty)
    .refine((v) => chars(v) <= max, tooLong);

const id = (message: string) => z.coerce.number({ error: message }).int(message).positive(message).max(Number.MAX_SAFE_INTEGER, message);

/** A China-time `datetime-local` value, or nothing (null). */
const time = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (!v || !v.trim()) return null;
    const date = parseShanghaiLocal(v);
    if (!date) {
      ctx.addIssue({ code: "custom", message: FRONT_PAGE_MESSAGES.badTime });
      return z.NEVER;
    }
    return date;
  });

/** The window's end after its start (both optional). */
function windowChecked<T extends z.ZodRawShape>(shape: T) {
  return z.object({ ...shape, startsAt: time, endsAt: time }).superRefine((value, ctx) => {
    const v = value as { startsAt: Date | null; endsAt: Date | null };
    if (v.startsAt && v.endsAt && v.endsAt <= v.startsAt) ctx.addIssue({ code: "custom", path: ["endsAt"], message: FRONT_PAGE_MESSAGES.endBeforeStart });
  });
}

const rowName = text(CURATED_ROW_NAME_MAX, FRONT_PAGE_MESSAGES.rowName, FRONT_PAGE_MESSAGES.rowNameTooLong).transform((v) => v.normalize("NFKC").replace(/\s+/gu, " "));
const rowId = id(FRONT_PAGE_MESSAGES.rowMissing);
const workId = id(FRONT_PAGE_MESSAGES.workId);

/** /admin/front-page: the rows themselves. */
export const curatedRowActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("create"), name: rowName }),
  z.object({ intent: z.literal("rename"), id: rowId, name: rowName }),
  z.object({ intent: z.literal("delete"), id: rowId }),
  z.object({ intent: z.literal("up"), id: rowId }),
  z.object({ intent: z.literal("down"), id: rowId }),
]);
export type CuratedRowAction = z.infer<typeof curatedRowActionSchema>;

/** /admin/front-page/:id: the works of one row (the row from the address). */
export const curatedWorkActionSchema = z.discriminatedUnion("intent", [
  windowChecked({ intent: z.literal("add"), workId }),
  windowChecked({ intent: z.literal("schedule"), workId }),
  z.object({ intent: z.literal("remove"), workId }),
  z.object({ intent: z.literal("up"), workId }),
  z.object({ intent: z.literal("down"), workId }),
]);
export type CuratedWorkAction = z.infer<typeof curatedWorkActionSchema>;

const announcementFields = {
  title: text(ANNOUNCEMENT_TITLE_MAX, FRONT_PAGE_MESSAGES.title, FRONT_PAGE_MESSAGES.titleTooLong),
  body: text(ANNOUNCEMENT_BODY_MAX, FRONT_PAGE_MESSAGES.body, FRONT_PAGE_MESSAGES.bodyTooLong),
};
const announcementId = id(FRONT_PAGE_MESSAGES.announcementMissing);

/** /admin/announcements: create (start empty: now), edit, end now, delete. */
export const announcementActionSchema = z.discriminatedUnion("intent", [
  windowChecked({ intent: z.literal("create"), ...announcementFields }),
  windowChecked({ intent: z.literal("update"), id: announcementId, ...announcementFields }),
  z.object({ intent: z.literal("end"), id: announcementId }),
  z.object({ intent: z.literal("delete"), id: announcementId }),
]);
export type AnnouncementAction = z.infer<typeof announcementActionSchema>;

/** /admin/rankings: take a work out of the rankings with a reason, or put it back. */
export const rankingActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("remove"),
    workId,
    reason: text(RANKING_REASON_MAX, FRONT_PAGE_MESSAGES.reason, FRONT_PAGE_MESSAGES.reasonTooLong),
  }),
  z.object({ intent: z.literal("restore"), workId }),
]);
export type RankingAction = z.infer<typeof rankingActionSchema>;

/** The inbox's 标为已读 of an announcement. */
export const announcementReadSchema = z.object({ id: announcementId });

/**
 * 备案信息 on /admin/settings/site: the ICP number as written (京ICP备12345678号-1) and the
 * 公安联网备案号 (京公网安备11010502000001号), whose digits make its link; empty: not shown.
 */
export const filingNumbersSchema = z.object({
  icp: z
    .string()
    .trim()
    .optional()
    .transform((v) => v ?? "")
    .refine((v) => chars(v) <= FILING_NUMBER_MAX, FRONT_PAGE_MESSAGES.icpTooLong),
  police: z
    .string()
    .trim()
    .optional()
    .transform((v) => v ?? "")
    .refine((v) => chars(v) <= FILING_NUMBER_MAX, FRONT_PAGE_MESSAGES.policeTooLong)
    .refine((v) => v === "" || /\d/.test(v), FRONT_PAGE_MESSAGES.policeFiling),
});
