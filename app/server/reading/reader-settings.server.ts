import { eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles } from "~/db/schema";
import { readerSettingsOrDefault, readerSettingsSchema } from "~/schemas/reader-settings";
import { type ReaderSettings } from "~/schemas/reader-settings-rules";
import { DomainError } from "~/server/platform/errors.server";
import { isSecureRequest, readerSettingsCookie } from "~/server/platform/cookies.server";

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
