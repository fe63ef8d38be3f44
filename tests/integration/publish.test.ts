import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, txtImports, works } from "~/db/schema";
import { action } from "~/routes/shell/works/submit";
import { UNSUPPORTED_ENCODING_MESSAGE } from "~/server/studio/txt-import.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { callThroughRoutes } from "./route-chain";
import { FORM_MESSAGES } from "~/server/platform/form-data.server";

const corpus = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../fixtures/corpus", name));

let cookie: string;
let userId: string;
beforeAll(async () => {
  const u = await createUser();
  userId = u.id;
  cookie = await sessionCookieFor(u.id);
});

function publishForm(fields: Record<string, string>, files: Record<string, File> = {}) {
  const form = new FormData();
  const defaults = { status: "completed", type: "single_chapter", title: "测试作品", description: "一段简介", rating: "all_ages", visibility: "public" };
  for (const [k, v] of Object.entries({ ...defaults, ...fields })) form.set(k, v);
  for (const [k, f] of Object.entries(files)) form.set(k, f);
  return form;
}

async function submit(form: FormData) {
  return (await callThroughRoutes(action, { request: userRequest(cookie, "/submit", form) })) as unknown;
}

type Failure = { init: { status: number }; data: { result: { error?: Record<string, string[]> }; preview: unknown } };
const errorsOf = (r: unknown) => (r as Failure).data.result.error ?? {};
const countWorks = async () => (await db.select({ n: sql<number>`count(*)::int` }).from(works).where(eq(works.userId, userId)))[0].n;

describe("publish wizard action", () => {
  it("publishes a single-chapter work and goes to the tab of its visibility", async () => {
    const response = (await submit(publishForm({ title: "单章", content: "正文第一段\n正文第二段", visibility: "private" }))) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/my-works?tab=private");
    const [work] = await db.select().from(works).where(eq(works.title, "单章"));
    expect([work.type, work.visibility, work.chapterCount, work.wordCount]).toEqual(["single_chapter", "private", 1, 10]);
  });

  it("stores the CRLF line breaks browsers post as LF, and counts words without them", async () => {
    const response = (await submit(publishForm({ title: "换行", description: "第一行\r\n第二行", content: "甲乙\r\n\r\n丙丁\r戊" }))) as Response;
    expect(response.status).toBe(302);
    const [work] = await db.select().from(works).where(eq(works.title, "换行"));
    const [chapter] = await db.select().from(chapters).where(eq(chapters.workId, work.id));
    expect([work.description, chapter.content, work.wordCount]).toEqual(["第一行\n第二行", "甲乙\n\n丙丁\n戊", 5]);
  });

  it("publishes a series with its first chapter", async () => {
    const response = (await submit(publishForm({ title: "连载一号", status: "ongoing", type: "series", chapterTitle: "第一章 启程", chapterContent: "天亮了。" }))) as Response;
    expect(response.headers.get("Location")).toBe("/my-works?tab=free");
    const [work] = await db.select().from(works).where(eq(works.title, "连载一号"));
    const list = await db.select().from(chapters).where(eq(chapters.workId, work.id));
    expect(list.map((c) => [c.position, c.title, c.content])).toEqual([[65536, "第一章 启程", "天亮了。"]]);
  });

  it("imports a GB18030 TXT with CRLF into the same chapters as the UTF-8 one", async () => {
    const sep = "####";
    for (const [name, title] of [["xiyouji-excerpt.gb18030.crlf.txt", "西游GB"], ["xiyouji-excerpt.utf8.txt", "西游UTF8"]]) {
      const file = new File([corpus(name)], name, { type: "text/plain" });
      const response = (await submit(publishForm({ title, type: "multi_chapter", separator: sep }, { txt: file }))) as Response;
      expect(response.status).toBe(302);
    }
    const read = async (title: string) => {
      const [w] = await db.select().from(works).where(eq(works.title, title));
      return db.select({ t: chapters.title, c: chapters.content }).from(chapters).where(eq(chapters.workId, w.id)).orderBy(chapters.position, chapters.id);
    };
    const gb = await read("西游GB");
    expect(gb.length).toBeGreaterThanOrEqual(3);
    expect(gb[0].t).toContain("第一回");
    expect(gb).toEqual(await read("西游UTF8"));
  });

  it("previews a TXT first, then publishes the previewed chapters without the file", async () => {
    const txt = new File(["####\n第一章\n甲乙\n####\n第二章\n丙丁戊\n####\n空章\n\n"], "西游记 第一册.txt", { type: "text/plain" });
    const form = publishForm({ intent: "preview-txt", type: "multi_chapter" }, { txt });
    const result = (await submit(form)) as { preview: { token: string; fileName: string; chapters: { title: string; wordCount: number }[]; totalWords: number } };
    expect(result.preview.fileName).toBe("西游记 第一册.txt");
    expect(result.preview.chapters).toEqual([
      { title: "第一章", wordCount: 2 },
      { title: "第二章", wordCount: 3 },
    ]);
    expect(result.preview.totalWords).toBe(5);
    // A refused publish shows the staged chapter list again.
    const refused = (await submit(publishForm({ title: "", type: "multi_chapter", importToken: result.preview.token }))) as Failure;
    expect(refused.init.status).toBe(400);
    expect(refused.data.preview).toEqual(result.preview);
    const response = (await submit(publishForm({ title: "预览后发布", type: "multi_chapter", importToken: result.preview.token }))) as Response;
    expect(response.status).toBe(302);
    const [work] = await db.select().from(works).where(eq(works.title, "预览后发布"));
    expect([work.chapterCount, work.wordCount]).toEqual([2, 5]);
    const stored = await db
      .select({ title: chapters.title, content: chapters.content, position: chapters.position, wordCount: chapters.wordCount })
      .from(chapters)
      .where(eq(chapters.workId, work.id))
      .orderBy(chapters.position, chapters.id);
    expect(stored).toEqual([
      { title: "第一章", content: "甲乙", position: 65536, wordCount: 2 },
      { title: "第二章", content: "丙丁戊", position: 131072, wordCount: 3 },
    ]);
    // The staged import is used up.
    expect(await db.select().from(txtImports).where(eq(txtImports.id, result.preview.token))).toEqual([]);
  });

  it("publishes a staged import once when the form is submitted twice at the same time", async () => {
    const txt = new File(["####\n第一章\n甲乙\n####\n第二章\n丙丁\n"], "两次.txt");
    const { preview } = (await submit(publishForm({ intent: "preview-txt", type: "multi_chapter" }, { txt }))) as { preview: { token: string } };
    const form = () => publishForm({ title: "只发布一次", type: "multi_chapter", importToken: preview.token });
    const results = await Promise.all([submit(form()), submit(form())]);
    const published = results.filter((r) => r instanceof Response && r.status === 302);
    const refused = results.filter((r) => !(r instanceof Response)) as Failure[];
    expect([published.length, refused.length]).toEqual([1, 1]);
    expect(refused[0].init.status).toBe(400);
    expect(errorsOf(refused[0]).txt).toEqual(["请上传并解析TXT文件"]);
    const made = await db.select().from(works).where(eq(works.title, "只发布一次"));
    expect(made.map((w) => w.chapterCount)).toEqual([2]);
  });

  it("publishes an import staged before word counts were kept with it, counting them", async () => {
    const txt = new File(["####\n第一章\n甲 乙\n####\n第二章\n丙丁戊己\n"], "旧.txt");
    const { preview } = (await submit(publishForm({ intent: "preview-txt", type: "multi_chapter" }, { txt }))) as { preview: { token: string } };
    // As staged by the code of session 2: title and content only.
    await db.execute(sql`
      update ${txtImports} set chapters = (
        select jsonb_agg(jsonb_build_object('title', e->>'title', 'content', e->>'content') order by n)
        from jsonb_array_elements(chapters) with ordinality as x(e, n))
      where id = ${preview.token}`);
    const response = (await submit(publishForm({ title: "旧的预览", type: "multi_chapter", importToken: preview.token }))) as Response;
    expect(response.status).toBe(302);
    const [work] = await db.select().from(works).where(eq(works.title, "旧的预览"));
    const stored = await db.select({ title: chapters.title, wordCount: chapters.wordCount }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(chapters.position, chapters.id);
    expect(stored).toEqual([
      { title: "第一章", wordCount: 2 },
      { title: "第二章", wordCount: 4 },
    ]);
    expect([work.chapterCount, work.wordCount]).toEqual([2, 6]);
  });

  it("does not let one user publish another user's staged import", async () => {
    const txt = new File(["####\n章\n内容\n"], "a.txt");
    const { preview } = (await submit(publishForm({ intent: "preview-txt", type: "multi_chapter" }, { txt }))) as { preview: { token: string } };
    const other = await createUser();
    const otherCookie = await sessionCookieFor(other.id);
    const r = await callThroughRoutes(action, { request: userRequest(otherCookie, "/submit", publishForm({ type: "multi_chapter", importToken: preview.token })) });
    expect(errorsOf(r).txt).toEqual(["请上传并解析TXT文件"]);
  });

  it.each([
    [{ title: "" }, "title", "请输入作品标题"],
    [{ title: "长".repeat(10_000), label: "a 10,000-character title" }, "title", "作品标题不能超过200个字符"],
    [{ description: "  " }, "description", "请输入作品简介"],
    [{ content: "" }, "content", "请输入正文内容"],
    [{ type: "series", status: "ongoing", chapterTitle: "第一章" }, "chapterContent", "请填写章节标题和内容"],
    [{ type: "multi_chapter" }, "txt", "请上传并解析TXT文件"],
    [{ status: "ongoing", type: "single_chapter", content: "x" }, "type", "连载中的作品只能选择连载类型"],
    [{ visibility: "public-vip", content: "x" }, "visibility", "请选择可见范围"],
    [{ importToken: "not-a-uuid", type: "multi_chapter" }, "txt", "请上传并解析TXT文件"],
  ])("refuses bad input #%# with its message, writing nothing", async ({ label: _label, ...fields }: Record<string, string>, field, message) => {
    const before = await countWorks();
    const r = await submit(publishForm({ content: "正文", ...fields }));
    expect((r as Failure).init.status).toBe(400);
    expect(errorsOf(r)[field]).toContain(message);
    expect(await countWorks()).toBe(before);
  });

  it.each([
    ["binary", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3, 255, 0, 7])],
    ["empty", new Uint8Array()],
    ["all separators", new TextEncoder().encode("####\n####\n####\n")],
  ])("refuses a %s TXT with a clear message", async (_, bytes) => {
    const before = await countWorks();
    const r = await submit(publishForm({ type: "multi_chapter" }, { txt: new File([bytes], "x.txt") }));
    expect((r as Failure).init.status).toBe(400);
    expect(errorsOf(r).txt?.[0]).toMatch(/[\u4e00-\u9fff]/);
    expect(await countWorks()).toBe(before);
  });

  it("refuses a body over the upload limit with 413 before reading it", async () => {
    const request = new Request("http://localhost/submit", {
      method: "POST",
      headers: { Cookie: cookie, Origin: "http://localhost", "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(50 * 1024 * 1024) },
      body: "--x--",
    });
    const r = (await callThroughRoutes(action, { request })) as Failure;
    expect(r.init.status).toBe(413);
    expect(errorsOf(r)[""]?.[0]).toContain("20MB");
  });

  it("refuses a streamed body over the upload limit with 413 while reading it", async () => {
    // No Content-Length: the limit is enforced as the multipart parts arrive.
    const boundary = "xyz";
    const chunk = new Uint8Array(1024 * 1024).fill(0x41);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="txt"; filename="a.txt"\r\n\r\n`));
        else if (sent > 40) controller.close();
        else controller.enqueue(chunk);
        sent++;
      },
    });
    const request = new Request("http://localhost/submit", {
      method: "POST",
      headers: { Cookie: cookie, Origin: "http://localhost", "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
    } as RequestInit);
    const r = (await callThroughRoutes(action, { request })) as Failure;
    expect(r.init.status).toBe(413);
    expect(errorsOf(r)[""]?.[0]).toContain("20MB");
    expect(sent).toBeLessThan(40);
  });

  it("refuses a malformed multipart body with 400", async () => {
    const request = new Request("http://localhost/submit", {
      method: "POST",
      headers: { Cookie: cookie, Origin: "http://localhost", "Content-Type": "multipart/form-data; boundary=x" },
      body: "--x\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nabc",
    });
    const r = (await callThroughRoutes(action, { request })) as Failure;
    expect(r.init.status).toBe(400);
    expect(errorsOf(r)[""]).toEqual([FORM_MESSAGES.malformed]);
  });

  it("stores a long TXT in several batches with every chapter in order and the counts right", async () => {
    const parts: string[] = [];
    for (let i = 1; i <= 700; i++) parts.push(`####\r\n第${i}章\r\n${"天".repeat(500 + i)}\r\n`);
    const txt = new File([new TextEncoder().encode(parts.join(""))], "long.txt", { type: "text/plain" });
    const response = (await submit(publishForm({ title: "长篇导入", type: "multi_chapter", separator: "####" }, { txt }))) as Response;
    expect(response.status).toBe(302);
    const [work] = await db.select().from(works).where(eq(works.title, "长篇导入"));
    const list = await db.select({ position: chapters.position, title: chapters.title, wordCount: chapters.wordCount }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(chapters.position, chapters.id);
    expect(list.map((c) => c.position)).toEqual(Array.from({ length: 700 }, (_, i) => (i + 1) * 65536));
    expect(list[699]).toEqual({ position: 700 * 65536, title: "第700章", wordCount: 1200 });
    expect([work.chapterCount, work.wordCount]).toEqual([700, list.reduce((n, c) => n + c.wordCount, 0)]);
  });

  it("says a chosen TXT is empty, or in an unsupported encoding, rather than asking for a file", async () => {
    const preview = (file?: File) => submit(publishForm({ intent: "preview-txt", type: "multi_chapter" }, file ? { txt: file } : {}));
    expect(errorsOf(await preview()).txt).toEqual(["请选择TXT文件"]);
    const empty = await preview(new File([], "空.txt", { type: "text/plain" }));
    expect([(empty as Failure).init.status, errorsOf(empty).txt]).toEqual([400, ["TXT文件是空的"]]);
    const published = await submit(publishForm({ type: "multi_chapter", title: "空文件" }, { txt: new File([], "空.txt") }));
    expect(errorsOf(published).txt).toEqual(["TXT文件是空的"]);
    const big5 = await preview(new File([corpus("xiyouji-traditional.big5.txt")], "繁体.txt"));
    expect(errorsOf(big5).txt).toEqual([UNSUPPORTED_ENCODING_MESSAGE]);
    expect(await db.select().from(txtImports).where(eq(txtImports.fileName, "繁体.txt"))).toEqual([]);
  });

  it("refuses a TXT that turns out not to be text at its end: nothing stored, not even the cover", async () => {
    const { getStorage, LocalStorage } = await import("~/server/platform/storage.server");
    const storage = getStorage();
    const coverFiles = () =>
      storage instanceof LocalStorage && fs.existsSync(storage.root)
        ? fs.readdirSync(storage.root, { recursive: true }).filter((f) => /^covers\/.+\.webp$/.test(String(f))).length
        : 0;
    const before = [await countWorks(), coverFiles()];
    const png = await sharp({ create: { width: 300, height: 400, channels: 3, background: "#336699" } }).png().toBuffer();
    // Clean chapters for the first megabyte, then control characters: only the end tells.
    const bytes = Buffer.concat([new TextEncoder().encode("####\n第一章\n正文内容\n".repeat(40_000)), Buffer.alloc(2000, 1)]);
    const r = await submit(
      publishForm({ title: "半途失败", type: "multi_chapter" }, { txt: new File([bytes], "x.txt"), cover: new File([png], "c.png", { type: "image/png" }) }),
    );
    expect((r as Failure).init.status).toBe(400);
    expect(errorsOf(r).txt).toEqual(["文件不是有效的文本文件，请上传TXT格式的小说"]);
    expect([await countWorks(), coverFiles()]).toEqual(before);
  });

  it("stores an uploaded cover as 200x275 WebP served from /files/", async () => {
    const png = await sharp({ create: { width: 600, height: 900, channels: 3, background: "#a23b2c" } }).png().toBuffer();
    const response = (await submit(publishForm({ title: "有封面", content: "x" }, { cover: new File([png], "c.png", { type: "image/png" }) }))) as Response;
    expect(response.status).toBe(302);
    const [work] = await db.select().from(works).where(eq(works.title, "有封面"));
    expect(work.coverUrl).toMatch(/^\/files\/covers\/.+\.webp$/);
    const { getStorage, keyFromUrl } = await import("~/server/platform/storage.server");
    const stored = await getStorage().get(keyFromUrl(work.coverUrl!)!);
    const body = stored!.body instanceof Uint8Array ? stored!.body : new Uint8Array(await new Response(stored!.body).arrayBuffer());
    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 200, 275]);
  });

  it("refuses a renamed PDF as the cover and writes nothing", async () => {
    const before = await countWorks();
    const pdf = new File([new TextEncoder().encode("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n")], "cover.png", { type: "image/png" });
    const r = await submit(publishForm({ title: "假封面", content: "x" }, { cover: pdf }));
    expect((r as Failure).init.status).toBe(400);
    expect(errorsOf(r).cover?.[0]).toMatch(/图片/);
    expect(await countWorks()).toBe(before);
  });

  it("sends a visitor to the login dialog", async () => {
    await expect(callThroughRoutes(action, { request: new Request("http://localhost/submit", { method: "POST", body: new FormData() }) })).rejects.toMatchObject({
      status: 302,
    });
  });
});

describe("staged TXT imports", () => {
  const stage = async (owner: string, fileName: string, hoursAgo: number) => {
    const [row] = await db
      .insert(txtImports)
      .values({ userId: owner, fileName, separator: "####", chapters: [{ title: "第一章", content: "正文" }], createdAt: new Date(Date.now() - hoursAgo * 3_600_000) })
      .returning({ id: txtImports.id });
    return row.id;
  };
  const names = async () => (await db.select({ name: txtImports.fileName }).from(txtImports)).map((r) => r.name);

  it("are deleted after 24 hours, whoever staged them, when anyone previews a TXT", async () => {
    const other = await createUser();
    await stage(other.id, "别人的旧草稿.txt", 25);
    await stage(other.id, "别人的新草稿.txt", 23);
    const r = await submit(publishForm({ intent: "preview-txt", type: "multi_chapter" }, { txt: new File([corpus("xiyouji-excerpt.utf8.txt")], "西游.txt") }));
    expect((r as { preview: unknown }).preview).not.toBeNull();
    const left = await names();
    expect(left).toContain("别人的新草稿.txt");
    expect(left).not.toContain("别人的旧草稿.txt");
  });

  it("are deleted by the server's periodic cleanup, can no longer be published, and are left out of the database export", async () => {
    const { startHourlyCleanup } = await import("~/server/jobs/cleanup.server");
    const { writeDatabaseSql } = await import("~/server/admin/exports/database.server");
    const expired = await stage(userId, "过期草稿.txt", 24.5);
    await stage(userId, "新鲜草稿.txt", 1);

    // Not published from, not in the export, even before any cleanup ran.
    const published = await submit(publishForm({ type: "multi_chapter", title: "过期导入", importToken: expired }));
    expect(errorsOf(published).txt).toEqual(["请上传并解析TXT文件"]);
    const decoder = new TextDecoder();
    let dump = "";
    await writeDatabaseSql(async (chunk) => {
      for (const part of typeof chunk === "string" ? [chunk] : chunk instanceof Uint8Array ? [chunk] : chunk) {
        dump += typeof part === "string" ? part : decoder.decode(part);
      }
    });
    expect(dump).toContain("新鲜草稿.txt");
    expect(dump).not.toContain("过期草稿.txt");

    const stop = startHourlyCleanup(60_000);
    try {
      await expect.poll(names).not.toContain("过期草稿.txt");
    } finally {
      stop();
    }
    expect(await names()).toContain("新鲜草稿.txt");
  });
});
