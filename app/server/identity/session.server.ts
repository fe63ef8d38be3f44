import { randomBytes } from "node:crypto";
import { and, eq, gt, lt, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { accountDeletions, announcementReads, announcements, authorBlocks, credits, notifications, profiles, sessions, tagBlocks, users } from "~/db/schema";
import { safeRedirectPath } from "~/utils/redirect";
import { jsonColumn } from "~/server/platform/db-utils.server";
import { effectiveShowR18 } from "./minor-mode.server";
import { requestScope } from "~/server/platform/logger.server";
import { isSecureRequest, makeSessionCookie, SESSION_DAYS } from "~/server/platform/cookies.server";

const userCookie = makeSessionCookie("inkstone_session");

export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

function sessionExpiry(): Date {
  return new Date(Date.now() + SESSION_DAYS * 24 * 3600 * 1000);
}

/**
 * Cookie headers whose signature was checked, with the session id each carries: the
 * check (an HMAC on libuv's thread pool) costs a thread hop on every signed-in request,
 * and a browser sends the same header again and again. Only headers that verified are
 * kept, only short ones, and at most VERIFIED_MAX (the oldest go first), so junk
 * headers cannot fill it. An ended session is still refused by the database lookup.
 */
const verified = new Map<string, string>();
const VERIFIED_MAX = 10_000;
const VERIFIED_HEADER_MAX = 1_024;

/** Reads the signed session id; a missing, unsigned or tampered cookie gives null. */
export async function readSessionId(
  request: Request,
  cookie = userCookie,
): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  const key = `${cookie.name}\n${header}`;
  const known = verified.get(key);
  if (known !== undefined) return known;
  const value = await cookie.parse(header);
  const id = typeof value === "string" && value.length > 0 && value.length < 100 ? value : null;
  if (id && header.length <= VERIFIED_HEADER_MAX) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(key, id);
  }
  return id;
}

export interface SessionUser {
  id: string;
  email: string;
  nickname: string;
  avatarUrl: string | null;
  showR18: boolean;
  showAi: boolean;
  tokens: number;
  credits: number;
  /** As stored: read through readerSettingsFor (app/server/reading/reader-settings.server.ts). */
  readerSettings: unknown;
  /** The bell's number: unread notifications, counted up to UNREAD_CAP (notifications.server.ts), and unread current 公告. */
  unread: number;
  /** When the account will be deleted, while a 注销 request waits out its cool-off (decision 231). */
  deletionDueAt: Date | null;
  /**
   * The reader's 屏蔽 lists (decision 233), read with the session so that a listing page
   * makes no statement of its own for them (decision 270); catalog/blocks.server.ts reads
   * them from here.
   */
  blocks: { authors: string[]; tags: string[] };
}

/**
 * The signed-in user of a page view, looked up once however many of its loaders ask
 * (the shell and the page both do). Only for GET: an action may end or start the
 * session, and the loaders that run after it in the same request must see that.
 */
const usersOfGets = new WeakMap<Request, Promise<SessionUser | null>>();

export function getSessionUser(request: Request): Promise<SessionUser | null> {
  if (request.method !== "GET") return lookUpSessionUser(request);
  let user = usersOfGets.get(request);
  if (!user) {
    user = lookUpSessionUser(request);
    usersOfGets.set(request, user);
  }
  return user;
}

/** The condition for a live session: this id, not expired. Every session lookup uses it. */
export function liveSession(id: string | SQLWrapper): SQL {
  return and(eq(sessions.id, id), gt(sessions.expiresAt, sql`now()`))!;
}

/**
 * The session lookup, built once: it runs on every signed-in request, and building a
 * drizzle query costs more CPU than PostgreSQL takes to answer it.
 */
const sessionUserQuery = db
  .select({
    id: profiles.id,
    email: profiles.email,
    nickname: profiles.nickname,
    avatarUrl: profiles.avatarUrl,
    // Off in 青少年模式 whatever the stored preference (decision 218).
    showR18: effectiveShowR18(sessions.userId),
    showAi: profiles.showAi,
    tokens: profiles.tokens,
    readerSettings: profiles.readerSettings,
    credits: sql<number>`coalesce(${credits.balance}, 0)`.mapWith(Number),
    // In the same statement: a page's shell needs it, and a second query cost more CPU
    // than the count (decision 109). 100 is UNREAD_CAP of notifications.server.ts.
    // With the 公告 the inbox shows (the 5 newest current ones, decision 198) not yet marked read.
    unread: sql<number>`(select count(*)::int from (select 1 from ${notifications} n where n.user_id = ${sessions.userId} and n.read_at is null limit 100) unread)
      + (select count(*)::int from (select a.id from ${announcements} a where a.starts_at <= now() and (a.ends_at is null or a.ends_at > now())
           order by a.starts_at desc, a.id desc limit 5) current
         where not exists (select 1 from ${announcementReads} r where r.announcement_id = current.id and r.user_id = ${sessions.userId}))`.mapWith(Number),
    // Every page's banner during a 注销 cool-off (decision 231); the primary key's lookup.
    deletionDueAt: sql<Date | null>`(select d.due_at from ${accountDeletions} d where d.user_id = ${sessions.userId} and d.deleted_at is null)`.mapWith((v: string | Date | null) => (v === null ? null : new Date(v))),
    // Both primary keys' prefix: a few rows at most (BLOCK_LIMIT each), none for nearly everyone.
    blocks: sql<{ authors: string[]; tags: string[] }>`json_build_object(
      'authors', coalesce((select json_agg(b.author_id::text) from ${authorBlocks} b where b.user_id = ${sessions.userId}), '[]'::json),
      'tags', coalesce((select json_agg(t.tag) from ${tagBlocks} t where t.user_id = ${sessions.userId}), '[]'::json))`.mapWith(
      (v: unknown) => jsonColumn<{ authors: string[]; tags: string[] }>(v),
    ),
  })
  .from(sessions)
  .innerJoin(profiles, eq(profiles.id, sessions.userId))
  .leftJoin(credits, eq(credits.userId, sessions.userId))
  .where(liveSession(sql.placeholder("id")))
  .prepare("session_user");

async function lookUpSessionUser(request: Request): Promise<SessionUser | null> {
  const id = await readSessionId(request);
  if (!id) return null;
  const [row] = await sessionUserQuery.execute({ id });
  // Who is asking, for the request's log line.
  const scope = requestScope.getStore();
  if (scope && row) scope.userId = row.id;
  return row ?? null;
}

/** Starts a new session (a fresh id at every login) and returns its Set-Cookie header. */
export async function createUserSession(request: Request, userId: string): Promise<string> {
  const id = newSessionId();
  await db.insert(sessions).values({ id, userId, expiresAt: sessionExpiry() });
  // Opportunistic cleanup of this user's expired sessions.
  await db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, new Date())));
  await db.update(users).set({ lastSignInAt: new Date() }).where(eq(users.id, userId));
  await db.update(profiles).set({ lastSignInAt: new Date() }).where(eq(profiles.id, userId));
  return userCookie.serialize(id, { secure: isSecureRequest(request) });
}

/** Ends the request's session on the server and returns a Set-Cookie that clears it. */
export async function destroyUserSession(request: Request): Promise<string> {
  const id = await readSessionId(request);
  if (id) await db.delete(sessions).where(eq(sessions.id, id));
  return userCookie.serialize("", { maxAge: 0, expires: new Date(0), secure: isSecureRequest(request) });
}

/**
 * Ends every session of a user, in every process (password change, admin reset, reset
 * by e-mail); pass the transaction that changes the password, so both commit together.
 */
export async function destroyAllUserSessions(userId: string, executor: Executor = db): Promise<void> {
  await executor.delete(sessions).where(eq(sessions.userId, userId));
}

/** `url` is the page asked for (a loader's `url`, without React Router's `.data` suffix). */
export function loginRedirectUrl(url: URL, mode: "login" | "register" = "login"): string {
  const target = safeRedirectPath(url.pathname + url.search);
  return `/?auth=${mode}&redirectTo=${encodeURIComponent(target)}`;
}

