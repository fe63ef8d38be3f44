/**
 * The site's one clock: every time shown to a person (and every time an author enters) is
 * China time (Asia/Shanghai, UTC+8 all year, no daylight saving), whatever the server's or
 * the browser's zone. Every page formats times through this module, so the server's HTML
 * and the browser's hydration agree (docs/architecture.md "One clock"; decision 159).
 */
const OFFSET_MS = 8 * 3_600_000;

/** "2026-12-01T20:00" (a datetime-local value, seconds optional) in China time; null if malformed. */
export function parseShanghaiLocal(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as unknown as number[];
  const utc = Date.UTC(y, mo - 1, d, h, mi, s || 0);
  const date = new Date(utc - OFFSET_MS);
  // Refuse 2026-02-30 and 25:00 rather than rolling them over.
  const back = new Date(utc);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h) return null;
  return date;
}

function parts(date: Date) {
  const t = new Date(date.getTime() + OFFSET_MS);
  const p = (n: number) => String(n).padStart(2, "0");
  return { date: `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}`, time: `${p(t.getUTCHours())}:${p(t.getUTCMinutes())}` };
}

/** A time as the database or a loader gives it; null, undefined or unreadable shows as "". */
export type TimeValue = Date | string | null | undefined;

function valid(value: TimeValue): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "2026-12-01 20:00" in China time; "" for no date. */
export function formatShanghai(value: TimeValue): string {
  const date = valid(value);
  if (!date) return "";
  const { date: d, time } = parts(date);
  return `${d} ${time}`;
}

/** The datetime-local value for `date` in China time ("2026-12-01T20:00"). */
export function toShanghaiInput(date: Date | string): string {
  const { date: d, time } = parts(new Date(date));
  return `${d}T${time}`;
}

/** The calendar day of `date` in China time ("2026-12-01"); "" for no date. */
export function shanghaiDate(value: TimeValue): string {
  const date = valid(value);
  return date ? parts(date).date : "";
}

/** "12月1日" for the China-time day "2026-12-01" (a day key from `shanghaiDate` or SQL's `at time zone`). */
export function formatDayLabel(day: string): string {
  return `${Number(day.slice(5, 7))}月${Number(day.slice(8, 10))}日`;
}

/** The `count` China-time days ending with the day of `date`, oldest first ("2026-11-02" … "2026-12-01"). */
export function shanghaiDaysEnding(date: Date, count: number): string[] {
  const last = Date.parse(`${shanghaiDate(date)}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(last - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** The instant China-time day `day` ("2026-12-01") begins. */
export function shanghaiDayStart(day: string): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) - OFFSET_MS);
}

/** "2026-12-01 20:00:05" in China time: for saves minutes apart, ledgers and logs; "" for no date. */
export function formatShanghaiSeconds(value: TimeValue): string {
  const date = valid(value);
  if (!date) return "";
  return `${formatShanghai(date)}:${String(date.getUTCSeconds()).padStart(2, "0")}`;
}

/** The China-time day of `date`, the Monday its week began and the first of its month ("2026-12-01"): the rankings' periods. */
export function shanghaiPeriods(date: Date): { day: string; week: string; month: string } {
  const day = shanghaiDate(date);
  const at = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(at).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return { day, week: new Date(at - weekday * 86_400_000).toISOString().slice(0, 10), month: `${day.slice(0, 7)}-01` };
}
