import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useNavigation } from "react-router";
import { AdminErrorBox, FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { descriptionSchema, SITE_DESCRIPTION_MAX } from "~/schemas/admin";
import { adminActorOf } from "~/server/admin/audit.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/form-data.server";
import { getSiteConfigValue } from "~/server/site-config.server";
import type { Route } from "./+types/description";

export const meta: Route.MetaFunction = () => [{ title: "站点简介 - 管理后台" }];

export async function loader() {
  return { description: await getSiteConfigValue("site_description") };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: descriptionSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  await saveSiteSettings(adminActorOf(context), "settings.description", { site_description: submission.value.description });
  return redirect("/admin/settings/description?notice=saved");
}

export default function DescriptionSettings({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const errors = actionData?.error;
  return (
    <section className="admin-page">
      <h1>站点简介</h1>
      <QueryNotice />
      <FormErrors errors={errors?.[""] ?? undefined} />
      <Form method="post" className="admin-card">
        <label className="field">
          <span>首页展示的站点简介</span>
          <textarea
            name="description"
            rows={10}
            defaultValue={loaderData.description}
            maxLength={SITE_DESCRIPTION_MAX}
            aria-invalid={errors?.description ? true : undefined}
            aria-describedby={errors?.description ? "description-error" : undefined}
          />
          <FieldErrors id="description-error" errors={errors?.description ?? undefined} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={navigation.state === "submitting"}>
          {navigation.state === "submitting" ? "保存中..." : "保存"}
        </button>
      </Form>
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
