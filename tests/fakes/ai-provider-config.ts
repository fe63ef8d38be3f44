import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { apiConfigs, siteConfigs } from "~/db/schema";

const FAKE_CONFIG_NAME = "测试 AI 服务";

/**
 * Points the site at the test provider: an api_configs row named 测试 AI 服务 (made or
 * updated) and site_configs default_api_provider set to it. For `npm run dev:ai --
 * --configure` and for the e2e seed; returns the row's id.
 */
export async function configureFakeProvider(
  endpoint: string,
  options: { db?: Database; provider?: "openai" | "gemini"; model?: string; apiKey?: string } = {},
): Promise<string> {
  const ownDb = !options.db;
  const client = ownDb ? await import("~/db/client.server") : null;
  const db = options.db ?? client!.db;
  try {
    const values = {
      name: FAKE_CONFIG_NAME,
      provider: options.provider ?? ("openai" as const),
      endpoint,
      apiKey: options.apiKey ?? "test-key",
      model: options.model ?? "inkstone-fake",
      updatedAt: new Date(),
    };
    const [existing] = await db.select({ id: apiConfigs.id }).from(apiConfigs).where(eq(apiConfigs.name, FAKE_CONFIG_NAME));
    const id = existing
      ? (await db.update(apiConfigs).set(values).where(eq(apiConfigs.id, existing.id)).returning({ id: apiConfigs.id }))[0].id
      : (await db.insert(apiConfigs).values(values).returning({ id: apiConfigs.id }))[0].id;
    await db
      .insert(siteConfigs)
      .values({ key: "default_api_provider", value: id })
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: id, updatedAt: new Date() } });
    return id;
  } finally {
    // A script must let go of PGlite before the dev server opens it.
    if (ownDb) await client!.closeDatabase();
  }
}
