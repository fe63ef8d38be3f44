import { data, Form, Link, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { deleteWorkAsAdmin, getWorkForAdmin, restoreWork, setWorkRating, takeDownWork } from "~/server/admin/works-moderation.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { workModerationSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { formatNumber, WORK_TYPE_LABELS } from "~/utils/format";
import type { Route } from "./+types/work";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * One work for an administrator (decision 138), whatever its visibility: facts, chapters and
 * the text of one, and the moderation forms: take down with a reason shown to the owner,
 * restore, mark R-18 or all ages, delete with a reason. Each writes its audit row.
 */
export const meta: Route.MetaFunction = () => [{ title: "作品详情 - 管理后台" }];

const VISIBILITY_LABELS = { public: "免费", "public-vip": "付费", private: "未公开" } as const;
const STATE_LABELS = { draft: "存稿", scheduled: "定时", published: "已发布", review: "审核中" } as const;

export async function loader({ params, url }: Route.LoaderArgs) {
  const raw = url.searchParams.get("chapter");
  const chapter = raw && /^\d{1,6}$/.test(raw) ? Number(raw) : null;
  return orRouteError(() => getWorkForAdmin(Number(params.id), chapter));
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const actor = adminActorOf(context);
  const submission = parseWithZod(await readForm(request), { schema: workModerationSchema });
  const intent = String(submission.payload.intent ?? "");
  const id = Number(params.id);
  const back = `/admin/works/${params.id}`;
  return replyOnDomainError(
    async () => {
      if (!Number.isSafeInteger(id) || id <= 0) return data({ intent, error: "作品不存在" }, { status: 404 });
      if (submission.status !== "success") return data({ intent, error: "未知操作" }, { status: 400 });
      const { reason } = submission.value;
      switch (submission.value.intent) {
        case "take-down":
          await takeDownWork(actor, id, reason);
          return redirect(`${back}?notice=work-taken-down`);
        case "restore":
          await restoreWork(actor, id);
          return redirect(`${back}?notice=work-restored`);
        case "r18":
        case "all-ages":
          await setWorkRating(actor, id, submission.value.intent === "r18" ? "r18" : "all_ages");
          return redirect(`${back}?notice=work-rating`);
        case "delete":
          await deleteWorkAsAdmin(actor, id, reason);
          return redirect("/admin/works?notice=deleted");
      }
    },
    (error) => ({ intent, error: error.message }),
  );
}

export default function AdminWork({ loaderData, actionData }: Route.ComponentProps) {
  const { work, author, chapters, chapter, openReports } = loaderData;
  const busy = useIsPending();
  const errorFor = (intent: string) => (actionData?.intent === intent ? [actionData.error] : undefined);
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/works">← 返回作品列表</Link>
      </p>
      <h1>{work.title}</h1>
      <QueryNotice />
      <FormErrors errors={actionData && ["restore", "r18", "all-ages", ""].includes(actionData.intent) ? [actionData.error] : undefined} />
      <dl className="admin-facts" data-testid="work-facts">
        <dt>作者</dt>
        <dd>
          <Link to={`/admin/users/${work.userId}`}>{author.nickname}</Link>（{author.email}）
        </dd>
        <dt>状态</dt>
        <dd data-testid="work-state">
          {work.takenDownAt ? `已被下架（${formatShanghaiSeconds(work.takenDownAt)}）：${work.takedownReason}` : VISIBILITY_LABELS[work.visibility]}
        </dd>
        <dt>类型</dt>
        <dd>{WORK_TYPE_LABELS[work.type]}</dd>
        <dt>分级</dt>
        <dd data-testid="work-rating">{work.rating === "r18" ? "R-18" : "全年龄"}</dd>
        <dt>字数</dt>
        <dd>{formatNumber(work.wordCount)}</dd>
        <dt>待处理举报</dt>
        <dd>{openReports > 0 ? <Link to="/admin/comment-reports">{openReports} 条</Link> : "无"}</dd>
        <dt>创建时间</dt>
        <dd>{formatShanghaiSeconds(work.createdAt)}</dd>
      </dl>
      <p className="admin-break">{work.description}</p>

      <div className="admin-card">
        <h2>处理</h2>
        {work.takenDownAt ? (
          <Form method="post">
            <input type="hidden" name="intent" value="restore" />
            <SubmitButton className="btn btn-primary" pending={busy}>
              恢复上架（恢复为下架前的状态）
            </SubmitButton>
          </Form>
        ) : (
          <>
            <FormErrors errors={errorFor("take-down")} />
            <Form method="post">
              <input type="hidden" name="intent" value="take-down" />
              <label className="field">
                <span>下架原因（作者可见）</span>
                <input name="reason" required maxLength={200} />
              </label>
              <SubmitButton className="btn btn-danger" pending={busy}>
                下架
              </SubmitButton>
            </Form>
          </>
        )}
        <Form method="post" className="admin-inline-form">
          <input type="hidden" name="intent" value={work.rating === "r18" ? "all-ages" : "r18"} />
          <SubmitButton className="btn" pending={busy}>
            {work.rating === "r18" ? "改为全年龄" : "标记为R-18"}
          </SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>删除作品</h2>
        <p className="hint">删除后无法恢复；已有读者购买的作品不能删除，请改为下架。</p>
        <FormErrors errors={errorFor("delete")} />
        <Form method="post">
          <input type="hidden" name="intent" value="delete" />
          <label className="field">
            <span>删除原因</span>
            <input name="reason" required maxLength={200} />
          </label>
          <SubmitButton className="btn btn-danger" pending={busy}>
            删除作品
          </SubmitButton>
        </Form>
      </div>

      <div className="admin-card">
        <h2>章节（{chapters.length}）</h2>
        {chapters.length === 0 ? (
          <p className="admin-muted">暂无章节</p>
        ) : (
          <ol className="admin-chapters">
            {chapters.map((c) => (
              <li key={c.id}>
                <Link to={`?chapter=${c.number}`}>{c.title}</Link> <small className="admin-muted">{STATE_LABELS[c.state]} · {formatNumber(c.wordCount)} 字</small>
              </li>
            ))}
          </ol>
        )}
        {chapter ? (
          <article className="admin-chapter-text" data-testid="admin-chapter-text">
            <h3>{chapter.title}</h3>
            {chapter.content.split(/\n+/).map((p, i) => (
              <p key={i}>{p}</p>
            ))}
          </article>
        ) : null}
      </div>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
