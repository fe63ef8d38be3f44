import { beforeAll, describe, expect, it } from "vitest";
import { loader as worksLoader } from "~/routes/public/works";
import { parseWorkFilters } from "~/schemas/discovery";
import { authorWorksHref } from "~/utils/hrefs";
import { updateNickname } from "~/server/identity/profile.server";
import { searchWorks } from "~/server/catalog/search.server";
import { gramsContain, SEARCH_COUNT_CAP, searchMatch } from "~/server/catalog/search-sql.server";
import { forgetGramShares, searchStats } from "~/server/catalog/search-stats.server";
import { db } from "~/db/client.server";
import { listedVisibility, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { sql } from "drizzle-orm";
import { createUser } from "../fixtures/accounts";
import { insertWorks, setViewerPrefs } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";

let authorId: string;
const viewerAll = { showR18: true, showAi: true };

beforeAll(async () => {
  authorId = (await createUser()).id;
  const t0 = Date.UTC(2026, 0, 1);
  await insertWorks([
    { userId: authorId, title: "西游记新编", description: "孙悟空大闹天宫的故事", createdAt: new Date(t0 + 1000) },
    { userId: authorId, title: "红楼梦外传", description: "大观园里的一场雪", createdAt: new Date(t0 + 2000) },
    { userId: authorId, title: "夜雨寄北", description: "何当共剪西窗烛", rating: "r18", createdAt: new Date(t0 + 3000) },
    { userId: authorId, title: "机器之心", description: "AI 写的短篇", isAiGenerated: true, createdAt: new Date(t0 + 4000) },
    { userId: authorId, title: "付费悟空", description: "悟空的付费故事", visibility: "public-vip", price: 5, createdAt: new Date(t0 + 5000) },
    { userId: authorId, title: "私藏悟空", description: "未公开的悟空", visibility: "private", createdAt: new Date(t0 + 6000) },
    { userId: authorId, title: "100%纯爱_物语", description: "Love Story in Tokyo", createdAt: new Date(t0 + 7000) },
  ]);
});

const titles = (r: { works: { title: string }[] }) => r.works.map((w) => w.title);

describe("searchWorks", () => {
  it("lists public and paid works newest first, never private ones", async () => {
    const r = await searchWorks({ query: "", page: 1, viewer: viewerAll });
    expect(titles(r)).toEqual(["100%纯爱_物语", "付费悟空", "机器之心", "夜雨寄北", "红楼梦外传", "西游记新编"]);
    expect(r.total).toBe(6);
  });

  it("takes its candidates from the listed works' part of the gram index, never finds a private work, and keeps no pending list (decision 281)", async () => {
    // The search's candidates name the visibility as listedVisibility spells it; the planner
    // must be able to prove that it implies works_listed_search_grams_idx's predicate.
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return rowsOf<Record<string, string>>(
        await tx.execute(sql`explain select ${works.id} from ${works} where ${gramsContain("悟空")} and ${listedVisibility(works.visibility)}`),
      );
    });
    expect(plan.map((row) => Object.values(row).join("")).join("\n")).toContain("works_listed_search_grams_idx");
    const found = await searchWorks({ query: "悟空", page: 1, viewer: viewerAll });
    expect(titles(found)).toEqual(["付费悟空", "西游记新编"]);
    // The filtered search (a sort or a filter beside the query) builds its match with
    // searchMatch, whose candidates come from the same index.
    const filteredPlan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return rowsOf<Record<string, string>>(await tx.execute(sql`explain select ${works.id} from ${works} where ${searchMatch("悟空")}`));
    });
    expect(filteredPlan.map((row) => Object.values(row).join("")).join("\n")).toContain("works_listed_search_grams_idx");
    const filtered = await searchWorks({ query: "悟空", filters: parseWorkFilters(new URLSearchParams("sort=words")), page: 1, viewer: viewerAll });
    expect(titles(filtered).sort()).toEqual(["付费悟空", "西游记新编"]);
    // No gram index keeps a pending list, which every search would read whole.
    const options = rowsOf<{ name: string; options: string[] | null }>(
      await db.execute(sql`select relname as name, reloptions as options from pg_class where relname like '%search_grams_idx' or relname = 'profiles_nickname_grams_idx' order by relname`),
    );
    expect(options).toEqual(
      ["profiles_nickname_grams_idx", "works_listed_search_grams_idx", "works_search_grams_idx"].map((name) => ({ name, options: ["fastupdate=false"] })),
    );
  });

  it("finds a 1-character Chinese query in titles and descriptions", async () => {
    const r = await searchWorks({ query: "悟", page: 1, viewer: viewerAll });
    expect(titles(r)).toEqual(["付费悟空", "西游记新编"]);
  });

  it("finds a 2-character query, only as a contiguous substring", async () => {
    expect(titles(await searchWorks({ query: "悟空", page: 1, viewer: viewerAll }))).toEqual(["付费悟空", "西游记新编"]);
    // 西 and 窗 both occur in 夜雨寄北's description, but not next to each other as 西游.
    expect(titles(await searchWorks({ query: "西游", page: 1, viewer: viewerAll }))).toEqual(["西游记新编"]);
    expect(titles(await searchWorks({ query: "空大", page: 1, viewer: viewerAll }))).toEqual(["西游记新编"]);
  });

  it("rechecks longer queries so that all pairs present out of order do not match", async () => {
    expect(titles(await searchWorks({ query: "大闹天宫", page: 1, viewer: viewerAll }))).toEqual(["西游记新编"]);
    // 天宫 and 大闹 exist, but "天宫大闹" does not.
    expect(titles(await searchWorks({ query: "天宫大闹", page: 1, viewer: viewerAll }))).toEqual([]);
  });

  it("matches case-insensitively and treats % and _ literally", async () => {
    expect(titles(await searchWorks({ query: "love", page: 1, viewer: viewerAll }))).toEqual(["100%纯爱_物语"]);
    expect(titles(await searchWorks({ query: "in tokyo", page: 1, viewer: viewerAll }))).toEqual(["100%纯爱_物语"]);
    expect(titles(await searchWorks({ query: "%", page: 1, viewer: viewerAll }))).toEqual(["100%纯爱_物语"]);
    expect(titles(await searchWorks({ query: "0%纯", page: 1, viewer: viewerAll }))).toEqual(["100%纯爱_物语"]);
    expect(titles(await searchWorks({ query: "_", page: 1, viewer: viewerAll }))).toEqual(["100%纯爱_物语"]);
    expect(titles(await searchWorks({ query: "a_物", page: 1, viewer: viewerAll }))).toEqual([]);
  });

  it("shows visitors all-ages works only, and hides r18 / AI works by preference", async () => {
    const visitor = titles(await searchWorks({ query: "", page: 1, viewer: null }));
    expect(visitor).not.toContain("夜雨寄北");
    expect(visitor).toContain("机器之心");
    const prudent = titles(await searchWorks({ query: "", page: 1, viewer: { showR18: false, showAi: true } }));
    expect(prudent).not.toContain("夜雨寄北");
    const noAi = titles(await searchWorks({ query: "", page: 1, viewer: { showR18: true, showAi: false } }));
    expect(noAi).not.toContain("机器之心");
    expect(noAi).toContain("夜雨寄北");
  });

  it("applies a stored profile preference through the session viewer shape", async () => {
    const viewer = await createUser();
    await setViewerPrefs(viewer.id, { showR18: true, showAi: false });
    const { db } = await import("~/db/client.server");
    const { profiles } = await import("~/db/schema");
    const { eq } = await import("drizzle-orm");
    const [p] = await db.select().from(profiles).where(eq(profiles.id, viewer.id));
    expect(titles(await searchWorks({ query: "", page: 1, viewer: p }))).not.toContain("机器之心");
  });

  it("pages 12 at a time and clamps a page past the end to the last page", async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      userId: authorId,
      title: `分页测试第${i + 1}篇`,
      createdAt: new Date(Date.UTC(2025, 0, 1) + i * 1000),
    }));
    await insertWorks(many);
    const p1 = await searchWorks({ query: "分页", page: 1, viewer: null });
    expect(p1.total).toBe(25);
    expect(p1.pageCount).toBe(3);
    expect(p1.works).toHaveLength(12);
    expect(p1.works[0].title).toBe("分页测试第25篇");
    const p3 = await searchWorks({ query: "分页", page: 3, viewer: null });
    expect(titles(p3)).toEqual(["分页测试第1篇"]);
    const far = await searchWorks({ query: "分页", page: 1_000_000_000, viewer: null });
    expect(far.page).toBe(3);
    expect(titles(far)).toEqual(["分页测试第1篇"]);
  });

  it("truncates an overlong query instead of failing", async () => {
    const r = await searchWorks({ query: "悟".repeat(10_001), page: 1, viewer: null });
    expect(r.query).toHaveLength(100);
    expect(r.works).toEqual([]);
  });
});

describe("searchWorks on common queries (capped count)", () => {
  // 40 works sharing 常见 (and 常见词), some hidden from visitors, some created at the same
  // instant so that the id breaks the tie; what a visitor should see, newest first.
  let expected: string[] = [];

  beforeAll(async () => {
    const t0 = Date.UTC(2024, 5, 1);
    const seeds = Array.from({ length: 40 }, (_, i) => ({
      userId: authorId,
      title: `常见词第${i + 1}篇`,
      visibility: i % 5 === 0 ? ("private" as const) : i % 9 === 0 ? ("public-vip" as const) : ("public" as const),
      rating: i % 7 === 3 ? ("r18" as const) : ("all_ages" as const),
      createdAt: new Date(t0 + Math.floor(i / 2) * 1000),
    }));
    const ids = await insertWorks(seeds);
    await insertWorks(Array.from({ length: 300 }, (_, i) => ({ userId: authorId, title: `旧作${i + 1}`, createdAt: new Date(Date.UTC(2020, 0, 1) + i * 1000) })));
    expected = seeds
      .map((s, i) => ({ ...s, id: ids[i] }))
      .filter((s) => s.visibility !== "private" && s.rating === "all_ages")
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)
      .map((s) => s.title);
  });

  // Each plan (decision 271), chosen by the share of works the gram statistics give the
  // query: none (the gram index), a window of the newest works, the walk.
  // With 0.14 the window holds the newest 243 works for 17 matches (countCap 16): the 40
  // below and 196 older ones (beforeAll).
  // Past the count's bound the gram index's plan walks a small window of the newest works
  // (decision 279), as does a longer query counted past the cap; walkWindow 0 makes them read
  // every window through the gram index instead.
  const plans = [{ share: undefined }, { share: undefined, walkWindow: 0 }, { share: 0.14 }, { share: 0.14, walkWindow: 0 }, { share: 0.5 }];

  async function allPages(query: string, countCap: number, pageSize: number, share?: number, walkWindow?: number) {
    const first = await searchWorks({ query, page: 1, viewer: null, countCap, pageSize, share, walkWindow });
    const seen = [...titles(first)];
    for (let page = 2; page <= first.pageCount; page++) {
      const r = await searchWorks({ query, page, viewer: null, countCap, pageSize, share, walkWindow });
      expect(r.page).toBe(page);
      expect(r.total).toBe(first.total);
      seen.push(...titles(r));
    }
    return { first, seen };
  }

  it("counts exactly up to the cap, on every plan", async () => {
    for (const { share, walkWindow } of plans) {
      for (const query of ["常见", "常见词"]) {
        const { first, seen } = await allPages(query, 1000, 12, share, walkWindow);
        expect(first.total, `${query} ${share}`).toBe(expected.length);
        expect(first.totalCapped).toBe(false);
        expect(seen).toEqual(expected);
      }
    }
  });

  it("reports the cap past it and lists the newest matches, whichever plan serves the page", async () => {
    for (const { share, walkWindow } of plans) {
      // countCap 16, 2 a page: 8 pages; without statistics each page counts the matches up
      // to its bound (at least 17), finds no more than that and sorts them all.
      for (const query of ["常见", "常见词"]) {
        const { first, seen } = await allPages(query, 16, 2, share, walkWindow);
        expect(first.total, `${query} ${share}`).toBe(16);
        expect(first.totalCapped).toBe(true);
        expect(first.pageCount).toBe(8);
        expect(seen).toEqual(expected.slice(0, 16));
      }
      // countCap 2, 1 a page: without statistics the count can pass its bound, and the
      // page is then looked for among the newest works, or walked.
      const { first, seen } = await allPages("常见", 2, 1, share, walkWindow);
      expect(first.totalCapped).toBe(true);
      expect(first.pageCount).toBe(2);
      expect(seen).toEqual(expected.slice(0, 2));
    }
  });

  it("shows the last page for a page past the end of a capped result", async () => {
    for (const { share, walkWindow } of plans) {
      const far = await searchWorks({ query: "常见", page: 1_000_000_000, viewer: null, countCap: 16, pageSize: 2, share, walkWindow });
      expect(far.page).toBe(8);
      expect(titles(far)).toEqual(expected.slice(14, 16));
    }
  });

  it("applies the viewer's preferences on every plan", async () => {
    const viewer = { showR18: true, showAi: true };
    const exact = await searchWorks({ query: "常见", page: 1, viewer, pageSize: 50 });
    expect(exact.total).toBe(32); // every work but the 8 private ones
    for (const { share, walkWindow } of plans) {
      for (const page of [1, 2, 5]) {
        const capped = await searchWorks({ query: "常见", page, viewer, countCap: 10, pageSize: 2, share, walkWindow });
        expect(titles(capped)).toEqual(titles(exact).slice((page - 1) * 2, page * 2));
      }
    }
  });

  it("reads a window that holds too few matches again through the gram index", async () => {
    // 200 newer works without the query: a window sized for a share of 0.14 (the newest 43
    // works for 3 matches) holds none of its matches.
    const t0 = Date.UTC(2025, 0, 1);
    await insertWorks(Array.from({ length: 200 }, (_, i) => ({ userId: authorId, title: `无关之作${i + 1}`, createdAt: new Date(t0 + i * 1000) })));
    // Then, past the count's bound, the walked window (and with walkWindow 0 the gram
    // index's window) of the newest works holds none either: the page is walked.
    for (const walkWindow of [undefined, 0]) {
      const { first, seen } = await allPages("常见", 2, 1, 0.14, walkWindow);
      expect(first.totalCapped).toBe(true);
      expect(seen).toEqual(expected.slice(0, 2));
    }
  });

  it("caps at SEARCH_COUNT_CAP (1000): 84 pages of 12", async () => {
    const t0 = Date.UTC(2023, 0, 1);
    await insertWorks(
      Array.from({ length: SEARCH_COUNT_CAP + 5 }, (_, i) => ({
        userId: authorId,
        title: `千篇一律${i + 1}`,
        createdAt: new Date(t0 + i * 1000),
      })),
    );
    // PostgreSQL's statistics now say 千篇 is in most works (1,005 of about 1,600): the
    // search walks the newest works (decision 271) and must give what the gram index gave.
    await db.execute(sql`analyze works`);
    forgetGramShares();
    const stats = await searchStats();
    expect(stats.share(["千篇"])).toBeGreaterThan(0.5);
    expect(stats.share(["漱"])).toBeUndefined();
    const p1 = await searchWorks({ query: "千篇", page: 1, viewer: null });
    expect(p1.total).toBe(1000);
    expect(p1.totalCapped).toBe(true);
    expect(p1.pageCount).toBe(84);
    expect(titles(p1)[0]).toBe("千篇一律1005");
    const last = await searchWorks({ query: "千篇", page: 84, viewer: null });
    // Ranks 997-1005: the last page goes a little past the cap rather than stop short.
    expect(titles(last)).toEqual(Array.from({ length: 9 }, (_, i) => `千篇一律${9 - i}`));
    const exactBelow = await searchWorks({ query: "千篇一律100", page: 1, viewer: null });
    expect(exactBelow.totalCapped).toBe(false);
    expect(exactBelow.total).toBe(7); // 100 and 1000-1005
  });
});

describe("searching past the count's bound", () => {
  it("finds the page among the newest works", async () => {
    // The newest 200 works, every other one matching: past √(needed × works) matches the
    // page is looked for among the newest works (a window), here found there.
    const author = (await createUser()).id;
    const t0 = Date.UTC(2027, 0, 1);
    const ids = await insertWorks(Array.from({ length: 200 }, (_, i) => ({ userId: author, title: i % 2 === 0 ? `稀有样本${i}` : `填充${i}`, createdAt: new Date(t0 + i * 1000) })));
    await db.execute(sql`analyze works`);
    forgetGramShares();
    expect((await searchStats()).works).toBeGreaterThan(1000);
    const newest = ids.map((id, i) => ({ id, i })).filter(({ i }) => i % 2 === 0).reverse().map(({ i }) => `稀有样本${i}`);
    for (const page of [1, 2, 3]) {
      const r = await searchWorks({ query: "稀有", page, viewer: null, countCap: 6, pageSize: 2, share: null });
      expect(r.totalCapped).toBe(true);
      expect(titles(r)).toEqual(newest.slice((page - 1) * 2, page * 2));
    }
  });
});

describe("searching an author's name", () => {
  // 青灯 writes works whose titles and descriptions never name them; another author's
  // title holds 青灯 too.
  let qingdeng: string;
  let qingdengTitles: string[] = [];

  beforeAll(async () => {
    qingdeng = (await createUser()).id;
    await updateNickname(qingdeng, "青灯Author");
    const other = (await createUser()).id;
    await updateNickname(other, "墨客");
    const t0 = Date.UTC(2025, 0, 1);
    const seeds = Array.from({ length: 5 }, (_, i) => ({
      userId: qingdeng,
      title: `夜读第${i + 1}卷`,
      description: "书生与狐",
      createdAt: new Date(t0 + i * 1000),
    }));
    await insertWorks([
      ...seeds,
      { userId: qingdeng, title: "夜读私稿", visibility: "private", createdAt: new Date(t0 + 9000) },
      { userId: other, title: "青灯古卷", description: "墨客的书", createdAt: new Date(t0 + 8000) },
    ]);
    qingdengTitles = seeds.map((s) => s.title).reverse();
  });

  it("finds the author's works beside titles that hold it, for 1, 2 and longer queries, case-insensitively", async () => {
    for (const query of ["青灯", "灯", "青灯author", "灯A"]) {
      const r = await searchWorks({ query, page: 1, viewer: null });
      expect(titles(r), query).toEqual(query.includes("灯") && !/[a-z]/i.test(query) ? ["青灯古卷", ...qingdengTitles] : qingdengTitles);
    }
    // Not a substring of the nickname: nothing of theirs.
    expect(titles(await searchWorks({ query: "灯青", page: 1, viewer: null }))).toEqual([]);
    expect(titles(await searchWorks({ query: "墨客", page: 1, viewer: null }))).toEqual(["青灯古卷"]);
  });

  it("pages through the author's works on every plan, and with filters", async () => {
    // A cap of 5 makes the 6 matches of 青灯 a capped result: page 1 walks the listing
    // testing each row, the next pages sort the candidates (docs/decisions/012).
    const seen: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const r = await searchWorks({ query: "青灯", page, viewer: null, countCap: 5, pageSize: 1 });
      expect([r.totalCapped, r.pageCount]).toEqual([true, 5]);
      seen.push(...titles(r));
    }
    expect(seen).toEqual(["青灯古卷", ...qingdengTitles].slice(0, 5));
    // The filtered search (a sort) matches authors too.
    const sorted = await searchWorks({ query: "青灯", filters: parseWorkFilters(new URLSearchParams("sort=updated")), page: 1, viewer: null });
    expect(titles(sorted).sort()).toEqual(["青灯古卷", ...qingdengTitles].sort());
  });

  it("lists one author's works at /works?author=, with their name (their name links to their page, decision 230)", async () => {
    expect(authorWorksHref(qingdeng)).toBe(`/authors/${qingdeng}`);
    const page = await callThroughRoutes(worksLoader, { request: new Request(`http://localhost/works?author=${qingdeng}`) });
    expect(page.author).toEqual({ id: qingdeng, nickname: "青灯Author" });
    expect(titles(page)).toEqual(qingdengTitles);
    // Every card there is theirs.
    expect(page.works.every((w: { userId: string }) => w.userId === qingdeng)).toBe(true);
    // Searching inside them: the query and the author together.
    const within = await callThroughRoutes(worksLoader, { request: new Request(`http://localhost/works?q=${encodeURIComponent("第2卷")}&author=${qingdeng}`) });
    expect(titles(within)).toEqual(["夜读第2卷"]);
    // Nonsense is ignored, never an error page.
    const nonsense = await callThroughRoutes(worksLoader, { request: new Request("http://localhost/works?author=not-a-user") });
    expect(nonsense.author).toBeNull();
  });
});
