import { createHash } from "node:crypto";
import type { WorkMeta } from "~/db/schema";
import type { Work } from "~/server/catalog/works.server";

/**
 * A work's title, description, cover and tags as review sees them (decisions 214, 239):
 * shared by the work's review (work-review.server.ts) and the appeals of its decisions
 * (review.server.ts), which work-review.server.ts builds on.
 */

/** The version a reviewer decides on: the SHA-256 of the metadata submitted. */
export function workMetaHash(meta: WorkMeta): string {
  return createHash("sha256").update(JSON.stringify([meta.title, meta.description, meta.coverUrl, meta.tags]), "utf8").digest("hex");
}

export function metaOf(work: Pick<Work, "title" | "description" | "coverUrl" | "tags">): WorkMeta {
  return { title: work.title, description: work.description, coverUrl: work.coverUrl, tags: [...work.tags] };
}

/**
 * The version waiting for a reviewer (or sent back by one): a new work's own columns (readers
 * see none of it), else an approved work's `pending_meta`; null when nothing waits.
 */
export function waitingMeta(work: Pick<Work, "title" | "description" | "coverUrl" | "tags" | "reviewListing" | "pendingMeta">): WorkMeta | null {
  return work.reviewListing ? metaOf(work) : work.pendingMeta;
}
