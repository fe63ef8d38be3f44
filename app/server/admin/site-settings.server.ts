import { inArray, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { deleteStoredImage, storeSiteImage, type SiteImageKind } from "~/server/platform/images.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { getSiteConfig, invalidateDisplayConfig } from "~/server/platform/site-config.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";

/**
 * Writes of the site configuration (site_configs, key/value). Every change is one
 * upsert statement; the table's trigger (drizzle/0009_config_events.sql) announces it
 * on the live-updates channel as the topic `site`, so open pages showing branding,
 * terms or privacy refresh (docs/product.md D9) and every process drops its cached copy.
 */
export async function setSiteConfigs(values: Record<string, string>, executor: Executor = db): Promise<void> {
  const entries = Object.entries(values);
  if (entries.length === 0) return;
  await executor
    .insert(siteConfigs)
    .values(entries.map(([key, value]) => ({ key, value, updatedAt: new Date() })))
    .onConflictDoUpdate({
      target: siteConfigs.key,
      set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
    });
  // This process's next page shows the change at once (the trigger's event tells the
  // others, and this one again on commit when `executor` is a transaction).
  invalidateDisplayConfig();
}

/** The stored values of `keys` (defaults for missing ones), read on `executor` (a transaction's). */
async function readSiteConfigs(executor: Executor, keys: readonly string[]): Promise<Record<string, string>> {
  const rows = await executor.select({ key: siteConfigs.key, value: siteConfigs.value }).from(siteConfigs).where(inArray(siteConfigs.key, [...keys]));
  const out: Record<string, string> = {};
  for (const key of keys) out[key] = DEFAULT_SITE_CONFIGS[key] ?? "";
  for (const row of rows) out[row.key] = row.value;
  return out;
}

/**
 * An administrator saves settings: the upsert and its audit row (`action`, the keys that
 * changed with their old and new values, secrets redacted) in one transaction
 * (docs/decisions/132).
 */
export async function saveSiteSettings(actor: AdminActor, action: string, values: Record<string, string>, executor: Executor = db): Promise<void> {
  const write = async (tx: Executor) => {
    const current = await readSiteConfigs(tx, Object.keys(values));
    await setSiteConfigs(values, tx);
    const { before, after } = changedFields(current, values);
    await recordAdminAction(tx, actor, { action, targetType: "setting", targetId: Object.keys(values).join(","), before, after });
  };
  if (executor === db) await db.transaction(write);
  else await write(executor);
}

export const IMAGE_CONFIG_KEYS: Record<SiteImageKind, "default_cover_url" | "logo_url" | "hero_url" | "site_icon"> = {
  cover: "default_cover_url",
  logo: "logo_url",
  hero: "hero_url",
  icon: "site_icon",
};

/**
 * Stores a new site image (re-encoded by images.server, docs/product.md D10), points the
 * configuration at it, then removes the previous file. Returns the new URL.
 */
export async function replaceSiteImage(actor: AdminActor, kind: SiteImageKind, bytes: Uint8Array): Promise<string> {
  const key = IMAGE_CONFIG_KEYS[kind];
  const previous = (await getSiteConfig([key]))[key];
  const url = await storeSiteImage(kind, bytes);
  try {
    await saveSiteSettings(actor, "settings.image", { [key]: url });
  } catch (error) {
    await deleteStoredImage(url).catch(() => {});
    throw error;
  }
  if (previous && previous !== url) await deleteStoredImage(previous).catch((e) => console.error("old site image", e));
  return url;
}

/** Removing sets the stored value to empty (docs/product.md: States and actions) and deletes the file. */
export async function removeSiteImage(actor: AdminActor, kind: SiteImageKind): Promise<void> {
  const key = IMAGE_CONFIG_KEYS[kind];
  const previous = (await getSiteConfig([key]))[key];
  await saveSiteSettings(actor, "settings.image", { [key]: "" });
  if (previous) await deleteStoredImage(previous).catch((e) => console.error("old site image", e));
}

/**
 * The payment interface settings as the browser may see them: the merchant key only as
 * "set or not" and its last 4 characters (docs/product.md D1: the key never leaves the server).
 */
export async function getPaymentApiSettings() {
  const config = await getSiteConfig(["payment_gateway_url", "merchant_pid", "merchant_key"] as const);
  const key = config.merchant_key;
  return {
    gatewayUrl: config.payment_gateway_url,
    merchantPid: config.merchant_pid,
    merchantKeySet: key.length > 0,
    merchantKeyLast4: key.length >= 8 ? key.slice(-4) : "",
  };
}

/** Saves the payment interface; a blank merchant key keeps the stored one. */
export async function savePaymentApiSettings(actor: AdminActor, input: { gatewayUrl: string; merchantPid: string; merchantKey: string }): Promise<void> {
  const values: Record<string, string> = {
    payment_gateway_url: input.gatewayUrl,
    merchant_pid: input.merchantPid,
  };
  if (input.merchantKey) values.merchant_key = input.merchantKey;
  await saveSiteSettings(actor, "settings.payment-api", values);
}
