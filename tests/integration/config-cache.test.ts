import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { siteConfigs } from "~/db/schema";
import { setSiteConfigs } from "~/server/admin/site-settings.server";
import { subscribe, type LiveEvent } from "~/server/platform/events.server";
import { getDisplayConfig, getDisplayConfigValue } from "~/server/platform/site-config.server";
import { loader as layoutLoader } from "~/routes/shell/layout";
import { createUser } from "../fixtures/accounts";
import { insertWorks } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";

/** Resolves with the next event of `topic` (rejects after `ms`). */
async function nextEvent(topic: string, ms = 5000): Promise<LiveEvent> {
  let unsubscribe = () => {};
  const event = new Promise<LiveEvent>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event on ${topic}`)), ms);
    void subscribe(topic, (e) => {
      clearTimeout(timer);
      resolve(e);
    }).then((u) => (unsubscribe = u));
  });
  return event.finally(() => unsubscribe());
}

async function siteTitleOnPage(): Promise<string> {
  const result = await callThroughRoutes(layoutLoader, { request: new Request("http://localhost/works") });
  return (result as unknown as { data: { site: { title: string } } }).data.site.title;
}

describe("the tables behind visitors' pages announce every change", () => {
  it("raises `site` for a write made with plain SQL, on commit only", async () => {
    const rolledBack = nextEvent("site", 500);
    await db
      .transaction(async (tx) => {
        await tx.update(siteConfigs).set({ value: "回滚的标题" }).where(eq(siteConfigs.key, "site_title"));
        throw new Error("rollback");
      })
      .catch(() => {});
    await expect(rolledBack).rejects.toThrow("no event on site");

    const committed = nextEvent("site");
    await db.update(siteConfigs).set({ value: "直接写入的标题" }).where(eq(siteConfigs.key, "site_title"));
    expect(await committed).toEqual({ topic: "site", kind: "site" });
  });

  it("raises `work` once for a statement inserting works (no work id: nobody follows a new work)", async () => {
    const author = await createUser();
    const inserted = nextEvent("work");
    await insertWorks([
      { userId: author.id, title: "新书一" },
      { userId: author.id, title: "新书二" },
    ]);
    expect(await inserted).toEqual({ topic: "work", kind: "work" });
  });
});

describe("pages read the display configuration from a per-process copy", () => {
  it("shows an administrator's change on the very next page", async () => {
    await setSiteConfigs({ site_title: "第一个标题" });
    expect(await siteTitleOnPage()).toBe("第一个标题");
    await setSiteConfigs({ site_title: "第二个标题", site_description: "新的简介" });
    expect(await siteTitleOnPage()).toBe("第二个标题");
    expect(await getDisplayConfigValue("site_description")).toBe("新的简介");
  });

  it("drops the copy when another process (here: plain SQL) changes the table", async () => {
    await setSiteConfigs({ site_title: "缓存中的标题" });
    expect(await siteTitleOnPage()).toBe("缓存中的标题");
    const announced = nextEvent("site");
    await db.update(siteConfigs).set({ value: "别处改的标题" }).where(eq(siteConfigs.key, "site_title"));
    await announced;
    expect(await siteTitleOnPage()).toBe("别处改的标题");
  });

  it("falls back to the defaults for keys without a row", async () => {
    await db.delete(siteConfigs).where(eq(siteConfigs.key, "logo_url"));
    await setSiteConfigs({ site_title: "标题" }); // drops this process's copy
    expect(await getDisplayConfig(["logo_url", "site_title"] as const)).toEqual({ logo_url: "", site_title: "标题" });
  });
});
