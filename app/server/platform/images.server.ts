import type { Metadata, SharpOptions } from "sharp";
import { DomainError } from "./errors.server";
import { getStorage, keyFromUrl, newKey } from "./storage.server";

/**
 * docs/product.md D10: every uploaded image is decoded and re-encoded here, which strips its
 * metadata and refuses non-images, SVG (it can carry script) and decompression bombs.
 */

// sharp and libvips add about 27 MB to the process once loaded: they are loaded with the
// first image, not at start, so a server that only serves pages stays small.
let sharpModule: Promise<typeof import("sharp").default> | undefined;
async function loadSharp(): Promise<typeof import("sharp").default> {
  sharpModule ??= import("sharp").then((m) => m.default);
  return sharpModule;
}

export const COVER_MAX_BYTES = 5 * 1024 * 1024;
/** Avatars larger than this are compressed, and must end up no larger (docs/product.md: Rules). @internal */
export const AVATAR_MAX_BYTES = 500 * 1024;
/** What an avatar upload may weigh before compression (a phone photo is 3-12 MB). */
export const AVATAR_INPUT_MAX_BYTES = 20 * 1024 * 1024;
const HERO_MAX_BYTES = 2 * 1024 * 1024;
const SITE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const MAX_INPUT_PIXELS = 40_000_000;

/** The cover display size (docs/product.md: Constants); the 2x file is twice that. */
export const COVER_WIDTH = 200;
export const COVER_HEIGHT = 275;
const AVATAR_MAX_SIDE = 800;
const AVATAR_JPEG_QUALITY = 60;

/** A refused image: 400, and `message` is shown to the user as is. */
export class ImageError extends DomainError {
  constructor(message: string) {
    super(message, 400);
    this.name = "ImageError";
  }
}

const MESSAGES = {
  notImage: "请上传图片文件（JPG、PNG、WebP）",
  notAvatarImage: "头像仅支持JPG、PNG或WebP格式的图片",
  corrupt: "图片文件已损坏或无法识别，请换一张图片",
  tooManyPixels: "图片尺寸过大，请上传不超过4000万像素的图片",
  coverTooLarge: "封面图片不能超过5MB",
  avatarInputTooLarge: "头像图片不能超过20MB",
  avatarStillTooLarge: "文件大小不能超过500KB，压缩后仍然过大",
  avatarCompressFailed: "图片压缩失败，请尝试更小的图片",
  heroTooLarge: "图片大小不能超过2MB",
  siteImageTooLarge: "图片大小不能超过5MB",
};

type ImageFormat = "jpeg" | "png" | "webp" | "gif" | "avif";
const COVER_FORMATS: ImageFormat[] = ["jpeg", "png", "webp", "gif", "avif"];
const AVATAR_FORMATS: ImageFormat[] = ["jpeg", "png", "webp"];

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...bytes.subarray(start, end));

/**
 * The format by its first bytes. Only these reach sharp: an SVG, PDF or anything else
 * renamed to .png is refused before any decoder sees it.
 */
function sniffFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length < 12) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (ascii(bytes, 0, 8) === "\x89PNG\r\n\x1a\n") return "png";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "webp";
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return "gif";
  if (ascii(bytes, 4, 8) === "ftyp") {
    // ISO-BMFF: the major brand, then compatible brands up to the end of the ftyp box.
    const declared = Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32BE(0);
    const boxSize = Math.min(declared, 256, bytes.length);
    for (let offset = 8; offset + 4 <= boxSize; offset += 4) {
      if (offset === 12) continue; // minor version
      const brand = ascii(bytes, offset, offset + 4);
      if (brand === "avif" || brand === "avis") return "avif";
    }
  }
  return null;
}

const inputOptions: SharpOptions = {
  limitInputPixels: MAX_INPUT_PIXELS,
  // Refuses truncated and broken data, but not the harmless warnings many cameras cause.
  failOn: "error",
  autoOrient: true,
};

/** What sharp's own errors mean for the user. */
function decodeError(error: unknown, corruptMessage: string): ImageError {
  if (error instanceof ImageError) return error;
  const text = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(text)) return new ImageError(MESSAGES.tooManyPixels);
  return new ImageError(corruptMessage);
}

/** Checks format and dimensions from the header, before any pixel is decoded. */
async function inspect(
  bytes: Uint8Array,
  formats: ImageFormat[],
  notImageMessage: string,
): Promise<{ format: ImageFormat; width: number; height: number }> {
  const sharp = await loadSharp();
  const format = sniffFormat(bytes);
  if (!format || !formats.includes(format)) throw new ImageError(notImageMessage);
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, inputOptions).metadata();
  } catch (error) {
    throw decodeError(error, MESSAGES.corrupt);
  }
  // sharp names the decoder it chose: it must agree with the bytes (AVIF decodes as heif/av1).
  const agrees =
    format === "avif" ? metadata.format === "heif" && metadata.compression === "av1" : metadata.format === format;
  if (!agrees) throw new ImageError(notImageMessage);
  const { width, height } = metadata;
  if (!width || !height) throw new ImageError(MESSAGES.corrupt);
  if (width * height > MAX_INPUT_PIXELS) throw new ImageError(MESSAGES.tooManyPixels);
  return { format, width, height };
}

async function render<T>(build: () => Promise<T>, corruptMessage: string): Promise<T> {
  try {
    return await build();
  } catch (error) {
    throw decodeError(error, corruptMessage);
  }
}

/** @internal */
export interface CoverImages {
  "1x": Buffer;
  "2x": Buffer;
}

/**
 * A cover upload to WebP at the display ratio: 200x275 and 400x550, cropped to fill
 * (centre), turned upright by its EXIF orientation, without metadata.
 * @internal
 */
export async function processCover(bytes: Uint8Array): Promise<CoverImages> {
  const sharp = await loadSharp();
  if (bytes.byteLength > COVER_MAX_BYTES) throw new ImageError(MESSAGES.coverTooLarge);
  await inspect(bytes, COVER_FORMATS, MESSAGES.notImage);
  // Decode and crop once at 2x; the 1x file is a downscale of that.
  const { data, info } = await render(
    () =>
      sharp(bytes, inputOptions)
        .resize(COVER_WIDTH * 2, COVER_HEIGHT * 2, { fit: "cover" })
        .raw()
        .toBuffer({ resolveWithObject: true }),
    MESSAGES.corrupt,
  );
  const raw = { width: info.width, height: info.height, channels: info.channels };
  const [x1, x2] = await Promise.all([
    sharp(data, { raw }).resize(COVER_WIDTH, COVER_HEIGHT).webp({ quality: 80 }).toBuffer(),
    sharp(data, { raw }).webp({ quality: 80 }).toBuffer(),
  ]);
  return { "1x": x1, "2x": x2 };
}

/** @internal */
export interface ProcessedAvatar {
  bytes: Buffer;
  contentType: "image/jpeg" | "image/png" | "image/webp";
  ext: "jpg" | "png" | "webp";
}

const AVATAR_OUTPUT: Record<"jpeg" | "png" | "webp", Pick<ProcessedAvatar, "contentType" | "ext">> = {
  jpeg: { contentType: "image/jpeg", ext: "jpg" },
  png: { contentType: "image/png", ext: "png" },
  webp: { contentType: "image/webp", ext: "webp" },
};

/**
 * The avatar rule (docs/product.md: Rules, D10): JPG, PNG or WebP; always
 * re-encoded (upright, metadata stripped). Up to 500KB it keeps its format and size;
 * over that (before or after re-encoding) it becomes a JPEG of at most 800 px on its
 * longest side at quality 60, which must then fit in 500KB. `maxBytes` exists for tests.
 * @internal
 */
export async function processAvatar(
  bytes: Uint8Array,
  { maxBytes = AVATAR_MAX_BYTES }: { maxBytes?: number } = {},
): Promise<ProcessedAvatar> {
  const sharp = await loadSharp();
  if (bytes.byteLength > AVATAR_INPUT_MAX_BYTES) throw new ImageError(MESSAGES.avatarInputTooLarge);
  const { format } = await inspect(bytes, AVATAR_FORMATS, MESSAGES.notAvatarImage);

  if (bytes.byteLength <= maxBytes) {
    const same = await render(() => {
      const image = sharp(bytes, inputOptions);
      if (format === "png") return image.png({ compressionLevel: 9 }).toBuffer();
      if (format === "webp") return image.webp({ quality: 85 }).toBuffer();
      return image.jpeg({ quality: 85, mozjpeg: true }).toBuffer();
    }, MESSAGES.corrupt);
    if (same.byteLength <= maxBytes) return { bytes: same, ...AVATAR_OUTPUT[format as "jpeg" | "png" | "webp"] };
  }

  const compressed = await render(
    () =>
      sharp(bytes, inputOptions)
        .resize(AVATAR_MAX_SIDE, AVATAR_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
        // JPEG has no transparency: transparent pixels become white, not black.
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: AVATAR_JPEG_QUALITY })
        .toBuffer(),
    MESSAGES.avatarCompressFailed,
  );
  if (compressed.byteLength > maxBytes) throw new ImageError(MESSAGES.avatarStillTooLarge);
  return { bytes: compressed, ...AVATAR_OUTPUT.jpeg };
}

export type SiteImageKind = "cover" | "logo" | "hero" | "icon";

/**
 * Administrator images (docs/product.md, Back office: site images): the default cover (400x550, the 2x cover size),
 * the logo (shown 48 px high: at most 96 px high for 2x screens) and the hero image
 * (shown at most 600x400: at most 1200x800, at most 2MB uploaded). Never enlarged,
 * except the cover, which is cropped to its exact size. WebP, transparency kept.
 * @internal
 */
export async function processSiteImage(bytes: Uint8Array, kind: SiteImageKind): Promise<Buffer> {
  const sharp = await loadSharp();
  const limit = kind === "hero" ? HERO_MAX_BYTES : SITE_IMAGE_MAX_BYTES;
  if (bytes.byteLength > limit) {
    throw new ImageError(kind === "hero" ? MESSAGES.heroTooLarge : MESSAGES.siteImageTooLarge);
  }
  await inspect(bytes, COVER_FORMATS, MESSAGES.notImage);
  return render(() => {
    const image = sharp(bytes, inputOptions);
    if (kind === "cover") {
      return image.resize(COVER_WIDTH * 2, COVER_HEIGHT * 2, { fit: "cover" }).webp({ quality: 80 }).toBuffer();
    }
    if (kind === "logo") {
      return image.resize(960, 96, { fit: "inside", withoutEnlargement: true }).webp({ quality: 90 }).toBuffer();
    }
    if (kind === "icon") {
      // The browser tab's icon: a 64x64 PNG (every browser takes PNG icons).
      return image.resize(64, 64, { fit: "cover" }).png().toBuffer();
    }
    return image.resize(1200, 800, { fit: "inside", withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
  }, MESSAGES.corrupt);
}

const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

function ownerSegment(userId: string): string {
  if (!SAFE_SEGMENT.test(userId)) throw new Error(`unexpected user id for a storage key: ${userId}`);
  return userId;
}

/** Stores both cover sizes; undoes the first if the second fails. Returns the 1x key. */
async function putCoverPair(prefix: string, images: CoverImages): Promise<string> {
  const storage = getStorage();
  const key = newKey(prefix, "webp");
  const key2x = cover2xKey(key);
  await storage.put(key2x, images["2x"], "image/webp");
  try {
    await storage.put(key, images["1x"], "image/webp");
  } catch (error) {
    await storage.delete(key2x).catch(() => {});
    throw error;
  }
  return key;
}

/** The key of a cover's 2x file: `<name>.webp` -> `<name>@2x.webp`. */
function cover2xKey(key: string): string {
  return key.replace(/\.webp$/, "@2x.webp");
}

/**
 * The 2x URL of a cover stored by storeCover or storeSiteImage("cover"), for
 * `srcSet={`${url} 1x, ${cover2xUrl(url)} 2x`}`; null for a URL this app did not store
 * (such as an external default cover), which then has no 2x version.
 * @internal
 */
export function cover2xUrl(url: string | null | undefined): string | null {
  const key = keyFromUrl(url);
  if (!key || !/^(covers\/|site\/cover\/)/.test(key) || key.endsWith("@2x.webp")) return null;
  return url!.replace(/\.webp$/, "@2x.webp");
}

/** A user's cover upload, processed and stored; returns its (1x) URL. */
export async function storeCover(userId: string, bytes: Uint8Array): Promise<string> {
  const images = await processCover(bytes);
  const key = await putCoverPair(`covers/${ownerSegment(userId)}`, images);
  return getStorage().urlFor(key);
}

/** A user's avatar upload, processed and stored; returns its URL. */
export async function storeAvatar(userId: string, bytes: Uint8Array): Promise<string> {
  const avatar = await processAvatar(bytes);
  const key = newKey(`avatars/${ownerSegment(userId)}`, avatar.ext);
  await getStorage().put(key, avatar.bytes, avatar.contentType);
  return getStorage().urlFor(key);
}

/** An administrator's site image, processed and stored under site/<kind>/; returns its URL. */
export async function storeSiteImage(kind: SiteImageKind, bytes: Uint8Array): Promise<string> {
  if (kind === "cover") {
    // Stored as a 1x/2x pair like user covers, so cover2xUrl works for every cover.
    if (bytes.byteLength > SITE_IMAGE_MAX_BYTES) throw new ImageError(MESSAGES.siteImageTooLarge);
    const key = await putCoverPair("site/cover", await processCover(bytes));
    return getStorage().urlFor(key);
  }
  const image = await processSiteImage(bytes, kind);
  const png = kind === "icon";
  const key = newKey(`site/${kind}`, png ? "png" : "webp");
  await getStorage().put(key, image, png ? "image/png" : "image/webp");
  return getStorage().urlFor(key);
}

/**
 * Removes a stored image (and a cover's 2x file) by the URL kept in the database, e.g.
 * the old avatar after a new one is saved. URLs the app did not store are left alone.
 * Call it after the database change has committed: a missing file is worse than an
 * orphaned one.
 */
export async function deleteStoredImage(url: string | null | undefined): Promise<void> {
  const key = keyFromUrl(url);
  if (!key) return;
  const storage = getStorage();
  await storage.delete(key);
  if (/^(covers\/|site\/cover\/)/.test(key) && !key.endsWith("@2x.webp")) await storage.delete(cover2xKey(key));
}

/**
 * A cover this app stored (its 2x file, 400x550, when there is one) as a JPEG, for an
 * EPUB: every reading system shows JPEG, and WebP is no core media type of EPUB 3.2
 * (decision 097). Null when the URL is not a stored file or it cannot be read; the
 * caller then goes without a cover.
 */
export async function storedCoverJpeg(url: string | null | undefined): Promise<Buffer | null> {
  const storage = getStorage();
  for (const candidate of [cover2xUrl(url), url]) {
    const key = keyFromUrl(candidate);
    if (!key) continue;
    try {
      const file = await storage.get(key);
      if (!file) continue;
      const bytes = file.body instanceof Uint8Array ? file.body : new Uint8Array(await new Response(file.body).arrayBuffer());
      const sharp = await loadSharp();
      return await sharp(bytes, inputOptions).jpeg({ quality: 85 }).toBuffer();
    } catch (error) {
      console.warn("cover could not be read for an export", key, error);
    }
  }
  return null;
}
