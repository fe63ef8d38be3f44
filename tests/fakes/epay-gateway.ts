import { createHash, randomInt } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A test payment gateway speaking the epay (易支付) protocol as the platform does
 * (docs/protocols.md), written independently of the app's own signing code:
 *
 *   GET|POST /submit.php   the page the app sends the payer to: checks pid and sign, shows
 *                          the order with 确认支付 / 取消支付 (plain forms, no JavaScript)
 *   POST     /pay          "pays": sends the signed notify to notify_url (GET, or POST when
 *                          so configured) and waits for its answer, then redirects the
 *                          payer to return_url with the same signed query; then repeats
 *                          the notify `repeatNotifies` more times, as real gateways do.
 *                          The page's 测试选项 (notify_delay_ms, repeat, drop_notify) override
 *                          them per order; drop_notify=1 sends no notify at all.
 *   GET|POST /api.php      the merchant API; act=order with pid, key and out_trade_no (or
 *                          trade_no) answers the order as JSON the way the platform does:
 *                          {code: 1, msg, trade_no, out_trade_no, type, pid, addtime, endtime,
 *                          name, money, status: 1 paid | 0 unpaid, param, buyer}, or
 *                          {code: -1 | -3, msg} for an unknown order or a wrong key
 *   GET      /healthz      ok
 *
 * Control, for tests in another process (the e2e app server runs separately):
 *   GET  /__control/orders/:out_trade_no   the order and every notify sent with its answer
 *   POST /__control/behaviour              JSON {notifyDelayMs, repeatNotifies, notifyMethod, dropNotifies}
 *                                          (dropNotifies: a payment sends no notify at all, as when
 *                                          the merchant's server was unreachable)
 *   POST /__control/notify/:out_trade_no   JSON {tamper?, method?}: send one notify now
 *                                          (optionally forged) and return the app's answer
 *
 * `notifyDelayMs` > 0 redirects the payer first and notifies after the delay, so the
 * return page is seen while the order is still pending.
 */

export const DEFAULT_TEST_MERCHANT = { pid: "1001", key: "inkstone-test-merchant-key" } as const;
/** The port the e2e server's site configuration points at (E2E_GATEWAY_PORT overrides). */
export const E2E_GATEWAY_PORT = Number(process.env.E2E_GATEWAY_PORT ?? 3108);

export type Params = Record<string, string>;

/** The platform's rule: non-empty params except sign/sign_type, byte order, k=v&..., key appended, md5 hex. */
export function gatewaySign(params: Params, key: string): string {
  const keys = Object.keys(params)
    .filter((k) => k !== "sign" && k !== "sign_type" && params[k] !== "")
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return createHash("md5")
    .update(keys.map((k) => `${k}=${params[k]}`).join("&") + key)
    .digest("hex");
}

/** Ways to spoil a notify, for the forged-notify tests. */
export type Tamper =
  | "none"
  | "wrong-sign"
  | "uppercase-sign"
  | "keyless-sign"
  | "altered-money"
  | "underpaid"
  | "wrong-pid"
  | "unknown-order"
  | "missing-money"
  | "missing-sign"
  | "trade-pending"
  | "clone-style-sign";

export interface GatewayOrder {
  tradeNo: string;
  outTradeNo: string;
  type: string;
  name: string;
  money: string;
  notifyUrl: string;
  returnUrl: string;
  param: string;
  status: "unpaid" | "paid";
  addTime: string;
  endTime: string;
}

/** POST-query: a POST with the fields in the query string, no body and no content type. */
export type NotifyMethod = "GET" | "POST" | "POST-query";

export interface NotifyRecord {
  outTradeNo: string;
  method: NotifyMethod;
  tamper: Tamper;
  status: number;
  body: string;
  at: string;
}

export interface Behaviour {
  notifyDelayMs: number;
  repeatNotifies: number;
  notifyMethod: NotifyMethod;
  /** Payments send no notify (the merchant never hears of them): for 查单 and 补单. */
  dropNotifies: boolean;
}

export interface FakeEpayGateway {
  url: string;
  port: number;
  /** What the site's payment_gateway_url is set to. */
  submitUrl: string;
  pid: string;
  key: string;
  orders: Map<string, GatewayOrder>;
  notifies: NotifyRecord[];
  behaviour: Behaviour;
  /** The signed notify the gateway would send for an order (after `tamper`). */
  notifyParams: (outTradeNo: string, tamper?: Tamper) => Params;
  /** Sends one notify now and returns the app's answer. */
  sendNotify: (outTradeNo: string, options?: { tamper?: Tamper; method?: NotifyMethod }) => Promise<NotifyRecord>;
  /** Resolves when every notify started so far has been answered. */
  settled: () => Promise<void>;
  close: () => Promise<void>;
}

const REQUIRED_SUBMIT = ["pid", "type", "out_trade_no", "notify_url", "return_url", "name", "money", "sign"];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:480px;margin:3rem auto;padding:0 1rem;color:#222}
.card{border:1px solid #ddd;border-radius:12px;padding:1.5rem}dl{display:grid;grid-template-columns:6rem 1fr;gap:.4rem}
dt{color:#777}dd{margin:0}button{font:inherit;padding:.6rem 1.4rem;border-radius:8px;border:1px solid #1677ff;background:#1677ff;color:#fff;cursor:pointer}
.cancel{margin-left:1rem}</style></head><body><div class="card">${body}</div></body></html>`;
}

async function readBody(req: http.IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function paramsOf(search: URLSearchParams): Params {
  const out: Params = {};
  for (const [k, v] of search) out[k] = v;
  return out;
}

export async function startFakeEpayGateway(
  options: { port?: number; host?: string; pid?: string; key?: string; behaviour?: Partial<Behaviour> } = {},
): Promise<FakeEpayGateway> {
  const pid = options.pid ?? DEFAULT_TEST_MERCHANT.pid;
  const key = options.key ?? DEFAULT_TEST_MERCHANT.key;
  const host = options.host ?? "127.0.0.1";
  const orders = new Map<string, GatewayOrder>();
  const notifies: NotifyRecord[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const behaviour: Behaviour = { notifyDelayMs: 0, repeatNotifies: 2, notifyMethod: "GET", dropNotifies: false, ...options.behaviour };
  /** The platform's time format, in China time: 2024-01-31 12:00:00. */
  const gatewayTime = () => new Date(Date.now() + 8 * 3600 * 1000).toISOString().slice(0, 19).replace("T", " ");

  /** api.php?act=order: the merchant's order query, answered as the platform does. */
  function orderApi(params: Params, res: http.ServerResponse) {
    const json = (value: unknown) => {
      // The platform answers JSON with a text/html content type.
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(JSON.stringify(value));
    };
    if (params.act !== "order") return json({ code: -5, msg: "No Act!" });
    if (params.pid !== pid) return json({ code: -2, msg: "商户ID不存在" });
    if (params.key !== key) return json({ code: -3, msg: "KEY校验失败" });
    const order = params.out_trade_no
      ? orders.get(params.out_trade_no)
      : [...orders.values()].find((o) => o.tradeNo === params.trade_no);
    if (!order) return json({ code: -1, msg: "订单号不存在" });
    json({
      code: 1,
      msg: "查询订单号成功！",
      trade_no: order.tradeNo,
      out_trade_no: order.outTradeNo,
      api_trade_no: "",
      type: order.type,
      pid: Number(pid),
      addtime: order.addTime,
      endtime: order.endTime,
      name: order.name,
      money: order.money,
      status: order.status === "paid" ? 1 : 0,
      param: order.param,
      buyer: "",
    });
  }

  function notifyParams(outTradeNo: string, tamper: Tamper = "none"): Params {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`no order ${outTradeNo}`);
    const params: Params = {
      pid,
      trade_no: order.tradeNo,
      out_trade_no: order.outTradeNo,
      type: order.type,
      name: order.name,
      money: order.money,
      trade_status: "TRADE_SUCCESS",
    };
    if (order.param) params.param = order.param;
    let signKey = key;
    if (tamper === "altered-money") params.money = (Number(order.money) * 100).toFixed(2);
    if (tamper === "wrong-pid") params.pid = `${pid}9`;
    if (tamper === "unknown-order") params.out_trade_no = `${order.outTradeNo}X`;
    if (tamper === "trade-pending") params.trade_status = "WAIT_BUYER_PAY";
    if (tamper === "keyless-sign") signKey = "";
    if (tamper === "underpaid") {
      // Correctly signed, but for less money than the order: a gateway-side mismatch.
      params.money = (Math.round(Number(order.money) * 100 - 1) / 100).toFixed(2);
    }
    let sign = gatewaySign(params, signKey);
    if (tamper === "altered-money") {
      // Signed for the real amount, then the money changed in transit.
      sign = gatewaySign({ ...params, money: order.money }, key);
    }
    if (tamper === "clone-style-sign") {
      const keys = Object.keys(params).filter((k) => params[k] !== "").sort();
      sign = createHash("md5").update(`${keys.map((k) => `${k}=${params[k]}`).join("&")}&key=${key}`).digest("hex");
    }
    if (tamper === "wrong-sign") sign = sign.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    if (tamper === "uppercase-sign") sign = sign.toUpperCase();
    params.sign = sign;
    params.sign_type = "MD5";
    if (tamper === "missing-money") delete params.money;
    if (tamper === "missing-sign") delete params.sign;
    return params;
  }

  async function sendNotify(
    outTradeNo: string,
    { tamper = "none", method = behaviour.notifyMethod }: { tamper?: Tamper; method?: NotifyMethod } = {},
  ): Promise<NotifyRecord> {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`no order ${outTradeNo}`);
    const params = new URLSearchParams(notifyParams(outTradeNo, tamper));
    const target = new URL(order.notifyUrl);
    let response: Response;
    if (method !== "POST") {
      for (const [k, v] of params) target.searchParams.append(k, v);
      response = await fetch(target, { method: method === "GET" ? "GET" : "POST", redirect: "manual" });
    } else {
      response = await fetch(target, { method: "POST", body: params, redirect: "manual" });
    }
    const record: NotifyRecord = {
      outTradeNo,
      method,
      tamper,
      status: response.status,
      body: (await response.text()).slice(0, 2000),
      at: new Date().toISOString(),
    };
    notifies.push(record);
    return record;
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function repeatNotify(outTradeNo: string, repeats: number) {
    for (let i = 0; i < repeats; i++) {
      await sleep(50);
      await sendNotify(outTradeNo).catch((error) => console.error("fake gateway: repeated notify failed", error));
    }
  }

  async function firstNotify(outTradeNo: string) {
    await sendNotify(outTradeNo).catch((error) => console.error("fake gateway: notify failed", error));
  }

  function submit(params: Params, res: http.ServerResponse) {
    const missing = REQUIRED_SUBMIT.filter((k) => !params[k]);
    const problem = missing.length
      ? `缺少参数：${missing.join(", ")}`
      : params.pid !== pid
        ? "商户不存在"
        : params.sign_type && params.sign_type !== "MD5"
          ? "不支持的签名类型"
          : params.sign !== gatewaySign(params, key)
            ? "签名校验失败"
            : !/^\d+(\.\d{1,2})?$/.test(params.money) || Number(params.money) <= 0
              ? "金额不正确"
              : null;
    if (problem) {
      res.writeHead(400, { "Content-Type": "text/html; charset=utf-8" });
      res.end(page("支付失败", `<h1>支付失败</h1><p id="gateway-error">${escapeHtml(problem)}</p>`));
      return;
    }
    let order = orders.get(params.out_trade_no);
    if (!order) {
      order = {
        tradeNo: `2024${Date.now()}${String(randomInt(0, 10_000)).padStart(4, "0")}`,
        outTradeNo: params.out_trade_no,
        type: params.type,
        name: params.name,
        money: params.money,
        notifyUrl: params.notify_url,
        returnUrl: params.return_url,
        param: params.param ?? "",
        status: "unpaid",
        addTime: gatewayTime(),
        endTime: "",
      };
      orders.set(order.outTradeNo, order);
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(
      page(
        "测试支付网关",
        `<h1>测试支付网关</h1>
<dl><dt>商品</dt><dd id="order-name">${escapeHtml(order.name)}</dd><dt>金额</dt><dd id="order-money">¥${escapeHtml(order.money)}</dd>
<dt>订单号</dt><dd id="order-no">${escapeHtml(order.outTradeNo)}</dd><dt>支付方式</dt><dd>${escapeHtml(order.type)}</dd></dl>
${
  order.status === "paid"
    ? `<p>该订单已支付。</p><p><a href="${escapeHtml(returnTo(order))}">返回商户</a></p>`
    : `<form method="post" action="/pay"><input type="hidden" name="trade_no" value="${escapeHtml(order.tradeNo)}">
<details><summary>测试选项</summary>
<p><label>延迟通知（毫秒） <input name="notify_delay_ms" type="number" min="0" value="${behaviour.notifyDelayMs}"></label></p>
<p><label>重复通知次数 <input name="repeat" type="number" min="0" value="${behaviour.repeatNotifies}"></label></p>
<p><label><input name="drop_notify" type="checkbox" value="1"${behaviour.dropNotifies ? " checked" : ""}> 不发送通知（模拟通知丢失）</label></p></details>
<p><button type="submit">确认支付</button><a class="cancel" href="${escapeHtml(order.returnUrl)}">取消支付</a></p></form>`
}`,
      ),
    );
  }

  function returnTo(order: GatewayOrder): string {
    const url = new URL(order.returnUrl);
    for (const [k, v] of Object.entries(notifyParams(order.outTradeNo))) url.searchParams.set(k, v);
    return url.toString();
  }

  async function pay(body: string, res: http.ServerResponse) {
    const form = new URLSearchParams(body);
    const tradeNo = form.get("trade_no");
    const number = (name: string, fallback: number) => {
      const value = Number(form.get(name) ?? "");
      return form.get(name) && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
    };
    const order = [...orders.values()].find((o) => o.tradeNo === tradeNo);
    if (!order) {
      res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" });
      res.end(page("支付失败", "<h1>订单不存在</h1>"));
      return;
    }
    const firstTime = order.status === "unpaid";
    order.status = "paid";
    if (firstTime) order.endTime = gatewayTime();
    const dropped = form.has("drop_notify") ? form.get("drop_notify") === "1" : behaviour.dropNotifies;
    if (firstTime && !dropped) {
      const notifyDelayMs = number("notify_delay_ms", behaviour.notifyDelayMs);
      const repeatNotifies = number("repeat", behaviour.repeatNotifies);
      if (notifyDelayMs > 0) {
        track(sleep(notifyDelayMs).then(() => firstNotify(order.outTradeNo)).then(() => repeatNotify(order.outTradeNo, repeatNotifies)));
      } else {
        // Like a real gateway, the first notify is usually answered before the payer is back.
        await track(firstNotify(order.outTradeNo));
        track(repeatNotify(order.outTradeNo, repeatNotifies));
      }
    }
    res.writeHead(302, { Location: returnTo(order) });
    res.end();
  }

  async function control(req: http.IncomingMessage, url: URL, res: http.ServerResponse) {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(value));
    };
    const orderMatch = /^\/__control\/orders\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && orderMatch) {
      const outTradeNo = decodeURIComponent(orderMatch[1]);
      return json(200, { order: orders.get(outTradeNo) ?? null, notifies: notifies.filter((n) => n.outTradeNo === outTradeNo) });
    }
    if (req.method === "POST" && url.pathname === "/__control/behaviour") {
      const input = JSON.parse((await readBody(req)) || "{}") as Partial<Behaviour>;
      if (typeof input.notifyDelayMs === "number") behaviour.notifyDelayMs = input.notifyDelayMs;
      if (typeof input.repeatNotifies === "number") behaviour.repeatNotifies = input.repeatNotifies;
      if (input.notifyMethod === "GET" || input.notifyMethod === "POST") behaviour.notifyMethod = input.notifyMethod;
      if (typeof input.dropNotifies === "boolean") behaviour.dropNotifies = input.dropNotifies;
      return json(200, behaviour);
    }
    const notifyMatch = /^\/__control\/notify\/([^/]+)$/.exec(url.pathname);
    if (req.method === "POST" && notifyMatch) {
      const input = JSON.parse((await readBody(req)) || "{}") as { tamper?: Tamper; method?: NotifyMethod };
      const outTradeNo = decodeURIComponent(notifyMatch[1]);
      if (!orders.has(outTradeNo)) return json(404, { error: "no such order" });
      return json(200, await sendNotify(outTradeNo, input));
    }
    return json(404, { error: "unknown control path" });
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://gateway.invalid");
    const handle = async () => {
      if (url.pathname === "/healthz") {
        res.writeHead(200, { "Content-Type": "text/plain" });
        return res.end("ok");
      }
      if (url.pathname.startsWith("/__control/")) return control(req, url, res);
      if (url.pathname === "/submit.php" && req.method === "GET") return submit(paramsOf(url.searchParams), res);
      if (url.pathname === "/submit.php" && req.method === "POST") {
        return submit(paramsOf(new URLSearchParams(await readBody(req))), res);
      }
      if (url.pathname === "/pay" && req.method === "POST") return pay(await readBody(req), res);
      if (url.pathname === "/api.php" && req.method === "GET") return orderApi(paramsOf(url.searchParams), res);
      if (url.pathname === "/api.php" && req.method === "POST") {
        return orderApi({ ...paramsOf(url.searchParams), ...paramsOf(new URLSearchParams(await readBody(req))) }, res);
      }
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("not found");
    };
    handle().catch((error) => {
      console.error("fake gateway failed", error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    submitUrl: `${url}/submit.php`,
    pid,
    key,
    orders,
    notifies,
    behaviour,
    notifyParams,
    sendNotify: (outTradeNo, opts) => track(sendNotify(outTradeNo, opts)),
    settled: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// `npm run dev:gateway [-- --port 3108 --pid 1001 --key ... --configure]`: a gateway to try top-ups by hand.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: String(E2E_GATEWAY_PORT) },
      host: { type: "string", default: "127.0.0.1" },
      pid: { type: "string", default: process.env.FAKE_EPAY_PID ?? DEFAULT_TEST_MERCHANT.pid },
      key: { type: "string", default: process.env.FAKE_EPAY_KEY ?? DEFAULT_TEST_MERCHANT.key },
      "notify-delay": { type: "string", default: "0" },
      repeat: { type: "string", default: "2" },
      post: { type: "boolean", default: false },
      configure: { type: "boolean", default: false },
    },
  });
  const gateway = await startFakeEpayGateway({
    port: Number(values.port),
    host: values.host,
    pid: values.pid,
    key: values.key,
    behaviour: {
      notifyDelayMs: Number(values["notify-delay"]),
      repeatNotifies: Number(values.repeat),
      notifyMethod: values.post ? "POST" : "GET",
    },
  });
  if (values.configure) {
    const { configureFakeGateway } = await import("./epay-gateway-config");
    await configureFakeGateway(gateway.submitUrl, { pid: gateway.pid, key: gateway.key });
  }
  console.log(`测试支付网关已启动：${gateway.url}

网关地址  ${gateway.submitUrl}
商户PID   ${gateway.pid}
商户密钥  ${gateway.key}

让网站使用它：在管理后台 /admin/payment 选择“支付接口”，在 /admin/settings/payment-api
填上面三项；或者先停掉开发服务器（PGlite 不能被两个进程同时打开），运行
  npm run dev:gateway -- --configure
它会写入这三项并把支付方式设为 payment_api。网站要能被本网关访问（notify_url 是网站的
地址 + /api/notify）。每笔支付先通知一次，再重复通知 ${gateway.behaviour.repeatNotifies} 次。
按 Ctrl+C 退出。`);
  const stop = async () => {
    await gateway.settled();
    await gateway.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
