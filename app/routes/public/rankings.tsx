import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { Link, useLoaderData } from "react-router";
import { WorkCard } from "~/components/work-card";
import { PERIOD_BOARDS, RANKING_BOARDS, RANKING_PERIODS, type PeriodBoard, type RankingBoard, type RankingPeriod } from "~/schemas/discovery";
import { periodRankingBoard, rankingBoard } from "~/server/catalog/rankings.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/rankings";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `${RANKING_BOARDS[data.board]} - 排行榜 - 砚台` : "排行榜 - 砚台" }];

const PERIOD_NAMES: Record<RankingPeriod, string> = { day: "今日", week: "本周", month: "本月" };

const SCORE_LABELS: Record<RankingBoard, (n: number, period: RankingPeriod) => string> = {
  "bestselling-7d": (n) => `近7天 ${n} 积分`,
  "bestselling-30d": (n) => `近30天 ${n} 积分`,
  favorites: (n) => `${n} 人收藏`,
  new: (n) => `${n} 人收藏`,
  completed: (n) => `${n} 人收藏`,
  "monthly-votes": (n, p) => `${PERIOD_NAMES[p]} ${n} 张月票`,
  "recommend-votes": (n, p) => `${PERIOD_NAMES[p]} ${n} 张推荐票`,
  tips: (n, p) => `${PERIOD_NAMES[p]}打赏 ${n} 积分`,
};

const isPeriodBoard = (board: RankingBoard): board is PeriodBoard => board in PERIOD_BOARDS;

/**
 * /rankings?board=: 畅销 (credits spent over 7 and 30 days), 收藏, 新书, 完本
 * (docs/decisions/122), recomputed in the background at least every 10 minutes; and 月票,
 * 推荐票, 打赏 by China-time day, week or month (`period=`, decision 222), counted with each
 * cast and tip. The page is the same for every reader with the same preferences.
 */
export async function loader({ request, url }: Route.LoaderArgs) {
  const asked = url.searchParams.get("board") ?? "";
  const board: RankingBoard = asked in RANKING_BOARDS ? (asked as RankingBoard) : "bestselling-7d";
  const askedPeriod = url.searchParams.get("period") ?? "";
  const period: RankingPeriod = askedPeriod in RANKING_PERIODS ? (askedPeriod as RankingPeriod) : "month";
  const user = await getSessionUser(request);
  const [works, defaultCoverUrl] = await Promise.all([
    isPeriodBoard(board) ? periodRankingBoard(board, period, user) : rankingBoard(board, user),
    getDisplayConfigValue("default_cover_url"),
  ]);
  return { board, period, works, defaultCoverUrl };
}

export default function Rankings() {
  const { board, period, works, defaultCoverUrl } = useLoaderData<typeof loader>();
  const byPeriod = isPeriodBoard(board);
  return (
    <section className="rankings" aria-labelledby="rankings-title">
      <h1 id="rankings-title">排行榜</h1>
      <nav aria-label="榜单">
        <ul className="ranking-tabs">
          {(Object.keys(RANKING_BOARDS) as RankingBoard[]).map((b) => (
            <li key={b}>
              <Link to={`/rankings?board=${b}`} aria-current={b === board ? "page" : undefined}>
                {RANKING_BOARDS[b]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {byPeriod ? (
        <nav aria-label="统计周期">
          <ul className="ranking-tabs ranking-periods">
            {(Object.keys(RANKING_PERIODS) as RankingPeriod[]).map((p) => (
              <li key={p}>
                <Link to={`/rankings?board=${board}&period=${p}`} aria-current={p === period ? "page" : undefined}>
                  {RANKING_PERIODS[p]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <h2 className="sr-only">
        {RANKING_BOARDS[board]}
        {byPeriod ? ` · ${RANKING_PERIODS[period]}` : null}
      </h2>
      {works.length === 0 ? (
        <p className="empty-state">暂无上榜作品</p>
      ) : (
        <ol className="ranking-list" data-testid="ranking-list">
          {works.map((work, i) => (
            <li key={work.id} className="ranking-item">
              <span className="ranking-rank" aria-label={`第 ${i + 1} 名`}>
                {i + 1}
              </span>
              <div className="ranking-card">
                <WorkCard work={work} defaultCoverUrl={defaultCoverUrl} />
                <p className="ranking-score">{SCORE_LABELS[board](work.score, period)}</p>
              </div>
            </li>
          ))}
        </ol>
      )}
      <p className="muted">
        {byPeriod ? "按北京时间统计：日榜从今日零点起，周榜从本周一起，月榜从本月 1 日起；投票和打赏即时计入。" : "收藏和购买几秒内计入榜单；按 7 天、30 天统计的部分每小时重算一次。"}
      </p>
    </section>
  );
}
