import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { credits, favorites, profiles, prompts, siteConfigs, users, works } from "~/db/schema";
import { pgErrorCode, rowsOf } from "~/server/platform/db-utils.server";
import { seedDefaults } from "~/server/platform/defaults.server";
import { createUser } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";

async function errorCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (e) {
    return pgErrorCode(e);
  }
  return "no error";
}

describe("database layer", () => {
  it("runs on the backend the environment selects", () => {
    expect(databaseKind).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
  });

  it("writes the default configuration and the three prompts on first start", async () => {
    const config = await db.select().from(siteConfigs);
    const byKey = Object.fromEntries(config.map((r) => [r.key, r.value]));
    expect(byKey.site_title).toBe("砚台");
    expect(byKey.credits_to_tokens_ratio).toBe("100");
    expect(byKey.payment_method_v2).toBe("redeem_code");
    expect(byKey.terms_content).toContain("用户协议");
    const codes = (await db.select().from(prompts)).map((p) => p.code).sort();
    expect(codes).toEqual(["P01", "P02", "P03", "P04", "P05", "P06", "P07", "P08", "P09", "P10", "P11"]);
    const p02 = (await db.select().from(prompts).where(eq(prompts.code, "P02")))[0];
    expect(p02.userContent).toContain("{|synopsis|}");
    expect(p02.userContent).toContain("角色设定");
  });

  it("never overwrites an administrator's changes when defaults run again", async () => {
    await db.update(siteConfigs).set({ value: "我的书房" }).where(eq(siteConfigs.key, "site_title"));
    await db.update(prompts).set({ title: "改过的标题" }).where(eq(prompts.code, "P01"));
    await seedDefaults(db);
    const [title] = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "site_title"));
    expect(title.value).toBe("我的书房");
    const [p01] = await db.select().from(prompts).where(eq(prompts.code, "P01"));
    expect(p01.title).toBe("改过的标题");
  });

  it("refuses a negative credits balance or token balance (CHECK constraints)", async () => {
    const u = await createUser();
    expect(await errorCode(db.update(credits).set({ balance: -1 }).where(eq(credits.userId, u.id)))).toBe("23514");
    expect(await errorCode(db.update(profiles).set({ tokens: -5 }).where(eq(profiles.id, u.id)))).toBe("23514");
  });

  it("keeps price and visibility consistent (paid means public-vip with price >= 1)", async () => {
    const u = await createUser();
    const [id] = await insertWorks([{ userId: u.id, title: "约束测试" }]);
    expect(await errorCode(db.update(works).set({ price: 5 }).where(eq(works.id, id)))).toBe("23514");
    expect(await errorCode(db.update(works).set({ visibility: "public-vip" }).where(eq(works.id, id)))).toBe("23514");
    await db.update(works).set({ visibility: "public-vip", price: 3 }).where(eq(works.id, id));
    expect(await errorCode(db.update(works).set({ price: -1 }).where(eq(works.id, id)))).toBe("23514");
  });

  it("refuses an ongoing work that is not a series and unknown enum values", async () => {
    const u = await createUser();
    const [id] = await insertWorks([{ userId: u.id, title: "类型测试" }]);
    expect(await errorCode(db.update(works).set({ status: "ongoing" }).where(eq(works.id, id)))).toBe("23514");
    expect(await errorCode(db.execute(sql`update works set rating = 'r21' where id = ${id}`))).toBe("22P02");
  });

  it("allows one favourite per user and work, and cascades deletes", async () => {
    const u = await createUser();
    const [id] = await insertWorks([{ userId: u.id, title: "收藏测试" }]);
    await db.insert(favorites).values({ userId: u.id, workId: id });
    expect(await errorCode(db.insert(favorites).values({ userId: u.id, workId: id }))).toBe("23505");
    await db.delete(users).where(eq(users.id, u.id));
    expect(await db.select().from(works).where(eq(works.id, id))).toEqual([]);
    expect(await db.select().from(favorites).where(eq(favorites.workId, id))).toEqual([]);
  });

  it("keeps pixiv IDs unique", async () => {
    const a = await createUser();
    const b = await createUser();
    await db.update(profiles).set({ pixivId: "12345" }).where(eq(profiles.id, a.id));
    expect(await errorCode(db.update(profiles).set({ pixivId: "12345" }).where(eq(profiles.id, b.id)))).toBe("23505");
  });

  it("maintains the search grams of a work as its title and description change", async () => {
    const u = await createUser();
    const [id] = await insertWorks([{ userId: u.id, title: "Ab 西游", description: "悟空" }]);
    const read = async () =>
      (
        (
          await db
            .select({ g: sql<string[]>`work_search_grams(${works.title}, ${works.description})` })
            .from(works)
            .where(eq(works.id, id))
        )[0].g ?? []
      ).sort();
    expect(await read()).toEqual(["a", "ab", "b", "悟", "悟空", "游", "空", "西", "西游"].sort());
    await db.update(works).set({ description: "八戒" }).where(eq(works.id, id));
    expect(await read()).toContain("八戒");
    expect(await read()).not.toContain("悟空");
  });
});

// docs/decisions/031: on PostgreSQL, statements with parameters run as prepared statements
// (one round trip each once prepared), still planned for their actual parameters.
if (process.env.DATABASE_URL) describe("statements on PostgreSQL", () => {
  const preparedLike = async (executor: Pick<typeof db, "execute">, text: string) =>
    rowsOf<{ statement: string }>(
      await executor.execute(sql`select statement from pg_prepared_statements where statement like ${`%${text}%`}`),
    ).map((r) => r.statement);

  it("are prepared on their connection, in transactions and savepoints too, and planned for their parameters", async () => {
    const seen = await db.transaction(async (tx) => {
      const [mode] = rowsOf<{ plan_cache_mode: string }>(await tx.execute(sql`show plan_cache_mode`));
      const [outer] = rowsOf<{ a: string }>(await tx.execute(sql`select ${"悟空"}::text as prepared_probe_a`));
      const inner = await tx.transaction(async (sp) => {
        const [row] = rowsOf<{ b: number }>(await sp.execute(sql`select ${41}::int + 1 as prepared_probe_b`));
        return { row, statements: await preparedLike(sp, "prepared_probe_b") };
      });
      return { mode, outer, inner, statements: await preparedLike(tx, "prepared_probe_a") };
    });
    expect(seen.mode.plan_cache_mode).toBe("force_custom_plan");
    expect(seen.outer).toEqual({ prepared_probe_a: "悟空" });
    expect(seen.inner.row).toEqual({ prepared_probe_b: 42 });
    expect(seen.statements).toEqual(["select $1::text as prepared_probe_a"]);
    expect(seen.inner.statements).toEqual(["select $1::int + 1 as prepared_probe_b"]);
  });
});
