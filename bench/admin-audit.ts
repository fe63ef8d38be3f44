// npm run bench:admin-audit: what writing the audit row adds to an admin action, on
// PostgreSQL (docs/benchmarks.md#admin-audit-log, docs/decisions/132). The action is a
// prompt edit in its transaction (lock the row, update it), run interleaved with and
// without recordAdminAction, over an audit log already holding --rows rows (default
// 1,000,000) so the insert maintains full-sized indexes. Target: < 2 ms added at p50
// and at p95.
import { describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 1000);
const existing = Number(flags.get("rows") ?? 1_000_000);
const dbName = "inkstone_bench_admin_audit";

await ensurePgDatabase(dbName, true);
process.env.DATABASE_URL = pgUrlFor(dbName);
// Filling the log takes longer than the app's statement timeout allows.
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "0";
const { closeDatabase, db } = await import("~/db/client.server");
const { prompts } = await import("~/db/schema");
const { eq, sql } = await import("drizzle-orm");
const { recordAdminAction } = await import("~/server/platform/audit.server");
const { createOrResetAdmin } = await import("~/server/identity/admin-provision.server");

await createOrResetAdmin("bench-admin@example.com", "bench-password-1");
const [{ id: adminId }] = (await db.execute(sql`select id from admins limit 1`)) as unknown as { id: string }[];
const actor = { admin: { id: adminId, email: "bench-admin@example.com" }, address: "203.0.113.1" };
for (let from = 1; from <= existing; from += 200_000) {
  const to = Math.min(existing, from + 199_999);
  await db.execute(sql`
  insert into admin_audit_log (admin_id, admin_email, action, target_type, target_id, before, after, reason, client_address, created_at)
  select ${adminId}::uuid, 'bench-admin@example.com', (array['prompt.update','user.nickname','settings.payment','code.generate'])[1 + g % 4],
         'prompt', (g % 5000)::text, jsonb_build_object('title', 'old ' || g), jsonb_build_object('title', 'new ' || g), null, '203.0.113.1',
         now() - (g || ' seconds')::interval
  from generate_series(${from}::int, ${to}::int) g`);
}
await db.execute(sql`analyze`);
const [prompt] = await db.insert(prompts).values({ code: "BENCH", title: "基准", systemContent: "s", userContent: "u" }).returning({ id: prompts.id });

async function edit(i: number, audited: boolean): Promise<number> {
  const start = performance.now();
  await db.transaction(async (tx) => {
    const [current] = await tx.select().from(prompts).where(eq(prompts.id, prompt.id)).for("update");
    const title = `基准 ${i}`;
    await tx.update(prompts).set({ title, updatedAt: new Date() }).where(eq(prompts.id, prompt.id));
    if (audited) {
      await recordAdminAction(tx, actor, { action: "prompt.update", targetType: "prompt", targetId: prompt.id, before: { title: current.title }, after: { title } });
    }
  });
  return performance.now() - start;
}

console.log(`bench:admin-audit on PostgreSQL, ${existing.toLocaleString()} audit rows already, ${runs} edits each way`);
const plain: number[] = [];
const audited: number[] = [];
for (let i = 0; i < runs + 50; i++) {
  // Interleaved: the same pool, plans and cache; only the audit row differs.
  const a = await edit(2 * i, false);
  const b = await edit(2 * i + 1, true);
  if (i >= 50) {
    plain.push(a);
    audited.push(b);
  }
}
plain.sort((x, y) => x - y);
audited.sort((x, y) => x - y);
for (const p of [50, 95]) {
  const added = percentile(audited, p) - percentile(plain, p);
  console.log(
    `p${p}: without the row ${fmt(percentile(plain, p), 2)} ms, with it ${fmt(percentile(audited, p), 2)} ms, added ${fmt(added, 2)} ms (${fmt(percentile(audited, p) / percentile(plain, p), 2)}x)  ${added < 2 ? "ok" : "MISSED (< 2 ms)"}`,
  );
}
console.log(describeMachine());
await closeDatabase();
await dropPgDatabase(dbName);
