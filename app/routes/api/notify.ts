import { domainErrorOf } from "~/server/platform/errors.server";
import { readFormData } from "~/server/platform/form-data.server";
import { notifyAnswer, receiveNotify, type NotifyOutcome } from "~/server/economy/epay.server";
import { clientAddressOf } from "~/server/platform/request.server";
import type { Route } from "./+types/notify";

/**
 * /api/notify: the epay gateway's server-to-server payment notification (docs/product.md D6),
 * as a GET (what the epay platform sends) or a POST form (what some clones send). It is
 * authenticated by its signature, not by a session or an Origin. The body is the plain
 * text `success` only once the order is paid and credited (or was already), and `fail`
 * otherwise: the gateway treats any body containing "success" as delivered.
 */
const MAX_BODY_BYTES = 16 * 1024;

function answer(outcome: NotifyOutcome | "error", request: Request): Response {
  const body = outcome === "error" ? "fail" : notifyAnswer(outcome);
  if (body === "fail") {
    const outTradeNo = new URL(request.url).searchParams.get("out_trade_no") ?? "";
    console.warn(`payment notify refused: ${outcome}${outTradeNo ? ` (${outTradeNo.slice(0, 64)})` : ""}`);
  }
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/** Every notify is recorded with its outcome for 支付通知 in the back office (decision 136). */
async function handle(entries: [string, string][], request: Request, address: string): Promise<Response> {
  return answer(await receiveNotify(entries, { method: request.method, address }), request);
}

export async function loader({ request, context }: Route.LoaderArgs) {
  return handle([...new URL(request.url).searchParams.entries()], request, clientAddressOf(context));
}

export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response("fail", { status: 405, headers: { Allow: "GET, POST" } });
  let form: FormData;
  try {
    form = await readFormData(request, MAX_BODY_BYTES, "fail");
  } catch (error) {
    if (domainErrorOf(error)) return answer("malformed", request);
    throw error;
  }
  // A POST carries its fields in the form body, or (some clones) in the query string.
  const entries: [string, string][] = [];
  for (const [k, v] of form.entries()) {
    if (typeof v !== "string") return answer("malformed", request);
    entries.push([k, v]);
  }
  if (entries.length === 0) entries.push(...new URL(request.url).searchParams.entries());
  return handle(entries, request, clientAddressOf(context));
}
