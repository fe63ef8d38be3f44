/** docs/product.md D4: an unknown resource path is a 404, not a redirect. */
function notFound() {
  return new Response("接口不存在", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export const loader = notFound;
export const action = notFound;
