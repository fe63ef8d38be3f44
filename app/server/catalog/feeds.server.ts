import { sql } from "drizzle-orm";
import { readDb } from "~/db/client.server";
import { chapters, profiles, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { escapeXml } from "~/server/platform/xml.server";
import { chapterDisplayTitle } from "~/utils/chapter-title";

/**
 * A work's public Atom feed (RFC 4287), `/works/:id/feed.xml` (docs/product.md#notifications):
 * only what a visitor may see. A private or R-18 work is a 404 (a feed reader has no
 * session); each entry is a published chapter's title, time and address (by id:
 * `/works/:id?chapterId=`), never its text (paid chapters stay paid, and readers come to
 * the site to read).
 */
const FEED_ENTRIES = 50;

export async function workFeed(rawWorkId: number, origin: string): Promise<string> {
  if (!Number.isSafeInteger(rawWorkId) || rawWorkId <= 0) throw new DomainError("作品不存在", 404);
  const [work] = rowsOf<{ id: string | number; title: string; description: string; author: string; created_at: string | Date; updated_at: string | Date }>(
    await readDb().execute(sql`
      select w.id, w.title, w.description, p.nickname as author, w.created_at, w.updated_at
      from ${works} w join ${profiles} p on p.id = w.user_id
      where w.id = ${rawWorkId} and w.visibility <> 'private' and w.rating = 'all_ages'`),
  );
  if (!work) throw new DomainError("作品不存在", 404);
  const workId = Number(work.id);
  const entries = rowsOf<{ id: string | number; title: string; number: number; at: string | Date }>(
    await readDb().execute(sql`
      select id, title, number, at from (
        select c.id, c.title, coalesce(c.publish_at, c.created_at) as at, c.position,
               row_number() over (order by c.position, c.id)::int as number
        from ${chapters} c where c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter'
      ) t order by position desc, id desc limit ${FEED_ENTRIES}`),
  );
  const host = new URL(origin).host;
  const workUrl = `${origin}/works/${workId}`;
  const iso = (d: string | Date) => new Date(d).toISOString();
  const updated = entries.length > 0 ? entries.reduce((latest, e) => (iso(e.at) > latest ? iso(e.at) : latest), iso(work.created_at)) : iso(work.updated_at);
  const lines = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="zh-CN">`,
    `  <id>tag:${escapeXml(host)},2026:work:${workId}</id>`,
    `  <title>${escapeXml(work.title)}</title>`,
    `  <subtitle>${escapeXml(work.description)}</subtitle>`,
    `  <updated>${updated}</updated>`,
    `  <author><name>${escapeXml(work.author)}</name></author>`,
    `  <link rel="alternate" type="text/html" href="${escapeXml(workUrl)}"/>`,
    `  <link rel="self" type="application/atom+xml" href="${escapeXml(`${workUrl}/feed.xml`)}"/>`,
  ];
  for (const e of entries) {
    lines.push(
      `  <entry>`,
      `    <id>tag:${escapeXml(host)},2026:chapter:${Number(e.id)}</id>`,
      `    <title>${escapeXml(chapterDisplayTitle(e.number, e.title))}</title>`,
      `    <updated>${iso(e.at)}</updated>`,
      // By the chapter's id, which the reader sends on to its number of the day: a number
      // stored in a feed reader would point at another chapter after a move.
      `    <link rel="alternate" type="text/html" href="${escapeXml(`${workUrl}?chapterId=${Number(e.id)}`)}"/>`,
      `    <summary>${escapeXml(`《${work.title}》第${e.number}章`)}</summary>`,
      `  </entry>`,
    );
  }
  lines.push(`</feed>`, ``);
  return lines.join("\n");
}
