import { parseWithZod } from "@conform-to/zod/v4";
import type { ReactNode } from "react";
import { data, Link, useLoaderData } from "react-router";
import { DisplayToggle } from "~/components/settings/display-toggle";
import { FlashMessage } from "~/components/ui/flash-message";
import { displayPreferenceSchema, SETTINGS_MESSAGES } from "~/schemas/settings";
import { asRouteError, domainErrorOf } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { getAccountSettings, setDisplayPreference } from "~/server/identity/profile.server";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = () => [{ title: "设置 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const tab = url.searchParams.get("tab") === "display" ? "display" : "profile";
  const [settings, flash] = await Promise.all([getAccountSettings(user.id).catch(asRouteError), takeFlash(request, url)]);
  return data(
    { tab, settings, notice: flash.notice },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

/** 浏览与显示: each toggle posts here. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: displayPreferenceSchema });
  if (submission.status !== "success") {
    return redirectWithFlash(request, "/settings?tab=display", { kind: "error", text: SETTINGS_MESSAGES.saveFailed });
  }
  const { preference, value, adultConfirmed } = submission.value;
  try {
    await setDisplayPreference(user.id, preference, value, { adultConfirmed });
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    return redirectWithFlash(request, "/settings?tab=display", { kind: "error", text: known.message });
  }
  return redirectWithFlash(request, "/settings?tab=display", { kind: "success", text: "设置已保存" });
}

function Row({ to, label, value, testId }: { to?: string; label: string; value: ReactNode; testId?: string }) {
  const inner = (
    <>
      <span className="settings-row-label">{label}</span>
      <span className="settings-row-value" data-testid={testId}>{value}</span>
      {to ? <span className="settings-row-arrow" aria-hidden="true">›</span> : null}
    </>
  );
  return to ? (
    <Link to={to} className="settings-row settings-link">
      {inner}
    </Link>
  ) : (
    <div className="settings-row">{inner}</div>
  );
}

export default function Settings() {
  const { tab, settings, notice } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page">
      <h1>设置</h1>
      <FlashMessage notice={notice} />
      <nav className="tabs" aria-label="设置分类">
        <Link to="/settings" className={tab === "profile" ? "tab active" : "tab"} aria-current={tab === "profile" ? "page" : undefined}>
          用户资料
        </Link>
        <Link to="/settings?tab=display" className={tab === "display" ? "tab active" : "tab"} aria-current={tab === "display" ? "page" : undefined}>
          浏览与显示
        </Link>
      </nav>
      {tab === "profile" ? (
        <div className="settings-card">
          <Row
            to="/settings/avatar"
            label="头像"
            value={
              settings.avatarUrl ? (
                <img src={settings.avatarUrl} alt="当前头像" className="avatar avatar-large" />
              ) : (
                <span className="avatar avatar-large avatar-letter">{Array.from(settings.nickname)[0] ?? "我"}</span>
              )
            }
          />
          <Row to="/settings/nickname" label="昵称" value={settings.nickname} testId="settings-nickname" />
          <Row label="邮箱" value={settings.email} testId="settings-email" />
          <Row to="/settings/pixiv-id" label="pixiv ID" value={settings.pixivId ?? <span className="muted">未设置</span>} testId="settings-pixiv-id" />
          <Row to="/settings/phone" label="手机号" value={settings.phone ?? <span className="muted">未绑定</span>} testId="settings-phone" />
          <Row to="/settings/password" label="密码" value={<span className="muted">修改密码</span>} />
          <Row to="/settings/opds" label="阅读App" value={<span className="muted">OPDS 书库令牌</span>} />
          <Row to="/settings/identity" label="实名认证" value={<span className="muted">开通 VIP 章节、提现前需认证</span>} />
          <Row to="/settings/minor-mode" label="青少年模式" value={<span className="muted">不显示 R-18，限制消费</span>} />
          {/* A file, not a page: a plain link, so the browser downloads it (decision 231). */}
          <a href="/exports/my-data.zip" className="settings-row settings-link" download>
            <span className="settings-row-label">导出我的数据</span>
            <span className="settings-row-value muted">资料、作品、评论、购买与收入记录（zip）</span>
            <span className="settings-row-arrow" aria-hidden="true">›</span>
          </a>
          <Row to="/settings/delete-account" label="注销账号" value={<span className="muted">15 天冷静期内可撤销</span>} />
        </div>
      ) : (
        <div className="settings-card">
          <DisplayToggle
            preference="showR18"
            label="显示 R-18 内容"
            hint="开启后，作品列表和搜索结果中会显示 R-18 分级的作品。"
            checked={settings.showR18}
            confirmAdult
          />
          <DisplayToggle
            preference="showAi"
            label="显示 AI 创作的内容"
            hint="关闭后，作品列表和搜索结果中不再显示标注为 AI 生成的作品。"
            checked={settings.showAi}
          />
          <Row to="/settings/blocks" label="屏蔽" value={<span className="muted">屏蔽的作者和标签</span>} />
        </div>
      )}
    </section>
  );
}
