import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { creditTransactions, redeemCodes, tokenTransactions } from "~/db/schema";
import { action, loader } from "~/routes/shell/credits/credits";
import { loader as paymentSuccessLoader } from "~/routes/shell/credits/payment-success";
import { exchangeCreditsForTokens } from "~/server/economy/ledger.server";
import { cookiePair, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { fund, quickUsers, setConfig } from "../fixtures/ledger";
import { callThroughRoutes } from "./route-chain";
import { insertWorks } from "../fixtures/works";

type LoaderData = Awaited<ReturnType<typeof loader>> extends { data: infer D } ? D : never;

async function load(cookie: string, path = "/credits") {
  const result = (await callThroughRoutes(loader, { request: userRequest(cookie, path) })) as unknown as {
    data: LoaderData;
    init: ResponseInit | null;
  };
  return result;
}

/** Ledger rows with chosen times, so the order is known. */
async function insertHistory(userId: string, count: number) {
  const start = Date.parse("2025-03-01T00:00:00Z");
  await db.insert(creditTransactions).values(
    Array.from({ length: count }, (_, i) => ({
      userId,
      amount: i + 1,
      type: i % 3 === 2 ? ("consume" as const) : ("recharge" as const),
      description: `记录${i + 1}`,
      createdAt: new Date(start + i * 60_000),
    })),
  );
}

describe("/credits", () => {
  it("sends a visitor to the login dialog, remembering /credits", async () => {
    await expect(callThroughRoutes(loader, { request: new Request("http://localhost/credits") })).rejects.toSatisfy(
      (r: unknown) => r instanceof Response && r.headers.get("Location") === `/?auth=login&redirectTo=${encodeURIComponent("/credits")}`,
    );
  });

  it("shows both balances and the credit history 10 a page, newest first, with its type", async () => {
    const [user] = await quickUsers(1);
    await insertHistory(user.id, 23);
    await db.execute(sql`update credits set balance = 1234 where user_id = ${user.id}`);
    await db.execute(sql`update profiles set tokens = 25600 where id = ${user.id}`);
    const cookie = await sessionCookieFor(user.id);

    const first = (await load(cookie)).data;
    expect(first).toMatchObject({ credits: 1234, tokens: 25600, tab: "credits", page: 1, pageCount: 3, dialog: null });
    expect(first.creditRows.map((r) => r.description)).toEqual(Array.from({ length: 10 }, (_, i) => `记录${23 - i}`));
    expect(first.creditRows[0]).toMatchObject({ amount: 23, type: "recharge", time: "2025-03-01 08:22:00" });
    expect(first.creditRows[2]).toMatchObject({ amount: 21, type: "consume" });

    const third = (await load(cookie, "/credits?page=3")).data;
    expect(third.creditRows.map((r) => r.description)).toEqual(["记录3", "记录2", "记录1"]);
    // A page past the end shows the last; nonsense shows the first.
    expect((await load(cookie, "/credits?page=99")).data.page).toBe(3);
    expect((await load(cookie, "/credits?page=-1")).data.page).toBe(1);
  });

  it("has a token history tab from token_transactions", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 10);
    await exchangeCreditsForTokens(user.id, 2);
    await db.insert(tokenTransactions).values({
      userId: user.id,
      amount: -37,
      type: "generation",
      description: "自由创作",
      promptChars: 100,
      outputChars: 48,
      model: "qwen-plus",
      createdAt: new Date(Date.now() + 1000),
    });
    const data = (await load(await sessionCookieFor(user.id), "/credits?tab=tokens")).data;
    expect(data.tab).toBe("tokens");
    expect(data.creditRows).toEqual([]);
    expect(data.tokenRows.map((r) => [r.type, r.amount, r.description])).toEqual([
      ["generation", -37, "自由创作"],
      ["exchange", 200, "2积分兑换"],
    ]);
  });

  it("offers online top-up only when the payment interface is configured, and the store link when set", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    await setConfig({ payment_method_v2: "redeem_code", store_url_v2: "" });
    expect((await load(cookie, "/credits?dialog=topup")).data).toMatchObject({ onlinePayment: false, storeUrl: "", dialog: null });
    await setConfig({ store_url_v2: "https://shop.example.com/codes" });
    expect((await load(cookie, "/credits?dialog=redeem")).data).toMatchObject({
      storeUrl: "https://shop.example.com/codes",
      dialog: "redeem",
    });
    await setConfig({ store_url_v2: "javascript:alert(1)" });
    expect((await load(cookie)).data.storeUrl).toBe("");
    await setConfig({
      payment_method_v2: "payment_api",
      payment_gateway_url: "https://pay.example.com/submit.php",
      merchant_pid: "1",
      merchant_key: "k",
    });
    expect((await load(cookie, "/credits?dialog=topup")).data).toMatchObject({ onlinePayment: true, dialog: "topup" });
    await setConfig({ payment_method_v2: "redeem_code", store_url_v2: "" });
  });

  it("shows the notice of a redirect once (flash cookie)", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 5);
    const cookie = await sessionCookieFor(user.id);
    const response = (await callThroughRoutes(action, {
      request: userRequest(cookie, "/credits?dialog=exchange", { intent: "exchange", amount: "5" }),
    })) as Response;
    const flash = cookiePair(response.headers.get("Set-Cookie"));
    expect(flash).toMatch(/^inkstone_flash=/);

    const shown = await load(`${cookie}; ${flash}`, "/credits?tab=tokens");
    expect(shown.data.notice).toEqual({ kind: "success", text: "兑换成功：5 积分已兑换为 500 Tokens" });
    expect(new Headers(shown.init?.headers).get("Set-Cookie")).toMatch(/^inkstone_flash=; Max-Age=0/);
    // A client-side navigation's data request may be interrupted and repeated: it only
    // marks the notice seen, and a repeat within a few seconds still gets it.
    const dataRequest = (cookieHeader: string) => {
      const request = userRequest(cookieHeader, "/credits?tab=tokens");
      request.headers.set("Sec-Fetch-Dest", "empty");
      return callThroughRoutes(loader, { request }) as unknown as Promise<{ data: LoaderData; init: ResponseInit | null }>;
    };
    const first = await dataRequest(`${cookie}; ${flash}`);
    expect(first.data.notice?.text).toBe("兑换成功：5 积分已兑换为 500 Tokens");
    const seen = new Headers(first.init?.headers).get("Set-Cookie")!;
    expect(seen).toMatch(/^inkstone_flash=.+; Max-Age=5;/);
    const again = await dataRequest(`${cookie}; ${cookiePair(seen)}`);
    expect(again.data.notice?.text).toBe("兑换成功：5 积分已兑换为 500 Tokens");
    expect(again.init?.headers).toBeUndefined();
    // A reload after it was seen shows nothing, and ends it.
    const reload = await load(`${cookie}; ${cookiePair(seen)}`, "/credits?tab=tokens");
    expect(reload.data.notice).toBeNull();
    expect(new Headers(reload.init?.headers).get("Set-Cookie")).toMatch(/^inkstone_flash=; Max-Age=0/);
    // A forged (unsigned) flash cookie shows nothing.
    const forged = await load(`${cookie}; inkstone_flash=${Buffer.from(JSON.stringify({ kind: "success", text: "假消息" })).toString("base64")}`);
    expect(forged.data.notice).toBeNull();
  });

  it("returns to a same-origin redirectTo after a redeem, and ignores any other", async () => {
    const [user, author] = await quickUsers(2);
    const cookie = await sessionCookieFor(user.id);
    const [workId] = await insertWorks([{ userId: author.id, title: "差积分", visibility: "public-vip", price: 30 }]);
    const back = `/works/${workId}?purchase=1`;
    expect((await load(cookie, `/credits?redirectTo=${encodeURIComponent(back)}`)).data.returnTo).toBe(back);
    for (const bad of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"]) {
      expect((await load(cookie, `/credits?redirectTo=${encodeURIComponent(bad)}`)).data.returnTo, bad).toBeNull();
    }
    const ten = () => String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));
    const codes = [ten(), ten()];
    await db.insert(redeemCodes).values(codes.map((code) => ({ code, amount: 20 })));
    const redeemed = (await callThroughRoutes(action, {
      request: userRequest(cookie, `/credits?dialog=redeem&redirectTo=${encodeURIComponent(back)}`, { intent: "redeem", code: codes[0] }),
    })) as Response;
    expect(redeemed.status).toBe(302);
    expect(redeemed.headers.get("Location")).toBe(back);
    // The page it goes back to says what happened (with or without JavaScript: the loader's notice).
    const flash = cookiePair(redeemed.headers.get("Set-Cookie"));
    expect(flash).toMatch(/^inkstone_flash=/);
    const { loader: workLoader } = await import("~/routes/shell/reader/work");
    const backPage = (await callThroughRoutes(workLoader, { request: userRequest(`${cookie}; ${flash}`, back) })) as { data: { notice: unknown } };
    expect(backPage.data.notice).toEqual({ kind: "success", text: "兑换成功，获得 20 积分" });
    const offsite = (await callThroughRoutes(action, {
      request: userRequest(cookie, `/credits?dialog=redeem&redirectTo=${encodeURIComponent("//evil.example/")}`, { intent: "redeem", code: codes[1] }),
    })) as Response;
    expect(offsite.headers.get("Location")).toBe("/credits");
  });

  it("remembers redirectTo through an online payment for the return page", async () => {
    const [user] = await quickUsers(1);
    const cookie = await sessionCookieFor(user.id);
    await setConfig({
      payment_method_v2: "payment_api",
      payment_gateway_url: "https://pay.example.com/submit.php",
      merchant_pid: "1",
      merchant_key: "k",
    });
    try {
      const back = "/works/7?purchase=1";
      const response = (await callThroughRoutes(action, {
        request: userRequest(cookie, `/credits?dialog=topup&redirectTo=${encodeURIComponent(back)}`, { intent: "topup", amount: "5" }),
      })) as Response;
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toMatch(/^https:\/\/pay\.example\.com\//);
      const remembered = cookiePair(response.headers.get("Set-Cookie"));
      expect(remembered).toMatch(/^inkstone_payment_return=/);
      const page = await callThroughRoutes(paymentSuccessLoader, {
        request: userRequest(`${cookie}; ${remembered}`, "/payment/success?out_trade_no=none"),
      });
      expect(page.returnTo).toBe(back);
      // Without the cookie, or with a forged one, the page offers only /credits.
      expect((await callThroughRoutes(paymentSuccessLoader, { request: userRequest(cookie, "/payment/success") })).returnTo).toBeNull();
      const forged = `inkstone_payment_return=${Buffer.from(JSON.stringify("//evil.example")).toString("base64")}`;
      expect((await callThroughRoutes(paymentSuccessLoader, { request: userRequest(`${cookie}; ${forged}`, "/payment/success") })).returnTo).toBeNull();
    } finally {
      await setConfig({ payment_method_v2: "redeem_code" });
    }
  });

  it("keeps a notice for the page it was sent to: another page's loader neither shows nor ends it", async () => {
    const [user] = await quickUsers(1);
    await fund(user.id, 5);
    const cookie = await sessionCookieFor(user.id);
    const response = (await callThroughRoutes(action, {
      request: userRequest(cookie, "/credits?dialog=exchange", { intent: "exchange", amount: "5" }),
    })) as Response;
    const flash = cookiePair(response.headers.get("Set-Cookie"));
    const { loader: settingsLoader } = await import("~/routes/shell/settings/settings");
    // Another tab revalidating /settings, and /credits without the tab, before the redirect lands.
    for (const path of ["/settings", "/credits"]) {
      const request = userRequest(`${cookie}; ${flash}`, path);
      request.headers.set("Sec-Fetch-Dest", "empty");
      const other = (await callThroughRoutes(path === "/settings" ? settingsLoader : loader, { request })) as unknown as {
        data: { notice: unknown };
        init: ResponseInit | null;
      };
      expect(other.data.notice, path).toBeNull();
      expect(new Headers(other.init?.headers ?? {}).get("Set-Cookie"), path).toBeNull();
    }
    const landed = await load(`${cookie}; ${flash}`, "/credits?tab=tokens");
    expect(landed.data.notice?.text).toBe("兑换成功：5 积分已兑换为 500 Tokens");
  });
});

