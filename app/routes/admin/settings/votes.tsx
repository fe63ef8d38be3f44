import { data, Form, redirect } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { formatRecommendLevels, getVoteSettings, saveVoteSettings } from "~/server/community/votes.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { voteSettingsFormSchema } from "~/schemas/votes";
import type { Route } from "./+types/votes";

/**
 * 月票与推荐票 (docs/product.md#votes, decision 222): credits per 月票, the new accounts'
 * wait, the 推荐票 levels. Saved whole or not at all; audited.
 */
export const meta: Route.MetaFunction = () => [{ title: "月票与推荐票 - 管理后台" }];

interface Values {
  monthlyVoteCredits: string;
  minAccountDays: string;
  levels: string;
}

export async function loader() {
  const s = await getVoteSettings();
  return { monthlyVoteCredits: String(s.monthlyVoteCredits), minAccountDays: String(s.minAccountDays), levels: formatRecommendLevels(s.levels) } satisfies Values;
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: voteSettingsFormSchema });
  if (submission.status !== "success") return data({ error: "未知操作", values: null as Values | null }, { status: 400 });
  const values = submission.value;
  return replyOnDomainError(
    async () => {
      await saveVoteSettings(adminActorOf(context), values);
      return redirect("/admin/settings/votes?notice=saved");
    },
    (error) => ({ error: error.message, values: values as Values | null }),
  );
}

export default function VoteSettings({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as { error: string; values: Values | null } | undefined;
  const shown = answer?.values ?? loaderData;
  return (
    <section className="admin-page">
      <h1>月票与推荐票</h1>
      <QueryNotice />
      <FormErrors errors={answer ? [answer.error] : undefined} />
      <Form method="post" className="admin-card" noValidate>
        <label className="field">
          <span>每张月票所需消费（积分）</span>
          <input type="number" name="monthlyVoteCredits" min={1} step={1} inputMode="numeric" defaultValue={shown.monthlyVoteCredits} />
        </label>
        <p className="hint">读者每个自然月（北京时间）在作品上消费（订阅章节、购买全本、打赏）每满这么多积分得 1 张月票，月底清零。</p>
        <label className="field">
          <span>新账号注册满几天后才能投票（0 为不限）</span>
          <input type="number" name="minAccountDays" min={0} max={365} step={1} inputMode="numeric" defaultValue={shown.minAccountDays} />
        </label>
        <label className="field">
          <span>读者等级：每行一个，名称 空格 累计消费 空格 每日推荐票（第一级从 0 开始，累计消费逐级增大）</span>
          <textarea name="levels" rows={8} defaultValue={shown.levels} />
        </label>
        <p className="hint">累计消费是读者在作品上花的积分总数（自月票上线起计）；推荐票每天（北京时间）按等级发放，当天有效。</p>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
