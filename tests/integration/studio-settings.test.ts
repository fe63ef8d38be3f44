import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { works } from "~/db/schema";
import { action as settingsAction, loader as settingsLoader } from "~/routes/shell/studio/settings";
import { action as submitAction } from "~/routes/shell/works/submit";
import { workSettingsSchema } from "~/schemas/studio";
import { parseTags } from "~/schemas/tag-rules";
import { getStorage, keyFromUrl } from "~/server/platform/storage.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callThroughRoutes, statusOf } from "./route-chain";
import { fieldErrorsOf } from "../fixtures/form-replies";

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function post(cookie: string, workId: number, fields: Record<string, string>, cover?: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (cover) form.set("coverFile", new File([new Uint8Array(cover)], "cover.png", { type: "image/png" }));
  try {
    return await callThroughRoutes(settingsAction, { request: userRequest(cookie, `/works/${workId}/settings`, form) });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
async function row(id: number) {
  return (await db.select().from(works).where(eq(works.id, id)))[0];
}
async function fileExists(url: string | null): Promise<boolean> {
  const key = keyFromUrl(url);
  return key ? (await getStorage().get(key)) !== null : false;
}

let owner: { id: string };
let other: { id: string };
let ownerCookie: string;
let otherCookie: string;
let png: Buffer;
beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
  ownerCookie = await sessionCookieFor(owner.id);
  otherCookie = await sessionCookieFor(other.id);
  png = await sharp({ create: { width: 300, height: 400, channels: 3, background: "#3366cc" } }).png().toBuffer();
});

function series() {
  return createWork(owner.id, { ...base, title: "长夜行", type: "series", status: "ongoing" }, [{ title: "第一章", content: "夜。" }], null);
}
const fields = { title: "长夜行（修订）", description: "新的简介", rating: "all_ages", tags: "" };

describe("tags", () => {
  it("are trimmed, folded from full width (NFKC), split on commas and 、, and kept once", () => {
    expect(parseTags(" 仙侠 ，ＲＰＧ、rpg,, RPG ,  群像 \n 慢热")).toEqual(["仙侠", "RPG", "rpg", "群像", "慢热"]);
    expect(parseTags("　全角　空格　")).toEqual(["全角 空格"]);
  });

  it("are refused past 10 or past 20 characters each, with the messages", () => {
    const many = workSettingsSchema.safeParse({ ...fields, tags: Array.from({ length: 11 }, (_, i) => `标签${i}`).join(",") });
    expect(many.success).toBe(false);
    expect(many.error?.issues[0]).toMatchObject({ path: ["tags"], message: "标签最多10个" });
    const long = workSettingsSchema.safeParse({ ...fields, tags: "一二三四五六七八九十一二三四五六七八九十一" });
    expect(long.error?.issues[0]).toMatchObject({ path: ["tags"], message: "每个标签最多20个字" });
    expect(workSettingsSchema.parse({ ...fields, tags: "一二三四五六七八九十一二三四五六七八九十" }).tags).toHaveLength(1);
  });
});

describe("/works/:id/settings", () => {
  it("shows the owner the work's settings, and another user a 404", async () => {
    const work = await series();
    const page = (await callThroughRoutes(settingsLoader, { request: userRequest(ownerCookie, `/works/${work.id}/settings`) })) as unknown as {
      data: { work: { title: string; status: string; tags: string[] } };
    };
    expect(page.data.work).toMatchObject({ title: "长夜行", status: "ongoing", tags: [] });
    await expect(callThroughRoutes(settingsLoader, { request: userRequest(otherCookie, `/works/${work.id}/settings`) })).rejects.toSatisfy(
      (r: unknown) => (r as { init?: { status?: number } }).init?.status === 404,
    );
  });

  it("saves title, description, rating, AI flag, tags and marks a series 完本", async () => {
    const work = await series();
    const result = await post(ownerCookie, work.id, {
      ...fields,
      rating: "r18",
      isAiGenerated: "on",
      tags: "仙侠，ＲＰＧ、仙侠",
      status: "completed",
    });
    expect(result).toBeInstanceOf(Response);
    expect((result as Response).headers.get("Location")).toBe(`/works/${work.id}/settings`);
    expect(await row(work.id)).toMatchObject({
      title: "长夜行（修订）",
      description: "新的简介",
      rating: "r18",
      isAiGenerated: true,
      tags: ["仙侠", "RPG"],
      status: "completed",
      type: "series",
    });
    // …and back to 连载中.
    await post(ownerCookie, work.id, { ...fields, status: "ongoing" });
    expect((await row(work.id)).status).toBe("ongoing");
  });

  it("refuses 连载中 for a work that is not a series", async () => {
    const work = await createWork(owner.id, { ...base, title: "短篇", type: "single_chapter", status: "completed" }, [{ title: "正文", content: "文" }], null);
    const result = await post(ownerCookie, work.id, { ...fields, status: "ongoing" });
    expect(statusOf(result)).toBe(400);
    expect(fieldErrorsOf(result).status).toEqual(["只有连载作品可以修改连载状态"]);
    expect((await row(work.id)).status).toBe("completed");
    expect((await row(work.id)).title).toBe("短篇");
  });

  it("answers bad input with the field's message and changes nothing", async () => {
    const work = await series();
    for (const [patch, field, message] of [
      [{ title: "  " }, "title", "请输入作品标题"],
      [{ title: "长".repeat(201) }, "title", "作品标题不能超过200个字符"],
      [{ description: "" }, "description", "请输入作品简介"],
      [{ rating: "adult" }, "rating", "请选择作品分级"],
      [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(",") }, "tags", "标签最多10个"],
    ] as const) {
      const result = await post(ownerCookie, work.id, { ...fields, ...patch });
      expect(statusOf(result), field).toBe(400);
      expect(fieldErrorsOf(result)[field]).toEqual([message]);
    }
    expect(await row(work.id)).toMatchObject({ title: "长夜行", description: "简介", tags: [] });
  });

  it("replaces the cover, removes the old file, and resets to the default", async () => {
    const work = await series();
    await post(ownerCookie, work.id, fields, png);
    const first = (await row(work.id)).coverUrl;
    expect(first).toMatch(/covers\//);
    expect(await fileExists(first)).toBe(true);
    await post(ownerCookie, work.id, fields, png);
    const second = (await row(work.id)).coverUrl;
    expect(second).not.toBe(first);
    expect(await fileExists(first)).toBe(false);
    // Keeping the cover: nothing chosen, nothing ticked.
    await post(ownerCookie, work.id, fields);
    expect((await row(work.id)).coverUrl).toBe(second);
    await post(ownerCookie, work.id, { ...fields, cover: "reset" });
    expect((await row(work.id)).coverUrl).toBeNull();
    expect(await fileExists(second)).toBe(false);
  });

  it("refuses a file that is not an image on the cover field", async () => {
    const work = await series();
    const result = await post(ownerCookie, work.id, fields, Buffer.from("not an image at all"));
    expect(statusOf(result)).toBe(400);
    expect(fieldErrorsOf(result).coverFile?.[0]).toBeTruthy();
    expect((await row(work.id)).coverUrl).toBeNull();
  });

  it("is a 404 for another user's work, and nothing changes", async () => {
    const work = await series();
    const result = await post(otherCookie, work.id, { ...fields, status: "completed" }, png);
    expect(statusOf(result)).toBe(404);
    expect(await row(work.id)).toMatchObject({ title: "长夜行", status: "ongoing", coverUrl: null });
  });
});

describe("a category that is no id of ours", () => {
  it("is a 400 with 分类不存在 on work settings and on publish, never a 500, and nothing is written", async () => {
    const work = await series();
    const before = await row(work.id);
    for (const categoryId of ["0", "00", "007", "-1", "1.5", "999999999999999"]) {
      const saved = await post(ownerCookie, work.id, { ...fields, categoryId });
      expect([categoryId, statusOf(saved), fieldErrorsOf(saved).categoryId]).toEqual([categoryId, 400, ["分类不存在"]]);

      const form = new FormData();
      const publish = { status: "completed", type: "single_chapter", title: `分类${categoryId}`, description: "简介", rating: "all_ages", visibility: "public", content: "正文", categoryId };
      for (const [k, v] of Object.entries(publish)) form.set(k, v);
      const published = await callThroughRoutes(submitAction, { request: userRequest(ownerCookie, "/submit", form) }).catch((thrown: unknown) => thrown);
      const publishErrors = (published as { data: { result: { error: Record<string, string[]> } } }).data.result.error;
      expect([categoryId, statusOf(published), publishErrors.categoryId]).toEqual([categoryId, 400, ["分类不存在"]]);
      expect(await db.select({ id: works.id }).from(works).where(eq(works.title, `分类${categoryId}`))).toEqual([]);
    }
    expect(await row(work.id)).toEqual(before);
  });
});
