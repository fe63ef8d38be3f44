import { eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, users } from "~/db/schema";
import { SETTINGS_MESSAGES } from "~/schemas/settings";
import { maskPhone } from "~/schemas/phone";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { deleteStoredImage, storeAvatar } from "~/server/platform/images.server";
import { hashPassword, verifyPassword } from "~/server/platform/password.server";
import { hitRateLimit } from "~/server/platform/rate-limit.server";
import { destroyAllUserSessions } from "./session.server";
import { effectiveShowR18, refuseR18InMinorMode } from "./minor-mode.server";
import { screenedName } from "~/server/screening/screening.server";

/**
 * The account settings of docs/product.md: Screens (/settings): what the profile pages
 * show and the single-field updates they make. Every function takes the signed-in user's
 * id from the session, never from the form.
 */

export interface AccountSettings {
  email: string;
  nickname: string;
  avatarUrl: string | null;
  pixivId: string | null;
  showR18: boolean;
  showAi: boolean;
  /** The bound phone number, masked (decision 235), or null. */
  phone: string | null;
}

export async function getAccountSettings(userId: string): Promise<AccountSettings> {
  const [row] = await db
    .select({
      email: profiles.email,
      nickname: profiles.nickname,
      avatarUrl: profiles.avatarUrl,
      pixivId: profiles.pixivId,
      showR18: effectiveShowR18(profiles.id),
      showAi: profiles.showAi,
      phone: users.phone,
    })
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    .where(eq(profiles.id, userId));
  if (!row) throw new DomainError("用户不存在", 404);
  return { ...row, phone: row.phone && maskPhone(row.phone) };
}

/** The nickname a user shows as an author (what cards and the work page show), or null if there is no such user. */
export async function authorNickname(userId: string): Promise<string | null> {
  const [row] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, userId));
  return row?.nickname ?? null;
}

/** Sets the nickname; one holding a 禁止 word is refused, naming it (docs/product.md#screening). */
export async function updateNickname(userId: string, nickname: string): Promise<void> {
  // 审核 words go through (a nickname has no review of its own); 替换 words are stored masked (decision 237).
  const { masked } = await screenedName({ label: "昵称", field: "nickname", text: nickname });
  await db.update(profiles).set({ nickname: masked, updatedAt: new Date() }).where(eq(profiles.id, userId));
}

/**
 * The nickname a new account starts with: the e-mail's name (at most 30 characters), its
 * 替换 words masked; 读者 when it holds a 禁止 or 审核 word (decision 237).
 */
export async function firstNickname(email: string): Promise<string> {
  const name = email.split("@")[0].slice(0, 30) || "读者";
  try {
    const { masked, held } = await screenedName({ label: "昵称", text: name });
    return held ? "读者" : masked;
  } catch (error) {
    if (error instanceof DomainError) return "读者";
    throw error;
  }
}

/** Sets the pixiv ID; one already on another account is refused with 此pixiv ID已被使用. */
export async function updatePixivId(userId: string, pixivId: string): Promise<void> {
  try {
    await db.update(profiles).set({ pixivId, updatedAt: new Date() }).where(eq(profiles.id, userId));
  } catch (error) {
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(SETTINGS_MESSAGES.pixivTaken, 409, "pixivId");
    throw error;
  }
}

export type DisplayPreference = "showR18" | "showAi";

/**
 * 浏览与显示: show R-18 works, show AI-created works. Turning R-18 on needs the reader's
 * confirmation that they are 18 or older (docs/product.md D9); nothing changes without it.
 */
export async function setDisplayPreference(
  userId: string,
  preference: DisplayPreference,
  value: boolean,
  { adultConfirmed = false }: { adultConfirmed?: boolean } = {},
): Promise<void> {
  if (preference === "showR18" && value && !adultConfirmed) throw new DomainError(SETTINGS_MESSAGES.adultRequired, 400, "adultConfirmed");
  if (preference === "showR18" && value) await refuseR18InMinorMode(userId);
  const set = preference === "showR18" ? { showR18: value } : { showAi: value };
  await db
    .update(profiles)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(profiles.id, userId));
}

/** Wrong current passwords allowed per user per 15 minutes, as at login. */
const PASSWORD_RULE = { limit: 10, windowSeconds: 15 * 60 };

/**
 * Changes the password (docs/product.md: States and actions): the current one must verify (当前密码错误),
 * then the new hash is stored and every session of the user is deleted in the same
 * transaction, so no browser stays signed in with the old password.
 */
export async function changePassword(userId: string, currentPassword: string, newPassword: string): Promise<void> {
  if (!(await hitRateLimit(`password:user:${userId}`, PASSWORD_RULE))) {
    throw new DomainError("尝试次数过多，请稍后再试", 429, "currentPassword");
  }
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!user) throw new DomainError("用户不存在", 404);
  if (!(await verifyPassword(currentPassword, user.passwordHash))) {
    throw new DomainError(SETTINGS_MESSAGES.currentPasswordWrong, 400, "currentPassword");
  }
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    await destroyAllUserSessions(userId, tx);
  });
}

/**
 * Replaces the avatar (docs/product.md D10): the upload is checked and re-encoded by
 * images.server (JPG, PNG or WebP; over 500KB it is compressed, and refused if still too
 * large), stored, and saved on the profile; the old file is removed only after that
 * commit, and the new one if the save fails. Returns the new URL. ImageError on refusal.
 */
export async function replaceAvatar(userId: string, bytes: Uint8Array): Promise<string> {
  const url = await storeAvatar(userId, bytes);
  let previous: string | null;
  try {
    previous = await db.transaction(async (tx) => {
      const [old] = await tx
        .select({ avatarUrl: profiles.avatarUrl })
        .from(profiles)
        .where(eq(profiles.id, userId))
        .for("update");
      if (!old) throw new DomainError("用户不存在", 404);
      await tx.update(profiles).set({ avatarUrl: url, updatedAt: new Date() }).where(eq(profiles.id, userId));
      return old.avatarUrl;
    });
  } catch (error) {
    await deleteStoredImage(url).catch(() => {});
    throw error;
  }
  if (previous && previous !== url) {
    await deleteStoredImage(previous).catch((error) => console.error("old avatar not removed", previous, error));
  }
  return url;
}
