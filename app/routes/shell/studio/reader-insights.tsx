import { data, Link, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { Pagination } from "~/components/ui/pagination";
import { TableScroll } from "~/components/ui/table-scroll";
import { userContext } from "~/middleware/guards.server";
import { asRouteError } from "~/server/platform/errors.server";
import { readerInsights } from "~/server/studio/reader-insights.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/reader-insights";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `读者行为《${data?.work.title ?? ""}》 - 砚台` }];

/** `?chapter=`: absent or empty means none; anything else that is not a positive integer is NaN (not found). */
function chapterParam(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  return /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
}

/** GET /works/:id/stats/readers (owner only): drop-off, 段评 heat of a chapter, characters mentioned. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const view = await readerInsights(user.id, Number(params.id), {
    chapterId: chapterParam(url.searchParams.get("chapter")),
    order: url.searchParams.get("order") === "hot" ? "hot" : "text",
    page: parsePage(url.searchParams.get("page")),
  }).catch(asRouteError);
  return data(view, { status: view.heatError ? 404 : 200 });
}

export default function ReaderInsights() {
  const s = useLoaderData<typeof loader>();
  const base = `/works/${s.work.id}/stats/readers`;
  const query = (changes: Record<string, string | number | null>) => {
    const params = new URLSearchParams();
    const current: Record<string, string | number | null> = {
      page: s.drop.page > 1 ? s.drop.page : null,
      chapter: s.heat?.chapterId ?? null,
      order: s.heat?.order === "hot" ? "hot" : null,
      ...changes,
    };
    for (const [k, v] of Object.entries(current)) if (v !== null) params.set(k, String(v));
    const q = params.toString();
    return q ? `${base}?${q}` : base;
  };
  return (
    <section className="studio-page">
      <StudioNav workId={s.work.id} title={s.work.title} current="stats" />
      <p>
        <Link to={`/works/${s.work.id}/stats`}>← 返回数据统计</Link>
      </p>
      <h2 className="insights-title">读者行为</h2>
      <p className="muted">读者指登录后阅读或评论的用户，不含作者本人。</p>

      <section className="studio-card stats-section" aria-labelledby="insights-drop">
        <h3 id="insights-drop">各章流失</h3>
        <p className="muted">
          读完第N章后{s.rules.windowDays}天内没有读第N+1章的读者占比（从第一次读第N章、且第N+1章已发布的那天算起）。
          还在这{s.rules.windowDays}天里的读者记为“观察中”，不计入比例。阅读记录只保留最近{s.rules.keptDays}天。
        </p>
        {s.drop.steepest.length > 0 ? (
          <p data-testid="insights-steepest">
            流失最多：
            {s.drop.steepest.map((r, i) => (
              <span key={r.id}>
                {i > 0 ? "、" : ""}
                {r.label}（{r.percent}%）
              </span>
            ))}
          </p>
        ) : (
          <p className="muted">已满{s.rules.windowDays}天的读者不少于{s.rules.minReaders}位的章节，才会标出流失最多的几章。</p>
        )}
        {s.drop.total === 0 ? (
          <p className="muted">暂无已发布的章节。</p>
        ) : (
          <TableScroll className="stats-scroll" label="各章流失">
            <table className="ledger-table stats-table insights-table" data-testid="insights-drop-table">
              <caption className="sr-only">各章流失</caption>
              <thead>
                <tr>
                  <th scope="col">章节</th>
                  <th scope="col" className="ledger-amount">
                    读者
                  </th>
                  <th scope="col" className="ledger-amount">
                    流失
                  </th>
                  <th scope="col">流失率</th>
                  <th scope="col" className="ledger-amount">
                    观察中
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.drop.rows.map((r) => (
                  <tr key={r.id} className={r.steep ? "insights-steep" : undefined}>
                    <th scope="row">
                      {r.label}
                      {r.steep ? <span className="insights-mark">流失多</span> : null}
                    </th>
                    <td className="ledger-amount">{r.settled}</td>
                    <td className="ledger-amount">{r.dropped}</td>
                    <td>
                      {r.last ? (
                        <span className="muted">最新一章</span>
                      ) : r.percent === null ? (
                        <span className="muted">—</span>
                      ) : (
                        <span className="insights-bar-cell">
                          <Bar percent={r.percent} />
                          {r.percent}%
                        </span>
                      )}
                    </td>
                    <td className="ledger-amount">{r.pending}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <Pagination page={s.drop.page} pageCount={s.drop.pageCount} hrefFor={(p) => query({ page: p > 1 ? p : null })} window={3} />
      </section>

      <section className="studio-card stats-section" aria-labelledby="insights-heat">
        <h3 id="insights-heat">段评热度</h3>
        {s.chapterOptions.length === 0 ? (
          <p className="muted">暂无已发布的章节。</p>
        ) : (
          <form method="get" action={base} className="insights-pick">
            {s.drop.page > 1 ? <input type="hidden" name="page" value={s.drop.page} /> : null}
            <label className="field">
              <span>章节</span>
              <select name="chapter" defaultValue={s.heat?.chapterId ?? ""}>
                <option value="">请选择章节</option>
                {s.chapterOptions.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>排列</span>
              <select name="order" defaultValue={s.heat?.order ?? "text"}>
                <option value="text">按段落顺序</option>
                <option value="hot">段评多的在前</option>
              </select>
            </label>
            <button type="submit" className="btn">
              查看
            </button>
          </form>
        )}
        {s.heatError ? (
          <p role="alert" className="form-error">
            {s.heatError}
          </p>
        ) : null}
        {s.heat ? (
          <>
            <p>
              {s.heat.label}：共 {s.heat.total} 条段评。
              {s.heat.order === "hot" ? <Link to={`${query({ order: null })}#insights-heat`}>按段落顺序</Link> : <Link to={`${query({ order: "hot" })}#insights-heat`}>段评多的在前</Link>}
            </p>
            {s.heat.paragraphs.length === 0 ? (
              <p className="muted">本章没有正文段落。</p>
            ) : (
              <ol className="insights-heat" data-testid="insights-heat">
                {s.heat.paragraphs.map((p) => (
                  <li key={p.index}>
                    <span className="insights-heat-head">
                      <span className="muted">第{p.index + 1}段</span>
                      <span className="insights-count">{p.count} 条</span>
                    </span>
                    <span className="insights-excerpt">{p.excerpt}</span>
                    <Bar percent={s.heat!.max > 0 ? Math.round((p.count * 100) / s.heat!.max) : 0} />
                  </li>
                ))}
              </ol>
            )}
          </>
        ) : s.heatError ? null : (
          <p className="muted">选择一章，查看每段的段评数。</p>
        )}
      </section>

      <section className="studio-card stats-section" aria-labelledby="insights-mentions">
        <h3 id="insights-mentions">评论里提到最多的角色</h3>
        {!s.mentions.hasCharacters ? (
          <p className="muted">
            故事设定里还没有角色。<Link to={`/works/${s.work.id}/bible`}>去添加角色</Link>，统计会按角色的名字和别名计算。
          </p>
        ) : (
          <>
            <p className="muted">
              按故事设定里角色的名字和别名，统计本章说、段评和回复中提到每个角色的评论条数（一条评论提到多次只算一次）。
              {s.mentions.capped ? `评论较多，只统计了最新的 ${s.mentions.scanned} 条。` : `共统计 ${s.mentions.scanned} 条评论。`}
            </p>
            {s.mentions.characters.length === 0 ? (
              <p className="muted">评论里还没有提到角色。</p>
            ) : (
              <ol className="insights-mentions" data-testid="insights-mentions">
                {s.mentions.characters.map((c) => (
                  <li key={c.id}>
                    <span>{c.name}</span>
                    <span className="insights-count">{c.count} 条评论</span>
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </section>
    </section>
  );
}

/**
 * A horizontal bar for a share (0-100), drawn as SVG: a width in a style prop would be an
 * inline style, which the Content-Security-Policy refuses. Decorative: the number is beside it.
 */
function Bar({ percent }: { percent: number }) {
  return (
    <svg className="insights-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect className="insights-bar-track" width="100" height="8" />
      <rect className="insights-bar-fill" width={Math.max(0, Math.min(100, percent))} height="8" />
    </svg>
  );
}
