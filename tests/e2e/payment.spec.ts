import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { runDir } from "./fixtures/facts";
import { expect, test, waitForLive } from "./fixtures";
import { marker, newAuthor, publishWork, setPrice } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/** The test gateway the e2e seed pointed the site at (tests/fakes/epay-gateway-config.ts). */
function gatewayUrl(): string {
  const file = path.join(runDir(), "payments-facts.json");
  if (!fs.existsSync(file)) {
    throw new Error("payments-facts.json is missing: the e2e seed must call seedPaymentsForE2e (tests/fakes/epay-gateway-config.ts)");
  }
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { gatewayUrl: string }).gatewayUrl;
}

interface GatewayState {
  order: { status: string; money: string } | null;
  notifies: { body: string; tamper: string }[];
}

async function gatewayState(page: Page, outTradeNo: string): Promise<GatewayState> {
  const response = await page.request.get(`${gatewayUrl()}/__control/orders/${encodeURIComponent(outTradeNo)}`);
  return (await response.json()) as GatewayState;
}

/** From /credits to the gateway's page for a new order of `amount` yuan; returns its number. */
async function startTopUp(page: Page, amount: string): Promise<string> {
  await page.getByRole("link", { name: "在线充值" }).click();
  const dialog = page.getByRole("dialog", { name: "在线充值" });
  await dialog.getByLabel("充值金额（元）").fill(amount);
  await dialog.getByRole("button", { name: "前往支付" }).click();
  await expect(page.getByRole("heading", { name: "测试支付网关" })).toBeVisible();
  expect(page.url().startsWith(`${gatewayUrl()}/submit.php?`)).toBe(true);
  await expect(page.locator("#order-name")).toHaveText("积分充值");
  await expect(page.locator("#order-money")).toHaveText(`¥${amount}.00`);
  return (await page.locator("#order-no").textContent())!;
}

test.describe("online top-up through the test gateway", () => {
  test("pays, comes back to 支付成功, and the credits arrive once despite repeated notifies", nojs, async ({
    loggedInPage: page,
    visit,
  }) => {
    await visit("/credits");
    const outTradeNo = await startTopUp(page, "10");
    await page.getByRole("button", { name: "确认支付" }).click();

    await expect(page).toHaveURL(/\/payment\/success\?/);
    await expect(page.getByRole("heading", { name: "支付成功，积分已到账" })).toBeVisible();
    await expect(page.getByText(`订单 ${outTradeNo}：10 积分已充入你的账户。`)).toBeVisible();
    await expect(page.getByTestId("credits-balance")).toHaveText("10");

    // The gateway repeats its notify; every answer is success, and nothing more is credited.
    await expect
      .poll(async () => (await gatewayState(page, outTradeNo)).notifies.map((n) => n.body))
      .toEqual(["success", "success", "success"]);
    await page.getByRole("link", { name: "返回积分页" }).click();
    await expect(page).toHaveURL(/\/credits$/);
    await expect(page.getByTestId("credits-page-balance")).toHaveText("10");
    const rows = page.getByTestId("credit-history").locator("tbody tr");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("在线充值");
    await expect(rows.first().locator(".ledger-in")).toHaveText("+10");
  });

  test("去充值 from a purchase short of credits comes back to the purchase with 充值成功 once paid", nojs, async ({
    loggedInPage: page,
    visit,
    playwright,
    baseURL,
  }) => {
    const author = await newAuthor(playwright, baseURL!);
    const id = await publishWork(author, { title: `在线充值 ${marker("epay-return")}`, chapters: [{ title: "第一章", paragraphs: ["付费正文"] }] });
    await setPrice(author, id, 12);

    await visit(`/works/${id}?purchase=1`);
    const purchase = page.getByRole("dialog", { name: "购买作品" });
    await purchase.getByRole("link", { name: "去充值" }).click();
    await expect(page.getByText("充值完成后将回到你刚才的页面。")).toBeVisible();
    const outTradeNo = await startTopUp(page, "12");
    await page.getByRole("button", { name: "确认支付" }).click();

    await expect(page).toHaveURL(new RegExp(`/works/${id}\\?purchase=1$`));
    await expect(page.getByRole("status").filter({ hasText: `充值成功：订单 ${outTradeNo}，12 积分已到账` })).toBeVisible();
    await expect(purchase).toContainText("当前积分余额：12");
    await purchase.getByRole("button", { name: "确认购买" }).click();
    await expect(page.getByTestId("credits-balance")).toHaveText("0");
  });

  test("waits on the return page until the notify arrives, while another page's balance updates live", async ({
    loggedInPage: page,
    context,
    visit,
  }) => {
    const other = await context.newPage();
    await visit("/credits", other);
    await waitForLive(other);
    await expect(other.getByTestId("credits-page-balance")).toHaveText("0");

    await visit("/credits");
    const outTradeNo = await startTopUp(page, "25");
    await page.getByText("测试选项").click();
    await page.getByLabel("延迟通知（毫秒）").fill("4000");
    await page.getByRole("button", { name: "确认支付" }).click();

    await expect(page.getByRole("heading", { name: "正在确认支付结果..." })).toBeVisible();
    await expect(page.getByTestId("credits-balance")).toHaveText("0");
    // The page refreshes itself until the order is paid.
    await expect(page.getByRole("heading", { name: "支付成功，积分已到账" })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("credits-balance")).toHaveText("25");
    // The notify came from the gateway, not from this browser: the other page heard of it.
    await expect(other.getByTestId("credits-page-balance")).toHaveText("25");
    await expect(other.getByTestId("credit-history").locator("tbody tr").first()).toContainText("在线充值");
    expect((await gatewayState(page, outTradeNo)).order?.status).toBe("paid");
    await other.close();
  });

  test("a forged or altered notify credits nothing; the genuine one does", async ({ loggedInPage: page, visit }) => {
    await visit("/credits");
    const outTradeNo = await startTopUp(page, "8");
    const send = async (tamper: string, method: "GET" | "POST" = "GET") => {
      const response = await page.request.post(`${gatewayUrl()}/__control/notify/${outTradeNo}`, { data: { tamper, method } });
      return ((await response.json()) as { body: string }).body;
    };
    for (const tamper of ["wrong-sign", "keyless-sign", "altered-money", "underpaid", "unknown-order", "missing-money", "trade-pending"]) {
      expect(await send(tamper), tamper).toBe("fail");
      expect(await send(tamper, "POST"), `${tamper} POST`).toBe("fail");
    }
    // The return URL with a genuinely signed query proves nothing either.
    await page.goto(`/payment/success?out_trade_no=${outTradeNo}&trade_status=TRADE_SUCCESS`);
    await expect(page.getByRole("heading", { name: "正在确认支付结果..." })).toBeVisible();
    await visit("/credits");
    await waitForLive(page);
    await expect(page.getByTestId("credits-page-balance")).toHaveText("0");

    // Some gateways POST their notify: the real server takes it as it does a GET.
    expect(await send("none", "POST")).toBe("success");
    await expect(page.getByTestId("credits-page-balance")).toHaveText("8");
    expect(await send("none")).toBe("success");
    await page.reload();
    await expect(page.getByTestId("credits-page-balance")).toHaveText("8");
  });

  test("refuses top-up amounts that are not whole numbers of at least 1", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }) => {
    await visit("/credits?dialog=topup");
    const dialog = page.getByRole("dialog", { name: "在线充值" });
    if (javaScriptEnabled) {
      for (const amount of ["0", "-5", "1.5"]) {
        await dialog.getByLabel("充值金额（元）").fill(amount);
        await dialog.getByRole("button", { name: "前往支付" }).click();
        await expect(dialog.getByRole("alert"), amount).toHaveText("请输入有效的充值金额");
      }
      await expect(page).toHaveURL(/\/credits\?/);
    }
    // Whatever the page allows, the server decides.
    for (const amount of ["0", "-5", "1.5", "1e12", "十元", ""]) {
      const response = await page.request.post("/credits?dialog=topup", {
        form: { intent: "topup", amount },
        headers: { Origin: new URL(page.url()).origin },
        maxRedirects: 0,
      });
      expect(response.status(), amount).toBe(400);
      expect(await response.text(), amount).toContain("请输入有效的充值金额");
    }
  });

  test("cancelling at the gateway returns without crediting", async ({ loggedInPage: page, visit }) => {
    await visit("/credits");
    await startTopUp(page, "3");
    await page.getByRole("link", { name: "取消支付" }).click();
    await expect(page.getByRole("heading", { name: "未找到订单" })).toBeVisible();
    await expect(page.getByTestId("credits-balance")).toHaveText("0");
  });
});
