import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { AdminErrorBox, SingleSettingPage } from "~/components/admin/ui";
import { SITE_TITLE_MAX, siteTitleSchema } from "~/schemas/admin-accounts";
import { adminActorOf } from "~/server/platform/audit.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/site";
import { orRouteError } from "~/server/platform/errors.server";

export const meta: Route.MetaFunction = () => [{ title: "站点名称 - 管理后台" }];

export async function loader() {
  return { title: await getSiteConfigValue("site_title") };
}

/** The site's name (site_title), a setting that had no screen (docs/product.md#back-office). */
export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const submission = parseWithZod(await readForm(request), { schema: siteTitleSchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    await saveSiteSettings(adminActorOf(context), "settings.site", { site_title: submission.value.title });
    return redirect("/admin/settings/site?notice=saved");
  });
}

export default function SiteSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <SingleSettingPage
      heading="站点名称"
      label="显示在导航栏和邮件中的站点名称"
      name="title"
      value={loaderData.title}
      maxLength={SITE_TITLE_MAX}
      hint="浏览器标签页上的图标在“站点图标”中设置。"
      errors={actionData?.error}
    />
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
