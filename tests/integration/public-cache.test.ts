import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { subscribe } from "~/server/platform/events.server";
import { PUBLIC_CACHE_TTL_MS } from "~/server/platform/public-cache.server";
import { searchWorks } from "~/server/catalog/search.server";
import { createUser } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";

// tests/setup/per-file-env.ts turns the few-second caches off for every other test file.
beforeAll(() => {
  process.env.PAGE_CACHE = "1";
});
afterAll(() => {
  process.env.PAGE_CACHE = "0";
  vi.useRealTimers();
});

/** Runs `change` and resolves once its `work` event has reached this process. */
async function announced(change: () => Promise<unknown>): Promise<void> {
  let seen = () => {};
  const arrived = new Promise<void>((resolve) => (seen = resolve));
  // Listening before the change, so its event cannot be missed.
  const unsubscribe = await subscribe("work", () => seen());
  try {
    await change();
    await arrived;
  } finally {
    unsubscribe();
  }
}

const titles = (r: { works: { title: string; authorNickname: string }[] }) => r.works.map((w) => w.title);

describe("the works listing's shared few-second copy (docs/decisions/060)", () => {
  it("answers each pair of audience preferences with its own listing", async () => {
    const author = await createUser();
    await insertWorks([
      { userId: author.id, title: "缓存全年龄", description: "共享缓存测试" },
      { userId: author.id, title: "缓存R18", description: "共享缓存测试", rating: "r18" },
      { userId: author.id, title: "缓存AI", description: "共享缓存测试", isAiGenerated: true },
    ]);
    const ask = (viewer: { showR18: boolean; showAi: boolean } | null) =>
      searchWorks({ query: "共享缓存", page: 1, viewer }).then(titles);
    // The most permissive reader asks first: nobody else may get their listing.
    expect(await ask({ showR18: true, showAi: true })).toEqual(["缓存AI", "缓存R18", "缓存全年龄"]);
    expect(await ask({ showR18: false, showAi: true })).toEqual(["缓存AI", "缓存全年龄"]);
    expect(await ask(null)).toEqual(["缓存AI", "缓存全年龄"]);
    expect(await ask({ showR18: true, showAi: false })).toEqual(["缓存R18", "缓存全年龄"]);
    expect(await ask({ showR18: false, showAi: false })).toEqual(["缓存全年龄"]);
  });

  it("shows a published, hidden or deleted work as soon as its change is announced", async () => {
    const author = await createUser();
    const list = () => searchWorks({ query: "", page: 1, viewer: null }).then(titles);
    await list(); // cached
    let id = 0;
    await announced(async () => {
      [id] = await insertWorks([{ userId: author.id, title: "刚发布的作品" }]);
    });
    expect((await list())[0]).toBe("刚发布的作品");
    await announced(() => db.update(works).set({ visibility: "private" }).where(eq(works.id, id)));
    expect(await list()).not.toContain("刚发布的作品");
    await announced(() => db.update(works).set({ visibility: "public" }).where(eq(works.id, id)));
    expect((await list())[0]).toBe("刚发布的作品");
    await announced(() => db.delete(works).where(eq(works.id, id)));
    expect(await list()).not.toContain("刚发布的作品");
  });

  it("keeps what no change announces (an author's new nickname) for a few seconds at most", async () => {
    const author = await createUser();
    await announced(() => insertWorks([{ userId: author.id, title: "改名作者的书", description: "笔名测试" }]));
    const nickname = () =>
      searchWorks({ query: "笔名测试", page: 1, viewer: null }).then((r) => r.works[0].authorNickname);
    await db.update(profiles).set({ nickname: "旧笔名" }).where(eq(profiles.id, author.id));
    expect(await nickname()).toBe("旧笔名");
    await db.update(profiles).set({ nickname: "新笔名" }).where(eq(profiles.id, author.id));
    expect(await nickname()).toBe("旧笔名"); // the shared copy
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + PUBLIC_CACHE_TTL_MS + 1 });
    expect(await nickname()).toBe("新笔名");
    vi.useRealTimers();
  });
});
