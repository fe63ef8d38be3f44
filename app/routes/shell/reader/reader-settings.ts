import { readerSettingsFormSchema } from "~/schemas/reader-settings";
import { READER_SETTINGS_MESSAGES } from "~/schemas/reader-settings-rules";
import { parseWithZod } from "@conform-to/zod/v4";
import { isSameOriginPost } from "~/server/platform/csrf.server";
import { DomainError, toResponse } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { saveReaderSettings } from "~/server/reading/reader-settings.server";
import { getSessionUser } from "~/server/identity/session.server";
import { safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/reader-settings";

export function loader() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/**
 * POST /reader-settings (fontSize, lineHeight, width, background, back): the reader's
 * settings panel (decision 106). A plain form is sent back to `back` with a notice
 * (阅读设置已保存); the panel's script asks for JSON. Bad values: 400 with the Chinese message, nothing saved.
 */
export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { Allow: "POST" } });
  if (!isSameOriginPost(request)) return new Response(null, { status: 403 });
  const wantsJson = (request.headers.get("Accept") ?? "").includes("application/json");
  const submission = parseWithZod(await readForm(request), { schema: readerSettingsFormSchema });
  const user = await getSessionUser(request);
  try {
    // Every field is handed over as sent: only a body carrying Conform's own intent (no page sends one) is refused here.
    if (submission.status !== "success") throw new DomainError("未知操作", 400);
    const { back, ...sent } = submission.value;
    const { settings, setCookie } = await saveReaderSettings(request, user?.id ?? null, sent);
    const headers = new Headers();
    if (setCookie) headers.set("Set-Cookie", setCookie);
    if (wantsJson) return Response.json({ settings }, { headers });
    // Without JavaScript the page it goes back to confirms the save (the script shows 已保存 itself).
    return redirectWithFlash(request, safeRedirectPath(back), { kind: "success", text: READER_SETTINGS_MESSAGES.saved }, headers);
  } catch (error) {
    return toResponse(error, wantsJson ? "json" : "text");
  }
}
