import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue, type ServerProcess } from "../fixtures/processes";
import { replicaPair } from "../fixtures/replica-pair";
import { serversOnOwnDatabase } from "../fixtures/server-database";
import { waitFor } from "../fixtures/wait";

/**
 * Read replicas (docs/decisions/265, docs/architecture.md#read-replicas). On the
 * PostgreSQL run: `node server.js` on a primary with a real streaming replica
 * (scripts/replica.sh, started by .ci/run or here), the replica made visibly behind with
 * `recovery_min_apply_delay`: a visitor's listing and chapter text come from the replica,
 * the author who just wrote reads the primary, a replica further behind than the cut-off
 * or stopped is skipped, and /healthz and /metrics say so. On PGlite there are no
 * replicas: DATABASE_REPLICA_URLS is ignored and every read is of the one database.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const TOKEN = "replica-metrics-token";
const MAX_LAG_MS = 4_000;

if (onPostgres) {
  describe("read replicas, on a primary with a streaming replica", () => {
    let pair: Awaited<ReturnType<typeof replicaPair>>;
    let site: Awaited<ReturnType<typeof serversOnOwnDatabase>> | undefined;
    let server: ServerProcess;
    let replicaUrl: string;
    /** The replica's own server (ALTER SYSTEM) and the test's database on it (what it holds). */
    let standby: postgres.Sql;
    let standbyDb: postgres.Sql;

    const databaseOf = (url: string) => new URL(url).pathname;
    const onReplica = (url: string) => {
      const u = new URL(pair.replica);
      u.pathname = databaseOf(url);
      return u.toString();
    };

    beforeAll(async () => {
      pair = await replicaPair();
      standby = postgres(pair.replica, { max: 1, onnotice: () => {} });
      await setDelay(null);
      site = await serversOnOwnDatabase(
        "inkstone_rr",
        1,
        (url) => {
          replicaUrl = onReplica(url);
          return { DATABASE_REPLICA_URLS: replicaUrl, DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS), METRICS_TOKEN: TOKEN };
        },
        { server: pair.primary },
      );
      server = site.servers[0];
      standbyDb = postgres(replicaUrl, { max: 1, onnotice: () => {} });
      await waitFor("the replica in use", async () => (await health()).includes("in use"), { timeout: 20_000, interval: 100 });
    });

    afterAll(async () => {
      await setDelay(null).catch(() => {});
      await standbyDb?.end();
      await standby?.end();
      await site?.stop();
      await pair?.release();
    });

    /** recovery_min_apply_delay on the replica: commits are applied that long after they were made. */
    async function setDelay(delay: string | null) {
      if (delay) await standby.unsafe(`alter system set recovery_min_apply_delay = '${delay}'`);
      else await standby.unsafe("alter system reset recovery_min_apply_delay");
      await standby`select pg_reload_conf()`;
      await waitFor("the replica to take the delay", async () => {
        const [{ recovery_min_apply_delay: now }] = await standby`show recovery_min_apply_delay`;
        return now === (delay ?? "0");
      });
    }

    async function health(): Promise<string> {
      const response = await fetch(`${server.origin}/healthz`);
      expect(response.status).toBe(200);
      return response.text();
    }

    async function metrics(): Promise<string> {
      return (await fetch(`${server.origin}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    }

    /** A person's cookies, kept across requests as a browser would. */
    function person() {
      const jar = new Map<string, string>();
      const remember = (response: Response) => {
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const at = pair.indexOf("=");
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        return response;
      };
      const headers = (): Record<string, string> => (jar.size ? { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } : {});
      return {
        jar,
        post: async (path: string, body: URLSearchParams | FormData) =>
          remember(await fetch(`${server.origin}${path}`, { method: "POST", body, headers: { Origin: server.origin, ...headers() }, redirect: "manual" })),
        page: async (path: string) => (await fetch(`${server.origin}${path}`, { headers: headers() })).text(),
      };
    }

    const visitorPage = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${server.origin}${path}`, { headers })).text();
    /** The listing searched for a work's title without its last character: the page echoes the query, never the whole title. */
    const listing = (title: string) => `/works?q=${encodeURIComponent(title.slice(0, -1))}`;
    const replicaHolds = async (title: string) => (await standbyDb`select 1 from works where title = ${title}`).length > 0;
    const replicaReads = () => metricValue(server.origin, TOKEN, `inkstone_db_replica_reads_total\\{target="${new URL(replicaUrl).host}${databaseOf(replicaUrl)}"\\}`);

    let author: ReturnType<typeof person>;

    async function publish(title: string, content: string): Promise<number> {
      const form = new FormData();
      for (const [k, v] of Object.entries({ status: "completed", type: "single_chapter", title, description: "简介", rating: "all_ages", visibility: "public", content })) form.set(k, v);
      expect((await author.post("/submit", form)).status).toBe(302);
      const [{ id }] = await site!.sql<{ id: number }[]>`select id from works where title = ${title}`;
      return id;
    }

    it("shows a visitor the replica's listing and chapter text, and the author who just wrote the primary's", async () => {
      author = person();
      const account = new URLSearchParams({ email: `replica-${randomBytes(4).toString("hex")}@example.com`, password: "a-good-password" });
      await author.post("/auth/register", account);
      expect((await author.post("/auth/login", account)).status).toBe(302);
      // The login was a write: the author's cookie holds the primary's position after it.
      expect(author.jar.has("inkstone_wrote")).toBe(true);

      await setDelay("3s");
      const title = `副本测试${randomBytes(3).toString("hex")}之书`;
      const readsBefore = await replicaReads();
      const id = await publish(title, "第一段正文。\n\n第二段正文。");

      // The author reads the primary until a replica has replayed the write.
      expect(await author.page(listing(title))).toContain(title);
      // A visitor reads the replica, which has not applied it yet.
      expect(await replicaHolds(title)).toBe(false);
      const visitor = await visitorPage(listing(title));
      expect(visitor).not.toContain(title);
      expect(visitor).toContain("未找到相关作品");
      expect(await replicaReads()).toBeGreaterThan(readsBefore);
      // A forged position is no write of the visitor's: still the replica.
      expect(await visitorPage(listing(title), { Cookie: "inkstone_wrote=0%2F0" })).not.toContain(title);
      // A chapter the replica does not hold yet is read from the primary.
      expect(await visitorPage(`/works/${id}?chapter=1`)).toContain("第一段正文");

      // Once the replica applies it, the visitor sees it too.
      await waitFor("the visitor to see the new work", async () => (await visitorPage(listing(title))).includes(title), { timeout: 15_000, interval: 200 });
      expect(await replicaHolds(title)).toBe(true);

      // A chapter's text comes from the replica: an edit shows once it is applied there.
      await site!.sql`update chapters set content = '改过的正文。' where work_id = ${id}`;
      expect(await visitorPage(`/works/${id}?chapter=1`)).toContain("第一段正文");
      await waitFor("the edited text", async () => (await visitorPage(`/works/${id}?chapter=1`)).includes("改过的正文"), { timeout: 15_000, interval: 200 });
    }, 60_000);

    it("skips a replica further behind than DATABASE_REPLICA_MAX_LAG_MS, and says so in /healthz and /metrics", async () => {
      await setDelay("15s");
      const title = `滞后测试${randomBytes(3).toString("hex")}之书`;
      await publish(title, "正文。");
      const behind = await waitFor("the replica out of use", async () => {
        const text = await health();
        return text.includes("not in use") && text;
      }, { timeout: 12_000, interval: 100 });
      expect(behind).toMatch(new RegExp(`^replica ${new URL(replicaUrl).host}${databaseOf(replicaUrl)}: up, lag \\d+ ms, not in use`, "m"));
      const lag = Number(/^inkstone_db_replica_lag_seconds\{replica="[^"]+"\} ([\d.]+)/m.exec(await metrics())?.[1]);
      expect(lag).toBeGreaterThan(MAX_LAG_MS / 1000);
      expect(await metrics()).toMatch(/^inkstone_db_replica_in_use\{replica="[^"]+"\} 0$/m);
      // The replica has not applied the work, yet a visitor sees it: read from the primary.
      expect(await replicaHolds(title)).toBe(false);
      expect(await visitorPage(listing(title))).toContain(title);

      await setDelay(null);
      await waitFor("the replica back in use", async () => /: up, lag \d+ ms, in use$/m.test(await health()), { timeout: 10_000, interval: 100 });
      expect(await metrics()).toMatch(/^inkstone_db_replica_in_use\{replica="[^"]+"\} 1$/m);
    }, 60_000);

    it("skips a stopped replica: /healthz stays 200 and names it down, pages read the primary", async () => {
      await pair.stopReplica();
      try {
        const down = await waitFor("/healthz to report the replica down", async () => {
          const text = await health();
          return text.includes(": down (") && text;
        }, { timeout: 10_000, interval: 100 });
        expect(down.split("\n")[0]).toBe("ok");
        expect(await metrics()).toMatch(/^inkstone_db_replica_up\{replica="[^"]+"\} 0$/m);
        const title = `停机测试${randomBytes(3).toString("hex")}之书`;
        await publish(title, "正文。");
        const started = Date.now();
        expect(await visitorPage(listing(title))).toContain(title);
        // Skipped, not waited for: no connection attempt to the stopped replica.
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        await pair.startReplica();
      }
      await waitFor("the replica back", async () => /: up, lag \d+ ms, in use$/m.test(await health()), { timeout: 20_000, interval: 100 });
    }, 60_000);
  });
} else {
  describe("read replicas on PGlite", () => {
    // Set before the file's database opens (tests/setup/per-file.ts opens it in beforeAll).
    process.env.DATABASE_REPLICA_URLS = "postgres://postgres@127.0.0.1:1/nowhere";

    it("ignores DATABASE_REPLICA_URLS: every read, in or out of a request's read scope, is of the one database", async () => {
      const client = await import("~/db/client.server");
      expect(client.hasReplicas).toBe(false);
      expect(client.replicaStatus()).toEqual([]);
      const inScope = client.readScope.run({ after: null, primary: false }, () => client.readDb());
      expect(inScope).toBe(client.db);
      expect(client.readDb()).toBe(client.db);
      expect(await client.writePosition()).toBeNull();
    });

    it("answers /healthz with ok alone, and sets no position cookie after a write", async () => {
      const { loader } = await import("~/routes/api/healthz");
      expect(await (await loader()).text()).toBe("ok");
      const { replicaReadsMiddleware } = await import("~/server/platform/replica-reads.server");
      const request = new Request("http://localhost/settings", { method: "POST", headers: { Cookie: "a=b" } });
      const response = (await replicaReadsMiddleware({ request } as never, async () => new Response("done"))) as Response;
      expect(response.headers.get("Set-Cookie")).toBeNull();
    });
  });
}
