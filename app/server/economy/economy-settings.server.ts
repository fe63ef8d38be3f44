import { eq, inArray, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import { configInt } from "~/server/platform/site-config.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import type { TaxRule } from "./payout-tax";

/**
 * The site's settings of the serial economy (docs/product.md#paying-by-chapter): read
 * fresh like every money setting (never from the display cache), with the executor of the
 * caller's transaction so PGlite's one connection is not asked twice.
 */
export interface EconomySettings {
  /** 千字价 a work starts with, and the range an author may choose from. */
  pricePerThousand: number;
  pricePerThousandMin: number;
  pricePerThousandMax: number;
  /** The author's share of every sale, in percent (rounded down to whole credits). */
  authorSharePercent: number;
  /** 购买全部's discount, in percent of the sum of the chapters' prices. */
  wholeBookDiscountPercent: number;
  /** The smallest payout request, in credits. */
  payoutMinimum: number;
}

const KEYS = {
  pricePerThousand: "chapter_price_per_thousand",
  pricePerThousandMin: "chapter_price_per_thousand_min",
  pricePerThousandMax: "chapter_price_per_thousand_max",
  authorSharePercent: "author_share_percent",
  wholeBookDiscountPercent: "whole_book_discount_percent",
  payoutMinimum: "payout_minimum",
} as const satisfies Record<keyof EconomySettings, string>;

export async function getEconomySettings(executor: Executor = db): Promise<EconomySettings> {
  const rows = await executor
    .select({ key: siteConfigs.key, value: siteConfigs.value })
    .from(siteConfigs)
    .where(inArray(siteConfigs.key, Object.values(KEYS)));
  const values = new Map(rows.map((r) => [r.key, r.value]));
  const out = {} as EconomySettings;
  for (const [name, key] of Object.entries(KEYS) as [keyof EconomySettings, string][]) {
    out[name] = configInt(values.get(key), Number(DEFAULT_SITE_CONFIGS[key]));
  }
  out.authorSharePercent = Math.min(100, out.authorSharePercent);
  out.wholeBookDiscountPercent = Math.min(100, out.wholeBookDiscountPercent);
  out.pricePerThousandMin = Math.max(1, out.pricePerThousandMin);
  out.pricePerThousandMax = Math.max(out.pricePerThousandMin, out.pricePerThousandMax);
  return out;
}

/** @internal */
export const ECONOMY_SETTINGS_MESSAGES = {
  whole: "请输入不小于0的整数",
  percent: "请输入0到100之间的整数",
  range: "千字价范围无效：最低价须不小于1且不高于最高价，默认千字价须在范围之内",
} as const;

/** Parses and saves the administrator's economy settings; a bad value changes nothing. */
export async function saveEconomySettings(actor: AdminActor, input: Record<keyof EconomySettings, unknown>): Promise<EconomySettings> {
  const parsed = {} as EconomySettings;
  for (const name of Object.keys(KEYS) as (keyof EconomySettings)[]) {
    const raw = typeof input[name] === "string" ? (input[name] as string).trim() : input[name];
    const n = raw === "" || raw == null ? Number.NaN : Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw new DomainError(ECONOMY_SETTINGS_MESSAGES.whole, 400, name);
    if ((name === "authorSharePercent" || name === "wholeBookDiscountPercent") && n > 100) {
      throw new DomainError(ECONOMY_SETTINGS_MESSAGES.percent, 400, name);
    }
    parsed[name] = n;
  }
  if (
    parsed.pricePerThousandMin < 1 ||
    parsed.pricePerThousandMin > parsed.pricePerThousandMax ||
    parsed.pricePerThousand < parsed.pricePerThousandMin ||
    parsed.pricePerThousand > parsed.pricePerThousandMax
  ) {
    throw new DomainError(ECONOMY_SETTINGS_MESSAGES.range, 400, "pricePerThousand");
  }
  await db.transaction(async (tx) => {
    const before = await getEconomySettings(tx);
    await tx
      .insert(siteConfigs)
      .values((Object.keys(KEYS) as (keyof EconomySettings)[]).map((name) => ({ key: KEYS[name], value: String(parsed[name]) })))
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: sql`excluded.value`, updatedAt: new Date() } });
    const changed = changedFields(before, parsed);
    await recordAdminAction(tx, actor, { action: "settings.economy", targetType: "setting", targetId: "economy", ...changed });
  });
  return parsed;
}

/**
 * A VIP chapter's price: its length times the 千字价, per 1,000 字, rounded up, at least 1
 * (docs/product.md D13). The one place the rule is written; it is SQL, so that one statement prices many
 * chapters.
 */
export function chapterPriceSql(wordCount: unknown, pricePerThousand: unknown) {
  return sql`greatest(1, (${wordCount}::bigint * ${pricePerThousand}::bigint + 999) / 1000)`;
}

/** What the author earns of `gross`: the share, rounded down to whole credits (docs/product.md D14). */
export function authorShareOf(gross: number, settings: Pick<EconomySettings, "authorSharePercent">): number {
  return Math.floor((gross * settings.authorSharePercent) / 100);
}

/** 购买全部's price: the sum less the discount (the discount rounded down). */
export function discountedTotal(sum: number, settings: Pick<EconomySettings, "wholeBookDiscountPercent">): number {
  return sum - Math.floor((sum * settings.wholeBookDiscountPercent) / 100);
}

const TAX_RULE_KEY = "payout_tax_rule";

/** 提现代扣个税's rule (decision 209), read in the settlement's transaction. */
export async function payoutTaxRule(executor: Executor = db): Promise<TaxRule> {
  const [row] = await executor.select({ value: siteConfigs.value }).from(siteConfigs).where(eq(siteConfigs.key, TAX_RULE_KEY));
  const value = row?.value ?? DEFAULT_SITE_CONFIGS[TAX_RULE_KEY];
  return value === "royalty" ? "royalty" : "labor";
}

/** The 超级管理员 sets the rule; later payouts use it (those paid keep theirs), audited. */
export async function savePayoutTaxRule(actor: AdminActor, input: unknown): Promise<TaxRule> {
  if (input !== "labor" && input !== "royalty") throw new DomainError("请选择代扣个税的计税方式", 400, "taxRule");
  await db.transaction(async (tx) => {
    const before = await payoutTaxRule(tx);
    await tx
      .insert(siteConfigs)
      .values({ key: TAX_RULE_KEY, value: input })
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: input, updatedAt: new Date() } });
    await recordAdminAction(tx, actor, { action: "settings.payout_tax", targetType: "setting", targetId: "payout_tax", ...changedFields({ rule: before }, { rule: input }) });
  });
  return input;
}
