import { sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { DomainError } from "~/server/platform/errors.server";
import { jsonColumn, rowsOf } from "~/server/platform/db-utils.server";
import { safeFileName, webStreamFrom } from "~/server/platform/download.server";
import { ZipWriter } from "~/server/platform/zip-writer.server";
import { formatShanghaiSeconds, shanghaiDate } from "~/utils/shanghai-time";

/**
 * 导出我的数据 (docs/product.md#my-data-export, decision 231): a zip of the signed-in person's
 * own data, readable without the site: their profile as JSON, each work's chapters as a TXT
 * (drafts too), and CSV files (UTF-8 with a BOM, Chinese headers) of their works, comments,
 * book reviews, purchases, top-up orders, credit and token ledgers, author income and
 * payouts, with a README saying what each file is. Every query is filtered by the one user
 * id the caller passes (the session's, never a form's), read in keyset batches and written
 * as it is read, so memory stays flat however much there is.
 *
 * The queries read the other domains' tables directly: identity sits below them in the
 * domain order (decision 185), and this is a read of rows keyed by the person, not a use of
 * another domain's rules.
 */

const BATCH = 500;
const CHAPTER_BATCH = 100;

type Cell = string | number | null;

/** One CSV field (RFC 4180), a leading = + - @ defused with ' so a spreadsheet shows it as text. */
function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

const csvLine = (cells: Cell[]) => cells.map(csvCell).join(",") + "\r\n";
const time = (value: unknown) => (value ? formatShanghaiSeconds(value as string | Date) : null);

interface CsvFile {
  name: string;
  about: string;
  headers: string[];
  /** One batch of rows after the key `after` (null: from the start), ordered by the key. */
  query: (after: number | null) => SQL;
  row: (r: Record<string, unknown>) => Cell[];
  /** Batches by offset (rows with no numeric key); others by their `key`, else `id`. */
  byOffset?: boolean;
}

const LABELS: Record<string, string> = {
  single_chapter: "短篇",
  multi_chapter: "多章节",
  series: "连载",
  completed: "完结",
  ongoing: "连载中",
  public: "公开",
  "public-vip": "付费",
  private: "私密",
  draft: "存稿",
  scheduled: "定时",
  published: "已发布",
  review: "审核中",
  recharge: "收入",
  consume: "支出",
  pending: "待处理",
  paid: "已支付",
  refused: "已拒绝",
  returned: "已退回",
  sale: "销售分成",
  tip: "打赏分成",
  payout_request: "申请提现",
  payout_paid: "提现已支付",
  payout_refused: "提现被拒绝",
  payout_returned: "提现款退回",
  convert: "转为积分",
  grant: "赠送",
  exchange: "积分兑换",
  generation: "AI 生成",
  refund: "退还",
  admin: "管理员调整",
};
const tagList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.replace(/^\{|\}$/g, "").split(",").filter(Boolean) : []);
const label = (value: unknown) => (value === null || value === undefined ? null : (LABELS[String(value)] ?? String(value)));
const after = (column: string, key: number | null) => (key === null ? sql`` : sql` and ${sql.raw(column)} > ${key}`);

function csvFiles(userId: string): CsvFile[] {
  return [
    {
      name: "作品.csv",
      about: "你创作的作品（含私密和已下架的）",
      headers: ["作品ID", "标题", "简介", "类型", "状态", "公开方式", "价格（积分）", "标签", "字数", "章节数", "是否已下架", "创建时间", "更新时间"],
      query: (key) => sql`select w.id, w.title, w.description, w.type, w.status, w.visibility, w.price, w.tags, w.word_count, w.chapter_count,
          w.taken_down_at, w.created_at, w.updated_at from works w where w.user_id = ${userId}${after("w.id", key)} order by w.id limit ${BATCH}`,
      row: (r) => [Number(r.id), String(r.title), String(r.description), label(r.type), label(r.status), label(r.visibility), Number(r.price), tagList(r.tags).join("、"), Number(r.word_count), Number(r.chapter_count), r.taken_down_at ? "是" : "否", time(r.created_at), time(r.updated_at)],
    },
    {
      name: "评论.csv",
      about: "你发表的本章说、段评和回复（打赏留言也在其中）",
      headers: ["评论ID", "作品ID", "作品", "章节ID", "章节", "回复的评论ID", "内容", "打赏积分", "是否被隐藏", "发表时间"],
      query: (key) => sql`select c.id, c.work_id, w.title as work_title, c.chapter_id, ch.title as chapter_title, c.parent_id, c.body, c.tip_amount, c.hidden_at, c.created_at
          from chapter_comments c join works w on w.id = c.work_id join chapters ch on ch.id = c.chapter_id
          where c.user_id = ${userId}${after("c.id", key)} order by c.id limit ${BATCH}`,
      row: (r) => [Number(r.id), Number(r.work_id), String(r.work_title), Number(r.chapter_id), String(r.chapter_title), r.parent_id === null ? null : Number(r.parent_id), String(r.body), r.tip_amount === null ? null : Number(r.tip_amount), r.hidden_at ? "是" : "否", time(r.created_at)],
    },
    {
      name: "书评.csv",
      about: "你写的书评和评分",
      headers: ["书评ID", "作品ID", "作品", "评分（1-10）", "内容", "作者回复", "发表时间", "修改时间"],
      query: (key) => sql`select b.id, b.work_id, w.title as work_title, b.rating, b.body, b.author_reply, b.created_at, b.updated_at
          from book_reviews b join works w on w.id = b.work_id where b.user_id = ${userId}${after("b.id", key)} order by b.id limit ${BATCH}`,
      row: (r) => [Number(r.id), Number(r.work_id), String(r.work_title), Number(r.rating), String(r.body), r.author_reply === null ? null : String(r.author_reply), time(r.created_at), time(r.updated_at)],
    },
    {
      name: "书单.csv",
      about: "你创建的书单及其收录的作品和推荐语（每部作品一行）",
      headers: ["书单ID", "书单名称", "书单简介", "作品ID", "作品", "推荐语", "收录时间"],
      // Entries have no id of their own: numbered in the lists' order for the batches (at most 50 × 500 rows).
      query: (key) => sql`select * from (
          select row_number() over (order by l.id, e.position, e.work_id) as id, l.id as list_id, l.title as list_title, l.description,
                 e.work_id, w.title as work_title, e.note, e.created_at
          from booklist_entries e join booklists l on l.id = e.booklist_id join works w on w.id = e.work_id
          where l.user_id = ${userId}) t
          where true${after("t.id", key)} order by t.id limit ${BATCH}`,
      row: (r) => [Number(r.list_id), String(r.list_title), String(r.description), Number(r.work_id), String(r.work_title), String(r.note), time(r.created_at)],
    },
    {
      name: "书签和划线.csv",
      about: "你在章节中加的书签和划线，以及你写的笔记（段落从 1 数起）",
      headers: ["ID", "类型", "作品ID", "作品", "章节ID", "章节", "段落", "原文", "笔记", "添加时间"],
      query: (key) => sql`select m.id, m.kind, m.work_id, w.title as work_title, m.chapter_id, ch.title as chapter_title, m.paragraph, m.quote, m.note, m.created_at
          from reader_marks m join works w on w.id = m.work_id join chapters ch on ch.id = m.chapter_id
          where m.user_id = ${userId}${after("m.id", key)} order by m.id limit ${BATCH}`,
      row: (r) => [Number(r.id), r.kind === "bookmark" ? "书签" : "划线", Number(r.work_id), String(r.work_title), Number(r.chapter_id), String(r.chapter_title), Number(r.paragraph) + 1, String(r.quote), String(r.note), time(r.created_at)],
    },
    {
      name: "购买记录.csv",
      about: "你购买的整本作品和 VIP 章节",
      headers: ["购买ID", "购买内容", "作品ID", "作品", "章节ID", "章节", "价格（积分）", "购买时间"],
      // Whole works and chapters in one list: ids of the two tables kept apart by sign.
      query: (key) => sql`select * from (
            select -p.id as key, '整本' as kind, p.work_id, w.title as work_title, null::bigint as chapter_id, null as chapter_title, p.price, p.created_at
              from work_purchases p join works w on w.id = p.work_id where p.user_id = ${userId}
            union all
            select p.id as key, '章节' as kind, p.work_id, w.title as work_title, p.chapter_id, ch.title as chapter_title, p.price, p.created_at
              from chapter_purchases p join chapters ch on ch.id = p.chapter_id join works w on w.id = ch.work_id where p.user_id = ${userId}
          ) all_purchases where true${after("key", key)} order by key limit ${BATCH}`,
      row: (r) => [Math.abs(Number(r.key)), String(r.kind), Number(r.work_id), String(r.work_title), r.chapter_id === null ? null : Number(r.chapter_id), r.chapter_title === null ? null : String(r.chapter_title), Number(r.price), time(r.created_at)],
    },
    {
      name: "充值订单.csv",
      about: "你的在线充值订单（1 元 = 1 积分）",
      headers: ["订单号", "金额（元）", "状态", "下单时间", "支付时间", "退款时间"],
      byOffset: true,
      query: (key) => sql`select o.out_trade_no, o.amount, o.status, o.created_at, o.paid_at, o.refunded_at from payment_orders o
          where o.user_id = ${userId} order by o.created_at, o.out_trade_no offset ${key ?? 0} limit ${BATCH}`,
      row: (r) => [String(r.out_trade_no), Number(r.amount), label(r.status), time(r.created_at), time(r.paid_at), time(r.refunded_at)],
    },
    {
      name: "积分流水.csv",
      about: "你的积分每一笔收支",
      headers: ["流水ID", "收支", "积分", "说明", "时间"],
      query: (key) => sql`select t.id, t.type, t.amount, t.description, t.created_at from credit_transactions t
          where t.user_id = ${userId}${after("t.id", key)} order by t.id limit ${BATCH}`,
      row: (r) => [Number(r.id), label(r.type), Number(r.amount), String(r.description), time(r.created_at)],
    },
    {
      name: "Tokens流水.csv",
      about: "你的 AI 写作 Tokens 每一笔变动（负数为消耗）",
      headers: ["流水ID", "类型", "Tokens", "说明", "时间"],
      query: (key) => sql`select t.id, t.type, t.amount, t.description, t.created_at from token_transactions t
          where t.user_id = ${userId}${after("t.id", key)} order by t.id limit ${BATCH}`,
      row: (r) => [Number(r.id), label(r.type), Number(r.amount), String(r.description), time(r.created_at)],
    },
    {
      name: "作者收入.csv",
      about: "你作为作者的稿酬收入、提现冻结与转出（单位：积分）",
      headers: ["流水ID", "类型", "余额变动", "冻结变动", "读者支付", "作品ID", "说明", "时间"],
      query: (key) => sql`select t.id, t.type, t.amount, t.held_change, t.gross, t.work_id, t.description, t.created_at from income_transactions t
          where t.user_id = ${userId}${after("t.id", key)} order by t.id limit ${BATCH}`,
      row: (r) => [Number(r.id), label(r.type), Number(r.amount), Number(r.held_change), Number(r.gross), r.work_id === null ? null : Number(r.work_id), String(r.description), time(r.created_at)],
    },
    {
      name: "提现记录.csv",
      about: "你的提现申请及其结果",
      headers: ["提现ID", "金额", "收款账户", "状态", "申请时间", "处理时间"],
      query: (key) => sql`select p.id, p.amount, p.payee, p.status, p.created_at, p.settled_at from payout_requests p
          where p.user_id = ${userId}${after("p.id", key)} order by p.id limit ${BATCH}`,
      row: (r) => [Number(r.id), Number(r.amount), String(r.payee), label(r.status), time(r.created_at), time(r.settled_at)],
    },
  ];
}

/** The keyset value of a batch's last row: its `key` column if it has one, else its `id` (or the offset so far). */
function nextKey(file: CsvFile, rows: Record<string, unknown>[], key: number | null): number {
  const last = rows[rows.length - 1];
  if (file.byOffset) return (key ?? 0) + rows.length;
  return Number(last.key ?? last.id);
}

async function writeCsv(zip: ZipWriter, file: CsvFile, now: Date): Promise<void> {
  await zip.startEntry(file.name, now);
  await zip.write(`\uFEFF${csvLine(file.headers)}`);
  let key: number | null = null;
  for (;;) {
    const rows = rowsOf<Record<string, unknown>>(await db.execute(file.query(key)));
    if (rows.length === 0) break;
    await zip.write(rows.map((r) => csvLine(file.row(r))).join(""));
    if (rows.length < BATCH) break;
    key = nextKey(file, rows, key);
  }
  await zip.endEntry();
}

async function profileJson(userId: string): Promise<Record<string, unknown>> {
  const [p] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select p.id, p.email, p.nickname, p.avatar_url, p.pixiv_id, p.show_r18, p.show_ai, p.tokens, p.reader_settings,
        p.created_at, p.last_sign_in_at,
        coalesce((select c.balance from credits c where c.user_id = p.id), 0) as credits,
        coalesce((select i.balance from author_income i where i.user_id = p.id), 0) as income,
        coalesce((select i.held from author_income i where i.user_id = p.id), 0) as income_held
      from profiles p where p.id = ${userId}`),
  );
  if (!p) throw new DomainError("用户不存在", 404);
  const idRows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select status, document_type, name_masked, number_masked, submitted_at, decided_at from author_identities
      where user_id = ${userId} order by id`),
  );
  const accounts = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select kind, bank_name, account_masked, holder_masked, created_at from payout_accounts where user_id = ${userId} order by id`),
  );
  const list = async (query: SQL) => rowsOf<Record<string, unknown>>(await db.execute(query));
  const [shelf, follows, progress] = await Promise.all([
    list(sql`select f.work_id, w.title, f.created_at from favorites f join works w on w.id = f.work_id where f.user_id = ${userId} order by f.created_at`),
    list(sql`select a.author_id, pr.nickname, a.created_at from author_follows a join profiles pr on pr.id = a.author_id where a.user_id = ${userId} order by a.created_at`),
    list(sql`select r.work_id, w.title, r.updated_at from reading_progress r join works w on w.id = r.work_id where r.user_id = ${userId} order by r.updated_at desc`),
  ]);
  return {
    用户ID: p.id,
    邮箱: p.email,
    昵称: p.nickname,
    头像: p.avatar_url,
    pixivID: p.pixiv_id,
    显示R18内容: p.show_r18,
    显示AI创作的内容: p.show_ai,
    阅读设置: p.reader_settings === null ? null : jsonColumn(p.reader_settings),
    注册时间: time(p.created_at),
    最近登录时间: time(p.last_sign_in_at),
    积分余额: Number(p.credits),
    Tokens余额: Number(p.tokens),
    稿酬余额: Number(p.income),
    提现冻结中: Number(p.income_held),
    // Masked as every page shows them; the full values are not exported (decision 204).
    实名认证: idRows.map((r) => ({ 状态: r.status, 证件类型: r.document_type, 姓名: r.name_masked, 证件号: r.number_masked, 提交时间: time(r.submitted_at), 审核时间: time(r.decided_at) })),
    收款账户: accounts.map((r) => ({ 类型: r.kind === "bank" ? "银行卡" : "支付宝", 开户银行: r.bank_name, 账号: r.account_masked, 户名: r.holder_masked, 添加时间: time(r.created_at) })),
    书架: shelf.map((r) => ({ 作品ID: Number(r.work_id), 作品: r.title, 加入时间: time(r.created_at) })),
    关注的作者: follows.map((r) => ({ 作者ID: r.author_id, 昵称: r.nickname, 关注时间: time(r.created_at) })),
    阅读进度: progress.map((r) => ({ 作品ID: Number(r.work_id), 作品: r.title, 最近阅读: time(r.updated_at) })),
  };
}

/** Each of the person's works as one TXT: its chapters in order, every state, with their state and 作者的话. */
async function writeWorkTexts(zip: ZipWriter, userId: string, now: Date): Promise<void> {
  let lastWork = 0;
  for (;;) {
    const list = rowsOf<{ id: number; title: string }>(
      await db.execute(sql`select w.id, w.title from works w where w.user_id = ${userId} and w.id > ${lastWork} order by w.id limit ${BATCH}`),
    );
    for (const work of list) {
      const id = Number(work.id);
      await zip.startEntry(`作品正文/${id}-${safeFileName(String(work.title), "作品")}.txt`, now);
      await zip.write(`《${work.title}》\r\n\r\n`);
      let position: { p: number; id: number } | null = null;
      let n = 0;
      for (;;) {
        type ChapterRow = { id: number; position: number; title: string; content: string; author_note: string; state: string };
        const rows: ChapterRow[] = rowsOf<ChapterRow>(
          await db.execute(sql`select c.id, c.position, c.title, c.content, c.author_note, c.state from chapters c
            where c.work_id = ${id}${position ? sql` and (c.position, c.id) > (${position.p}, ${position.id})` : sql``}
            order by c.position, c.id limit ${CHAPTER_BATCH}`),
        );
        if (rows.length === 0) break;
        const text = rows
          .map((c) => {
            n += 1;
            const state = c.state === "published" ? "" : `（${label(c.state)}）`;
            const note = c.author_note?.trim() ? `\r\n\r\n作者的话：${c.author_note}` : "";
            return `第${n}章 ${c.title}${state}\r\n\r\n${c.content.replace(/\r?\n/g, "\r\n")}${note}\r\n\r\n`;
          })
          .join("");
        await zip.write(text);
        const last: ChapterRow = rows[rows.length - 1];
        position = { p: Number(last.position), id: Number(last.id) };
      }
      await zip.endEntry();
    }
    if (list.length < BATCH) return;
    lastWork = Number(list[list.length - 1].id);
  }
}

function readme(files: CsvFile[], now: Date): string {
  const lines = [
    "砚台 · 我的数据",
    `导出时间：${formatShanghaiSeconds(now)}（北京时间）`,
    "",
    "本压缩包只包含你本人的数据。表格文件为 CSV（UTF-8 编码，可用 Excel 或 WPS 打开），时间均为北京时间。",
    "",
    "README.txt      本说明",
    "个人资料.json   账号资料、显示偏好、余额、实名认证（已打码）、收款账户（已打码）、书架、关注的作者和阅读进度",
    "作品正文/       每部作品一个 TXT 文件，按章节顺序，含存稿、定时和审核中的章节（标注在章节名后）",
    ...files.map((f) => `${f.name}  ${f.about}`),
    "",
    "实名认证的完整姓名与证件号、收款账号不随导出提供，以免压缩包外泄造成风险；如需查阅请联系客服。",
  ];
  return lines.join("\r\n") + "\r\n";
}

async function writeAll(zip: ZipWriter, userId: string, profile: Record<string, unknown>, now: Date): Promise<void> {
  const files = csvFiles(userId);
  await zip.startEntry("README.txt", now);
  await zip.write(readme(files, now));
  await zip.endEntry();
  await zip.startEntry("个人资料.json", now);
  await zip.write(JSON.stringify(profile, null, 2));
  await zip.endEntry();
  await writeWorkTexts(zip, userId, now);
  for (const file of files) await writeCsv(zip, file, now);
  await zip.finish();
}

export interface PersonalDataDownload {
  filename: string;
  asciiFilename: string;
  body: ReadableStream<Uint8Array>;
}

/**
 * The person's zip, written as the download is read. The profile is read before the first
 * byte, so an unknown user is a 404 answer rather than a broken file.
 */
export async function exportPersonalData(userId: string, signal?: AbortSignal): Promise<PersonalDataDownload> {
  const now = new Date();
  const profile = await profileJson(userId);
  const zip = new ZipWriter({ level: 6, memLevel: 8, blockSize: 256 * 1024 });
  signal?.addEventListener("abort", () => zip.destroy(), { once: true });
  void writeAll(zip, userId, profile, now).catch((error: unknown) => {
    if (!zip.destroyed) console.error("personal data export failed", userId, error);
    zip.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  const day = shanghaiDate(now).replace(/-/g, "");
  return { filename: `砚台-我的数据-${day}.zip`, asciiFilename: `inkstone-my-data-${day}.zip`, body: webStreamFrom(zip) };
}
