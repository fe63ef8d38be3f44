import { coverHash } from "~/utils/default-cover";
import { COVER_HEIGHT, COVER_WIDTH } from "~/server/platform/images.server";

/**
 * docs/product.md D5: a work without a cover gets one drawn for it: two colours from
 * its title, the title and the author's name set on it (SVG rendered by sharp, whose
 * librsvg finds the CJK font through fontconfig: fonts-wqy-microhei, installed by .ci/run
 * and the Dockerfile). Rendered once per title and author in each process and kept in a
 * small LRU; the address changes with them, so browsers may keep it for good.
 */

const CACHE_SIZE = 300;
const cache = new Map<string, Promise<Buffer>>();

/** @internal */
export const COVER_FONT = "'WenQuanYi Micro Hei', 'Noto Sans CJK SC', 'Source Han Sans SC', sans-serif";

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/** Lines of at most `width` characters (CJK text has no spaces to break at), at most `max` lines. */
function wrap(text: string, width: number, max: number): string[] {
  const chars = Array.from(text.replace(/\s+/g, " ").trim());
  const lines: string[] = [];
  for (let i = 0; i < chars.length && lines.length < max; i += width) lines.push(chars.slice(i, i + width).join(""));
  if (chars.length > width * max) lines[max - 1] = `${Array.from(lines[max - 1]).slice(0, width - 1).join("")}…`;
  return lines;
}

/** The cover as SVG, 2x the display size. */
function defaultCoverSvg(title: string, author: string): string {
  const seed = parseInt(coverHash(title, author), 36);
  const hue = seed % 360;
  const hue2 = (hue + 30 + ((seed >>> 9) % 60)) % 360;
  const [w, h] = [COVER_WIDTH * 2, COVER_HEIGHT * 2];
  const lines = wrap(title || "无题", 6, 4);
  const size = 52;
  const top = 150;
  const titleText = lines
    .map((line, i) => `<text x="${w / 2}" y="${top + i * (size + 14)}" font-size="${size}" font-weight="bold" text-anchor="middle" fill="#fff">${escapeXml(line)}</text>`)
    .join("");
  const authorLine = escapeXml(wrap(author, 12, 1)[0] ?? "");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
<stop offset="0" stop-color="hsl(${hue}, 45%, 42%)"/><stop offset="1" stop-color="hsl(${hue2}, 50%, 26%)"/>
</linearGradient></defs>
<rect width="${w}" height="${h}" fill="url(#g)"/>
<rect x="24" y="24" width="${w - 48}" height="${h - 48}" fill="none" stroke="rgba(255,255,255,0.45)" stroke-width="3"/>
<g font-family="${COVER_FONT}">${titleText}
<text x="${w / 2}" y="${h - 70}" font-size="28" text-anchor="middle" fill="rgba(255,255,255,0.9)">${authorLine}</text></g>
</svg>`;
}

/** The cover as WebP, from the cache when this title and author were drawn before. */
export function defaultCoverWebp(title: string, author: string): Promise<Buffer> {
  const key = `${title}\u0000${author}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const rendered = import("sharp").then(({ default: sharp }) =>
    sharp(Buffer.from(defaultCoverSvg(title, author))).webp({ quality: 82 }).toBuffer(),
  );
  rendered.catch(() => cache.delete(key));
  cache.set(key, rendered);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return rendered;
}

/** The same cover as JPEG (EPUB readers do not all read WebP). */
export async function defaultCoverJpeg(title: string, author: string): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  return sharp(await defaultCoverWebp(title, author)).jpeg({ quality: 85 }).toBuffer();
}
