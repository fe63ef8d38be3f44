import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { chapters, readerMarks, works } from "~/db/schema";
import { MARK_MESSAGES, MARK_NOTE_MAX, MARKS_PER_WORK } from "~/schemas/reader-mark-rules";
import { addMark, listMarks, marksForChapter } from "~/server/reading/marks.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { insertWorks, serialByChapter } from "../fixtures/works";
import { callAction, callLoader } from "./admin-fixtures";

/**
 * 书签 and 划线 (decision 241): a reader bookmarks a paragraph or highlights characters of it,
 * with a note, in a chapter they may read; only they list and delete their marks; a mark
 * whose text the author changed is listed as 原文已修改. Bad input, chapters the reader
 * cannot read, others' marks and the per-work limit are refused with a message and the
 * right status, writing nothing.
 */

const marksRoute = () => import("~/routes/shell/reader/marks");
const listRoute = () => import("~/routes/shell/library/bookmarks");

let author: { id: string };
let reader: { id: string };
let cookie: string;
let otherCookie: string;
let serial: { workId: number; chapterIds: number[] };
const viewer = (id: string) => ({ id, showR18: false, showAi: true });
const TEXT = "第一段：雨夜里的长街。\n第二段：林晚撑伞走过桥头，看见了老周。\n第三段：灯灭了。";

beforeAll(async () => {
  author = await createUser();
  reader = await createUser();
  const other = await createUser();
  cookie = await sessionCookieFor(reader.id);
  otherCookie = await sessionCookieFor(other.id);
  // Chapters 1-2 free, 3 on VIP.
  serial = await serialByChapter(author.id, { count: 3, vipFrom: 3, title: "划线连载" });
  await db.update(chapters).set({ content: TEXT }).where(eq(chapters.id, serial.chapterIds[0]));
});

const post = async (fields: Record<string, string>, who = cookie, workId = serial.workId) =>
  callAction(await marksRoute(), userRequest(who, `/works/${workId}/marks`, { back: `/works/${workId}?chapter=1`, ...fields }), { id: String(workId) });

const rowsOf = (userId: string) => db.select().from(readerMarks).where(eq(readerMarks.userId, userId));

describe(`书签 and 划线 (${databaseKind})`, () => {
  it("bookmarks a paragraph with a note and highlights a selection or a whole paragraph, with and without JavaScript", async () => {
    const chapterId = String(serial.chapterIds[0]);
    const plain = await post({ intent: "bookmark", chapterId, paragraph: "1", note: " 从这里重读 " });
    expect([plain.status, plain.location]).toEqual([302, `/works/${serial.workId}?chapter=1`]);
    const quote = "林晚撑伞";
    const start = "第二段：".length;
    const enhanced = await post({ intent: "highlight", chapterId, paragraph: "1", start: String(start), end: String(start + quote.length), quote, note: "好句", enhanced: "1" });
    expect([enhanced.status, enhanced.data]).toEqual([200, { ok: true, message: MARK_MESSAGES.highlighted }]);
    const whole = await post({ intent: "highlight", chapterId, paragraph: "2" });
    expect(whole.status).toBe(302);

    const marks = await marksForChapter(reader.id, serial.chapterIds[0]);
    expect(marks.map((m) => [m.kind, m.paragraph, m.start, m.end, m.quote, m.note])).toEqual([
      ["bookmark", 1, 0, 0, "第二段：林晚撑伞走过桥头，看见了老周。", "从这里重读"],
      ["highlight", 1, start, start + quote.length, quote, "好句"],
      ["highlight", 2, 0, "第三段：灯灭了。".length, "第三段：灯灭了。", ""],
    ]);

    // The same place again (a replay, or a new note): the one row, its note changed.
    const again = await post({ intent: "bookmark", chapterId, paragraph: "1", note: "改过的笔记" });
    expect(again.status).toBe(302);
    const bookmarks = (await rowsOf(reader.id)).filter((r) => r.kind === "bookmark");
    expect(bookmarks.map((r) => r.note)).toEqual(["改过的笔记"]);
  });

  it("lists the reader's marks newest first with links to the paragraph, and 原文已修改 once the text changes", async () => {
    const list = await listMarks(viewer(reader.id), 1);
    expect(list.total).toBe(3);
    expect(list.marks[0]).toMatchObject({ kind: "highlight", paragraph: 2, changed: false, chapterOrder: 1, workTitle: "划线连载" });
    expect(list.marks.find((m) => m.kind === "bookmark")?.href).toBe(`/works/${serial.workId}?chapter=1&from=1#p-1`);
    // Another reader sees none of them.
    const otherList = await callLoader(await listRoute(), userRequest(otherCookie, "/bookmarks"));
    expect(otherList.data.total).toBe(0);

    // The author rewrites the second paragraph: its highlight and bookmark no longer match; the third still does.
    await db.update(chapters).set({ content: TEXT.replace("林晚撑伞走过桥头", "林晚走过桥头") }).where(eq(chapters.id, serial.chapterIds[0]));
    const after = await listMarks(viewer(reader.id), 1, serial.workId);
    expect(after.marks.map((m) => [m.kind, m.paragraph, m.changed]).sort()).toEqual([
      ["bookmark", 1, true],
      ["highlight", 1, true],
      ["highlight", 2, false],
    ]);
    await db.update(chapters).set({ content: TEXT }).where(eq(chapters.id, serial.chapterIds[0]));
  });

  it("refuses bad input and chapters the reader cannot read with a message, writing nothing", async () => {
    const before = (await rowsOf(reader.id)).length;
    const first = String(serial.chapterIds[0]);
    const [privateWork] = await insertWorks([{ userId: author.id, title: "私密作品", visibility: "private" }]);
    const [privateChapter] = await db.insert(chapters).values({ workId: privateWork, title: "一", content: "私密的正文", position: 1, wordCount: 5 }).returning({ id: chapters.id });
    const cases: [Record<string, string>, number, string, number?][] = [
      [{ intent: "bookmark", chapterId: first, paragraph: "0", note: "长".repeat(MARK_NOTE_MAX + 1) }, 400, MARK_MESSAGES.noteTooLong],
      [{ intent: "bookmark", chapterId: first, paragraph: "3" }, 400, MARK_MESSAGES.paragraphMissing],
      [{ intent: "bookmark", chapterId: first, paragraph: "-1" }, 400, MARK_MESSAGES.paragraphMissing],
      [{ intent: "bookmark", chapterId: first, paragraph: "x" }, 400, MARK_MESSAGES.paragraphMissing],
      [{ intent: "highlight", chapterId: first, paragraph: "0", start: "0", end: "3", quote: "不对的" }, 400, MARK_MESSAGES.quoteMismatch],
      [{ intent: "highlight", chapterId: first, paragraph: "0", start: "5", end: "2", quote: "雨夜" }, 400, MARK_MESSAGES.quoteMismatch],
      [{ intent: "highlight", chapterId: first, paragraph: "0", start: "0", end: "999", quote: "第一段" }, 400, MARK_MESSAGES.quoteMismatch],
      [{ intent: "highlight", chapterId: first, paragraph: "0", start: "a", end: "b", quote: "第一段" }, 400, MARK_MESSAGES.quoteMismatch],
      [{ intent: "highlight", chapterId: first, paragraph: "0", start: "0", end: "1", quote: " " }, 400, MARK_MESSAGES.quoteEmpty],
      [{ intent: "bookmark", chapterId: String(serial.chapterIds[2]), paragraph: "0" }, 403, MARK_MESSAGES.locked],
      [{ intent: "bookmark", chapterId: "99999999", paragraph: "0" }, 404, MARK_MESSAGES.chapterMissing],
      // A chapter of another work, named under this one.
      [{ intent: "bookmark", chapterId: String(privateChapter.id), paragraph: "0" }, 404, MARK_MESSAGES.chapterMissing],
      [{ intent: "bookmark", chapterId: String(privateChapter.id), paragraph: "0" }, 404, "作品不存在", privateWork],
      [{ intent: "nonsense", chapterId: first, paragraph: "0" }, 400, MARK_MESSAGES.unknown],
    ];
    for (const [fields, status, message, workId] of cases) {
      const answer = await post({ ...fields, enhanced: "1" }, cookie, workId);
      expect([fields, answer.status, answer.data?.error ?? answer.data]).toEqual([fields, status, expect.stringContaining(message)]);
    }
    expect((await rowsOf(reader.id)).length).toBe(before);
    // The paragraph page of a locked chapter is refused too.
    const locked = await callLoader(await marksRoute(), userRequest(cookie, `/works/${serial.workId}/marks?chapterId=${serial.chapterIds[2]}&p=0`), { id: String(serial.workId) });
    expect(locked.status).toBe(403);
    const open = await callLoader(await marksRoute(), userRequest(cookie, `/works/${serial.workId}/marks?chapterId=${serial.chapterIds[0]}&p=1`), { id: String(serial.workId) });
    expect(open.data.text).toBe("第二段：林晚撑伞走过桥头，看见了老周。");
  });

  it("keeps at most MARKS_PER_WORK marks in a work, however many are sent at once", async () => {
    const heavy = await createUser();
    const chapterId = serial.chapterIds[1];
    await db.insert(readerMarks).values(
      Array.from({ length: MARKS_PER_WORK - 2 }, (_, i) => ({ userId: heavy.id, workId: serial.workId, chapterId, kind: "bookmark" as const, paragraph: 100 + i, quote: "旧" })),
    );
    const [text] = await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, chapterId));
    const sends = [0, 1, 2, 3].map((i) =>
      addMark(viewer(heavy.id), { workId: serial.workId, chapterId, kind: "highlight", paragraph: 0, selection: { start: i, end: i + 2, quote: text.content.slice(i, i + 2) }, note: "" }),
    );
    const settled = await Promise.allSettled(sends);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(2);
    const refused = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(refused.map((r) => [r.reason.message, r.reason.status])).toEqual([
      [MARK_MESSAGES.tooMany, 409],
      [MARK_MESSAGES.tooMany, 409],
    ]);
    const count = await db.select().from(readerMarks).where(and(eq(readerMarks.userId, heavy.id), eq(readerMarks.workId, serial.workId)));
    expect(count).toHaveLength(MARKS_PER_WORK);
  });

  it("deletes only the reader's own mark; another's and a second delete are 404", async () => {
    const [mine] = await rowsOf(reader.id);
    const list = await listRoute();
    const theirs = await callAction(list, userRequest(otherCookie, "/bookmarks", { id: String(mine.id), back: "/bookmarks" }));
    expect([theirs.status, theirs.data.error]).toEqual([404, MARK_MESSAGES.missing]);
    const done = await callAction(list, userRequest(cookie, "/bookmarks", { id: String(mine.id), back: `/works/${serial.workId}` }));
    expect([done.status, done.location]).toEqual([302, `/works/${serial.workId}`]);
    const twice = await callAction(list, userRequest(cookie, "/bookmarks", { id: String(mine.id), back: "/bookmarks" }));
    expect(twice.status).toBe(404);
    const outside = await callAction(list, userRequest(cookie, "/bookmarks", { id: "abc", back: "https://evil.example/" }));
    expect(outside.status).toBe(404);
    expect((await rowsOf(reader.id)).some((r) => r.id === mine.id)).toBe(false);
  });

  it("hides the marks of a work taken private from the list", async () => {
    const total = (await listMarks(viewer(reader.id), 1)).total;
    expect(total).toBeGreaterThan(0);
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, serial.workId));
    expect((await listMarks(viewer(reader.id), 1)).total).toBe(0);
    await db.update(works).set({ visibility: "public" }).where(eq(works.id, serial.workId));
  });
});
