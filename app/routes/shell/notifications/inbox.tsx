import { data, Form, Link, useLoaderData } from "react-router";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { AnnouncementList } from "~/components/announcements";
import { inboxAnnouncements, markAnnouncementRead, markCurrentAnnouncementsRead } from "~/server/catalog/front-page.server";
import { announcementReadSchema } from "~/schemas/front-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { notificationActionSchema } from "~/schemas/notifications";
import { parseWithZod } from "@conform-to/zod/v4";
import { userContext } from "~/middleware/guards.server";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  setWorkMuted,
} from "~/server/community/notifications.server";
import { parsePage } from "~/utils/pagination";
import { safeRedirectPath } from "~/utils/redirect";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/inbox";

/**
 * `/notifications` (消息通知, docs/product.md#notifications): the user's lines, newest first;
 * 标为已读 per line, 全部已读, 静音 per work and the muted works with 取消静音. Plain forms
 * (POST, redirect, GET); live through the shell's event stream. Above the lines, the current
 * 公告 with 标为已读 (`intent` read-announcement, docs/decisions/198).
 */
export const meta: Route.MetaFunction = () => [{ title: "消息通知 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [inbox, announcements, flash] = await Promise.all([
    listNotifications(user.id, parsePage(url.searchParams.get("page"))),
    inboxAnnouncements(user.id),
    takeFlash(request, url),
  ]);
  return data({ ...inbox, announcements, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

const DONE = {
  read: "已标为已读",
  "read-all": "全部标为已读",
  mute: "已静音这部作品的通知",
  unmute: "已取消静音",
} as const;

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  if (form.get("intent") === "read-announcement") {
    const read = parseWithZod(form, { schema: announcementReadSchema });
    if (read.status !== "success") return data({ error: "公告不存在或已结束" }, { status: 400 });
    return replyOnDomainError(
      async () => {
        await markAnnouncementRead(user.id, read.value.id);
        return redirectWithFlash(request, "/notifications", { kind: "success", text: DONE.read });
      },
      (error) => ({ error: error.message }),
    );
  }
  const submission = parseWithZod(form, { schema: notificationActionSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { intent, id, workId } = submission.value;
  const back = safeRedirectPath(submission.value.back, "/notifications", (path) => path === "/notifications");
  return replyOnDomainError(
    async () => {
      if (intent === "read") await markNotificationRead(user.id, id);
      else if (intent === "read-all") {
        await markAllNotificationsRead(user.id);
        await markCurrentAnnouncementsRead(user.id);
      }
      else await setWorkMuted(user.id, workId, intent === "mute");
      return redirectWithFlash(request, back, { kind: "success", text: DONE[intent] });
    },
    (error) => ({ error: error.message }),
  );
}

export default function Inbox({ actionData }: Route.ComponentProps) {
  const { lines, unread, page, pageCount, muted, notice, announcements } = useLoaderData<typeof loader>();
  const back = page > 1 ? `/notifications?page=${page}` : "/notifications";
  const answer = actionData as { error?: string } | undefined;
  return (
    <section className="inbox">
      <h1>消息通知</h1>
      <FlashMessage notice={notice} />
      <FieldError errors={answer?.error} alert as="p" />
      <AnnouncementList
        announcements={announcements}
        action={(a) =>
          a.unread ? (
            <Form method="post">
              <input type="hidden" name="intent" value="read-announcement" />
              <input type="hidden" name="id" value={a.id} />
              <button type="submit" className="btn btn-small btn-ghost" aria-label={`将公告“${a.title}”标为已读`}>
                标为已读
              </button>
            </Form>
          ) : null
        }
      />
      <div className="inbox-head">
        <p className="muted" data-testid="inbox-unread">
          {unread > 0 ? `${unread >= 100 ? "99+" : unread} 条未读` : "没有未读通知"}
        </p>
        {unread > 0 ? (
          <Form method="post">
            <input type="hidden" name="intent" value="read-all" />
            <input type="hidden" name="back" value={back} />
            <button type="submit" className="btn btn-small">
              全部已读
            </button>
          </Form>
        ) : null}
      </div>
      {lines.length === 0 ? (
        <p className="empty-state">还没有通知。关注的作品更新、有人回复你的评论时，会在这里告诉你。</p>
      ) : (
        <ul className="inbox-lines" data-testid="inbox-lines">
          {lines.map((line) => (
            <li key={line.id} className={line.unread ? "inbox-line unread" : "inbox-line"} data-testid="inbox-line">
              {line.unread ? <span className="update-dot" aria-label="未读" role="img" /> : null}
              <div className="inbox-line-body">
                <p className="inbox-line-text">
                  {line.href ? (
                    <Link to={line.href}>{inboxLineText(line)}</Link>
                  ) : (
                    inboxLineText(line)
                  )}
                </p>
                {line.authorNote ? (
                  <p className="inbox-line-note muted" data-testid="inbox-author-note">
                    作者的话：{line.authorNote}
                  </p>
                ) : null}
                <time className="muted" dateTime={line.at}>
                  {formatShanghai(line.at)}
                </time>
              </div>
              <div className="inbox-line-actions">
                {line.unread ? (
                  <Form method="post">
                    <input type="hidden" name="intent" value="read" />
                    <input type="hidden" name="id" value={line.id} />
                    <input type="hidden" name="back" value={back} />
                    <button type="submit" className="btn btn-small btn-ghost">
                      标为已读
                    </button>
                  </Form>
                ) : null}
                {line.workId !== null && (line.kind === "chapters" || line.kind === "purchase") && !line.muted ? (
                  <Form method="post">
                    <input type="hidden" name="intent" value="mute" />
                    <input type="hidden" name="workId" value={line.workId} />
                    <input type="hidden" name="back" value={back} />
                    <button type="submit" className="btn btn-small btn-ghost" aria-label={`静音《${line.workTitle ?? ""}》的通知`}>
                      静音
                    </button>
                  </Form>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/notifications?page=${p}`} window={3} />
      {muted.length > 0 ? (
        <section className="inbox-muted" aria-labelledby="muted-works">
          <h2 id="muted-works">已静音的作品</h2>
          <ul data-testid="muted-works">
            {muted.map((m) => (
              <li key={m.workId}>
                <Link to={`/works/${m.workId}`}>《{m.title}》</Link>
                <Form method="post" className="inline-form">
                  <input type="hidden" name="intent" value="unmute" />
                  <input type="hidden" name="workId" value={m.workId} />
                  <input type="hidden" name="back" value={back} />
                  <button type="submit" className="btn btn-small" aria-label={`取消静音《${m.title}》`}>
                    取消静音
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}
