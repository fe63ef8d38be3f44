import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect } from "react-router";
import { userContext } from "~/middleware/guards.server";
import { typoReportSchema } from "~/schemas/typo-reports";
import { TYPO_MESSAGES } from "~/schemas/typo-report-rules";
import { reportTypo } from "~/server/community/typo-reports.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/typo";

/**
 * 错别字 (docs/product.md#typo-reports, decision 234): the form under a chapter posts here.
 * Without JavaScript a success goes back to the chapter with a notice, and a refusal is
 * this page with the message (and its status); the page's fetcher gets the answer as data.
 */
export const meta: Route.MetaFunction = () => [{ title: "报告错别字 - 砚台" }];

export function loader({ params }: Route.LoaderArgs) {
  return redirect(`/works/${Number(params.id) || ""}`);
}

interface TypoAnswer {
  ok?: boolean;
  error?: string;
  field?: string | null;
  back?: string;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const workId = Number(params.id);
  const back = safeRedirectPath(form.get("back"), `/works/${workId}`, (path) => path === `/works/${workId}`);
  const submission = parseWithZod(form, { schema: typoReportSchema });
  if (submission.status !== "success") return data<TypoAnswer>({ error: "请求无效", back }, { status: 400 });
  const { chapterId, sentence, suggestion, enhanced } = submission.value;
  return replyOnDomainError(
    async () => {
      await reportTypo(user, { workId, chapterId, sentence, suggestion });
      if (enhanced) return data<TypoAnswer>({ ok: true });
      return redirectWithFlash(request, back, { kind: "success", text: TYPO_MESSAGES.sent });
    },
    (error): TypoAnswer => ({ error: error.message, field: error.field ?? null, back }),
  );
}

export default function TypoRefused({ actionData }: Route.ComponentProps) {
  const answer = actionData as TypoAnswer | undefined;
  return (
    <section className="settings-page">
      <h1>报告错别字</h1>
      {answer?.error ? (
        <p className="notice notice-error" role="alert">
          {answer.error}
        </p>
      ) : null}
      <p>
        <Link to={answer?.back ?? "/"}>返回章节</Link>
      </p>
    </section>
  );
}
