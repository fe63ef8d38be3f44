import { and, asc, desc, eq, gte, lte, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { outlineJobs, outlines, outlineVersions, type OutlineBeat } from "~/db/schema";
import { BeatsError, checkBeats, OUTLINE_LIMITS, OUTLINE_MESSAGES, type Beat } from "~/schemas/outline";
import { countChars } from "~/utils/ai-tokens";
import { DomainError } from "~/server/platform/errors.server";
import { publish } from "~/server/platform/events.server";
import { getOwnedWork } from "~/server/catalog/works.server";

/**
 * Outlines of a serial (docs/product.md#outlines, docs/decisions/255): the 总纲, the 卷纲 (a
 * named span of chapter numbers) and each chapter's 细纲 of beats. Every save that changes
 * an outline keeps the text it replaces as a version (the newest OUTLINE_LIMITS.versions),
 * and a version can be restored, which is a save of its own: nothing is lost by it.
 */

/** The live-event topic that wakes the 细纲 drafting job (app/server/jobs/outline-poller.server.ts). */
export const OUTLINE_QUEUED_TOPIC = "outline-queued";

type OutlineRow = typeof outlines.$inferSelect;
type Content = { title: string; body: string; beats: OutlineBeat[] };

/** The author's own series work (outlines plan a serial), 404 for another's. */
async function outlineWork(userId: string, workId: number, tx: Executor = db) {
  const work = await getOwnedWork(userId, workId, tx);
  if (work.type !== "series") throw new DomainError(OUTLINE_MESSAGES.notSeries, 400);
  return work;
}

const same = (row: Content, next: Content) => row.title === next.title && row.body === next.body && JSON.stringify(row.beats) === JSON.stringify(next.beats);

/**
 * Writes `next` over `row` (or a new outline when there is none): the replaced text becomes
 * a version, the oldest beyond the limit go. An unchanged save writes nothing.
 */
async function writeOutline(
  tx: Executor,
  row: OutlineRow | undefined,
  create: { workId: number; kind: OutlineRow["kind"]; fromChapter: number; toChapter: number },
  next: Content & { fromChapter?: number; toChapter?: number },
  source: "author" | "ai",
): Promise<number> {
  if (!row) {
    const [created] = await tx
      .insert(outlines)
      .values({ ...create, title: next.title, body: next.body, beats: next.beats, source })
      .returning({ id: outlines.id });
    return created.id;
  }
  const spanSame = (next.fromChapter ?? row.fromChapter) === row.fromChapter && (next.toChapter ?? row.toChapter) === row.toChapter;
  if (same(row, next) && spanSame) return row.id;
  if (!same(row, next)) {
    await tx.insert(outlineVersions).values({ outlineId: row.id, version: row.version, title: row.title, body: row.body, beats: row.beats, source: row.source, savedAt: row.updatedAt });
    await tx.execute(sql`
      delete from ${outlineVersions} where outline_id = ${row.id} and version <= ${row.version - OUTLINE_LIMITS.versions}`);
  }
  await tx
    .update(outlines)
    .set({
      title: next.title,
      body: next.body,
      beats: next.beats,
      fromChapter: next.fromChapter ?? row.fromChapter,
      toChapter: next.toChapter ?? row.toChapter,
      ...(same(row, next) ? {} : { version: row.version + 1, source }),
      updatedAt: new Date(),
    })
    .where(eq(outlines.id, row.id));
  return row.id;
}

/** 总纲: the work's one series outline. */
export async function saveSeriesOutline(userId: string, workId: number, body: string): Promise<number> {
  const text = body.replace(/\r\n?/g, "\n").trim();
  if (!text) throw new DomainError(OUTLINE_MESSAGES.bodyEmpty, 400, "body");
  if (countChars(text) > OUTLINE_LIMITS.seriesBody) throw new DomainError(OUTLINE_MESSAGES.seriesTooLong, 400, "body");
  return db.transaction(async (tx) => {
    await outlineWork(userId, workId, tx);
    const [row] = await tx.select().from(outlines).where(and(eq(outlines.workId, workId), eq(outlines.kind, "series"))).for("update");
    return writeOutline(tx, row, { workId, kind: "series", fromChapter: 0, toChapter: 0 }, { title: "", body: text, beats: [] }, "author");
  });
}

const chapterNumber = (raw: unknown, message: string = OUTLINE_MESSAGES.chapter, field?: string) => {
  const n = typeof raw === "number" ? raw : /^\s*\d+\s*$/.test(String(raw ?? "")) ? Number(String(raw).trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > OUTLINE_LIMITS.chapter) throw new DomainError(message, 400, field);
  return n;
};

/** 卷纲: a named span of chapter numbers and its outline; a new one without `id`. */
export async function saveVolumeOutline(
  userId: string,
  workId: number,
  input: { id?: number | null; title: string; fromChapter: unknown; toChapter: unknown; body: string },
): Promise<number> {
  const title = input.title.trim();
  if (!title) throw new DomainError(OUTLINE_MESSAGES.titleEmpty, 400, "title");
  if (countChars(title) > OUTLINE_LIMITS.title) throw new DomainError(OUTLINE_MESSAGES.titleTooLong, 400, "title");
  const from = chapterNumber(input.fromChapter, OUTLINE_MESSAGES.span, "fromChapter");
  const to = chapterNumber(input.toChapter, OUTLINE_MESSAGES.span, "toChapter");
  if (to < from) throw new DomainError(OUTLINE_MESSAGES.span, 400, "toChapter");
  if (to - from + 1 > OUTLINE_LIMITS.volumeSpan) throw new DomainError(OUTLINE_MESSAGES.spanTooLong, 400, "toChapter");
  const body = input.body.replace(/\r\n?/g, "\n").trim();
  if (countChars(body) > OUTLINE_LIMITS.volumeBody) throw new DomainError(OUTLINE_MESSAGES.volumeTooLong, 400, "body");
  return db.transaction(async (tx) => {
    await outlineWork(userId, workId, tx);
    let row: OutlineRow | undefined;
    if (input.id) {
      [row] = await tx.select().from(outlines).where(and(eq(outlines.id, input.id), eq(outlines.workId, workId), eq(outlines.kind, "volume"))).for("update");
      if (!row) throw new DomainError(OUTLINE_MESSAGES.notFound, 404);
    } else {
      // 新建卷纲 sent twice (a double click, 重新提交) saves onto the one it created.
      [row] = await tx
        .select()
        .from(outlines)
        .where(and(eq(outlines.workId, workId), eq(outlines.kind, "volume"), eq(outlines.title, title), eq(outlines.fromChapter, from), eq(outlines.toChapter, to)))
        .for("update");
    }
    return writeOutline(tx, row, { workId, kind: "volume", fromChapter: from, toChapter: to }, { title, body, beats: [], fromChapter: from, toChapter: to }, "author");
  });
}

/** Checks beats as a DomainError (the form's field `beats`). */
function parseBeats(input: Parameters<typeof checkBeats>[0]): Beat[] {
  try {
    return checkBeats(input);
  } catch (error) {
    if (error instanceof BeatsError) throw new DomainError(error.message, 400, "beats");
    throw error;
  }
}

/** Writes chapter `chapter`'s 细纲 in `tx` (the work checked by the caller). */
export async function writeChapterOutline(tx: Executor, workId: number, chapter: number, beats: Beat[], source: "author" | "ai"): Promise<number> {
  const [row] = await tx.select().from(outlines).where(and(eq(outlines.workId, workId), eq(outlines.kind, "chapter"), eq(outlines.fromChapter, chapter))).for("update");
  return writeOutline(tx, row, { workId, kind: "chapter", fromChapter: chapter, toChapter: chapter }, { title: "", body: "", beats }, source);
}

/** 细纲 of chapter `chapter`: the beats as the form sends them (`内容 | 字数` a line) or as a list. */
export async function saveChapterOutline(userId: string, workId: number, chapter: unknown, beatsInput: Parameters<typeof checkBeats>[0]): Promise<number> {
  const n = chapterNumber(chapter, OUTLINE_MESSAGES.chapter, "chapter");
  const beats = parseBeats(beatsInput);
  return db.transaction(async (tx) => {
    await outlineWork(userId, workId, tx);
    return writeChapterOutline(tx, workId, n, beats, "author");
  });
}

/** Restores an earlier version: it becomes the current text, the current one a version. Returns the outline. */
export async function restoreOutlineVersion(userId: string, workId: number, versionId: number): Promise<OutlineRow> {
  return db.transaction(async (tx) => {
    await outlineWork(userId, workId, tx);
    const [found] = await tx
      .select({ version: outlineVersions, outline: outlines })
      .from(outlineVersions)
      .innerJoin(outlines, eq(outlines.id, outlineVersions.outlineId))
      .where(and(eq(outlineVersions.id, versionId), eq(outlines.workId, workId)));
    if (!found) throw new DomainError(OUTLINE_MESSAGES.versionNotFound, 404);
    const [row] = await tx.select().from(outlines).where(eq(outlines.id, found.outline.id)).for("update");
    const v = found.version;
    await writeOutline(tx, row, { workId, kind: row.kind, fromChapter: row.fromChapter, toChapter: row.toChapter }, { title: v.title, body: v.body, beats: v.beats }, "author");
    return row;
  });
}

/** The 细纲 of chapter `chapter` of a work, or null (连载续写 writes from it). */
export async function chapterOutlineBeats(workId: number, chapter: number): Promise<Beat[] | null> {
  if (!Number.isSafeInteger(chapter) || chapter < 1) return null;
  const [row] = await db
    .select({ beats: outlines.beats })
    .from(outlines)
    .where(and(eq(outlines.workId, workId), eq(outlines.kind, "chapter"), eq(outlines.fromChapter, chapter)));
  return row && row.beats.length ? row.beats : null;
}

/**
 * 让AI起草细纲: queues drafting of the 卷纲's chapters, `batch` at a time, from its first
 * chapter. One job per 卷纲 at a time. Returns the job's id.
 */
export async function requestOutlineDraft(userId: string, workId: number, volumeId: number, batchRaw: unknown): Promise<number> {
  const batch = /^\s*\d+\s*$/.test(String(batchRaw ?? "")) ? Number(String(batchRaw).trim()) : NaN;
  if (!Number.isSafeInteger(batch) || batch < 1 || batch > OUTLINE_LIMITS.batch) throw new DomainError(OUTLINE_MESSAGES.batch, 400, "batch");
  const id = await db.transaction(async (tx) => {
    await outlineWork(userId, workId, tx);
    const [volume] = await tx.select().from(outlines).where(and(eq(outlines.id, volumeId), eq(outlines.workId, workId), eq(outlines.kind, "volume")));
    if (!volume) throw new DomainError(OUTLINE_MESSAGES.notFound, 404);
    const [job] = await tx
      .insert(outlineJobs)
      .values({ workId, volumeId, userId, nextChapter: volume.fromChapter, toChapter: volume.toChapter, batch })
      .onConflictDoNothing()
      .returning({ id: outlineJobs.id });
    if (!job) throw new DomainError(OUTLINE_MESSAGES.jobRunning, 409);
    return job.id;
  });
  await publish({ topic: OUTLINE_QUEUED_TOPIC, workId }).catch((error) => console.error("outline wake-up failed", error));
  return id;
}

/** What /works/:id/outline shows: the 总纲, the 卷纲, the chosen 卷's 细纲 and job, and one outline's versions. */
export async function outlineScreen(userId: string, workId: number, options: { volume?: number | null; history?: number | null } = {}) {
  const work = await outlineWork(userId, workId);
  const [series] = await db.select().from(outlines).where(and(eq(outlines.workId, workId), eq(outlines.kind, "series")));
  const volumes = await db
    .select()
    .from(outlines)
    .where(and(eq(outlines.workId, workId), eq(outlines.kind, "volume")))
    .orderBy(asc(outlines.fromChapter), asc(outlines.id))
    .limit(200);
  const volume = volumes.find((v) => v.id === options.volume) ?? null;
  let chapters: { chapter: number; id: number | null; beats: Beat[]; version: number; source: "author" | "ai" }[] = [];
  let job: typeof outlineJobs.$inferSelect | null = null;
  if (volume) {
    const [rows, [latest]] = await Promise.all([
      db
        .select()
        .from(outlines)
        .where(and(eq(outlines.workId, workId), eq(outlines.kind, "chapter"), gte(outlines.fromChapter, volume.fromChapter), lte(outlines.fromChapter, volume.toChapter))),
      db.select().from(outlineJobs).where(eq(outlineJobs.volumeId, volume.id)).orderBy(desc(outlineJobs.id)).limit(1),
    ]);
    const byChapter = new Map(rows.map((r) => [r.fromChapter, r]));
    chapters = Array.from({ length: volume.toChapter - volume.fromChapter + 1 }, (_, i) => {
      const n = volume.fromChapter + i;
      const r = byChapter.get(n);
      return { chapter: n, id: r?.id ?? null, beats: r?.beats ?? [], version: r?.version ?? 0, source: r?.source ?? "author" };
    });
    job = latest ?? null;
  }
  let history: { outline: OutlineRow; versions: (typeof outlineVersions.$inferSelect)[] } | null = null;
  if (options.history) {
    const [outline] = await db.select().from(outlines).where(and(eq(outlines.id, options.history), eq(outlines.workId, workId)));
    if (outline) {
      const versions = await db.select().from(outlineVersions).where(eq(outlineVersions.outlineId, outline.id)).orderBy(desc(outlineVersions.version));
      history = { outline, versions };
    }
  }
  return { work: { id: work.id, title: work.title }, series: series ?? null, volumes, volume, chapters, job, history };
}
