import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, readingProgress, works } from "~/db/schema";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import {
  BATCH_MAX_CHARS,
  paragraphBatch,
  paragraphBatchBefore,
  PARAGRAPH_BATCH,
  previewOf,
} from "~/server/reading/reader.server";
import { PARAGRAPH_MAX_CHARS, progressHref, splitParagraphs } from "~/utils/reading";
import { createUserSession } from "~/server/identity/session.server";
import { cookiePair, createUser, postRequest } from "../fixtures/accounts";
import { insertWorks, setViewerPrefs } from "../fixtures/works";
import { runRoute } from "./route-chain";

type Kind = "public" | "paid" | "private" | "r18";
type Who = "visitor" | "other" | "r18Reader" | "owner" | "buyer";

/** A string that appears only in one work's chapter text: if it shows up, content leaked. */
const secret = (kind: Kind) => `SECRET-${kind}-${randomBytes(4).toString("hex")}`;

const fixture = {} as {
  ids: Record<Kind, number>;
  secrets: Record<Kind, string>;
  cookies: Record<Who, string | null>;
};

async function addChapters(workId: number, contents: string[]) {
  await db.insert(chapters).values(
    contents.map((content, i) => ({ workId, title: `第${i + 1}章`, content, position: i + 1, wordCount: content.length })),
  );
  await db.update(works).set({ chapterCount: contents.length }).where(eq(works.id, workId));
}

async function session(userId: string) {
  return cookiePair(await createUserSession(new Request("http://localhost/"), userId));
}

beforeAll(async () => {
  const [owner, other, r18Reader, buyer] = [await createUser(), await createUser(), await createUser(), await createUser()];
  await setViewerPrefs(r18Reader.id, { showR18: true });
  await setViewerPrefs(buyer.id, { showR18: true });
  const [pub, paid, priv, r18] = await insertWorks([
    { userId: owner.id, title: "公开作品" },
    { userId: owner.id, title: "付费作品", visibility: "public-vip", price: 10 },
    { userId: owner.id, title: "私密作品", visibility: "private" },
    { userId: owner.id, title: "成人作品", rating: "r18" },
  ]);
  const ids = { public: pub, paid, private: priv, r18 };
  const secrets = { public: secret("public"), paid: secret("paid"), private: secret("private"), r18: secret("r18") };
  for (const kind of Object.keys(ids) as Kind[]) {
    await addChapters(ids[kind], [`${secrets[kind]} 第一段\n\n第二段`, `第二章 ${secrets[kind]}`]);
  }
  await db.transaction((tx) => credit(tx, buyer.id, 100, "测试充值"));
  await purchaseWork(buyer.id, paid);
  fixture.ids = ids;
  fixture.secrets = secrets;
  fixture.cookies = {
    visitor: null,
    other: await session(other.id),
    r18Reader: await session(r18Reader.id),
    owner: await session(owner.id),
    buyer: await session(buyer.id),
  };
});

function get(path: string, who: Who) {
  const cookie = fixture.cookies[who];
  return new Request(`http://localhost${path}`, { headers: cookie ? { Cookie: cookie } : {} });
}

interface Outcome {
  status: number;
  body: string;
  data?: Record<string, unknown>;
}

/** Calls a loader as the router would and captures what the browser could receive. */
type AnyLoader = (args: never) => unknown;
const modules = {
  work: () => import("~/routes/shell/reader/work"),
  paragraphs: () => import("~/routes/shell/reader/paragraphs"),
};

async function callLoader(module: keyof typeof modules, path: string, who: Who, id: number): Promise<Outcome> {
  const mod = await modules[module]();
  try {
    const result = await runRoute("loader", mod, get(path, who), { id: String(id) });
    if (result instanceof Response) return { status: result.status, body: await result.text() };
    return { status: 200, body: JSON.stringify(result), data: result as Record<string, unknown> };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, body: await thrown.text() };
    const init = (thrown as { init?: ResponseInit; data?: unknown }).init;
    if (init) return { status: init.status ?? 500, body: JSON.stringify((thrown as { data?: unknown }).data) };
    throw thrown;
  }
}

const page = (who: Who, kind: Kind, query = "") =>
  callLoader("work", `/works/${fixture.ids[kind]}${query}`, who, fixture.ids[kind]);
const paragraphs = (who: Who, kind: Kind, chapter = 1) =>
  callLoader(
    "paragraphs",
    `/works/${fixture.ids[kind]}/paragraphs?chapter=${chapter}&from=0`,
    who,
    fixture.ids[kind],
  );

/** Who may read each kind of work (docs/product.md: Roles, D5). */
const MATRIX: Record<Kind, Record<Who, "read" | "404" | "login-for-r18" | "enable-r18" | "locked">> = {
  public: { visitor: "read", other: "read", r18Reader: "read", owner: "read", buyer: "read" },
  paid: { visitor: "locked", other: "locked", r18Reader: "locked", owner: "read", buyer: "read" },
  private: { visitor: "404", other: "404", r18Reader: "404", owner: "read", buyer: "404" },
  r18: { visitor: "login-for-r18", other: "enable-r18", r18Reader: "read", owner: "read", buyer: "read" },
};

describe("reader permissions", () => {
  for (const kind of Object.keys(MATRIX) as Kind[]) {
    for (const who of Object.keys(MATRIX[kind]) as Who[]) {
      const expected = MATRIX[kind][who];
      it(`${kind} work, ${who}: ${expected}`, async () => {
        const secretText = fixture.secrets[kind];
        const workPage = await page(who, kind);
        const chapterPage = await page(who, kind, "?chapter=2");
        const batch = await paragraphs(who, kind, 2);
        const outcomes = [workPage, chapterPage, batch];

        if (expected === "read") {
          expect(workPage.status).toBe(200);
          expect(workPage.data?.mode).toBe("work");
          // The table of contents carries the previews.
          expect(workPage.body).toContain(secretText);
          expect(chapterPage.data?.mode).toBe("chapter");
          expect((chapterPage.data?.batch as { paragraphs: string[] }).paragraphs).toEqual([`第二章 ${secretText}`]);
          expect(batch.status).toBe(200);
          expect(JSON.parse(batch.body).paragraphs).toEqual([`第二章 ${secretText}`]);
          return;
        }
        // Nothing else may carry any chapter text.
        for (const outcome of outcomes) expect(outcome.body).not.toContain(secretText);
        if (expected === "404") {
          expect(outcomes.map((o) => o.status)).toEqual([404, 404, 404]);
        } else if (expected === "locked") {
          expect(workPage.data?.mode).toBe("work");
          expect((workPage.data?.access as { canReadContent: boolean }).canReadContent).toBe(false);
          expect(chapterPage.data?.mode).toBe("work");
          expect(chapterPage.data?.lockedChapter).toBe(true);
          const toc = workPage.data?.toc as { chapters: { title: string; preview: string | null }[] };
          expect(toc.chapters.map((c) => [c.title, c.preview])).toEqual([
            ["第1章", null],
            ["第2章", null],
          ]);
          expect(batch.status).toBe(403);
        } else {
          expect(workPage.data?.gate).toBe(expected);
          expect(chapterPage.data?.gate).toBe(expected);
          expect(workPage.data).not.toHaveProperty("toc");
          expect(batch.status).toBe(403);
        }
      });
    }
  }

  it("a missing work and a malformed id are 404", async () => {
    const missing = await callLoader("work", "/works/99999999", "other", 99999999);
    expect(missing.status).toBe(404);
    const work = await import("~/routes/shell/reader/work");
    await expect(runRoute("loader", work, get("/works/abc", "visitor"))).rejects.toMatchObject({ init: { status: 404 } });
  });

  it("a missing chapter is 404 and says 章节不存在", async () => {
    const outcome = await page("owner", "public", "?chapter=99");
    expect(outcome.status).toBe(404);
    expect(outcome.body).toContain("章节不存在");
    expect((await paragraphs("owner", "public", 99)).status).toBe(404);
  });

  it("/work/:id redirects permanently to /works/:id, keeping the query", async () => {
    const redirect = await import("~/routes/shell/reader/work-redirect");
    const response = (await runRoute("loader", redirect, get("/work/12?chapter=3", "visitor"))) as Response;
    expect(response.status).toBe(301);
    expect(response.headers.get("Location")).toBe("/works/12?chapter=3");
  });
});

describe("paragraphs", () => {
  it("splits on line breaks, trims, drops empty lines", () => {
    expect(splitParagraphs("　　第一段\r\n\r\n  \n第二段\r第三段\n\n")).toEqual(["第一段", "第二段", "第三段"]);
  });

  it("serves 50 paragraphs a batch, then the rest", () => {
    const all = Array.from({ length: 120 }, (_, i) => `段落${i}`);
    const first = paragraphBatch(all, 0);
    expect(first.paragraphs).toHaveLength(PARAGRAPH_BATCH);
    expect(first.next).toBe(50);
    expect(paragraphBatch(all, 100)).toMatchObject({ from: 100, next: null, total: 120 });
    expect(paragraphBatch(all, 100).paragraphs).toHaveLength(20);
    expect(paragraphBatch(all, 999).paragraphs).toEqual([]);
  });

  it("serves the batch before a paragraph, for scrolling up from a resumed position", () => {
    const all = Array.from({ length: 200 }, (_, i) => `段落${i}`);
    expect(paragraphBatchBefore(all, 140)).toMatchObject({ from: 90, next: 140, total: 200 });
    expect(paragraphBatchBefore(all, 140).paragraphs).toEqual(all.slice(90, 140));
    expect(paragraphBatchBefore(all, 30)).toMatchObject({ from: 0, paragraphs: all.slice(0, 30) });
    expect(paragraphBatchBefore(all, 0).paragraphs).toEqual([]);
    expect(paragraphBatchBefore(all, 999)).toMatchObject({ from: 150, next: null });
    // Long paragraphs: the same character limit as going forward, at least one paragraph.
    const long = Array.from({ length: 40 }, () => "长".repeat(PARAGRAPH_MAX_CHARS));
    const back = paragraphBatchBefore(long, 40);
    expect(back.paragraphs.length).toBeGreaterThanOrEqual(1);
    expect(back.paragraphs.join("").length).toBeLessThanOrEqual(Math.max(BATCH_MAX_CHARS, PARAGRAPH_MAX_CHARS));
    expect(back.from + back.paragraphs.length).toBe(40);
  });

  it("the paragraphs route answers ?before= with the batch before, behind the same gates", async () => {
    const all = Array.from({ length: 120 }, (_, i) => `前文${i}`);
    const [id] = await insertWorks([{ userId: (await createUser()).id, title: "向上" }]);
    await addChapters(id, [all.join("\n")]);
    const before = await callLoader("paragraphs", `/works/${id}/paragraphs?chapter=1&before=100`, "visitor", id);
    expect(before.status).toBe(200);
    expect(JSON.parse(before.body)).toMatchObject({ from: 50, next: 100, paragraphs: all.slice(50, 100) });
    const locked = await callLoader("paragraphs", `/works/${fixture.ids.paid}/paragraphs?chapter=1&before=1`, "visitor", fixture.ids.paid);
    expect(locked.status).toBe(403);
    expect(locked.body).not.toContain(fixture.secrets.paid);
  });

  it("keeps a batch of a 1 MB chapter small even with very long paragraphs", () => {
    const chapter = Array.from({ length: 40 }, () => "长".repeat(8_000)).join("\n"); // ~1 MB in UTF-8
    const all = splitParagraphs(chapter);
    expect(Math.max(...all.map((p) => p.length))).toBeLessThanOrEqual(PARAGRAPH_MAX_CHARS);
    const first = paragraphBatch(all, 0);
    expect(first.paragraphs.join("").length).toBeLessThanOrEqual(BATCH_MAX_CHARS);
    expect(first.next).toBe(first.paragraphs.length);
  });

  it("previews are 100 characters with whitespace squeezed", () => {
    expect(previewOf("　　开头\n\n" + "字".repeat(200))).toBe(`开头 ${"字".repeat(97)}…`);
    expect(previewOf("短")).toBe("短");
  });
});

describe("reading progress", () => {
  it("opening a chapter records it; 继续阅读 on the work page goes back there", async () => {
    const reader = await createUser();
    const cookie = await session(reader.id);
    const [id] = await insertWorks([{ userId: (await createUser()).id, title: "长篇" }]);
    await addChapters(id, ["甲", Array.from({ length: 130 }, (_, i) => `第${i}段`).join("\n")]);
    const workPage = await import("~/routes/shell/reader/work");
    const open = (query: string) =>
      runRoute("loader", workPage, new Request(`http://localhost/works/${id}${query}`, { headers: { Cookie: cookie } })) as Promise<
        Record<string, unknown>
      >;

    await open("?chapter=2&from=50");
    const work = await open("");
    expect(work.progress).toEqual({ href: `/works/${id}?chapter=2&from=50#p-50`, chapterTitle: "第2章" });

    // Scrolling saves a finer position; reloading the same batch keeps it.
    const progress = await import("~/routes/shell/reader/progress");
    const saved = (await runRoute(
      "action",
      progress,
      postRequest(`/works/${id}/progress`, { chapter: "2", paragraph: "73" }, { Cookie: cookie }),
    )) as Response;
    expect(saved.status).toBe(204);
    await open("?chapter=2&from=50");
    expect((await open("")).progress).toMatchObject({ href: progressHref(id, { chapterOrder: 2, paragraph: 73 }) });

    // Opening another chapter moves it.
    await open("?chapter=1");
    expect((await open("")).progress).toMatchObject({ href: `/works/${id}?chapter=1#p-0` });
  });

  it("the progress route refuses visitors, other origins, and works the user may not read", async () => {
    const owner = await createUser();
    const reader = await createUser();
    const cookie = await session(reader.id);
    const [paid] = await insertWorks([{ userId: owner.id, title: "锁住", visibility: "public-vip", price: 3 }]);
    await addChapters(paid, ["正文"]);
    const progress = await import("~/routes/shell/reader/progress");
    const post = (headers: Record<string, string>) =>
      runRoute("action", progress, postRequest(`/works/${paid}/progress`, { chapter: "1", paragraph: "0" }, headers)) as Promise<Response>;

    expect((await post({})).status).toBe(401);
    expect((await post({ Cookie: cookie, Origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ Cookie: cookie })).status).toBe(404);
    const rows = await db
      .select()
      .from(readingProgress)
      .where(and(eq(readingProgress.userId, reader.id), eq(readingProgress.workId, paid)));
    expect(rows).toEqual([]);
  });
});
