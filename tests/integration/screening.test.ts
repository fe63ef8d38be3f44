import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, chapterComments, chapters, commentReports, profiles, screeningWords, volumes, works } from "~/db/schema";
import { listComments, postComment, reportComment } from "~/server/community/comments.server";
import { updateNickname } from "~/server/identity/profile.server";
import { readChapter } from "~/server/reading/reader.server";
import { maskText, reloadScreening, screenText } from "~/server/screening/screening.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { createVolume, insertChapter, publishChapterNow, renameChapter, renameVolume } from "~/server/studio/chapters.server";
import { register } from "~/server/identity/auth.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { previewTxt, publishWork } from "~/server/studio/work-create.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { addChapter, insertWorks } from "../fixtures/works";
import { adminCookieFor, callAction, callLoader, createAdmin, firstError, request } from "./admin-fixtures";

/**
 * Sensitive-word screening (docs/product.md#screening): the back office's word list, and
 * every write path refusing a 禁止 word while changing nothing; 替换 words masked for readers.
 */

let cookie: string;
let operatorCookie: string;
const page = () => import("~/routes/admin/screening");

beforeAll(async () => {
  // An 运营 admin manages the list; the tests add words as one, like the page.
  const operator = await createAdmin({ role: "operator" });
  operatorCookie = await adminCookieFor(operator.id);
  cookie = operatorCookie;
});

const form = (fields: Record<string, string>, file?: { name: string; bytes: Uint8Array<ArrayBuffer> | string }) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  if (file) data.append("file", new File([file.bytes], file.name, { type: "text/plain" }));
  return data;
};
const post = async (fields: Record<string, string>, file?: { name: string; bytes: Uint8Array<ArrayBuffer> | string }, who = cookie) =>
  callAction(await page(), request("/admin/screening", { cookie: who }, form(fields, file)));
const add = (word: string, category = "政治", level = "forbid") => post({ intent: "add", word, category, level });
const count = async () => (await db.select().from(screeningWords)).length;

describe("the word list page", () => {
  it("adds, lists, filters and deletes words, each change audited", async () => {
    const added = await add("违禁测试词", "政治", "forbid");
    expect(added.status).toBe(302);
    expect(added.location).toBe("/admin/screening");
    await add("遮盖测试词", "色情", "replace");
    const listed = await callLoader(await page(), request("/admin/screening?category=色情", { cookie }));
    expect(listed.data.words.map((w: { word: string }) => w.word)).toEqual(["遮盖测试词"]);
    // The search sees through spellings too: the traditional form finds the word.
    const searched = await callLoader(await page(), request("/admin/screening?q=違禁", { cookie }));
    expect(searched.data.words.map((w: { word: string }) => w.word)).toEqual(["违禁测试词"]);

    const [row] = await db.select().from(screeningWords).where(eq(screeningWords.word, "遮盖测试词"));
    expect((await post({ intent: "delete", id: String(row.id) })).status).toBe(302);
    const audit = await db.select().from(adminAuditLog).where(eq(adminAuditLog.targetType, "screening-word")).orderBy(desc(adminAuditLog.id));
    expect(audit.map((a) => a.action).slice(0, 3)).toEqual(["screening.delete", "screening.add", "screening.add"]);
    expect(audit[0].before).toEqual({ word: "遮盖测试词", category: "色情", level: "替换" });
    expect((await screenText("这是违禁测试词")).forbidden).toEqual(["违禁测试词"]);
  });

  it("refuses bad words with a message, changing nothing", async () => {
    await add("重复测试词");
    const before = await count();
    const cases: [Record<string, string>, string][] = [
      [{ intent: "add", word: "", category: "政治", level: "forbid" }, "请输入词语"],
      [{ intent: "add", word: "……  ", category: "政治", level: "forbid" }, "词语不能只有空格、标点或不可见字符"],
      [{ intent: "add", word: "\u200b\u200b", category: "政治", level: "forbid" }, "词语不能只有空格、标点或不可见字符"],
      [{ intent: "add", word: "重复测试词", category: "政治", level: "forbid" }, "「重复测试词」已在词库中"],
      [{ intent: "add", word: "重 複 測 試 詞", category: "政治", level: "forbid" }, "「重 複 測 試 詞」已在词库中（写作「重复测试词」）"],
      [{ intent: "add", word: "长".repeat(51), category: "政治", level: "forbid" }, "词语不能超过50个字"],
      [{ intent: "add", word: "好词", category: "宗教", level: "forbid" }, "请选择分类（政治、色情、暴力、广告、违禁品、其他）"],
      [{ intent: "add", word: "好词", category: "政治", level: "block" }, "请选择级别（禁止、审核、替换）"],
      [{ intent: "delete", id: "99999999" }, "词语不存在或已删除"],
    ];
    for (const [fields, message] of cases) {
      const result = await post(fields);
      expect(result.status, message).toBeGreaterThanOrEqual(400);
      expect(firstError(result.data)).toBe(message);
    }
    expect(await count()).toBe(before);
  });

  it("takes a regex-looking word literally", async () => {
    expect((await add("a.*b(c)", "其他", "forbid")).status).toBe(302);
    expect((await screenText("aXXbc")).forbidden).toEqual([]);
    expect((await screenText("写 a.*b(c) 的人")).forbidden).toEqual(["a.*b(c)"]);
  });

  it("serves a change as soon as this process's rebuild is done, though another rebuild started after it", async () => {
    // The announcement of a change starts a second rebuild while the change's own is under way
    // (a CI run saw the list before the change served in that gap).
    await reloadScreening();
    await db.insert(screeningWords).values({ word: "重建竞速词", folded: "重建竞速词", category: "其他", level: "forbid" });
    const own = reloadScreening();
    const announced = reloadScreening();
    await own;
    expect((await screenText("一个重建竞速词")).forbidden).toEqual(["重建竞速词"]);
    await announced;
    await db.delete(screeningWords).where(eq(screeningWords.word, "重建竞速词"));
    await reloadScreening();
  });

  it("imports a UTF-8 TXT with defaults and exports the same format", async () => {
    const txt = "\ufeff# 注释行\n导入甲\n导入乙\t广告\n导入丙\t暴力\t替换\r\n\n导入丁\t\t审核\n重复测试词\t其他\t替换\n";
    const result = await post({ intent: "import", category: "色情", level: "review" }, { name: "词库.txt", bytes: txt });
    expect(result.status).toBe(302);
    const rows = new Map((await db.select().from(screeningWords)).map((r) => [r.word, [r.category, r.level]]));
    expect(rows.get("导入甲")).toEqual(["色情", "review"]);
    expect(rows.get("导入乙")).toEqual(["广告", "review"]);
    expect(rows.get("导入丙")).toEqual(["暴力", "replace"]);
    expect(rows.get("导入丁")).toEqual(["色情", "review"]);
    // A word already listed takes the file's category and level.
    expect(rows.get("重复测试词")).toEqual(["其他", "replace"]);
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "screening.import"));
    expect(audit.after).toMatchObject({ file: "词库.txt", added: 4, updated: 1 });

    const exported = await callLoader(await import("~/routes/admin/screening-export"), request("/admin/screening/words.txt", { cookie }));
    expect(exported.status).toBe(200);
    expect(exported.response!.headers.get("Content-Disposition")).toContain("filename*=UTF-8''");
    const text = await exported.response!.text();
    expect(text).toContain("导入丙\t暴力\t替换\n");
    // The export imports again unchanged.
    const again = await post({ intent: "import", category: "其他", level: "forbid" }, { name: "导出.txt", bytes: text });
    expect(again.status).toBe(302);
    expect(new Map((await db.select().from(screeningWords)).map((r) => [r.word, [r.category, r.level]]))).toEqual(rows);
  });

  it("refuses bad files with a message naming the problem, importing nothing", async () => {
    const before = await count();
    const gbk = Uint8Array.from([0xb7, 0xa8, 0xc2, 0xd6, 0xb9, 0xa6, 0x0a]); // 法轮功 in GBK
    const cases: [{ name: string; bytes: Uint8Array<ArrayBuffer> | string } | undefined, string][] = [
      [{ name: "gbk.txt", bytes: gbk }, "文件不是UTF-8编码（可能是GBK），请另存为UTF-8后再导入"],
      [{ name: "long.txt", bytes: "好".repeat(1024 * 1024 / 3) }, "第1行过长（超过200个字符），请检查是否用换行分隔词语"],
      [{ name: "empty.txt", bytes: "" }, "文件里没有词语（空行和以 # 开头的行不算）"],
      [{ name: "comments.txt", bytes: "# 只有注释\n\n   \n" }, "文件里没有词语（空行和以 # 开头的行不算）"],
      [{ name: "dup.txt", bytes: "新词一\n新词二\n新詞一\n" }, "第3行的「新詞一」与第1行重复，请删去一行后再导入"],
      [{ name: "bad.txt", bytes: "新词三\t宗教\n新词四\t政治\t封禁\n" }, "第1行：分类「宗教」不存在（可用：政治、色情、暴力、广告、违禁品、其他）；第2行：级别「封禁」不存在（可用：禁止、审核、替换）"],
      [{ name: "cols.txt", bytes: "新词五\t政治\t禁止\t多余\n" }, "第1行格式不对：应为「词语<Tab>分类<Tab>级别」，分类和级别可省略"],
      [{ name: "blank.txt", bytes: "新词六\n\u200b\u200b\t政治\n" }, "第2行：词语不能只有空格、标点或不可见字符"],
      [undefined, "请选择要导入的TXT文件"],
    ];
    for (const [file, message] of cases) {
      const result = await post({ intent: "import", category: "其他", level: "forbid" }, file);
      expect(result.status, message).toBe(400);
      expect(firstError(result.data)).toBe(message);
    }
    expect(await count()).toBe(before);
    expect((await screenText("新词一")).forbidden).toEqual([]);
  });

  it("is for administrators only: a visitor or a user is sent to the login", async () => {
    const before = await count();
    const anonymous = await callAction(await page(), request("/admin/screening", {}, form({ intent: "add", word: "匿名词", category: "政治", level: "forbid" })));
    expect([302, 303, 401, 403]).toContain(anonymous.status);
    const exported = await callLoader(await import("~/routes/admin/screening-export"), request("/admin/screening/words.txt"));
    expect([302, 303, 401, 403]).toContain(exported.status);
    // A signed-in reader has no admin session: the same.
    const reader = await sessionCookieFor((await createUser()).id);
    const asReader = await callAction(await page(), request("/admin/screening", { cookie: reader }, form({ intent: "add", word: "读者词", category: "政治", level: "forbid" })));
    expect([302, 303, 401, 403]).toContain(asReader.status);
    const listAsReader = await callLoader(await page(), request("/admin/screening", { cookie: reader }));
    expect(listAsReader.status).toBe(302);
    expect(listAsReader.location).toMatch(/^\/xbbadmin/);
    expect(await count()).toBe(before);
  });
});

describe("every write path refuses a 禁止 word, changing nothing", () => {
  const f = {} as { author: { id: string }; reader: { id: string }; work: number; serial: number; chapter: number };
  const who = (id: string) => ({ id, showR18: false, showAi: true });

  beforeAll(async () => {
    await add("法轮功", "政治", "forbid");
    await add("援交", "色情", "replace");
    await add("加微信", "广告", "review");
    const [author, reader] = [await createUser(), await createUser()];
    [f.work, f.serial] = await insertWorks([
      { userId: author.id, title: "干净的书" },
      { userId: author.id, title: "连载" },
    ]);
    await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, f.serial));
    f.chapter = await addChapter(f.work, "第一段。\n\n第二段有援交二字。");
    await addChapter(f.serial, "连载第一章。");
    Object.assign(f, { author, reader });
  });

  const refused = async (p: Promise<unknown>, label: string) => {
    const error = await domainError(p);
    expect(error.status).toBe(400);
    expect(error.message).toBe(`${label}含有禁止使用的词语：「法轮功」，请修改后再提交`);
  };

  it("comments, replies and report reasons", async () => {
    const before = (await db.select().from(chapterComments)).length;
    await refused(postComment(who(f.reader.id), { workId: f.work, order: 1, paragraph: null, parentId: null, body: "法 輪 功好" }), "评论");
    const ok = await postComment(who(f.reader.id), { workId: f.work, order: 1, paragraph: null, parentId: null, body: "写得好" });
    await refused(postComment(who(f.author.id), { workId: f.work, order: 1, paragraph: null, parentId: ok.id, body: "ＦＡ法轮功" }), "回复");
    expect((await db.select().from(chapterComments)).length).toBe(before + 1);
    await refused(reportComment(who(f.author.id), ok.id, "他在宣传法.轮.功"), "举报理由");
    expect(await db.select().from(commentReports)).toEqual([]);
    // A comment of only zero-width characters is empty.
    expect((await domainError(postComment(who(f.reader.id), { workId: f.work, order: 1, paragraph: null, parentId: null, body: "\u200b\u200d" }))).message).toBe("评论内容不能为空");
  });

  it("nicknames", async () => {
    const [before] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, f.reader.id));
    await refused(updateNickname(f.reader.id, "法轮功弟子"), "昵称");
    const [after] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, f.reader.id));
    expect(after).toEqual(before);
  });

  it("work titles, descriptions and tags; new works", async () => {
    const settings = { title: "干净的书", description: "简介", rating: "all_ages" as const, isAiGenerated: false, tags: ["仙侠"], cover: "keep" as const };
    await refused(updateWorkSettings(f.author.id, f.work, { ...settings, title: "法轮功传" }, null), "作品标题");
    await refused(updateWorkSettings(f.author.id, f.work, { ...settings, description: "讲法轮功" }, null), "作品简介");
    await refused(updateWorkSettings(f.author.id, f.work, { ...settings, tags: ["仙侠", "法轮功"] }, null), "标签");
    const [work] = await db.select().from(works).where(eq(works.id, f.work));
    expect([work.title, work.description, work.tags]).toEqual(["干净的书", "干净的书的简介", []]);
    const input = {
      status: "completed" as const, type: "single_chapter" as const, title: "新书", description: "简介",
      rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const, content: "正文",
    };
    const count = async () => (await db.select().from(works).where(eq(works.userId, f.author.id))).length;
    const n = await count();
    await refused(publishWork(f.author.id, { ...input, title: "法轮功" }, { cover: null, txt: null }), "作品标题");
    await refused(publishWork(f.author.id, { ...input, content: "正文里有法轮功" }, { cover: null, txt: null }), "正文");
    const upload = (text: string) => ({ name: "书.txt", type: "text/plain", size: Buffer.byteLength(text), chunks: [new TextEncoder().encode(text)] });
    const txt = "####\n第一章\n干净的正文\n####\n第二章\n正文里有法轮功\n";
    await refused(publishWork(f.author.id, { ...input, type: "multi_chapter" }, { cover: null, txt: upload(txt) }), "第2章「第二章」的正文");
    await refused(previewTxt(f.author.id, upload(txt), "####"), "第2章「第二章」的正文");
    expect(await count()).toBe(n);
  });

  it("chapter titles and text: save, autosave, insert, rename, publish", async () => {
    const read = async () => (await db.select({ title: chapters.title, content: chapters.content, revision: chapters.revision }).from(chapters).where(eq(chapters.id, f.chapter)))[0];
    const before = await read();
    await refused(saveChapter(f.author.id, f.work, f.chapter, { kind: "save", content: "新正文法轮功" }), "章节正文");
    await refused(saveChapter(f.author.id, f.work, f.chapter, { kind: "save", content: "新正文", title: "法轮功" }), "章节标题");
    await refused(saveChapter(f.author.id, f.work, f.chapter, { kind: "autosave", content: "法輪功", baseRevision: before.revision }), "章节正文");
    await refused(renameChapter(f.author.id, f.work, f.chapter, "法轮功章"), "章节标题");
    expect(await read()).toEqual(before);
    // Only zero-width characters: no text at all.
    expect((await domainError(saveChapter(f.author.id, f.work, f.chapter, { kind: "save", content: "\u200b\u200b\u200b" }))).message).toBe("章节内容只有空白或不可见字符（如零宽空格），请输入正文");
    expect(await read()).toEqual(before);

    const chaptersOf = async () => (await db.select().from(chapters).where(eq(chapters.workId, f.serial))).length;
    const n = await chaptersOf();
    await refused(insertChapter(f.author.id, f.serial, { title: "第二章", content: "法轮功" }, "end"), "章节正文");
    expect(await chaptersOf()).toBe(n);
    // A draft saved before the word was listed is screened again when it goes out.
    const draft = await insertChapter(f.author.id, f.serial, { title: "存稿", content: "存稿里写了法轮大法", release: { mode: "draft" } }, "end");
    await add("法轮大法", "政治", "forbid");
    const error = await domainError(publishChapterNow(f.author.id, f.serial, draft));
    expect(error.message).toBe("章节正文含有禁止使用的词语：「法轮大法」，请修改后再提交");
    const [row] = await db.select({ state: chapters.state }).from(chapters).where(and(eq(chapters.id, draft)));
    expect(row.state).toBe("draft");
  });
});

describe("替换 words masked for readers, 审核 words held", () => {
  it("masks comments and chapter text where readers see them, not in storage or the editor", async () => {
    const [author, reader] = [await createUser(), await createUser()];
    const [work] = await insertWorks([{ userId: author.id, title: "遮盖" }]);
    await addChapter(work, "开头。\n\n有人在搞援 交，还有援交。");
    const viewer = { id: reader.id, showR18: false, showAi: true };
    await postComment(viewer, { workId: work, order: 1, paragraph: null, parentId: null, body: "援交不好" });
    const thread = await listComments(viewer, work, 1, { paragraph: null, sort: "new", page: 1 });
    expect(thread.comments[0].body).toBe("＊＊不好");
    const [stored] = await db.select({ body: chapterComments.body }).from(chapterComments).where(eq(chapterComments.workId, work));
    expect(stored.body).toBe("援交不好");
    const { batch } = await readChapter(work, viewer, 1, 0);
    expect(batch.paragraphs).toEqual(["开头。", "有人在搞＊ ＊，还有＊＊。"]);
    const [chapter] = await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.workId, work));
    expect(chapter.content).toContain("援 交");
    expect(await maskText("援交和加微信")).toBe("＊＊和加微信");
  });

  it("stores titles, descriptions and tags masked, so every page, feed and export shows them masked (decision 237)", async () => {
    const author = await createUser();
    const base = { status: "ongoing" as const, description: "讲援交的简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
    const serial = await publishWork(author.id, { ...base, type: "series", title: "援交连载", chapterTitle: "第一章 援 交", chapterContent: "正文" }, { cover: null, txt: null });
    const stored = async (id: number) => (await db.select({ title: works.title, description: works.description, tags: works.tags }).from(works).where(eq(works.id, id)))[0];
    expect(await stored(serial.id)).toEqual({ title: "＊＊连载", description: "讲＊＊的简介", tags: [] });
    const titles = async (workId: number) => (await db.select({ title: chapters.title }).from(chapters).where(eq(chapters.workId, workId)).orderBy(chapters.position)).map((r) => r.title);
    expect(await titles(serial.id)).toEqual(["第一章 ＊ ＊"]);

    // A TXT's chapter titles: in the preview the author sees and in the work published.
    const upload = (text: string) => ({ name: "书.txt", type: "text/plain", size: Buffer.byteLength(text), chunks: [new TextEncoder().encode(text)] });
    const txt = "####\n第一章 援交\n正文\n####\n第二章\n正文\n";
    expect((await previewTxt(author.id, upload(txt), "####")).chapters.map((c) => c.title)).toEqual(["第一章 ＊＊", "第二章"]);
    const imported = await publishWork(author.id, { ...base, status: "completed", type: "multi_chapter", title: "导入", separator: "####" }, { cover: null, txt: upload(txt) });
    expect(await titles(imported.id)).toEqual(["第一章 ＊＊", "第二章"]);

    // The settings page, and a chapter's title on every write: insert, 保存, rename.
    const settings = { title: "新名援交", description: "援交", rating: "all_ages" as const, isAiGenerated: false, tags: ["援交", "仙侠"], cover: "keep" as const };
    await updateWorkSettings(author.id, imported.id, settings, null);
    expect(await stored(imported.id)).toEqual({ title: "新名＊＊", description: "＊＊", tags: ["＊＊", "仙侠"] });
    const added = await insertChapter(author.id, serial.id, { title: "援交之夜", content: "正文" }, "end");
    expect((await titles(serial.id))[1]).toBe("＊＊之夜");
    await saveChapter(author.id, serial.id, added, { kind: "save", content: "正文二", title: "又是援交" });
    expect((await titles(serial.id))[1]).toBe("又是＊＊");
    await renameChapter(author.id, serial.id, added, "援交三");
    expect((await titles(serial.id))[1]).toBe("＊＊三");

    // Volume titles: 禁止 and 审核 words refused (a heading has no review), 替换 masked.
    const volumeTitle = async (id: number) => (await db.select({ title: volumes.title }).from(volumes).where(eq(volumes.id, id)))[0].title;
    expect((await domainError(createVolume(author.id, serial.id, "法轮功卷", null))).message).toBe("卷名含有禁止使用的词语：「法轮功」，请修改后再提交");
    expect((await domainError(createVolume(author.id, serial.id, "加微信卷", null))).message).toBe("卷名含有需要审核的词语，请修改后再提交");
    const volume = await createVolume(author.id, serial.id, "援交卷", null);
    expect(await volumeTitle(volume)).toBe("＊＊卷");
    await renameVolume(author.id, serial.id, volume, "第二卷 援交");
    expect(await volumeTitle(volume)).toBe("第二卷 ＊＊");
    expect((await domainError(renameVolume(author.id, serial.id, volume, "加 微 信"))).status).toBe(400);
    expect(await volumeTitle(volume)).toBe("第二卷 ＊＊");
  });

  it("stores nicknames masked; a new account's name from its e-mail falls back to 读者 when it holds a 禁止 or 审核 word", async () => {
    const reader = await createUser();
    await updateNickname(reader.id, "援交大王");
    const nickname = async (id: string) => (await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, id)))[0].nickname;
    expect(await nickname(reader.id)).toBe("＊＊大王");
    await add("maskme", "其他", "replace");
    await add("holdme", "广告", "review");
    await add("banme", "其他", "forbid");
    const form = (email: string) => {
      const data = new FormData();
      data.set("email", email);
      data.set("password", "a-long-enough-password");
      return data;
    };
    const masked = await register(form(`xmaskmex${Date.now()}@example.com`), "10.9.0.1");
    expect(await nickname(masked.id)).toMatch(/^x＊{6}x\d+$/);
    for (const local of ["holdme", "banme"]) {
      const user = await register(form(`${local}${Date.now()}@example.com`), "10.9.0.2");
      expect(await nickname(user.id)).toBe("读者");
    }
  });

  it("a 审核 word holds the text (recorded nowhere yet: the review queue comes later)", async () => {
    const result = await screenText("加 微 信 领取");
    expect(result).toMatchObject({ forbidden: [], held: true });
    expect(result.hits).toEqual([{ word: "加微信", category: "广告", level: "review", start: 0, end: 5 }]);
  });
});
