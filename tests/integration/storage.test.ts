import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loader } from "~/routes/api/files";
import { dataDir } from "~/env.server";
import { cover2xUrl, deleteStoredImage, storeAvatar, storeCover } from "~/server/platform/images.server";
import {
  LocalStorage,
  S3Storage,
  StorageKeyError,
  configuredStorage,
  getStorage,
  isValidKey,
  keyFromUrl,
  newKey,
} from "~/server/platform/storage.server";
import { startFakeS3, type FakeS3 } from "../fakes/s3";
import { callThroughRoutes } from "./route-chain";

function getFile(key: string, headers: Record<string, string> = {}) {
  // Encoded whole, so that a traversal key still reaches /files/* (as a crafted request
  // could); the loader reads the key from the params.
  const request = new Request(`http://localhost/files/${encodeURIComponent(key)}`, { headers });
  return callThroughRoutes(loader, { request, params: { "*": key } });
}

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

const S3_ENV = ["S3_ENDPOINT", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_REGION", "S3_FORCE_PATH_STYLE", "S3_PUBLIC_URL"];
afterEach(() => {
  for (const name of S3_ENV) delete process.env[name];
});

const userId = "0b7d8c1e-3f4a-4c56-9a1b-2c3d4e5f6a7b";
let png: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 300, height: 400, channels: 3, background: "#3366cc" } })
    .png()
    .toBuffer();
});

const traversalKeys = [
  "../x.webp",
  "/etc/passwd",
  "covers/../../x.webp",
  "covers/../avatars/x.webp",
  "covers/./x.webp",
  "covers//x.webp",
  "covers\\..\\x.webp",
  "covers/%2e%2e/x.webp",
  "covers/a/x.webp\0.png",
  "covers/a/.webp",
  "covers/a/x.svg",
  "x.webp",
  "",
];

describe("local storage", () => {
  it("is the default, under DATA_DIR/uploads", () => {
    const storage = configuredStorage();
    expect(storage).toBeInstanceOf(LocalStorage);
    expect((storage as LocalStorage).root).toBe(path.join(dataDir(), "uploads"));
  });

  it("puts, gets and deletes a file", async () => {
    const storage = getStorage();
    const key = newKey(`covers/${userId}`, "png");
    await storage.put(key, png, "image/png");
    expect(fs.existsSync(path.join(dataDir(), "uploads", key))).toBe(true);

    const file = await storage.get(key);
    expect(file).not.toBeNull();
    expect(file!.contentType).toBe("image/png");
    expect(file!.size).toBe(png.length);
    expect(Buffer.from(file!.body as Uint8Array).equals(png)).toBe(true);
    expect(storage.urlFor(key)).toBe(`/files/${key}`);

    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await storage.delete(key); // deleting twice is fine
  });

  it("refuses a content type that does not match the key", async () => {
    await expect(getStorage().put(newKey("covers/x", "webp"), png, "text/html")).rejects.toThrow(/content type/);
  });

  it("rejects keys that could leave the uploads folder", async () => {
    const storage = getStorage();
    for (const key of traversalKeys) {
      expect(isValidKey(key), key).toBe(false);
      await expect(storage.put(key, png, "image/png"), key).rejects.toBeInstanceOf(StorageKeyError);
      await expect(storage.delete(key), key).rejects.toBeInstanceOf(StorageKeyError);
      expect(await storage.get(key), key).toBeNull();
      expect(() => storage.urlFor(key), key).toThrow(StorageKeyError);
    }
    expect(fs.existsSync(path.join(dataDir(), "x.webp"))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(dataDir()), "x.webp"))).toBe(false);
  });

  it("maps URLs back to keys only for files it stored", () => {
    expect(keyFromUrl("/files/covers/u/abc.webp")).toBe("covers/u/abc.webp");
    expect(keyFromUrl("/files/covers/../x.webp")).toBeNull();
    expect(keyFromUrl("https://cdn.example.com/covers/u/abc.webp")).toBeNull();
    expect(keyFromUrl(null)).toBeNull();
    process.env.S3_PUBLIC_URL = "https://cdn.example.com/inkstone/";
    expect(keyFromUrl("https://cdn.example.com/inkstone/covers/u/abc.webp")).toBe("covers/u/abc.webp");
    expect(getStorage().urlFor("covers/u/abc.webp")).toBe("https://cdn.example.com/inkstone/covers/u/abc.webp");
  });
});

describe("GET /files/*", () => {
  it("serves a stored cover and its 2x file with long-lived cache headers", async () => {
    const url = await storeCover(userId, png);
    expect(url).toMatch(new RegExp(`^/files/covers/${userId}/[A-Za-z0-9_-]+\\.webp$`));
    const url2x = cover2xUrl(url)!;
    expect(url2x).toBe(url.replace(/\.webp$/, "@2x.webp"));

    for (const [u, width, height] of [[url, 200, 275], [url2x, 400, 550]] as const) {
      const res = await getFile(keyFromUrl(u)!);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/webp");
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("ETag")).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const body = await bytesOf(res);
      expect(Number(res.headers.get("Content-Length"))).toBe(body.length);
      const meta = await sharp(body).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["webp", width, height]);
    }
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const key = keyFromUrl(await storeCover(userId, png))!;
    const etag = (await getFile(key)).headers.get("ETag")!;
    const res = await getFile(key, { "If-None-Match": `W/"other", ${etag}` });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
    expect((await getFile(key, { "If-None-Match": '"other"' })).status).toBe(200);
  });

  it("serves avatars too", async () => {
    const key = keyFromUrl(await storeAvatar(userId, png))!;
    expect(key).toMatch(/^avatars\/.+\.png$/);
    const res = await getFile(key);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
  });

  it("404s unknown, malformed and non-image keys", async () => {
    await getStorage().put(`exports/${userId}/secret.png`, png, "image/png");
    for (const key of [`covers/${userId}/missing.webp`, `exports/${userId}/secret.png`, ...traversalKeys]) {
      const res = await getFile(key);
      expect(res.status, key).toBe(404);
      expect(res.headers.get("Cache-Control"), key).toBe("no-store");
    }
  });

  it("stops serving a deleted image, with its 2x file", async () => {
    const url = await storeCover(userId, png);
    await deleteStoredImage(url);
    expect((await getFile(keyFromUrl(url)!)).status).toBe(404);
    expect((await getFile(keyFromUrl(cover2xUrl(url))!)).status).toBe(404);
    await deleteStoredImage("https://elsewhere.example/cover.webp"); // not ours: ignored
  });
});

describe("S3 storage", () => {
  let s3: FakeS3;
  beforeAll(async () => {
    s3 = await startFakeS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  const config = () => ({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    region: s3.region,
    forcePathStyle: true,
  });

  it("puts, gets and deletes objects with signed requests", async () => {
    const storage = new S3Storage(config());
    const key = newKey(`covers/${userId}`, "png", "@2x");
    await storage.put(key, png, "image/png");
    expect(s3.objects.get(key)?.contentType).toBe("image/png");
    expect(s3.objects.get(key)?.body.equals(png)).toBe(true);

    const file = await storage.get(key);
    expect(file?.contentType).toBe("image/png");
    expect(file?.size).toBe(png.length);
    expect(Buffer.from(await new Response(file!.body as BodyInit).arrayBuffer()).equals(png)).toBe(true);

    await storage.delete(key);
    expect(s3.objects.has(key)).toBe(false);
    expect(await storage.get(key)).toBeNull();
    expect(s3.requests.length).toBeGreaterThanOrEqual(4);
    expect(s3.requests.every((r) => r.authorized)).toBe(true);
    expect(s3.requests[0].path).toBe(`/${s3.bucket}/${key}`);
  });

  it("fails loudly with a wrong secret, storing nothing", async () => {
    const storage = new S3Storage({ ...config(), secretAccessKey: "wrong" });
    const key = newKey("covers/x", "webp");
    await expect(storage.put(key, png, "image/webp")).rejects.toThrow(/HTTP 403/);
    expect(s3.objects.has(key)).toBe(false);
    await expect(storage.get(key)).rejects.toThrow(/HTTP 403/);
  });

  it("is chosen by the environment, and the files route serves from it", async () => {
    Object.assign(process.env, {
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: s3.bucket,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_REGION: s3.region,
      S3_FORCE_PATH_STYLE: "true",
    });
    expect(configuredStorage()).toBeInstanceOf(S3Storage);
    const url = await storeCover(userId, png);
    expect(url.startsWith("/files/covers/")).toBe(true);
    expect(s3.objects.size).toBeGreaterThanOrEqual(2);

    const res = await getFile(keyFromUrl(url)!);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/webp");
    const meta = await sharp(await bytesOf(res)).metadata();
    expect([meta.width, meta.height]).toEqual([200, 275]);
    expect((await getFile(`covers/${userId}/missing.webp`)).status).toBe(404);

    for (const name of S3_ENV) delete process.env[name];
    expect(configuredStorage()).toBeInstanceOf(LocalStorage);
  });

  it("refuses an S3 configuration without credentials", () => {
    process.env.S3_BUCKET = "b";
    expect(() => getStorage()).toThrow(/S3_ACCESS_KEY_ID/);
  });
});
