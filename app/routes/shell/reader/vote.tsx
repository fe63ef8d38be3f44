import { data, Link, useLoaderData } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { VoteBox, type VoteAnswer } from "~/components/reader/vote-box";
import { userContext } from "~/middleware/guards.server";
import { castVotes, voteById, votePage } from "~/server/community/votes.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { voteFormSchema } from "~/schemas/votes";
import type { Route } from "./+types/vote";

/**
 * 月票 and 推荐票 (docs/product.md#votes, decision 222): what the reader has left and the two
 * cast forms; the work page and a chapter's end post here too. A plain form is answered
 * with a redirect back (and a notice); a fetcher (`fetcher=1`) with data. The same form
 * sent twice casts once (decision 077).
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `投票《${data.work.title}》 - 砚台` : "投票 - 砚台" }];

export const handle = { creates: ["vote"] };

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const page = await orRouteError(() => votePage(user, Number(params.id)));
  return { ...page, formTokens: { monthly: newFormToken(), recommend: newFormToken() } };
}

/** Back to the page the form was on: this work's page or one of its chapters, else the work page. */
function backTo(sent: unknown, workId: number): string {
  const base = `/works/${workId}`;
  return typeof sent === "string" && (sent === base || sent.startsWith(`${base}?`)) ? sent : base;
}

const NAMES = { monthly: "月票", recommend: "推荐票" } as const;

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const workId = Number(params.id);
  const submission = parseWithZod(form, { schema: voteFormSchema });
  if (submission.status !== "success") return data<VoteAnswer>({ ok: false, kind: null, message: "请求无效" }, { status: 400 });
  const { kind, count, redirectTo } = submission.value;
  const viaFetcher = form.get("fetcher") === "1";
  return replyOnDomainError(
    async () => {
      const cast = await oncePerFormToken(
        user.id,
        "vote",
        formTokenOf(form),
        (record) => castVotes(user, { workId, kind, count }, record),
        async (resultId) => voteById(user.id, Number(resultId)),
      );
      const message = `已投出 ${cast.count} 张${NAMES[cast.kind]}，感谢你的支持！`;
      if (viaFetcher) return { ok: true, kind: cast.kind, message } satisfies VoteAnswer;
      return redirectWithFlash(request, backTo(redirectTo, workId), { kind: "success", text: message });
    },
    (error): VoteAnswer => ({ ok: false, kind: kind === "monthly" || kind === "recommend" ? kind : null, message: error.message }),
  );
}

export default function VotePage({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const answer = actionData as VoteAnswer | undefined;
  const back = `/works/${page.work.id}`;
  return (
    <section className="vote-page">
      <p className="reader-breadcrumb">
        <Link to={back}>{page.work.title}</Link>
      </p>
      <h1>投票《{page.work.title}》</h1>
      <p className="muted">作者：{page.work.authorNickname}</p>
      {answer && !answer.ok ? (
        <p className="field-error" role="alert">
          {answer.message}
        </p>
      ) : null}
      <VoteBox workId={page.work.id} votes={page.votes} formTokens={page.formTokens} redirectTo={back} />
      <h2>怎样得到选票</h2>
      <ul className="vote-rules">
        <li>
          月票：每个自然月（北京时间）在作品上消费（订阅章节、购买全本、打赏）每满 {page.votes.creditsPerMonthly} 积分得 1 张，本月已消费{" "}
          {page.votes.spentThisMonth} 积分、得到 {page.votes.monthlyEarned} 张；未投出的月票在月底清零。
        </li>
        <li>
          推荐票：每天（北京时间）免费发放，张数按读者等级（累计消费）而定。你现在是{page.votes.level}，每天 {page.votes.recommendDaily} 张，当天有效。
        </li>
        <li>不能给自己的作品投票；封禁中的账号不能投票。</li>
      </ul>
      <p>
        <Link to="/rankings?board=monthly-votes">月票榜</Link> · <Link to="/rankings?board=recommend-votes">推荐票榜</Link> ·{" "}
        <Link to="/rankings?board=tips">打赏榜</Link>
      </p>
    </section>
  );
}
