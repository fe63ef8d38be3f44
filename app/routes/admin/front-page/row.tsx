import { Form, Link, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { replyMessages } from "~/components/admin/reply-errors";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { curatedWorkActionSchema } from "~/schemas/front-page";
import { getCuratedRowForAdmin, runCuratedWorkAction } from "~/server/admin/front-page.server";
import { listWorksForAdmin } from "~/server/admin/works-moderation.server";
import { orRouteError } from "~/server/platform/errors.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formatShanghai, toShanghaiInput } from "~/utils/shanghai-time";
import type { Route } from "./+types/row";

/**
 * One 编辑推荐 row's works (docs/product.md#front-page): add by work id or from a title
 * search (GET ?q=), each with an optional start and end in China time; move up or down,
 * change the times, remove. Plain forms.
 */
export const meta: Route.MetaFunction = () => [{ title: "推荐位作品 - 管理后台" }];

const SEARCH_MAX = 100;

export async function loader({ params, url }: Route.LoaderArgs) {
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, SEARCH_MAX);
  const row = await orRouteError(() => getCuratedRowForAdmin(Number(params.id)));
  const found = q ? (await listWorksForAdmin({ query: q, page: 1 })).works.map((w) => ({ id: w.id, title: w.title, author: w.authorNickname, takenDown: w.takenDownAt !== null, visibility: w.visibility })) : [];
  return { ...row, q, found };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  return replyToForm(await readForm(request), curatedWorkActionSchema, async (action) => {
    await runCuratedWorkAction(adminActorOf(context), Number(params.id), action);
    return redirect(`/admin/front-page/${params.id}?notice=saved`);
  });
}

function stateOf(item: { visibility: string; takenDownAt: Date | string | null }): string | null {
  if (item.takenDownAt) return "已下架，读者看不到";
  if (item.visibility === "private") return "未公开，读者看不到";
  return null;
}

function windowText(startsAt: Date | string | null, endsAt: Date | string | null): string {
  if (!startsAt && !endsAt) return "一直显示";
  return `${startsAt ? formatShanghai(startsAt) : "现在"} 至 ${endsAt ? formatShanghai(endsAt) : "长期"}`;
}

export default function CuratedRow({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const { row, items, q, found } = loaderData;
  return (
    <section className="admin-page">
      <p>
        <Link to="/admin/front-page">← 返回编辑推荐</Link>
      </p>
      <h1>推荐位：{row.name}</h1>
      <p className="hint">时间为北京时间；开始、结束可留空。到了结束时间作品自动从首页消失。</p>
      <QueryNotice />
      <FormErrors errors={replyMessages(actionData)} />

      <div className="admin-card">
        <h2>添加作品</h2>
        <Form method="post" className="admin-inline-form">
          <input type="hidden" name="intent" value="add" />
          <label className="field">
            <span>作品编号</span>
            <input type="text" name="workId" inputMode="numeric" required pattern="\d+" maxLength={15} />
          </label>
          <label className="field">
            <span>开始时间（可空）</span>
            <input type="datetime-local" name="startsAt" />
          </label>
          <label className="field">
            <span>结束时间（可空）</span>
            <input type="datetime-local" name="endsAt" />
          </label>
          <SubmitButton className="btn btn-primary" pending={busy}>
            添加
          </SubmitButton>
        </Form>
        <Form method="get" className="admin-inline-form" role="search">
          <label className="field">
            <span>按标题查找作品</span>
            <input type="search" name="q" defaultValue={q} maxLength={SEARCH_MAX} />
          </label>
          <button type="submit" className="btn">
            查找
          </button>
        </Form>
        {q ? (
          found.length === 0 ? (
            <p className="admin-muted">没有找到作品。</p>
          ) : (
            <ul className="category-list" data-testid="curation-search">
              {found.map((w) => (
                <li key={w.id}>
                  <Form method="post" className="admin-inline-form">
                    <input type="hidden" name="intent" value="add" />
                    <input type="hidden" name="workId" value={w.id} />
                    <span>
                      #{w.id} 《{w.title}》 {w.author}
                      {w.takenDown ? "（已下架）" : w.visibility === "private" ? "（未公开）" : ""}
                    </span>
                    <SubmitButton className="btn btn-small" pending={busy} aria-label={`添加《${w.title}》`}>
                      添加
                    </SubmitButton>
                  </Form>
                </li>
              ))}
            </ul>
          )
        ) : null}
      </div>

      <div className="admin-card">
        <h2>作品（{items.length}）</h2>
        {items.length === 0 ? <p className="admin-muted">这个推荐位还没有作品。</p> : null}
        <ol className="category-list" aria-label="推荐位中的作品">
          {items.map((item, i) => (
            <li key={item.workId} className="admin-card" data-testid="curated-work-admin">
              <p>
                <Link to={`/admin/works/${item.workId}`}>
                  #{item.workId} 《{item.title}》
                </Link>{" "}
                {item.authorNickname} · {windowText(item.startsAt, item.endsAt)}
                {stateOf(item) ? <strong> · {stateOf(item)}</strong> : null}
              </p>
              <Form method="post" className="admin-inline-form">
                <input type="hidden" name="intent" value="schedule" />
                <input type="hidden" name="workId" value={item.workId} />
                <label className="field">
                  <span>开始时间</span>
                  <input type="datetime-local" name="startsAt" defaultValue={item.startsAt ? toShanghaiInput(item.startsAt) : ""} />
                </label>
                <label className="field">
                  <span>结束时间</span>
                  <input type="datetime-local" name="endsAt" defaultValue={item.endsAt ? toShanghaiInput(item.endsAt) : ""} />
                </label>
                <SubmitButton className="btn" pending={busy} aria-label={`保存时间《${item.title}》`}>
                  保存时间
                </SubmitButton>
              </Form>
              <Form method="post">
                <input type="hidden" name="workId" value={item.workId} />
                <button type="submit" name="intent" value="up" className="btn-link" disabled={busy || i === 0} aria-label={`上移《${item.title}》`}>
                  上移
                </button>
                <button type="submit" name="intent" value="down" className="btn-link" disabled={busy || i === items.length - 1} aria-label={`下移《${item.title}》`}>
                  下移
                </button>
                <SubmitButton name="intent" value="remove" className="btn-link admin-danger-link" pending={busy} aria-label={`移出《${item.title}》`}>
                  移出
                </SubmitButton>
              </Form>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
