/** docs/product.md D4: an unknown export path is a 404, not a redirect (scripts read it). */
function notFound() {
  return new Response("导出不存在", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export const loader = notFound;
export const action = notFound;
