import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import {
  adminApiTokens,
  booklistEntries,
  booklists,
  announcements,
  curatedRows,
  apiConfigs,
  chapterComments,
  chapters,
  creditTransactions,
  notifications,
  paymentOrders,
  payoutRequests,
  plotThreads,
  prompts,
  readerOpdsTokens,
  redeemCodes,
  storyEntities,
  storyFacts,
  tokenTransactions,
  voicePassages,
  volumes,
  works,
  workTips,
  workVotes,
} from "~/db/schema";
import { addMonthlySpend } from "~/server/community/votes.server";
import { purchaseChapter, setWorkPricing } from "~/server/economy/chapter-sales.server";
import { saveEntity } from "~/server/studio/bible.server";
import { savePlotContent } from "~/server/ai/writing-projects.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { creditBalance, fund, setConfig } from "../fixtures/ledger";
import { adminCookieFor, createAdmin } from "./admin-fixtures";
import { withPayoutAccount } from "../fixtures/payout-accounts";
import { readyProject } from "./ai-helpers";
import { importRoute, routeTree, runRoute, type RouteNode, redirectOf } from "./route-chain";

/**
 * Every creating form carries a one-time token (docs/decisions/077): the same post sent
 * twice (a double click, a retry after a lost answer, the browser's 重新提交) creates once.
 * The routes come from app/routes.ts: a route module whose action creates rows says so
 * with `handle.creates` (the form kinds of app/server/platform/form-tokens.server.ts), and each of
 * those is replayed below; every other route with an action is in EXCEPTIONS with the
 * reason a replay creates nothing twice. A new route with an action fails this test until
 * it is one or the other.
 */

type Module = { action?: unknown; handle?: { creates?: string[] } };

/** Route modules with an action that are not creating forms, and why (by module file). */
const EXCEPTIONS: Record<string, string> = {
  // Change or delete what exists; a replay sets the same values again.
  "routes/admin/account.tsx": "password and two-factor changes (a TOTP code is accepted once)",
  "routes/admin/catch-all.ts": "redirects only",
  "routes/admin/comment-reports.tsx": "decides reports that exist",
  "routes/admin/book-review-reports.tsx": "decides reports that exist",
  "routes/shell/reader/reviews.tsx":
    "one review per reader and work (a unique key): a replay is refused with 你已经写过这部作品的书评了 and creates nothing; the rest edits what exists (decision 211)",
  "routes/shell/settings/delete-account.tsx":
    "注销账号: one request per user (its primary key), a replay refused with 你已提交注销申请 and nothing written; 撤销 deletes what exists (decision 231)",
  "routes/public/booklist.tsx": "关注书单 sets the wanted state (on 1 or 0) of one (list, reader) key: a replay sets it again (decision 232)",
  "routes/shell/library/booklist-edit.tsx": "edits, moves and removes the entries of a 书单 that exists, or deletes it (decision 232)",
  "routes/public/author.tsx": "关注作者 sets the wanted state (on 1 or 0) of one (user, author) key: a replay sets it again (decision 230)",
  "routes/shell/settings/blocks.tsx": "屏蔽 keys one (reader, author) or (reader, tag): a replay is refused with 你已经屏蔽了… and writes nothing; 取消屏蔽 deletes (decision 233)",
  "routes/shell/reader/typo.tsx": "错别字: the same sentence of a chapter sent again while the author's line is unread is refused with 你已经报告过这句话了 and writes nothing (decision 234)",
  "routes/shell/library/history.tsx": "删除 and 清空 only hide existing reading positions; a replay finds nothing to hide (decision 234)",
  "routes/shell/reader/marks.tsx": "书签 and 划线 key one (reader, chapter, kind, paragraph, offsets): a replay sets the same note on the one row (decision 241)",
  "routes/shell/library/bookmarks.tsx": "删除 deletes the reader's own mark; a replay finds nothing and is refused (decision 241)",
  "routes/shell/studio/continuity.tsx":
    "连续性检查: the ladder is replaced whole; a story-time entry sent again is the same entry (one per chapter, an identical one is returned); 有意安排 keys one (chapter, finding) waiver; 重新检查 recomputes (decision 247)",
  "routes/shell/studio/outline.tsx":
    "大纲: the 总纲 is one per work and a 细纲 one per chapter number (a replay saves the same text, no new version); a 新建卷纲 sent again finds the 卷纲 of that name and span and saves onto it; 让AI起草 is one pending job per 卷纲 (a replay is refused while it runs); 恢复 of the same version again changes nothing (decision 255)",
  "routes/admin/login.tsx": "signs in (a session per sign-in, as a second sign-in would)",
  "routes/admin/logout.ts": "signs out",
  "routes/admin/payment.tsx": "payment settings",
  "routes/admin/payouts.tsx": "settles pending payouts once (conditional on pending)",
  "routes/admin/payout.tsx": "款项退回 on a paid payout once (conditional on paid; a second is refused, decision 209)",
  "routes/shell/credits/payout-account.tsx": "saves the author's 收款账户: a replay saves the same account again as the newest row, which is what a payout uses (decision 210)",
  "routes/admin/review.tsx": "claims an existing item (a replay gets the item the reviewer already holds)",
  "routes/admin/review-item.tsx": "claims or decides an existing item once (a decided item refuses a second decision)",
  "routes/admin/settings/review.tsx": "review policy settings",
  "routes/shell/settings/identity.tsx": "one submission at a time: a replay while it waits is refused (你的实名认证正在审核中，请耐心等待), nothing is stored twice (decision 204)",
  "routes/admin/identity.tsx": "claims an existing submission (a replay gets the one the operator already holds)",
  "routes/admin/identity-item.tsx": "claims or decides an existing submission once (a decided one refuses a second decision)",
  "routes/admin/identity-reveal.tsx": "shows values that exist; each view is its own audit row, as each look should be",
  "routes/shell/studio/chapter-appeal.tsx": "one appeal per decision: the same appeal sent again answers as the first (decision 206)",
  "routes/shell/studio/work-appeal.tsx": "one appeal per decision of a work's information: the same appeal sent again answers as the first (decision 239)",
  "routes/admin/order.tsx": "credits or refunds an order once (conditional on its state)",
  "routes/admin/settings/description.tsx": "site setting",
  "routes/admin/settings/economy.tsx": "site settings",
  "routes/admin/settings/fans.tsx": "fan level settings (replaces the whole list)",
  "routes/admin/settings/minors.tsx": "青少年模式 settings (replaces the values, decision 218)",
  "routes/shell/settings/minor-mode.tsx": "青少年模式 on or off: a replay of 开启 finds it on (青少年模式已开启), of 关闭 finds it off (decision 218)",
  "routes/admin/settings/votes.tsx": "月票 and 推荐票 settings (replaces the three values)",
  "routes/admin/settings/image.tsx": "replaces an image setting",
  "routes/admin/settings/legal.tsx": "site setting",
  "routes/admin/settings/payment-api.tsx": "site settings",
  "routes/admin/settings/site.tsx": "site settings",
  "routes/admin/settings/tokens.tsx": "site settings",
  "routes/admin/tests/openai.tsx": "a connectivity test, nothing stored",
  "routes/admin/work.tsx": "moderates a work that exists",
  "routes/api/logout.ts": "signs out",
  "routes/api/not-found.ts": "answers 404",
  "routes/exports/not-found.ts": "answers 404",
  "routes/public/catch-all.ts": "redirects only",
  "routes/public/auth-login.tsx": "signs in",
  "routes/public/auth-forgot-password.tsx": "a newer link replaces the older (rate-limited)",
  "routes/public/auth-reset-password.tsx": "a link is used once",
  "routes/shell/reader/progress.ts": "saves the reading position",
  "routes/shell/reader/reader-settings.ts": "saves settings",
  "routes/shell/reader/work-redirect.ts": "redirects only",
  "routes/shell/settings/avatar.tsx": "replaces the avatar",
  "routes/shell/settings/nickname.tsx": "profile setting",
  "routes/shell/settings/password.tsx": "password change",
  "routes/shell/settings/phone.tsx":
    "获取验证码 replayed within a minute is refused (one code a minute per number), later it sends a new code that replaces the first; 绑定 replayed finds its code used (decision 235)",
  "routes/shell/settings/pixiv-id.tsx": "profile setting",
  "routes/shell/settings/settings.tsx": "profile settings",
  "routes/shell/studio/chapter-autosave.ts": "saves the editor's text over the chapter",
  "routes/shell/studio/chapter-edit.tsx": "edits a chapter that exists",
  "routes/shell/studio/chapter-revisions.tsx": "restores a revision",
  "routes/shell/studio/pricing.tsx": "sets how a work is sold",
  "routes/shell/studio/settings.tsx": "edits a work's settings",
  "routes/shell/studio/desk.tsx": "sets or clears the work's one daily target (an upsert on the work's row in writing_targets)",
  "routes/shell/works/delete.tsx": "deletes a work",
  "routes/shell/works/edit.tsx": "edits a work",
  "routes/shell/works/my-works.tsx": "changes a work's visibility or price",
  // Create, but a replay is refused by a unique key or an idempotency key of its own.
  "routes/admin/admins.tsx": "an administrator per e-mail (unique): a replay is 已存在",
  "routes/admin/categories.tsx": "a category per name (unique): a replay is 已有同名分类",
  "routes/admin/screening.tsx": "a word per folded form (unique): a replayed add is 已在词库中; a replayed import updates the same words to the same values",
  "routes/admin/front-page/row.tsx": "a work is in a row once (primary key): a replay is 该作品已在这个推荐位中",
  "routes/admin/front-page/rankings.tsx": "a removal per work (primary key): a replay is 该作品已移出排行",
  "routes/public/auth-register.tsx": "an account per e-mail (unique): a replay is refused",
  "routes/shell/reader/work.tsx": "a purchase per reader and chapter or work (unique); favourite sets a state",
  "routes/shell/studio/comment-mutes.tsx": "a mute per work and reader (unique)",
  "routes/shell/notifications/inbox.tsx": "marks read, mutes (a state per reader)",
  "routes/api/generate.ts": "one generation per request key (409 for a used key, decision 141)",
  "routes/api/operate.ts": "one operation per request key (409 for a used key, decision 130)",
  "routes/api/continue.ts": "one continuation per request key (409 for a used key, decision 141)",
  "routes/api/notify.ts": "credits an order once per out_trade_no (decision 020)",
};

/** Every route of app/routes.ts whose module has an action, with its module. */
async function actionRoutes(): Promise<{ node: RouteNode; mod: Module }[]> {
  const out: { node: RouteNode; mod: Module }[] = [];
  const walk = async (node: RouteNode) => {
    const mod = (await importRoute(node)) as Module;
    if (mod.action) out.push({ node, mod });
    for (const child of node.children) await walk(child);
  };
  for (const child of routeTree.children) await walk(child);
  return out;
}

let cookie: string;
let userId: string;
beforeAll(async () => {
  const user = await createUser();
  userId = user.id;
  cookie = await sessionCookieFor(user.id);
});

const chapterCount = async (workId: number) => (await db.select({ n: sql<number>`count(*)::int` }).from(chapters).where(eq(chapters.workId, workId)))[0].n;

async function series(title: string): Promise<number> {
  const work = await createWork(userId, { title, description: "", type: "series", status: "ongoing", visibility: "public", rating: "all_ages", isAiGenerated: false }, [{ title: "第一章", content: "正文。" }], null);
  return work.id;
}

/** Loads the page (its loader gives the form's token), then posts the same form twice. */
async function replay(mod: Module, path: string, token: (page: unknown) => string, fields: Record<string, string> | FormData, as = cookie) {
  const cookie = as;
  const page = await runRoute("loader", mod as never, userRequest(cookie, path));
  const formToken = token(page);
  expect(formToken).toMatch(/^[A-Za-z0-9_-]{24}$/);
  const body = () => {
    if (!(fields instanceof FormData)) return { ...fields, formToken };
    const form = new FormData();
    for (const [k, v] of fields) form.append(k, v);
    form.set("formToken", formToken);
    return form;
  };
  const first = await runRoute("action", mod as never, userRequest(cookie, path, body())).catch((r: unknown) => r);
  const second = await runRoute("action", mod as never, userRequest(cookie, path, body())).catch((r: unknown) => r);
  return [redirectOf(first), redirectOf(second)];
}

/** An administrator's session, for the back office's forms (decision 172). */
async function adminCookie(): Promise<string> {
  return adminCookieFor((await createAdmin()).id);
}

/** The back office's creating forms (decision 172), replayed with an administrator's session. */
const ADMIN_REPLAYS: Record<string, (mod: Module) => Promise<void>> = {
  "routes/admin/user-edit.tsx": async (mod) => {
    const admin = await adminCookie();
    const target = await createUser();
    const path = `/admin/users/${target.id}`;
    const tokens = (p: unknown) => (p as { formTokens: { balance: string; message: string } }).formTokens;
    // 调整积分: money, so the replay must not move it again.
    const balance = await creditBalance(target.id);
    const [first, second] = await replay(mod, path, (p) => tokens(p).balance, { intent: "balance", change: "+100", reason: "重放补偿" }, admin);
    expect(first).toBe(`302 ${path}?notice=balance-set`);
    expect(second).toBe(first);
    expect(await creditBalance(target.id)).toBe(balance + 100);
    expect(await db.select().from(creditTransactions).where(eq(creditTransactions.userId, target.id))).toHaveLength(1);
    // 发送消息
    const [sent, again] = await replay(mod, path, (p) => tokens(p).message, { intent: "message", body: "重放的消息" }, admin);
    expect(sent).toBe(`302 ${path}?notice=message-sent`);
    expect(again).toBe(sent);
    expect(await db.select().from(notifications).where(and(eq(notifications.userId, target.id), eq(notifications.kind, "admin")))).toHaveLength(1);
  },
  "routes/admin/codes.tsx": async (mod) => {
    const path = "/admin/codes?status=all&page=1&dialog=generate";
    const [first, second] = await replay(mod, path, (p) => (p as { formToken: string }).formToken, { intent: "generate", quantity: "3", amount: "10", batch: "重放批次" }, await adminCookie());
    expect(first).toBe("302 /admin/codes?status=all&notice=codes-generated");
    expect(second).toBe(first);
    expect(await db.select().from(redeemCodes).where(eq(redeemCodes.batch, "重放批次"))).toHaveLength(3);
  },
  "routes/admin/api-tokens.tsx": async (mod) => {
    // Not a redirect: the new token's secret is in the first answer only; the replay makes
    // no second token and says the first one was made (its secret is not kept to show again).
    const admin = await adminCookie();
    const page = (await runRoute("loader", mod as never, userRequest(admin, "/admin/api-tokens"))) as { formToken: string };
    const post = () => {
      const fields = { intent: "create", name: "重放令牌", expiresIn: "90", formToken: page.formToken };
      return runRoute("action", mod as never, userRequest(admin, "/admin/api-tokens", fields)) as Promise<{ data: { created: { name: string; token: string | null } } }>;
    };
    const first = await post();
    const second = await post();
    expect(first.data.created).toEqual({ name: "重放令牌", token: expect.stringMatching(/^\S{40,}$/) });
    expect(second.data.created).toEqual({ name: "重放令牌", token: null });
    expect(await db.select().from(adminApiTokens).where(eq(adminApiTokens.name, "重放令牌"))).toHaveLength(1);
  },
  "routes/admin/prompts.tsx": async (mod) => {
    const fields = { intent: "create", code: "P-REPLAY", title: "重放提示词", systemContent: "系统", userContent: "用户", type: "free" };
    const [first, second] = await replay(mod, "/admin/prompts?page=1&dialog=new", (p) => (p as { formToken: string }).formToken, fields, await adminCookie());
    expect(first).toBe("302 /admin/prompts?notice=saved");
    expect(second).toBe(first);
    expect(await db.select().from(prompts).where(eq(prompts.code, "P-REPLAY"))).toHaveLength(1);
  },
  "routes/admin/settings/api.tsx": async (mod) => {
    const fields = { intent: "create", name: "重放配置", provider: "openai", endpoint: "https://api.example.com/v1", apiKey: "sk-replay", model: "gpt-test" };
    const [first, second] = await replay(mod, "/admin/settings/api?dialog=new", (p) => (p as { formToken: string }).formToken, fields, await adminCookie());
    expect(first).toBe("302 /admin/settings/api?notice=saved");
    expect(second).toBe(first);
    expect(await db.select().from(apiConfigs).where(eq(apiConfigs.name, "重放配置"))).toHaveLength(1);
  },
};

// The operator's front page (decision 198): 新建推荐位 and 发布 (公告).
ADMIN_REPLAYS["routes/admin/front-page/rows.tsx"] = async (mod) => {
  const [first, second] = await replay(mod, "/admin/front-page", (p) => (p as { formToken: string }).formToken, { intent: "create", name: "重放推荐位" }, await adminCookie());
  expect(first).toMatch(/^302 \/admin\/front-page\/\d+\?notice=saved$/);
  expect(second).toBe(first);
  expect(await db.select().from(curatedRows).where(eq(curatedRows.name, "重放推荐位"))).toHaveLength(1);
};
ADMIN_REPLAYS["routes/admin/front-page/announcements.tsx"] = async (mod) => {
  const fields = { intent: "create", title: "重放公告", body: "内容" };
  const [first, second] = await replay(mod, "/admin/announcements", (p) => (p as { formToken: string }).formToken, fields, await adminCookie());
  expect(first).toBe("302 /admin/announcements?notice=saved");
  expect(second).toBe(first);
  expect(await db.select().from(announcements).where(eq(announcements.title, "重放公告"))).toHaveLength(1);
};

/** For each creating route (by module file): its form replayed, and what must exist once. */
const REPLAYS: Record<string, (mod: Module) => Promise<void>> = {
  ...ADMIN_REPLAYS,
  "routes/shell/works/submit.tsx": async (mod) => {
    const form = new FormData();
    const fields = { status: "completed", type: "single_chapter", title: "重放发布", description: "简介", rating: "all_ages", visibility: "public", content: "正文" };
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const [first, second] = await replay(mod, "/submit", (p) => (p as { formToken: string }).formToken, form);
    expect(first).toMatch(/^302 /);
    expect(second).toBe(first);
    expect(await db.select({ id: works.id }).from(works).where(eq(works.title, "重放发布"))).toHaveLength(1);
  },
  "routes/shell/works/new-chapter.tsx": async (mod) => {
    const id = await series("重放旧页加章");
    const [first, second] = await replay(mod, `/works/${id}/new-chapter`, (p) => (p as { formToken: string }).formToken, { title: "第二章", content: "正文" });
    expect(first).toMatch(/^302 /);
    expect(second).toBe(first);
    expect(await chapterCount(id)).toBe(2);
  },
  "routes/shell/studio/chapter-new.tsx": async (mod) => {
    const id = await series("重放加章");
    const [first, second] = await replay(mod, `/works/${id}/chapters/new`, (p) => (p as { formToken: string }).formToken, { title: "第二章", content: "正文", release: "now", at: "2" });
    expect(first).toMatch(new RegExp(`^302 /works/${id}/chapters\\?chapter=\\d+#c-\\d+$`));
    expect(second).toBe(first);
    expect(await chapterCount(id)).toBe(2);
  },
  "routes/shell/library/my-booklists.tsx": async (mod) => {
    // 新建书单 (decision 232): the same form twice makes one list.
    const [first, second] = await replay(mod, "/my-booklists", (p) => (p as { data: { formToken: string } }).data.formToken, { intent: "create", title: "重放书单", description: "" });
    expect(first).toMatch(/^302 \/booklists\/\d+$/);
    expect(second).toBe(first);
    expect(await db.select().from(booklists).where(eq(booklists.title, "重放书单"))).toHaveLength(1);
  },
  "routes/shell/reader/add-to-booklist.tsx": async (mod) => {
    // 加入书单 into a new list (decision 232): the same form twice makes one list with one entry.
    const id = await series("重放加入书单");
    const [first, second] = await replay(mod, `/works/${id}/booklist`, (p) => (p as { formToken: string }).formToken, { list: "new", title: "重放新书单", note: "推荐" });
    expect(first).toMatch(/^302 \/booklists\/\d+$/);
    expect(second).toBe(first);
    const made = await db.select().from(booklists).where(eq(booklists.title, "重放新书单"));
    expect(made).toHaveLength(1);
    expect(await db.select().from(booklistEntries).where(eq(booklistEntries.booklistId, made[0].id))).toHaveLength(1);
  },
  "routes/shell/settings/opds.tsx": async (mod) => {
    // As the admins' API tokens: the catalog's address is in the first answer only; the
    // replay makes no second token and says the first one was made (decision 201).
    const page = (await runRoute("loader", mod as never, userRequest(cookie, "/settings/opds"))) as { data: { formToken: string } };
    const post = () =>
      runRoute("action", mod as never, userRequest(cookie, "/settings/opds", { intent: "create", label: "重放令牌", formToken: page.data.formToken })) as Promise<{
        data: { created: { label: string; address: string | null } };
      }>;
    const first = await post();
    const second = await post();
    expect(first.data.created).toEqual({ label: "重放令牌", address: expect.stringMatching(/\/opds\/inkopds_\S{32}$/) });
    expect(second.data.created).toEqual({ label: "重放令牌", address: null });
    expect(await db.select().from(readerOpdsTokens).where(eq(readerOpdsTokens.label, "重放令牌"))).toHaveLength(1);
  },
  "routes/shell/credits/credits.tsx": async (mod) => {
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: "https://pay.example.com/submit.php", merchant_pid: "1001", merchant_key: "key" });
    const before = (await db.select().from(paymentOrders).where(eq(paymentOrders.userId, userId))).length;
    const [first, second] = await replay(mod, "/credits?dialog=topup", (p) => (p as { data: { formToken: string } }).data.formToken, { intent: "topup", amount: "30" });
    expect(first).toMatch(/^302 https:\/\/pay\.example\.com\/submit\.php\?/);
    expect(second).toBe(first);
    expect(await db.select().from(paymentOrders).where(eq(paymentOrders.userId, userId))).toHaveLength(before + 1);

    // 积分兑换 Tokens: the exchange dialog's form, replayed, exchanges once.
    await fund(userId, 50);
    const balance = await creditBalance(userId);
    const exchanges = async () => (await db.select().from(tokenTransactions).where(and(eq(tokenTransactions.userId, userId), eq(tokenTransactions.type, "exchange")))).length;
    const exchangedBefore = await exchanges();
    const [once, again] = await replay(mod, "/credits?dialog=exchange", (p) => (p as { data: { formToken: string } }).data.formToken, { intent: "exchange", amount: "10" });
    expect(once).toMatch(/^302 \/credits\?tab=tokens/);
    expect(again).toBe(once);
    expect(await creditBalance(userId)).toBe(balance - 10);
    expect(await exchanges()).toBe(exchangedBefore + 1);
  },
  "routes/shell/credits/income.tsx": async (mod) => {
    // Income from a real sale: a reader buys the VIP chapter (200 credits, 70% to the author).
    const id = await series("重放提现");
    const [vip] = await db.insert(chapters).values({ workId: id, title: "VIP", content: "正文", position: 1_000_000_000, wordCount: 40_000 }).returning({ id: chapters.id });
    await setWorkPricing(userId, id, { mode: "chapter", vipFrom: "2", pricePerThousand: "5" });
    const reader = await createUser();
    await fund(reader.id, 200);
    await purchaseChapter(reader.id, id, vip.id);
    await withPayoutAccount(userId);
    const [first, second] = await replay(mod, "/income", (p) => (p as { data: { formToken: string } }).data.formToken, { intent: "payout", amount: "100" });
    expect(first).toMatch(/^302 \/income/);
    expect(second).toBe(first);
    expect(await db.select().from(payoutRequests).where(eq(payoutRequests.userId, userId))).toHaveLength(1);
  },
  "routes/shell/studio/chapters.tsx": async (mod) => {
    const id = await series("重放新建分卷");
    const [first, second] = await replay(mod, `/works/${id}/chapters`, (p) => (p as { data: { formToken: string } }).data.formToken, { intent: "volume-create", title: "第二卷 风起", page: "1" });
    expect(first).toMatch(new RegExp(`^302 /works/${id}/chapters\\?page=1`));
    expect(second).toBe(first);
    expect(await db.select().from(volumes).where(eq(volumes.workId, id))).toHaveLength(1);
  },
  "routes/shell/reader/tip.tsx": async (mod) => {
    // 打赏 from a chapter's end (decision 207): the same form twice tips once, one notice.
    const author = await createUser();
    const work = await createWork(author.id, { title: "重放打赏", description: "", type: "series", status: "ongoing", visibility: "public", rating: "all_ages", isAiGenerated: false }, [{ title: "第一章", content: "正文。" }], null);
    await fund(userId, 600);
    const balance = await creditBalance(userId);
    const [first, second] = await replay(mod, `/works/${work.id}/tip?chapter=1`, (p) => (p as { formToken: string }).formToken, { amount: "500", message: "重放的打赏" });
    expect(first).toBe(`302 /works/${work.id}/comments?chapter=1&posted=tip`);
    expect(second).toBe(first);
    expect(await creditBalance(userId)).toBe(balance - 500);
    expect(await db.select().from(workTips).where(eq(workTips.workId, work.id))).toHaveLength(1);
    expect(await db.select().from(chapterComments).where(eq(chapterComments.workId, work.id))).toHaveLength(1);
  },
  "routes/shell/reader/vote.tsx": async (mod) => {
    // 投月票 (decision 222): the same form twice casts once.
    const author = await createUser();
    const work = await createWork(author.id, { title: "重放投票", description: "", type: "series", status: "ongoing", visibility: "public", rating: "all_ages", isAiGenerated: false }, [{ title: "第一章", content: "正文。" }], null);
    await addMonthlySpend(db, userId, 500);
    const [first, second] = await replay(mod, `/works/${work.id}/vote`, (p) => (p as { formTokens: { monthly: string } }).formTokens.monthly, { kind: "monthly", count: "2", redirectTo: `/works/${work.id}?chapter=1` });
    expect(first).toBe(`302 /works/${work.id}?chapter=1`);
    expect(second).toBe(first);
    expect(await db.select().from(workVotes).where(eq(workVotes.workId, work.id))).toHaveLength(1);
  },
  "routes/shell/reader/comments.tsx": async (mod) => {
    const id = await series("重放评论");
    const comments = async (body: string) => (await db.select({ id: chapterComments.id }).from(chapterComments).where(and(eq(chapterComments.workId, id), eq(chapterComments.body, body)))).map((c) => c.id);
    type Page = { formTokens: { post: string; replies: Record<number, string> } };
    const thread = `/works/${id}/comments?chapter=1`;
    // 本章说 from the thread page: posted once, the same redirect (to it, with 评论已发表) twice.
    const [first, second] = await replay(mod, thread, (p) => (p as Page).formTokens.post, { intent: "post", body: "重放的本章说" });
    const [posted] = await comments("重放的本章说");
    expect(first).toBe(`302 /works/${id}/comments?chapter=1&posted=post#c-${posted}`);
    expect(second).toBe(first);
    expect(await comments("重放的本章说")).toHaveLength(1);
    // A 段评 (?p=0).
    const [once, again] = await replay(mod, `/works/${id}/comments?chapter=1&p=0`, (p) => (p as Page).formTokens.post, { intent: "post", body: "重放的段评" });
    expect(once).toMatch(/^302 .*&posted=post#c-\d+$/);
    expect(again).toBe(once);
    expect(await comments("重放的段评")).toHaveLength(1);
    // A reply, from its comment's own reply form (its own token): one reply, one notification.
    const reader = await createUser();
    const [parent] = await db.insert(chapterComments).values({ workId: id, chapterId: (await db.select().from(chapters).where(eq(chapters.workId, id)))[0].id, userId: reader.id, body: "读者的本章说" }).returning({ id: chapterComments.id });
    const [replied, repliedAgain] = await replay(mod, thread, (p) => (p as Page).formTokens.replies[parent.id], { intent: "reply", comment: String(parent.id), body: "重放的回复" });
    expect(replied).toMatch(new RegExp(`^302 /works/${id}/comments\\?chapter=1&posted=reply#c-\\d+$`));
    expect(repliedAgain).toBe(replied);
    expect(await comments("重放的回复")).toHaveLength(1);
    expect(await db.select().from(notifications).where(eq(notifications.userId, reader.id))).toHaveLength(1);
    // From the reader's dialog (JavaScript, `enhanced=1`): the same data twice, one comment.
    const [inDialog, inDialogAgain] = await replay(mod, `${thread}&p=0&dialog=1`, (p) => (p as Page).formTokens.post, { intent: "post", enhanced: "1", body: "对话框里重放" });
    const [dialogPost] = await comments("对话框里重放");
    expect(inDialog).toContain(`"comment":${dialogPost}`);
    expect(inDialogAgain).toBe(inDialog);
    expect(await comments("对话框里重放")).toHaveLength(1);
  },
  "routes/shell/studio/bible.tsx": async (mod) => {
    const id = await series("重放设定");
    type Page = { data: { formTokens: { entity: string; thread: string; facts: Record<number, string> } } };
    const [first, second] = await replay(mod, `/works/${id}/bible`, (p) => (p as Page).data.formTokens.entity, { intent: "entity-save", kind: "character", name: "重放角色", aliases: "阿重", description: "" });
    const added = await db.select({ id: storyEntities.id }).from(storyEntities).where(eq(storyEntities.workId, id));
    expect(added).toHaveLength(1);
    expect(first).toBe(`302 /works/${id}/bible#e-${added[0].id}`);
    expect(second).toBe(first);
    // A new fact, from its entity's own form.
    const entity = await saveEntity(userId, id, { kind: "place", name: "重放之地", aliases: "" });
    const [fact, factAgain] = await replay(mod, `/works/${id}/bible`, (p) => (p as Page).data.formTokens.facts[entity], { intent: "fact-save", entityId: String(entity), content: "重放的事实", fromChapter: "", untilChapter: "" });
    expect(fact).toBe(`302 /works/${id}/bible#e-${entity}`);
    expect(factAgain).toBe(fact);
    expect(await db.select().from(storyFacts).where(eq(storyFacts.entityId, entity))).toHaveLength(1);
    // A new thread, on the 伏笔 tab.
    const [thread, threadAgain] = await replay(mod, `/works/${id}/bible?tab=threads`, (p) => (p as Page).data.formTokens.thread, { intent: "thread-save", title: "重放的伏笔", note: "", plantedChapter: "1", dueChapter: "" });
    const threads = await db.select({ id: plotThreads.id }).from(plotThreads).where(eq(plotThreads.workId, id));
    expect(threads).toHaveLength(1);
    expect(thread).toBe(`302 /works/${id}/bible?tab=threads#t-${threads[0].id}`);
    expect(threadAgain).toBe(thread);
    // A passage of the 文风 sample, on the 文风 tab (decision 257).
    type VoicePage = { data: { formTokens: { voice: string } } };
    const [voice, voiceAgain] = await replay(mod, `/works/${id}/bible?tab=voice`, (p) => (p as VoicePage).data.formTokens.voice, { intent: "voice-add", content: "重放的文风样本", source: "pasted" });
    expect(voice).toBe(`302 /works/${id}/bible?tab=voice#voice-sample`);
    expect(voiceAgain).toBe(voice);
    expect(await db.select().from(voicePassages).where(eq(voicePassages.workId, id))).toHaveLength(1);
  },
  "routes/shell/writing/free-writing.tsx": (mod) => toChapterReplay(mod, "free"),
  "routes/shell/writing/short-writing.tsx": (mod) => toChapterReplay(mod, "short"),
  "routes/shell/writing/series-writing.tsx": async (mod) => {
    const id = await series("重放续写保存");
    const [first, second] = await replay(mod, `/series-writing?work=${id}`, (p) => (p as { data: { page: { formToken: string } } }).data.page.formToken, {
      intent: "save",
      workId: String(id),
      chapter: "2",
      title: "第二章",
      content: "续写的正文。",
      mode: "draft",
    });
    expect(first).toMatch(/^302 /);
    expect(second).toBe(first);
    expect(await chapterCount(id)).toBe(2);
  },
};

/** 存为章节 from a writing project's plot, replayed. */
async function toChapterReplay(mod: Module, kind: "free" | "short") {
  const { projectId, plotId } = await readyProject(userId, kind);
  await savePlotContent(userId, projectId, plotId, "情节的正文，一段就够。");
  const id = await series(`重放存为章节${kind}`);
  const path = `/${kind}-writing?project=${projectId}&plot=${plotId}`;
  const [first, second] = await replay(mod, path, (p) => (p as { workspace: { chapterFormToken: string } }).workspace.chapterFormToken, {
    intent: "save-to-chapter",
    projectId,
    selectedPlotId: plotId,
    plotId,
    workId: String(id),
    mode: "draft",
    title: "",
  });
  expect(first).toMatch(/^302 /);
  expect(second).toBe(first);
  expect(await db.select().from(chapters).where(and(eq(chapters.workId, id), eq(chapters.state, "draft")))).toHaveLength(1);
}

describe("the creating forms of app/routes.ts", () => {
  it("are each marked (handle.creates) or listed with the reason a replay creates nothing twice", async () => {
    const routes = await actionRoutes();
    const files = [...new Set(routes.map((r) => r.node.file))];
    const marked = files.filter((file) => routes.find((r) => r.node.file === file)!.mod.handle?.creates?.length);
    const unclassified = files.filter((file) => !marked.includes(file) && !(file in EXCEPTIONS));
    expect(unclassified, "a route with an action must create once per form token or be listed in EXCEPTIONS").toEqual([]);
    expect(marked.filter((file) => file in EXCEPTIONS)).toEqual([]);
    expect(Object.keys(EXCEPTIONS).filter((file) => !files.includes(file)), "stale exceptions").toEqual([]);
    // Every marked route is replayed below, and only those.
    expect(marked.sort()).toEqual(Object.keys(REPLAYS).sort());
  });

  for (const file of Object.keys(REPLAYS)) {
    it(`${file}: the same form posted twice with its token creates once, and both answers agree`, async () => {
      const routes = await actionRoutes();
      const route = routes.find((r) => r.node.file === file);
      expect(route, `${file} is in app/routes.ts with an action`).toBeDefined();
      await REPLAYS[file](route!.mod);
    });
  }
});
