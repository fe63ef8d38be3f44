import { data, Form, redirect } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { SubmitButton } from "~/components/ui/submit-button";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { formatFanLevels, getFanLevels, saveFanLevels } from "~/server/community/fans.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { fanLevelsFormSchema } from "~/schemas/tips";
import type { Route } from "./+types/fans";

/**
 * 粉丝等级 (docs/product.md#tips-and-fans, decision 207): the levels' names and the 粉丝值 each
 * starts at, one level a line, lowest first from 0. Saved whole or not at all; audited.
 */
export const meta: Route.MetaFunction = () => [{ title: "粉丝等级 - 管理后台" }];

export async function loader() {
  return { levels: formatFanLevels(await getFanLevels()) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: fanLevelsFormSchema });
  if (submission.status !== "success") return data({ error: "未知操作", levels: "" }, { status: 400 });
  return replyOnDomainError(
    async () => {
      await saveFanLevels(adminActorOf(context), submission.value.levels);
      return redirect("/admin/settings/fans?notice=saved");
    },
    (error) => ({ error: error.message, levels: submission.value.levels }),
  );
}

export default function FanLevelSettings({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as { error: string; levels: string } | undefined;
  return (
    <section className="admin-page">
      <h1>粉丝等级</h1>
      <QueryNotice />
      <FormErrors errors={answer ? [answer.error] : undefined} />
      <Form method="post" className="admin-card" noValidate>
        <label className="field">
          <span>每行一个等级：名称 空格 起始粉丝值（第一级从 0 开始，逐级增大）</span>
          <textarea name="levels" rows={12} defaultValue={answer?.levels || loaderData.levels} aria-invalid={Boolean(answer)} />
        </label>
        <p className="hint">读者在一部作品上每花 1 积分（打赏、订阅章节、购买全本）得 1 点粉丝值；等级显示在粉丝榜和他在这部作品下的评论旁。</p>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </Form>
    </section>
  );
}
