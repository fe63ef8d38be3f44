import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData, useNavigation } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { deskActionSchema } from "~/schemas/desk";
import { DAILY_TARGET_MAX, DESK_MESSAGES, PACE_WINDOW_DAYS, THREAD_LONG_OPEN_CHAPTERS } from "~/schemas/desk-rules";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { deskView, setDailyTarget } from "~/server/studio/desk.server";
import { formatNumber } from "~/utils/format";
import { formatDayLabel, formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/desk";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `写作台《${data?.work.title ?? ""}》 - 砚台` }];

/** 写作台: what an author looks at each day for a work (docs/decisions/261). */
export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [view, flash] = await Promise.all([deskView(user.id, Number(params.id)).catch(asRouteError), takeFlash(request, url)]);
  return data({ ...view, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: deskActionSchema });
  if (submission.status !== "success") return data({ error: DESK_MESSAGES.unknownAction, target: "" }, { status: 400 });
  const sent = submission.value.intent === "target-save" ? submission.value.target : null;
  return replyOnDomainError(
    async () => {
      const words = await setDailyTarget(user.id, workId, sent);
      return redirectWithFlash(request, `/works/${workId}/desk`, { kind: "success", text: words === null ? DESK_MESSAGES.targetCleared : DESK_MESSAGES.targetSaved(words) });
    },
    (error) => ({ error: error.message, target: sent ?? "" }),
  );
}

const STATE_LABELS: Record<string, string> = { draft: "存稿", scheduled: "定时发布", review: "审核中", published: "已发布" };

export default function Desk({ actionData }: Route.ComponentProps) {
  const { work, today, pace, stock, threads, hook, findings, notice } = useLoaderData<typeof loader>();
  const saving = useNavigation().state === "submitting";
  const base = `/works/${work.id}`;
  const left = today.target === null ? null : Math.max(0, today.target - today.written);
  return (
    <section className="studio-page desk-page">
      <StudioNav workId={work.id} title={work.title} current="desk" />
      <FlashMessage notice={notice} />
      <p className="muted">今天是 {formatDayLabel(today.day)}（北京时间）。</p>

      <div className="desk-grid">
        <section className="studio-card desk-card" aria-labelledby="desk-today">
          <h2 id="desk-today">今日字数</h2>
          <p className="desk-big">
            {formatNumber(today.written)} 字{today.target !== null ? <span className="muted"> / 目标 {formatNumber(today.target)} 字</span> : null}
          </p>
          {today.target !== null ? (
            <>
              <progress className="desk-progress" value={Math.min(Math.max(today.written, 0), today.target)} max={today.target} aria-label="今日目标完成度" />
              <p>{left === 0 ? "今天的目标已完成。" : `还差 ${formatNumber(left ?? 0)} 字。`}</p>
            </>
          ) : (
            <p className="muted">还没有设每日目标。</p>
          )}
          <p className="muted desk-note">按北京时间计，保存和自动保存的正文字数净增（删去的字会扣除），新建章节的正文也算在内。</p>
          <Form method="post" className="desk-target-form">
            <label className="field">
              <span>每日目标（字）</span>
              <input
                type="text"
                name="target"
                inputMode="numeric"
                autoComplete="off"
                defaultValue={actionData?.target ?? (today.target !== null ? String(today.target) : "")}
                placeholder={`1–${DAILY_TARGET_MAX}`}
                aria-invalid={actionData?.error ? true : undefined}
                aria-describedby={actionData?.error ? "target-error" : undefined}
              />
            </label>
            {actionData?.error ? (
              <p className="form-error" id="target-error" role="alert">
                {actionData.error}
              </p>
            ) : null}
            <div className="desk-actions">
              <button type="submit" name="intent" value="target-save" className="btn btn-primary" disabled={saving}>保存目标</button>
              {today.target !== null ? (
                <button type="submit" name="intent" value="target-clear" className="btn" disabled={saving} formNoValidate>取消目标</button>
              ) : null}
            </div>
          </Form>
        </section>

        <section className="studio-card desk-card" aria-labelledby="desk-stock">
          <h2 id="desk-stock">存稿</h2>
          <p className="desk-big">
            {stock.daysLeft === null ? "—" : `够更 ${formatNumber(stock.daysLeft)} 天`}
          </p>
          <ul className="desk-list">
            <li>定时发布和审核中：{stock.scheduled.chapters} 章，{formatNumber(stock.scheduled.words)} 字{stock.scheduled.last ? `，排到 ${formatShanghai(stock.scheduled.last)}` : ""}</li>
            <li>未发布存稿：{stock.drafts.chapters} 章，{formatNumber(stock.drafts.words)} 字</li>
            <li>
              近 {pace.days} 天平均每天发布 {formatNumber(pace.perDay)} 字（共 {formatNumber(pace.words)} 字）
            </li>
          </ul>
          {stock.daysLeft === null ? <p className="muted">最近 {PACE_WINDOW_DAYS} 天没有发布章节，无法按更新速度估算。</p> : null}
          <p>
            <Link to={`${base}/chapters`}>章节管理</Link> · <Link to={`${base}/chapters/new`}>写新章节</Link>
          </p>
        </section>
      </div>

      <section className="studio-card desk-card" aria-labelledby="desk-hook">
        <h2 id="desk-hook">上一章的钩子</h2>
        {hook ? (
          <>
            <p>
              <Link to={`${base}/chapters/${hook.chapterId}`}>{hook.label}</Link> <span className="chapter-state">{STATE_LABELS[hook.state] ?? hook.state}</span>
            </p>
            {hook.paragraph ? <blockquote className="desk-quote">{hook.cut ? "……" : ""}{hook.paragraph}</blockquote> : <p className="muted">这一章还没有正文。</p>}
            {hook.summary ? <p><span className="muted">摘要：</span>{hook.summary}</p> : null}
          </>
        ) : (
          <p className="muted">还没有章节。</p>
        )}
      </section>

      <section className="studio-card desk-card" aria-labelledby="desk-threads">
        <h2 id="desk-threads">逾期伏笔{threads.total ? `（${threads.total}）` : ""}</h2>
        {threads.overdue.length === 0 ? (
          <p className="muted">没有逾期的伏笔。</p>
        ) : (
          <ul className="desk-list">
            {threads.overdue.map((t) => (
              <li key={t.id}>
                <Link to={`${base}/bible?tab=threads#t-${t.id}`}>{t.title}</Link>
                <span className="muted">
                  {t.reason === "due"
                    ? `：第${t.plantedChapter}章埋下，应在第${t.dueChapter}章前回收`
                    : `：第${t.plantedChapter}章埋下，已过 ${threads.published - t.plantedChapter} 章未回收`}
                </span>
              </li>
            ))}
          </ul>
        )}
        <p className="muted desk-note">
          已发布 {threads.published} 章。设了回收章节的伏笔到那一章发布仍未回收，或没设回收章节、埋下后已过 {THREAD_LONG_OPEN_CHAPTERS} 章，算作逾期。
          <Link to={`${base}/bible?tab=threads`}>全部伏笔</Link>
        </p>
      </section>

      <section className="studio-card desk-card" aria-labelledby="desk-findings">
        <h2 id="desk-findings">连续性检查：{findings.open ? `${findings.open} 处待处理` : "没有待处理的问题"}</h2>
        {findings.chapters.length ? (
          <ul className="desk-list">
            {findings.chapters.map((c) => (
              <li key={c.chapterId}>
                <Link to={`${base}/chapters/${c.chapterId}`}>{c.title}</Link> <span className="muted">{c.open} 处</span>
              </li>
            ))}
          </ul>
        ) : null}
        <p>
          <Link to={`${base}/continuity`}>查看全部检查结果</Link>
        </p>
      </section>
    </section>
  );
}
