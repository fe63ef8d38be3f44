import { onShutdown } from "../lifecycle.server";
import { generationStreams } from "../metrics.server";
import { generationErrorResponse, type Generation } from "./generation.server";

/**
 * One generation as a Server-Sent Events response (/api/generate, /api/continue):
 *
 *   event: start  data: the generation's info (model, promptTokens, balance) and `start`
 *   event: text   data: "<JSON string>"      each piece, as it arrives
 *   event: done   data: the result without its text (reason, charged, metering, balance, ...)
 *   event: error  data: {"message"}          the provider failed mid-stream (refunded)
 *
 * server.js does not compress text/event-stream, so each event leaves at once; a closed
 * tab cancels the stream, which aborts the upstream call and settles what was sent; a
 * server shutting down lets it run through its grace period, then stops it.
 */
const encoder = new TextEncoder();
const event = (name: string, data: unknown) => encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

export function generationEventStream(generation: Generation, start: Record<string, unknown> = {}): Response {
  // Open until the generation ends or the reader cancels (the socket closed): after
  // that nothing may be enqueued, or the enqueue throws.
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (chunk: Uint8Array) => {
        if (open) controller.enqueue(chunk);
      };
      const close = () => {
        if (!open) return;
        open = false;
        try {
          controller.close();
        } catch {
          // the reader already went away
        }
      };
      send(event("start", { ...generation.info, ...start }));
      // A server shutting down lets the generation run through its grace period, then
      // stops it: what was sent is settled and saved, and `done` says "aborted".
      const offShutdown = onShutdown("deadline", () => generation.abort());
      generationStreams.inc();
      generation
        .run((text) => send(event("text", text)))
        .then((result) => {
          const { text: _text, ...summary } = result;
          send(event("done", summary));
        })
        .catch((error) => send(event("error", { message: generationErrorResponse(error).message })))
        .finally(() => {
          offShutdown();
          generationStreams.dec();
          close();
        });
    },
    cancel() {
      open = false;
      generation.abort();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
