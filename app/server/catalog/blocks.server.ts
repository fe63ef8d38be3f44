import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { authorBlocks, profiles, tagBlocks, works } from "~/db/schema";
import { BLOCK_LIMIT, BLOCK_MESSAGES } from "~/schemas/blocks";
import { normalizeTag, TAG_MAX_CHARS } from "~/schemas/tag-rules";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { cachedPublic } from "~/server/platform/public-cache.server";

/**
 * 屏蔽 (docs/product.md#blocking, decision 233): a reader blocks authors and tags, and the
 * works of a blocked author or carrying a blocked tag leave every listing of works that
 * reader sees (home rows, /works and search, tags, rankings, an author's list; the followers'
 * new-work lines). The reader's two lists are read once per listing request (the primary
 * keys' prefix, a few rows: at most BLOCK_LIMIT of each) and become one condition on
 * `works`, `blockFilter`, that every listing adds to its WHERE: two comparisons with
 * constant arrays per row, no join. A reader with no blocks (nearly everyone) keeps the
 * shared few-second copy of the listings; one with blocks reads them fresh.
 */

export interface ReaderBlocks {
  authors: string[];
  tags: string[];
}

export const NO_BLOCKS: ReaderBlocks = { authors: [], tags: [] };

/**
 * Whoever asks: a signed-in viewer (with an id), or a visitor (null: no blocks). A viewer
 * that is a page's session user carries its lists, read with the session (decision 270).
 */
type BlockViewer = { id?: string; blocks?: ReaderBlocks } | null | undefined;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads in flight, by the viewer object a request passes to its listings: the rows of a
 * page asked at once (the home page's shared and curated rows, then 继续阅读 and 书架更新)
 * share one read. Only while it runs, so a later call (after a 屏蔽 in the same request)
 * reads again.
 */
const inFlight = new WeakMap<object, Promise<ReaderBlocks>>();

/** The viewer's blocked authors and tags, in one statement; none for a visitor. */
export function readerBlocks(viewer: BlockViewer): Promise<ReaderBlocks> {
  if (!viewer?.id) return Promise.resolve(NO_BLOCKS);
  if (viewer.blocks) return Promise.resolve(hasBlocks(viewer.blocks) ? viewer.blocks : NO_BLOCKS);
  const running = inFlight.get(viewer);
  if (running) return running;
  const read = loadBlocks(viewer.id).finally(() => inFlight.delete(viewer));
  inFlight.set(viewer, read);
  return read;
}

async function loadBlocks(userId: string): Promise<ReaderBlocks> {
  const rows = rowsOf<{ kind: "author" | "tag"; value: string }>(
    await db.execute(sql`
      select 'author' as kind, ${authorBlocks.authorId}::text as value from ${authorBlocks} where ${authorBlocks.userId} = ${userId}
      union all
      select 'tag', ${tagBlocks.tag} from ${tagBlocks} where ${tagBlocks.userId} = ${userId}`),
  );
  if (rows.length === 0) return NO_BLOCKS;
  return {
    authors: rows.filter((r) => r.kind === "author").map((r) => r.value),
    tags: rows.filter((r) => r.kind === "tag").map((r) => r.value),
  };
}

function hasBlocks(blocks: ReaderBlocks): boolean {
  return blocks.authors.length > 0 || blocks.tags.length > 0;
}

/**
 * The one condition every listing of works adds (in a WHERE over `works`, or over a
 * subquery aliased `works` with its user_id and tags): not by a blocked author, carrying
 * no blocked tag. Nothing for a reader without blocks.
 */
export function blockFilter(blocks: ReaderBlocks): SQL[] {
  const out: SQL[] = [];
  if (blocks.authors.length > 0) {
    out.push(sql`${works.userId} <> all(array[${sql.join(
      blocks.authors.map((id) => sql`${id}`),
      sql`, `,
    )}]::uuid[])`);
  }
  if (blocks.tags.length > 0) {
    out.push(sql`not (${works.tags} && array[${sql.join(
      blocks.tags.map((t) => sql`${t}`),
      sql`, `,
    )}]::text[])`);
  }
  return out;
}

/**
 * A listing's answer from the shared copy for a reader without blocks, keyed by `key`; a
 * reader with blocks gets it fresh (nothing personal goes into the shared copy).
 */
export function cachedUnlessBlocked<T>(key: string, blocks: ReaderBlocks, load: () => Promise<T>): Promise<T> {
  return hasBlocks(blocks) ? load() : cachedPublic(key, load);
}

/**
 * The followers' new-work lines skip a follower who blocked the work's author or one of
 * its tags: `follower` is the follower's id column, `work` the work's alias (an INSERT ...
 * SELECT over many followers, so a correlated anti-join on the primary keys).
 */
export function notBlockedBy(follower: SQL, work: SQL): SQL {
  return sql`not exists (select 1 from ${authorBlocks} ab where ab.user_id = ${follower} and ab.author_id = ${work}.user_id)
    and not exists (select 1 from ${tagBlocks} tb where tb.user_id = ${follower} and tb.tag = any(${work}.tags))`;
}

// --- The reader's lists: 屏蔽, 取消屏蔽, the settings page -------------------------------

export interface BlockList {
  authors: { id: string; nickname: string; blockedAt: string }[];
  tags: { tag: string; blockedAt: string }[];
}

export async function listBlocks(userId: string): Promise<BlockList> {
  const [authors, tags] = await Promise.all([
    db
      .select({ id: authorBlocks.authorId, nickname: profiles.nickname, blockedAt: authorBlocks.createdAt })
      .from(authorBlocks)
      .innerJoin(profiles, eq(profiles.id, authorBlocks.authorId))
      .where(eq(authorBlocks.userId, userId))
      .orderBy(asc(authorBlocks.createdAt), asc(authorBlocks.authorId)),
    db
      .select({ tag: tagBlocks.tag, blockedAt: tagBlocks.createdAt })
      .from(tagBlocks)
      .where(eq(tagBlocks.userId, userId))
      .orderBy(asc(tagBlocks.createdAt), asc(tagBlocks.tag)),
  ]);
  return {
    authors: authors.map((a) => ({ ...a, blockedAt: new Date(a.blockedAt).toISOString() })),
    tags: tags.map((t) => ({ ...t, blockedAt: new Date(t.blockedAt).toISOString() })),
  };
}

/** Whether the viewer blocked this author (the author's page says so). */
export async function isAuthorBlocked(viewer: BlockViewer, authorId: string): Promise<boolean> {
  if (!viewer?.id || !UUID.test(authorId)) return false;
  const [row] = await db
    .select({ one: sql`1` })
    .from(authorBlocks)
    .where(and(eq(authorBlocks.userId, viewer.id), eq(authorBlocks.authorId, authorId)));
  return Boolean(row);
}

/** Whether the viewer blocked this tag (the tag's page says so). */
export async function isTagBlocked(viewer: BlockViewer, tag: string): Promise<boolean> {
  if (!viewer?.id) return false;
  const [row] = await db
    .select({ one: sql`1` })
    .from(tagBlocks)
    .where(and(eq(tagBlocks.userId, viewer.id), eq(tagBlocks.tag, tag)));
  return Boolean(row);
}

/**
 * Blocks an author or a tag. Refused with a message: oneself, an unknown author, an empty
 * or too long tag, one already blocked, past BLOCK_LIMIT of the kind. The limit is checked
 * by the INSERT itself (it inserts only while fewer rows exist), and a second block by the
 * primary key: nothing is written when refused. Returns what was blocked (an author's
 * nickname, or the tag as stored).
 */
export async function addBlock(userId: string, kind: "author" | "tag", rawValue: string): Promise<string> {
  if (kind === "author") {
    const authorId = rawValue.trim();
    if (!UUID.test(authorId)) throw new DomainError(BLOCK_MESSAGES.authorMissing, 404);
    if (authorId === userId) throw new DomainError(BLOCK_MESSAGES.self, 400);
    const [author] = await db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, authorId));
    if (!author) throw new DomainError(BLOCK_MESSAGES.authorMissing, 404);
    if (!(await insertUnderLimit(userId, "author", authorId))) throw await whyNotInserted(userId, "author", authorId);
    return author.nickname;
  }
  const tag = normalizeTag(rawValue);
  if (!tag) throw new DomainError(BLOCK_MESSAGES.tagEmpty, 400);
  if (Array.from(tag).length > TAG_MAX_CHARS) throw new DomainError(BLOCK_MESSAGES.tagTooLong, 400);
  if (!(await insertUnderLimit(userId, "tag", tag))) throw await whyNotInserted(userId, "tag", tag);
  return tag;
}

/** One block, written only while the reader has fewer than BLOCK_LIMIT of the kind and not this one. */
async function insertUnderLimit(userId: string, kind: "author" | "tag", value: string): Promise<boolean> {
  const [table, column] = kind === "author" ? [authorBlocks, sql`author_id`] : [tagBlocks, sql`tag`];
  const inserted = rowsOf<{ one: number }>(
    await db.execute(sql`
      insert into ${table} (user_id, ${column})
      select ${userId}, ${value}
      where (select count(*) from ${table} where user_id = ${userId}) < ${BLOCK_LIMIT}
      on conflict do nothing
      returning 1 as one`),
  );
  return inserted.length > 0;
}

async function whyNotInserted(userId: string, kind: "author" | "tag", value: string): Promise<DomainError> {
  const already = kind === "author" ? await isAuthorBlocked({ id: userId }, value) : await isTagBlocked({ id: userId }, value);
  if (already) return new DomainError(kind === "author" ? BLOCK_MESSAGES.authorTwice : BLOCK_MESSAGES.tagTwice, 409);
  return new DomainError(BLOCK_MESSAGES.tooMany, 400);
}

/** 取消屏蔽: removing what is not blocked changes nothing (the form says which one). */
export async function removeBlock(userId: string, kind: "author" | "tag", rawValue: string): Promise<void> {
  if (kind === "author") {
    const authorId = rawValue.trim();
    if (!UUID.test(authorId)) return;
    await db.delete(authorBlocks).where(and(eq(authorBlocks.userId, userId), eq(authorBlocks.authorId, authorId)));
    return;
  }
  await db.delete(tagBlocks).where(and(eq(tagBlocks.userId, userId), eq(tagBlocks.tag, normalizeTag(rawValue))));
}
