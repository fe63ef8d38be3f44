import { DomainError } from "~/server/errors.server";
import { readFormData } from "~/server/form-data.server";
import { handleNotify, notifyAnswer, type NotifyOutcome } from "~/server/payments/epay.server";
import type { Route } from "./+types/notify";

/**
 * /api/notify: the epay gateway's server-to-server payment notification (docs/product.md D6),
 * as a GET (what the epay platform sends) or a POST form (what some clones send). It is
 * authenticated by its signature, not by a session or an Origin. The body is the plain
 * text `success` only once the order is paid and credited (or was already), and `fail`
 * otherwise: the gateway treats any body containing "success" as delivered.
 */
const MAX_BODY_BYTES = 16 * 1024;

function answer(outcome: NotifyOutcome, request: Request): Response {
  const body = notifyAnswer(outcome);
  if (body === "fail") {
    const outTradeNo = new URL(request.url).searchParams.get("out_trade_no") ?? "";
    console.warn(`payment notify refused: ${outcome}${outTradeNo ? ` (${outTradeNo.slice(0, 64)})` : ""}`);
  }
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

async function handle(entries: Iterable<[string, string]>, request: Request): Promise<Response> {
  try {
    return answer(await handleNotify(entries), request);
  } catch (error) {
    // Nothing was committed: the gateway will try again.
    console.error("payment notify failed", error);
    return answer("malformed", request);
  }
}

export async function loader({ request }: Route.LoaderArgs) {
  return handle(new URL(request.url).searchParams.entries(), request);
}

export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response("fail", { status: 405, headers: { Allow: "GET, POST" } });
  let form: FormData;
  try {
    form = await readFormData(request, MAX_BODY_BYTES, "fail");
  } catch (error) {
    if (error instanceof DomainError) return answer("malformed", request);
    throw error;
  }
  // A POST carries its fields in the form body, or (some clones) in the query string.
  const entries: [string, string][] = [];
  for (const [k, v] of form.entries()) {
    if (typeof v !== "string") return answer("malformed", request);
    entries.push([k, v]);
  }
  if (entries.length === 0) entries.push(...new URL(request.url).searchParams.entries());
  return handle(entries, request);
}
