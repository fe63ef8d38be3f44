import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, announcementReads, announcements, curatedRows, curatedRowWorks, rankingRemovals, reviewItems, users, works, workStats } from "~/db/schema";
import { claimItem, decideItem } from "~/server/admin/review-queue.server";
import { publishWork } from "~/server/studio/work-create.server";
import { takeDownWork } from "~/server/admin/works-moderation.server";
import { rankingBoard, sharedHomeRows } from "~/server/catalog/rankings.server";
import { clearPublicCache } from "~/server/platform/public-cache.server";
import { filingInfo } from "~/utils/filing";
import { toShanghaiInput } from "~/utils/shanghai-time";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { captureQueries } from "../../bench/lib-db";
import { curatedHomeRows, currentAnnouncements } from "~/server/catalog/front-page.server";
import { getSessionUser } from "~/server/identity/session.server";
import { sendAdminMessage } from "~/server/community/notifications.server";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, firstError, request } from "./admin-fixtures";

/**
 * The operator's front page (docs/product.md#front-page, docs/decisions/198): 编辑推荐 rows,
 * 排行管理, 公告 and the 备案 numbers, through the routes as a browser posts them (behind
 * the admin layout's guard), and what readers then see on the home page and in the inbox.
 */

let operator: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;
let author: { id: string };

beforeAll(async () => {
  operator = await createAdmin({ role: "operator" });
  cookie = await adminCookieFor(operator.id);
  author = await createUser();
});

const routes = {
  rows: () => import("~/routes/admin/front-page/rows"),
  row: () => import("~/routes/admin/front-page/row"),
  rankings: () => import("~/routes/admin/front-page/rankings"),
  announcements: () => import("~/routes/admin/front-page/announcements"),
  home: () => import("~/routes/public/index"),
  inbox: () => import("~/routes/shell/notifications/inbox"),
  site: () => import("~/routes/admin/settings/site"),
  layout: () => import("~/routes/shell/layout"),
};

async function createRow(name: string): Promise<number> {
  const r = await callAction(await routes.rows(), request("/admin/front-page", { cookie }, { intent: "create", name }));
  expect(r.status).toBe(302);
  return Number(/\/admin\/front-page\/(\d+)/.exec(r.location ?? "")![1]);
}

async function rowAction(rowId: number, fields: Record<string, string>) {
  return callAction(await routes.row(), request(`/admin/front-page/${rowId}`, { cookie }, fields), { id: String(rowId) });
}

async function rowWorks(rowId: number): Promise<number[]> {
  const rows = await db.select({ workId: curatedRowWorks.workId }).from(curatedRowWorks).where(eq(curatedRowWorks.rowId, rowId)).orderBy(curatedRowWorks.position, curatedRowWorks.workId);
  return rows.map((r) => r.workId);
}

async function auditCount(): Promise<number> {
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(adminAuditLog);
  return n;
}

/** The home page as a visitor (or the reader with `cookie`) gets it. */
async function home(readerCookie?: string) {
  clearPublicCache();
  const req = readerCookie ? userRequest(readerCookie, "/") : new Request("http://localhost/");
  return (await callLoader(await routes.home(), req)).data as {
    curated: { id: number; name: string; works: { id: number }[] }[];
    announcements: { id: number; title: string }[];
    signedIn: boolean;
  };
}

const hour = 3_600_000;

describe(`编辑推荐 rows (${databaseKind})`, () => {
  it("an operator makes a row, adds, orders and schedules works; the home page shows what readers may see, in order", async () => {
    const tag = `推荐${Date.now().toString(36)}`;
    const [a, b, hidden, r18, later, ended] = await insertWorks([
      { userId: author.id, title: `${tag}甲` },
      { userId: author.id, title: `${tag}乙`, visibility: "public-vip", price: 5 },
      { userId: author.id, title: `${tag}私密`, visibility: "private" },
      { userId: author.id, title: `${tag}R18`, rating: "r18" },
      { userId: author.id, title: `${tag}未开始` },
      { userId: author.id, title: `${tag}已结束` },
    ]);
    const rowId = await createRow(`  ${tag}  `);
    const [row] = await db.select().from(curatedRows).where(eq(curatedRows.id, rowId));
    expect(row.name).toBe(tag);
    for (const id of [a, b, hidden, r18]) expect((await rowAction(rowId, { intent: "add", workId: String(id) })).status).toBe(302);
    const now = Date.now();
    expect((await rowAction(rowId, { intent: "add", workId: String(later), startsAt: toShanghaiInput(new Date(now + 2 * hour)) })).status).toBe(302);
    expect(
      (await rowAction(rowId, { intent: "add", workId: String(ended), startsAt: toShanghaiInput(new Date(now - 3 * hour)), endsAt: toShanghaiInput(new Date(now - hour)) }))
        .status,
    ).toBe(302);
    // b before a.
    expect((await rowAction(rowId, { intent: "up", workId: String(b) })).status).toBe(302);
    expect(await rowWorks(rowId)).toEqual([b, a, hidden, r18, later, ended]);

    const shown = (await home()).curated.find((r) => r.id === rowId);
    expect(shown?.name).toBe(tag);
    expect(shown?.works.map((w) => w.id)).toEqual([b, a]);
    // A reader who shows R-18 sees that one too.
    const reader = await createUser();
    await db.execute(sql`update profiles set show_r18 = true where id = ${reader.id}`);
    expect((await home(await sessionCookieFor(reader.id))).curated.find((r) => r.id === rowId)?.works.map((w) => w.id)).toEqual([b, a, r18]);

    // A work taken down leaves the row at once; the start moved to the past shows `later`.
    await takeDownWork(actorOf(operator), a, "违规");
    expect((await rowAction(rowId, { intent: "schedule", workId: String(later), startsAt: toShanghaiInput(new Date(now - hour)) })).status).toBe(302);
    expect((await home()).curated.find((r) => r.id === rowId)?.works.map((w) => w.id)).toEqual([b, later]);

    // The page lists the works with their state; the title search finds one to add.
    const page = await callLoader(await routes.row(), request(`/admin/front-page/${rowId}?q=${encodeURIComponent(`${tag}甲`)}`, { cookie }), { id: String(rowId) });
    expect(page.data.items.map((i: { workId: number }) => i.workId)).toEqual([b, a, hidden, r18, later, ended]);
    expect(page.data.found.map((w: { id: number }) => w.id)).toEqual([a]);

    // Removing a work and deleting the row, each audited.
    expect((await rowAction(rowId, { intent: "remove", workId: String(hidden) })).status).toBe(302);
    expect(await rowWorks(rowId)).not.toContain(hidden);
    const logged = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.targetType, "curated-row"), eq(adminAuditLog.targetId, String(rowId))));
    expect(logged.map((l) => l.action)).toEqual(expect.arrayContaining(["curated-row.create", "curated-row.add-work", "curated-row.work-up", "curated-row.schedule", "curated-row.remove-work"]));
    expect(logged.every((l) => l.adminEmail === operator.email)).toBe(true);
    const del = await callAction(await routes.rows(), request("/admin/front-page", { cookie }, { intent: "delete", id: String(rowId) }));
    expect(del.status).toBe(302);
    expect(await rowWorks(rowId)).toEqual([]);
    expect((await home()).curated.find((r) => r.id === rowId)).toBeUndefined();
  });

  it("refuses bad input with a Chinese message and changes nothing", async () => {
    const [a, b] = await insertWorks([
      { userId: author.id, title: "坏输入甲" },
      { userId: author.id, title: "坏输入乙" },
    ]);
    const rowId = await createRow("坏输入");
    await rowAction(rowId, { intent: "add", workId: String(a) });
    await rowAction(rowId, { intent: "add", workId: String(b) });
    const before = { works: await rowWorks(rowId), audit: await auditCount() };
    const unchanged = async () => {
      expect(await rowWorks(rowId)).toEqual(before.works);
      expect(await auditCount()).toBe(before.audit);
    };

    const emptyName = await callAction(await routes.rows(), request("/admin/front-page", { cookie }, { intent: "create", name: "   " }));
    expect(emptyName.status).toBe(400);
    expect(firstError(emptyName.data)).toBe("请输入推荐位名称");
    const emptyRename = await callAction(await routes.rows(), request("/admin/front-page", { cookie }, { intent: "rename", id: String(rowId), name: "" }));
    expect(firstError(emptyRename.data)).toBe("请输入推荐位名称");

    const cases: [Record<string, string>, number, string][] = [
      [{ intent: "add", workId: "999999999" }, 404, "作品不存在"],
      [{ intent: "add", workId: "abc" }, 400, "请输入作品编号（数字）"],
      [{ intent: "add", workId: String(a) }, 409, "该作品已在这个推荐位中"],
      [{ intent: "add", workId: String(a), startsAt: "2026-12-02T10:00", endsAt: "2026-12-01T10:00" }, 400, "结束时间必须晚于开始时间"],
      [{ intent: "schedule", workId: String(a), startsAt: "2026-12-02T10:00", endsAt: "2026-12-02T10:00" }, 400, "结束时间必须晚于开始时间"],
      [{ intent: "schedule", workId: String(a), startsAt: "2026-02-30T10:00" }, 400, "时间格式不正确，请按“年-月-日 时:分”填写"],
      [{ intent: "up", workId: String(a) }, 400, "已经是第一个了"],
      [{ intent: "down", workId: String(b) }, 400, "已经是最后一个了"],
      [{ intent: "remove", workId: "999999999" }, 404, "该作品不在这个推荐位中"],
      [{ intent: "nonsense", workId: String(a) }, 400, ""],
    ];
    for (const [fields, status, message] of cases) {
      const r = await rowAction(rowId, fields);
      expect(r.status, JSON.stringify(fields)).toBe(status);
      if (message) expect(firstError(r.data)).toBe(message);
    }
    const [row] = await db.select({ startsAt: curatedRowWorks.startsAt }).from(curatedRowWorks).where(eq(curatedRowWorks.workId, a));
    expect(row.startsAt).toBeNull();
    // The first row cannot go up; an unknown row is 404 on its page and its forms.
    const rows = (await callLoader(await routes.rows(), request("/admin/front-page", { cookie }))).data.rows as { id: number }[];
    const first = await callAction(await routes.rows(), request("/admin/front-page", { cookie }, { intent: "up", id: String(rows[0].id) }));
    expect(firstError(first.data)).toBe("已经是第一个了");
    expect((await callLoader(await routes.row(), request("/admin/front-page/999999999", { cookie }), { id: "999999999" })).status).toBe(404);
    expect((await rowAction(999_999_999, { intent: "add", workId: String(a) })).status).toBe(404);
    await unchanged();
  });
});

describe(`the home page's budget (${databaseKind})`, () => {
  it("reads every curated row with its works in one query, and the announcements in one", async () => {
    const ids = await insertWorks(Array.from({ length: 6 }, (_, i) => ({ userId: author.id, title: `预算${i}` })));
    for (const n of [0, 1, 2]) {
      const rowId = await createRow(`预算行${n}`);
      for (const id of ids.slice(n * 2, n * 2 + 2)) await rowAction(rowId, { intent: "add", workId: String(id) });
    }
    clearPublicCache();
    const cold = await captureQueries(db, async () => {
      const rows = await curatedHomeRows(null);
      expect(rows.filter((r) => r.name.startsWith("预算行")).map((r) => r.works.length)).toEqual([2, 2, 2]);
      await currentAnnouncements();
    });
    // Tests run without the shared copy (PAGE_CACHE=0): these are the loads it keeps for 5 s.
    expect(cold).toHaveLength(2);
  });

  it("shows a row's first 12 current works on the home page, however many it holds", async () => {
    const ids = await insertWorks(Array.from({ length: 13 }, (_, i) => ({ userId: author.id, title: `十三部${i}` })));
    const rowId = await createRow("十三部");
    for (const id of ids) expect((await rowAction(rowId, { intent: "add", workId: String(id) })).status).toBe(302);
    expect((await home()).curated.find((r) => r.id === rowId)?.works.map((w) => w.id)).toEqual(ids.slice(0, 12));
  });
});

describe(`排行管理 (${databaseKind})`, () => {
  it("a removed work leaves every ranking and computed home row until it is put back; a taken-down work never shows", async () => {
    const [kept, removed, downed] = await insertWorks([
      { userId: author.id, title: "排行留下" },
      { userId: author.id, title: "排行移出" },
      { userId: author.id, title: "排行下架" },
    ]);
    await db.insert(workStats).values([kept, removed, downed].map((workId) => ({ workId, favorites: 1_000_000, hot7d: 1_000_000 })));
    const boardIds = async () => {
      clearPublicCache();
      const [board, shared] = await Promise.all([rankingBoard("favorites", null), sharedHomeRows(null)]);
      return { board: board.map((w) => w.id), hot: shared.hot.map((w) => w.id), newest: shared.newest.map((w) => w.id) };
    };
    let now = await boardIds();
    expect(now.board).toEqual(expect.arrayContaining([kept, removed, downed]));
    expect(now.hot).toEqual(expect.arrayContaining([kept, removed, downed]));

    const post = async (fields: Record<string, string>) => callAction(await routes.rankings(), request("/admin/rankings", { cookie }, fields));
    const audit = await auditCount();
    expect(firstError((await post({ intent: "remove", workId: String(removed), reason: " " })).data)).toBe("请填写移出排行的原因");
    expect(firstError((await post({ intent: "remove", workId: String(removed), reason: "长".repeat(201) })).data)).toBe("原因不能超过200个字");
    const unknown = await post({ intent: "remove", workId: "999999999", reason: "刷榜" });
    expect([unknown.status, firstError(unknown.data)]).toEqual([404, "作品不存在"]);
    expect(firstError((await post({ intent: "restore", workId: String(removed) })).data)).toBe("该作品未被移出排行");
    expect(await auditCount()).toBe(audit);

    expect((await post({ intent: "remove", workId: String(removed), reason: "刷榜" })).status).toBe(302);
    const twice = await post({ intent: "remove", workId: String(removed), reason: "刷榜" });
    expect([twice.status, firstError(twice.data)]).toEqual([409, "该作品已移出排行"]);
    now = await boardIds();
    expect(now.board).not.toContain(removed);
    expect(now.hot).not.toContain(removed);
    expect(now.newest).not.toContain(removed);
    expect(now.board).toContain(kept);
    const [log] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "ranking.remove"), eq(adminAuditLog.targetId, String(removed))));
    expect([log.reason, log.adminEmail]).toEqual(["刷榜", operator.email]);
    const list = await callLoader(await routes.rankings(), request("/admin/rankings", { cookie }));
    expect(list.data.removals.map((r: { workId: number }) => r.workId)).toContain(removed);

    // Taken down: out of the rankings without any removal.
    await takeDownWork(actorOf(operator), downed, "违规");
    now = await boardIds();
    expect(now.board).not.toContain(downed);
    expect(now.hot).not.toContain(downed);

    expect((await post({ intent: "restore", workId: String(removed) })).status).toBe(302);
    expect(await db.select().from(rankingRemovals).where(eq(rankingRemovals.workId, removed))).toEqual([]);
    now = await boardIds();
    expect(now.board).toContain(removed);
    expect(now.hot).toContain(removed);
  });
});

describe(`works under review (${databaseKind})`, () => {
  it("a work whose chapters all wait for review is in no ranking, computed row or 编辑推荐 row until one is out", async () => {
    const newcomer = await createUser();
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, newcomer.id));
    const txt = Buffer.from("####第一章\n待审的开头。\n");
    const created = await publishWork(newcomer.id, { description: "简介", rating: "all_ages", isAiGenerated: false, visibility: "public", title: "待审新书", type: "multi_chapter", status: "completed" } as never, {
      cover: null,
      txt: { name: "待审新书.txt", type: "text/plain", size: txt.length, chunks: [txt] },
    });
    await db.insert(workStats).values({ workId: created.id, favorites: 1_000_000, hot7d: 1_000_000 });
    const rowId = await createRow("待审推荐");
    expect((await rowAction(rowId, { intent: "add", workId: String(created.id) })).status).toBe(302);
    const shown = async () => {
      clearPublicCache();
      const [board, shared, curated] = await Promise.all([rankingBoard("favorites", null), sharedHomeRows(null), curatedHomeRows(null)]);
      return {
        board: board.some((w) => w.id === created.id),
        hot: shared.hot.some((w) => w.id === created.id),
        curated: curated.some((r) => r.works.some((w) => w.id === created.id)),
      };
    };
    expect(await shown()).toEqual({ board: false, hot: false, curated: false });

    const chief = await createAdmin({ role: "chief_editor" });
    const decide = async (kind: "release" | "work") => {
      const [item] = await db.select().from(reviewItems).where(and(eq(reviewItems.workId, created.id), eq(reviewItems.kind, kind)));
      await claimItem(actorOf(chief), "chief_editor", item.id);
      return decideItem(actorOf(chief), "chief_editor", item.id, "approve", "");
    };
    expect(await decide("release")).toBe("published");
    // Its title, description, cover and tags wait too (decision 214): still nowhere.
    expect(await shown()).toEqual({ board: false, hot: false, curated: false });
    expect(await decide("work")).toBe("work-approved");
    expect(await shown()).toEqual({ board: true, hot: true, curated: true });
  });
});

describe(`公告 (${databaseKind})`, () => {
  const announcementAction = async (fields: Record<string, string>) =>
    callAction(await routes.announcements(), request("/admin/announcements", { cookie }, fields));
  const byTitle = async (title: string) => db.select().from(announcements).where(eq(announcements.title, title));

  it("is on the home page and in every reader's inbox while current, read per reader, without a row per user", async () => {
    const title = `维护通知${Date.now().toString(36)}`;
    expect((await announcementAction({ intent: "create", title, body: "今晚十点维护\n约一小时" })).status).toBe(302);
    const future = `预告${Date.now().toString(36)}`;
    await announcementAction({ intent: "create", title: future, body: "明天", startsAt: toShanghaiInput(new Date(Date.now() + 24 * hour)) });
    const [created] = await byTitle(title);
    expect((await home()).announcements.map((a) => a.title)).toContain(title);
    expect((await home()).announcements.map((a) => a.title)).not.toContain(future);

    const [reader, other] = [await createUser(), await createUser()];
    const readerCookie = await sessionCookieFor(reader.id);
    const inbox = async (c: string) =>
      ((await callLoader(await routes.inbox(), userRequest(c, "/notifications"))).data as { announcements: { id: number; unread: boolean }[] }).announcements;
    expect((await inbox(readerCookie)).find((a) => a.id === created.id)?.unread).toBe(true);
    expect(await db.select().from(announcementReads).where(eq(announcementReads.announcementId, created.id))).toEqual([]);
    // The bell counts unread 公告 with the notifications (a new reader has no notifications).
    const bell = async (c: string) => (await getSessionUser(userRequest(c, "/")))!.unread;
    const unreadAnnouncements = (await inbox(readerCookie)).filter((a) => a.unread).length;
    expect(unreadAnnouncements).toBeGreaterThan(0);
    expect(await bell(readerCookie)).toBe(unreadAnnouncements);

    const read = await callAction(await routes.inbox(), userRequest(readerCookie, "/notifications", { intent: "read-announcement", id: String(created.id) }));
    expect(read.status).toBe(302);
    expect((await inbox(readerCookie)).find((a) => a.id === created.id)?.unread).toBe(false);
    expect(await bell(readerCookie)).toBe(unreadAnnouncements - 1);
    const otherCookie = await sessionCookieFor(other.id);
    expect((await inbox(otherCookie)).find((a) => a.id === created.id)?.unread).toBe(true);
    // 全部已读 marks the current 公告 read too: the bell is empty.
    await sendAdminMessage(other.id, "一条通知");
    expect(await bell(otherCookie)).toBe(unreadAnnouncements + 1);
    expect((await callAction(await routes.inbox(), userRequest(otherCookie, "/notifications", { intent: "read-all" }))).status).toBe(302);
    expect(await bell(otherCookie)).toBe(0);
    expect((await inbox(otherCookie)).every((a) => !a.unread)).toBe(true);
    const bogus = await callAction(await routes.inbox(), userRequest(readerCookie, "/notifications", { intent: "read-announcement", id: "999999999" }));
    expect(bogus.status).toBe(404);

    // 立即结束: gone from the home page and the inbox.
    expect((await announcementAction({ intent: "end", id: String(created.id) })).status).toBe(302);
    expect((await home()).announcements.map((a) => a.title)).not.toContain(title);
    expect((await inbox(readerCookie)).find((a) => a.id === created.id)).toBeUndefined();
    const again = await announcementAction({ intent: "end", id: String(created.id) });
    expect([again.status, firstError(again.data)]).toEqual([409, "该公告已经结束"]);
    const actions = (await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.targetType, "announcement"), eq(adminAuditLog.targetId, String(created.id))))).map(
      (l) => l.action,
    );
    expect(actions).toEqual(["announcement.create", "announcement.end"]);
  });

  it("refuses an empty title, a 10,000-character body and an end before the start, and changes nothing", async () => {
    const [before] = await db.select({ n: sql<number>`count(*)::int` }).from(announcements);
    const audit = await auditCount();
    const cases: [Record<string, string>, string][] = [
      [{ intent: "create", title: "", body: "内容" }, "请输入公告标题"],
      [{ intent: "create", title: "标题", body: "   " }, "请输入公告内容"],
      [{ intent: "create", title: "标题", body: "字".repeat(10_000) }, "公告内容不能超过5000个字"],
      [{ intent: "create", title: "标题", body: "内容", startsAt: "2026-12-02T10:00", endsAt: "2026-12-01T10:00" }, "结束时间必须晚于开始时间"],
      [{ intent: "create", title: "标题", body: "内容", endsAt: "2020-01-01T10:00" }, "结束时间必须晚于现在"],
      [{ intent: "update", id: "999999999", title: "标题", body: "内容" }, "公告不存在或已结束"],
    ];
    for (const [fields, message] of cases) {
      const r = await announcementAction(fields);
      expect(r.status, message).toBeGreaterThanOrEqual(400);
      expect(firstError(r.data)).toBe(message);
    }
    const [after] = await db.select({ n: sql<number>`count(*)::int` }).from(announcements);
    expect(after.n).toBe(before.n);
    expect(await auditCount()).toBe(audit);

    // An edit keeps what it was given, and its end before the start is refused.
    const title = `可编辑${Date.now().toString(36)}`;
    await announcementAction({ intent: "create", title, body: "原文" });
    const [row] = await byTitle(title);
    const bad = await announcementAction({ intent: "update", id: String(row.id), title, body: "新", endsAt: toShanghaiInput(new Date(row.startsAt.getTime() - hour)) });
    expect(firstError(bad.data)).toBe("结束时间必须晚于开始时间");
    expect((await byTitle(title))[0].body).toBe("原文");
    expect((await announcementAction({ intent: "update", id: String(row.id), title, body: "新内容" })).status).toBe(302);
    expect((await byTitle(title))[0].body).toBe("新内容");
    expect((await announcementAction({ intent: "delete", id: String(row.id) })).status).toBe(302);
    expect(await byTitle(title)).toEqual([]);
  });

  it("refuses a 公告 with a 禁止 word, naming it, and changes nothing", async () => {
    const screening = await import("~/routes/admin/screening");
    const added = await callAction(screening, request("/admin/screening", { cookie }, { intent: "add", word: "公告禁词", category: "其他", level: "forbid" }));
    expect(added.status).toBe(302);
    const [before] = await db.select({ n: sql<number>`count(*)::int` }).from(announcements);
    const refused = await announcementAction({ intent: "create", title: "维护", body: "内容里有 公 告 禁 词" });
    expect([refused.status, firstError(refused.data)]).toEqual([400, expect.stringContaining("公告禁词")]);
    const [after] = await db.select({ n: sql<number>`count(*)::int` }).from(announcements);
    expect(after.n).toBe(before.n);
  });
});

describe(`备案信息 (${databaseKind})`, () => {
  it("a super admin sets the ICP and 公安 numbers; every page's footer shows them with the 公安 link; empty shows nothing", async () => {
    const superAdmin = await createAdmin();
    const superCookie = await adminCookieFor(superAdmin.id);
    const post = async (who: string, fields: Record<string, string>) => callAction(await routes.site(), request("/admin/settings/site", { cookie: who }, fields));
    // A 运营 admin: 403, as for every super-only page.
    expect((await post(cookie, { intent: "filing", icp: "京ICP备1号" })).status).toBe(403);
    const noDigits = await post(superCookie, { intent: "filing", icp: "", police: "京公网安备号" });
    expect([noDigits.status, firstError(noDigits.data.filing)]).toEqual([400, "公安联网备案号应包含备案编号中的数字"]);
    const tooLong = await post(superCookie, { intent: "filing", icp: "京".repeat(51), police: "" });
    expect(firstError(tooLong.data.filing)).toBe("ICP备案号不能超过50个字");

    expect((await post(superCookie, { intent: "filing", icp: " 京ICP备12345678号-1 ", police: "京公网安备11010502000001号" })).status).toBe(302);
    const shell = async () => (await callLoader(await routes.layout(), new Request("http://localhost/works"))).data as { filing: ReturnType<typeof filingInfo> };
    expect((await shell()).filing).toEqual({
      icp: "京ICP备12345678号-1",
      police: "京公网安备11010502000001号",
      policeHref: "https://beian.mps.gov.cn/#/query/webSearch?code=11010502000001",
    });
    const [log] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "settings.filing"));
    expect(log.after).toMatchObject({ icp_number: "京ICP备12345678号-1" });
    // The title form on the same page still saves alone.
    expect((await post(superCookie, { title: "砚台" })).status).toBe(302);

    expect((await post(superCookie, { intent: "filing", icp: "", police: "" })).status).toBe(302);
    expect((await shell()).filing).toEqual({ icp: "", police: "", policeHref: "" });
  });
});

describe(`who may use the front page's pages (${databaseKind})`, () => {
  it("operators and super admins open and post; a visitor and a signed-in reader get the admin login (401 for a post)", async () => {
    const reader = await createUser();
    const readerCookie = await sessionCookieFor(reader.id);
    const superCookie = await adminCookieFor((await createAdmin()).id);
    const rowId = await createRow("权限");
    const pages: [() => Promise<Parameters<typeof callLoader>[0]>, string, Record<string, string>][] = [
      [routes.rows, "/admin/front-page", {}],
      [routes.row, `/admin/front-page/${rowId}`, { id: String(rowId) }],
      [routes.rankings, "/admin/rankings", {}],
      [routes.announcements, "/admin/announcements", {}],
    ];
    for (const [mod, path, params] of pages) {
      for (const who of [cookie, superCookie]) expect((await callLoader(await mod(), request(path, { cookie: who }), params)).status, path).toBe(200);
      for (const who of [undefined, readerCookie]) {
        const loaded = await callLoader(await mod(), request(path, { cookie: who }), params);
        expect(loaded.status, path).toBe(302);
        expect(loaded.location).toContain("/xbbadmin");
        const posted = await callAction(await mod(), request(path, { cookie: who }, { intent: "create", name: "越权", title: "越权", body: "越权" }), params);
        // A write without an admin session: 401, nothing done (the admin layout's guard).
        expect(posted.status, path).toBe(401);
      }
    }
    expect(await db.select().from(curatedRows).where(eq(curatedRows.name, "越权"))).toEqual([]);
    expect(await db.select().from(announcements).where(eq(announcements.title, "越权"))).toEqual([]);
    expect(await db.select().from(works).where(eq(works.title, "越权"))).toEqual([]);
  });
});
