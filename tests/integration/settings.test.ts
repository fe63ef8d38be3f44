import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { profiles, sessions } from "~/db/schema";
import { action as avatarAction } from "~/routes/shell/settings/avatar";
import { action as nicknameAction } from "~/routes/shell/settings/nickname";
import { action as passwordAction } from "~/routes/shell/settings/password";
import { action as pixivAction } from "~/routes/shell/settings/pixiv-id";
import { action as settingsAction, loader as settingsLoader } from "~/routes/shell/settings/settings";
import { login } from "~/server/identity/auth.server";
import { getStorage, keyFromUrl } from "~/server/platform/storage.server";
import { createUser, formOf, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { quickUsers } from "../fixtures/ledger";
import { callThroughRoutes } from "./route-chain";
import { fieldErrorsOf } from "../fixtures/form-replies";

type Action = (args: never) => Promise<unknown>;

async function post(handler: Action, cookie: string, path: string, body: FormData | Record<string, string>) {
  try {
    return await callThroughRoutes(handler, { request: userRequest(cookie, path, body) });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

async function profileOf(userId: string) {
  const [row] = await db.select().from(profiles).where(eq(profiles.id, userId));
  return row;
}

async function fileExists(url: string | null): Promise<boolean> {
  const key = keyFromUrl(url);
  return key ? (await getStorage().get(key)) !== null : false;
}

function expectRedirect(result: unknown, location: string) {
  expect(result).toBeInstanceOf(Response);
  expect((result as Response).status).toBe(302);
  expect((result as Response).headers.get("Location")).toBe(location);
}

describe("/settings", () => {
  it("sends a visitor to the login dialog, remembering /settings", async () => {
    await expect(callThroughRoutes(settingsLoader, { request: new Request("http://localhost/settings") })).rejects.toSatisfy(
      (r: unknown) => r instanceof Response && r.headers.get("Location") === `/?auth=login&redirectTo=${encodeURIComponent("/settings")}`,
    );
  });

  it("shows the profile: nickname, read-only e-mail, pixiv ID, display preferences", async () => {
    const [user] = await quickUsers(1);
    const result = (await callThroughRoutes(settingsLoader, { request: userRequest(await sessionCookieFor(user.id), "/settings") })) as unknown as {
      data: { tab: string; settings: Record<string, unknown> };
    };
    expect(result.data.tab).toBe("profile");
    expect(result.data.settings).toMatchObject({ email: user.email, pixivId: null, showR18: false, showAi: true, avatarUrl: null });
  });

  it("turns show R-18 and show AI on and off, one form each", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    // R-18 needs the 我已年满 18 周岁 box: without it nothing changes and the page says why.
    const refused = (await post(settingsAction, cookie, "/settings?tab=display", { preference: "showR18", value: "on" })) as Response;
    expectRedirect(refused, "/settings?tab=display");
    const flash = refused.headers.get("Set-Cookie")!.split(";")[0];
    const shown = (await callThroughRoutes(settingsLoader, { request: userRequest(`${cookie}; ${flash}`, "/settings?tab=display") })) as unknown as {
      data: { notice: { kind: string; text: string } | null };
    };
    expect(shown.data.notice).toEqual({ kind: "error", text: "开启 R-18 内容前，请勾选“我已年满 18 周岁”" });
    expect((await profileOf(user.id)).showR18).toBe(false);
    await post(settingsAction, cookie, "/settings?tab=display", { preference: "showR18", value: "on", adultConfirmed: "no" });
    expect((await profileOf(user.id)).showR18).toBe(false);
    expectRedirect(
      await post(settingsAction, cookie, "/settings?tab=display", { preference: "showR18", value: "on", adultConfirmed: "yes" }),
      "/settings?tab=display",
    );
    expect((await profileOf(user.id)).showR18).toBe(true);
    await post(settingsAction, cookie, "/settings?tab=display", { preference: "showAi", value: "off" });
    expect(await profileOf(user.id)).toMatchObject({ showR18: true, showAi: false });
    await post(settingsAction, cookie, "/settings?tab=display", { preference: "showR18", value: "off" });
    expect((await profileOf(user.id)).showR18).toBe(false);
    // Anything else changes nothing.
    await post(settingsAction, cookie, "/settings?tab=display", { preference: "email", value: "on" });
    await post(settingsAction, cookie, "/settings?tab=display", { preference: "showAi", value: "maybe" });
    expect(await profileOf(user.id)).toMatchObject({ showR18: false, showAi: false });
  });
});

describe("/settings/nickname", () => {
  it("saves a trimmed nickname of 1-30 characters and returns to /settings", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    expectRedirect(await post(nicknameAction, cookie, "/settings/nickname", { nickname: "  墨池  " }), "/settings");
    expect((await profileOf(user.id)).nickname).toBe("墨池");
    const thirty = "砚".repeat(28) + "😀😀";
    expectRedirect(await post(nicknameAction, cookie, "/settings/nickname", { nickname: thirty }), "/settings");
    expect((await profileOf(user.id)).nickname).toBe(thirty);
  });

  it("refuses an empty or blank nickname and one over 30 characters", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    const before = (await profileOf(user.id)).nickname;
    expect(fieldErrorsOf(await post(nicknameAction, cookie, "/settings/nickname", { nickname: "" })).nickname).toEqual(["请输入昵称"]);
    expect(fieldErrorsOf(await post(nicknameAction, cookie, "/settings/nickname", { nickname: "   " })).nickname).toEqual(["请输入昵称"]);
    expect(fieldErrorsOf(await post(nicknameAction, cookie, "/settings/nickname", { nickname: "砚".repeat(31) })).nickname).toEqual([
      "昵称不能超过30个字符",
    ]);
    expect((await profileOf(user.id)).nickname).toBe(before);
  });
});

describe("/settings/pixiv-id", () => {
  it("saves a pixiv ID and refuses one another account uses (此pixiv ID已被使用)", async () => {
    const [first, second] = await quickUsers(2);
    const a = await sessionCookieFor(first.id);
    const b = await sessionCookieFor(second.id);
    expectRedirect(await post(pixivAction, a, "/settings/pixiv-id", { pixivId: " 12345678 " }), "/settings");
    expect((await profileOf(first.id)).pixivId).toBe("12345678");
    expect(fieldErrorsOf(await post(pixivAction, b, "/settings/pixiv-id", { pixivId: "12345678" })).pixivId).toEqual(["此pixiv ID已被使用"]);
    expect((await profileOf(second.id)).pixivId).toBeNull();
    // Saving one's own ID again is fine.
    expectRedirect(await post(pixivAction, a, "/settings/pixiv-id", { pixivId: "12345678" }), "/settings");
  });

  it("refuses an empty ID and characters a pixiv ID cannot have", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    expect(fieldErrorsOf(await post(pixivAction, cookie, "/settings/pixiv-id", { pixivId: "" })).pixivId).toEqual(["请输入pixiv ID"]);
    expect(fieldErrorsOf(await post(pixivAction, cookie, "/settings/pixiv-id", { pixivId: "<script>" })).pixivId).toEqual([
      "pixiv ID只能包含字母、数字、下划线和连字符",
    ]);
    expect((await profileOf(user.id)).pixivId).toBeNull();
  });
});

describe("/settings/password", () => {
  it("checks the current password, the confirmation and the length", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    const change = (fields: Record<string, string>) => post(passwordAction, cookie, "/settings/password", fields);
    expect(fieldErrorsOf(await change({ currentPassword: "wrong-password", newPassword: "new-password-1", confirmPassword: "new-password-1" }))).toEqual({
      currentPassword: ["当前密码错误"],
    });
    expect(fieldErrorsOf(await change({ currentPassword: user.password, newPassword: "new-password-1", confirmPassword: "new-password-2" }))).toEqual({
      confirmPassword: ["两次输入的新密码不一致"],
    });
    expect(fieldErrorsOf(await change({ currentPassword: user.password, newPassword: "short", confirmPassword: "short" }))).toEqual({
      newPassword: ["密码至少需要 8 个字符"],
    });
    expect(fieldErrorsOf(await change({ currentPassword: "", newPassword: "", confirmPassword: "" }))).toMatchObject({
      currentPassword: ["请输入当前密码"],
      confirmPassword: ["请再次输入新密码"],
    });
    // Nothing changed: the old password still logs in.
    await expect(login(formOf({ email: user.email, password: user.password }), "10.0.0.1")).resolves.toMatchObject({ id: user.id });
  });

  it("ends every session of the user and sends this browser to login", async () => {
    const user = await createUser();
    const cookie = await sessionCookieFor(user.id);
    await sessionCookieFor(user.id); // another device
    const [bystander] = await quickUsers(1);
    await sessionCookieFor(bystander.id);
    expect(await db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(2);

    const result = (await post(passwordAction, cookie, "/settings/password", {
      currentPassword: user.password,
      newPassword: "brand-new-password",
      confirmPassword: "brand-new-password",
    })) as Response;

    expectRedirect(result, `/?auth=login&redirectTo=${encodeURIComponent("/settings")}`);
    expect(result.headers.get("Set-Cookie")).toMatch(/^inkstone_session=; Max-Age=0/);
    expect(await db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, bystander.id))).toHaveLength(1);
    // The old cookie no longer works; the new password does, the old one not.
    await expect(callThroughRoutes(settingsLoader, { request: userRequest(cookie, "/settings") })).rejects.toBeInstanceOf(Response);
    await expect(login(formOf({ email: user.email, password: "brand-new-password" }), "10.0.0.2")).resolves.toMatchObject({ id: user.id });
    await expect(login(formOf({ email: user.email, password: user.password }), "10.0.0.2")).rejects.toThrow("邮箱或密码错误");
  });
});

describe("/settings/avatar", () => {
  let jpeg: Buffer;
  let bigPhoto: Buffer;
  let hugePng: Buffer;
  let truncatedJpeg: Buffer;
  let truncatedSmallJpeg: Buffer;
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(document.cookie)</script><rect width="100" height="100"/></svg>',
  );

  beforeAll(async () => {
    jpeg = await sharp({ create: { width: 300, height: 300, channels: 3, background: "#3366cc" } }).jpeg().toBuffer();
    const { randomBytes } = await import("node:crypto");
    bigPhoto = await sharp(randomBytes(1600 * 1200 * 3), { raw: { width: 1600, height: 1200, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    hugePng = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: "#ffffff" } }).png({ compressionLevel: 9 }).toBuffer();
    truncatedJpeg = bigPhoto.subarray(0, Math.floor(bigPhoto.length * 0.5));
    const small = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } }).jpeg().toBuffer();
    truncatedSmallJpeg = small.subarray(0, Math.floor(small.length * 0.6));
  });

  function upload(bytes: Buffer, name: string, type: string) {
    const form = new FormData();
    form.set("avatar", new File([new Uint8Array(bytes)], name, { type }));
    return form;
  }

  it("stores a JPEG, points the profile at it and removes the old file after the next upload", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    expectRedirect(await post(avatarAction, cookie, "/settings/avatar", upload(jpeg, "a.jpg", "image/jpeg")), "/settings");
    const first = (await profileOf(user.id)).avatarUrl;
    expect(first).toMatch(new RegExp(`^/files/avatars/${user.id}/.+\\.jpg$`));
    expect(await fileExists(first)).toBe(true);

    expect(bigPhoto.length).toBeGreaterThan(500 * 1024);
    expectRedirect(await post(avatarAction, cookie, "/settings/avatar", upload(bigPhoto, "photo.jpg", "image/jpeg")), "/settings");
    const second = (await profileOf(user.id)).avatarUrl;
    expect(second).not.toBe(first);
    expect(await fileExists(second)).toBe(true);
    expect(await fileExists(first)).toBe(false);
    const stored = await getStorage().get(keyFromUrl(second)!);
    const meta = await sharp(Buffer.from(stored!.body as Uint8Array)).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(800);
    expect(stored!.size).toBeLessThanOrEqual(500 * 1024);
  });

  it("refuses an SVG with script, a 100-megapixel PNG, a truncated JPEG, a non-image and no file, changing nothing", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    await post(avatarAction, cookie, "/settings/avatar", upload(jpeg, "a.jpg", "image/jpeg"));
    const before = (await profileOf(user.id)).avatarUrl;
    const cases: [FormData, string][] = [
      [upload(svg, "evil.svg", "image/svg+xml"), "头像仅支持JPG、PNG或WebP格式的图片"],
      [upload(svg, "evil.png", "image/png"), "头像仅支持JPG、PNG或WebP格式的图片"],
      [upload(hugePng, "huge.png", "image/png"), "图片尺寸过大，请上传不超过4000万像素的图片"],
      [upload(truncatedSmallJpeg, "cut.jpg", "image/jpeg"), "图片文件已损坏或无法识别，请换一张图片"],
      // Over 500KB it goes straight to compression, which fails on the broken data.
      [upload(truncatedJpeg, "cut-photo.jpg", "image/jpeg"), "图片压缩失败，请尝试更小的图片"],
      [upload(Buffer.from("just some text, not a picture"), "a.jpg", "image/jpeg"), "头像仅支持JPG、PNG或WebP格式的图片"],
      [new FormData(), "请选择头像图片"],
    ];
    for (const [form, message] of cases) {
      const result = (await post(avatarAction, cookie, "/settings/avatar", form)) as { data: { error: string } };
      expect(result.data.error).toBe(message);
    }
    expect((await profileOf(user.id)).avatarUrl).toBe(before);
    expect(await fileExists(before)).toBe(true);
    const keys = await import("node:fs").then((fs) =>
      fs.readdirSync(`${process.env.DATA_DIR}/uploads/avatars/${user.id}`),
    );
    expect(keys).toHaveLength(1);
  });
});
