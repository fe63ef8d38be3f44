/** docs/product.md D4: an unknown resource path is a 404, not a redirect. */
function notFound() {
  return new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain" } });
}

export const loader = notFound;
export const action = notFound;
