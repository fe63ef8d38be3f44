import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { booklistEntries, booklists, users, works } from "~/db/schema";
import { BOOKLIST_MAX_ENTRIES, BOOKLIST_MAX_PER_USER } from "~/schemas/booklists";
import {
  addToBooklist,
  BOOKLIST_MESSAGES,
  createBooklist,
  deleteBooklist,
  getBooklistForEdit,
  getBooklistPage,
  listBooklists,
  moveEntry,
  removeEntry,
  setBooklistFollow,
  setEntryNote,
  updateBooklist,
} from "~/server/community/booklists.server";
import { getAuthorPage } from "~/server/community/author-follows.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { insertWorks, setViewerPrefs } from "../fixtures/works";
import { actorOf, callAction, callLoader, createAdmin } from "./admin-fixtures";

/**
 * 书单 (docs/product.md#booklists, decision 232): a reader's public lists of works with a
 * note per entry; following; /booklists by followers and newest; what a viewer may not see
 * left out; limits, duplicates, another's list, screening: clear messages, nothing half-written.
 */

type V = { id: string; showR18: boolean; showAi: boolean };
const viewer = (id: string, prefs: Partial<V> = {}): V => ({ id, showR18: false, showAi: true, ...prefs });
const reader = async () => viewer((await createUser()).id);
const entriesOf = (listId: number) =>
  db.select().from(booklistEntries).where(eq(booklistEntries.booklistId, listId)).orderBy(booklistEntries.position);
const listsOf = (userId: string) => db.select().from(booklists).where(eq(booklists.userId, userId));
const titles = (page: { entries: { work: { title: string } }[] }) => page.entries.map((e) => e.work.title);

let author: V;
let open: number[];
beforeAll(async () => {
  const operator = await createAdmin({ role: "operator" });
  await addScreeningWord(actorOf(operator), { word: "书单禁止词", category: "其他", level: "forbid" });
  await addScreeningWord(actorOf(operator), { word: "书单待审词", category: "广告", level: "review" });
  await addScreeningWord(actorOf(operator), { word: "书单替换词", category: "其他", level: "replace" });
  await reloadScreening();
  author = await reader();
  open = await insertWorks([
    { userId: author.id, title: "书单公开甲" },
    { userId: author.id, title: "书单公开乙" },
    { userId: author.id, title: "书单公开丙", visibility: "public-vip" },
  ]);
});

describe(`a reader's 书单 (${databaseKind})`, () => {
  it("creates a list, adds works with notes, edits a note, reorders, removes, and deletes it", async () => {
    const me = await reader();
    const { id } = await createBooklist(me, { title: "  通宵必读  ", description: "熬夜看完的书。" });
    const [a, b, c] = open;
    await addToBooklist(me, a, { list: String(id), title: "", note: "开头就抓人" });
    await addToBooklist(me, b, { list: String(id), title: "", note: "" });
    await addToBooklist(me, c, { list: String(id), title: "", note: "值得买" });

    const visitorPage = await getBooklistPage(id, null, 1);
    expect(visitorPage.list.title).toBe("通宵必读");
    expect(visitorPage.list.works).toBe(3);
    expect(titles(visitorPage)).toEqual(["书单公开甲", "书单公开乙", "书单公开丙"]);
    expect(visitorPage.entries.map((e) => e.note)).toEqual(["开头就抓人", "", "值得买"]);
    expect(visitorPage.isOwner).toBe(false);

    await setEntryNote(me, id, b, "后劲很足");
    await moveEntry(me, id, c, "top");
    await moveEntry(me, id, a, "down");
    expect((await entriesOf(id)).map((e) => [e.workId, e.note])).toEqual([
      [c, "值得买"],
      [b, "后劲很足"],
      [a, "开头就抓人"],
    ]);
    await moveEntry(me, id, c, "up"); // already first: nothing moves
    await removeEntry(me, id, b);
    expect((await entriesOf(id)).map((e) => e.workId)).toEqual([c, a]);

    await updateBooklist(me, id, { title: "改名后的书单", description: "" });
    expect((await getBooklistPage(id, me, 1)).list.title).toBe("改名后的书单");

    const unconfirmed = await domainError(deleteBooklist(me, id, false));
    expect([unconfirmed.status, unconfirmed.message]).toEqual([400, BOOKLIST_MESSAGES.confirmDelete]);
    expect(await deleteBooklist(me, id, true)).toBe("改名后的书单");
    expect(await listsOf(me.id)).toEqual([]);
    expect(await entriesOf(id)).toEqual([]);
    expect((await domainError(getBooklistPage(id, null, 1))).status).toBe(404);
  });

  it("adds to a new list in one step, and a refused entry leaves no new list behind", async () => {
    const me = await reader();
    const added = await addToBooklist(me, open[0], { list: "new", title: "新书单", note: "一句推荐" });
    expect(added).toMatchObject({ title: "新书单", workTitle: "书单公开甲" });
    expect((await entriesOf(added.listId)).map((e) => e.note)).toEqual(["一句推荐"]);

    const [privateWork] = await insertWorks([{ userId: author.id, title: "书单私密", visibility: "private" }]);
    const hidden = await domainError(addToBooklist(me, privateWork, { list: "new", title: "不该出现", note: "" }));
    expect([hidden.status, hidden.message]).toEqual([404, BOOKLIST_MESSAGES.workHidden]);
    const missing = await domainError(addToBooklist(me, 999_999_999, { list: "new", title: "也不该出现", note: "" }));
    expect(missing.message).toBe(BOOKLIST_MESSAGES.workHidden);
    expect((await listsOf(me.id)).map((l) => l.title)).toEqual(["新书单"]);

    const empty = await domainError(addToBooklist(me, open[1], { list: "new", title: "   ", note: "" }));
    expect([empty.status, empty.message, empty.field]).toEqual([400, BOOKLIST_MESSAGES.titleEmpty, "title"]);
    const none = await domainError(addToBooklist(me, open[1], { list: undefined, title: "", note: "" }));
    expect(none.message).toBe(BOOKLIST_MESSAGES.chooseList);
    const longNote = await domainError(addToBooklist(me, open[1], { list: String(added.listId), title: "", note: "字".repeat(201) }));
    expect(longNote.message).toBe(BOOKLIST_MESSAGES.noteTooLong);
    expect(await entriesOf(added.listId)).toHaveLength(1);
  });

  it("refuses a duplicate entry, even two sent at once", async () => {
    const me = await reader();
    const { id } = await createBooklist(me, { title: "重复测试", description: "" });
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => addToBooklist(me, open[0], { list: String(id), title: "", note: "" })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === "rejected")) {
      expect([r.reason.status, r.reason.message]).toEqual([409, BOOKLIST_MESSAGES.duplicate]);
    }
    expect(await entriesOf(id)).toHaveLength(1);
  });

  it(`refuses an entry past ${BOOKLIST_MAX_ENTRIES} (a 书单 of 10,000 entries cannot be made) and a list past ${BOOKLIST_MAX_PER_USER}`, async () => {
    const me = await reader();
    const { id } = await createBooklist(me, { title: "满了的书单", description: "" });
    const many = await insertWorks(Array.from({ length: BOOKLIST_MAX_ENTRIES + 1 }, (_, i) => ({ userId: author.id, title: `批量作品${i}` })));
    await db.insert(booklistEntries).values(many.slice(0, BOOKLIST_MAX_ENTRIES - 1).map((workId, i) => ({ booklistId: id, workId, position: i + 1 })));
    await addToBooklist(me, many[BOOKLIST_MAX_ENTRIES - 1], { list: String(id), title: "", note: "" });
    const full = await domainError(addToBooklist(me, many[BOOKLIST_MAX_ENTRIES], { list: String(id), title: "", note: "" }));
    expect([full.status, full.message]).toEqual([400, BOOKLIST_MESSAGES.full]);
    expect(full.message).toContain(`最多收录 ${BOOKLIST_MAX_ENTRIES} 部`);
    expect(await entriesOf(id)).toHaveLength(BOOKLIST_MAX_ENTRIES);
    // Entries come one at a time: a list can never reach 10,000.
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(booklistEntries).where(eq(booklistEntries.booklistId, id));
    expect(Number(n)).toBe(BOOKLIST_MAX_ENTRIES);

    const other = await reader();
    await db.insert(booklists).values(Array.from({ length: BOOKLIST_MAX_PER_USER }, (_, i) => ({ userId: other.id, title: `书单${i}` })));
    const tooMany = await domainError(createBooklist(other, { title: "又一个", description: "" }));
    expect([tooMany.status, tooMany.message]).toEqual([400, BOOKLIST_MESSAGES.tooManyLists]);
    const tooManyNew = await domainError(addToBooklist(other, open[0], { list: "new", title: "又一个", note: "" }));
    expect(tooManyNew.message).toBe(BOOKLIST_MESSAGES.tooManyLists);
    expect(await listsOf(other.id)).toHaveLength(BOOKLIST_MAX_PER_USER);
  });

  it("lets nobody else change a list: 403 for another's, 404 for none", async () => {
    const me = await reader();
    const stranger = await reader();
    const { id } = await createBooklist(me, { title: "别人的书单", description: "" });
    await addToBooklist(me, open[0], { list: String(id), title: "", note: "原来的推荐语" });
    for (const attempt of [
      () => addToBooklist(stranger, open[1], { list: String(id), title: "", note: "" }),
      () => setEntryNote(stranger, id, open[0], "改掉"),
      () => removeEntry(stranger, id, open[0]),
      () => moveEntry(stranger, id, open[0], "top"),
      () => updateBooklist(stranger, id, { title: "抢来的", description: "" }),
      () => deleteBooklist(stranger, id, true),
    ]) {
      const refused = await domainError(attempt());
      expect([refused.status, refused.message]).toEqual([403, BOOKLIST_MESSAGES.notOwner]);
    }
    expect((await domainError(setEntryNote(me, 999_999_999, open[0], "x"))).status).toBe(404);
    expect((await domainError(setEntryNote(me, id, open[1], "x"))).message).toBe(BOOKLIST_MESSAGES.noEntry);
    expect((await entriesOf(id)).map((e) => e.note)).toEqual(["原来的推荐语"]);
    expect((await listsOf(me.id)).map((l) => l.title)).toEqual(["别人的书单"]);

    // Through the edit page: another reader gets 403, the owner the page.
    const edit = await import("~/routes/shell/library/booklist-edit");
    const path = `/booklists/${id}/edit`;
    expect((await callLoader(edit, userRequest(await sessionCookieFor(stranger.id), path))).status).toBe(403);
    const posted = await callAction(edit, userRequest(await sessionCookieFor(stranger.id), path, { intent: "note", work: String(open[0]), note: "改掉" }));
    expect([posted.status, (posted.data as { error: string }).error]).toEqual([403, BOOKLIST_MESSAGES.notOwner]);
    const own = await callLoader(edit, userRequest(await sessionCookieFor(me.id), path));
    expect(own.status).toBe(200);
    expect((own.data as { entries: { note: string }[] }).entries.map((e) => e.note)).toEqual(["原来的推荐语"]);
  });

  it("screens titles, descriptions and notes: 禁止 refused naming the word, 审核 refused, 替换 masked where shown", async () => {
    const me = await reader();
    const forbidden = await domainError(createBooklist(me, { title: "含书单禁止词", description: "" }));
    expect([forbidden.status, forbidden.message.includes("「书单禁止词」"), forbidden.field]).toEqual([400, true, "title"]);
    const held = await domainError(createBooklist(me, { title: "正常", description: "书单待审词" }));
    expect(held.message).toBe(BOOKLIST_MESSAGES.held);
    const { id } = await createBooklist(me, { title: "有书单替换词的书单", description: "" });
    const note = await domainError(addToBooklist(me, open[0], { list: String(id), title: "", note: "书单禁止词" }));
    expect(note.field).toBe("note");
    await addToBooklist(me, open[0], { list: String(id), title: "", note: "推荐书单替换词" });
    const shown = await getBooklistPage(id, null, 1);
    expect(shown.list.title).not.toContain("书单替换词");
    expect(shown.list.title).toContain("＊");
    expect(shown.entries[0].note).not.toContain("书单替换词");
    // The owner edits their own words.
    const edit = await import("~/routes/shell/library/booklist-edit");
    const own = await callLoader(edit, userRequest(await sessionCookieFor(me.id), `/booklists/${id}/edit`));
    expect((own.data as { title: string }).title).toBe("有书单替换词的书单");
  });
});

describe(`what a list shows (${databaseKind})`, () => {
  it("leaves out works a viewer may not see, as every listing does", async () => {
    const me = await reader();
    await setViewerPrefs(me.id, { showR18: true });
    const owner = viewer(me.id, { showR18: true });
    const [r18, ai, later] = await insertWorks([
      { userId: author.id, title: "书单成人" , rating: "r18" },
      { userId: author.id, title: "书单AI", isAiGenerated: true },
      { userId: author.id, title: "书单将下架" },
    ]);
    const { id } = await createBooklist(owner, { title: "混合书单", description: "" });
    for (const w of [open[0], r18, ai, later]) await addToBooklist(owner, w, { list: String(id), title: "", note: "" });
    // Taken private after being listed (as a takedown or a held edit makes it).
    await db.update(works).set({ visibility: "private" }).where(eq(works.id, later));

    expect(titles(await getBooklistPage(id, null, 1))).toEqual(["书单公开甲", "书单AI"]);
    const noAi = await reader();
    expect(titles(await getBooklistPage(id, viewer(noAi.id, { showAi: false }), 1))).toEqual(["书单公开甲"]);
    const ownerPage = await getBooklistPage(id, owner, 1);
    expect(titles(ownerPage)).toEqual(["书单公开甲", "书单成人", "书单AI"]);
    expect(ownerPage.hiddenCount).toBe(1);
    // The owner's edit page keeps every entry and marks the one readers cannot see.
    const editable = await getBooklistForEdit(owner, id);
    expect(editable.entries.map((entry) => [entry.title, entry.listed])).toEqual([
      ["书单公开甲", true],
      ["书单成人", true],
      ["书单AI", true],
      ["书单将下架", false],
    ]);
    expect((await getBooklistPage(id, null, 1)).list.works).toBe(2);

    // A visitor may not add an R-18 work they cannot see.
    const other = await reader();
    const refused = await domainError(addToBooklist(other, r18, { list: "new", title: "试试", note: "" }));
    expect(refused.message).toBe(BOOKLIST_MESSAGES.workHidden);
    expect(await listsOf(other.id)).toEqual([]);
  });

  it("counts followers, orders /booklists by them and by newest, and shows a person's lists on their page", async () => {
    const owner = await reader();
    const { id: first } = await createBooklist(owner, { title: "热门书单甲", description: "" });
    const { id: second } = await createBooklist(owner, { title: "热门书单乙", description: "" });
    const { id: empty } = await createBooklist(owner, { title: "空书单", description: "" });
    await addToBooklist(owner, open[0], { list: String(first), title: "", note: "" });
    await addToBooklist(owner, open[1], { list: String(second), title: "", note: "" });
    const fans = await Promise.all(Array.from({ length: 3 }, reader));
    for (const fan of fans) await setBooklistFollow(fan, second, true);
    await setBooklistFollow(fans[0], second, true); // twice counts once
    await setBooklistFollow(fans[1], first, true);
    await setBooklistFollow(fans[1], first, false);
    await setBooklistFollow(fans[1], first, false);
    const self = await domainError(setBooklistFollow(owner, first, true));
    expect([self.status, self.message]).toEqual([400, BOOKLIST_MESSAGES.self]);
    expect((await domainError(setBooklistFollow(fans[0], 999_999_999, true))).status).toBe(404);

    const secondPage = await getBooklistPage(second, fans[0], 1);
    expect([secondPage.list.followers, secondPage.following]).toEqual([3, true]);
    expect((await getBooklistPage(first, fans[1], 1)).list.followers).toBe(0);

    const popular = await listBooklists(null, "popular", 1);
    const ids = popular.lists.map((l) => l.id);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    expect(ids).not.toContain(empty);
    const newest = await listBooklists(null, "new", 1);
    expect(newest.lists.findIndex((l) => l.id === second)).toBeLessThan(newest.lists.findIndex((l) => l.id === first));

    const page = await getAuthorPage(owner.id, null, 1);
    expect(page.booklists.map((l) => l.title)).toEqual(["热门书单乙", "热门书单甲"]);

    // A banned owner's lists leave /booklists, their page and the list's address (404), but not their own view.
    await db.update(users).set({ bannedAt: new Date(), banReason: "测试封禁" }).where(eq(users.id, owner.id));
    expect((await listBooklists(null, "popular", 1)).lists.map((l) => l.id)).not.toContain(second);
    expect((await getAuthorPage(owner.id, null, 1)).booklists).toEqual([]);
    expect((await domainError(getBooklistPage(second, fans[0], 1))).status).toBe(404);
    expect((await getBooklistPage(second, owner, 1)).list.title).toBe("热门书单乙");
    await db.update(users).set({ bannedAt: null, banReason: null }).where(eq(users.id, owner.id));
  });
});

describe(`the pages (${databaseKind})`, () => {
  it("加入书单 from the work page: a new list with a note, shown to a visitor; bad input is answered on the form", async () => {
    const me = await reader();
    const cookie = await sessionCookieFor(me.id);
    const add = await import("~/routes/shell/reader/add-to-booklist");
    const path = `/works/${open[2]}/booklist`;
    const page = await callLoader(add, userRequest(cookie, path));
    expect(page.status).toBe(200);
    const { formToken } = page.data as { formToken: string };
    const fields = { list: "new", title: "页面新建的书单", note: "从作品页加入", formToken };
    const first = await callAction(add, userRequest(cookie, path, fields));
    expect(first.status).toBe(302);
    expect(first.location).toMatch(/^\/booklists\/\d+$/);
    // The same form again (a double click): the same list, no second.
    const again = await callAction(add, userRequest(cookie, path, fields));
    expect(again.location).toBe(first.location);
    expect((await listsOf(me.id)).map((l) => l.title)).toEqual(["页面新建的书单"]);

    const listPage = await import("~/routes/public/booklist");
    const shown = await callLoader(listPage, new Request(`http://localhost${first.location}`));
    const data = shown.data as { list: { title: string; owner: { id: string } }; entries: { work: { title: string }; note: string }[] };
    expect(data.list.title).toBe("页面新建的书单");
    expect(data.entries.map((e) => [e.work.title, e.note])).toEqual([["书单公开丙", "从作品页加入"]]);

    const duplicate = await callAction(add, userRequest(cookie, path, { list: first.location!.split("/").pop()!, title: "", note: "" }));
    expect([duplicate.status, (duplicate.data as { error: string }).error]).toEqual([409, BOOKLIST_MESSAGES.duplicate]);
    const noTitle = await callAction(add, userRequest(cookie, `/works/${open[0]}/booklist`, { list: "new", title: "", note: "推荐语留着" }));
    expect([noTitle.status, (noTitle.data as { error: string; note: string }).error, (noTitle.data as { note: string }).note]).toEqual([400, BOOKLIST_MESSAGES.titleEmpty, "推荐语留着"]);
    const hidden = await callLoader(add, userRequest(cookie, "/works/999999999/booklist"));
    expect(hidden.status).toBe(404);

    // 关注书单 without JavaScript: POST, redirect back; the visitor is sent to log in.
    const fan = await reader();
    const follow = await callAction(listPage, userRequest(await sessionCookieFor(fan.id), first.location!, { intent: "follow", on: "1" }));
    expect([follow.status, follow.location]).toEqual([302, first.location]);
    const visitor = await callAction(listPage, new Request(`http://localhost${first.location}`, { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ intent: "follow", on: "1" }) }));
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain("auth=login");
    const index = await import("~/routes/public/booklists");
    const listed = await callLoader(index, new Request("http://localhost/booklists?sort=new"));
    const newest = (listed.data as { lists: { title: string; followers: number }[] }).lists;
    expect(newest.find((l) => l.title === "页面新建的书单")?.followers).toBe(1);
  });
});
