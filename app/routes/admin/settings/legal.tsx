import { parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { data, Form, redirect, useFetcher } from "react-router";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { legalSchema } from "~/schemas/admin";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { legalTextHtml } from "~/server/platform/sanitize.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/legal";
import { orRouteError } from "~/server/platform/errors.server";
import { SubmitButton } from "~/components/ui/submit-button";

const PAGES = {
  terms: { key: "terms_content", title: "用户协议", path: "/admin/settings/terms" },
  privacy: { key: "privacy_content", title: "隐私政策", path: "/admin/settings/privacy" },
} as const;

function pageOf(url: URL) {
  return url.pathname.endsWith("/privacy") ? PAGES.privacy : PAGES.terms;
}

export const meta: Route.MetaFunction = ({ location }) => [
  { title: `${location.pathname.endsWith("/privacy") ? "隐私政策" : "用户协议"} - 管理后台` },
];

export async function loader({ request, url }: Route.LoaderArgs) {
  const page = pageOf(url);
  const content = await getSiteConfigValue(page.key);
  return { title: page.title, path: page.path, content, preview: legalTextHtml(content) };
}

/**
 * Save, or preview: the preview is the text as the public page will show it (sanitized
 * on the server, the same function the public page uses), without saving.
 */
export async function action({ request, url, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const page = pageOf(url);
    const form = await readForm(request);
    const submission = parseWithZod(form, { schema: legalSchema });
    if (submission.status !== "success") return data({ result: submission.reply(), preview: null }, { status: 400 });
    if (submission.value.intent === "preview") {
      return { result: submission.reply(), preview: legalTextHtml(submission.value.content) };
    }
    await saveSiteSettings(adminActorOf(context), `settings.${page.key === "terms_content" ? "terms" : "privacy"}`, { [page.key]: submission.value.content });
    return redirect(`${page.path}?notice=saved`);
  });
}

export default function LegalSettings({ loaderData, actionData }: Route.ComponentProps) {
  const previewer = useFetcher<typeof action>();
  const [text, setText] = useState(loaderData.content);
  const errors = actionData?.result.error;
  const preview = previewer.data?.preview ?? actionData?.preview ?? loaderData.preview;
  const submitted = (actionData?.result.initialValue?.content as string | undefined) ?? undefined;
  return (
    <section className="admin-page">
      <h1>{loaderData.title}</h1>
      <QueryNotice />
      <FormErrors errors={errors?.[""] ?? undefined} />
      <div className="admin-legal">
        <Form method="post" className="admin-card" key={loaderData.path}>
          <label className="field">
            <span>内容（HTML）</span>
            <textarea
              name="content"
              rows={20}
              aria-invalid={errors?.content ? true : undefined}
              aria-describedby={errors?.content ? "legal-content-error" : undefined}
              defaultValue={submitted ?? loaderData.content}
              onChange={(e) => setText(e.currentTarget.value)}
            />
            <FieldErrors id="legal-content-error" errors={errors?.content ?? undefined} />
          </label>
          <div className="admin-dialog-actions admin-left">
            <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
              保存
            </SubmitButton>
            <button
              type="submit"
              name="intent"
              value="preview"
              className="btn"
              onClick={(event) => {
                // With JavaScript: preview in place without leaving the page.
                event.preventDefault();
                previewer.submit({ intent: "preview", content: text }, { method: "post", action: loaderData.path });
              }}
            >
              {previewer.state !== "idle" ? "生成预览..." : "预览"}
            </button>
          </div>
        </Form>
        <div className="admin-card">
          <h2>预览</h2>
          <div className="prose admin-preview" data-testid="legal-preview" dangerouslySetInnerHTML={{ __html: preview }} />
        </div>
      </div>
    </section>
  );
}
