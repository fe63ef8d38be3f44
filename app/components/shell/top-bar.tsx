import type { KeyboardEvent, ReactNode } from "react";
import { Form, useLocation } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { formatTokens } from "~/utils/format";
import { authHref } from "./auth-links";

interface TopBarUser {
  email: string;
  nickname: string;
  avatarUrl: string | null;
  tokens: number;
  credits: number;
  /** Unread notifications, counted up to 100 (shown as 99+). */
  unread: number;
}

/** The bell: a link to the inbox with the unread count (docs/product.md#notifications). */
function NotificationBell({ unread }: { unread: number }) {
  const shown = unread >= 100 ? "99+" : String(unread);
  return (
    <AppLink to="/notifications" className="bell" aria-label={unread > 0 ? `消息通知，${shown} 条未读` : "消息通知"} data-testid="bell">
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
        <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      </svg>
      {unread > 0 ? (
        <span className="bell-count" data-testid="bell-count">
          {shown}
        </span>
      ) : null}
    </AppLink>
  );
}

/** Escape closes the avatar menu (a <details>) and puts focus back on its summary. */
function closeOnEscape(event: KeyboardEvent<HTMLDetailsElement>) {
  const details = event.currentTarget;
  if (event.key !== "Escape" || !details.open) return;
  event.preventDefault();
  details.open = false;
  details.querySelector("summary")?.focus();
}

export function TopBar({
  user,
  siteTitle,
  menuButton,
}: {
  user: TopBarUser | null;
  siteTitle: string;
  /** The phone menu's button (components/shell/nav-drawer.tsx). */
  menuButton: ReactNode;
}) {
  const location = useLocation();
  return (
    <header className="top-bar">
      {menuButton}
      <a className="top-bar-title" href="/">
        {siteTitle}
      </a>
      <div className="top-bar-actions">
        {user ? (
          <>
            <AppLink to="/credits" className="balance" title="积分余额">
              <span className="balance-credits">
                积分 <strong data-testid="credits-balance">{user.credits}</strong>
              </span>
              <span className="balance-tokens" title={`${user.tokens} Tokens`}>
                Tokens {formatTokens(user.tokens)}
              </span>
            </AppLink>
            <NotificationBell unread={user.unread} />
            <details className="avatar-menu" onKeyDown={closeOnEscape}>
              {/* Named by the visible nickname (hidden visually on a phone), then what it is. */}
              <summary>
                {user.avatarUrl ? (
                  <img src={user.avatarUrl} alt="" className="avatar" />
                ) : (
                  <span className="avatar avatar-letter" aria-hidden="true">
                    {Array.from(user.nickname)[0] ?? "我"}
                  </span>
                )}
                <span className="avatar-name">{user.nickname}</span>
                <span className="sr-only">的账户菜单</span>
              </summary>
              <div className="menu">
                <div className="menu-email">{user.email}</div>
                <AppLink to="/settings">设置</AppLink>
                <Form method="post" action="/auth/logout" reloadDocument>
                  <button type="submit">退出登录</button>
                </Form>
              </div>
            </details>
          </>
        ) : (
          <>
            <AppLink className="btn btn-ghost" to={authHref(location, "register")}>
              注册
            </AppLink>
            <AppLink className="btn btn-primary" to={authHref(location, "login")}>
              登录
            </AppLink>
          </>
        )}
      </div>
    </header>
  );
}
