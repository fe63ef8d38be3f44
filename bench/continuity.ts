// npm run bench:continuity: the continuity checks and the recap over a long serial
// (docs/benchmarks.md#continuity, docs/decisions/247, 252, 260). A generated serial of 2,000
// published chapters (about 2,000 characters each) with 300 characters (their ledgers: 境界 on
// an 8-rung ladder, 生死, 位置, 物品, 年龄), 40 places, 60 items and the story's years, every
// chapter summarised; its text names 8 characters a chapter in sentences that agree with the
// ledgers (speech, 境界, age, where they are, the item they hold, memories of the dead), and
// 300 chapters each carry one injected contradiction, 50 of each of the six kinds the checks
// know. Measures, through the domain functions:
//   - recall (≥ 95%) and precision (≥ 90%) of the deterministic checks over every chapter
//     (checkChapters, as publishing runs it, 100 chapters at a time), a finding counting as
//     right when its chapter, rule and character are an injected one's;
//   - checking one saved chapter (checkAfterSave, as 保存 runs it) p95 < 200 ms;
//   - building a returning reader's recap (recapFor) p95 < 100 ms.
// Flags: --pglite (PGlite in a temporary directory instead of PostgreSQL), --runs=N (default
// 200 of each timing), --keep (leave inkstone_bench_continuity), --seed=N (default 33).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { dropPgDatabase, ensurePgDatabase, fmt, parseFlags, percentile, pgUrlFor, rowsOf } from "./lib-db";

const flags = parseFlags(process.argv.slice(2));
const runs = Number(flags.get("runs") ?? 200);
const usePglite = flags.has("pglite");
const CHAPTERS = 2_000;
const CHARACTERS = 300;
const PLACES = 40;
const ITEMS = 60;
const PER_KIND = 50;
const MENTIONED = 8;
const dbName = "inkstone_bench_continuity";

// --- A deterministic generator ------------------------------------------------------------
let seed = Number(flags.get("seed") ?? 33);
const rand = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: T[]) => xs[int(xs.length)];

// Names of three characters from sets that share no character with each other or the filler.
const SURNAMES = [..."林沈顾陆苏叶萧韩楚秦宋温谢池段白"];
const GIVEN = [..."晚舟辞昭瑶珩砚璃翊琛瑾岚"];
const characterNames: string[] = [];
for (const s of SURNAMES) for (const a of GIVEN) for (const b of GIVEN) if (a !== b && characterNames.length < CHARACTERS && int(3) === 0) characterNames.push(`${s}${a}${b}`);
for (const s of SURNAMES) for (const a of GIVEN) for (const b of GIVEN) if (a !== b && characterNames.length < CHARACTERS && !characterNames.includes(`${s}${a}${b}`)) characterNames.push(`${s}${a}${b}`);
const PLACE_HEADS = [..."玄苍赤碧紫金银铁寒幽"];
const PLACE_TAILS = ["岭城", "渡口", "峰", "谷"];
const placeNames = PLACE_HEADS.flatMap((h) => PLACE_TAILS.map((t) => `${h}霄${t}`)).slice(0, PLACES);
const ITEM_HEADS = [..."龙凤鹤虎蛟麟鹏雀龟蝶"];
const ITEM_TAILS = ["佩剑", "宝珠", "玉印", "铜镜", "长弓", "折扇"];
const itemNames = ITEM_HEADS.flatMap((h) => ITEM_TAILS.map((t) => `${h}纹${t}`)).slice(0, ITEMS);
const LADDER = ["炼气", "筑基", "金丹", "元婴", "化神", "炼虚", "合体", "大乘"];
const FILLER = ["夜色沉沉，雨从檐下落下来。", "远处传来几声犬吠。", "灯火一盏接一盏熄了。", "风过林梢，簌簌有声。", "这一夜格外漫长。", "茶已经凉透了。"];

/** 1..99 as written in a novel: 十六, 二十, 三十五. */
function chineseNumber(n: number): string {
  const d = "零一二三四五六七八九";
  const tens = Math.floor(n / 10);
  return `${tens > 1 ? d[tens] : ""}${tens > 0 ? "十" : ""}${n % 10 || tens === 0 ? d[n % 10] : ""}`;
}

// --- The ledgers, in memory first ---------------------------------------------------------
type Kind = "realm" | "life" | "location" | "item" | "age";
interface Entry {
  char: number;
  chapter: number;
  kind: Kind;
  value: string;
  num?: number;
  action?: "gained" | "lost" | "given";
  note?: string;
}
const entries: Entry[] = [];
const firstOf: number[] = [];
const deathOf = new Map<number, number>();
const itemOf = new Map<number, { item: string; lostAt: number | null }>();
for (let c = 0; c < CHARACTERS; c++) {
  const first = 1 + int(600);
  firstOf.push(first);
  entries.push({ char: c, chapter: first, kind: "age", value: "", num: 14 + int(30) });
  let rung = int(3);
  entries.push({ char: c, chapter: first, kind: "realm", value: LADDER[rung] });
  for (let k = 0; k < 3; k++) {
    const at = first + 100 + int(CHAPTERS - first - 100);
    if (!entries.some((e) => e.char === c && e.kind === "realm" && e.chapter === at)) entries.push({ char: c, chapter: at, kind: "realm", value: "" });
  }
  // Rungs rise in chapter order.
  for (const e of entries.filter((x) => x.char === c && x.kind === "realm").sort((a, b) => a.chapter - b.chapter)) {
    if (e.value === "") e.value = LADDER[(rung = Math.min(LADDER.length - 1, rung + 1))];
  }
  const locations = new Set([first, ...Array.from({ length: 4 }, () => first + int(CHAPTERS - first))]);
  for (const at of locations) entries.push({ char: c, chapter: at, kind: "location", value: pick(placeNames) });
  if (c < ITEMS) {
    const item = itemNames[c];
    entries.push({ char: c, chapter: first, kind: "item", value: item, action: "gained" });
    const lostAt = c < 56 ? first + 50 + int(CHAPTERS - first - 300) : null;
    if (lostAt) entries.push({ char: c, chapter: lostAt, kind: "item", value: item, action: c % 7 === 0 ? "given" : "lost", note: c % 7 === 0 ? "山门长老" : "" });
    itemOf.set(c, { item, lostAt });
  } else if (c < ITEMS + 60) {
    const dies = 700 + int(1_000);
    deathOf.set(c, dies);
    entries.push({ char: c, chapter: dies, kind: "life", value: "dead" });
  }
}
// The story's year: year k from chapter (k - 1) × 100 + 1.
const yearAt = (chapter: number) => Math.floor((chapter - 1) / 100) + 1;
const lastOf = (c: number, kind: Kind, chapter: number) =>
  entries.filter((e) => e.char === c && e.kind === kind && e.chapter <= chapter).sort((a, b) => a.chapter - b.chapter).at(-1);
const ageAt = (c: number, chapter: number) => {
  const a = lastOf(c, "age", chapter)!;
  return a.num! + yearAt(chapter) - yearAt(a.chapter);
};
const alive = (c: number, chapter: number) => chapter >= firstOf[c] && (deathOf.get(c) ?? Infinity) >= chapter;

// --- 300 injected contradictions, one a chapter --------------------------------------------
type Rule = "dead-acts" | "realm-drop" | "item-lost" | "two-places" | "timeline" | "alias-shared";
interface Injected {
  chapter: number;
  rule: Rule;
  chars: number[];
  sentence: string;
}
const injected = new Map<number, Injected>();
const aliasPairs: { a: number; b: number; alias: [string, string] }[] = [];
const free = () => {
  for (;;) {
    const ch = 2 + int(CHAPTERS - 1);
    if (!injected.has(ch)) return ch;
  }
};
const injectWith = (rule: Rule, fits: (ch: number) => number[] | null, sentence: (ch: number, chars: number[]) => string) => {
  for (let done = 0; done < PER_KIND; ) {
    const ch = free();
    const chars = fits(ch);
    if (!chars) continue;
    injected.set(ch, { chapter: ch, rule, chars, sentence: sentence(ch, chars) });
    done++;
  }
};
const candidates = (ch: number, ok: (c: number) => boolean) => {
  const list = Array.from({ length: CHARACTERS }, (_, c) => c).filter((c) => alive(c, ch) && ok(c));
  return list.length ? [pick(list)] : null;
};
const noEntryAt = (c: number, kind: Kind, ch: number) => !entries.some((e) => e.char === c && e.kind === kind && e.chapter === ch);
const dead = [...deathOf.entries()];
injectWith(
  "dead-acts",
  (ch) => {
    const list = dead.filter(([, d]) => d < ch).map(([c]) => c);
    return list.length ? [pick(list)] : null;
  },
  (_, [c]) => pick([`${characterNames[c]}冷笑道：“你们都退下。”`, `${characterNames[c]}：“此事休要再提。”`, `${characterNames[c]}缓缓抬起头来。`, `${characterNames[c]}伸手接过茶盏。`]),
);
let ledgerDrops = 0;
injectWith(
  "realm-drop",
  (ch) => candidates(ch, (c) => LADDER.indexOf(lastOf(c, "realm", ch)!.value) >= 1 && noEntryAt(c, "realm", ch)),
  (ch, [c]) => {
    const rung = LADDER.indexOf(lastOf(c, "realm", ch)!.value);
    const lower = LADDER[int(rung)];
    // Half in the text, half a drop recorded in the ledger without its cause.
    if (ledgerDrops++ % 2 === 0) {
      entries.push({ char: c, chapter: ch, kind: "realm", value: lower });
      return `${characterNames[c]}闭关不出。`;
    }
    return pick([`${characterNames[c]}的修为只剩${lower}。`, `区区${lower}的${characterNames[c]}也敢出手。`, `${characterNames[c]}跌落到了${lower}。`]);
  },
);
injectWith(
  "item-lost",
  (ch) => candidates(ch, (c) => (itemOf.get(c)?.lostAt ?? Infinity) < ch),
  (_, [c]) => pick([`${characterNames[c]}拔出${itemOf.get(c)!.item}，寒光一闪。`, `${characterNames[c]}祭出${itemOf.get(c)!.item}。`, `${characterNames[c]}手持${itemOf.get(c)!.item}挡在门前。`]),
);
injectWith(
  "two-places",
  (ch) => candidates(ch, (c) => noEntryAt(c, "location", ch)),
  (ch, [c]) => {
    const here = lastOf(c, "location", ch)!.value;
    const there = pick(placeNames.filter((p) => p !== here));
    return `${characterNames[c]}${pick(["站在", "身在", "正在"])}${here}的石阶上。${FILLER[0]}${characterNames[c]}${pick(["坐在", "留在", "守在"])}${there}的茶棚里。`;
  },
);
injectWith(
  "timeline",
  (ch) => candidates(ch, () => true),
  (ch, [c]) => {
    const age = ageAt(c, ch) + 5 + int(20);
    return pick([`${characterNames[c]}今年${age}岁。`, `${chineseNumber(age)}岁的${characterNames[c]}站起身来。`, `${characterNames[c]}刚满${chineseNumber(age)}岁。`]);
  },
);
let aliasNo = 0;
injectWith(
  "alias-shared",
  (ch) => {
    const a = candidates(ch, () => true);
    const b = candidates(ch, (c) => c !== a?.[0]);
    return a && b ? [a[0], b[0]] : null;
  },
  (_, [a, b]) => {
    // Two characters answering to one name once width and the name dot are folded.
    const code = `K${String(aliasNo++).padStart(3, "0")}`;
    aliasPairs.push({ a, b, alias: [`阿·${code}`, `阿${code.replace("K", "Ｋ")}`] });
    return `阿·${code}点了点头。`;
  },
);

// --- The chapters' text ----------------------------------------------------------------------
function chapterText(ch: number): string {
  const inj = injected.get(ch);
  const exclude = new Set(inj?.chars ?? []);
  const present = Array.from({ length: CHARACTERS }, (_, c) => c).filter((c) => alive(c, ch) && !exclude.has(c));
  const named: number[] = [];
  while (named.length < Math.min(MENTIONED, present.length)) {
    const c = pick(present);
    if (!named.includes(c)) named.push(c);
  }
  const lines: string[] = [];
  const say = (c: number) => {
    const name = characterNames[c];
    const held = itemOf.get(c);
    switch (int(6)) {
      case 0:
        return `${name}点头道：“此事我记下了。”`;
      case 1:
        return `${name}的修为已是${lastOf(c, "realm", ch)!.value}。`;
      case 2:
        return `${name}今年${ageAt(c, ch)}岁。`;
      case 3:
        return `${name}站在${lastOf(c, "location", ch)!.value}的檐下。`;
      case 4:
        return held && (held.lostAt === null || held.lostAt > ch) ? `${name}握着${held.item}，一言不发。` : `${name}看了一眼窗外。`;
      default:
        return `${name}转身回了屋。`;
    }
  };
  for (const c of named) {
    lines.push(pick(FILLER).repeat(2 + int(3)));
    lines.push(say(c));
    lines.push(pick(FILLER).repeat(2 + int(3)));
  }
  // Near misses the rules must let pass: the dead remembered, mourned or at their grave, a
  // lost item in another's hand or found again, a place and an earlier rung in a memory or
  // in someone's words, a character leaving one place for another, an age long ago.
  const gone = dead.filter(([, d]) => d < ch).map(([c]) => c);
  const [a, b] = named;
  if (gone.length) {
    const g = characterNames[pick(gone)];
    lines.push(pick([`众人想起当年的${g}，久久无言。`, `${g}的坟前，${characterNames[a]}默默站着。`, `${g}生前最爱喝酒。`, `${characterNames[a]}说起${g}的旧事。`]));
    lines.push(`${g}站过的地方，如今只剩一座孤坟。`);
  }
  const lostOnes = [...itemOf.entries()].filter(([c, h]) => h.lostAt !== null && h.lostAt < ch && !named.includes(c) && !exclude.has(c));
  if (lostOnes.length && b !== undefined) {
    const [holder, held] = pick(lostOnes);
    lines.push(`${characterNames[b]}握着${held.item}，若有所思。`);
    if (alive(holder, ch) && int(2) === 0) lines.push(`${characterNames[holder]}找回了${held.item}，重新握着它。`);
  }
  const here = a === undefined ? null : lastOf(a, "location", ch)?.value;
  if (here && noEntryAt(a, "location", ch)) {
    lines.push(`${characterNames[a]}站在${here}的檐下。`);
    lines.push(`${characterNames[a]}想起当年站在${pick(placeNames.filter((p) => p !== here))}的日子。`);
  }
  if (a !== undefined && b !== undefined) {
    const rank = LADDER.indexOf(lastOf(a, "realm", ch)!.value);
    if (rank >= 1) lines.push(pick([`${characterNames[a]}想起自己当年还是${LADDER[0]}。`, `${characterNames[b]}对${characterNames[a]}说：“你那时不过${LADDER[0]}。”`]));
    lines.push(`${characterNames[b]}${chineseNumber(Math.max(1, ageAt(b, ch) - 6))}岁那年，第一次进城。`);
  }
  const traveller = named[2];
  if (traveller !== undefined) lines.push(`${characterNames[traveller]}离开${pick(placeNames)}，来到${pick(placeNames)}。`);
  if (inj) lines.splice(1 + int(lines.length - 1), 0, inj.sentence);
  return lines.join("\n");
}

// --- Seed the database ---------------------------------------------------------------------
let tmp: string | null = null;
if (usePglite) {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-continuity-"));
  process.env.PGLITE_DIR = path.join(tmp, "pglite");
  process.env.DATA_DIR = tmp;
  delete process.env.DATABASE_URL;
} else {
  await ensurePgDatabase(dbName, true);
  process.env.DATABASE_URL = pgUrlFor(dbName);
  process.env.DATABASE_POOL_SIZE ??= "6";
}
const { closeDatabase, db } = await import("~/db/client.server");
const { register } = await import("~/server/identity/auth.server");
const { createWork, getWorkForViewer } = await import("~/server/catalog/works.server");
const { sql } = await import("drizzle-orm");
const schema = await import("~/db/schema");
const { checkAfterSave, checkChapters } = await import("~/server/studio/continuity.server");
const { recapFor } = await import("~/server/reading/recap.server");

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
const t0 = performance.now();
const author = await register(form({ email: "author@example.com", password: "correct-horse-battery" }), "127.0.0.1");
const work = await createWork(author.id, { title: "两千章", description: "简介", rating: "all_ages", isAiGenerated: false, visibility: "public", type: "series", status: "ongoing" }, [{ title: "第1章", content: "正文" }], null);
const workId = work.id;
await db.execute(sql`delete from chapters where work_id = ${workId}`);
const chapterIds: number[] = [];
for (let from = 1; from <= CHAPTERS; from += 100) {
  const rows = await db
    .insert(schema.chapters)
    .values(
      Array.from({ length: 100 }, (_, i) => {
        const n = from + i;
        const content = chapterText(n);
        return { workId, title: `第${n}章`, content, position: n * 65_536, wordCount: content.length, state: "published" as const, publishAt: new Date() };
      }),
    )
    .returning({ id: schema.chapters.id });
  chapterIds.push(...rows.map((r) => Number(r.id)));
}
await db.insert(schema.chapterSummaries).values(chapterIds.map((chapterId, i) => ({ chapterId, workId, summary: `第${i + 1}章：${"主角们奔走于江湖，各怀心事。".repeat(6)}` })));
await db.insert(schema.storyLadderRungs).values(LADDER.map((name, i) => ({ workId, rank: i + 1, name })));
const entityIds: number[] = [];
const insertEntities = async (kind: "character" | "place" | "item", names: string[]) => {
  const rows = await db.insert(schema.storyEntities).values(names.map((name) => ({ workId, kind, name }))).returning({ id: schema.storyEntities.id });
  await db.insert(schema.storyEntityNames).values(rows.map((r, i) => ({ workId, name: names[i], entityId: Number(r.id), isAlias: false })));
  return rows.map((r) => Number(r.id));
};
entityIds.push(...(await insertEntities("character", characterNames)));
const placeIds = await insertEntities("place", placeNames);
const itemIds = await insertEntities("item", itemNames);
await db.insert(schema.storyEntityNames).values(aliasPairs.flatMap((p) => [{ workId, name: p.alias[0], entityId: entityIds[p.a] }, { workId, name: p.alias[1], entityId: entityIds[p.b] }]));
const ledgerRows = [
  ...entries.map((e) => ({ workId, entityId: entityIds[e.char], chapter: e.chapter, kind: e.kind, value: e.value, num: e.num ?? null, action: e.action ?? null, note: e.note ?? "" })),
  ...Array.from({ length: CHAPTERS / 100 }, (_, k) => ({ workId, entityId: null, chapter: k * 100 + 1, kind: "time" as const, value: `第${k + 1}年`, num: k + 1, action: null, note: "" })),
];
for (let i = 0; i < ledgerRows.length; i += 500) await db.insert(schema.storyStates).values(ledgerRows.slice(i, i + 500));
// Statistics for the planner, on both (PGlite has no autovacuum; a serial filled over months would have them).
await db.execute(sql.raw("vacuum analyze"));
const seconds = (performance.now() - t0) / 1000;
console.log(
  `seeded ${CHAPTERS} chapters, ${CHARACTERS} characters + ${placeIds.length} places + ${itemIds.length} items, ${ledgerRows.length} ledger entries, ${injected.size} injected contradictions on ${usePglite ? "PGlite" : "PostgreSQL"} in ${fmt(seconds)} s`,
);

const before = busy();
console.log(`machine: ${describeMachine()}`);

// --- Recall and precision over every chapter -----------------------------------------------
const tCheck = performance.now();
for (let i = 0; i < chapterIds.length; i += 100) await db.transaction((tx) => checkChapters(tx, workId, chapterIds.slice(i, i + 100)));
const checkAllSeconds = (performance.now() - tCheck) / 1000;
const found = await db
  .select({ chapter: schema.continuityFindings.chapterNumber, rule: schema.continuityFindings.rule, entityId: schema.continuityFindings.entityId, quote: schema.continuityFindings.quote, message: schema.continuityFindings.message })
  .from(schema.continuityFindings)
  .where(sql`work_id = ${workId}`);
const rightFor = (f: (typeof found)[number]) => {
  const inj = injected.get(f.chapter);
  return !!inj && inj.rule === f.rule && inj.chars.some((c) => entityIds[c] === Number(f.entityId));
};
const rules: Rule[] = ["dead-acts", "realm-drop", "item-lost", "two-places", "timeline", "alias-shared"];
const perRule = rules.map((rule) => {
  const mine = [...injected.values()].filter((i) => i.rule === rule);
  const hit = mine.filter((i) => found.some((f) => f.chapter === i.chapter && rightFor(f))).length;
  const reported = found.filter((f) => f.rule === rule);
  const right = reported.filter(rightFor).length;
  return { rule, injected: mine.length, hit, reported: reported.length, right };
});
const hits = perRule.reduce((s, r) => s + r.hit, 0);
const right = found.filter(rightFor).length;
const recall = hits / injected.size;
const precision = found.length ? right / found.length : 0;
console.log(`checked all ${CHAPTERS} chapters (checkChapters, 100 at a time) in ${fmt(checkAllSeconds)} s`);
console.log("| rule | injected | found | reported | of them right |");
console.log("|---|---|---|---|---|");
for (const r of perRule) console.log(`| ${r.rule} | ${r.injected} | ${r.hit} | ${r.reported} | ${r.right} |`);
console.log(`recall ${fmt(recall * 100)}% (${hits}/${injected.size}) ${recall >= 0.95 ? "ok" : "MISSED (≥ 95%)"}; precision ${fmt(precision * 100)}% (${right}/${found.length}) ${precision >= 0.9 ? "ok" : "MISSED (≥ 90%)"}`);
const wrong = found.filter((f) => !rightFor(f));
for (const f of wrong.slice(0, 5)) console.log(`  not injected: 第${f.chapter}章 ${f.rule}: ${f.message} «${f.quote}»`);
const missed = [...injected.values()].filter((i) => !found.some((f) => f.chapter === i.chapter && rightFor(f)));
for (const i of missed.slice(0, 5)) console.log(`  missed: 第${i.chapter}章 ${i.rule}: «${i.sentence}»`);

// --- Checking one saved chapter ------------------------------------------------------------
const order = (i: number) => 1 + ((i * 7_919) % CHAPTERS);
for (let i = 0; i < 10; i++) await checkAfterSave(workId, chapterIds[order(i) - 1]);
const saves: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await checkAfterSave(workId, chapterIds[order(i + 10) - 1]);
  saves.push(performance.now() - t);
}
saves.sort((a, b) => a - b);
const saveP95 = percentile(saves, 95);
console.log(`checkAfterSave, a random chapter of ${CHAPTERS} (${runs} runs)  p50 ${fmt(percentile(saves, 50))} ms  p95 ${fmt(saveP95)} ms  max ${fmt(saves.at(-1)!)} ms  ${saveP95 < 200 ? "ok" : "MISSED (< 200 ms)"}`);
// Of which the rules themselves (the pure checkContinuity, no database), on the same chapters.
const { checkContinuity } = await import("~/server/studio/continuity");
const [allEntities, allNames, allStates, texts] = await Promise.all([
  db.select().from(schema.storyEntities).where(sql`work_id = ${workId}`),
  db.select().from(schema.storyEntityNames).where(sql`work_id = ${workId}`),
  db.select().from(schema.storyStates).where(sql`work_id = ${workId}`),
  db.select({ id: schema.chapters.id, content: schema.chapters.content }).from(schema.chapters).where(sql`work_id = ${workId}`),
]);
const textOf = new Map(texts.map((t) => [Number(t.id), t.content]));
const checkEntities = allEntities.map((e) => ({ id: Number(e.id), kind: e.kind, name: e.name, names: allNames.filter((n) => Number(n.entityId) === Number(e.id)).map((n) => n.name) }));
const ledger = allStates.map((r) => ({ id: Number(r.id), entityId: r.entityId === null ? null : Number(r.entityId), chapter: r.chapter, kind: r.kind, value: r.value, num: r.num, action: r.action ?? null, note: r.note }));
const pure: number[] = [];
for (let i = 0; i < runs; i++) {
  const n = order(i + 10);
  const t = performance.now();
  checkContinuity({ chapter: n, text: textOf.get(chapterIds[n - 1])!, entities: checkEntities, ladder: LADDER, states: ledger.filter((e) => e.chapter <= n) });
  pure.push(performance.now() - t);
}
pure.sort((a, b) => a - b);
console.log(`  of which checkContinuity alone (the rules, no database)  p50 ${fmt(percentile(pure, 50))} ms  p95 ${fmt(percentile(pure, 95))} ms`);

// --- Building a recap ----------------------------------------------------------------------
const readers: string[] = [];
const users = rowsOf<{ id: string }>(
  await db.execute(sql`
    with u as (insert into users (email, password_hash) select 'reader' || g || '@example.com', 'none' from generate_series(1, 50) g returning id, email)
    insert into profiles (id, email, nickname) select id, email, '读者' || right(email, 14) from u returning id`),
);
await db.insert(schema.readingProgress).values(
  users.map((u, i) => ({ userId: u.id, workId, chapterId: chapterIds[order(i * 3) - 1], paragraph: 0, updatedAt: new Date(Date.now() - 10 * 86_400_000) })),
);
readers.push(...users.map((u) => u.id));
const viewOf = (id: string) => getWorkForViewer(workId, { id, showR18: false, showAi: true });
for (let i = 0; i < 10; i++) await recapFor(await viewOf(readers[i]), readers[i]);
const recaps: number[] = [];
let told = 0;
for (let i = 0; i < runs; i++) {
  const reader = readers[i % readers.length];
  const view = await viewOf(reader);
  const t = performance.now();
  const recap = await recapFor(view, reader);
  recaps.push(performance.now() - t);
  told += recap?.chapters.length ?? 0;
}
recaps.sort((a, b) => a - b);
const recapP95 = percentile(recaps, 95);
console.log(
  `recapFor, readers at random chapters of ${CHAPTERS}, back after 10 days (${runs} runs, ${fmt(told / runs)} chapters told)  p50 ${fmt(percentile(recaps, 50))} ms  p95 ${fmt(recapP95)} ms  max ${fmt(recaps.at(-1)!)} ms  ${recapP95 < 100 ? "ok" : "MISSED (< 100 ms)"}`,
);
console.log(describeBusy(before, busy()));

await closeDatabase();
if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
else if (!flags.has("keep")) await dropPgDatabase(dbName);
