import { data, Form, Link, redirect, useLoaderData } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { tipById, tipPage, tipWork } from "~/server/economy/tips.server";
import { parseChapterOrder } from "~/server/reading/reader.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { TIP_MESSAGE_MAX_CHARS, TIP_PRESETS, tipFormSchema } from "~/schemas/tips";
import type { Route } from "./+types/tip";

/**
 * 打赏 (docs/product.md#tips-and-fans, decision 207): a preset amount or a custom one and
 * an optional message, from a chapter's end (`?chapter=N`: the notice goes to its 本章说)
 * or from the work page. A plain form: the same form sent twice tips once (decision 077).
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `打赏《${data.work.title}》 - 砚台` : "打赏 - 砚台" }];

export const handle = { creates: ["tip"] };

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  const page = await orRouteError(() => tipPage(user, Number(params.id), order));
  return { ...page, formToken: newFormToken() };
}

interface TipAnswer {
  field: string | null;
  error: string;
}

export async function action({ request, url, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const workId = Number(params.id);
  const order = parseChapterOrder(url.searchParams.get("chapter"));
  const submission = parseWithZod(form, { schema: tipFormSchema });
  if (submission.status !== "success") return data<TipAnswer>({ field: null, error: "请求无效" }, { status: 400 });
  const { amount, customAmount, message } = submission.value;
  return replyOnDomainError(
    async () => {
      const result = await oncePerFormToken(
        user.id,
        "tip",
        formTokenOf(form),
        async (record) => {
          const tip = await tipWork(user, { workId, chapterOrder: order, amount: amount === "custom" ? customAmount : amount, message }, record);
          return { amount: tip.amount, noticeOrder: tip.noticeOrder };
        },
        async (resultId) => ({ amount: (await tipById(user.id, Number(resultId))).amount, noticeOrder: order }),
      );
      if (result.noticeOrder !== null) return redirect(`/works/${workId}/comments?chapter=${result.noticeOrder}&posted=tip`);
      return redirectWithFlash(request, `/works/${workId}`, { kind: "success", text: `打赏成功：${result.amount} 积分，感谢你的支持！` });
    },
    (error): TipAnswer => ({ field: error.field ?? null, error: error.message }),
  );
}

export default function TipPage({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const answer = actionData as TipAnswer | undefined;
  const back = page.chapterOrder !== null ? `/works/${page.work.id}?chapter=${page.chapterOrder}` : `/works/${page.work.id}`;
  const fieldError = (name: string) => (answer && (answer.field === name || (name === "form" && !["amount", "message"].includes(answer.field ?? ""))) ? answer.error : undefined);
  return (
    <section className="tip-page">
      <p className="reader-breadcrumb">
        <Link to={back}>{page.work.title}</Link>
      </p>
      <h1>打赏《{page.work.title}》</h1>
      <p className="muted">
        作者：{page.work.authorNickname} · 我的积分：<strong data-testid="tip-balance">{page.balance}</strong>
        {page.fan ? ` · 我的粉丝值 ${page.fan.fanValue}（${page.fan.level}）` : null}
      </p>
      <Form method="post" className="tip-box" aria-label="打赏">
        <FormTokenField token={page.formToken} />
        <fieldset className="tip-presets">
          <legend>打赏积分</legend>
          {TIP_PRESETS.map((n, i) => (
            <label key={n}>
              <input type="radio" name="amount" value={n} defaultChecked={i === 1} /> {n}
            </label>
          ))}
          <label>
            <input type="radio" name="amount" value="custom" /> 自定义
          </label>
        </fieldset>
        <label className="field">
          <span>自定义积分（选“自定义”时填写，不小于 1 的整数）</span>
          <input type="number" name="customAmount" min={1} step={1} inputMode="numeric" />
        </label>
        <FieldError errors={fieldError("amount")} alert as="p" />
        <label className="field">
          <span>留言（选填，{page.chapterOrder !== null ? "会显示在本章说中，" : ""}最多 {TIP_MESSAGE_MAX_CHARS} 字）</span>
          <input type="text" name="message" maxLength={TIP_MESSAGE_MAX_CHARS} disabled={page.muted} placeholder={page.muted ? "作者已禁止你在这部作品下发表评论" : "说点什么"} />
        </label>
        <FieldError errors={fieldError("message")} alert as="p" />
        <FieldError errors={fieldError("form")} alert as="p" />
        {answer?.error === "积分余额不足" ? (
          <p>
            <Link to={`/credits?redirectTo=${encodeURIComponent(`/works/${page.work.id}/tip${page.chapterOrder !== null ? `?chapter=${page.chapterOrder}` : ""}`)}`}>去充值</Link>
          </p>
        ) : null}
        <div className="form-actions">
          <SubmitButton className="btn btn-primary" pendingLabel="打赏中...">
            确认打赏
          </SubmitButton>
          <Link to={back} className="btn">
            返回
          </Link>
        </div>
      </Form>
    </section>
  );
}
