import { data, Outlet, useLoaderData } from "react-router";
import { AuthDialog, type AuthMode } from "~/components/auth-dialog";
import { useLiveUpdates } from "~/components/library/use-live-updates";
import { useLiveCommentsTarget } from "~/components/comments/live-comments";
import { useNavDrawer } from "~/components/shell/nav-drawer";
import { Sidebar } from "~/components/shell/sidebar";
import { TopBar } from "~/components/shell/top-bar";
import { PASSWORD_RESET_MESSAGES } from "~/schemas/password-reset-rules";
import { authEmailCookie, offlineCacheKey } from "~/server/platform/cookies.server";
import { readerSettingsFor } from "~/server/reading/reader-settings.server";
import { getSessionUser } from "~/server/identity/session.server";
import { getDisplayConfig } from "~/server/platform/site-config.server";
import { safeRedirectPath } from "~/utils/redirect";
import { FilingLinks } from "~/components/shell/filing-links";
import { filingInfo } from "~/utils/filing";
import { formatShanghai } from "~/utils/shanghai-time";
import { DeletionBanner } from "~/components/shell/deletion-banner";
import { useServiceWorker } from "~/components/shell/service-worker";
import type { Route } from "./+types/layout";

export async function loader({ request, url }: Route.LoaderArgs) {
  // When this page's data is read: its live stream asks for what changed since (decision 145).
  const loadedAt = Date.now();
  const [user, site] = await Promise.all([
    getSessionUser(request),
    getDisplayConfig(["site_title", "logo_url", "site_icon", "icp_number", "police_filing_number"] as const),
  ]);
  const authParam = url.searchParams.get("auth");
  const auth: AuthMode | null =
    !user && (authParam === "login" || authParam === "register") ? authParam : null;
  const prefillEmail = auth === "login" ? await authEmailCookie.parse(request.headers.get("Cookie")) : null;
  // The bell's count (docs/product.md#notifications), read with the session, live through
  // the events stream.
  const unread = user?.unread ?? 0;
  return data({
    // The reader's settings, put on the document by app/root.tsx (decision 106).
    reader: await readerSettingsFor(request, user),
    user: user && {
      id: user.id,
      email: user.email,
      nickname: user.nickname,
      avatarUrl: user.avatarUrl,
      tokens: user.tokens,
      credits: user.credits,
      unread,
      // 注销 cool-off: the banner on every page (decision 231).
      deletionDueAt: user.deletionDueAt ? formatShanghai(user.deletionDueAt) : null,
    },
    site: { title: site.site_title || "砚台", logoUrl: site.logo_url, iconUrl: site.site_icon },
    filing: filingInfo(site.icp_number, site.police_filing_number),
    loadedAt,
    // Whose kept chapters this device may hold (decision 244): the service worker deletes the rest.
    offlineKey: user ? offlineCacheKey(user.id) : null,
    auth: auth && {
      mode: auth,
      redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")),
      notice: url.searchParams.get("reset") === "1" ? PASSWORD_RESET_MESSAGES.resetDone : null,
      prefillEmail: typeof prefillEmail === "string" ? prefillEmail : "",
    },
  });
}

export default function ShellLayout() {
  const { user, site, auth, loadedAt, filing, offlineKey } = useLoaderData<typeof loader>();
  useServiceWorker(offlineKey);
  // docs/product.md D9: branding, terms and privacy for everyone; the balance in the top bar,
  // /credits, /following and /purchased for a signed-in user.
  // On a chapter or a thread, also its comments (decision 101).
  useLiveUpdates(Boolean(user), useLiveCommentsTarget(), loadedAt);
  const drawer = useNavDrawer();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        跳到正文
      </a>
      {drawer.toggle}
      <Sidebar site={site} signedIn={Boolean(user)} open={drawer.open} onNavigate={drawer.close} />
      {drawer.backdrop}
      <div className="shell-main">
        <TopBar user={user} siteTitle={site.title} menuButton={drawer.button} />
        <main id="main" tabIndex={-1} className="content">
          {user?.deletionDueAt ? <DeletionBanner dueAt={user.deletionDueAt} /> : null}
          <Outlet />
        </main>
        <footer className="site-footer">
          <a href="/terms">用户协议</a>
          <a href="/privacy">隐私政策</a>
          <a href="/refund">退款政策</a>
          <FilingLinks filing={filing} />
        </footer>
      </div>
      {auth ? (
        <AuthDialog mode={auth.mode} redirectTo={auth.redirectTo} notice={auth.notice} prefillEmail={auth.prefillEmail} />
      ) : null}
    </div>
  );
}

