import { eq } from "drizzle-orm";
import { notModified } from "~/server/platform/shared-cache.server";
import { db } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { defaultCoverWebp } from "~/server/catalog/default-cover.server";
import { getSessionUser } from "~/server/identity/session.server";
import { coverHash } from "~/utils/default-cover";
import type { Route } from "./+types/default-cover";

function notFound() {
  return new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/**
 * GET /covers/<id>.webp?v=<hash>: the generated cover of a work (docs/product.md D5), drawn
 * from its current title and author name. A private work's only for its owner; 404 for
 * anything else, as the work page answers.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const match = /^(\d{1,9})\.webp$/.exec(params.file ?? "");
  if (!match) return notFound();
  const [work] = await db
    .select({ title: works.title, visibility: works.visibility, userId: works.userId, author: profiles.nickname })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(eq(works.id, Number(match[1])));
  if (!work) return notFound();
  const isPrivate = work.visibility === "private";
  if (isPrivate && (await getSessionUser(request))?.id !== work.userId) return notFound();

  const etag = `"${coverHash(work.title, work.author)}"`;
  const headers = new Headers({
    "Content-Type": "image/webp",
    // The address carries the hash of what is drawn, so a current one never changes.
    "Cache-Control": isPrivate ? "private, max-age=3600" : "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    ETag: etag,
  });
  if (notModified(request, etag)) {
    return new Response(null, { status: 304, headers });
  }
  const body = await defaultCoverWebp(work.title, work.author);
  headers.set("Content-Length", String(body.length));
  return new Response(new Uint8Array(body), { headers });
}
