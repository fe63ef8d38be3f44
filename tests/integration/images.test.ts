import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AVATAR_MAX_BYTES,
  COVER_MAX_BYTES,
  ImageError,
  processAvatar,
  processCover,
  processSiteImage,
  storeCover,
  storeSiteImage,
  cover2xUrl,
} from "~/server/platform/images.server";
import { getStorage, keyFromUrl } from "~/server/platform/storage.server";

const NOT_IMAGE = "请上传图片文件（JPG、PNG、WebP）";
const NOT_AVATAR_IMAGE = "头像仅支持JPG、PNG或WebP格式的图片";
const CORRUPT = "图片文件已损坏或无法识别，请换一张图片";
const TOO_MANY_PIXELS = "图片尺寸过大，请上传不超过4000万像素的图片";

async function imageError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImageError);
    return (error as ImageError).message;
  }
  throw new Error("expected an ImageError");
}

const solid = (width: number, height: number, background: string, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background } });

const noise = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });

/** Left half red, right half blue. */
const halves = (width: number, height: number) =>
  solid(width, height, "#0000ff").composite([
    { input: { create: { width: width / 2, height, channels: 3, background: "#ff0000" } }, left: 0, top: 0 },
  ]);

async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...data.subarray(i, i + 3)];
}

const isRed = ([r, g, b]: number[]) => r > 200 && g < 60 && b < 60;
const isBlue = ([r, g, b]: number[]) => b > 200 && r < 60 && g < 60;

let png: Buffer;
let jpeg: Buffer;
let hugePng: Buffer;
let truncatedJpeg: Buffer;
let noisyJpeg: Buffer;
const pdf = Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
const svg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="275">' +
    "<script>alert(document.cookie)</script>" +
    '<rect width="200" height="275" fill="red"/></svg>',
);

beforeAll(async () => {
  png = await solid(300, 400, "#3366cc").png().toBuffer();
  jpeg = await halves(800, 300).jpeg({ quality: 90 }).withExif({ IFD0: { Copyright: "secret-exif-marker" } }).toBuffer();
  // 100 megapixels of white: a tiny file that would need 300 MB once decoded.
  hugePng = await solid(10_000, 10_000, "#ffffff").png({ compressionLevel: 9 }).toBuffer();
  const full = await noise(400, 400).jpeg({ quality: 90 }).toBuffer();
  truncatedJpeg = full.subarray(0, Math.floor(full.length * 0.6));
  noisyJpeg = await noise(2000, 2000).jpeg({ quality: 90 }).toBuffer();
});

describe("processCover", () => {
  it("turns a PNG into 200x275 and 400x550 WebP", async () => {
    const cover = await processCover(png);
    for (const [bytes, width, height] of [[cover["1x"], 200, 275], [cover["2x"], 400, 550]] as const) {
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["webp", width, height]);
    }
  });

  it("crops a wide JPEG to fill the cover and strips its metadata", async () => {
    const cover = await processCover(jpeg);
    const meta = await sharp(cover["2x"]).metadata();
    expect([meta.width, meta.height]).toEqual([400, 550]);
    expect(meta.exif).toBeUndefined();
    expect(cover["2x"].includes("secret-exif-marker")).toBe(false);
    // Centre crop of a red|blue image: red on the left, blue on the right, nothing empty.
    expect(isRed(await pixel(cover["2x"], 10, 275))).toBe(true);
    expect(isBlue(await pixel(cover["2x"], 390, 275))).toBe(true);
  });

  it("turns an image upright by its EXIF orientation", async () => {
    // Stored red|blue, tagged "rotate 90° clockwise to display": upright it is red over blue.
    const rotated = await halves(550, 400).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const cover = await processCover(rotated);
    expect(isRed(await pixel(cover["2x"], 200, 20))).toBe(true);
    expect(isBlue(await pixel(cover["2x"], 200, 530))).toBe(true);
  });

  it("accepts GIF and AVIF", async () => {
    for (const bytes of [await solid(50, 50, "#00ff00").gif().toBuffer(), await solid(50, 50, "#00ff00").avif().toBuffer()]) {
      const meta = await sharp((await processCover(bytes))["1x"]).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["webp", 200, 275]);
    }
  });

  it("refuses a renamed PDF", async () => {
    expect(await imageError(processCover(pdf))).toBe(NOT_IMAGE);
  });

  it("refuses SVG, script or not", async () => {
    expect(await imageError(processCover(svg))).toBe(NOT_IMAGE);
    expect(await imageError(processCover(Buffer.concat([Buffer.from('<?xml version="1.0"?>\n'), svg])))).toBe(NOT_IMAGE);
  });

  it("refuses text, empty and random bytes", async () => {
    for (const bytes of [Buffer.from("just some text, not an image"), Buffer.alloc(0), randomBytes(4096)]) {
      expect(await imageError(processCover(bytes))).toBe(NOT_IMAGE);
    }
  });

  it("refuses a 100-megapixel PNG", async () => {
    expect(hugePng.length).toBeLessThan(COVER_MAX_BYTES);
    expect(await imageError(processCover(hugePng))).toBe(TOO_MANY_PIXELS);
  });

  it("refuses a truncated JPEG", async () => {
    expect(await imageError(processCover(truncatedJpeg))).toBe(CORRUPT);
  });

  it("refuses a PNG whose header claims another format's data", async () => {
    const fake = Buffer.concat([png.subarray(0, 33), randomBytes(2000)]);
    expect(await imageError(processCover(fake))).toBe(CORRUPT);
  });

  it("refuses files over 5 MB", async () => {
    const big = Buffer.concat([png, Buffer.alloc(6 * 1024 * 1024 - png.length)]);
    expect(await imageError(processCover(big))).toBe("封面图片不能超过5MB");
  });

  it("stores both sizes and returns the 1x URL", async () => {
    const userId = "3e1f5b0a-0000-4000-8000-000000000001";
    const url = await storeCover(userId, png);
    const key = keyFromUrl(url)!;
    expect(key).toMatch(new RegExp(`^covers/${userId}/[A-Za-z0-9_-]+\\.webp$`));
    const x1 = await getStorage().get(key);
    const x2 = await getStorage().get(keyFromUrl(cover2xUrl(url))!);
    expect(x1?.contentType).toBe("image/webp");
    expect((await sharp(x2!.body as Uint8Array).metadata()).width).toBe(400);
    await expect(storeCover("../etc", png)).rejects.toThrow();
  });
});

describe("processAvatar", () => {
  it("compresses a noisy 2000x2000 JPEG over 500KB to a JPEG of at most 800 px and 500KB", async () => {
    expect(noisyJpeg.length).toBeGreaterThan(AVATAR_MAX_BYTES);
    const avatar = await processAvatar(noisyJpeg);
    expect(avatar.bytes.length).toBeLessThanOrEqual(AVATAR_MAX_BYTES);
    expect(avatar).toMatchObject({ contentType: "image/jpeg", ext: "jpg" });
    const meta = await sharp(avatar.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 800, 800]);
  });

  it("re-encodes a small PNG as PNG, same size, metadata gone", async () => {
    const small = await solid(120, 90, "#ff8800").png().withExif({ IFD0: { Copyright: "secret-exif-marker" } }).toBuffer();
    const avatar = await processAvatar(small);
    expect(avatar).toMatchObject({ contentType: "image/png", ext: "png" });
    const meta = await sharp(avatar.bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(["png", 120, 90, undefined]);
    expect(avatar.bytes.includes("secret-exif-marker")).toBe(false);
  });

  it("keeps a small WebP as WebP and turns a small JPEG upright", async () => {
    const webp = await processAvatar(await solid(64, 64, "#123456").webp().toBuffer());
    expect(webp).toMatchObject({ contentType: "image/webp", ext: "webp" });
    const rotated = await halves(300, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const meta = await sharp((await processAvatar(rotated)).bytes).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([100, 300, undefined]);
  });

  it("flattens transparency onto white when it has to become a JPEG", async () => {
    // Random colours, with the top-left 100x100 pixels fully transparent (and black).
    const rgba = randomBytes(900 * 600 * 4);
    for (let y = 0; y < 100; y++) rgba.fill(0, y * 900 * 4, (y * 900 + 100) * 4);
    const transparent = await sharp(rgba, { raw: { width: 900, height: 600, channels: 4 } }).png().toBuffer();
    expect(transparent.length).toBeGreaterThan(AVATAR_MAX_BYTES);
    const avatar = await processAvatar(transparent);
    const meta = await sharp(avatar.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 800, 533]);
    expect((await pixel(avatar.bytes, 20, 20)).every((v) => v > 240)).toBe(true);
  });

  it("gives docs/product.md's message (D10) when compression is not enough", async () => {
    expect(await imageError(processAvatar(noisyJpeg, { maxBytes: 20_000 }))).toBe("文件大小不能超过500KB，压缩后仍然过大");
  });

  it("refuses GIF, SVG with script, a renamed PDF and random bytes", async () => {
    const gif = await solid(20, 20, "#000000").gif().toBuffer();
    for (const bytes of [gif, svg, pdf, randomBytes(1000)]) {
      expect(await imageError(processAvatar(bytes))).toBe(NOT_AVATAR_IMAGE);
    }
  });

  it("refuses a 100-megapixel PNG and a truncated JPEG", async () => {
    expect(await imageError(processAvatar(hugePng))).toBe(TOO_MANY_PIXELS);
    expect(await imageError(processAvatar(truncatedJpeg))).toBe(CORRUPT);
    // Over 500KB, so it goes the compression way: docs/product.md's compression message (D10).
    const bigTruncated = noisyJpeg.subarray(0, Math.floor(noisyJpeg.length * 0.5));
    expect(bigTruncated.length).toBeGreaterThan(AVATAR_MAX_BYTES);
    expect(await imageError(processAvatar(bigTruncated))).toBe("图片压缩失败，请尝试更小的图片");
  });

  it("refuses uploads over 20 MB", async () => {
    const big = Buffer.concat([noisyJpeg, Buffer.alloc(21 * 1024 * 1024)]);
    expect(await imageError(processAvatar(big))).toBe("头像图片不能超过20MB");
  });
});

describe("processSiteImage", () => {
  it("fits the hero into 1200x800 and refuses more than 2MB", async () => {
    const hero = await processSiteImage(await solid(3000, 1500, "#abcdef").png().toBuffer(), "hero");
    const meta = await sharp(hero).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 1200, 600]);
    const small = await sharp(await processSiteImage(png, "hero")).metadata();
    expect([small.width, small.height]).toEqual([300, 400]);
    const big = Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)]);
    expect(await imageError(processSiteImage(big, "hero"))).toBe("图片大小不能超过2MB");
  });

  it("makes the logo at most 96 px high, keeping transparency", async () => {
    const logo = await processSiteImage(await solid(800, 192, "#ff000080", 4).png().toBuffer(), "logo");
    const meta = await sharp(logo).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(["webp", 400, 96, true]);
  });

  it("crops the default cover to 400x550 and stores it as a 1x/2x pair", async () => {
    const meta = await sharp(await processSiteImage(jpeg, "cover")).metadata();
    expect([meta.width, meta.height]).toEqual([400, 550]);
    const url = await storeSiteImage("cover", jpeg);
    expect(url).toMatch(/^\/files\/site\/cover\/[A-Za-z0-9_-]+\.webp$/);
    expect(await getStorage().get(keyFromUrl(cover2xUrl(url))!)).not.toBeNull();
    expect(await storeSiteImage("logo", png)).toMatch(/^\/files\/site\/logo\/[A-Za-z0-9_-]+\.webp$/);
  });

  it("refuses non-images", async () => {
    for (const kind of ["cover", "logo", "hero"] as const) {
      expect(await imageError(processSiteImage(svg, kind))).toBe(NOT_IMAGE);
      expect(await imageError(processSiteImage(pdf, kind))).toBe(NOT_IMAGE);
    }
  });
});
