import { Link, useLoaderData } from "react-router";
import { DailyChart } from "~/components/studio/daily-chart";
import { StudioNav } from "~/components/studio/studio-nav";
import { Pagination } from "~/components/ui/pagination";
import { asRouteError } from "~/server/platform/errors.server";
import { userContext } from "~/middleware/guards.server";
import { STATS_DAYS } from "~/schemas/studio";
import { workStats } from "~/server/studio/author-stats.server";
import { parsePage } from "~/utils/pagination";
import { formatDayLabel } from "~/utils/shanghai-time";
import type { Route } from "./+types/stats";
import { TableScroll } from "~/components/ui/table-scroll";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `数据统计《${data?.work.title ?? ""}》 - 砚台` }];

/** `?chapter=`: a chapter id; anything that is not a positive integer means none. */
function chapterParam(value: string | null): number | null {
  if (!value || !/^\d{1,15}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

/** GET /works/:id/stats (owner only): the last 30 days of readers, follows and sales. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  return workStats(user.id, Number(params.id), {
    chapterId: chapterParam(url.searchParams.get("chapter")),
    page: parsePage(url.searchParams.get("page")),
  }).catch(asRouteError);
}


export default function WorkStats() {
  const s = useLoaderData<typeof loader>();
  const base = `/works/${s.work.id}/stats`;
  const paid = s.work.visibility === "public-vip" || s.sales.total > 0;
  // Newest day first in the table: the one an author looks for.
  const rows = s.days.map((day, i) => ({ day, i })).reverse();
  return (
    <section className="studio-page">
      <StudioNav workId={s.work.id} title={s.work.title} current="stats" />
      <p className="muted">
        最近{STATS_DAYS}天（北京时间，{formatDayLabel(s.days[0])}至{formatDayLabel(s.days.at(-1)!)}）。读者指登录后打开过章节的用户，同一人一天只算一次，不含作者本人；关注按关注的日期计，已取消的关注不计入；购买按笔计（单章、购买全部、全本各算一笔），与“我的收入”同一口径。
      </p>
      <p>
        <Link to={`${base}/readers`}>读者行为：各章流失、段评热度、评论里提到最多的角色 →</Link>
      </p>
      <dl className="stats-summary">
        <div>
          <dt>读者</dt>
          <dd>{s.readers.distinct}</dd>
        </div>
        <div>
          <dt>新增关注</dt>
          <dd>{s.favorites.total}</dd>
        </div>
        <div>
          <dt>当前关注</dt>
          <dd>{s.favorites.now}</dd>
        </div>
        {paid ? (
          <>
            <div>
              <dt>购买</dt>
              <dd data-testid="stats-sales">{s.sales.total}</dd>
            </div>
            <div>
              <dt>读者支付</dt>
              <dd data-testid="stats-gross">{s.gross.total}</dd>
            </div>
            <div>
              <dt>收入积分</dt>
              <dd data-testid="stats-income">{s.income.total}</dd>
            </div>
          </>
        ) : null}
      </dl>

      {s.chapter ? (
        <section className="studio-card stats-section" aria-labelledby="stats-chapter">
          <h2 id="stats-chapter">{s.chapter.label}</h2>
          <p className="muted">
            最近{STATS_DAYS}天共 {s.chapter.readers.distinct} 位读者。<Link to={`${base}?page=${s.page}`}>返回全书统计</Link>
          </p>
          <DailyChart title="本章每日读者" days={s.days} values={s.chapter.readers.values} unit="人" />
          <DailyTable rows={rows} columns={[{ label: "读者", values: s.chapter.readers.values }]} caption="本章每日读者" />
        </section>
      ) : null}

      <section className="studio-card stats-section" aria-labelledby="stats-work">
        <h2 id="stats-work">全书每日数据</h2>
        <div className="stats-charts">
          <DailyChart title="每日读者" days={s.days} values={s.readers.values} unit="人" />
          <DailyChart title="每日新增关注" days={s.days} values={s.favorites.values} unit="次" />
          {paid ? <DailyChart title="每日购买" days={s.days} values={s.sales.values} unit="笔" /> : null}
          {paid ? <DailyChart title="每日收入积分" days={s.days} values={s.income.values} unit="积分" /> : null}
        </div>
        <DailyTable
          rows={rows}
          caption="全书每日数据"
          columns={[
            { label: "读者", values: s.readers.values },
            { label: "新增关注", values: s.favorites.values },
            ...(paid
              ? [
                  { label: "购买", values: s.sales.values },
                  { label: "读者支付", values: s.gross.values },
                  { label: "收入积分", values: s.income.values },
                ]
              : []),
          ]}
        />
      </section>

      <section className="studio-card stats-section" aria-labelledby="stats-chapters">
        <h2 id="stats-chapters">各章读者</h2>
        {s.chapters.length === 0 ? (
          <p className="muted">暂无已发布的章节。</p>
        ) : (
          <TableScroll className="stats-scroll" label={`各章最近${STATS_DAYS}天的读者`}>
            <table className="ledger-table stats-table">
              <caption className="sr-only">各章最近{STATS_DAYS}天的读者</caption>
              <thead>
                <tr>
                  <th scope="col">章节</th>
                  <th scope="col" className="ledger-amount">
                    读者
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.chapters.map((c) => (
                  <tr key={c.id} aria-current={s.chapter?.id === c.id ? "true" : undefined}>
                    <td>
                      <Link to={`${base}?chapter=${c.id}&page=${s.page}#stats-chapter`}>{c.label}</Link>
                    </td>
                    <td className="ledger-amount">{c.readers}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <Pagination page={s.page} pageCount={s.pageCount} hrefFor={(p) => `${base}?page=${p}`} window={3} />
      </section>
    </section>
  );
}

function DailyTable({
  rows,
  columns,
  caption,
}: {
  rows: { day: string; i: number }[];
  columns: { label: string; values: number[] }[];
  caption: string;
}) {
  return (
    <details className="stats-details" open>
      <summary>查看每日数字</summary>
      <TableScroll className="stats-scroll" label={caption}>
        <table className="ledger-table stats-table">
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">日期</th>
              {columns.map((c) => (
                <th key={c.label} scope="col" className="ledger-amount">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(({ day, i }) => (
              <tr key={day}>
                <th scope="row">{formatDayLabel(day)}</th>
                {columns.map((c) => (
                  <td key={c.label} className="ledger-amount">
                    {c.values[i]}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}
