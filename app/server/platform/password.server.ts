import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { envInt } from "~/env.server";

// scrypt: memory-hard, in node:crypto, no native addon. N=2^15, r=8 uses 32 MiB.
const DEFAULT_N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
const MAXMEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: Math.max(MAXMEM, 256 * n * r) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * The cost of new hashes: PASSWORD_SCRYPT_N, a power of two from 2^10 to 2^16, else 2^15.
 * The tests lower it (each hash at 2^15 costs about 80 ms of CPU, and they make hundreds);
 * a hash keeps its own cost, so hashes of every cost verify (docs/decisions/140).
 * @internal
 */
export function scryptCost(): number {
  const n = envInt("PASSWORD_SCRYPT_N", DEFAULT_N);
  return n >= 1 << 10 && n <= 1 << 16 && (n & (n - 1)) === 0 ? n : DEFAULT_N;
}

/** "scrypt$N$r$p$salt$hash", everything needed to verify later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const n = scryptCost();
  const key = await derive(password, salt, n, R, P);
  return ["scrypt", n, R, P, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  const key = await derive(password, salt, n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash to compare against when the account does not exist, so timing does not tell. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(12).toString("hex"));
  return dummyHash;
}
