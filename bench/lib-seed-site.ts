// The site's data at a benchmark's scale, seeded set-based (generate_series, insert … select)
// as pg_restore loads a dump: each big table's rows first, then its indexes, primary key and
// foreign keys (validated by one query each), not row by row through every index. Used by
// bench:home (issue 17's scale, docs/benchmarks.md#signed-in-home-at-scale-npm-run-benchhome)
// and bench:scale (ten times it, docs/benchmarks.md#ten-times-the-data-npm-run-benchscale).
import postgres from "postgres";
import { fmt } from "./lib-db";
import { loadCorpus, makeDescription, makeRandom, makeTitle, type Corpus } from "./lib-corpus";

/** The work of `hotFollowers`: the first public, all-ages, ongoing series not marked AI-generated. */
export const HOT_WORK = `select id from works where visibility = 'public' and rating = 'all_ages' and not is_ai_generated
  and type = 'series' and status = 'ongoing' order by id limit 1`;

export interface SiteSeedOptions {
  works: number;
  /** About this many published chapters in all (1 for a single chapter, else an exponential tail). */
  chapters: number;
  readers: number;
  /** Works each reader follows. */
  follows: number;
  authors: number;
  /** Titles, descriptions and chapter text cut from the 西游记 corpus (else short fixed text). */
  corpus?: SeedText;
  /** Works each reader has read without following them (default 10). */
  unfollowedReads?: number;
  /** One public, all-ages work followed by at least this many readers. */
  hotFollowers?: number;
  /** Keep the accounts and works an interrupted seed of the same size left, and seed the rest. */
  resume?: boolean;
  log: (line: string) => void;
}

export interface SeedText {
  titles: string[];
  descriptions: string[];
  passages: string[];
}

/**
 * Pools of realistic text the seed draws from: titles and descriptions (bench/lib-corpus.ts),
 * and chapter passages of `passageChars` characters or so, consecutive paragraphs of the novel.
 */
export function seedText(pool: number, passageChars: number, corpus: Corpus = loadCorpus()): SeedText {
  const rand = makeRandom(20261129);
  const titles = Array.from({ length: pool }, () => makeTitle(rand, corpus));
  const descriptions = Array.from({ length: pool }, () => makeDescription(rand, corpus));
  const passages: string[] = [];
  const chars = Array.from(corpus.text.replace(/\n/g, "\n\n"));
  for (let at = 0; at + passageChars < chars.length; ) {
    // Ends at a full stop after passageChars characters, so a chapter reads as prose.
    let end = at + passageChars;
    while (end < chars.length && !"。！？".includes(chars[end - 1])) end++;
    passages.push(chars.slice(at, end).join("").trim());
    at = end;
  }
  return { titles, descriptions, passages };
}

/** Seeds the database at `url` (empty, migrated); ends with `vacuum analyze`. */
export async function seedSite(url: string, o: SiteSeedOptions): Promise<void> {
  const log = o.log;
  // Sessions that live as long as the seed (their temporary tables with them): postgres.js
  // otherwise replaces a connection after 30-60 minutes.
  const session = async () => {
    const c = postgres(url, { max: 1, onnotice: () => {}, max_lifetime: null, idle_timeout: 0 });
    await c.unsafe(
      `set maintenance_work_mem = '512MB'; set work_mem = '256MB'; set synchronous_commit = off; set synchronize_seqscans = off; select setseed(0.42)`,
    );
    return c;
  };
  const stepOn = (c: postgres.Sql) => async (name: string, text: string) => {
    const t = performance.now();
    const result = await c.unsafe(text);
    log(`  ${name}: ${result.count ?? 0} rows, ${fmt((performance.now() - t) / 1000)} s`);
  };
  const s = await session();
  const step = stepOn(s);
  const filled = async (table: string) => o.resume === true && (await s.unsafe(`select exists (select 1 from ${table}) as x`))[0].x === true;
  // The favourites are loaded on a second session while this one loads the chapters.
  const s2 = await session();
  try {
    if (o.corpus) {
      for (const [table, rows] of [
        ["title_pool", o.corpus.titles],
        ["description_pool", o.corpus.descriptions],
        ["text_pool", o.corpus.passages],
      ] as const) {
        await s.unsafe(`create temp table ${table} (i int primary key, t text not null)`);
        await s`insert into ${s(table)} (i, t) select i - 1, t from unnest(${rows}::text[]) with ordinality as x(t, i)`;
        await s.unsafe(`analyze ${table}`);
      }
    }

    // Categories, authors and readers.
    const accounts = await filled("users");
    if (!accounts) await step(
      "categories",
      `insert into categories (name, position) select c, i from unnest(array['玄幻','都市','言情','科幻','悬疑','历史','武侠','仙侠','游戏','同人','轻小说','短篇']) with ordinality as t(c, i) on conflict do nothing`,
    );
    if (!accounts) await step(
      "authors",
      `with u as (insert into users (email, password_hash) select 'author' || g || '@example.com', 'bench-no-login' from generate_series(1, ${o.authors}) g returning id, email)
       insert into profiles (id, email, nickname) select id, email, '作者' || split_part(email, '@', 1) from u`,
    );
    if (!accounts) await step(
      "readers",
      `with u as (insert into users (email, password_hash, created_at) select 'reader' || g || '@example.com', 'bench-no-login', now() - random() * interval '700 days' from generate_series(1, ${o.readers}) g returning id, email, created_at)
       insert into profiles (id, email, nickname, show_r18, show_ai, created_at)
       select id, email, '读者' || split_part(email, '@', 1), random() < 0.3, random() < 0.8, created_at from u`,
    );
    await s.unsafe(
      `create temp table author_no as select row_number() over (order by email) - 1 as author_n, id from users where email like 'author%'`,
    );
    await s.unsafe(`create temp table cat_no as select row_number() over (order by id) - 1 as cat_n, id from categories`);
    for (const c of [s, s2]) {
      await c.unsafe(
        `create temp table reader_no as select row_number() over (order by email) - 1 as n, id from users where email like 'reader%'`,
      );
    }

    // Works: 45% single-chapter, 25% multi-chapter, 30% series (half of them ongoing);
    // 70% public, 15% paid, 15% private; 15% R18; 20% ticked AI-generated, 10% more
    // labelled AI-assisted; 0-3 tags; a category for 90%. Chapter counts: 1 for a
    // single chapter, else 2 + an exponential tail, so the total is about CHAPTERS.
    const tail = Math.max(0.5, (o.chapters - 0.45 * o.works) / (0.55 * o.works) - 1.5); // floor() takes 0.5 off the mean
    if (!(await filled("works"))) await loadLikeARestore(s, "works", false, () =>
      step(
        "works",
        `insert into works (user_id, title, description, type, status, visibility, rating, is_ai_generated, ai_level, price,
                          chapter_count, word_count, tags, category_id, created_at, updated_at, completed_at)
       select a.id, ${o.corpus ? "tp.t" : "'作品' || g"}, ${o.corpus ? "dp.t" : "'第' || g || '部作品的简介：一个关于成长、冒险与选择的故事。'"}, type, status, vis, rating, ai, ai_level,
              case when vis = 'public-vip' then 1 + g % 50 else 0 end, n, n * (1500 + g % 3000),
              (array['穿越','系统','重生','修仙','甜宠','悬疑','科幻','历史','校园','都市','末世','无限流','群像','轻松','虐恋','种田','宫斗','电竞','武侠','灵异'])[1 + g % 17 : g % 17 + g % 4],
              c.id,
              created, updated, case when status = 'completed' then updated end
       from (
         select g, type, case when type = 'series' and r2 < 0.5 then 'ongoing' else 'completed' end::work_status as status,
                case when r3 < 0.7 then 'public' when r3 < 0.85 then 'public-vip' else 'private' end::work_visibility as vis,
                case when r4 < 0.15 then 'r18' else 'all_ages' end::work_rating as rating,
                r5 < 0.2 as ai, case when r5 < 0.2 then 'generated' when r5 < 0.3 then 'assisted' else 'none' end::ai_level as ai_level,
                case when type = 'single_chapter' then 1 else least(3000, 2 + floor(-ln(1 - r6) * ${tail})::int) end as n,
                created,
                case when type = 'series' and r2 < 0.5 then greatest(created, now() - r7 * r7 * interval '60 days')
                     else created + (now() - created) * r7 * 0.5 end as updated
         from (
           select g, case when r1 < 0.45 then 'single_chapter' when r1 < 0.70 then 'multi_chapter' else 'series' end::work_type as type,
                  r2, r3, r4, r5, r6, r7, now() - interval '1095 days' * (1 - (g - 1 + r8) / ${o.works}) as created
           from (select g, random() r1, random() r2, random() r3, random() r4, random() r5, random() r6, random() r7, random() r8
                 from generate_series(1, ${o.works}) g) r
         ) t
       ) w join author_no a on a.author_n = w.g % ${o.authors}
       left join cat_no c on w.g % 10 <> 0 and c.cat_n = w.g % (select count(*) from cat_no)
       ${o.corpus ? `join title_pool tp on tp.i = w.g % ${o.corpus.titles.length} join description_pool dp on dp.i = (w.g * 7 + w.g / ${o.corpus.titles.length}) % ${o.corpus.descriptions.length}` : ""}`,
      ),
      log,
    );

    const popularity = `create temp table pop as select (row_number() over (order by visibility = 'private', md5(id::text)) - 1)::int as rank, id, created_at from works;
       alter table pop add primary key (rank); analyze pop`;
    await Promise.all([
      (async () => {
        // Chapters in work order, published over each work's life; ids contiguous by work.
        await loadLikeARestore(s, "chapters", false, () =>
          step(
            "chapters",
            o.corpus
              ? // Passages of the novel; no sort of the text: works are read in id order (a seq scan of
                // the freshly loaded table, synchronize_seqscans off) and the checked below.
                `insert into chapters (work_id, title, content, position, word_count, state, publish_at, created_at, updated_at)
                 select w.id, '第' || n || '章', tp.t, n * 65536, char_length(tp.t), 'published', p, p, p
                 from works w cross join lateral generate_series(1, w.chapter_count) n
                 cross join lateral (select w.created_at + (w.updated_at - w.created_at) * (n - 1) / greatest(1, w.chapter_count - 1) as p) t
                 join text_pool tp on tp.i = (w.id * 13 + n) % ${o.corpus.passages.length}`
              : `insert into chapters (work_id, title, content, position, word_count, state, publish_at, created_at, updated_at)
             select w.id, '第' || n || '章', '正文。' || repeat('夜色渐深，灯火未眠。', 10), n * 65536, 2000, 'published',
                    p, p, p
             from works w cross join lateral generate_series(1, w.chapter_count) n
             cross join lateral (select w.created_at + (w.updated_at - w.created_at) * (n - 1) / greatest(1, w.chapter_count - 1) as p) t
             order by w.id, n`,
          ),
          log,
        );
        await s.unsafe(
          `create temp table work_chapters as select work_id, min(id) as first_id, count(*)::int as n from chapters group by work_id`,
        );
        await s.unsafe(`alter table work_chapters add primary key (work_id); analyze work_chapters`);
        // The positions below take a work's chapters as ids first_id .. first_id + n - 1.
        const [gaps] = await s`select count(*)::int as n from (select work_id from chapters group by work_id having max(id) - min(id) + 1 <> count(*)) g`;
        if (gaps.n > 0) throw new Error(`${gaps.n} works' chapter ids are not contiguous`);
        // The works' popularity, for the reading positions below.
        await s.unsafe(popularity);
      })(),
      (async () => {
        // Popularity: a fixed shuffle of the works, listed ones first; reader r's k-th follow
        // (k = 0..FOLLOWS-1) is a random rank in the k-th of FOLLOWS strata of a squared
        // uniform, shifted by k so a reader never follows a work twice: the top works are
        // followed by nearly every reader, rank R by about 1/sqrt(R) of them (Zipf-like).
        await s2.unsafe(popularity);
        // Rows in (k, reader) order: one reader's follows lie far apart, as years of follows do.
        await loadLikeARestore(s2, "favorites", true, () =>
          stepOn(s2)(
            "favorites",
            `insert into favorites (user_id, work_id, created_at)
             select x.uid, p.id, greatest(p.created_at, now() - x.age * interval '365 days')
             from (select k, r.id as uid, random() as age,
                          k + floor(${o.works - o.follows} * power((k + random()) / ${o.follows}, 2))::int as rank
                   from generate_series(0, ${o.follows - 1}) k cross join reader_no r offset 0) x
             join pop p on p.rank = x.rank`,
          ),
          log,
        );

        // One work everybody may see with o.hotFollowers followers (the fan-out's case).
        if (o.hotFollowers) {
          await stepOn(s2)(
            "the hot work's followers",
            `insert into favorites (user_id, work_id, created_at)
             select r.id, w.id, now() - interval '30 days'
             from reader_no r, (${HOT_WORK}) w
             where r.n < ${o.hotFollowers}
             on conflict do nothing`,
          );
        }
      })(),
    ]);

    // Reading positions: in a third of the followed works (most readers keep up: 70% within
    // the last 3 chapters, the rest anywhere), and unfollowedReads works each read without following.
    await loadLikeARestore(s, "reading_progress", true, () =>
      step(
        "reading_progress (followed works)",
        `insert into reading_progress (user_id, work_id, chapter_id, paragraph, updated_at)
         select f.user_id, f.work_id,
                wc.first_id + case when f.h < 0.7 then greatest(0, wc.n - 1 - floor(f.h * 10)::int % 3) else floor(f.h2 * wc.n)::int end,
                floor(f.h2 * 40)::int, greatest(f.created_at, now() - f.h2 * interval '180 days')
         from (select user_id, work_id, created_at, random() as h, random() as h2 from favorites where random() < 1.0 / 3 offset 0) f
         join work_chapters wc on wc.work_id = f.work_id`,
      ),
      log,
    );
    await step(
      "reading_progress (works not followed)",
      `insert into reading_progress (user_id, work_id, chapter_id, paragraph, updated_at)
       select distinct on (x.uid, p.id) x.uid, p.id, wc.first_id + floor(x.r * wc.n)::int, 0, now() - x.r * interval '90 days'
       from (select r.id as uid, floor(random() * ${o.works})::int as rank, random() as r
             from generate_series(1, ${o.unfollowedReads ?? 10}) k cross join reader_no r offset 0) x
       join pop p on p.rank = x.rank
       join work_chapters wc on wc.work_id = p.id
       where not exists (select 1 from favorites f where f.user_id = x.uid and f.work_id = p.id)
       on conflict do nothing`,
    );
    // Purchases: a quarter of the followed paid works, over the last 90 days.
    await step(
      "work_purchases",
      `insert into work_purchases (user_id, work_id, price, created_at)
       select f.user_id, f.work_id, w.price, now() - random() * interval '90 days'
       from favorites f join works w on w.id = f.work_id
       where w.visibility = 'public-vip' and w.sale_mode = 'whole' and random() < 0.25`,
    );
    const t = performance.now();
    await s.unsafe(`vacuum analyze`);
    log(`  vacuum analyze: ${fmt((performance.now() - t) / 1000)} s`);
  } finally {
    await s.end({ timeout: 5 });
    await s2.end({ timeout: 5 });
  }
}

/**
 * Runs `load` with `table`'s secondary indexes and foreign keys (and, with dropPrimary,
 * its primary key) dropped, then puts them back as the schema has them: the order
 * pg_restore uses for a dump's data.
 */
async function loadLikeARestore(s: postgres.Sql, table: string, dropPrimary: boolean, load: () => Promise<void>, log: (line: string) => void) {
  const constraints = await s<{ name: string; def: string; type: string }[]>`
    select conname as name, pg_get_constraintdef(oid) as def, contype as type from pg_constraint
    where conrelid = ${table}::regclass and contype in ('p', 'u', 'f') and (contype <> 'p' or ${dropPrimary})`;
  const indexes = await s<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = 'public' and tablename = ${table}
      and indexname not in (select conname from pg_constraint where conrelid = ${table}::regclass)`;
  for (const c of constraints.filter((c) => c.type === "f")) await s.unsafe(`alter table ${table} drop constraint "${c.name}"`);
  for (const c of constraints.filter((c) => c.type !== "f")) await s.unsafe(`alter table ${table} drop constraint "${c.name}"`);
  for (const i of indexes) await s.unsafe(`drop index "${i.name}"`);
  await load();
  const t = performance.now();
  for (const i of indexes) await s.unsafe(i.def);
  for (const c of constraints.filter((c) => c.type === "p")) await s.unsafe(`alter table ${table} add constraint "${c.name}" ${c.def}`);
  for (const c of constraints.filter((c) => c.type === "u")) await s.unsafe(`alter table ${table} add constraint "${c.name}" ${c.def}`);
  for (const c of constraints.filter((c) => c.type === "f")) await s.unsafe(`alter table ${table} add constraint "${c.name}" ${c.def}`);
  log(`  ${table}: ${indexes.length} indexes and ${constraints.length} constraints rebuilt in ${fmt((performance.now() - t) / 1000)} s`);
}

/**
 * One line on what a seeded site holds (bench:home and bench:scale print it before measuring):
 * exact counts where they are cheap, the planner's estimates for the largest tables.
 */
export async function describeSeededSite(url: string, o: { seedSeconds: number; estimateChapters: boolean }): Promise<string> {
  const s = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const chapters = o.estimateChapters
      ? "(select reltuples from pg_class where relname = 'chapters')::bigint"
      : "(select count(*) from chapters where state = 'published')::int";
    const [c] = await s.unsafe(`select
      (select count(*) from works)::int as works,
      ${chapters} as chapters,
      (select count(*) from profiles where email like 'reader%')::int as readers,
      (select reltuples from pg_class where relname = 'favorites')::bigint as favorites,
      (select reltuples from pg_class where relname = 'reading_progress')::bigint as progress,
      (select count(*) from work_purchases)::int as purchases,
      (select count(*) from work_stats)::int as stats,
      pg_database_size(current_database()) as bytes`);
    return (
      `data: ${c.works} works, ${o.estimateChapters ? "~" : ""}${c.chapters} ${o.estimateChapters ? "" : "published "}chapters, ${c.readers} readers, ` +
      `~${c.favorites} favourites, ~${c.progress} reading positions, ${c.purchases} purchases, ${c.stats} work_stats rows; ` +
      `database ${fmt(Number(c.bytes) / 2 ** 30, 2)} GiB; seed ${fmt(o.seedSeconds, 0)} s`
    );
  } finally {
    await s.end({ timeout: 5 });
  }
}
