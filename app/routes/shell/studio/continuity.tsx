import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData, useNavigation } from "react-router";
import { FindingsList } from "~/components/studio/continuity-panel";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { FormError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { continuityActionSchema } from "~/schemas/continuity";
import { AI_REVIEW_LABEL, CONTINUITY_MESSAGES, STATE_LIMITS } from "~/schemas/continuity-rules";
import { asRouteError, domainErrorOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { runContinuityAction } from "~/server/studio/continuity-actions.server";
import { workFindings } from "~/server/studio/continuity.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/continuity";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `连续性检查《${data?.work.title ?? ""}》 - 砚台` }];

/** The work's continuity findings (open or 有意安排), its 境界 ladder and the story's time (docs/decisions/247). */
export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const show = url.searchParams.get("show") === "waived" ? "waived" : "open";
  const [view, flash] = await Promise.all([workFindings(user.id, Number(params.id), show, parsePage(url.searchParams.get("page"))).catch(asRouteError), takeFlash(request, url)]);
  return data({ ...view, show, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: continuityActionSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    const message = errors.intent || errors[""] ? CONTINUITY_MESSAGES.unknownAction : (Object.values(errors).flat().find(Boolean) ?? CONTINUITY_MESSAGES.unknownAction);
    return data({ error: message }, { status: 400 });
  }
  // The AI 审读 changes the balance, whose live update reloads the page's data and would
  // drop a form reply: its refusals travel as a notice on the redirect (decision 258).
  if (submission.value.intent === "ai-review") {
    try {
      const done = await runContinuityAction(user.id, workId, submission.value);
      return redirectWithFlash(request, done.to, { kind: "success", text: done.notice });
    } catch (error) {
      const known = domainErrorOf(error);
      if (!known) throw error;
      const to = submission.value.back === "chapter" && Number(submission.value.chapterId) > 0 ? `/works/${workId}/chapters/${Number(submission.value.chapterId)}#continuity` : `/works/${workId}/continuity#ai-review`;
      return redirectWithFlash(request, to, { kind: "error", text: known.message });
    }
  }
  return replyOnDomainError(
    async () => {
      const done = await runContinuityAction(user.id, workId, submission.value);
      return redirectWithFlash(request, done.to, { kind: "success", text: done.notice });
    },
    (error) => ({ error: error.message }),
  );
}

export default function Continuity({ actionData }: Route.ComponentProps) {
  const { work, show, counts, findings, page, pageCount, ladder, times, notice } = useLoaderData<typeof loader>();
  const base = `/works/${work.id}/continuity`;
  const reviewing = useNavigation().formData?.get("intent") === "ai-review";
  return (
    <section className="studio-page bible-page">
      <StudioNav workId={work.id} title={work.title} current="continuity" />
      <FlashMessage notice={notice} />
      <FormError errors={actionData?.error} className="notice notice-error" />
      <p className="muted">保存和发布章节时，会按故事设定里的状态记录（生死、境界、位置、物品、年龄）和故事时间检查正文，列出前后矛盾的地方。</p>
      <nav className="bible-tabs" aria-label="检查结果">
        <Link to={base} className={show === "open" ? "btn btn-primary" : "btn"} aria-current={show === "open" ? "page" : undefined}>
          待处理 {counts.open}
        </Link>
        <Link to={`${base}?show=waived`} className={show === "waived" ? "btn btn-primary" : "btn"} aria-current={show === "waived" ? "page" : undefined}>
          有意安排 {counts.waived}
        </Link>
      </nav>
      <h2>{show === "open" ? "待处理的问题" : "已标为有意安排"}</h2>
      {findings.length === 0 ? <p className="empty-state">{show === "open" ? "没有待处理的问题。" : "没有标为有意安排的问题。"}</p> : null}
      <FindingsList workId={work.id} findings={findings} back="work" showChapter />
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `${base}?${show === "waived" ? "show=waived&" : ""}page=${p}`} />

      <h2 id="ai-review">{AI_REVIEW_LABEL}</h2>
      <Form method="post" className="studio-card panel-form">
        <p className="muted">请AI通读一章，对照状态记录找出规则查不到的矛盾。结果标有「{AI_REVIEW_LABEL}」，可以同样标为有意安排；再次审读会替换这一章之前的AI结果。按实际用量扣Tokens，AI返回无法识别时全额退还。</p>
        <label className="field bible-chapter">
          <span>审读第几章（已发布的章节）</span>
          <input type="number" name="chapter" min={1} inputMode="numeric" required />
        </label>
        <button type="submit" name="intent" value="ai-review" className="btn" disabled={reviewing}>
          {reviewing ? "审读中..." : "请AI审读"}
        </button>
      </Form>

      <h2 id="ladder">境界阶梯</h2>
      <Form method="post" className="studio-card studio-form">
        <label className="field">
          <span>从低到高，每行一级（也可用“→”或顿号分隔）</span>
          <textarea name="ladder" rows={4} defaultValue={ladder.join("\n")} placeholder={"炼气\n筑基\n金丹\n元婴"} />
        </label>
        <button type="submit" name="intent" value="ladder-save" className="btn btn-primary">保存阶梯</button>
      </Form>

      <h2 id="time">故事时间</h2>
      {times.length ? (
        <ul className="bible-facts">
          {times.map((t) => (
            <li key={t.id}>
              <span className="chapter-state">第{t.chapter}章起</span> {t.value ? `${t.value}（第${t.num}年）` : `第${t.num}年`}
              <Form method="post" className="inline-form">
                <input type="hidden" name="id" value={t.id} />
                <button type="submit" name="intent" value="time-delete" className="btn btn-danger">删除</button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">还没有记录故事时间。记下每段故事发生在第几年，年龄前后不合时就会提示。</p>
      )}
      <Form method="post" className="studio-card panel-form">
        <div className="bible-row">
          <label className="field bible-chapter">
            <span>从第几章起</span>
            <input type="number" name="chapter" min={1} inputMode="numeric" required />
          </label>
          <label className="field bible-chapter">
            <span>故事第几年</span>
            <input type="number" name="num" min={0} inputMode="numeric" required />
          </label>
        </div>
        <label className="field">
          <span>书中的叫法（可选）</span>
          <input type="text" name="value" maxLength={STATE_LIMITS.value} placeholder="例如：天元三年" />
        </label>
        <button type="submit" name="intent" value="time-save" className="btn">记录故事时间</button>
      </Form>
    </section>
  );
}
