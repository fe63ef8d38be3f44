// TRUST_PROXY: which proxies in front of the server may tell it the client's address
// (X-Forwarded-For), protocol and host (docs/decisions/165-proxies-origins-and-forms.md).
// Every proxy appends the address it received the request from to X-Forwarded-For, and
// whatever stands left of the first trusted proxy's entry was written by the client: only
// the entries the configured proxies appended are believed.
//
//   unset, "", "0"      no proxy: the socket's address; forwarded headers are ignored
//   "1", "2", ...       that many proxies in front: the address the outermost of them saw
//   "10.0.0.5, loopback, 192.168.0.0/16"
//                       the proxies' own addresses or subnets (proxy-addr's names too)

/**
 * Sets Express's "trust proxy" from TRUST_PROXY (nothing when it is unset); throws with a
 * message naming the variable on a value that is neither.
 */
export function applyTrustProxy(app, value = process.env.TRUST_PROXY) {
  const setting = trustProxySetting(value);
  if (setting === false) return;
  try {
    // Express compiles the list here (proxy-addr), refusing what is not an address.
    app.set("trust proxy", setting);
  } catch (error) {
    throw new Error(`TRUST_PROXY is neither a number of proxies nor a list of their addresses (${error instanceof Error ? error.message : error})`);
  }
}

/** The Express "trust proxy" value for TRUST_PROXY, or false. @internal */
export function trustProxySetting(value) {
  const text = String(value ?? "").trim();
  if (text === "" || text === "0" || text.toLowerCase() === "false") return false;
  if (/^\d+$/.test(text)) return Number(text);
  if (text.toLowerCase() === "true") {
    throw new Error("TRUST_PROXY=true would believe any X-Forwarded-For a client writes: give the number of proxies (TRUST_PROXY=1) or their addresses");
  }
  return text.split(",").map((entry) => entry.trim()).filter(Boolean);
}

/** Whether the request came straight from a trusted proxy, so its forwarded headers count. */
export function fromTrustedProxy(req) {
  const trust = req.app.get("trust proxy fn");
  return Boolean(req.app.enabled("trust proxy") && trust && trust(req.socket.remoteAddress ?? "", 0));
}

/** The host a trusted proxy forwarded: the entry it wrote (the right-most), else null. */
export function forwardedHost(req) {
  if (!fromTrustedProxy(req)) return null;
  const entries = (req.get("X-Forwarded-Host") ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  return entries.at(-1) ?? null;
}
