/**
 * Times authors enter and read in the studio are China time (Asia/Shanghai, UTC+8 all
 * year, no daylight saving), whatever the server's or the browser's zone.
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

/** "2026-12-01 20:00" in China time. */
export function formatShanghai(date: Date | string): string {
  const { date: d, time } = parts(new Date(date));
  return `${d} ${time}`;
}

/** The datetime-local value for `date` in China time ("2026-12-01T20:00"). */
export function toShanghaiInput(date: Date | string): string {
  const { date: d, time } = parts(new Date(date));
  return `${d}T${time}`;
}

/** The calendar day of `date` in China time ("2026-12-01"). */
export function shanghaiDate(date: Date | string): string {
  return parts(new Date(date)).date;
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

/** "2026-12-01 20:00:05" in China time: for saves minutes apart. */
export function formatShanghaiSeconds(date: Date | string): string {
  const d = new Date(date);
  return `${formatShanghai(d)}:${String(d.getUTCSeconds()).padStart(2, "0")}`;
}
