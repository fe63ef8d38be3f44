import { sql } from "drizzle-orm";
import { readDb } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { escapeXml } from "~/server/platform/xml.server";

/**
 * What search engines are told (docs/product.md#found-by-search-engines, docs/decisions/200):
 * robots.txt, a sitemap index and its pages. Only what a visitor may read is listed: works
 * that are neither private (taken-down works are private) nor R-18, and their free chapters.
 *
 * Pages are buckets of ids, not offsets: `works-K.xml` holds the listed works whose id is
 * in the K-th block of 50,000 (the protocol's limit per file), `chapters-K.xml` the free
 * chapters whose id is in the K-th block. A page is one index range scan however many
 * works the site has, never more than 50,000 addresses, and stays the same page when
 * rows before it are deleted. The index lists only blocks that hold at least one address
 * (an empty urlset is invalid); each block's check stops at its first hit.
 */
const SITEMAP_BLOCK = 50_000;

const SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9";

/** Listed works: visible to a visitor (not private, not R-18). */
const listedWork = sql`w.visibility <> 'private' and w.rating = 'all_ages'`;

/**
 * A published chapter a visitor may read: every chapter of a free work; of a work sold by
 * chapter, those before its first VIP chapter (the `vip_from`-th published one). A work
 * sold whole has no free chapters. A notice chapter (请假条, 作品相关) is always free and
 * listed by its own address (decision 203).
 */
const freeChapter = sql`c.state = 'published' and (w.visibility = 'public' or (
  w.visibility = 'public-vip' and w.sale_mode = 'chapter' and w.vip_from >= 2 and (
    (select count(*) from (
      select 1 from ${chapters} v where v.work_id = w.id and v.state = 'published' and v.kind = 'chapter' limit w.vip_from
    ) published) < w.vip_from
    or (c.position, c.id) < (
      select v.position, v.id from ${chapters} v
      where v.work_id = w.id and v.state = 'published' and v.kind = 'chapter'
      order by v.position, v.id offset w.vip_from - 1 limit 1
    )
  )
))`;

export type SitemapKind = "works" | "chapters";

/** `works-3.xml` → { kind: "works", block: 3 }; anything else is null. */
export function parseSitemapFile(file: string): { kind: SitemapKind; block: number } | null {
  const match = /^(works|chapters)-([1-9]\d{0,6})\.xml$/.exec(file);
  return match ? { kind: match[1] as SitemapKind, block: Number(match[2]) } : null;
}

export function robotsTxt(origin: string | null): string {
  const lines = [
    "User-agent: *",
    // The back office, accounts and what answers only a signed-in reader.
    ...["/admin", "/xbbadmin", "/api/", "/auth/", "/settings", "/credits", "/notifications", "/following", "/purchased", "/my-works", "/submit", "/writing", "/income", "/payment/", "/exports/", "/files/"].map(
      (path) => `Disallow: ${path}`,
    ),
    "Allow: /",
  ];
  // Without SITE_URL there is no address to give (never the request's Host: decision 166).
  if (origin) lines.push("", `Sitemap: ${origin}/sitemap.xml`);
  return `${lines.join("\n")}\n`;
}

function iso(at: string | Date): string {
  return new Date(at).toISOString();
}

/**
 * The sitemap index: one entry per block that lists something, works first. Each block is
 * read only up to its first address (`exists`), so the index costs little however large
 * the site; the last-change times are on the pages' addresses, not here.
 */
export async function sitemapIndex(origin: string): Promise<string> {
  const blocks = rowsOf<{ kind: SitemapKind; block: number }>(
    await readDb().execute(sql`
      with bounds as (
        select (select coalesce(max(id), 0) from ${works}) as works_max,
               (select coalesce(max(id), 0) from ${chapters}) as chapters_max
      )
      select 'works' as kind, k + 1 as block
      from bounds, generate_series(0, (bounds.works_max - 1) / ${SITEMAP_BLOCK}) k
      where bounds.works_max > 0 and exists (
        select 1 from ${works} w
        where w.id > k * ${SITEMAP_BLOCK} and w.id <= (k + 1) * ${SITEMAP_BLOCK} and ${listedWork}
      )
      union all
      select 'chapters', k + 1
      from bounds, generate_series(0, (bounds.chapters_max - 1) / ${SITEMAP_BLOCK}) k
      where bounds.chapters_max > 0 and exists (
        select 1 from ${chapters} c join ${works} w on w.id = c.work_id
        where c.id > k * ${SITEMAP_BLOCK} and c.id <= (k + 1) * ${SITEMAP_BLOCK} and ${listedWork} and ${freeChapter}
      )
      order by 1 desc, 2`),
  );
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, `<sitemapindex xmlns="${SITEMAP_NS}">`];
  for (const b of blocks) lines.push(`  <sitemap><loc>${escapeXml(`${origin}/sitemaps/${b.kind}-${Number(b.block)}.xml`)}</loc></sitemap>`);
  lines.push(`</sitemapindex>`, ``);
  return lines.join("\n");
}

/**
 * One page of the index: the addresses in `block`, in id order. A block beyond the last,
 * or one without an address, is a 404 (the index never lists it).
 */
export async function sitemapPage(kind: SitemapKind, block: number, origin: string): Promise<string> {
  const from = (block - 1) * SITEMAP_BLOCK;
  const to = block * SITEMAP_BLOCK;
  const rows =
    kind === "works"
      ? rowsOf<{ path: string; lastmod: string | Date }>(
          await readDb().execute(sql`
            select '/works/' || w.id as path, w.updated_at as lastmod from ${works} w
            where w.id > ${from} and w.id <= ${to} and ${listedWork}
            order by w.id`),
        )
      : rowsOf<{ path: string; lastmod: string | Date }>(
          // A chapter's address is its number (`?chapter=N`, the place readers share), counted
          // over the published chapters of each work the block touches.
          await readDb().execute(sql`
            with touched as (
              select distinct c.work_id from ${chapters} c where c.id > ${from} and c.id <= ${to}
            ), numbered as (
              select c.id, c.work_id, c.updated_at, c.kind,
                row_number() over (partition by c.work_id, c.kind = 'chapter' order by c.position, c.id) as number
              from ${chapters} c where c.work_id in (select work_id from touched) and c.state = 'published'
            )
            select '/works/' || n.work_id || case when n.kind = 'chapter' then '?chapter=' || n.number else '?notice=' || n.id end as path,
              n.updated_at as lastmod
            from numbered n join ${chapters} c on c.id = n.id join ${works} w on w.id = n.work_id
            where n.id > ${from} and n.id <= ${to} and ${listedWork} and (c.kind <> 'chapter' or ${freeChapter})
            order by n.id`),
        );
  if (rows.length === 0) throw new DomainError("没有这一页站点地图", 404);
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, `<urlset xmlns="${SITEMAP_NS}">`];
  for (const row of rows) {
    lines.push(`  <url><loc>${escapeXml(`${origin}${row.path}`)}</loc><lastmod>${iso(row.lastmod)}</lastmod></url>`);
  }
  lines.push(`</urlset>`, ``);
  return lines.join("\n");
}
