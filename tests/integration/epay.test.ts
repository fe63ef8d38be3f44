import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { paymentOrders, siteConfigs } from "~/db/schema";
import { action as creditsAction } from "~/routes/shell/credits/credits";
import { action as notifyAction, loader as notifyLoader } from "~/routes/api/notify";
import { loader as paymentSuccessLoader } from "~/routes/shell/credits/payment-success";
import {
  createPaymentOrder,
  epaySign,
  newOutTradeNo,
  parseMoneyCents,
  PAYMENT_MESSAGES,
  verifyEpaySign,
} from "~/server/economy/epay.server";
import { checkLedger } from "../../scripts/check-ledger";
import { cookiePair, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { paymentReturnCookie } from "~/server/platform/return-to.server";
import { creditBalance, creditLedger, quickUsers, setConfig } from "../fixtures/ledger";
import { gatewaySign, startFakeEpayGateway, type FakeEpayGateway, type Tamper } from "../fakes/epay-gateway";
import { callThroughRoutes } from "./route-chain";
import { errorsOf, resultErrorsOf } from "../fixtures/form-replies";

const KEY = "test-merchant-key-为了测试";
const md5 = (text: string) => createHash("md5").update(text, "utf8").digest("hex");

/** The app's /api/notify over real HTTP, so the test gateway calls it as it would the site. */
async function startNotifyServer() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = `http://${req.headers.host}${req.url}`;
    const headers = new Headers();
    if (req.headers["content-type"]) headers.set("Content-Type", req.headers["content-type"]);
    const request = new Request(url, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const response =
      new URL(url).pathname !== "/api/notify"
        ? new Response("not found", { status: 404 })
        : req.method === "GET"
          ? await callThroughRoutes(notifyLoader, { request })
          : await callThroughRoutes(notifyAction, { request });
    res.writeHead(response.status, { "Content-Type": response.headers.get("Content-Type") ?? "text/plain" });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function orderOf(outTradeNo: string) {
  const [order] = await db.select().from(paymentOrders).where(eq(paymentOrders.outTradeNo, outTradeNo));
  return order;
}

async function ordersOf(userId: string) {
  return db.select().from(paymentOrders).where(eq(paymentOrders.userId, userId));
}

describe("epay signing (docs/protocols.md)", () => {
  it("signs the non-empty parameters except sign and sign_type, sorted by byte, with the key appended", () => {
    const params = {
      pid: "1001",
      type: "alipay",
      out_trade_no: "IK1",
      name: "积分充值",
      money: "10.00",
      empty: "",
      zero: "0",
      note: " a b ",
      Zed: "upper case sorts first",
      sign: "ignored",
      sign_type: "MD5",
    };
    const expected = md5(
      "Zed=upper case sorts first&money=10.00&name=积分充值&note= a b &out_trade_no=IK1&pid=1001&type=alipay&zero=0" + KEY,
    );
    expect(epaySign(params, KEY)).toBe(expected);
    // The test gateway's own, independent implementation agrees.
    expect(gatewaySign(params, KEY)).toBe(expected);
  });

  it("verifies only the exact lowercase hex", () => {
    const params: Record<string, string> = { pid: "1001", money: "1.00" };
    const sign = epaySign(params, KEY);
    expect(verifyEpaySign({ ...params, sign }, KEY)).toBe(true);
    expect(verifyEpaySign({ ...params, sign: sign.toUpperCase() }, KEY)).toBe(false);
    expect(verifyEpaySign({ ...params, sign: sign.slice(1) }, KEY)).toBe(false);
    expect(verifyEpaySign({ ...params, sign: `${sign}0` }, KEY)).toBe(false);
    expect(verifyEpaySign(params, KEY)).toBe(false);
    expect(verifyEpaySign({ ...params, sign: epaySign(params, "") }, KEY)).toBe(false);
  });

  it("reads money as whole cents without floats", () => {
    const cases: [string, number | null][] = [
      ["10.00", 1000],
      ["10", 1000],
      ["10.5", 1050],
      ["0.01", 1],
      ["0.1", 10],
      ["19.99", 1999],
      ["10.001", null],
      ["-1.00", null],
      ["1e3", null],
      [" 10.00", null],
      ["10.", null],
      [".50", null],
      ["abc", null],
      ["", null],
      ["1234567890123.00", null],
    ];
    for (const [money, cents] of cases) expect(parseMoneyCents(money), money).toBe(cents);
  });

  it("makes prefixed, time-based, unique order numbers", () => {
    const numbers = new Set(Array.from({ length: 2000 }, () => newOutTradeNo()));
    expect(numbers.size).toBe(2000);
    for (const n of numbers) expect(n).toMatch(/^IK\d{26}$/);
    expect(newOutTradeNo(new Date("2025-01-02T03:04:05.678Z"))).toMatch(/^IK20250102110405678\d{9}$/);
  });
});

describe("creating an order", () => {
  const gatewayUrl = "https://pay.example.com/submit.php";

  it("says 支付接口未配置 unless payment_api is chosen and set, 支付配置不完整 when partly set", async () => {
    const [user] = await quickUsers(1);
    await setConfig({ payment_method_v2: "redeem_code", payment_gateway_url: gatewayUrl, merchant_pid: "1001", merchant_key: KEY });
    await expect(createPaymentOrder(user.id, 10, "http://site")).rejects.toThrow(PAYMENT_MESSAGES.notConfigured);
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: "", merchant_pid: "", merchant_key: "" });
    await expect(createPaymentOrder(user.id, 10, "http://site")).rejects.toThrow(PAYMENT_MESSAGES.notConfigured);
    for (const partial of [
      { payment_gateway_url: gatewayUrl, merchant_pid: "1001", merchant_key: "" },
      { payment_gateway_url: gatewayUrl, merchant_pid: "", merchant_key: KEY },
      { payment_gateway_url: "", merchant_pid: "1001", merchant_key: KEY },
      { payment_gateway_url: "javascript:alert(1)", merchant_pid: "1001", merchant_key: KEY },
    ]) {
      await setConfig(partial);
      await expect(createPaymentOrder(user.id, 10, "http://site")).rejects.toThrow(PAYMENT_MESSAGES.incomplete);
    }
    expect(await ordersOf(user.id)).toEqual([]);
  });

  it("stores a pending order and signs the gateway URL (pid, alipay, notify and return URLs, money 10.00, MD5)", async () => {
    const [user] = await quickUsers(1);
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: gatewayUrl, merchant_pid: "1001", merchant_key: KEY });

    const order = await createPaymentOrder(user.id, 10, "https://inkstone.example");

    const url = new URL(order.redirectUrl);
    expect(`${url.origin}${url.pathname}`).toBe(gatewayUrl);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toEqual({
      pid: "1001",
      type: "alipay",
      out_trade_no: order.outTradeNo,
      notify_url: "https://inkstone.example/api/notify",
      return_url: "https://inkstone.example/payment/success",
      name: "积分充值",
      money: "10.00",
      sign: expect.stringMatching(/^[0-9a-f]{32}$/),
      sign_type: "MD5",
    });
    expect(params.sign).toBe(gatewaySign(params, KEY));
    const stored = await orderOf(order.outTradeNo);
    expect(stored).toMatchObject({ userId: user.id, amount: 10, status: "pending", paidAt: null });
    expect(await creditBalance(user.id)).toBe(0);
  });

  it("the top-up form refuses 0, -5, 1.5, 1e12, text and empty, creating no order", async () => {
    const [user] = await quickUsers(1);
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: gatewayUrl, merchant_pid: "1001", merchant_key: KEY });
    const cookie = await sessionCookieFor(user.id);
    const post = (amount: string) =>
      callThroughRoutes(creditsAction, { request: userRequest(cookie, "/credits?dialog=topup", { intent: "topup", amount }) });
    for (const amount of ["0", "-5", "1.5", "1e12", "abc", "", "0.99"]) {
      expect(resultErrorsOf(await post(amount)), amount).toEqual(["请输入有效的充值金额"]);
    }
    expect(resultErrorsOf(await post("1000000000000"))).toEqual(["单次充值金额不能超过50000元"]);
    expect(await ordersOf(user.id)).toEqual([]);

    const response = (await post("25")) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^https:\/\/pay\.example\.com\/submit\.php\?pid=1001&type=alipay&/);
    expect((await ordersOf(user.id)).map((o) => o.amount)).toEqual([25]);

    await setConfig({ payment_method_v2: "redeem_code" });
    expect(resultErrorsOf(await post("25"))).toEqual(["支付接口未配置"]);
    expect(await ordersOf(user.id)).toHaveLength(1);
  });
});

describe(`the round trip through the test gateway (${databaseKind})`, () => {
  let gateway: FakeEpayGateway;
  let app: Awaited<ReturnType<typeof startNotifyServer>>;

  beforeAll(async () => {
    app = await startNotifyServer();
    gateway = await startFakeEpayGateway({ pid: "2002", key: KEY });
    await setConfig({ payment_method_v2: "payment_api", payment_gateway_url: gateway.submitUrl, merchant_pid: "2002", merchant_key: KEY });
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });

  afterAll(async () => {
    await gateway?.settled();
    await gateway?.close();
    await app?.close();
    vi.restoreAllMocks();
  });

  /** Creates an order and opens the gateway's page for it, as the browser would. */
  async function openOrder(userId: string, amount: number) {
    const order = await createPaymentOrder(userId, amount, app.origin);
    const page = await fetch(order.redirectUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("确认支付");
    return { ...order, tradeNo: gateway.orders.get(order.outTradeNo)!.tradeNo };
  }

  it("credits once when the gateway notifies, then repeats the notify", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 10);

    const paid = await fetch(`${gateway.url}/pay`, {
      method: "POST",
      body: new URLSearchParams({ trade_no: order.tradeNo }),
      redirect: "manual",
    });
    expect(paid.status).toBe(302);
    const returnUrl = new URL(paid.headers.get("Location")!);
    expect(`${returnUrl.origin}${returnUrl.pathname}`).toBe(`${app.origin}/payment/success`);
    expect(returnUrl.searchParams.get("out_trade_no")).toBe(order.outTradeNo);

    // The first notify was answered before the payer was sent back.
    expect(gateway.notifies.filter((n) => n.outTradeNo === order.outTradeNo)[0]).toMatchObject({ body: "success", method: "GET" });
    expect(await creditBalance(user.id)).toBe(10);
    await gateway.settled();
    const answers = gateway.notifies.filter((n) => n.outTradeNo === order.outTradeNo).map((n) => n.body);
    expect(answers).toEqual(["success", "success", "success"]);
    expect(await creditBalance(user.id)).toBe(10);
    expect(await creditLedger(user.id)).toEqual([{ type: "recharge", amount: 10, description: "在线充值" }]);
    expect(await orderOf(order.outTradeNo)).toMatchObject({ status: "paid", tradeNo: order.tradeNo, paidAt: expect.any(Date) });

    // The return page reads the order from the database, for its own user only.
    const cookie = await sessionCookieFor(user.id);
    const page = await callThroughRoutes(paymentSuccessLoader, { request: userRequest(cookie, `/payment/success${returnUrl.search}`) });
    expect(page.order).toMatchObject({ outTradeNo: order.outTradeNo, amount: 10, status: "paid" });
    const [stranger] = await quickUsers(1);
    const other = await callThroughRoutes(paymentSuccessLoader, {
      request: userRequest(await sessionCookieFor(stranger.id), `/payment/success${returnUrl.search}`),
    });
    expect(other.order).toBeNull();
  });

  it("signs a gateway address's own query with the order, so the gateway accepts the top-up (…/submit.php?channel=7)", async () => {
    const [user] = await quickUsers(1);
    await setConfig({ payment_gateway_url: `${gateway.submitUrl}?channel=7` });
    try {
      const order = await openOrder(user.id, 12);
      const sent = new URL(order.redirectUrl);
      expect(sent.searchParams.get("channel")).toBe("7");
      expect(sent.searchParams.getAll("channel")).toHaveLength(1);
      const params = Object.fromEntries(sent.searchParams);
      expect(params.sign).toBe(gatewaySign(params, KEY));
    } finally {
      await setConfig({ payment_gateway_url: gateway.submitUrl });
    }
  });

  it("refuses, when saved, a gateway address whose query names the site's own parameters or one twice", async () => {
    const { adminCookieFor, callAction, createAdmin, request } = await import("./admin-fixtures");
    const page = await import("~/routes/admin/settings/payment-api");
    const cookie = await adminCookieFor((await createAdmin()).id);
    const save = (gatewayUrl: string) => callAction(page, request("/admin/settings/payment-api", { cookie }, { gatewayUrl, merchantPid: "2002", merchantKey: "" }));
    const cases: [string, string][] = [
      [`${gateway.submitUrl}?pid=9`, "支付网关地址不能带参数 pid：它由本站在下单时填写并签名，请从地址中去掉"],
      [`${gateway.submitUrl}?channel=7&money=1`, "支付网关地址不能带参数 money：它由本站在下单时填写并签名，请从地址中去掉"],
      [`${gateway.submitUrl}?channel=7&channel=8`, "支付网关地址中的参数 channel 重复了，每个参数只能出现一次"],
      [`${gateway.submitUrl}#pay`, "支付网关地址不能带 # 之后的部分"],
    ];
    for (const [gatewayUrl, message] of cases) {
      const answer = await save(gatewayUrl);
      expect([gatewayUrl, answer.status, errorsOf(answer.data)]).toEqual([gatewayUrl, 400, [message]]);
    }
    const kept = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "payment_gateway_url"));
    expect(kept[0].value).toBe(gateway.submitUrl);
    expect((await save(`${gateway.submitUrl}?channel=7`)).location).toBe("/admin/settings/payment-api?notice=saved");
    await setConfig({ payment_gateway_url: gateway.submitUrl });
  });

  it("sends a reader who came from 去充值 back there once paid, with 充值成功 shown on that page", async () => {
    const [user, author] = await quickUsers(2);
    const [workId] = await insertWorks([{ userId: author.id, title: "差积分", visibility: "public-vip", price: 30 }]);
    const back = `/works/${workId}?purchase=1`;
    const cookie = `${await sessionCookieFor(user.id)}; ${cookiePair(await paymentReturnCookie.serialize(back))}`;
    const order = await openOrder(user.id, 30);
    const returnPage = () =>
      callThroughRoutes(paymentSuccessLoader, { request: userRequest(cookie, `/payment/success?out_trade_no=${order.outTradeNo}`) }).catch((thrown) => thrown);

    // Not paid yet: the page waits (and refreshes itself).
    expect(await returnPage()).toMatchObject({ order: { status: "pending" }, returnTo: back });

    const paid = await fetch(`${gateway.url}/pay`, { method: "POST", body: new URLSearchParams({ trade_no: order.tradeNo }), redirect: "manual" });
    expect(paid.status).toBe(302);
    const answer = (await returnPage()) as Response;
    expect(answer).toBeInstanceOf(Response);
    expect([answer.status, answer.headers.get("Location")]).toEqual([302, back]);
    const cookies = answer.headers.getSetCookie();
    // The remembered page is forgotten, and the notice travels to it.
    expect(cookies.some((c) => /^inkstone_payment_return=;/.test(c))).toBe(true);
    const flash = cookiePair(cookies.find((c) => c.startsWith("inkstone_flash=")) ?? null);
    const { loader: workLoader } = await import("~/routes/shell/reader/work");
    const backPage = (await callThroughRoutes(workLoader, { request: userRequest(`${cookie}; ${flash}`, back) })) as { data: { notice: unknown } };
    expect(backPage.data.notice).toEqual({ kind: "success", text: `充值成功：订单 ${order.outTradeNo}，30 积分已到账` });
  });

  it("accepts the notify as a POST form too", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 7);
    const record = await gateway.sendNotify(order.outTradeNo, { method: "POST" });
    expect(record.body).toBe("success");
    expect(await creditBalance(user.id)).toBe(7);
    expect((await gateway.sendNotify(order.outTradeNo, { method: "POST" })).body).toBe("success");
    expect(await creditBalance(user.id)).toBe(7);
  });

  it("accepts a POST notify whose fields are only in the query, with no body and no content type", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 3);
    const record = await gateway.sendNotify(order.outTradeNo, { method: "POST-query" });
    expect(record).toMatchObject({ method: "POST-query", status: 200, body: "success" });
    expect(await creditBalance(user.id)).toBe(3);
    // Forged in the same shape: still refused.
    const [other] = await quickUsers(1);
    const second = await openOrder(other.id, 4);
    expect((await gateway.sendNotify(second.outTradeNo, { method: "POST-query", tamper: "wrong-sign" })).body).toBe("fail");
    expect(await creditBalance(other.id)).toBe(0);
  });

  it("never credits from the return URL, even with a correctly signed query", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 12);
    const query = new URLSearchParams(gateway.notifyParams(order.outTradeNo));
    const cookie = await sessionCookieFor(user.id);
    for (let i = 0; i < 3; i++) {
      const page = await callThroughRoutes(paymentSuccessLoader, { request: userRequest(cookie, `/payment/success?${query}`) });
      expect(page.order).toMatchObject({ status: "pending" });
    }
    expect(await creditBalance(user.id)).toBe(0);
    expect((await orderOf(order.outTradeNo)).status).toBe("pending");
  });

  it("answers fail and credits nothing for forged, altered, underpaid, unknown or incomplete notifies", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 30);
    const tampers: Tamper[] = [
      "wrong-sign",
      "uppercase-sign",
      "keyless-sign",
      "clone-style-sign",
      "altered-money",
      "underpaid",
      "wrong-pid",
      "unknown-order",
      "missing-money",
      "missing-sign",
      "trade-pending",
    ];
    for (const tamper of tampers) {
      for (const method of ["GET", "POST"] as const) {
        const record = await gateway.sendNotify(order.outTradeNo, { tamper, method });
        expect([tamper, method, record.status, record.body]).toEqual([tamper, method, 200, "fail"]);
      }
    }
    expect(await creditBalance(user.id)).toBe(0);
    expect(await orderOf(order.outTradeNo)).toMatchObject({ status: "pending", paidAt: null, tradeNo: null });

    // A field sent twice, a notify with nothing, a JSON body, an absurd body.
    const signed = gateway.notifyParams(order.outTradeNo);
    const twice = new URLSearchParams(signed);
    twice.append("money", "3000.00");
    expect(await (await fetch(`${app.origin}/api/notify?${twice}`)).text()).toBe("fail");
    expect(await (await fetch(`${app.origin}/api/notify`)).text()).toBe("fail");
    const json = await fetch(`${app.origin}/api/notify`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(signed),
    });
    expect(await json.text()).toBe("fail");
    const huge = await fetch(`${app.origin}/api/notify`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams(signed)}&pad=${"x".repeat(100_000)}`,
    });
    expect(await huge.text()).toBe("fail");
    expect(await creditBalance(user.id)).toBe(0);

    // The genuine notify still works afterwards.
    expect((await gateway.sendNotify(order.outTradeNo)).body).toBe("success");
    expect(await creditBalance(user.id)).toBe(30);
  });

  it("refuses a correctly signed notify whose amount differs from an already-paid order", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 5);
    expect((await gateway.sendNotify(order.outTradeNo)).body).toBe("success");
    const params: Record<string, string> = { ...gateway.notifyParams(order.outTradeNo), money: "500.00" };
    delete params.sign;
    params.sign = gatewaySign(params, KEY);
    expect(await (await fetch(`${app.origin}/api/notify?${new URLSearchParams(params)}`)).text()).toBe("fail");
    expect(await creditBalance(user.id)).toBe(5);
  });

  it("answers fail while the merchant key is not configured", async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 9);
    await setConfig({ merchant_key: "" });
    try {
      expect((await gateway.sendNotify(order.outTradeNo)).body).toBe("fail");
      expect(await creditBalance(user.id)).toBe(0);
    } finally {
      await setConfig({ merchant_key: KEY });
    }
    expect((await gateway.sendNotify(order.outTradeNo)).body).toBe("success");
  });

  it(`credits once when the same notify arrives 20 times at once (${databaseKind})`, async () => {
    const [user] = await quickUsers(1);
    const order = await openOrder(user.id, 50);

    const records = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway.sendNotify(order.outTradeNo, { method: i % 2 ? "POST" : "GET" })));

    expect(records.map((r) => r.body)).toEqual(Array(20).fill("success"));
    expect(await creditBalance(user.id)).toBe(50);
    expect(await creditLedger(user.id)).toEqual([{ type: "recharge", amount: 50, description: "在线充值" }]);
    expect(await checkLedger()).toEqual([]);
  });

  it(`credits each of several orders once under concurrent notifies (${databaseKind})`, async () => {
    const users = await quickUsers(4);
    const orders = await Promise.all(users.map((u, i) => openOrder(u.id, 10 + i)));
    await Promise.all(orders.flatMap((o) => Array.from({ length: 10 }, () => gateway.sendNotify(o.outTradeNo))));
    for (const [i, u] of users.entries()) expect(await creditBalance(u.id)).toBe(10 + i);
    expect(await checkLedger()).toEqual([]);
  });
});
