/** The client's address as the server saw it (set by server.js), for rate limits. */
export function clientAddressOf(context: unknown): string {
  const address = (context as { clientAddress?: unknown } | undefined)?.clientAddress;
  return typeof address === "string" && address ? address : "unknown";
}
