import { inArray } from "drizzle-orm";
import { db } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { DEFAULT_SITE_CONFIGS } from "./defaults.server";

export type SiteConfig = Record<string, string>;

/** Site configuration values by key; a missing key falls back to its default (or ""). */
export async function getSiteConfig<K extends string>(keys: readonly K[]): Promise<Record<K, string>> {
  const rows = await db
    .select({ key: siteConfigs.key, value: siteConfigs.value })
    .from(siteConfigs)
    .where(inArray(siteConfigs.key, keys as unknown as string[]));
  const out = {} as Record<K, string>;
  for (const key of keys) out[key] = DEFAULT_SITE_CONFIGS[key] ?? "";
  for (const row of rows) out[row.key as K] = row.value;
  return out;
}

export async function getSiteConfigValue(key: string): Promise<string> {
  return (await getSiteConfig([key]))[key];
}

/** A whole number from the configuration, or the fallback when unset or malformed. */
export function configInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
