import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { notifications, works } from "~/db/schema";
import { TYPO_MESSAGES } from "~/schemas/typo-report-rules";
import { listNotifications } from "~/server/community/notifications.server";
import { TYPO_RATE } from "~/server/community/typo-reports.server";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { serialByChapter } from "../fixtures/works";
import { actorOf, callAction, createAdmin } from "./admin-fixtures";

/**
 * 错别字 reports (docs/product.md#typo-reports, decision 234): a reader quotes a sentence of a
 * chapter they may read; the author's inbox gets a line with it and the chapter's link.
 * Sentences not in the chapter or too long, chapters the reader cannot read, one's own work,
 * repeats and floods are refused with a message and the right status, writing nothing.
 */

const route = () => import("~/routes/shell/reader/typo");

let author: { id: string };
let reader: { id: string };
let cookie: string;
let serial: { workId: number; chapterIds: number[] };

beforeAll(async () => {
  author = await createUser();
  reader = await createUser();
  cookie = await sessionCookieFor(reader.id);
  // Chapters 1-2 free, 3 on VIP; each chapter's text is the fixture's.
  serial = await serialByChapter(author.id, { count: 3, vipFrom: 3, title: "错字连载" });
});

async function chapterText(chapterId: number): Promise<string> {
  const { chapters } = await import("~/db/schema");
  const [row] = await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, chapterId));
  return row.content;
}

const post = async (fields: Record<string, string>, who = cookie, workId = serial.workId) =>
  callAction(await route(), userRequest(who, `/works/${workId}/typo`, { back: `/works/${workId}?chapter=1`, ...fields }), { id: String(workId) });

async function typoLines(userId: string) {
  return db.select().from(notifications).where(eq(notifications.userId, userId));
}

describe(`错别字 reports (${databaseKind})`, () => {
  it("sends the author a line with the sentence, the correction and the chapter's link, with and without JavaScript", async () => {
    const text = await chapterText(serial.chapterIds[0]);
    const sentence = Array.from(text.split(/\n+/)[0].trim()).slice(0, 12).join("");
    const plain = await post({ chapterId: String(serial.chapterIds[0]), sentence: ` ${sentence} `, suggestion: "改一个字" });
    expect([plain.status, plain.location]).toEqual([302, `/works/${serial.workId}?chapter=1`]);
    const inbox = await listNotifications(author.id, 1);
    const line = inbox.lines.find((l) => l.kind === "typo")!;
    expect(line.href).toBe(`/works/${serial.workId}?chapter=1`);
    expect(inboxLineText(line)).toContain(`「${sentence}」 建议改为「改一个字」`);
    expect(inboxLineText(line)).toContain("《错字连载》");

    const enhanced = await post({ chapterId: String(serial.chapterIds[1]), sentence: Array.from((await chapterText(serial.chapterIds[1])).trim()).slice(0, 6).join(""), enhanced: "1" });
    expect([enhanced.status, enhanced.data]).toEqual([200, { ok: true }]);
    expect((await typoLines(author.id)).filter((l) => l.kind === "typo")).toHaveLength(2);

    // The same sentence again while the line is unread: refused, nothing written.
    const again = await post({ chapterId: String(serial.chapterIds[0]), sentence, enhanced: "1" });
    expect([again.status, again.data.error]).toEqual([409, TYPO_MESSAGES.twice]);
    expect((await typoLines(author.id)).filter((l) => l.kind === "typo")).toHaveLength(2);
  });

  it("refuses bad sentences, unreadable chapters and one's own work with a message, writing nothing", async () => {
    const before = (await typoLines(author.id)).length;
    const first = String(serial.chapterIds[0]);
    const cases: [Record<string, string>, number, string][] = [
      [{ chapterId: first, sentence: "   " }, 400, TYPO_MESSAGES.sentenceEmpty],
      [{ chapterId: first, sentence: "完全不在这一章里的一句话" }, 400, TYPO_MESSAGES.notInChapter],
      [{ chapterId: first, sentence: "字".repeat(201) }, 400, TYPO_MESSAGES.sentenceTooLong],
      [{ chapterId: first, sentence: (await chapterText(serial.chapterIds[0])).trim().slice(0, 4), suggestion: "长".repeat(201) }, 400, TYPO_MESSAGES.suggestionTooLong],
      [{ chapterId: String(serial.chapterIds[2]), sentence: (await chapterText(serial.chapterIds[2])).trim().slice(0, 4) }, 403, TYPO_MESSAGES.locked],
      [{ chapterId: "999999999", sentence: "一句" }, 404, TYPO_MESSAGES.chapterMissing],
      [{ chapterId: "abc", sentence: "一句" }, 404, TYPO_MESSAGES.chapterMissing],
    ];
    for (const [fields, status, message] of cases) {
      const r = await post(fields);
      expect([r.status, r.data.error]).toEqual([status, message]);
    }
    // The author of the work: refused.
    const own = await post({ chapterId: first, sentence: "一句" }, await sessionCookieFor(author.id));
    expect([own.status, own.data.error]).toEqual([400, TYPO_MESSAGES.own]);
    // A chapter of another work: missing.
    const other = await serialByChapter(author.id, { count: 1 });
    const crossed = await post({ chapterId: String(other.chapterIds[0]), sentence: "一句" });
    expect(crossed.status).toBe(404);
    // A private work: 404 (it does not exist for the reader).
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, other.workId));
    expect((await post({ chapterId: String(other.chapterIds[0]), sentence: "一句" }, cookie, other.workId)).status).toBe(404);
    expect((await typoLines(author.id)).length).toBe(before);
  });

  it("screens the correction like a comment", async () => {
    const chief = await createAdmin({ role: "chief_editor" });
    await addScreeningWord(actorOf(chief), { word: "禁词测试甲", category: "其他", level: "forbid" });
    await addScreeningWord(actorOf(chief), { word: "审核测试乙", category: "其他", level: "review" });
    await reloadScreening();
    const before = (await typoLines(author.id)).length;
    const sentence = Array.from((await chapterText(serial.chapterIds[1])).trim()).slice(2, 8).join("");
    const forbidden = await post({ chapterId: String(serial.chapterIds[1]), sentence, suggestion: "改成禁词测试甲" });
    expect(forbidden.status).toBe(400);
    expect(forbidden.data.error).toMatch(/修改建议/);
    const held = await post({ chapterId: String(serial.chapterIds[1]), sentence, suggestion: "审核测试乙" });
    expect([held.status, held.data.error]).toEqual([400, TYPO_MESSAGES.suggestionHeld]);
    expect((await typoLines(author.id)).length).toBe(before);
  });

  it("limits how many a reader sends", async () => {
    const flooder = await createUser();
    const who = await sessionCookieFor(flooder.id);
    const text = (await chapterText(serial.chapterIds[0])).replace(/\s+/gu, "");
    const answers: number[] = [];
    for (let i = 0; i <= TYPO_RATE.limit; i++) {
      answers.push((await post({ chapterId: String(serial.chapterIds[0]), sentence: Array.from(text).slice(0, i + 2).join(""), enhanced: "1" }, who)).status);
    }
    expect(answers.slice(0, TYPO_RATE.limit).every((s) => s === 200)).toBe(true);
    expect(answers.at(-1)).toBe(429);
  });
});
