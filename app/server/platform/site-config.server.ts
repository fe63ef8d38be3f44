import { inArray } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { DEFAULT_SITE_CONFIGS } from "./defaults.server";
import { subscribe } from "./events.server";

/**
 * Site configuration values by key, read now (in `executor`'s transaction when given); a
 * missing key falls back to its default (or "").
 */
export async function getSiteConfig<K extends string>(keys: readonly K[], executor: Executor = db): Promise<Record<K, string>> {
  const rows = await executor
    .select({ key: siteConfigs.key, value: siteConfigs.value })
    .from(siteConfigs)
    .where(inArray(siteConfigs.key, keys as unknown as string[]));
  return withDefaults(keys, rows);
}

export async function getSiteConfigValue(key: string): Promise<string> {
  return (await getSiteConfig([key]))[key];
}

function withDefaults<K extends string>(keys: readonly K[], rows: Iterable<{ key: string; value: string }>) {
  const out = {} as Record<K, string>;
  for (const key of keys) out[key] = DEFAULT_SITE_CONFIGS[key] ?? "";
  const wanted = new Set<string>(keys);
  for (const row of rows) if (wanted.has(row.key)) out[row.key as K] = row.value;
  return out;
}

/**
 * What every page shows: branding, the default cover, the landing text, terms and
 * privacy. Pages read these through `getDisplayConfig`, from a copy kept per process,
 * because a page view would otherwise spend one or two of its few queries on them.
 * Money and payment settings are not here: they are always read fresh.
 */
const DISPLAY_CONFIG_KEYS = [
  "site_title",
  "site_icon",
  "logo_url",
  "hero_url",
  "default_cover_url",
  "site_description",
  "terms_content",
  "privacy_content",
  // 备案信息 in every page's footer (docs/product.md#front-page).
  "icp_number",
  "police_filing_number",
] as const;
export type DisplayConfigKey = (typeof DISPLAY_CONFIG_KEYS)[number];

/**
 * The copy is dropped when site_configs changes: the table's trigger
 * (drizzle/0009_config_events.sql) announces every write, from any process, as the
 * live event `site`. A load that began before a change is never kept after it (the
 * generation check), a process that cannot listen does not cache, and the copy also
 * expires after DISPLAY_CONFIG_TTL_MS in case a notification was lost while the
 * listening connection reconnected.
 */
const DISPLAY_CONFIG_TTL_MS = 30_000;

const cache: {
  generation: number;
  entry?: { generation: number; loadedAt: number; values: Promise<Map<string, string>> };
  listening?: Promise<boolean>;
} = { generation: 0 };

/** Forgets the cached display configuration of this process (after a write of its own). */
export function invalidateDisplayConfig(): void {
  cache.generation += 1;
  cache.entry = undefined;
}

function listening(): Promise<boolean> {
  cache.listening ??= subscribe("site", invalidateDisplayConfig).then(
    () => true,
    (error) => {
      console.error("site configuration cache disabled: cannot listen for changes", error);
      return false;
    },
  );
  return cache.listening;
}

async function loadDisplayConfig(): Promise<Map<string, string>> {
  const rows = await db
    .select({ key: siteConfigs.key, value: siteConfigs.value })
    .from(siteConfigs)
    .where(inArray(siteConfigs.key, DISPLAY_CONFIG_KEYS as unknown as string[]));
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function getDisplayConfig<K extends DisplayConfigKey>(keys: readonly K[]): Promise<Record<K, string>> {
  if (!(await listening())) return getSiteConfig(keys);
  const now = Date.now();
  let entry = cache.entry;
  if (!entry || entry.generation !== cache.generation || now - entry.loadedAt > DISPLAY_CONFIG_TTL_MS) {
    const generation = cache.generation;
    const values = loadDisplayConfig();
    entry = { generation, loadedAt: now, values };
    cache.entry = entry;
    values.catch(() => {
      if (cache.entry === entry) cache.entry = undefined;
    });
  }
  const values = await entry.values;
  return withDefaults(keys, Array.from(values, ([key, value]) => ({ key, value })));
}

export async function getDisplayConfigValue(key: DisplayConfigKey): Promise<string> {
  return (await getDisplayConfig([key]))[key];
}

/** A whole number from the configuration, or the fallback when unset or malformed. */
export function configInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
