import { Form, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { replyMessages } from "~/components/admin/reply-errors";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { ANNOUNCEMENT_BODY_MAX, ANNOUNCEMENT_TITLE_MAX, announcementActionSchema } from "~/schemas/front-page";
import { listAnnouncementsForAdmin, runAnnouncementAction } from "~/server/admin/front-page.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { formatShanghai, toShanghaiInput } from "~/utils/shanghai-time";
import type { Route } from "./+types/announcements";

/**
 * 公告 (docs/product.md#front-page): shown on the home page and at the top of every
 * reader's inbox between its start and end (China time). Create, edit, end now, delete.
 */
export const meta: Route.MetaFunction = () => [{ title: "公告 - 管理后台" }];

/** 发布 carries a one-time token (decision 172): posted twice, it makes one announcement. */
export const handle = { creates: ["announcement"] };

export async function loader() {
  return { announcements: await listAnnouncementsForAdmin(), now: Date.now(), formToken: newFormToken() };
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  return replyToForm(form, announcementActionSchema, async (action) => {
    const actor = adminActorOf(context);
    if (action.intent === "create") {
      await oncePerFormToken(
        { adminId: actor.admin.id },
        "announcement",
        formTokenOf(form),
        (record) => runAnnouncementAction(actor, action, record),
        async (first) => Number(first),
      );
    } else {
      await runAnnouncementAction(actor, action);
    }
    return redirect(`/admin/announcements?notice=${action.intent === "delete" ? "deleted" : "saved"}`);
  });
}

function stateOf(a: { startsAt: Date | string; endsAt: Date | string | null }, now: number): string {
  if (new Date(a.startsAt).getTime() > now) return "未开始";
  if (a.endsAt && new Date(a.endsAt).getTime() <= now) return "已结束";
  return "显示中";
}

function AnnouncementFields({ title = "", body = "", startsAt, endsAt }: { title?: string; body?: string; startsAt?: Date | string; endsAt?: Date | string | null }) {
  return (
    <>
      <label className="field">
        <span>标题</span>
        <input type="text" name="title" defaultValue={title} required maxLength={ANNOUNCEMENT_TITLE_MAX} />
      </label>
      <label className="field">
        <span>内容</span>
        <textarea name="body" defaultValue={body} required maxLength={ANNOUNCEMENT_BODY_MAX} rows={4} />
      </label>
      <label className="field">
        <span>开始时间（北京时间，留空为立即）</span>
        <input type="datetime-local" name="startsAt" defaultValue={startsAt ? toShanghaiInput(startsAt) : ""} />
      </label>
      <label className="field">
        <span>结束时间（北京时间，留空为长期）</span>
        <input type="datetime-local" name="endsAt" defaultValue={endsAt ? toShanghaiInput(endsAt) : ""} />
      </label>
    </>
  );
}

export default function Announcements({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const { announcements, now } = loaderData;
  return (
    <section className="admin-page">
      <h1>公告</h1>
      <p className="hint">公告在开始与结束时间之间显示在首页和每位读者的消息通知顶部。</p>
      <QueryNotice />
      <FormErrors errors={replyMessages(actionData)} />
      <Form method="post" className="admin-card">
        <h2>发布公告</h2>
        <input type="hidden" name="intent" value="create" />
        <input type="hidden" name="formToken" value={loaderData.formToken} />
        <AnnouncementFields />
        <SubmitButton className="btn btn-primary" pending={busy}>
          发布
        </SubmitButton>
      </Form>
      {announcements.length === 0 ? <p className="admin-muted">还没有公告。</p> : null}
      {announcements.map((a) => (
        <div key={a.id} className="admin-card" data-testid="announcement-admin">
          <h2>
            {a.title} <small className="admin-muted">（{stateOf(a, now)} · {formatShanghai(a.startsAt)} 至 {a.endsAt ? formatShanghai(a.endsAt) : "长期"}）</small>
          </h2>
          <details>
            <summary>编辑</summary>
            <Form method="post">
              <input type="hidden" name="intent" value="update" />
              <input type="hidden" name="id" value={a.id} />
              <AnnouncementFields title={a.title} body={a.body} startsAt={a.startsAt} endsAt={a.endsAt} />
              <SubmitButton className="btn btn-primary" pending={busy}>
                保存
              </SubmitButton>
            </Form>
          </details>
          <Form method="post" className="admin-inline-form">
            <input type="hidden" name="id" value={a.id} />
            {stateOf(a, now) !== "已结束" ? (
              <SubmitButton name="intent" value="end" className="btn" pending={busy} aria-label={`立即结束公告${a.title}`}>
                立即结束
              </SubmitButton>
            ) : null}
            <SubmitButton name="intent" value="delete" className="btn btn-danger" pending={busy} aria-label={`删除公告${a.title}`}>
              删除
            </SubmitButton>
          </Form>
        </div>
      ))}
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
