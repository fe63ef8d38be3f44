import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { AwsClient } from "aws4fetch";
import { dataDir, envInt } from "~/env.server";
import { isOutOfSpace, StorageFullError } from "./errors.server";

/**
 * docs/product.md D10: where uploaded files live. Keys are relative paths such as
 * `covers/<userId>/<random>.webp`; the app serves them at urlFor(key).
 */
export interface FileStorage {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<StoredFile | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  urlFor(key: string): string;
  /** Throws when a file cannot be written now (a full or read-only disk): /healthz asks. */
  probe?(): Promise<void>;
}

/** @internal */
export interface StoredFile {
  body: Uint8Array | ReadableStream<Uint8Array>;
  contentType: string;
  size: number;
}

/** @internal */
export class StorageKeyError extends Error {
  constructor(key: string) {
    super(`invalid storage key: ${JSON.stringify(key).slice(0, 200)}`);
    this.name = "StorageKeyError";
  }
}

/** Content types by extension: the extension in the key decides how a file is served. */
const CONTENT_TYPES: Record<string, string> = {
  webp: "image/webp",
  jpg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  avif: "image/avif",
};

/**
 * 1 to 4 folders of [A-Za-z0-9_-] and a file name of [A-Za-z0-9_@-] with one known
 * extension: no dots elsewhere, so no `..`, no absolute paths, no backslashes, no
 * encoded characters.
 */
const KEY_PATTERN = /^(?:[A-Za-z0-9_-]{1,64}\/){1,4}[A-Za-z0-9_-][A-Za-z0-9_@-]{0,127}\.(webp|jpg|png|gif|avif)$/;

export function isValidKey(key: string): boolean {
  return key.length <= 400 && KEY_PATTERN.test(key);
}

function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new StorageKeyError(key);
}

function contentTypeForKey(key: string): string {
  const ext = key.slice(key.lastIndexOf(".") + 1);
  return CONTENT_TYPES[ext] ?? "application/octet-stream";
}

/** `<prefix>/<time><random><suffix>.<ext>`: unique, so stored files never change. */
export function newKey(prefix: string, ext: string, suffix = ""): string {
  const name = `${Date.now().toString(36)}${randomBytes(12).toString("base64url")}`;
  const key = `${prefix}/${name}${suffix}.${ext}`;
  assertValidKey(key);
  return key;
}

function publicUrlFor(key: string): string {
  const base = process.env.S3_PUBLIC_URL?.trim().replace(/\/+$/, "");
  return base ? `${base}/${key}` : `/files/${key}`;
}

/** The key behind a URL that urlFor made, or null for anything else (an external URL). */
export function keyFromUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  const base = process.env.S3_PUBLIC_URL?.trim().replace(/\/+$/, "");
  let key: string | null = null;
  if (url.startsWith("/files/")) key = url.slice("/files/".length);
  else if (base && url.startsWith(`${base}/`)) key = url.slice(base.length + 1);
  return key !== null && isValidKey(key) ? key : null;
}

/** Files under `${DATA_DIR}/uploads`, written atomically (temporary file, then rename). @internal */
export class LocalStorage implements FileStorage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private pathFor(key: string): string {
    assertValidKey(key);
    const file = path.resolve(this.root, key);
    // The pattern already rules out traversal; this keeps it true if the pattern changes.
    if (!file.startsWith(this.root + path.sep)) throw new StorageKeyError(key);
    return file;
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const file = this.pathFor(key);
    if (contentType !== contentTypeForKey(key)) {
      throw new Error(`content type ${contentType} does not match key ${key}`);
    }
    await fs.mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await fs.writeFile(temp, bytes, { flag: "wx" });
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<StoredFile | null> {
    if (!isValidKey(key)) return null;
    try {
      const body = new Uint8Array(await fs.readFile(this.pathFor(key)));
      return { body, contentType: contentTypeForKey(key), size: body.byteLength };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathFor(key), { force: true });
  }

  urlFor(key: string): string {
    assertValidKey(key);
    return publicUrlFor(key);
  }

  /** When the last probe passed: /healthz is asked often, and a disk fills slowly. */
  private probedAt = 0;

  /**
   * Writes and removes a small file, and checks the free space: below STORAGE_MIN_FREE_MB
   * (default 16) the next upload may fail half-way. A pass holds for PROBE_VALID_MS, so
   * that a load balancer's checks stay as cheap as the database ping; a failure is
   * checked again every time.
   */
  async probe(): Promise<void> {
    if (Date.now() - this.probedAt < PROBE_VALID_MS) return;
    await this.probeNow();
    this.probedAt = Date.now();
  }

  private async probeNow(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const file = path.join(this.root, `.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      await fs.writeFile(file, "ok", { flag: "wx" });
    } finally {
      await fs.rm(file, { force: true });
    }
    const stats = await fs.statfs(this.root);
    const free = stats.bavail * stats.bsize;
    const minimum = envInt("STORAGE_MIN_FREE_MB", 16) * 1024 * 1024;
    if (free < minimum) throw Object.assign(new Error(`only ${Math.floor(free / 1024 / 1024)} MB free`), { code: "ENOSPC" });
  }
}

const PROBE_VALID_MS = 5_000;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}

export interface S3Config {
  /** e.g. https://s3.us-east-1.amazonaws.com, https://<account>.r2.cloudflarestorage.com, http://127.0.0.1:9000 */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Bucket in the path (MinIO and most self-hosted servers) instead of the host name. */
  forcePathStyle: boolean;
}

/** Any S3-compatible object store, signed with AWS Signature Version 4 (aws4fetch). @internal */
export class S3Storage implements FileStorage {
  private readonly client: AwsClient;
  private readonly config: S3Config;

  constructor(config: S3Config) {
    this.config = { ...config, endpoint: config.endpoint.replace(/\/+$/, "") };
    this.client = new AwsClient({
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      service: "s3",
      region: config.region,
      // aws4fetch retries 5xx and network errors; 10 (its default) is too many for an upload.
      retries: 2,
    });
  }

  private objectUrl(key: string): string {
    assertValidKey(key);
    const { endpoint, bucket, forcePathStyle } = this.config;
    if (forcePathStyle) return `${endpoint}/${encodeURIComponent(bucket)}/${key}`;
    const url = new URL(endpoint);
    url.hostname = `${bucket}.${url.hostname}`;
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}/${key}`;
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const url = this.objectUrl(key);
    const res = await this.client.fetch(url, {
      method: "PUT",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: {
        "Content-Type": contentType,
        // A signed payload hash instead of UNSIGNED-PAYLOAD: the store checks the body.
        "X-Amz-Content-Sha256": createHash("sha256").update(bytes).digest("hex"),
      },
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`S3 PUT ${key} failed: HTTP ${res.status}`);
  }

  async get(key: string): Promise<StoredFile | null> {
    if (!isValidKey(key)) return null;
    const res = await this.client.fetch(this.objectUrl(key), { method: "GET" });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`S3 GET ${key} failed: HTTP ${res.status}`);
    }
    const length = Number(res.headers.get("Content-Length"));
    if (Number.isSafeInteger(length) && length >= 0) {
      return { body: res.body, contentType: contentTypeForKey(key), size: length };
    }
    const body = new Uint8Array(await res.arrayBuffer());
    return { body, contentType: contentTypeForKey(key), size: body.byteLength };
  }

  async delete(key: string): Promise<void> {
    const res = await this.client.fetch(this.objectUrl(key), { method: "DELETE" });
    await res.body?.cancel();
    if (!res.ok && res.status !== 404) throw new Error(`S3 DELETE ${key} failed: HTTP ${res.status}`);
  }

  urlFor(key: string): string {
    assertValidKey(key);
    return publicUrlFor(key);
  }
}

/** S3 settings from the environment, or null when S3_BUCKET is unset (local disk). */
export function s3ConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3Config | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  const bucket = value("S3_BUCKET");
  if (!bucket) return null;
  const accessKeyId = value("S3_ACCESS_KEY_ID");
  const secretAccessKey = value("S3_SECRET_ACCESS_KEY");
  if (!accessKeyId || !secretAccessKey) {
    throw new Error("S3_BUCKET is set but S3_ACCESS_KEY_ID or S3_SECRET_ACCESS_KEY is missing");
  }
  const region = value("S3_REGION") ?? "us-east-1";
  const forcePathStyle = ["1", "true", "yes"].includes((value("S3_FORCE_PATH_STYLE") ?? "").toLowerCase());
  return {
    endpoint: value("S3_ENDPOINT") ?? `https://s3.${region}.amazonaws.com`,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    forcePathStyle,
  };
}

const holder = globalThis as { __inkstoneStorage?: { signature: string; storage: FileStorage } };
const guarded = new WeakMap<FileStorage, FileStorage>();

/**
 * The storage as the app uses it: a write that fails for lack of space is a
 * StorageFullError (存储空间不足), which the forms show, instead of an unexpected error.
 */
function withSpaceErrors(storage: FileStorage): FileStorage {
  let wrapped = guarded.get(storage);
  if (!wrapped) {
    wrapped = {
      put: async (key, bytes, contentType) => {
        try {
          await storage.put(key, bytes, contentType);
        } catch (error) {
          if (isOutOfSpace(error)) {
            console.error(`storage full: writing ${key} failed`, (error as Error).message);
            throw new StorageFullError();
          }
          throw error;
        }
      },
      get: (key) => storage.get(key),
      delete: (key) => storage.delete(key),
      urlFor: (key) => storage.urlFor(key),
      probe: () => storage.probe?.() ?? Promise.resolve(),
    };
    guarded.set(storage, wrapped);
  }
  return wrapped;
}

/** The configured storage itself: S3 when S3_BUCKET is set, else `${DATA_DIR}/uploads`. @internal */
export function configuredStorage(): FileStorage {
  const s3 = s3ConfigFromEnv();
  const signature = s3 ? `s3:${JSON.stringify(s3)}` : `local:${dataDir()}`;
  if (holder.__inkstoneStorage?.signature !== signature) {
    const storage = s3 ? new S3Storage(s3) : new LocalStorage(path.join(dataDir(), "uploads"));
    holder.__inkstoneStorage = { signature, storage };
  }
  return holder.__inkstoneStorage.storage;
}

/** The configured storage, with lack of space reported as StorageFullError. */
export function getStorage(): FileStorage {
  return withSpaceErrors(configuredStorage());
}
