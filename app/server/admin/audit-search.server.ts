import { and, desc, eq, gte, ilike, lt, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { adminAuditLog } from "~/db/schema";
import { pageWithin, parsePage } from "~/utils/pagination";
import { escapeLike } from "~/server/platform/db-utils.server";

/** /admin/audit (docs/product.md#audit-log): 50 rows a page, newest first. */
const AUDIT_PAGE_SIZE = 50;

export interface AuditFilters {
  admin: string;
  action: string;
  targetType: string;
  targetId: string;
  from: string;
  to: string;
  q: string;
}

const AUDIT_MESSAGES = {
  badDate: "日期格式不正确，请使用 年-月-日（如 2026-11-26）",
  badRange: "开始日期不能晚于结束日期",
} as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight of a YYYY-MM-DD day in China Standard Time (the site's clock), or null. */
function siteDayStart(value: string): Date | null {
  const m = DATE.exec(value);
  if (!m) return null;
  // 2026-02-30 is no day: Date.UTC would roll it over to March.
  const day = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (day.getUTCFullYear() !== +m[1] || day.getUTCMonth() !== +m[2] - 1 || day.getUTCDate() !== +m[3]) return null;
  return new Date(`${value}T00:00:00+08:00`);
}

const text = (url: URL, name: string, max = 200) => (url.searchParams.get(name) ?? "").trim().slice(0, max);

/**
 * The filters in the query string. A date that is not a real YYYY-MM-DD day is dropped and
 * named in `errors` (the page shows it); every other field is free text, trimmed and capped.
 */
export function parseAuditFilters(url: URL): { filters: AuditFilters; page: number; errors: string[] } {
  const filters: AuditFilters = {
    admin: text(url, "admin"),
    action: text(url, "action", 100),
    targetType: text(url, "targetType", 50),
    targetId: text(url, "targetId"),
    from: text(url, "from", 10),
    to: text(url, "to", 10),
    q: text(url, "q"),
  };
  const errors: string[] = [];
  for (const name of ["from", "to"] as const) {
    if (filters[name] && !siteDayStart(filters[name])) {
      errors.push(AUDIT_MESSAGES.badDate);
      filters[name] = "";
    }
  }
  if (filters.from && filters.to && filters.from > filters.to) {
    errors.push(AUDIT_MESSAGES.badRange);
    filters.to = "";
  }
  return { filters, page: parsePage(url.searchParams.get("page")), errors: [...new Set(errors)] };
}

function whereOf(f: AuditFilters): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  if (f.admin) parts.push(ilike(adminAuditLog.adminEmail, `%${escapeLike(f.admin)}%`));
  // An action picked from the list is exact; `user.` (a prefix with its dot) finds an area.
  if (f.action) parts.push(f.action.endsWith(".") ? ilike(adminAuditLog.action, `${escapeLike(f.action)}%`) : eq(adminAuditLog.action, f.action));
  if (f.targetType) parts.push(eq(adminAuditLog.targetType, f.targetType));
  if (f.targetId) parts.push(eq(adminAuditLog.targetId, f.targetId));
  if (f.from) parts.push(gte(adminAuditLog.createdAt, siteDayStart(f.from)!));
  if (f.to) parts.push(lt(adminAuditLog.createdAt, new Date(siteDayStart(f.to)!.getTime() + 24 * 3600 * 1000)));
  if (f.q) {
    const like = `%${escapeLike(f.q)}%`;
    parts.push(
      or(
        ilike(adminAuditLog.reason, like),
        ilike(adminAuditLog.targetId, like),
        ilike(adminAuditLog.adminEmail, like),
        ilike(adminAuditLog.clientAddress, like),
        sql`${adminAuditLog.before}::text ilike ${like}`,
        sql`${adminAuditLog.after}::text ilike ${like}`,
      ),
    );
  }
  const defined = parts.filter((p): p is SQL => p !== undefined);
  return defined.length ? and(...defined) : undefined;
}

export async function searchAuditLog(filters: AuditFilters, page: number) {
  const where = whereOf(filters);
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(adminAuditLog).where(where);
  const { page: current, pageCount } = pageWithin(page, total, AUDIT_PAGE_SIZE);
  const rows = await db
    .select()
    .from(adminAuditLog)
    .where(where)
    .orderBy(desc(adminAuditLog.createdAt), desc(adminAuditLog.id))
    .limit(AUDIT_PAGE_SIZE)
    .offset((current - 1) * AUDIT_PAGE_SIZE);
  return { rows, total, page: current, pageCount };
}
