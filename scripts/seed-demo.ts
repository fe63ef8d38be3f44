// npm run seed:demo: a few demo accounts and works of every type, rating and price, for
// trying the site by hand. Safe to run twice. With PGlite it refuses while the server
// runs: stop the server first.
import { eq } from "drizzle-orm";
import { openDatabase } from "./lib/database";

const { db, closeDatabase } = await openDatabase();
const { chapters, credits, users, works } = await import("~/db/schema");
const { register } = await import("~/server/identity/auth.server");
const { countWords } = await import("~/utils/text");

const PASSWORD = "demo-password";
const DEMO_USERS = [
  { email: "writer@demo.inkstone", nickname: "青灯", credits: 0 },
  { email: "reader@demo.inkstone", nickname: "听雨", credits: 200 },
  { email: "night@demo.inkstone", nickname: "夜航船", credits: 50 },
];

const SCENES = [
  "雨落在青石板上，巷子深处传来一声悠长的吆喝。她撑着油纸伞，在茶馆门前停了停，终究还是推门进去。",
  "掌柜抬起头，认出了她。十年前，她也是这样在雨夜里走进来，要了一壶龙井，一坐就是一整夜。",
  "“还是老规矩？”掌柜问。她点点头，把伞靠在门边，水顺着伞骨一滴一滴落下来，在地上积成一小片水洼。",
  "窗外的灯笼被风吹得摇晃，光影在墙上来回移动。她从怀里取出一封信，信封已经泛黄，边角磨得起了毛。",
  "这封信她一直没有拆开。写信的人说过，等到桂花开第十次的时候，再拆。今年的桂花，已经开了。",
  "茶端上来了，热气氤氲。她深吸一口气，用指甲轻轻挑开封口，里面只有一张薄薄的纸，和一枚干枯的桂花。",
];

function body(seed: number, paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) => SCENES[(seed + i) % SCENES.length]).join("\n\n");
}

async function ensureUser(u: (typeof DEMO_USERS)[number]) {
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, u.email));
  if (existing) return { id: existing.id, created: false };
  const form = new FormData();
  form.set("email", u.email);
  form.set("password", PASSWORD);
  const user = await register(form, "seed");
  const { profiles } = await import("~/db/schema");
  await db.update(profiles).set({ nickname: u.nickname, showR18: u.email.startsWith("night") }).where(eq(profiles.id, user.id));
  if (u.credits > 0) {
    const { creditTransactions } = await import("~/db/schema");
    await db.transaction(async (tx) => {
      await tx.update(credits).set({ balance: u.credits }).where(eq(credits.userId, user.id));
      await tx.insert(creditTransactions).values({ userId: user.id, amount: u.credits, type: "recharge", description: "演示数据充值" });
    });
  }
  return { id: user.id, created: true };
}

type Seed = {
  title: string;
  description: string;
  type: "single_chapter" | "multi_chapter" | "series";
  status: "completed" | "ongoing";
  visibility: "public" | "public-vip" | "private";
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
  price: number;
  chapters: { title: string; content: string }[];
};

function demoWorks(): Seed[] {
  return [
    { title: "桂花信", description: "十年前的一封信，约定桂花开第十次时再拆。一个关于等待与告别的短篇。", type: "single_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false, price: 0, chapters: [{ title: "正文", content: body(0, 6) }] },
    { title: "江南旧梦", description: "民国年间，江南小镇上一家茶馆的十个夜晚。多章节完结作品。", type: "multi_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: false, price: 0, chapters: Array.from({ length: 5 }, (_, i) => ({ title: `第${i + 1}夜`, content: body(i, 8) })) },
    { title: "长安夜行录", description: "大唐长安，一个不良人在上元节的夜里追查一桩悬案。连载中，每周更新。", type: "series", status: "ongoing", visibility: "public-vip", rating: "all_ages", isAiGenerated: false, price: 12, chapters: Array.from({ length: 3 }, (_, i) => ({ title: `第${i + 1}章`, content: body(i + 2, 10) })) },
    { title: "星海之外", description: "AI 辅助创作的科幻短篇：最后一艘殖民船上的人工智能醒来了。", type: "single_chapter", status: "completed", visibility: "public", rating: "all_ages", isAiGenerated: true, price: 0, chapters: [{ title: "正文", content: body(3, 5) }] },
    { title: "夜色温柔", description: "成人向都市情感故事，仅对开启 R-18 显示的读者可见。", type: "single_chapter", status: "completed", visibility: "public-vip", rating: "r18", isAiGenerated: false, price: 5, chapters: [{ title: "正文", content: body(4, 6) }] },
    { title: "未完成的草稿", description: "还没有准备好公开的作品。", type: "single_chapter", status: "completed", visibility: "private", rating: "all_ages", isAiGenerated: false, price: 0, chapters: [{ title: "正文", content: body(5, 3) }] },
  ];
}

try {
  const ids = [];
  for (const u of DEMO_USERS) ids.push(await ensureUser(u));
  const writer = ids[0];
  if (writer.created) {
    for (const w of demoWorks()) {
      await db.transaction(async (tx) => {
        const words = w.chapters.reduce((n, c) => n + countWords(c.content), 0);
        const [work] = await tx
          .insert(works)
          .values({ userId: writer.id, title: w.title, description: w.description, type: w.type, status: w.status, visibility: w.visibility, rating: w.rating, isAiGenerated: w.isAiGenerated, price: w.price, wordCount: words, chapterCount: w.chapters.length })
          .returning({ id: works.id });
        await tx.insert(chapters).values(
          w.chapters.map((c, i) => ({ workId: work.id, title: c.title, content: c.content, position: i + 1, wordCount: countWords(c.content) })),
        );
      });
    }
    console.log("已写入演示数据：");
  } else {
    console.log("演示数据已存在：");
  }
  for (const u of DEMO_USERS) console.log(`  ${u.email} / ${PASSWORD}（${u.nickname}）`);
} finally {
  await closeDatabase();
}
