import { offlineCacheKey } from "~/server/platform/cookies.server";
import { toResponse } from "~/server/platform/errors.server";
import { getSessionUser } from "~/server/identity/session.server";
import { OFFLINE_MESSAGES, offlinePlan } from "~/server/reading/offline.server";
import { parseChapterOrder } from "~/server/reading/reader.server";
import { readerSettingsFor } from "~/server/reading/reader-settings.server";
import type { Route } from "./+types/offline";

/**
 * GET /works/:id/offline[?from=<chapter number>]: what 离线阅读 keeps for the signed-in reader
 * (decision 244): the chapters they may read among the next N (their 离线阅读章数 setting),
 * the addresses to fetch, and the key of their own cache on the device. Reading it changes
 * nothing; the device fetches the pages itself, each through the reader's own checks.
 */
export async function loader({ request, url, params }: Route.LoaderArgs) {
  const headers = { "Cache-Control": "private, no-store" };
  const user = await getSessionUser(request);
  if (!user) return Response.json({ error: OFFLINE_MESSAGES.signIn }, { status: 401, headers });
  const fromParam = url.searchParams.get("from");
  const from = fromParam === null ? null : parseChapterOrder(fromParam);
  if (fromParam !== null && from === null) return Response.json({ error: "章节编号不正确" }, { status: 400, headers });
  try {
    const { offlineChapters } = await readerSettingsFor(request, user);
    const plan = await offlinePlan(user, Number(params.id), offlineChapters, from);
    return Response.json({ key: offlineCacheKey(user.id), ...plan }, { headers });
  } catch (error) {
    return toResponse(error, "json");
  }
}
