import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { VOTE_COUNTS } from "~/schemas/vote-rules";
import type { VoteBalance, VoteKind } from "~/types/votes";

/** What the vote page's action answers a fetcher (a plain form gets a redirect instead). */
export interface VoteAnswer {
  ok: boolean;
  kind: VoteKind | null;
  message: string;
}

const LABELS: Record<VoteKind, { name: string; button: string; unit: string }> = {
  monthly: { name: "月票", button: "投月票", unit: "张" },
  recommend: { name: "推荐票", button: "投推荐票", unit: "张" },
};

/**
 * 投月票 / 投推荐票 (decision 222) on the work page and at a chapter's end: two plain forms
 * posting to /works/:id/vote (a redirect back without JavaScript), sent by a fetcher once
 * the page is live (the counts then update in place). Shows what the reader has left.
 */
export function VoteBox({
  workId,
  votes,
  formTokens,
  redirectTo,
}: {
  workId: number;
  votes: VoteBalance;
  formTokens: Record<VoteKind, string>;
  redirectTo: string;
}) {
  return (
    <section className="vote-box" aria-label="投票" data-testid="vote-box">
      <VoteForm kind="monthly" workId={workId} left={votes.monthly} token={formTokens.monthly} redirectTo={redirectTo} />
      <VoteForm kind="recommend" workId={workId} left={votes.recommend} token={formTokens.recommend} redirectTo={redirectTo} />
      <p className="muted vote-hint">
        本月消费满 {votes.creditsPerMonthly} 积分得 1 张月票（月底清零）；{votes.level}每天 {votes.recommendDaily} 张推荐票。
        <Link to={`/works/${workId}/vote`}>投票说明</Link>
      </p>
    </section>
  );
}

function VoteForm({ kind, workId, left, token, redirectTo }: { kind: VoteKind; workId: number; left: number; token: string; redirectTo: string }) {
  const fetcher = useFetcher<VoteAnswer>();
  // Sent only once the page runs JavaScript: the action then answers the fetcher with data.
  const [live, setLive] = useState(false);
  useEffect(() => setLive(true), []);
  const label = LABELS[kind];
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  return (
    <fetcher.Form method="post" action={`/works/${workId}/vote`} className="vote-form">
      <FormTokenField token={token} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      {live ? <input type="hidden" name="fetcher" value="1" /> : null}
      <span className="vote-left">
        {label.name}剩余 <strong data-testid={`vote-left-${kind}`}>{left}</strong> {label.unit}
      </span>
      <label>
        <span className="sr-only">{label.name}张数</span>
        <select name="count" defaultValue="1" disabled={left === 0}>
          {VOTE_COUNTS.filter((n) => n === 1 || n <= left).map((n) => (
            <option key={n} value={n}>
              {n} 张
            </option>
          ))}
        </select>
      </label>
      <SubmitButton className="btn" pending={fetcher.state !== "idle"} pendingLabel="投票中..." disabled={left === 0}>
        {label.button}
      </SubmitButton>
      {answer?.ok ? (
        <p className="form-success" role="status">
          {answer.message}
        </p>
      ) : null}
      <FieldError errors={answer && !answer.ok ? answer.message : undefined} alert as="p" />
    </fetcher.Form>
  );
}
