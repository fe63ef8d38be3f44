import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { SingleSettingPage } from "~/components/admin/ui";
import { descriptionSchema, SITE_DESCRIPTION_MAX } from "~/schemas/admin";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import type { Route } from "./+types/description";
import { orRouteError } from "~/server/platform/errors.server";

export const meta: Route.MetaFunction = () => [{ title: "站点简介 - 管理后台" }];

export async function loader() {
  return { description: await getSiteConfigValue("site_description") };
}

export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const submission = parseWithZod(await readForm(request), { schema: descriptionSchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    await saveSiteSettings(adminActorOf(context), "settings.description", { site_description: submission.value.description });
    return redirect("/admin/settings/description?notice=saved");
  });
}

export default function DescriptionSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <SingleSettingPage
      heading="站点简介"
      label="首页展示的站点简介"
      name="description"
      value={loaderData.description}
      maxLength={SITE_DESCRIPTION_MAX}
      rows={10}
      errors={actionData?.error}
    />
  );
}
