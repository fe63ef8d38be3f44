import { eq } from "drizzle-orm";
import type { RouterContextProvider } from "react-router";
import { db } from "~/db/client.server";
import { admins } from "~/db/schema";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";
import { clientAddressOf } from "~/server/platform/request.server";
import { adminContext, exportAccessContext } from "./guards.server";

/**
 * Who acts in the back office, read from the contexts the guards filled (guards.server.ts),
 * for the audit log (platform/audit.server.ts, docs/product.md#audit-log). Beside the
 * guards, not in platform: platform knows no middleware (docs/architecture.md#domains).
 */

/**
 * The actor of an /admin loader or action, from the admin layout's middleware (adminContext)
 * and the address server.js saw (request.server.ts). Throws if no admin guard ran above.
 */
export function adminActorOf(context: Readonly<RouterContextProvider>): SignedInActor {
  const admin = context.get(adminContext);
  return { admin: { id: admin.id, email: admin.email }, address: clientAddressOf(context) };
}

/**
 * A download from /exports (a session or a bearer token, the exports layout's middleware):
 * recorded when it starts, with how the admin got in (`via`).
 */
export async function recordExport(
  context: Readonly<RouterContextProvider>,
  action: string,
  targetId?: string | number,
  details: Record<string, string> = {},
): Promise<void> {
  const access = context.get(exportAccessContext);
  const [admin] = await db.select({ email: admins.email }).from(admins).where(eq(admins.id, access.adminId));
  const actor = { admin: { id: access.adminId, email: admin?.email ?? "" }, address: clientAddressOf(context) };
  await recordAdminAction(db, actor, { action, targetType: "export", targetId: targetId ?? null, after: { via: access.via, ...details } });
}
