// The last Express error handler: what no route answered because Express itself failed
// (a malformed path that express.static cannot decode, an exception before the React
// Router build was reached). The visitor gets a short Chinese page, never a stack trace;
// the unexpected (5xx) is logged with the request, like app/entry.server.tsx's handleError
// does for the app's own errors (docs/architecture.md#forms-and-errors).

/** No script, nothing but its own text: the strictest policy of the site. */
const POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function page(title, detail) {
  return `<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} - 砚台</title></head><body><main><h1>${title}</h1><p>${detail}</p><p><a href="/">返回首页</a></p></main></body></html>`;
}

/** Express error middleware (four arguments). */
export function errorPage(error, req, res, _next) {
  const status = Number(error?.status ?? error?.statusCode);
  const clientError = Number.isInteger(status) && status >= 400 && status < 500;
  if (!clientError) console.error(`unexpected error: ${req.method} ${req.path}`, error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(clientError ? status : 500);
  res.set({
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  });
  res.end(clientError ? page("请求无效", "请求的地址或内容无效，请检查后重试。") : page("出错了", "服务器暂时无法处理这个请求，请稍后重试。"));
}
