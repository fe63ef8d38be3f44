import { createHash } from "node:crypto";
import { notModified } from "~/server/platform/shared-cache.server";
import { getStorage, isValidKey } from "~/server/platform/storage.server";
import type { Route } from "./+types/files";

/** Only uploaded images are served; other keys (future exports, say) never are. */
const SERVABLE = /^(covers|avatars|site)\/.+\.(webp|jpg|png|gif|avif)$/;

function notFound() {
  return new Response("Not Found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/**
 * docs/product.md D10: stored uploads at /files/<key>. A key names one content forever (a new
 * upload gets a new random key), so responses are cacheable for a year.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const key = params["*"] ?? "";
  if (!SERVABLE.test(key) || !isValidKey(key)) return notFound();

  const file = await getStorage().get(key);
  if (!file) return notFound();

  const etag = `"${createHash("sha256").update(`${key}:${file.size}`).digest("base64url").slice(0, 32)}"`;
  const headers = new Headers({
    "Content-Type": file.contentType,
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    ETag: etag,
  });

  if (notModified(request, etag)) {
    if (file.body instanceof ReadableStream) await file.body.cancel();
    return new Response(null, { status: 304, headers });
  }

  headers.set("Content-Length", String(file.size));
  return new Response(file.body as BodyInit, { status: 200, headers });
}
