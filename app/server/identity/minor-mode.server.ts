import { eq, inArray, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { minorModes, profiles, siteConfigs } from "~/db/schema";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { hashPassword, verifyPassword } from "~/server/platform/password.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { MINOR_MESSAGES, PIN_ATTEMPTS, PIN_LOCK_HOURS } from "~/schemas/minor-mode";
import { formatShanghai, shanghaiDate } from "~/utils/shanghai-time";

/**
 * 青少年模式 (docs/product.md#minor-mode, decision 218). A reader is in the mode when they
 * turned it on (a `minor_modes` row, left only with its 4-digit PIN) or when their approved
 * 实名认证 says they are not 18 yet (`author_identities.adult_on` ahead of today in China).
 * In the mode: no R-18 anywhere (the session's showR18 is false, and the preference cannot
 * be turned on), caps on money (economy/minor-caps.server.ts), and the operator's optional
 * reading hours. The operator's defaults are site settings (/admin/settings/minors).
 */


/** Whether `userId` (a column or a value) is in the mode, as SQL: the one definition every query uses. */
export function minorModeSql(userId: SQLWrapper | string): SQL<boolean> {
  return sql<boolean>`(exists (select 1 from minor_modes mm where mm.user_id = ${userId})
    or exists (select 1 from author_identities ai where ai.user_id = ${userId} and ai.status = 'approved'
      and ai.adult_on > (now() at time zone 'Asia/Shanghai')::date))`;
}

export async function isInMinorMode(userId: string, executor: Executor = db): Promise<boolean> {
  const [row] = rowsOf<{ on: boolean }>(await executor.execute(sql`select ${minorModeSql(userId)} as on`));
  return Boolean(row?.on);
}

/** An approved identity whose 18th birthday (China time) is still ahead. */
async function verifiedMinorSql(userId: string, executor: Executor): Promise<boolean> {
  const [row] = rowsOf<{ v: boolean }>(
    await executor.execute(sql`select exists (select 1 from author_identities ai where ai.user_id = ${userId} and ai.status = 'approved'
      and ai.adult_on > (now() at time zone 'Asia/Shanghai')::date) as v`),
  );
  return Boolean(row?.v);
}

export interface MinorModeState {
  on: boolean;
  /** Turned on by the reader (a PIN leaves it). */
  self: boolean;
  /** Under 18 by the verified identity: the mode cannot be left. */
  verifiedMinor: boolean;
  lockedUntil: Date | null;
}

export async function minorModeState(userId: string): Promise<MinorModeState> {
  const [row] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select
      (select locked_until from minor_modes where user_id = ${userId}) as locked_until,
      exists (select 1 from minor_modes where user_id = ${userId}) as self,
      exists (select 1 from author_identities ai where ai.user_id = ${userId} and ai.status = 'approved'
        and ai.adult_on > (now() at time zone 'Asia/Shanghai')::date) as verified`),
  );
  const self = Boolean(row?.self);
  const verifiedMinor = Boolean(row?.verified);
  const locked = row?.locked_until ? new Date(row.locked_until as string) : null;
  return { on: self || verifiedMinor, self, verifiedMinor, lockedUntil: locked && locked.getTime() > Date.now() ? locked : null };
}

function checkPin(pin: unknown, field = "pin"): string {
  const text = typeof pin === "string" ? pin.trim() : "";
  if (!/^\d{4}$/.test(text)) throw new DomainError(MINOR_MESSAGES.pinShape, 400, field);
  return text;
}

/**
 * 开启青少年模式 with a 4-digit PIN typed twice: the row and the R-18 preference turned off,
 * in one transaction. Already on: 409, nothing changed.
 */
export async function enterMinorMode(userId: string, pin: unknown, pinAgain: unknown): Promise<void> {
  const first = checkPin(pin);
  if (checkPin(pinAgain, "pinAgain") !== first) throw new DomainError(MINOR_MESSAGES.pinMismatch, 400, "pinAgain");
  const pinHash = await hashPassword(first);
  await db.transaction(async (tx) => {
    const inserted = await tx.insert(minorModes).values({ userId, pinHash }).onConflictDoNothing().returning({ userId: minorModes.userId });
    if (inserted.length === 0) throw new DomainError(MINOR_MESSAGES.alreadyOn, 409);
    await tx.update(profiles).set({ showR18: false, updatedAt: new Date() }).where(eq(profiles.id, userId));
  });
}

/**
 * 关闭青少年模式 with the PIN. The row is locked FOR UPDATE while the PIN is checked, so
 * guesses sent at once are counted one after another; the fifth wrong one in a row locks
 * the exit for PIN_LOCK_HOURS (the count starts again after). A wrong PIN's count is
 * committed before the refusal is thrown. A verified minor cannot leave.
 */
export async function leaveMinorMode(userId: string, pin: unknown): Promise<void> {
  const text = checkPin(pin);
  const outcome = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(minorModes).where(eq(minorModes.userId, userId)).for("update");
    if (!row) {
      if (await isInMinorMode(userId, tx)) return { refuse: new DomainError(MINOR_MESSAGES.verifiedMinor, 403) };
      return { refuse: new DomainError(MINOR_MESSAGES.notOn, 409) };
    }
    if (row.lockedUntil && row.lockedUntil.getTime() > Date.now()) {
      return { refuse: new DomainError(MINOR_MESSAGES.locked(formatShanghai(row.lockedUntil)), 429) };
    }
    if (await verifiedMinorSql(userId, tx)) return { refuse: new DomainError(MINOR_MESSAGES.verifiedMinor, 403) };
    if (await verifyPassword(text, row.pinHash)) {
      await tx.delete(minorModes).where(eq(minorModes.userId, userId));
      return { refuse: null };
    }
    const failed = row.failedPins + 1;
    if (failed >= PIN_ATTEMPTS) {
      const until = new Date(Date.now() + PIN_LOCK_HOURS * 3_600_000);
      await tx.update(minorModes).set({ failedPins: 0, lockedUntil: until }).where(eq(minorModes.userId, userId));
      return { refuse: new DomainError(MINOR_MESSAGES.locked(formatShanghai(until)), 429, "pin") };
    }
    await tx.update(minorModes).set({ failedPins: failed }).where(eq(minorModes.userId, userId));
    return { refuse: new DomainError(MINOR_MESSAGES.wrongPin(PIN_ATTEMPTS - failed), 400, "pin") };
  });
  if (outcome.refuse) throw outcome.refuse;
}

/** Refuses turning R-18 on in the mode (the settings' 浏览与显示). */
export async function refuseR18InMinorMode(userId: string): Promise<void> {
  if (await isInMinorMode(userId)) throw new DomainError(MINOR_MESSAGES.r18Refused, 403);
}

// ---- The operator's defaults ----

export interface MinorSettings {
  /** Per payment: yuan for a top-up, credits for a purchase or tip (1 yuan = 1 credit). */
  perPayment: number;
  perMonth: number;
  hours: boolean;
  hoursFrom: string;
  hoursTo: string;
}

const KEYS = ["minor_cap_per_payment", "minor_cap_per_month", "minor_hours", "minor_hours_from", "minor_hours_to"] as const;
const CAP_MAX = 100_000;

/** The operator's defaults; pass the transaction when inside one (PGlite has one connection). */
export async function getMinorSettings(executor: Executor = db): Promise<MinorSettings> {
  const rows = await executor.select({ key: siteConfigs.key, value: siteConfigs.value }).from(siteConfigs).where(inArray(siteConfigs.key, [...KEYS]));
  const c = Object.fromEntries(KEYS.map((k) => [k, rows.find((r) => r.key === k)?.value ?? DEFAULT_SITE_CONFIGS[k] ?? ""])) as Record<(typeof KEYS)[number], string>;
  const int = (v: string, d: number) => (/^\d{1,6}$/.test(v) && Number(v) <= CAP_MAX ? Number(v) : d);
  const time = (v: string, d: string) => (timeProblem(v) ? d : v);
  return {
    perPayment: int(c.minor_cap_per_payment, 50),
    perMonth: int(c.minor_cap_per_month, 200),
    hours: c.minor_hours === "on",
    hoursFrom: time(c.minor_hours_from, "22:00"),
    hoursTo: time(c.minor_hours_to, "06:00"),
  };
}

function timeProblem(value: string): boolean {
  const m = /^(\d{2}):(\d{2})$/.exec(value);
  return !m || Number(m[1]) > 23 || Number(m[2]) > 59;
}

/** The operator saves the defaults; every field checked first (a message by it, nothing written), audited. */
export async function saveMinorSettings(
  actor: AdminActor,
  input: { perPayment: string; perMonth: string; hours: string; hoursFrom: string; hoursTo: string },
): Promise<MinorSettings> {
  const cap = (v: string, field: string) => {
    const t = v.trim();
    if (!/^\d{1,6}$/.test(t) || Number(t) > CAP_MAX) throw new DomainError(MINOR_MESSAGES.settingsCap, 400, field);
    return Number(t);
  };
  const perPayment = cap(input.perPayment, "perPayment");
  const perMonth = cap(input.perMonth, "perMonth");
  if (perPayment > perMonth) throw new DomainError(MINOR_MESSAGES.settingsOrder, 400, "perPayment");
  const hoursFrom = input.hoursFrom.trim();
  const hoursTo = input.hoursTo.trim();
  if (timeProblem(hoursFrom)) throw new DomainError(MINOR_MESSAGES.settingsTime, 400, "hoursFrom");
  if (timeProblem(hoursTo)) throw new DomainError(MINOR_MESSAGES.settingsTime, 400, "hoursTo");
  if (hoursFrom === hoursTo) throw new DomainError(MINOR_MESSAGES.settingsSameTime, 400, "hoursTo");
  const next: MinorSettings = { perPayment, perMonth, hours: input.hours === "on", hoursFrom, hoursTo };
  const before = await getMinorSettings();
  const values: Record<(typeof KEYS)[number], string> = {
    minor_cap_per_payment: String(next.perPayment),
    minor_cap_per_month: String(next.perMonth),
    minor_hours: next.hours ? "on" : "off",
    minor_hours_from: next.hoursFrom,
    minor_hours_to: next.hoursTo,
  };
  await db.transaction(async (tx) => {
    for (const [key, value] of Object.entries(values)) {
      await tx.insert(siteConfigs).values({ key, value }).onConflictDoUpdate({ target: siteConfigs.key, set: { value, updatedAt: new Date() } });
    }
    await recordAdminAction(tx, actor, {
      action: "settings.minors",
      targetType: "setting",
      targetId: "minors",
      ...changedFields(settingsForAudit(before), settingsForAudit(next)),
    });
  });
  return next;
}

function settingsForAudit(s: MinorSettings) {
  return { perPayment: s.perPayment, perMonth: s.perMonth, hours: s.hours ? `${s.hoursFrom}-${s.hoursTo}` : "off" };
}

/**
 * Whether `now` falls in the closed hours (China time); a window may run past midnight (22:00–06:00).
 * @internal
 */
export function inClosedHours(settings: Pick<MinorSettings, "hours" | "hoursFrom" | "hoursTo">, now = new Date()): boolean {
  if (!settings.hours) return false;
  const t = formatShanghai(now).slice(11, 16);
  const { hoursFrom: from, hoursTo: to } = settings;
  return from < to ? t >= from && t < to : t >= from || t < to;
}

/**
 * The chapter gate of the reading hours: a DomainError (403) with the hours when a reader in
 * the mode opens a chapter's text inside them; nothing for anyone else.
 */
export async function refuseClosedHours(userId: string | null, now = new Date()): Promise<void> {
  if (!userId) return;
  const settings = await getMinorSettings();
  if (!inClosedHours(settings, now)) return;
  if (await isInMinorMode(userId)) throw new DomainError(MINOR_MESSAGES.closedHours(settings.hoursFrom, settings.hoursTo), 403);
}

/** The first day of the China-time month of `now` ("2026-11-01"). */
export function chinaMonth(now = new Date()): string {
  return `${shanghaiDate(now).slice(0, 7)}-01`;
}

/** Used by the session lookup: the stored R-18 preference, off in the mode. */
export function effectiveShowR18(userId: SQLWrapper): SQL<boolean> {
  return sql<boolean>`(${profiles.showR18} and not ${minorModeSql(userId)})`;
}
