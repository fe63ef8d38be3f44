import { Link, useLoaderData } from "react-router";
import { WorkCard } from "~/components/work-card";
import { RANKING_BOARDS, type RankingBoard } from "~/schemas/discovery";
import { rankingBoard } from "~/server/catalog/rankings.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/rankings";

export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `${RANKING_BOARDS[data.board]} - 排行榜 - 砚台` : "排行榜 - 砚台" }];

const SCORE_LABELS: Record<RankingBoard, (n: number) => string> = {
  "bestselling-7d": (n) => `近7天 ${n} 积分`,
  "bestselling-30d": (n) => `近30天 ${n} 积分`,
  favorites: (n) => `${n} 人收藏`,
  new: (n) => `${n} 人收藏`,
  completed: (n) => `${n} 人收藏`,
};

/**
 * /rankings?board=: 畅销 (credits spent over 7 and 30 days), 收藏, 新书, 完本
 * (docs/decisions/122). The counts are recomputed in the background at least every 10
 * minutes; the page is the same for every reader with the same preferences.
 */
export async function loader({ request, url }: Route.LoaderArgs) {
  const asked = url.searchParams.get("board") ?? "";
  const board: RankingBoard = asked in RANKING_BOARDS ? (asked as RankingBoard) : "bestselling-7d";
  const user = await getSessionUser(request);
  const [works, defaultCoverUrl] = await Promise.all([rankingBoard(board, user), getDisplayConfigValue("default_cover_url")]);
  return { board, works, defaultCoverUrl };
}

export default function Rankings() {
  const { board, works, defaultCoverUrl } = useLoaderData<typeof loader>();
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
      <h2 className="sr-only">{RANKING_BOARDS[board]}</h2>
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
                <p className="ranking-score">{SCORE_LABELS[board](work.score)}</p>
              </div>
            </li>
          ))}
        </ol>
      )}
      <p className="muted">榜单每 10 分钟内更新一次。</p>
    </section>
  );
}
