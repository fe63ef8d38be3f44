import { afterEach, describe, expect, it } from "vitest";
import { hashPassword, scryptCost, verifyPassword } from "~/server/platform/password.server";

// The suite runs with PASSWORD_SCRYPT_N lowered (tests/setup/per-file-env.ts); these tests
// set it themselves and put it back.
const saved = process.env.PASSWORD_SCRYPT_N;
afterEach(() => {
  if (saved === undefined) delete process.env.PASSWORD_SCRYPT_N;
  else process.env.PASSWORD_SCRYPT_N = saved;
});

describe("password hashes", () => {
  it("cost 2^15 unless PASSWORD_SCRYPT_N names a power of two from 2^10 to 2^16", () => {
    delete process.env.PASSWORD_SCRYPT_N;
    expect(scryptCost()).toBe(32768);
    for (const [raw, n] of [["1024", 1024], ["65536", 65536], ["512", 32768], ["131072", 32768], ["3000", 32768], ["x", 32768], ["", 32768]] as const) {
      process.env.PASSWORD_SCRYPT_N = raw;
      expect(scryptCost(), raw).toBe(n);
    }
  });

  it("a hash records its cost, so hashes made at any cost verify, and only with the right password", async () => {
    delete process.env.PASSWORD_SCRYPT_N;
    const strong = await hashPassword("正确的密码");
    expect(strong).toMatch(/^scrypt\$32768\$8\$1\$/);
    process.env.PASSWORD_SCRYPT_N = "1024";
    const cheap = await hashPassword("正确的密码");
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    process.env.PASSWORD_SCRYPT_N = "65536";
    expect(await verifyPassword("正确的密码", await hashPassword("正确的密码"))).toBe(true);
    expect(await verifyPassword("正确的密码", strong)).toBe(true);
    expect(await verifyPassword("正确的密码", cheap)).toBe(true);
    expect(await verifyPassword("错误的密码", strong)).toBe(false);
    expect(await verifyPassword("错误的密码", cheap)).toBe(false);
    expect(await verifyPassword("正确的密码", "md5$abc")).toBe(false);
  });
});
