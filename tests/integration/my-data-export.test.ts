import { eq } from "drizzle-orm";
import JSZip from "jszip";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters } from "~/db/schema";
import { loader as myDataLoader } from "~/routes/exports/my-data";
import { addMark } from "~/server/reading/marks.server";
import { postComment } from "~/server/community/comments.server";
import { purchaseWork } from "~/server/economy/ledger.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { fund } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";

/**
 * 导出我的数据 (decision 231): the zip holds the signed-in person's own profile, works with
 * their chapters' text, comments, purchases, ledgers and income, readable (JSON, CSV with
 * Chinese headers, TXT) with a README, and nothing of anyone else's.
 */

const viewer = (id: string) => ({ id, showR18: false, showAi: true });

let me: { id: string; email: string };
let other: { id: string; email: string };
let myWork: number;
let otherWork: number;

async function download(cookie: string | null): Promise<Response> {
  const request = cookie ? userRequest(cookie, "/exports/my-data.zip") : new Request("http://localhost/exports/my-data.zip");
  try {
    return (await callThroughRoutes(myDataLoader, { request })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

async function zipOf(response: Response): Promise<JSZip> {
  expect(response.status).toBe(200);
  return JSZip.loadAsync(new Uint8Array(await response.arrayBuffer()));
}

async function text(zip: JSZip, name: string): Promise<string> {
  const file = zip.file(name);
  if (!file) throw new Error(`${name} missing; the zip holds ${Object.keys(zip.files).join(", ")}`);
  return file.async("string");
}

beforeAll(async () => {
  me = await createUser();
  other = await createUser();
  // My work: a published chapter and a draft; the other's paid work, which I buy and comment on.
  [myWork] = await insertWorks([{ userId: me.id, title: "我的《山海》" }]);
  await db.insert(chapters).values([
    { workId: myWork, title: "开篇", content: "　　我写的第一段。\n　　第二段。", position: 1, wordCount: 10 },
    { workId: myWork, title: "未完", content: "存稿里的句子", position: 2, wordCount: 6, state: "draft" },
  ]);
  [otherWork] = await insertWorks([{ userId: other.id, title: "别人的书", visibility: "public-vip", price: 12 }]);
  await db.insert(chapters).values({ workId: otherWork, title: "别人的章", content: "别人的正文，不属于我", position: 1, wordCount: 9 });
  await fund(me.id, 50, "测试充值");
  await fund(other.id, 70, "别人的充值");
  await purchaseWork(me.id, otherWork);
  // The other buys my work too (my income), once it is paid.
  await db.execute(`update works set visibility = 'public-vip', price = 20 where id = ${myWork}`);
  await purchaseWork(other.id, myWork);
  await postComment(viewer(me.id), { workId: otherWork, order: 1, paragraph: null, parentId: null, body: "我的评论：好看" });
  const [bought] = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, otherWork));
  await addMark(viewer(me.id), { workId: otherWork, chapterId: bought.id, kind: "highlight", paragraph: 0, selection: { start: 0, end: 4, quote: "别人的正" }, note: "我的划线笔记" });
  await postComment(viewer(other.id), { workId: myWork, order: 1, paragraph: null, parentId: null, body: "别人的评论，不该出现" });
});

describe("导出我的数据", () => {
  it("is a zip of my profile, works, chapters, comments, purchases, ledgers and income, with a README", async () => {
    const response = await download(await sessionCookieFor(me.id));
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="inkstone-my-data-\d{8}\.zip"; filename\*=UTF-8''/);
    const zip = await zipOf(response);

    const readme = await text(zip, "README.txt");
    for (const name of ["个人资料.json", "作品正文/", "作品.csv", "评论.csv", "购买记录.csv", "积分流水.csv", "作者收入.csv", "提现记录.csv"]) {
      expect(readme).toContain(name);
    }

    const profile = JSON.parse(await text(zip, "个人资料.json"));
    expect(profile).toMatchObject({ 用户ID: me.id, 邮箱: me.email, 积分余额: 38 });
    expect(profile.稿酬余额).toBeGreaterThan(0);

    const chaptersText = await text(zip, `作品正文/${myWork}-我的《山海》.txt`);
    expect(chaptersText).toContain("第1章 开篇");
    expect(chaptersText).toContain("我写的第一段。");
    expect(chaptersText).toContain("第2章 未完（存稿）");

    const worksCsv = await text(zip, "作品.csv");
    expect(worksCsv.startsWith("\uFEFF作品ID,标题,简介")).toBe(true);
    expect(worksCsv).toContain("我的《山海》");

    expect(await text(zip, "评论.csv")).toContain("我的评论：好看");
    const purchases = await text(zip, "购买记录.csv");
    expect(purchases).toMatch(/整本,\d+,别人的书,,,12,/);
    const ledger = await text(zip, "积分流水.csv");
    expect(ledger).toContain("收入,50,测试充值");
    expect(ledger).toContain("支出,12,购买作品《别人的书》");
    expect(await text(zip, "作者收入.csv")).toMatch(/销售分成,\d+,0,20,/);
    expect(await text(zip, "书签和划线.csv")).toMatch(/划线,\d+,别人的书,\d+,别人的章,1,别人的正,我的划线笔记,/);
  });

  it("holds nothing of another person's", async () => {
    const zip = await zipOf(await download(await sessionCookieFor(me.id)));
    const everything = (await Promise.all(Object.values(zip.files).filter((f) => !f.dir).map((f) => f.async("string")))).join("\n");
    expect(everything).not.toContain(other.email);
    expect(everything).not.toContain(other.id);
    expect(everything).not.toContain("别人的评论，不该出现");
    expect(everything).not.toContain("别人的正文，不属于我");
    expect(everything).not.toContain("别人的充值");
    expect(Object.keys(zip.files).filter((n) => n.startsWith("作品正文/") && n.endsWith(".txt"))).toEqual([`作品正文/${myWork}-我的《山海》.txt`]);

    // And the other person's own zip has theirs, not mine.
    const theirs = await zipOf(await download(await sessionCookieFor(other.id)));
    expect(JSON.parse(await text(theirs, "个人资料.json")).邮箱).toBe(other.email);
    expect(await text(theirs, "评论.csv")).not.toContain("我的评论：好看");
  });

  it("sends a visitor to sign in first", async () => {
    const visitor = await download(null);
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("Location")).toBe(`/?auth=login&redirectTo=${encodeURIComponent("/exports/my-data.zip")}`);
  });
});
