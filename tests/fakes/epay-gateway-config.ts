import type { Database } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { DEFAULT_TEST_MERCHANT } from "./epay-gateway";

/**
 * Points the site at the test gateway: payment_method_v2 = payment_api and the gateway
 * address, merchant PID and key. For `npm run dev:gateway -- --configure` and for the e2e
 * seed (which runs before the server opens the database). Never while a server has the
 * same PGlite directory open.
 */
export async function configureFakeGateway(
  submitUrl: string,
  options: { db?: Database; pid?: string; key?: string } = {},
): Promise<void> {
  const ownDb = !options.db;
  const client = ownDb ? await import("~/db/client.server") : null;
  const db = options.db ?? client!.db;
  try {
    const values = {
      payment_method_v2: "payment_api",
      payment_gateway_url: submitUrl,
      merchant_pid: options.pid ?? DEFAULT_TEST_MERCHANT.pid,
      merchant_key: options.key ?? DEFAULT_TEST_MERCHANT.key,
    };
    for (const [key, value] of Object.entries(values)) {
      await db
        .insert(siteConfigs)
        .values({ key, value })
        .onConflictDoUpdate({ target: siteConfigs.key, set: { value, updatedAt: new Date() } });
    }
  } finally {
    // A script must let go of PGlite before the dev server opens it.
    if (ownDb) await client!.closeDatabase();
  }
}

/** What the e2e payment and credits tests read from `$INKSTONE_E2E_RUN_DIR/payments-facts.json`. */
export interface PaymentFacts {
  /** The test gateway's base URL (control API under /__control). */
  gatewayUrl: string;
  /** Unused codes worth `amount` credits each; every test takes its own by index. */
  redeemCodes: string[];
  redeemAmount: number;
}

const PAYMENT_FACTS_FILE = "payments-facts.json";

/**
 * For the e2e seed (tests/e2e/fixtures/seed.ts), before the server opens the database:
 * points the site at the test gateway on E2E_GATEWAY_PORT (payment_api), adds unused
 * redeem codes, and writes their facts next to the other seed facts.
 */
export async function seedPaymentsForE2e(db: Database, runDir: string): Promise<PaymentFacts> {
  const fs = await import("node:fs");
  const path = await import("node:path");
  const { randomInt } = await import("node:crypto");
  const { redeemCodes } = await import("~/db/schema");
  const { E2E_GATEWAY_PORT } = await import("./epay-gateway");
  const gatewayUrl = `http://127.0.0.1:${E2E_GATEWAY_PORT}`;
  await configureFakeGateway(`${gatewayUrl}/submit.php`, { db });
  const codes = new Set<string>();
  while (codes.size < 128) codes.add(String(randomInt(1_000_000_000, 10_000_000_000)));
  const redeemAmount = 100;
  await db
    .insert(redeemCodes)
    .values([...codes].map((code) => ({ code, amount: redeemAmount })))
    .onConflictDoNothing({ target: redeemCodes.code });
  const facts: PaymentFacts = { gatewayUrl, redeemCodes: [...codes], redeemAmount };
  fs.writeFileSync(path.join(runDir, PAYMENT_FACTS_FILE), JSON.stringify(facts, null, 2));
  return facts;
}
