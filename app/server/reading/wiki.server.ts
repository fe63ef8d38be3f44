import { and, asc, eq, isNotNull, ne, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, readingProgress, storyEntities, storyFacts, storyStates } from "~/db/schema";
import { isByChapter } from "~/server/catalog/chapter-access.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { DomainError } from "~/server/platform/errors.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { ENTITY_KIND_LABELS } from "~/schemas/bible";
import { maskTexts } from "~/server/screening/screening.server";
import { describeEntry } from "~/server/studio/continuity";
import { readableBy } from "./recap.server";

/**
 * 角色百科: the spoiler-safe wiki of a work for its readers (issue 33 part 7, decision 259).
 * The author opts an entity in from the story bible with the chapter it first appears in
 * (`story_entities.wiki_from`); a reader sees it once that chapter is one they have reached
 * and may read, with its description and the facts and ledger entries recorded at such
 * chapters only. "Reached" is the reader's saved position (they may choose an earlier
 * chapter); a visitor, or a reader who has not started, chooses any chapter they may read
 * without paying (chapter 1 unless they say otherwise). Nothing recorded at a chapter past
 * that, or at a paid chapter they do not own, is ever sent; an undated fact is the author's
 * note and never shown.
 */

const WIKI_MESSAGES = {
  gated: "当前显示设置下无法查看该作品",
  entityNotFound: "这个词条不存在，或在你读到的章节里还没有出场",
} as const;

type View = Awaited<ReturnType<typeof getWorkForViewer>>;

/** Whose horizon the page is: the reader's saved position, a free choice within the free chapters, or the author's preview. */
type Basis = "position" | "free" | "author";

/** One thing known of an entity: recorded at `chapter`, in force until `until` when that is shown too. */
interface WikiEntry {
  chapter: number;
  until: number | null;
  text: string;
  /** Within a chapter, the order the author wrote them in. */
  order: number;
}

interface Horizon {
  /** The chapter the page is shown as of (0: none is readable). */
  upTo: number;
  /** The highest chapter the viewer may choose. */
  max: number;
  basis: Basis;
  /** Published chapters in the work. */
  published: number;
  /** The chapter numbers at or before `upTo` that the viewer may read: only what was recorded there is shown. */
  visible: Set<number>;
}

/** The published chapters' ids by reader number (1-based), one index scan. */
async function publishedChapters(workId: number): Promise<number[]> {
  const rows = await db
    .select({ id: chapters.id })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.state, "published"), eq(chapters.kind, "chapter")))
    .orderBy(asc(chapters.position), asc(chapters.id));
  return rows.map((r) => Number(r.id));
}

/** The chapter number of the viewer's saved position in the work, or null. */
async function positionOf(workId: number, userId: string, ids: number[]): Promise<number | null> {
  const [row] = await db
    .select({ chapterId: readingProgress.chapterId })
    .from(readingProgress)
    .where(and(eq(readingProgress.userId, userId), eq(readingProgress.workId, workId)));
  if (!row?.chapterId) return null;
  const at = ids.indexOf(Number(row.chapterId));
  return at < 0 ? null : at + 1;
}

/**
 * How far the viewer's wiki may go, and as of which chapter it is shown (`requested`, the
 * page's ?upTo=, clamped to what they may choose). A signed-in reader with a position goes
 * up to it; anyone else up to the last chapter readable without paying, from chapter 1; the
 * author anywhere (the page is their preview).
 */
async function horizonOf(view: View, userId: string | null, requested: number | null): Promise<Horizon> {
  const ids = await publishedChapters(view.work.id);
  const published = ids.length;
  let basis: Basis;
  let max: number;
  let fallback: number;
  const position = userId && !view.isOwner ? await positionOf(view.work.id, userId, ids) : null;
  if (view.isOwner) {
    basis = "author";
    max = published;
    fallback = published;
  } else if (position !== null) {
    basis = "position";
    max = position;
    fallback = position;
  } else {
    basis = "free";
    max = view.canReadContent ? published : isByChapter(view.work) ? Math.min(published, view.work.vipFrom - 1) : 0;
    fallback = Math.min(1, max);
  }
  const upTo = requested !== null && Number.isSafeInteger(requested) ? Math.max(Math.min(requested, max), Math.min(1, max)) : fallback;
  const listed = ids.slice(0, upTo).map((id, i) => ({ id, order: i + 1 }));
  const readable = await readableBy(view, view.isOwner ? null : userId, listed);
  const visible = new Set(listed.filter((c) => view.isOwner || readable.has(c.id)).map((c) => c.order));
  return { upTo, max, basis, published, visible };
}

async function openWiki(viewer: Viewer, workId: number, requested: number | null) {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(WIKI_MESSAGES.gated, 403);
  const horizon = await horizonOf(view, viewer?.id ?? null, requested);
  return { view, horizon };
}

/** The opted-in entities whose first chapter the viewer may see, in the bible's order. */
async function shownEntities(workId: number, horizon: Horizon, entityId?: number) {
  const rows = await db
    .select({ id: storyEntities.id, kind: storyEntities.kind, name: storyEntities.name, description: storyEntities.description, wikiFrom: storyEntities.wikiFrom })
    .from(storyEntities)
    .where(and(eq(storyEntities.workId, workId), isNotNull(storyEntities.wikiFrom), entityId === undefined ? undefined : eq(storyEntities.id, entityId)))
    .orderBy(asc(storyEntities.wikiFrom), asc(storyEntities.id));
  return rows.filter((e) => horizon.visible.has(e.wikiFrom!));
}

function workOf(view: View, horizon: Horizon) {
  return {
    work: { id: view.work.id, title: view.work.title },
    upTo: horizon.upTo,
    max: horizon.max,
    basis: horizon.basis,
    published: horizon.published,
  };
}

/** /works/:id/wiki: the entities the viewer may see as of their chapter, each with its kind (角色…) and description. */
export async function workWiki(viewer: Viewer, workId: number, requested: number | null) {
  const { view, horizon } = await openWiki(viewer, workId, requested);
  const entities = await shownEntities(workId, horizon);
  const descriptions = await maskTexts(entities.map((e) => e.description));
  return {
    ...workOf(view, horizon),
    entities: entities.map((e, i) => ({ id: e.id, kind: ENTITY_KIND_LABELS[e.kind], name: e.name, description: descriptions[i], from: e.wikiFrom! })),
  };
}

/**
 * /works/:id/wiki/:entityId: one entity's description and what is known of it as of the
 * viewer's chapter: its dated facts and ledger entries recorded at chapters they may see,
 * oldest first. A fact's end is shown only when that chapter is visible too.
 */
export async function wikiEntity(viewer: Viewer, workId: number, entityId: number, requested: number | null) {
  const { view, horizon } = await openWiki(viewer, workId, requested);
  if (!Number.isSafeInteger(entityId) || entityId <= 0) throw new DomainError(WIKI_MESSAGES.entityNotFound, 404);
  const [entity] = await shownEntities(workId, horizon, entityId);
  if (!entity) throw new DomainError(WIKI_MESSAGES.entityNotFound, 404);
  const upTo = horizon.upTo;
  const [facts, states] = await Promise.all([
    db
      .select({ id: storyFacts.id, content: storyFacts.content, from: storyFacts.fromChapter, until: storyFacts.untilChapter })
      .from(storyFacts)
      .where(and(eq(storyFacts.entityId, entity.id), isNotNull(storyFacts.fromChapter), sql`${storyFacts.fromChapter} <= ${upTo}`)),
    db
      .select()
      .from(storyStates)
      .where(and(eq(storyStates.entityId, entity.id), ne(storyStates.kind, "time"), sql`${storyStates.chapter} <= ${upTo}`)),
  ]);
  const shownFacts = facts.filter((f) => horizon.visible.has(f.from!));
  const shownStates = states.filter((s) => horizon.visible.has(s.chapter));
  const entries: WikiEntry[] = [
    ...shownFacts.map((f) => ({
      chapter: f.from!,
      order: Number(f.id),
      until: f.until !== null && horizon.visible.has(f.until) ? f.until : null,
      text: f.content,
    })),
    ...shownStates.map((s) => ({
      chapter: s.chapter,
      order: Number(s.id),
      until: null,
      text: describeEntry({ id: s.id, entityId: s.entityId, chapter: s.chapter, kind: s.kind, value: s.value, num: s.num, action: s.action ?? null, note: s.note }),
    })),
  ].sort((a, b) => a.chapter - b.chapter || a.order - b.order);
  const masked = await maskTexts([entity.description, ...entries.map((e) => e.text)]);
  return {
    ...workOf(view, horizon),
    entity: { id: entity.id, kind: ENTITY_KIND_LABELS[entity.kind], name: entity.name, description: masked[0], from: entity.wikiFrom! },
    entries: entries.map((e, i) => ({ chapter: e.chapter, until: e.until, text: masked[i + 1] })),
  };
}

/**
 * Whether any entity of the work is in its wiki (the work page links 角色百科 only then).
 * One index probe.
 */
export async function hasWiki(workId: number): Promise<boolean> {
  const rows = rowsOf<{ one: number }>(await db.execute(sql`select 1 as one from ${storyEntities} where work_id = ${workId} and wiki_from is not null limit 1`));
  return rows.length > 0;
}
