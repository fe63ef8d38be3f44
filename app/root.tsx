import { useEffect } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
} from "react-router";
import { useAppLinkNavigation } from "~/components/ui/app-link";
import { DEFAULT_READER_SETTINGS, readerSettingsAttributes, type ReaderSettings } from "~/schemas/reader-settings-rules";
import { sameOriginWriteMiddleware } from "~/server/platform/csrf.server";
import { replicaReadsMiddleware } from "~/server/platform/replica-reads.server";
import { checkQueryMiddleware, lastResortMiddleware, nameRouteMiddleware } from "~/server/platform/request.server";
import type { Route } from "./+types/root";
import "./styles/app.css";

/**
 * Every request's route is named for its log line and metrics, its query string is
 * checked once, here, a resource route's crash is answered in Chinese
 * (docs/architecture.md#forms-and-errors), a write with a cookie must come from this
 * site's pages (docs/decisions/165), and with read replicas a GET's replica-eligible reads
 * may go to one while a person's own writes are replayed there (docs/decisions/265).
 */
export const middleware: Route.MiddlewareFunction[] = [nameRouteMiddleware, lastResortMiddleware, checkQueryMiddleware, sameOriginWriteMiddleware, replicaReadsMiddleware];


export function Layout({ children }: { children: React.ReactNode }) {
  // <Scripts/> and <ScrollRestoration/> take the page's CSP nonce from React Router's
  // context (app/entry.server.tsx); the page has no other inline script.
  // The reader's settings (background = the colour theme, and the text's size, leading and
  // width) are rendered on the document by the server, so they apply before the first
  // paint for visitors (their cookie) and signed-in readers (their profile) alike
  // (decision 106). Pages outside the shell (the back office) keep the defaults.
  const shell = useRouteLoaderData("routes/shell/layout") as { reader?: ReaderSettings; site?: { iconUrl?: string } } | undefined;
  // Marks the document once React has hydrated it, an error page too (tests wait for this
  // before clicking).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <html lang="zh-CN" {...readerSettingsAttributes(shell?.reader ?? DEFAULT_READER_SETTINGS)}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
        {/* The site icon an administrator uploaded (站点图标), else the bundled one. */}
        <link rel="icon" href={shell?.site?.iconUrl || "/favicon.ico"} />
        {/* On the home screen (decision 244): the manifest for Android, the icon and title for iOS. */}
        <link rel="manifest" href="/manifest.webmanifest" />
        <meta name="theme-color" content="#a23b2c" />
        <link rel="apple-touch-icon" href="/icons/apple-touch-icon.png" />
        <meta name="apple-mobile-web-app-capable" content="yes" />
        <meta name="mobile-web-app-capable" content="yes" />
        <meta name="apple-mobile-web-app-title" content="砚台" />
        <meta name="apple-mobile-web-app-status-bar-style" content="default" />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  useAppLinkNavigation();
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  let title = "出错了";
  let detail = "页面加载失败，请稍后重试。";
  if (isRouteErrorResponse(error)) {
    if (error.status === 404) {
      title = "页面不存在";
      detail = typeof error.data === "string" && error.data ? error.data : "你访问的内容不存在或已被删除。";
    } else if (error.status === 403) {
      title = "没有权限";
      detail = typeof error.data === "string" && error.data ? error.data : "你没有权限查看这个页面。";
    } else if (error.status < 500 && typeof error.data === "string" && error.data) {
      detail = error.data;
    } else if (error.status === 503 && typeof error.data === "string" && error.data) {
      // A DomainError's 503 (存储空间不足: a full disk, docs/decisions/169) says what happened.
      title = "暂时无法完成";
      detail = error.data;
    }
  }
  return (
    <main className="error-page">
      <h1>{title}</h1>
      <p>{detail}</p>
      <a className="btn btn-primary" href="/">
        返回首页
      </a>
    </main>
  );
}
