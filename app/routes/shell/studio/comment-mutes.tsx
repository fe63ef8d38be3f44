import { data, Form, Link, useLoaderData } from "react-router";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError } from "~/components/ui/forms";
import { listMutedUsers, unmuteUser } from "~/server/community/comments.server";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { unmuteSchema } from "~/schemas/comments";
import { parseWithZod } from "@conform-to/zod/v4";
import { userContext } from "~/middleware/guards.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { shanghaiDate } from "~/utils/shanghai-time";
import type { Route } from "./+types/comment-mutes";

/**
 * `/works/:id/comment-mutes`: the commenters the author muted on this work (from a comment,
 * 禁言此用户) and a plain form per user to lift it (decision 102). Owner only: someone
 * else's work is a 404.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: `评论禁言《${data?.work.title ?? ""}》 - 砚台` }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const [muted, flash] = await Promise.all([listMutedUsers(user.id, work.id), takeFlash(request, url)]);
  return data(
    { work: { id: work.id, title: work.title }, muted, notice: flash.notice },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: unmuteSchema });
  if (submission.status !== "success") return data({ error: "未知操作", userId: null }, { status: 400 });
  const { userId } = submission.value;
  return replyOnDomainError(
    async () => {
      await unmuteUser(user.id, workId, userId);
      return redirectWithFlash(request, `/works/${workId}/comment-mutes`, { kind: "success", text: "已解除禁言" });
    },
    (error) => ({ error: error.message, userId: typeof userId === "string" ? userId : null }),
  );
}

export default function CommentMutes({ actionData }: Route.ComponentProps) {
  const { work, muted, notice } = useLoaderData<typeof loader>();
  const answer = actionData as { error?: string; userId?: string | null } | undefined;
  return (
    <section className="studio-page">
      <StudioNav workId={work.id} title={work.title} current="comment-mutes" />
      <FlashMessage notice={notice} />
      <h2>评论禁言</h2>
      <p className="muted">
        被禁言的用户不能在这部作品下发表评论和回复。在评论旁点“禁言此用户”即可禁言。
      </p>
      <FieldError errors={answer?.error} alert as="p" />
      {muted.length === 0 ? (
        <p data-testid="muted-empty">没有被禁言的用户。</p>
      ) : (
        <ul className="muted-users" data-testid="muted-users">
          {muted.map((m) => (
            <li key={m.userId}>
              <span className="muted-user-name">{m.nickname}</span>{" "}
              <time dateTime={m.mutedAt} className="muted">
                {shanghaiDate(m.mutedAt)} 禁言
              </time>
              <Form method="post" className="inline-form">
                <input type="hidden" name="intent" value="unmute" />
                <input type="hidden" name="userId" value={m.userId} />
                <button type="submit" className="btn btn-small" aria-label={`解除对 ${m.nickname} 的禁言`}>
                  解除禁言
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
      <p>
        <Link to={`/works/${work.id}`}>返回作品页</Link>
      </p>
    </section>
  );
}
