import { Link } from "react-router";
import type { FanRankingRow, TipView } from "~/types/fans";
import { formatShanghai } from "~/utils/shanghai-time";

/** A 粉丝榜's rows: place, nickname, 粉丝等级, 粉丝值 (decision 207). */
export function FanList({ fans }: { fans: FanRankingRow[] }) {
  if (fans.length === 0) return <p className="muted">还没有粉丝，打赏或订阅这部作品就能上榜。</p>;
  return (
    <ol className="fan-list" data-testid="fan-list">
      {fans.map((f) => (
        <li key={f.userId} data-testid="fan-row">
          <span className="fan-place">{f.place}</span>
          <span className="fan-name">{f.nickname}</span>
          <span className="badge comment-fan-level">{f.level}</span>
          <span className="muted">粉丝值 {f.fanValue}</span>
        </li>
      ))}
    </ol>
  );
}

/**
 * The work page's 粉丝榜 section: the top fans, the latest tips with their messages, 打赏
 * (not for the work's author) and the full ranking's link.
 */
export function WorkFans({
  workId,
  fans,
  tips,
  canTip,
}: {
  workId: number;
  fans: FanRankingRow[];
  tips: TipView[];
  canTip: boolean;
}) {
  return (
    <section className="work-fans" aria-labelledby="work-fans-title">
      <h2 id="work-fans-title">粉丝榜</h2>
      <FanList fans={fans} />
      <p className="form-actions">
        <Link to={`/works/${workId}/fans`}>查看完整粉丝榜</Link>
        {canTip ? (
          <Link to={`/works/${workId}/tip`} className="btn btn-primary" data-testid="work-tip-link">
            打赏作品
          </Link>
        ) : null}
      </p>
      {tips.length > 0 ? (
        <>
          <h3>最近打赏</h3>
          <ul className="fan-list" data-testid="recent-tips">
            {tips.map((t) => (
              <li key={t.id}>
                <span className="fan-name">
                  {t.nickname} 打赏了 {t.amount} 积分{t.message ? `：${t.message}` : ""}
                </span>
                <time className="muted" dateTime={t.createdAt}>
                  {formatShanghai(t.createdAt)}
                </time>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
