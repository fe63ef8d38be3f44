import { useEffect } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
} from "react-router";
import { useNonce } from "~/utils/nonce";
import { checkQueryMiddleware, lastResortMiddleware, nameRouteMiddleware } from "~/server/request.server";
import type { Route } from "./+types/root";
import "./styles/app.css";

/**
 * Every request's route is named for its log line and metrics, its query string is
 * checked once, here, and a resource route's crash is answered in Chinese
 * (docs/architecture.md#forms-and-errors).
 */
export const middleware: Route.MiddlewareFunction[] = [nameRouteMiddleware, lastResortMiddleware, checkQueryMiddleware];

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.ico" }];

// Applied before first paint so a dark-mode reader never flashes a light page.
const themeScript = `try{var t=localStorage.getItem("inkstone-theme");if(t==="dark")document.documentElement.dataset.theme="dark"}catch(e){}`;

export function Layout({ children }: { children: React.ReactNode }) {
  // The CSP allows inline scripts only with this page's nonce (app/entry.server.tsx);
  // <Scripts/> and <ScrollRestoration/> take it from React Router's context.
  const nonce = useNonce();
  return (
    <html lang="zh-CN">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: themeScript }} />
        <Meta />
        <Links />
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
  // Marks the document once React has hydrated it (tests wait for this before clicking).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
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
