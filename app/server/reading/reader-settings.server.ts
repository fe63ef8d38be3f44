import { eq } from "drizzle-orm";
import { createCookie } from "react-router";
import { db } from "~/db/client.server";
import { profiles } from "~/db/schema";
import { readerSettingsOrDefault, readerSettingsSchema, type ReaderSettings } from "~/schemas/reader-settings";
import { DomainError } from "~/server/platform/errors.server";
import { isSecureRequest } from "~/server/identity/session.server";

/**
 * A visitor's reader settings live in this cookie (decision 106); a signed-in reader's in
 * `profiles.reader_settings`. Any cookie also keeps the visitor out of the public page
 * cache (server/page-cache.js), so a cached page never carries someone else's look.
 */
const readerSettingsCookie = createCookie("inkstone_reader", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 60 * 60 * 24 * 365,
});

/** Checks posted settings: the first bad field's Chinese message as a 400, nothing saved. */
function parseReaderSettings(input: Record<string, unknown>): ReaderSettings {
  const parsed = readerSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError(issue.message, 400, String(issue.path[0] ?? ""));
  }
  return parsed.data;
}

/**
 * Saves a reader's settings: on the profile for a signed-in reader (returns no header), in
 * the cookie for a visitor (returns its Set-Cookie). The one way settings are saved.
 */
export async function saveReaderSettings(
  request: Request,
  userId: string | null,
  input: Record<string, unknown>,
): Promise<{ settings: ReaderSettings; setCookie: string | null }> {
  const settings = parseReaderSettings(input);
  if (userId) {
    await db.update(profiles).set({ readerSettings: settings }).where(eq(profiles.id, userId));
    return { settings, setCookie: null };
  }
  return { settings, setCookie: await readerSettingsCookie.serialize(settings, { secure: isSecureRequest(request) }) };
}

/** The settings a page is rendered with: the signed-in reader's saved ones, else the visitor's cookie. */
export async function readerSettingsFor(request: Request, user: { readerSettings: unknown } | null): Promise<ReaderSettings> {
  if (user) return readerSettingsOrDefault(user.readerSettings);
  return readerSettingsOrDefault(await readerSettingsCookie.parse(request.headers.get("Cookie")).catch(() => null));
}
