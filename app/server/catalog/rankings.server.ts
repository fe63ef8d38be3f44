import { and, asc, desc, eq, gt, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import { readDb } from "~/db/client.server";
import { profiles, workRankingTallies, works, workStats } from "~/db/schema";
import { PERIOD_BOARDS, type PeriodBoard, type RankingBoard, type RankingPeriod } from "~/schemas/discovery";
import { shanghaiPeriods } from "~/utils/shanghai-time";
import { blockFilter, cachedUnlessBlocked, readerBlocks, type ReaderBlocks } from "./blocks.server";
import { listedFor, workCardColumns, type WorkCard } from "./search-sql.server";
import { hasReadableChapter, notRemovedFromRankings } from "./front-page.server";
import type { SessionUser } from "~/server/identity/session.server";

/**
 * The rankings (/rankings) and the home page's shared rows (docs/decisions/120, 122). None
 * of them is personal: each depends only on the viewer's two audience preferences, so
 * every answer comes from the shared few-second copy (public-cache.server.ts) keyed by
 * them, and one reader's request never pays for these queries while it is fresh.
 */
const RANKING_SIZE = 50;
const HOME_ROW_SIZE = 12;
/** 新书榜: works first published this many days ago at most. */
const NEW_BOOK_DAYS = 30;

/** The viewer's preferences, and their id for their 屏蔽 (decision 233). */
type Audience = (Pick<SessionUser, "showR18" | "showAi"> & { id?: string }) | null;

export interface RankedWork extends WorkCard {
  score: number;
}

function audienceKey(viewer: Audience): [boolean, boolean] {
  return [viewer?.showR18 ?? false, viewer?.showAi ?? true];
}

/**
 * What rankings and the computed home rows may show: listed works (a work taken down is
 * private) with a chapter readers can open (not one whose chapters all wait for review,
 * docs/product.md#review), within the viewer's preferences, less those an operator removed
 * from the rankings (docs/product.md#front-page), less the viewer's 屏蔽 (decision 233).
 */
function listed(viewer: Audience, blocks: ReaderBlocks): SQL[] {
  return [...listedFor(viewer), hasReadableChapter, notRemovedFromRankings, ...blockFilter(blocks)];
}

const BOARDS: Record<Exclude<RankingBoard, PeriodBoard>, { score: SQL<number>; where: () => SQL | undefined }> = {
  "bestselling-7d": { score: sql<number>`${workStats.credits7d}`, where: () => gt(workStats.credits7d, 0) },
  "bestselling-30d": { score: sql<number>`${workStats.credits30d}`, where: () => gt(workStats.credits30d, 0) },
  favorites: { score: sql<number>`${workStats.favorites}`, where: () => gt(workStats.favorites, 0) },
  new: {
    score: sql<number>`${workStats.favorites}`,
    where: () => and(gt(workStats.favorites, 0), sql`${works.createdAt} > now() - make_interval(days => ${NEW_BOOK_DAYS})`),
  },
  completed: { score: sql<number>`${workStats.favorites}`, where: () => and(gt(workStats.favorites, 0), eq(works.status, "completed")) },
};

/**
 * A ranking by 月票, 推荐票 or 打赏 over this China-time day, week or month (decision 222):
 * the tallies each cast and tip add to in its own transaction, read from the board index's
 * top, the works the viewer may see only (the same listing rule as every ranking).
 */
export async function periodRankingBoard(board: PeriodBoard, period: RankingPeriod, viewer: Audience, now = new Date(), limit = RANKING_SIZE): Promise<RankedWork[]> {
  const [showR18, showAi] = audienceKey(viewer);
  const startsOn = shanghaiPeriods(now)[period];
  const blocks = await readerBlocks(viewer);
  return cachedUnlessBlocked(JSON.stringify(["ranking", board, period, startsOn, limit, showR18, showAi]), blocks, async () => {
    const t = workRankingTallies;
    // The board's top from its index first (a few times the page, so the listing rule may
    // drop some), then the works: a walk of the index's head, not a sort of the period's
    // every work. Only when too many of those were dropped is the whole period read.
    const read = async (candidates: number | null) => {
      const head = readDb()
        .select({ workId: t.workId, total: t.total })
        .from(t)
        .where(and(eq(t.metric, PERIOD_BOARDS[board]), eq(t.period, period), eq(t.startsOn, startsOn), gt(t.total, 0)))
        // The index's own order (drizzle writes DESC NULLS LAST; ties by id, lowest first), so
        // the head is read, never sorted: 2 ms instead of 107 ms at bench:rewards' 0.02 scale.
        .orderBy(sql`${t.total} desc nulls last`, asc(t.workId));
      const top = (candidates === null ? head : head.limit(candidates)).as("top");
      return readDb()
        .select({ ...workCardColumns, score: sql<number>`${top.total}`.mapWith(Number) })
        .from(top)
        .innerJoin(works, eq(works.id, top.workId))
        .innerJoin(profiles, eq(profiles.id, works.userId))
        .where(and(...listed({ showR18, showAi }, blocks)))
        .orderBy(sql`${top.total} desc nulls last`, asc(top.workId))
        .limit(limit);
    };
    const candidates = limit * 4;
    let rows = await read(candidates);
    if (rows.length < limit) {
      const [{ n }] = await readDb()
        .select({ n: sql<number>`count(*)::int` })
        .from(t)
        .where(and(eq(t.metric, PERIOD_BOARDS[board]), eq(t.period, period), eq(t.startsOn, startsOn), gt(t.total, 0)));
      if (n > candidates) rows = await read(null);
    }
    return rows as RankedWork[];
  });
}

/** One ranking: the top RANKING_SIZE works the viewer may see, highest score first. */
export async function rankingBoard(board: Exclude<RankingBoard, PeriodBoard>, viewer: Audience, limit = RANKING_SIZE): Promise<RankedWork[]> {
  const [showR18, showAi] = audienceKey(viewer);
  const blocks = await readerBlocks(viewer);
  return cachedUnlessBlocked(JSON.stringify(["ranking", board, limit, showR18, showAi]), blocks, async () => {
    const { score, where } = BOARDS[board];
    const rows = await readDb()
      .select({ ...workCardColumns, score: sql<number>`${score}`.mapWith(Number) })
      .from(workStats)
      .innerJoin(works, eq(works.id, workStats.workId))
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(and(...listed({ showR18, showAi }, blocks), where()))
      .orderBy(desc(score), desc(works.id))
      .limit(limit);
    return rows as RankedWork[];
  });
}

export interface SharedHomeRows {
  /** 新书: the newest works. */
  newest: WorkCard[];
  /** 热门: read, followed and bought most over 7 days. */
  hot: WorkCard[];
  /** 新完本: the novels (not single-chapter works) finished most recently. */
  completed: WorkCard[];
}

/** The home page's rows that are the same for every reader with the same preferences. */
export async function sharedHomeRows(viewer: Audience): Promise<SharedHomeRows> {
  const [showR18, showAi] = audienceKey(viewer);
  const blocks = await readerBlocks(viewer);
  return cachedUnlessBlocked(JSON.stringify(["home", showR18, showAi]), blocks, async () => {
    const audience = { showR18, showAi };
    const cards = () => readDb().select(workCardColumns).from(works).innerJoin(profiles, eq(profiles.id, works.userId));
    const [newest, hot, completed] = await Promise.all([
      cards()
        .where(and(...listed(audience, blocks)))
        .orderBy(desc(works.createdAt), desc(works.id))
        .limit(HOME_ROW_SIZE),
      cards()
        .innerJoin(workStats, eq(workStats.workId, works.id))
        .where(and(...listed(audience, blocks), gt(workStats.hot7d, 0)))
        .orderBy(desc(workStats.hot7d), desc(works.id))
        .limit(HOME_ROW_SIZE),
      cards()
        .where(and(...listed(audience, blocks), eq(works.status, "completed"), ne(works.type, "single_chapter"), isNotNull(works.completedAt)))
        .orderBy(desc(works.completedAt), desc(works.id))
        .limit(HOME_ROW_SIZE),
    ]);
    return { newest: newest as WorkCard[], hot: hot as WorkCard[], completed: completed as WorkCard[] };
  });
}
