import { createContext } from "react";

/**
 * The page's CSP nonce, provided by app/entry.server.tsx while rendering. In the browser
 * it is "": browsers hide a nonce from the DOM, and a script added after hydration would
 * not need one (docs/decisions/066-content-security-policy.md).
 */
export const NonceContext = createContext("");
