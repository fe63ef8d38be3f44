import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { paymentOrders, redeemCodes } from "~/db/schema";
import { exchangeCreditsForTokens, redeemCode } from "~/server/economy/ledger.server";
import { checkLedger, formatDifferences } from "../../scripts/check-ledger";
import { createUser } from "../fixtures/accounts";
import { fund, quickUsers } from "../fixtures/ledger";

const run = promisify(execFile);

/** `npm run check:ledger` as a separate process, on this file's database or a fresh copy. */
async function runCli(): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let tmp: string | undefined;
  if (databaseKind === "pglite") {
    // This process has its PGlite open, and PGlite must never be opened twice: the CLI
    // gets a fresh copy of the migrated template instead.
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-check-"));
    fs.cpSync(inject("pgliteTemplateDir"), path.join(tmp, "pglite"), { recursive: true });
    env.PGLITE_DIR = path.join(tmp, "pglite");
    env.DATA_DIR = tmp;
  }
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/check-ledger.ts"], { env, cwd: process.cwd() });
    return { code: 0, output: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe("check:ledger", () => {
  it("reports no difference when every change went through the ledger", async () => {
    const registered = await createUser(); // initial tokens, with their grant row
    const [user] = await quickUsers(1);
    await fund(user.id, 40);
    await exchangeCreditsForTokens(user.id, 15);
    await db.insert(redeemCodes).values({ code: "1357924680", amount: 25 });
    await redeemCode(registered.id, "1357924680");
    expect(await checkLedger()).toEqual([]);
    expect(formatDifferences([])).toBe("对账完成：所有用户的余额与流水一致。");
  });

  it("exits 0 as a command when the books balance", async () => {
    const { code, output } = await runCli();
    expect(output).toContain("对账完成");
    expect(code).toBe(0);
  }, 60_000);

  it("finds a balance changed without its ledger row, for credits and for tokens", async () => {
    const [a, b] = await quickUsers(2);
    await fund(a.id, 10);
    await db.execute(sql`update credits set balance = balance + 5 where user_id = ${a.id}`);
    await db.execute(sql`update profiles set tokens = tokens + 300 where id = ${b.id}`);
    const differences = await checkLedger();
    expect(differences).toEqual(
      expect.arrayContaining([
        { userId: a.id, email: a.email, check: "credits", expected: 15, actual: 10 },
        { userId: b.id, email: b.email, check: "tokens", expected: 300, actual: 0 },
      ]),
    );
    expect(formatDifferences(differences)).toContain(`${a.email} (${a.id})  积分余额 15，积分流水合计 10，相差 5`);
    // Put them right for the tests after.
    await db.execute(sql`update credits set balance = balance - 5 where user_id = ${a.id}`);
    await db.execute(sql`update profiles set tokens = tokens - 300 where id = ${b.id}`);
    expect(await checkLedger()).toEqual([]);
  });

  it("finds a paid order or a used code that was not credited exactly once", async () => {
    const [a, b] = await quickUsers(2);
    await db.insert(paymentOrders).values({ outTradeNo: "IKTEST1", userId: a.id, amount: 20, status: "paid", paidAt: new Date() });
    await db.insert(redeemCodes).values({ code: "2468013579", amount: 50, status: "used", usedBy: b.id, usedAt: new Date() });
    // The redeemed amount credited twice: the balance matches its rows, the code does not.
    await fund(b.id, 50, "兑换码充值");
    await fund(b.id, 50, "兑换码充值");
    const differences = await checkLedger();
    expect(differences).toEqual(
      expect.arrayContaining([
        { userId: a.id, email: a.email, check: "payments", expected: 20, actual: 0 },
        { userId: b.id, email: b.email, check: "redeem", expected: 50, actual: 100 },
      ]),
    );
    expect(differences.filter((d) => d.check === "credits")).toEqual([]);
  });
});
