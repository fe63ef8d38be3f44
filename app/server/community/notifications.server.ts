import { and, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { minorModeSql } from "~/server/identity/minor-mode.server";
import { db, type Executor } from "~/db/client.server";
import { chapterComments, chapterPurchases, chapters, commentAnchors, notificationJobs, notificationMutes, notifications, profiles, workPurchases, works } from "~/db/schema";
import { chapterNumberSql } from "~/server/catalog/chapter-numbers.server";
import { maskTexts } from "~/server/screening/screening.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { NOTIFICATIONS_WORK_TOPIC, notifyUserChanged, publish, userChangedPayload } from "~/server/platform/events.server";
import { followersNotified } from "~/server/platform/metrics.server";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import { pageWithin } from "~/utils/pagination";

/**
 * Notifications (docs/product.md#notifications, decision 115). Five kinds of lines in a
 * user's inbox: new chapters of a followed work (one line per work and China-time day),
 * a purchase of the user's work, a reply to the user's comment, a settled payout request,
 * a message from an administrator. The last four are one row written in the transaction
 * that caused them.
 * New chapters are fanned out in the background: the publishing transaction writes one
 * job (`enqueueChapterNotifications`), and every app process delivers jobs in batches of
 * followers (`deliverNotifications`), each batch one transaction that claims its job with
 * `FOR UPDATE SKIP LOCKED` and moves its cursor, so a work with 100,000 followers costs the
 * author's request one row and every follower is told exactly once.
 */

const NOTIFICATION_MESSAGES = {
  notFound: "找不到这条通知",
  workMissing: "作品不存在",
  userMissing: "用户不存在",
  bodyRequired: "请填写消息内容",
  bodyTooLong: "消息不能超过 2000 字",
} as const;

/** Followers told per transaction: a batch takes tens of milliseconds on PostgreSQL. */
const DELIVERY_BATCH = Number(process.env.NOTIFICATION_BATCH_SIZE) || 5_000;

/** The bell shows up to this many, then 99+. */
const UNREAD_CAP = 100;

const chinaToday = sql`(now() at time zone 'Asia/Shanghai')::date`;

// --- Writing -------------------------------------------------------------------------

/**
 * Called by `onChaptersPublished` (app/server/studio/release.server.ts) in the publishing
 * transaction, once per publication: one job row, whatever the number of followers (none
 * for a work nobody follows).
 */
export async function enqueueChapterNotifications(tx: Executor, workId: number, chapterIds: number[]): Promise<void> {
  if (chapterIds.length === 0) return;
  const ids = `{${chapterIds.join(",")}}`;
  await tx.execute(sql`
    insert into ${notificationJobs} (work_id, chapter_id, chapter_count, chapter_ids, day)
    select ${workId}, c.id, ${chapterIds.length}, ${ids}::bigint[], ${chinaToday}
    from ${chapters} c where c.id = any(${ids}::bigint[]) and c.work_id = ${workId}
      and exists (select 1 from favorites f where f.work_id = ${workId})
    order by c.position desc, c.id desc limit 1`);
}

/**
 * One batch of one job: claims the oldest job of a work no other process is delivering
 * (a work's jobs go in order, so two processes never add to the same lines at once), tells
 * the next DELIVERY_BATCH followers and moves the cursor, or deletes the job when the
 * followers are done. Returns false when there was nothing to claim.
 */
async function deliverBatch(batch: number): Promise<boolean> {
  const told = await db.transaction(async (tx) => {
    const [job] = rowsOf<{
      id: string | number;
      work_id: string | number;
      chapter_id: string | number;
      chapter_count: number;
      chapter_ids: string | null;
      day: string;
      after_user: string | null;
    }>(
      await tx.execute(sql`
        select j.id, j.work_id, j.chapter_id, j.chapter_count, j.chapter_ids::text as chapter_ids, j.day::text as day, j.after_user
        from ${notificationJobs} j
        where j.id = (select min(j2.id) from ${notificationJobs} j2 where j2.work_id = j.work_id)
        order by j.id
        limit 1
        for update skip locked`),
    );
    if (!job) return null;
    const jobId = Number(job.id);
    const workId = Number(job.work_id);
    const after = job.after_user ?? "00000000-0000-0000-0000-000000000000";
    // Followers who may still see the work (a private work tells nobody; R-18 and AI
    // works only those whose settings show them) and have not muted it.
    const [result] = rowsOf<{ last: string | null; scanned: number; told: number }>(
      await tx.execute(sql`
        with batch as (
          select f.user_id from favorites f
          where f.work_id = ${workId} and f.user_id > ${after}::uuid
          order by f.user_id limit ${batch}
        ),
        told as (
          insert into ${notifications} (user_id, kind, work_id, chapter_id, chapter_ids, day, count)
          select b.user_id, 'chapters', w.id, ${Number(job.chapter_id)}, ${job.chapter_ids}::bigint[], ${job.day}::date, ${job.chapter_count}
          from batch b
          join ${works} w on w.id = ${workId}
          join ${profiles} p on p.id = b.user_id
          where w.visibility <> 'private'
            and (w.rating = 'all_ages' or (p.show_r18 and not ${minorModeSql(sql`b.user_id`)}))
            and (not w.is_ai_generated or p.show_ai)
            and not exists (select 1 from ${notificationMutes} m where m.user_id = b.user_id and m.work_id = w.id)
          on conflict (user_id, work_id, day) where kind = 'chapters' do update
            set count = ${notifications.count} + excluded.count,
                chapter_id = excluded.chapter_id,
                -- A line from before the column stays without its list (the count serves).
                chapter_ids = case when ${notifications.chapterIds} is null or excluded.chapter_ids is null then null
                                   else ${notifications.chapterIds} || excluded.chapter_ids end,
                updated_at = now(),
                read_at = null
          returning 1
        )
        select (select user_id::text from batch order by user_id desc limit 1) as last,
               (select count(*)::int from batch) as scanned,
               (select count(*)::int from told) as told`),
    );
    if (result.scanned < batch) {
      await tx.delete(notificationJobs).where(eq(notificationJobs.id, jobId));
    } else {
      await tx.update(notificationJobs).set({ afterUser: result.last }).where(eq(notificationJobs.id, jobId));
    }
    if (result.told > 0) {
      // One event for the batch: each process's streams pick their users in the range.
      await publish({ topic: NOTIFICATIONS_WORK_TOPIC, kind: "notifications", workId, from: after, to: result.last ?? after }, tx);
    }
    return result.told;
  });
  if (told === null) return false;
  // Counted after the commit: across processes the counters add up to the lines written.
  followersNotified.inc(told);
  return true;
}

/**
 * Delivers every pending job, a batch at a time; returns how many batches this call ran.
 * Any number of processes may run it at once: they share the jobs (decision 115).
 */
export async function deliverNotifications(batch = DELIVERY_BATCH): Promise<number> {
  let batches = 0;
  while (await deliverBatch(batch)) batches++;
  return batches;
}

/** Jobs not yet finished (tests, benchmarks, the health of the delivery). @internal */
export async function pendingNotificationJobs(): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(notificationJobs);
  return row.n;
}

/**
 * The author's line for a purchase of their work. A single call for every kind of sale
 * (the whole-work purchase in ledger.server.ts passes no chapters; a chapter purchase its
 * chapter; 购买全部 the chapters it bought), inside the purchase's transaction, so it
 * exists exactly when the purchase does. The line says what was bought: 全本, the chapter,
 * or how many chapters.
 */
export async function notifyWorkPurchased(
  tx: Executor,
  sale: { authorId: string; buyerId: string; workId: number; chapterIds?: number[] },
): Promise<void> {
  const ids = sale.chapterIds ?? [];
  const rows = await tx.execute(sql`
    insert into ${notifications} (user_id, kind, work_id, chapter_id, chapter_ids, count, actor_id)
    select ${sale.authorId}::uuid, 'purchase', ${sale.workId}, ${ids.length === 1 ? ids[0] : null}, ${`{${ids.join(",")}}`}::bigint[],
           ${Math.max(1, ids.length)}, ${sale.buyerId}::uuid
    where not exists (select 1 from ${notificationMutes} m where m.user_id = ${sale.authorId}::uuid and m.work_id = ${sale.workId})
    returning 1`);
  if (rowsOf(rows).length > 0) await notifyUserChanged(sale.authorId, "notifications", tx);
}

/**
 * The author's line for a tip on their work (decision 207), in the tip's transaction: 某某
 * 打赏了《书名》N 积分, leading to 我的收入. A work the author muted makes no line.
 */
export function workTippedStatement(tip: { authorId: string; tipperId: string; workId: number; chapterId: number | null; amount: number }): SQL {
  // One statement (the tip sends it with its others, sendInOrder): the line, and the author's pages told only when there is one.
  const told = userChangedPayload(tip.authorId, "notifications");
  return sql`
    with line as (
      insert into ${notifications} (user_id, kind, work_id, chapter_id, actor_id, body)
      select ${tip.authorId}::uuid, 'tip', ${tip.workId}, ${tip.chapterId}, ${tip.tipperId}::uuid, ${String(tip.amount)}
      where not exists (select 1 from ${notificationMutes} m where m.user_id = ${tip.authorId}::uuid and m.work_id = ${tip.workId})
      returning 1)
    select pg_notify(${told.channel}, ${told.payload}) from line`;
}

/** The author's line when an administrator settles their payout request, in the same transaction. */
export async function notifyPayoutSettled(
  tx: Executor,
  payout: { userId: string; payoutId: number; amount: number; outcome: "paid" | "refused" | "returned"; reference: string; detail?: string },
): Promise<void> {
  const body =
    payout.outcome === "paid"
      ? `你的提现申请 #${payout.payoutId}（${payout.amount}）已支付，付款凭证：${payout.reference}${payout.detail ? `；${payout.detail}` : ""}`
      : payout.outcome === "returned"
        ? `你的提现 #${payout.payoutId}（${payout.amount}）款项被退回，金额已退回收入余额，代扣的个税已冲回${payout.reference ? `。原因：${payout.reference}` : ""}`
        : `你的提现申请 #${payout.payoutId}（${payout.amount}）未通过，金额已退回收入余额${payout.reference ? `。理由：${payout.reference}` : ""}`;
  await tx.insert(notifications).values({ userId: payout.userId, kind: "payout", body });
  await notifyUserChanged(payout.userId, "notifications", tx);
}

/**
 * The author's line about a reviewer's decision on their chapter (decision 206) or an
 * operator's on their 实名认证 (no work), in the decision's transaction.
 */
export async function notifyReviewOutcome(tx: Executor, line: { userId: string; workId?: number; body: string }): Promise<void> {
  await tx.insert(notifications).values({ userId: line.userId, kind: "review", workId: line.workId ?? null, body: line.body });
  await notifyUserChanged(line.userId, "notifications", tx);
}

/** The line for a reply to someone's comment (not to one's own), in the reply's transaction. */
export async function notifyCommentReply(
  tx: Executor,
  reply: { toUserId: string; fromUserId: string; workId: number; chapterId: number; parentCommentId: number },
): Promise<void> {
  if (reply.toUserId === reply.fromUserId) return;
  await tx.insert(notifications).values({
    userId: reply.toUserId,
    kind: "reply",
    workId: reply.workId,
    chapterId: reply.chapterId,
    commentId: reply.parentCommentId,
    actorId: reply.fromUserId,
  });
  await notifyUserChanged(reply.toUserId, "notifications", tx);
}

/** An administrator's message to one user (the back office's user page). */
export async function sendAdminMessage(userId: string, rawBody: unknown, also?: (tx: Executor, body: string) => Promise<void>): Promise<void> {
  const body = typeof rawBody === "string" ? rawBody.replace(/\r\n?/g, "\n").trim() : "";
  if (!body) throw new DomainError(NOTIFICATION_MESSAGES.bodyRequired, 400, "body");
  if (Array.from(body).length > 2000) throw new DomainError(NOTIFICATION_MESSAGES.bodyTooLong, 400, "body");
  await db.transaction(async (tx) => {
    const [user] = await tx.select({ id: profiles.id }).from(profiles).where(eq(profiles.id, userId));
    if (!user) throw new DomainError(NOTIFICATION_MESSAGES.userMissing, 404);
    await tx.insert(notifications).values({ userId, kind: "admin", body });
    await also?.(tx, body);
    await notifyUserChanged(userId, "notifications", tx);
  });
}

// --- Reading -------------------------------------------------------------------------

/** The bell's number: unread lines, counted up to UNREAD_CAP. @internal */
export async function unreadNotificationCount(userId: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`
      select count(*)::int as n from (
        select 1 from ${notifications} where user_id = ${userId} and read_at is null limit ${UNREAD_CAP}
      ) t`),
  );
  return row?.n ?? 0;
}

const INBOX_PAGE_SIZE = 30;

interface InboxLine {
  id: number;
  kind: "chapters" | "purchase" | "reply" | "admin" | "payout" | "review" | "tip" | "new-work" | "typo";
  unread: boolean;
  at: string;
  /**
   * chapters: the chapters of the line still published; purchase: the chapters bought (0:
   * the whole work, null: not recorded, on lines from before the count was kept).
   */
  count: number | null;
  workId: number | null;
  workTitle: string | null;
  muted: boolean;
  /**
   * The chapter the line is about, numbered as shown (chapterDisplayTitle): chapters, the
   * first new one still published; purchase, the one chapter bought; reply, the comment's.
   */
  chapterTitle: string | null;
  /** Where the line leads (null: nowhere to go, e.g. an administrator's message). */
  href: string | null;
  actorNickname: string | null;
  body: string | null;
  /**
   * A new-chapters line: the start of that chapter's 作者的话 (decision 202), 替换 words
   * masked, only for a reader who may read the chapter; null otherwise.
   */
  authorNote: string | null;
}

/** How much of 作者的话 a new-chapters line shows. */
const NOTE_PREVIEW_CHARS = 60;

export interface Inbox {
  lines: InboxLine[];
  unread: number;
  page: number;
  pageCount: number;
  muted: { workId: number; title: string }[];
}

/** /notifications: the user's lines, newest first, a page at a time, and their muted works. */
export async function listNotifications(userId: string, requested: number): Promise<Inbox> {
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(notifications).where(eq(notifications.userId, userId));
  const { page, pageCount } = pageWithin(requested, total, INBOX_PAGE_SIZE);
  const rows = rowsOf<{
    id: string | number;
    kind: InboxLine["kind"];
    read_at: string | null;
    updated_at: string | Date;
    count: number | null;
    work_id: string | number | null;
    work_title: string | null;
    muted: boolean;
    chapter_title: string | null;
    chapter_order: number | null;
    paragraph: number | null;
    actor: string | null;
    body: string | null;
    author_note: string | null;
  }>(
    // A new-chapters line with its list of chapters counts those still published and leads
    // to the first of them in reading order (a chapter deleted or taken back since is left
    // out); older lines keep their count and their last chapter.
    await db.execute(sql`
      select n.id, n.kind, n.read_at, n.updated_at, n.work_id, n.body,
             case
               when n.kind = 'chapters' and n.chapter_ids is not null then (
                 select count(*)::int from ${chapters} x where x.id = any(n.chapter_ids) and x.work_id = n.work_id and x.state = 'published')
               when n.kind = 'purchase' then cardinality(n.chapter_ids)
               else n.count
             end as count,
             w.title as work_title,
             exists (select 1 from ${notificationMutes} m where m.user_id = n.user_id and m.work_id = n.work_id) as muted,
             c.title as chapter_title,
             case when c.state = 'published' and c.kind = 'chapter' then (
               select count(*)::int from ${chapters} c2
               where c2.work_id = c.work_id and c2.state = 'published' and c2.kind = 'chapter' and (c2.position, c2.id) <= (c.position, c.id)
             ) end as chapter_order,
             a.paragraph_index as paragraph,
             p.nickname as actor,
             -- 作者的话 of the line's chapter, for whoever may read that chapter (decision 202).
             case when n.kind = 'chapters' and c.state = 'published' and c.kind = 'chapter' and c.author_note <> '' and (
               w.visibility = 'public' or w.user_id = n.user_id
               or exists (select 1 from ${workPurchases} wp where wp.user_id = n.user_id and wp.work_id = w.id)
               or exists (select 1 from ${chapterPurchases} cp where cp.user_id = n.user_id and cp.chapter_id = c.id)
               or (w.visibility = 'public-vip' and w.sale_mode = 'chapter' and w.vip_from is not null
                   and ${chapterNumberSql(sql`c.work_id`, sql`c.position`, sql`c.id`)} < w.vip_from)
             ) then left(c.author_note, ${NOTE_PREVIEW_CHARS * 3}) end as author_note
      from ${notifications} n
      left join ${works} w on w.id = n.work_id
      left join lateral (
        select x.id from ${chapters} x
        where n.kind = 'chapters' and x.id = any(n.chapter_ids) and x.work_id = n.work_id and x.state = 'published'
        order by x.position, x.id limit 1
      ) fc on true
      left join ${chapters} c on c.id = case when n.kind = 'chapters' and n.chapter_ids is not null then fc.id else n.chapter_id end
      left join ${chapterComments} cc on cc.id = n.comment_id
      left join ${commentAnchors} a on a.id = cc.anchor_id
      left join ${profiles} p on p.id = n.actor_id
      where n.user_id = ${userId}
      order by n.updated_at desc, n.id desc
      limit ${INBOX_PAGE_SIZE} offset ${(page - 1) * INBOX_PAGE_SIZE}`),
  );
  const notes = await maskTexts(rows.map((r) => (r.author_note ? notePreview(r.author_note) : "")));
  const lines = rows.map((r, i): InboxLine => {
    const workId = r.work_id === null ? null : Number(r.work_id);
    let href: string | null = null;
    if (r.kind === "payout" || r.kind === "tip") href = "/income";
    // A reviewer's decision: the author's chapter list, or their 实名认证 page.
    else if (r.kind === "review") href = workId !== null ? `/works/${workId}/chapters` : "/settings/identity";
    else if (workId !== null) {
      if (r.kind === "purchase") href = `/works/${workId}/stats`;
      else if (r.kind === "reply" && r.chapter_order)
        href = `/works/${workId}/comments?chapter=${r.chapter_order}${r.paragraph !== null ? `&p=${r.paragraph}` : ""}`;
      else if (r.chapter_order) href = `/works/${workId}?chapter=${r.chapter_order}`;
      else href = `/works/${workId}`;
    }
    return {
      id: Number(r.id),
      kind: r.kind,
      unread: r.read_at === null,
      at: new Date(r.updated_at).toISOString(),
      count: r.count === null ? null : Number(r.count),
      workId,
      workTitle: r.work_title,
      muted: Boolean(r.muted),
      chapterTitle: r.chapter_title === null ? null : chapterDisplayTitle(r.chapter_order, r.chapter_title),
      href,
      actorNickname: r.actor,
      body: r.body,
      authorNote: notes[i] || null,
    };
  });
  const [unread, muted] = await Promise.all([
    unreadNotificationCount(userId),
    db
      .select({ workId: notificationMutes.workId, title: works.title })
      .from(notificationMutes)
      .innerJoin(works, eq(works.id, notificationMutes.workId))
      .where(eq(notificationMutes.userId, userId))
      .orderBy(desc(notificationMutes.createdAt)),
  ]);
  return { lines, unread, page, pageCount, muted };
}

/** 作者的话 on one line, cut to NOTE_PREVIEW_CHARS. */
function notePreview(note: string): string {
  const chars = Array.from(note.replace(/\s+/gu, " ").trim());
  return chars.length > NOTE_PREVIEW_CHARS ? `${chars.slice(0, NOTE_PREVIEW_CHARS).join("")}…` : chars.join("");
}

function parseId(value: unknown): number {
  const id = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError(NOTIFICATION_MESSAGES.notFound, 404);
  return id;
}

/** 标为已读: one of the user's own lines (another user's is a 404). */
export async function markNotificationRead(userId: string, rawId: unknown): Promise<void> {
  const id = parseId(rawId);
  const updated = await db
    .update(notifications)
    .set({ readAt: sql`coalesce(${notifications.readAt}, now())` })
    .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
    .returning({ id: notifications.id });
  if (updated.length === 0) throw new DomainError(NOTIFICATION_MESSAGES.notFound, 404);
  await notifyUserChanged(userId, "notifications");
}

/** 全部已读. */
export async function markAllNotificationsRead(userId: string): Promise<void> {
  await db
    .update(notifications)
    .set({ readAt: sql`now()` })
    .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)));
  await notifyUserChanged(userId, "notifications");
}

/** 静音 / 取消静音 a work: no more new-chapter or purchase lines for it. Muting also reads its lines. */
export async function setWorkMuted(userId: string, rawWorkId: unknown, muted: boolean): Promise<void> {
  const workId = (() => {
    try {
      return parseId(rawWorkId);
    } catch {
      throw new DomainError(NOTIFICATION_MESSAGES.workMissing, 404);
    }
  })();
  await db.transaction(async (tx) => {
    if (!muted) {
      await tx.delete(notificationMutes).where(and(eq(notificationMutes.userId, userId), eq(notificationMutes.workId, workId)));
      return;
    }
    const [work] = await tx.select({ id: works.id }).from(works).where(eq(works.id, workId));
    if (!work) throw new DomainError(NOTIFICATION_MESSAGES.workMissing, 404);
    await tx.insert(notificationMutes).values({ userId, workId }).onConflictDoNothing();
    await tx
      .update(notifications)
      .set({ readAt: sql`now()` })
      .where(and(eq(notifications.userId, userId), eq(notifications.workId, workId), isNull(notifications.readAt)));
  });
  await notifyUserChanged(userId, "notifications");
}
