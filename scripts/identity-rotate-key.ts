// npm run identity:rotate-key
// Re-encrypts every 实名认证 submission and 收款账户 with a new key (decisions 204, 210): set IDENTITY_KEY to
// the new key and IDENTITY_KEY_OLD to the one in use until now, run this, then start the
// server with the new IDENTITY_KEY alone. Safe to run again: rows already on the new key
// are skipped. Exits 1 when a row did not decrypt (its id is printed; it keeps its old cipher).
import { currentIdentityKey, identityKeyRing } from "~/server/identity/identity-crypto.server";

let ready = false;
try {
  ready = currentIdentityKey() !== null && identityKeyRing().length === 2;
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
if (!ready) {
  console.error("用法：IDENTITY_KEY=<新密钥> IDENTITY_KEY_OLD=<旧密钥> npm run identity:rotate-key");
  process.exit(2);
}

const { openDatabase } = await import("./lib/database");
const client = await openDatabase();
const { rotateIdentityKey } = await import("~/server/identity/author-identity.server");
const { rotatePayoutAccounts } = await import("~/server/identity/payout-accounts.server");
try {
  const { rotated, failed } = await rotateIdentityKey();
  console.log(`已用新密钥重新加密 ${rotated} 条实名认证记录`);
  if (failed.length > 0) {
    console.error(`${failed.length} 条记录无法解密（密文损坏或密钥不符），未改动：${failed.join(", ")}`);
    process.exitCode = 1;
  }
  // 收款账户 are sealed with the same key (decision 210).
  const accounts = await rotatePayoutAccounts();
  console.log(`已用新密钥重新加密 ${accounts.rotated} 条收款账户`);
  if (accounts.failed.length > 0) {
    console.error(`${accounts.failed.length} 条收款账户无法解密（密文损坏或密钥不符），未改动：${accounts.failed.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  await client.closeDatabase();
}
