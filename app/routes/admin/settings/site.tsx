import { parseWithZod } from "@conform-to/zod/v4";
import { phonePolicySchema } from "~/schemas/phone";
import { phoneRequiredToComment, savePhonePolicy } from "~/server/identity/phone-verification.server";
import { data, Form, redirect } from "react-router";
import { FieldErrors, FormErrors, SingleSettingPage } from "~/components/admin/ui";
import { SubmitButton } from "~/components/ui/submit-button";
import { SITE_TITLE_MAX, siteTitleSchema } from "~/schemas/admin-accounts";
import { FILING_NUMBER_MAX, filingNumbersSchema } from "~/schemas/front-page";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { saveSiteSettings } from "~/server/admin/site-settings.server";
import { readForm } from "~/server/platform/form-data.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import type { Route } from "./+types/site";
import { orRouteError } from "~/server/platform/errors.server";

export const meta: Route.MetaFunction = () => [{ title: "站点名称 - 管理后台" }];

export async function loader() {
  const [config, phoneRequired] = await Promise.all([getSiteConfig(["site_title", "icp_number", "police_filing_number"] as const), phoneRequiredToComment()]);
  return {
    title: config.site_title,
    icp: config.icp_number,
    police: config.police_filing_number,
    phoneRequired,
    smsProvider: Boolean(process.env.SMS_URL?.trim()),
  };
}

/**
 * The site's name (site_title), a setting that had no screen (docs/product.md#back-office),
 * the 备案信息 shown in every page's footer (`intent` filing, docs/product.md#front-page), and
 * 评论实名, a bound phone before comments and reviews (`intent` phone, decision 235).
 */
export async function action({ request, context }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const form = await readForm(request);
    if (form.get("intent") === "phone") {
      const submission = parseWithZod(form, { schema: phonePolicySchema });
      if (submission.status !== "success") return data({ filing: submission.reply() }, { status: 400 });
      await savePhonePolicy(adminActorOf(context), submission.value.required);
      return redirect("/admin/settings/site?notice=saved");
    }
    if (form.get("intent") === "filing") {
      const submission = parseWithZod(form, { schema: filingNumbersSchema });
      if (submission.status !== "success") return data({ filing: submission.reply() }, { status: 400 });
      const { icp, police } = submission.value;
      await saveSiteSettings(adminActorOf(context), "settings.filing", { icp_number: icp, police_filing_number: police });
      return redirect("/admin/settings/site?notice=saved");
    }
    const submission = parseWithZod(form, { schema: siteTitleSchema });
    if (submission.status !== "success") return data(submission.reply(), { status: 400 });
    await saveSiteSettings(adminActorOf(context), "settings.site", { site_title: submission.value.title });
    return redirect("/admin/settings/site?notice=saved");
  });
}

export default function SiteSettings({ loaderData, actionData }: Route.ComponentProps) {
  const filing = actionData && "filing" in actionData ? actionData.filing.error : undefined;
  const title = actionData && !("filing" in actionData) ? actionData.error : undefined;
  return (
    <>
      <SingleSettingPage
        heading="站点名称"
        label="显示在导航栏和邮件中的站点名称"
        name="title"
        value={loaderData.title}
        maxLength={SITE_TITLE_MAX}
        hint="浏览器标签页上的图标在“站点图标”中设置。"
        errors={title}
      />
      <section className="admin-page" aria-labelledby="filing-title">
        <h2 id="filing-title">备案信息</h2>
        <FormErrors errors={filing?.[""] ?? undefined} />
        <Form method="post" className="admin-card">
          <input type="hidden" name="intent" value="filing" />
          <label className="field">
            <span>ICP备案号</span>
            <input
              type="text"
              name="icp"
              defaultValue={loaderData.icp}
              maxLength={FILING_NUMBER_MAX}
              placeholder="如：京ICP备12345678号-1"
              aria-invalid={filing?.icp ? true : undefined}
              aria-describedby={filing?.icp ? "icp-error" : undefined}
            />
            <FieldErrors id="icp-error" errors={filing?.icp ?? undefined} />
          </label>
          <label className="field">
            <span>公安联网备案号</span>
            <input
              type="text"
              name="police"
              defaultValue={loaderData.police}
              maxLength={FILING_NUMBER_MAX}
              placeholder="如：京公网安备11010502000001号"
              aria-invalid={filing?.police ? true : undefined}
              aria-describedby={filing?.police ? "police-error" : undefined}
            />
            <FieldErrors id="police-error" errors={filing?.police ?? undefined} />
          </label>
          <p className="hint">显示在每个页面的页脚；留空则不显示。公安联网备案号链接到全国互联网安全管理服务平台的查询页。</p>
          <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
            保存备案信息
          </SubmitButton>
        </Form>
      </section>
      <section className="admin-page" aria-labelledby="phone-title">
        <h2 id="phone-title">评论实名</h2>
        <Form method="post" className="admin-card">
          <input type="hidden" name="intent" value="phone" />
          <label className="checkbox">
            <input type="checkbox" name="required" defaultChecked={loaderData.phoneRequired} />
            发表本章说、段评、回复、书评和打赏留言前须绑定手机号（后台实名）
          </label>
          <p className="hint" data-testid="sms-transport">
            {loaderData.smsProvider
              ? "验证码通过 SMS_URL 配置的短信服务发送。"
              : "服务器未配置 SMS_URL：验证码不会发到用户手机，而是写入服务器的 DATA_DIR/outbox/sms/ 目录（日志中有文件位置）。"}
          </p>
          <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
            保存评论实名
          </SubmitButton>
        </Form>
      </section>
    </>
  );
}
