import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createCookie } from "react-router";
import { dataDir } from "~/env.server";

/**
 * The site's cookies, made in one place (platform knows react-router, the domains do not;
 * docs/architecture.md#domains): the signed session cookies (users' and administrators'
 * sessions, flash notices), the login form's e-mail after registering, the visitor's
 * reader settings. Payment's return address is in return-to.server.ts.
 */

/** How long a signed-in session (and its cookie) lasts. */
export const SESSION_DAYS = 30;

/** SESSION_SECRET from the environment, else one generated on first start and kept. */
function sessionSecret(): string {
  const fromEnv = process.env.SESSION_SECRET?.trim();
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir(), "session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const secret = randomBytes(32).toString("hex");
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      // Another process wrote it first.
      return fs.readFileSync(file, "utf8").trim();
    }
  }
}

const secret = sessionSecret();

/**
 * The name a person's offline copies are kept under on a device (`inkstone-offline-<key>`,
 * docs/decisions/244): derived from their id with the session secret, so it says nothing
 * about who they are and cannot be guessed for another person.
 */
export function offlineCacheKey(userId: string): string {
  return createHmac("sha256", secret).update(`offline-cache:${userId}`).digest("hex").slice(0, 32);
}

export function makeSessionCookie(name: string) {
  return createCookie(name, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secrets: [secret],
    maxAge: SESSION_DAYS * 24 * 3600,
  });
}

/** Secure only when the site is served over https, else browsers drop the cookie. */
export function isSecureRequest(request: Request): boolean {
  if (process.env.COOKIE_SECURE === "1") return true;
  if (process.env.COOKIE_SECURE === "0") return false;
  return new URL(request.url).protocol === "https:";
}

/** After registering without JavaScript, the login view opens with this e-mail filled in. */
export const authEmailCookie = createCookie("inkstone_auth_email", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 120,
});

/**
 * A visitor's reader settings live in this cookie (decision 106); a signed-in reader's in
 * `profiles.reader_settings`. Any cookie also keeps the visitor out of the public page
 * cache (server/page-cache.js), so a cached page never carries someone else's look.
 */
export const readerSettingsCookie = createCookie("inkstone_reader", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 60 * 60 * 24 * 365,
});

/**
 * Where the primary stood after a person's last write (its WAL position), signed: until a
 * read replica has replayed past it, that person's reads go to the primary
 * (platform/replica-reads.server.ts, docs/decisions/265). Only set while replicas are
 * configured; it lives a little longer than a replica in use may lag.
 */
export const lastWriteCookie = createCookie("inkstone_wrote", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  secrets: [secret],
});
