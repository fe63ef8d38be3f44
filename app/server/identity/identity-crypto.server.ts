import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * 实名认证's encryption at rest (decision 204): AES-256-GCM with a random 12-byte IV and
 * the 16-byte tag, the key from IDENTITY_KEY (32 bytes, base64 or hex). A sealed value reads
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url), the key id being the first 8 bytes of
 * the key's SHA-256, so a value says which key opens it and the rotation script
 * (scripts/identity-rotate-key.ts) re-encrypts what the old key sealed. The associated data
 * binds a value to its row's owner and field: a cipher copied to another author's row does
 * not open.
 */

export interface IdentityKey {
  id: string;
  key: Buffer;
}

/** Why a value did not open: the caller shows IDENTITY_MESSAGES.undecryptable, never a guess. */
export class IdentityDecryptError extends Error {
  constructor(reason: string) {
    super(`identity value does not decrypt: ${reason}`);
    this.name = "IdentityDecryptError";
  }
}

/** A 32-byte key from 64 hex digits or base64 (standard or url-safe); anything else throws, naming the variable. @internal */
export function parseIdentityKey(value: string, variable = "IDENTITY_KEY"): IdentityKey {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(text))) {
    throw new Error(`${variable} must be 32 bytes, written as 64 hex digits or base64 (openssl rand -base64 32)`);
  }
  return { id: createHash("sha256").update(key).digest("hex").slice(0, 16), key };
}

/** The key in use (IDENTITY_KEY), or null: 实名认证 is off without it. */
export function currentIdentityKey(env: NodeJS.ProcessEnv = process.env): IdentityKey | null {
  const value = env.IDENTITY_KEY?.trim();
  return value ? parseIdentityKey(value) : null;
}

/** Every key that may open a stored value: IDENTITY_KEY, and IDENTITY_KEY_OLD during a rotation. */
export function identityKeyRing(env: NodeJS.ProcessEnv = process.env): IdentityKey[] {
  const ring: IdentityKey[] = [];
  const current = currentIdentityKey(env);
  if (current) ring.push(current);
  const old = env.IDENTITY_KEY_OLD?.trim();
  if (old) ring.push(parseIdentityKey(old, "IDENTITY_KEY_OLD"));
  return ring;
}

const b64 = (buffer: Buffer) => buffer.toString("base64url");

/** Seals `plain` with `key`; `context` (owner and field) must be given again to open it. */
export function sealIdentityValue(plain: string, key: IdentityKey, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", key.id, b64(iv), b64(cipher.getAuthTag()), b64(body)].join(".");
}

/** The key id a sealed value names ("" when it is not one). @internal */
export function sealedKeyId(sealed: string): string {
  const parts = sealed.split(".");
  return parts.length === 5 && parts[0] === "v1" ? parts[1] : "";
}

/** Opens a sealed value with the ring's key it names; a tampered value, a wrong key or a wrong context throws IdentityDecryptError. */
export function openIdentityValue(sealed: string, ring: IdentityKey[], context: string): string {
  const parts = sealed.split(".");
  if (parts.length !== 5 || parts[0] !== "v1") throw new IdentityDecryptError("not a sealed value");
  const key = ring.find((k) => k.id === parts[1]);
  if (!key) throw new IdentityDecryptError(`no key with id ${parts[1]}`);
  const iv = Buffer.from(parts[2], "base64url");
  const tag = Buffer.from(parts[3], "base64url");
  if (iv.length !== 12 || tag.length !== 16) throw new IdentityDecryptError("bad iv or tag");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.key, iv);
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(parts[4], "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new IdentityDecryptError("authentication failed");
  }
}
