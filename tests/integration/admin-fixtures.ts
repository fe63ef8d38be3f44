import { randomBytes } from "node:crypto";
import { cookiePair } from "../fixtures/accounts";
import { runRoute } from "./route-chain";

/** Helpers shared by the admin-*.test.ts files (imported, never run by itself). */

const ADMIN_PASSWORD = "admin-password-123";

export async function createAdmin(opts: { email?: string; password?: string; role?: "super" | "operator" | "chief_editor" | "reviewer" } = {}) {
  const { createOrResetAdmin } = await import("~/server/identity/admin-provision.server");
  const { db } = await import("~/db/client.server");
  const { admins } = await import("~/db/schema");
  const { eq } = await import("drizzle-orm");
  const email = opts.email ?? `admin-${randomBytes(4).toString("hex")}@example.com`;
  const password = opts.password ?? ADMIN_PASSWORD;
  await createOrResetAdmin(email, password);
  if (opts.role && opts.role !== "super") await db.update(admins).set({ role: opts.role }).where(eq(admins.email, email));
  const [row] = await db.select({ id: admins.id }).from(admins).where(eq(admins.email, email));
  return { id: row.id, email, password };
}

/** A Cookie header value for a fresh admin session. */
export async function adminCookieFor(adminId: string): Promise<string> {
  const { createAdminSession } = await import("~/server/identity/admin-session.server");
  return cookiePair(await createAdminSession(new Request("http://localhost/"), adminId));
}

export interface Identity {
  cookie?: string;
  authorization?: string;
}

/** A request as a browser (or script) with the given cookie/bearer would send it. */
export function request(path: string, who: Identity = {}, body?: FormData | Record<string, string>): Request {
  const headers: Record<string, string> = { Origin: "http://localhost" };
  if (who.cookie) headers.Cookie = who.cookie;
  if (who.authorization) headers.Authorization = who.authorization;
  if (!body) return new Request(`http://localhost${path}`, { headers });
  const payload = body instanceof FormData ? body : new URLSearchParams(body);
  return new Request(`http://localhost${path}`, { method: "POST", headers, body: payload });
}

export interface RouteResult {
  status: number;
  location: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  response: Response | null;
}

/**
 * Runs a loader or action like the framework would and describes what the browser would
 * get: a Response (redirect, file, error), a data() with its status, or plain data (200).
 */
export async function settle(run: () => unknown): Promise<RouteResult> {
  let value: unknown;
  try {
    value = await run();
  } catch (error) {
    value = error;
  }
  if (value instanceof Response) {
    return { status: value.status, location: value.headers.get("Location"), data: null, response: value };
  }
  if (value && typeof value === "object" && (value as { type?: string }).type === "DataWithResponseInit") {
    const v = value as { data: unknown; init: { status?: number; headers?: HeadersInit } | null };
    return { status: v.init?.status ?? 200, location: null, data: v.data, response: null };
  }
  if (value instanceof Error) throw value;
  return { status: 200, location: null, data: value, response: null };
}

type RouteModule = {
  loader?: (args: never) => unknown;
  action?: (args: never) => unknown;
};

/** The loader of `mod` for `req`, behind the middleware of the routes the path matches (route-chain.ts). */
export function callLoader(mod: RouteModule, req: Request, params: Record<string, string> = {}) {
  return settle(() => runRoute("loader", mod, req, params));
}

/** The action of `mod` for `req`, behind the middleware of the routes the path matches (route-chain.ts). */
export function callAction(mod: RouteModule, req: Request, params: Record<string, string> = {}) {
  return settle(() => runRoute("action", mod, req, params));
}

/** The first error message of a Conform reply (form-level or any field). */
export function firstError(reply: { error?: Record<string, string[] | null> | null } | undefined): string | undefined {
  const error = reply?.error ?? {};
  return Object.values(error).flat().find((m): m is string => typeof m === "string");
}

/**
 * Inserts many accounts at once (users, profiles, credits) with one shared password
 * hash: registering each through scrypt would take seconds per account.
 */
export async function insertUsers(count: number, emailPrefix: string): Promise<{ id: string; email: string }[]> {
  const { db } = await import("~/db/client.server");
  const { credits, profiles, users } = await import("~/db/schema");
  const { hashPassword } = await import("~/server/platform/password.server");
  const passwordHash = await hashPassword("bulk-user-password");
  const rows = await db
    .insert(users)
    .values(Array.from({ length: count }, (_, i) => ({ email: `${emailPrefix}-${i}-${randomBytes(3).toString("hex")}@example.com`, passwordHash })))
    .returning({ id: users.id, email: users.email });
  await db.insert(profiles).values(rows.map((r) => ({ id: r.id, email: r.email, nickname: r.email.split("@")[0] })));
  await db.insert(credits).values(rows.map((r) => ({ userId: r.id, balance: 0 })));
  return rows;
}

/** The actor for domain functions a test calls directly, outside any admin request. */
export const testActor = { admin: { id: null, email: "test-runner@example.com" }, address: "127.0.0.1" };

/** The actor for a created admin, for domain functions a test calls directly. */
export function actorOf(admin: { id: string; email: string }) {
  return { admin: { id: admin.id, email: admin.email }, address: "127.0.0.1" };
}
