import { createHash } from "node:crypto";
import type { ContinuityRule, ItemAction, StateKind } from "~/schemas/continuity-rules";

/**
 * The continuity checks (docs/product.md#continuity, docs/decisions/247): deterministic
 * rules over a work's state ledgers and one chapter's text. Pure: no database, no clock;
 * the caller (continuity.server.ts) loads the ledgers up to the chapter and stores what
 * this returns. Mentions are found by every name and alias, the longest first, so 小周子
 * is never also read as 小周.
 */

export interface CheckEntity {
  id: number;
  kind: "character" | "place" | "item" | "faction";
  name: string;
  /** Every name it answers to, its own included. */
  names: string[];
}

export interface LedgerEntry {
  id: number;
  /** null for the story's time. */
  entityId: number | null;
  chapter: number;
  kind: StateKind;
  value: string;
  num: number | null;
  action: ItemAction | null;
  note: string;
}

interface FindingFact {
  chapter: number | null;
  text: string;
  entityId: number | null;
}

export interface Finding {
  rule: ContinuityRule;
  /** Stable across checks of the same text and ledger: what a waiver names. */
  key: string;
  entityId: number | null;
  message: string;
  /** The sentence of the chapter (empty when the finding is in the ledger itself). */
  quote: string;
  facts: FindingFact[];
}

export interface ContinuityInput {
  /** The chapter's reader number. */
  chapter: number;
  text: string;
  entities: CheckEntity[];
  /** The 境界 ladder, lowest first. */
  ladder: string[];
  /** Ledger entries up to the chapter (later ones are ignored). */
  states: LedgerEntry[];
}

const QUOTE_MAX = 120;

// --- Text ---------------------------------------------------------------------------

interface Sentence {
  start: number;
  text: string;
}

/** Sentences: up to 。！？!? or a line end, closing quotes kept with them. @internal */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  const re = /[^。！？!?\n]+[。！？!?…]*[”’」』"]*/gu;
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (t.trim()) out.push({ start: m.index, text: t });
  }
  return out;
}

interface Mention {
  entityId: number;
  name: string;
  /** Offset in the sentence. */
  at: number;
}

/**
 * Every mention of every entity in each sentence, longest names first, none overlapping:
 * one scan of the whole text per name, then each hit placed in its sentence. @internal
 */
export function findMentions(sentences: Sentence[], entities: CheckEntity[]): Mention[][] {
  const names = entities.flatMap((e) => e.names.map((name) => ({ name, entityId: e.id }))).filter((n) => n.name);
  names.sort((a, b) => b.name.length - a.name.length);
  const out: Mention[][] = sentences.map(() => []);
  if (sentences.length === 0) return out;
  const last = sentences.at(-1)!;
  const text = sentences.map((s) => s.text).join("");
  // The sentences' offsets in the joined text (splitSentences drops only what lies between them).
  const starts: number[] = [];
  let offset = 0;
  for (const s of sentences) {
    starts.push(offset);
    offset += s.text.length;
  }
  const covered = new Uint8Array(text.length);
  for (const n of names) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(n.name, from);
      if (at < 0) break;
      from = at + 1;
      const end = at + n.name.length;
      let free = true;
      for (let i = at; i < end; i++) if (covered[i]) free = false;
      if (!free) continue;
      // The sentence that holds the hit; a name across two sentences is no mention.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= at) lo = mid;
        else hi = mid - 1;
      }
      const sentenceEnd = lo === sentences.length - 1 ? starts[lo] + last.text.length : starts[lo + 1];
      if (end > sentenceEnd) continue;
      covered.fill(1, at, end);
      out[lo].push({ entityId: n.entityId, name: n.name, at: at - starts[lo] });
    }
  }
  for (const list of out) list.sort((a, b) => a.at - b.at);
  return out;
}

function quoteOf(sentence: string): string {
  const t = sentence.trim();
  const chars = Array.from(t);
  return chars.length > QUOTE_MAX ? `${chars.slice(0, QUOTE_MAX).join("")}…` : t;
}

/** Memories, dreams and the past: a sentence about them does not place anyone now. */
const PAST = /想起|回忆|记得|梦|当年|曾经|从前|昔日|那年|那时|生前|往事|小时候|以前/u;

const CN_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** 17, 十七, 二十三, 一百零五 as numbers; NaN when not one. @internal */
export function parseChineseNumber(raw: string): number {
  if (/^\d+$/u.test(raw)) return Number(raw);
  let total = 0;
  let digit = -1;
  for (const ch of raw) {
    if (ch in CN_DIGITS) digit = CN_DIGITS[ch];
    else if (ch === "十" || ch === "百") {
      const unit = ch === "十" ? 10 : 100;
      total += (digit < 0 ? 1 : digit) * unit;
      digit = -1;
    } else return NaN;
  }
  return total + (digit < 0 ? 0 : digit);
}

// --- Ledger views -------------------------------------------------------------------

const LIFE_TEXT: Record<string, string> = { dead: "死亡", alive: "存活" };

/** A ledger entry as the finding shows it: 境界：金丹（原因：……）. */
export function describeEntry(e: LedgerEntry): string {
  const note = e.note ? `（${e.kind === "item" && e.action === "given" ? `交给${e.note}` : e.note}）` : "";
  switch (e.kind) {
    case "realm":
      return `境界：${e.value}${e.note ? `（原因：${e.note}）` : ""}`;
    case "life":
      return `生死：${LIFE_TEXT[e.value] ?? e.value}${note}`;
    case "location":
      return `位置：${e.value}${note}`;
    case "item":
      return `${e.action === "gained" ? "获得" : e.action === "lost" ? "失去" : "交出"}：${e.value}${note}`;
    case "age":
      return `年龄：${e.num}岁${note}`;
    case "time":
      return `故事时间：${e.value || `第${e.num}年`}`;
    case "knowledge":
      return `知情：${e.value}`;
  }
}

function fact(e: LedgerEntry): FindingFact {
  return { chapter: e.chapter, text: describeEntry(e), entityId: e.entityId };
}

function byChapter(a: LedgerEntry, b: LedgerEntry) {
  return a.chapter - b.chapter || a.id - b.id;
}

// --- The check ----------------------------------------------------------------------

const ACTS = /^[^，。！？；、“”：:,的和与跟]{0,3}?(说|道|问|答|喊|叫|笑|哭|走|跑|站|坐|看|望|盯|点头|摇头|伸手|抬|转身|开口|拿|握|推|拉|拔|挥|冲|跳|吃|喝|回头|皱眉|叹|骂|吼|冷哼|怒|拍)/u;
const SPEAKS = /^\s*[：:]\s*[“「"]/u;
const DEATH_CONTEXT = /坟|墓|灵位|牌位|尸|葬|祭|遗|死|亡|已故|故去/u;
const USES = /用|使出|祭出|拿出|取出|掏出|握着|握紧|挥|举起|催动|持着|手持|拔出|戴着|佩着|施展|亮出/u;
const RECOVERED = /找回|夺回|重新|失而复得|归还|还给|赎回/u;
const PRESENT = /身在|正在|留在|待在|坐在|站在|躺在|困在|守在|住在|在/u;
const MOVES = /来到|到了|抵达|回到|前往|赶到|赶往|离开|动身|启程|飞往|进入|走进|走出|出了|进了|返回|去了|逃到|飞回|传送|赶回|奔向|到达|去往|离了/u;
const AGE_AFTER = /^(?:今年|已经|已|才|刚|刚满|年方|都|已满|年仅|如今)?([0-9]+|[零〇一二两三四五六七八九十百]+)岁/u;
const AGE_BEFORE = /([0-9]+|[零〇一二两三四五六七八九十百]+)岁的$/u;

/** Clauses of a sentence, by the marks that end them. */
function clausesOf(sentence: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let start = 0;
  for (let i = 0; i <= sentence.length; i++) {
    if (i === sentence.length || "，,；;：:".includes(sentence[i])) {
      out.push({ start, end: i });
      start = i + 1;
    }
  }
  return out;
}

function hashKey(parts: (string | number | null)[]): string {
  return createHash("sha1").update(parts.map((p) => String(p ?? "")).join("\u0001")).digest("hex").slice(0, 32);
}

/** Runs every rule over one chapter; findings in the order of the text, ledger ones first. */
export function checkContinuity(input: ContinuityInput): Finding[] {
  const n = input.chapter;
  const states = input.states.filter((s) => s.chapter <= n).sort(byChapter);
  const sentences = splitSentences(input.text);
  const mentions = findMentions(sentences, input.entities);
  const entityById = new Map(input.entities.map((e) => [e.id, e]));
  const rank = new Map(input.ladder.map((name, i) => [name, i]));
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (rule: ContinuityRule, entityId: number | null, message: string, quote: string, facts: FindingFact[]) => {
    const key = `${rule}:${hashKey([entityId, quote, ...facts.flatMap((f) => [f.chapter, f.text])])}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ rule, key, entityId, message, quote, facts });
  };
  const byEntity = new Map<number | null, LedgerEntry[]>();
  for (const s of states) byEntity.set(s.entityId, [...(byEntity.get(s.entityId) ?? []), s]);
  const entriesOf = (entityId: number | null, kind: StateKind) => (byEntity.get(entityId) ?? []).filter((s) => s.kind === kind);
  const mentionsOf = new Map<number, { sentence: Sentence; index: number; mention: Mention }[]>();
  sentences.forEach((sentence, index) => {
    for (const mention of mentions[index]) mentionsOf.set(mention.entityId, [...(mentionsOf.get(mention.entityId) ?? []), { sentence, index, mention }]);
  });
  const entityByName = new Map<string, CheckEntity>();
  for (const e of input.entities) for (const name of e.names) if (!entityByName.has(name)) entityByName.set(name, e);
  const nameOf = (id: number | null) => (id === null ? "" : (entityById.get(id)?.name ?? ""));
  /** Sentences mentioning the entity, with the mention. */
  const mentioning = (entityId: number) => mentionsOf.get(entityId) ?? [];

  for (const entity of input.entities) {
    // A character neither named in the chapter nor with a ledger entry there has nothing to check.
    if (entity.kind !== "character" || (!mentionsOf.has(entity.id) && !(byEntity.get(entity.id) ?? []).some((s) => s.chapter === n))) continue;

    // 1. A dead character acting or speaking: dead since an earlier chapter, not alive again.
    const life = entriesOf(entity.id, "life").filter((s) => s.chapter < n);
    const lastLife = life.at(-1);
    if (lastLife?.value === "dead") {
      for (const { sentence, mention } of mentioning(entity.id)) {
        const after = sentence.text.slice(mention.at + mention.name.length);
        if (PAST.test(sentence.text) || DEATH_CONTEXT.test(sentence.text)) continue;
        if (ACTS.test(after) || SPEAKS.test(after)) {
          add("dead-acts", entity.id, `${entity.name}已在第${lastLife.chapter}章死亡，本章却有言行`, quoteOf(sentence.text), [fact(lastLife)]);
        }
      }
    }

    // 2. A 境界 lower than before without a recorded cause.
    const realms = entriesOf(entity.id, "realm").filter((s) => rank.has(s.value));
    let highest: LedgerEntry | null = null;
    for (const r of realms) {
      if (highest && rank.get(r.value)! < rank.get(highest.value)! && !r.note && r.chapter === n) {
        add("realm-drop", entity.id, `${entity.name}的境界从${highest.value}降到${r.value}，没有记录原因`, "", [fact(highest), fact(r)]);
      }
      if (!highest || rank.get(r.value)! >= rank.get(highest.value)! || r.note) highest = r;
    }
    const current = realms.at(-1);
    if (current) {
      const currentRank = rank.get(current.value)!;
      for (const { sentence, mention, index } of mentioning(entity.id)) {
        if (PAST.test(sentence.text)) continue;
        const clause = clausesOf(sentence.text).find((c) => mention.at >= c.start && mention.at < c.end)!;
        const text = sentence.text.slice(clause.start, clause.end);
        // Another character named in the clause may be the one the rung belongs to.
        const others = mentions[index].some((m) => m.entityId !== entity.id && m.at >= clause.start && m.at < clause.end && entityById.get(m.entityId)?.kind === "character");
        if (others) continue;
        const lower = input.ladder.find((rung, i) => i < currentRank && text.includes(rung) && !input.ladder.some((r2, j) => j >= currentRank && r2.includes(rung) && text.includes(r2)));
        if (lower) add("realm-drop", entity.id, `${entity.name}此时的境界是${current.value}，本章写成了${lower}，没有记录原因`, quoteOf(sentence.text), [fact(current)]);
      }
    }

    // 3. An item used after it was lost or given away (and not gained again).
    const items = new Map<string, LedgerEntry>();
    for (const s of entriesOf(entity.id, "item")) if (s.chapter < n) items.set(s.value, s);
    for (const [item, last] of items) {
      if (last.action === "gained") continue;
      const named = entityByName.get(item);
      const itemEntity = named?.kind === "item" ? named : undefined;
      const itemNames = itemEntity ? itemEntity.names : [item];
      for (const { sentence } of mentioning(entity.id)) {
        const t = sentence.text;
        if (!itemNames.some((name) => t.includes(name)) || !USES.test(t) || RECOVERED.test(t) || PAST.test(t)) continue;
        if (last.action === "given" && last.note && t.includes(last.note)) continue;
        add("item-lost", entity.id, `${entity.name}已在第${last.chapter}章${last.action === "lost" ? "失去" : "交出"}${item}，本章却在使用`, quoteOf(sentence.text), [fact(last)]);
      }
    }

    // 4. One character in two places in a chapter without moving between them.
    const placeOf = (value: string) => (entityByName.get(value)?.kind === "place" ? entityByName.get(value)!.id : value);
    const recordedHere = entriesOf(entity.id, "location").find((s) => s.chapter === n);
    const ownSentences = mentioning(entity.id);
    const movesInChapter = ownSentences.some(({ sentence }) => MOVES.test(sentence.text));
    let last: { place: number | string; name: string; quote: string } | null = null;
    for (const { sentence, index, mention } of ownSentences) {
      const t = sentence.text;
      if (MOVES.test(t)) {
        last = null;
        continue;
      }
      if (PAST.test(t) || !PRESENT.test(t)) continue;
      const place = mentions[index].find((m) => m.at > mention.at && entityById.get(m.entityId)?.kind === "place");
      if (!place) continue;
      const here = { place: place.entityId, name: nameOf(place.entityId), quote: quoteOf(t) };
      if (last && last.place !== here.place && last.quote !== here.quote) {
        add("two-places", entity.id, `${entity.name}在本章先在${last.name}、又在${here.name}，中间没有写到离开`, here.quote, [{ chapter: n, text: `同章前文：${last.quote}`, entityId: entity.id }]);
      } else if (!last && recordedHere && !movesInChapter && placeOf(recordedHere.value) !== here.place) {
        add("two-places", entity.id, `状态记录中${entity.name}本章在${recordedHere.value}，正文却在${here.name}`, here.quote, [fact(recordedHere)]);
      }
      last = here;
    }

    // 5a. Ages: each recorded age fits the earlier one and the story's time; so does the text.
    const ages = entriesOf(entity.id, "age");
    const times = entriesOf(null, "time");
    const yearAt = (chapter: number) => times.filter((t) => t.chapter <= chapter).at(-1)?.num ?? null;
    const expected = (ref: LedgerEntry, chapter: number): { age: number; exact: boolean } => {
      const from = yearAt(ref.chapter);
      const to = yearAt(chapter);
      return from !== null && to !== null ? { age: ref.num! + (to - from), exact: true } : { age: ref.num!, exact: false };
    };
    const fits = (age: number, want: { age: number; exact: boolean }) => (want.exact ? Math.abs(age - want.age) <= 1 : age >= want.age);
    ages.forEach((a, i) => {
      if (i === 0 || a.chapter !== n) return;
      const want = expected(ages[i - 1], a.chapter);
      if (!fits(a.num!, want)) add("timeline", entity.id, `${entity.name}第${a.chapter}章记为${a.num}岁，按此前的记录应为${want.exact ? "" : "至少"}${want.age}岁`, "", [fact(ages[i - 1]), fact(a)]);
    });
    const ref = ages.at(-1);
    if (ref) {
      for (const { sentence, mention } of ownSentences) {
        if (PAST.test(sentence.text)) continue;
        const after = AGE_AFTER.exec(sentence.text.slice(mention.at + mention.name.length));
        const before = AGE_BEFORE.exec(sentence.text.slice(0, mention.at));
        const raw = after?.[1] ?? before?.[1];
        if (!raw) continue;
        const age = parseChineseNumber(raw);
        if (Number.isNaN(age)) continue;
        const want = expected(ref, n);
        if (!fits(age, want)) {
          const facts = [fact(ref)];
          const year = times.filter((t) => t.chapter <= n).at(-1);
          if (want.exact && year && year.chapter !== ref.chapter) facts.push(fact(year));
          add("timeline", entity.id, `${entity.name}本章写作${age}岁，按记录应为${want.exact ? "" : "至少"}${want.age}岁`, quoteOf(sentence.text), facts);
        }
      }
    }
  }

  // 5b. The story's time never runs backwards.
  const times = entriesOf(null, "time");
  const latest = times.filter((t) => t.chapter < n).reduce<LedgerEntry | null>((max, t) => (!max || t.num! > max.num! ? t : max), null);
  const here = times.find((t) => t.chapter === n);
  if (here && latest && here.num! < latest.num!) {
    add("timeline", null, `故事时间倒退：第${latest.chapter}章已是${latest.value || `第${latest.num}年`}，本章记为${here.value || `第${here.num}年`}`, "", [fact(latest), fact(here)]);
  }

  // 6. Two entities answering to the same name (after folding width, case and separators), when the chapter uses it.
  const folded = new Map<string, { entityId: number; name: string }[]>();
  for (const e of input.entities) {
    for (const name of e.names) {
      const key = foldName(name);
      const list = folded.get(key) ?? [];
      if (!list.some((x) => x.entityId === e.id)) list.push({ entityId: e.id, name });
      folded.set(key, list);
    }
  }
  for (const owners of folded.values()) {
    if (owners.length < 2) continue;
    const index = sentences.findIndex((s, i) => mentions[i].some((m) => owners.some((o) => o.entityId === m.entityId && foldName(m.name) === foldName(o.name))));
    if (index < 0) continue;
    add(
      "alias-shared",
      owners[0].entityId,
      `「${owners.map((o) => o.name).join("」「")}」同时是${owners.map((o) => nameOf(o.entityId)).join("和")}的名称或别名，无法分辨本章指的是谁`,
      quoteOf(sentences[index].text),
      owners.map((o) => ({ chapter: null, text: `${nameOf(o.entityId)}的名称或别名「${o.name}」`, entityId: o.entityId })),
    );
  }

  return findings;
}

/** A name as two entities would collide on it: width and case folded, spaces and name dots dropped. @internal */
export function foldName(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/[\s·•・.]/gu, "");
}
