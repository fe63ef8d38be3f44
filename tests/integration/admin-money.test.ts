import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, chapters, paymentNotifies, paymentOrders } from "~/db/schema";
import { action as notifyAction, loader as notifyLoader } from "~/routes/api/notify";
import { moneyByDay } from "~/server/admin/payments.server";
import { createPaymentOrder } from "~/server/economy/epay.server";
import { checkLedger } from "../../scripts/check-ledger";
import { creditBalance, creditLedger, fund, quickUsers, setConfig } from "../fixtures/ledger";
import { startFakeEpayGateway, type FakeEpayGateway } from "../fakes/epay-gateway";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { callThroughRoutes } from "./route-chain";
import { waitFor } from "../fixtures/wait";

/**
 * The back office's orders and money (decision 136): notifies recorded as they arrive,
 * 查单 against the test gateway's order API, 补单, refunds, and that every way of crediting
 * credits an order once, a late notify included.
 */

const KEY = "money-test-key-查单";
const PID = "3003";

let admin: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;
let gateway: FakeEpayGateway;
let app: { origin: string; close: () => Promise<void> };

/** The app's /api/notify over real HTTP, as the test gateway calls the site. */
async function startNotifyServer() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = `http://${req.headers.host}${req.url}`;
    const headers = new Headers();
    if (req.headers["content-type"]) headers.set("Content-Type", req.headers["content-type"]);
    const request = new Request(url, { method: req.method, headers, body: req.method === "GET" ? undefined : Buffer.concat(chunks) });
    const response =
      req.method === "GET" ? await callThroughRoutes(notifyLoader, { request }) : await callThroughRoutes(notifyAction, { request });
    res.writeHead(response.status, { "Content-Type": "text/plain" });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

beforeAll(async () => {
  admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
  app = await startNotifyServer();
  gateway = await startFakeEpayGateway({ pid: PID, key: KEY, behaviour: { repeatNotifies: 0 } });
  await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: gateway.submitUrl, merchant_pid: PID, merchant_key: KEY });
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterAll(async () => {
  await gateway?.settled();
  await gateway?.close();
  await app?.close();
  vi.restoreAllMocks();
});

const post = (path: string, fields: Record<string, string>) => request(path, { cookie }, fields);
const get = (path: string) => request(path, { cookie });

/** An order created by the site and paid at the gateway; `notify` false: the notify never arrives. */
async function paidOrder(amount: number, { notify }: { notify: boolean }) {
  const [user] = await quickUsers(1);
  const order = await createPaymentOrder(user.id, amount, app.origin);
  expect((await fetch(order.redirectUrl)).status).toBe(200);
  gateway.behaviour.dropNotifies = !notify;
  const tradeNo = gateway.orders.get(order.outTradeNo)!.tradeNo;
  const paid = await fetch(`${gateway.url}/pay`, { method: "POST", body: new URLSearchParams({ trade_no: tradeNo }), redirect: "manual" });
  expect(paid.status).toBe(302);
  gateway.behaviour.dropNotifies = false;
  return { user, outTradeNo: order.outTradeNo, tradeNo };
}

async function orderRow(outTradeNo: string) {
  const [row] = await db.select().from(paymentOrders).where(eq(paymentOrders.outTradeNo, outTradeNo));
  return row;
}

/** The audit rows about one order, oldest first. */
async function auditOf(outTradeNo: string) {
  return db.select().from(adminAuditLog).where(eq(adminAuditLog.targetId, outTradeNo)).orderBy(adminAuditLog.id);
}

async function orderPage() {
  return import("~/routes/admin/order");
}

async function orderAction(outTradeNo: string, fields: Record<string, string>) {
  return callAction(await orderPage(), post(`/admin/orders/${outTradeNo}`, fields), { outTradeNo });
}

describe("the gateway's order API (tests/fakes/epay-gateway.ts)", () => {
  it("answers act=order as the platform does: the order with status 1 when paid, or a code below 1", async () => {
    const { outTradeNo, tradeNo } = await paidOrder(12, { notify: false });
    const ask = async (params: Record<string, string>) => (await fetch(`${gateway.url}/api.php?${new URLSearchParams(params)}`)).json();
    expect(await ask({ act: "order", pid: PID, key: KEY, out_trade_no: outTradeNo })).toMatchObject({
      code: 1,
      out_trade_no: outTradeNo,
      trade_no: tradeNo,
      money: "12.00",
      status: 1,
    });
    expect(await ask({ act: "order", pid: PID, key: "wrong", out_trade_no: outTradeNo })).toMatchObject({ code: -3 });
    expect(await ask({ act: "order", pid: PID, key: KEY, out_trade_no: "IKnothing" })).toMatchObject({ code: -1 });
  });
});

describe(`notifies as they arrive (${databaseKind})`, () => {
  it("records each notify with its outcome, the signature cut short; 支付通知 lists and filters them", async () => {
    const { user, outTradeNo } = await paidOrder(7, { notify: true });
    expect(await creditBalance(user.id)).toBe(7);
    await gateway.sendNotify(outTradeNo, { tamper: "wrong-sign" });
    await gateway.sendNotify(outTradeNo, { tamper: "altered-money" });
    await gateway.sendNotify(outTradeNo);
    const rows = await db.select().from(paymentNotifies).where(eq(paymentNotifies.outTradeNo, outTradeNo)).orderBy(paymentNotifies.id);
    expect(rows.map((r) => r.outcome)).toEqual(["credited", "bad-sign", "bad-sign", "already-paid"]);
    for (const row of rows) {
      expect(row.params.sign).toMatch(/^[0-9a-f]{8}…$/);
      expect(row.params.out_trade_no).toBe(outTradeNo);
      expect(JSON.stringify(row.params)).not.toContain(KEY);
      expect(row.method).toBe("GET");
    }
    const list = await import("~/routes/admin/payment-notifies");
    const all = await callLoader(list, get(`/admin/payment-notifies?q=${outTradeNo}`));
    expect(all.data.notifies.map((n: { label: string }) => n.label)).toEqual([
      "验签通过，订单此前已入账（重复通知，未再入账）",
      "拒绝：签名校验失败",
      "拒绝：签名校验失败",
      "验签通过，已入账",
    ]);
    const refused = await callLoader(list, get(`/admin/payment-notifies?q=${outTradeNo}&outcome=refused`));
    expect(refused.data.total).toBe(2);
    // The order page shows the same notifies.
    const page = await callLoader(await orderPage(), get(`/admin/orders/${outTradeNo}`), { outTradeNo });
    expect(page.data.notifies).toHaveLength(4);
  });

  it("records a notify with absurd fields within bounds and still answers fail", async () => {
    const long = "x".repeat(5000);
    const params = new URLSearchParams({ out_trade_no: long, sign: "abcdef0123456789", money: "1" });
    params.append("__proto__", "1");
    for (let i = 0; i < 40; i++) params.append(`f${i}`, "v");
    const response = await fetch(`${app.origin}/api/notify?${params}`);
    expect(await response.text()).toBe("fail");
    const [row] = await db.select().from(paymentNotifies).orderBy(sql`${paymentNotifies.id} desc`).limit(1);
    expect(row.outcome).toBe("malformed");
    expect(row.outTradeNo).toHaveLength(64);
    expect(Object.keys(row.params).length).toBeLessThanOrEqual(30);
    expect(row.params.out_trade_no).toHaveLength(200);
  });
});

describe(`查单 and 补单 (${databaseKind})`, () => {
  it("查单 credits an order paid without a notify; the late notify then credits nothing", async () => {
    const { user, outTradeNo, tradeNo } = await paidOrder(30, { notify: false });
    expect(await creditBalance(user.id)).toBe(0);
    const r = await orderAction(outTradeNo, { intent: "query" });
    expect(r.location).toBe(`/admin/orders/${outTradeNo}?notice=order-credited`);
    expect(await creditBalance(user.id)).toBe(30);
    expect(await orderRow(outTradeNo)).toMatchObject({ status: "paid", creditedVia: "query", creditedBy: admin.id, tradeNo });
    // The gateway's notify arrives late: answered success, nothing more credited.
    expect((await gateway.sendNotify(outTradeNo)).body).toBe("success");
    const again = await orderAction(outTradeNo, { intent: "query" });
    expect(again.location).toBe(`/admin/orders/${outTradeNo}?notice=order-already-paid`);
    expect(await creditBalance(user.id)).toBe(30);
    expect(await creditLedger(user.id)).toEqual([{ type: "recharge", amount: 30, description: "在线充值" }]);
    // One audit row, for the 查单 that credited; the one that found it paid changed nothing.
    const audit = await auditOf(outTradeNo);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      adminId: admin.id,
      action: "order.query-credit",
      targetType: "payment_order",
      after: { status: "paid", credits: 30, userId: user.id },
    });
  });

  it("查单 of an order not paid at the gateway credits nothing; gateway errors are clear 502s", async () => {
    const [user] = await quickUsers(1);
    const order = await createPaymentOrder(user.id, 5, app.origin);
    await fetch(order.redirectUrl);
    const unpaid = await orderAction(order.outTradeNo, { intent: "query" });
    expect(unpaid.location).toBe(`/admin/orders/${order.outTradeNo}?notice=order-unpaid`);

    // An order the gateway never saw.
    const unseen = await createPaymentOrder(user.id, 6, app.origin);
    let r = await orderAction(unseen.outTradeNo, { intent: "query" });
    expect(r.status).toBe(502);
    expect(r.data.error).toBe("查单失败：网关返回“订单号不存在”");

    await setConfig({ merchant_key: "not-the-gateway-key" });
    try {
      r = await orderAction(order.outTradeNo, { intent: "query" });
      expect(r.status).toBe(502);
      expect(r.data.error).toBe("查单失败：网关返回“KEY校验失败”");
    } finally {
      await setConfig({ merchant_key: KEY });
    }

    // A gateway that is down.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await setConfig({ payment_gateway_url: `http://127.0.0.1:${port}/submit.php` });
    try {
      r = await orderAction(order.outTradeNo, { intent: "query" });
      expect(r.status).toBe(502);
      expect(r.data.error).toMatch(/^查单失败：/);
    } finally {
      await setConfig({ payment_gateway_url: gateway.submitUrl });
    }
    expect(await creditBalance(user.id)).toBe(0);
    expect((await orderRow(order.outTradeNo)).status).toBe("pending");
  });

  it("补单 needs a reason, credits with 在线充值（补单）, and the late notify credits nothing", async () => {
    const { user, outTradeNo, tradeNo } = await paidOrder(20, { notify: false });
    for (const reason of ["", "   "]) {
      const r = await orderAction(outTradeNo, { intent: "credit", reason });
      expect(r.status).toBe(400);
      expect(r.data.error).toBe("请填写补单原因");
    }
    const tooLong = await orderAction(outTradeNo, { intent: "credit", reason: "长".repeat(201) });
    expect(tooLong.status).toBe(400);
    expect((await orderRow(outTradeNo)).status).toBe("pending");

    const r = await orderAction(outTradeNo, { intent: "credit", reason: "用户提供了支付宝截图", tradeNo });
    expect(r.location).toBe(`/admin/orders/${outTradeNo}?notice=order-credited`);
    expect(await orderRow(outTradeNo)).toMatchObject({ status: "paid", creditedVia: "manual", creditNote: "用户提供了支付宝截图", tradeNo });
    expect((await gateway.sendNotify(outTradeNo)).body).toBe("success");
    const twice = await orderAction(outTradeNo, { intent: "credit", reason: "再补一次" });
    expect(twice.location).toBe(`/admin/orders/${outTradeNo}?notice=order-already-paid`);
    expect(await creditLedger(user.id)).toEqual([{ type: "recharge", amount: 20, description: "在线充值（补单）" }]);
    const audit = await auditOf(outTradeNo);
    expect(audit.map((a) => [a.action, a.reason])).toEqual([["order.manual-credit", "用户提供了支付宝截图"]]);
    expect(await checkLedger()).toEqual([]);
  });

  it(`a notify, 查单 and 补单 at the same moment on separate connections credit once (${databaseKind})`, async () => {
    for (let round = 0; round < 3; round++) {
      const { user, outTradeNo } = await paidOrder(9, { notify: false });
      let holder: ReturnType<typeof postgres> | null = null;
      let release: (() => void) | null = null;
      let held: Promise<unknown> | null = null;
      if (databaseKind === "postgres") {
        // A second connection holds the order row, so all three start and queue behind it.
        holder = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
        const gate = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        held = holder.begin(async (tx) => {
          await tx`select 1 from payment_orders where out_trade_no = ${outTradeNo} for update`;
          locked();
          await gate;
        });
        await isLocked;
      }
      const racing = Promise.all([
        gateway.sendNotify(outTradeNo),
        gateway.sendNotify(outTradeNo),
        orderAction(outTradeNo, { intent: "credit", reason: "并发补单" }),
        orderAction(outTradeNo, { intent: "query" }),
      ]);
      if (release) {
        // All four queue behind the held row before it is let go.
        const watcher = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
        try {
          const waiting = async () =>
            (await watcher<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0].n;
          await waitFor("the four requests to wait for the held order row", async () => (await waiting()) >= 4, { timeout: 10_000 });
        } finally {
          await watcher.end();
        }
        (release as () => void)();
        await held;
        await holder!.end();
      }
      const [n1, n2, manual, query] = await racing;
      expect([n1.body, n2.body]).toEqual(["success", "success"]);
      const notices = [manual.location, query.location].map((l) => new URL(l!, "http://x").searchParams.get("notice"));
      for (const notice of notices) expect(["order-credited", "order-already-paid"]).toContain(notice);
      expect(await creditBalance(user.id)).toBe(9);
      const ledger = await creditLedger(user.id);
      expect(ledger).toHaveLength(1);
      expect(ledger[0].amount).toBe(9);
      // An audit row only if an administrator's action was the one that credited.
      const audit = await auditOf(outTradeNo);
      expect(audit.length).toBe(notices.filter((n) => n === "order-credited").length);
      expect(audit.length).toBeLessThanOrEqual(1);
    }
    expect(await checkLedger()).toEqual([]);
  });
});

describe(`refunds (${databaseKind})`, () => {
  it("takes back an order's unspent credits once, with a reason; refuses spent credits and unpaid orders", async () => {
    const { user, outTradeNo } = await paidOrder(15, { notify: true });
    expect(await creditBalance(user.id)).toBe(15);
    let r = await orderAction(outTradeNo, { intent: "refund", reason: " " });
    expect(r.status).toBe(400);
    expect(r.data.error).toBe("请填写退款原因");
    r = await orderAction(outTradeNo, { intent: "refund", reason: "用户误充，已在网关原路退回" });
    expect(r.location).toBe(`/admin/orders/${outTradeNo}?notice=order-refunded`);
    expect(await creditBalance(user.id)).toBe(0);
    expect(await orderRow(outTradeNo)).toMatchObject({ refundedBy: admin.id, refundReason: "用户误充，已在网关原路退回" });
    r = await orderAction(outTradeNo, { intent: "refund", reason: "再退一次" });
    expect(r.status).toBe(409);
    expect(r.data.error).toBe("该订单已退款");
    expect(await creditLedger(user.id)).toEqual([
      { type: "recharge", amount: 15, description: "在线充值" },
      { type: "consume", amount: 15, description: "充值退款：用户误充，已在网关原路退回" },
    ]);

    // Credits already spent cannot be refunded: nothing changes.
    const spent = await paidOrder(10, { notify: true });
    await db.execute(sql`update credits set balance = balance - 4 where user_id = ${spent.user.id}`);
    await db.execute(sql`insert into credit_transactions (user_id, amount, type, description) values (${spent.user.id}, 4, 'consume', '测试消费')`);
    r = await orderAction(spent.outTradeNo, { intent: "refund", reason: "想退" });
    expect(r.status).toBe(409);
    expect(r.data.error).toBe("积分余额不足，无法退款（用户已使用了这笔充值的积分）");
    expect((await orderRow(spent.outTradeNo)).refundedAt).toBeNull();
    expect(await auditOf(spent.outTradeNo)).toEqual([]);
    expect((await auditOf(outTradeNo)).map((a) => [a.action, a.reason])).toEqual([["order.refund", "用户误充，已在网关原路退回"]]);
    expect(await creditBalance(spent.user.id)).toBe(6);

    const [other] = await quickUsers(1);
    const pending = await createPaymentOrder(other.id, 3, app.origin);
    r = await orderAction(pending.outTradeNo, { intent: "refund", reason: "想退" });
    expect(r.status).toBe(409);
    expect(r.data.error).toBe("只有已支付的订单可以退款");
    r = await orderAction("IKnosuchorder", { intent: "refund", reason: "想退" });
    expect(r.status).toBe(404);
    r = await orderAction(pending.outTradeNo, { intent: "nonsense" });
    expect(r.status).toBe(400);
    expect(await checkLedger()).toEqual([]);
  });
});

describe(`the order list and money figures (${databaseKind})`, () => {
  it("filters by status, order number or e-mail and day; ignores a bad date; shows the nearest page", async () => {
    const { user, outTradeNo } = await paidOrder(11, { notify: true });
    const [pendingUser] = await quickUsers(1);
    const pending = await createPaymentOrder(pendingUser.id, 2, app.origin);
    const list = await import("~/routes/admin/orders");
    const load = async (query: string) => (await callLoader(list, get(`/admin/orders?${query}`))).data;

    let data = await load(`q=${encodeURIComponent(user.email)}`);
    expect(data.orders.map((o: { outTradeNo: string }) => o.outTradeNo)).toEqual([outTradeNo]);
    expect(data.orders[0]).toMatchObject({ amount: 11, status: "paid", creditedVia: "notify", email: user.email });
    data = await load(`q=${outTradeNo}&status=pending`);
    expect(data.total).toBe(0);
    data = await load(`q=${pending.outTradeNo}&status=pending`);
    expect(data.total).toBe(1);
    const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
    data = await load(`q=${outTradeNo}&from=${today}&to=${today}`);
    expect(data.total).toBe(1);
    data = await load(`q=${outTradeNo}&from=2001-01-01&to=2001-01-02`);
    expect(data.total).toBe(0);
    data = await load(`q=${outTradeNo}&from=2024-02-30&to=nonsense&status=bogus&page=999`);
    expect(data).toMatchObject({ total: 1, from: "", to: "", status: "all", page: 1 });
    const stranger = await callLoader(list, request("/admin/orders"));
    expect(stranger.status).toBe(302);
  });

  it("sums top-ups, refunds, purchases, author income and payouts by China day", async () => {
    const before = (await moneyByDay(30))[0];
    expect(await moneyByDay(30)).toHaveLength(30);
    const { outTradeNo } = await paidOrder(40, { notify: true });
    await orderAction(outTradeNo, { intent: "refund", reason: "测试退款" });
    const [buyer, author] = await quickUsers(2);
    await fund(buyer.id, 100);
    const { insertWorks } = await import("../fixtures/works");
    const [workId] = await insertWorks([{ userId: author.id, title: "报表测试", visibility: "public-vip", price: 50 }]);
    await db.insert(chapters).values({ workId, title: "一", content: "内容", position: 65_536, wordCount: 2 });
    const { purchaseWork } = await import("~/server/economy/ledger.server");
    await purchaseWork(buyer.id, workId);
    const after = (await moneyByDay(30))[0];
    expect(after.day).toBe(new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10));
    expect(after.topUps - before.topUps).toBe(40);
    expect(after.topUpOrders - before.topUpOrders).toBe(1);
    expect(after.refunds - before.refunds).toBe(40);
    expect(after.purchases - before.purchases).toBe(50);
    expect(after.authorIncome - before.authorIncome).toBe(35);
    const page = await callLoader(await import("~/routes/admin/money"), get("/admin/money"));
    expect(page.data.days).toHaveLength(30);
  });
});
