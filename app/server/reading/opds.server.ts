import { escapeXml } from "~/server/platform/xml.server";
import { defaultCoverHref } from "~/utils/default-cover";
import { mayDownloadReaderEpub } from "./book-epub.server";
import { listOwnedWorks, type OwnedWork } from "./library.server";
import type { OpdsReader } from "~/server/identity/opds-tokens.server";

/**
 * The reading apps' OPDS 1.2 catalog (docs/product.md#reading-apps, decision 201): a root
 * navigation feed and the reader's library as an acquisition feed, Atom written by hand as
 * the work feeds and the sitemaps are. Every address is absolute, from the site's origin
 * (SITE_URL), never from the request's Host; each carries the token, which is how a reading
 * app is known (`base` is `<origin>/opds/<token>`).
 */
export const OPDS_NAVIGATION = "application/atom+xml;profile=opds-catalog;kind=navigation";
export const OPDS_ACQUISITION = "application/atom+xml;profile=opds-catalog;kind=acquisition";
/** Entries per page of the library; a longer one links the next page (rel="next"). */
const OPDS_PAGE_SIZE = 30;
const SUMMARY_MAX = 1000;

/** The catalog's base address for a token: every link of its feeds starts with it. */
export function opdsBase(origin: string, token: string): string {
  return `${origin}/opds/${encodeURIComponent(token)}`;
}

function feedHead(id: string, title: string, updated: string, links: string[]): string[] {
  return [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog" xml:lang="zh-CN">`,
    `  <id>${escapeXml(id)}</id>`,
    `  <title>${escapeXml(title)}</title>`,
    `  <updated>${updated}</updated>`,
    `  <author><name>砚台</name></author>`,
    ...links,
  ];
}

const link = (rel: string, href: string, type: string, title?: string) =>
  `  <link rel="${escapeXml(rel)}" href="${escapeXml(href)}" type="${escapeXml(type)}"${title ? ` title="${escapeXml(title)}"` : ""}/>`;

const tag = (origin: string, what: string) => `tag:${new URL(origin).host},2026:opds:${what}`;

/** The root: one entry, 我的书库, pointing at the library. */
export function opdsRootFeed(origin: string, base: string, now = new Date()): string {
  const updated = now.toISOString();
  const lines = feedHead(tag(origin, "root"), "砚台 · 我的书库", updated, [
    link("self", base, OPDS_NAVIGATION),
    link("start", base, OPDS_NAVIGATION),
  ]);
  lines.push(
    `  <entry>`,
    `    <id>${escapeXml(tag(origin, "library"))}</id>`,
    `    <title>我的书库</title>`,
    `    <updated>${updated}</updated>`,
    `    <content type="text">已购买的作品和书架上的免费作品，最近加入的在前</content>`,
    `  ${link("subsection", `${base}/library`, OPDS_ACQUISITION, "我的书库").trim()}`,
    `  </entry>`,
    `</feed>`,
    ``,
  );
  return lines.join("\n");
}

function imageType(href: string): string {
  const ext = /\.(\w+)(?:\?|$)/.exec(href)?.[1]?.toLowerCase();
  if (ext === "jpg" || ext === "jpeg") return "image/jpeg";
  if (ext === "png" || ext === "gif" || ext === "avif") return `image/${ext}`;
  return "image/webp";
}

function entry(origin: string, base: string, work: OwnedWork): string[] {
  const cover = work.coverUrl || defaultCoverHref(work);
  const coverHref = /^https?:\/\//.test(cover) ? cover : `${origin}${cover}`;
  const summary = Array.from(work.description).slice(0, SUMMARY_MAX).join("");
  return [
    `  <entry>`,
    `    <id>${escapeXml(tag(origin, `work:${work.id}`))}</id>`,
    `    <title>${escapeXml(work.title)}</title>`,
    `    <author><name>${escapeXml(work.authorNickname)}</name></author>`,
    `    <updated>${work.updatedAt.toISOString()}</updated>`,
    `    <dc:language>zh-CN</dc:language>`,
    `    <summary type="text">${escapeXml(summary)}</summary>`,
    `  ${link("http://opds-spec.org/image", coverHref, imageType(coverHref))}`,
    `  ${link("http://opds-spec.org/image/thumbnail", coverHref, imageType(coverHref))}`,
    `  ${link("http://opds-spec.org/acquisition", `${base}/works/${work.id}/book.epub`, "application/epub+zip", "下载 EPUB")}`,
    `  ${link("alternate", `${origin}/works/${work.id}`, "text/html")}`,
    `  </entry>`,
  ];
}

/**
 * A page of the reader's library: the candidates of `listOwnedWorks`, each kept only when
 * the reader's EPUB download would give them a copy (`mayDownloadReaderEpub`, the one rule).
 * A page may so hold fewer than its size; `rel="next"` follows the candidates' pages.
 */
export async function opdsLibraryFeed(reader: OpdsReader, origin: string, base: string, requested: number, pageSize = OPDS_PAGE_SIZE): Promise<string> {
  const { works, page, pageCount } = await listOwnedWorks(reader, requested, pageSize);
  // One after another: a page's checks should not take a pool's worth of connections.
  const listed: OwnedWork[] = [];
  for (const work of works) if (await mayDownloadReaderEpub(reader, work.id)) listed.push(work);
  const pageHref = (n: number) => (n === 1 ? `${base}/library` : `${base}/library?page=${n}`);
  const links = [
    link("self", pageHref(page), OPDS_ACQUISITION),
    link("start", base, OPDS_NAVIGATION),
    link("up", base, OPDS_NAVIGATION),
    link("first", pageHref(1), OPDS_ACQUISITION),
    link("last", pageHref(pageCount), OPDS_ACQUISITION),
  ];
  if (page > 1) links.push(link("previous", pageHref(page - 1), OPDS_ACQUISITION));
  if (page < pageCount) links.push(link("next", pageHref(page + 1), OPDS_ACQUISITION));
  const newest = listed.reduce<Date | null>((latest, w) => (!latest || w.updatedAt > latest ? w.updatedAt : latest), null);
  const lines = feedHead(tag(origin, "library"), "我的书库", (newest ?? new Date()).toISOString(), links);
  for (const work of listed) lines.push(...entry(origin, base, work));
  lines.push(`</feed>`, ``);
  return lines.join("\n");
}
