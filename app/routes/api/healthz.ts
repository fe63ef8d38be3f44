import { pingDatabase } from "~/db/client.server";

/** Load balancer health check: 200 once the database answers. */
export async function loader() {
  try {
    await pingDatabase();
    return new Response("ok", { headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
  } catch (error) {
    console.error("healthz: database unreachable", error);
    return new Response("database unavailable", { status: 503 });
  }
}
