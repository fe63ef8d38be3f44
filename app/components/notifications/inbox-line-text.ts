/** What an inbox line needs to say itself (app/server/community/notifications.server.ts InboxLine). */
export interface InboxLineFacts {
  kind: "chapters" | "purchase" | "reply" | "admin" | "payout" | "review" | "tip" | "new-work" | "typo";
  count: number | null;
  workTitle: string | null;
  chapterTitle: string | null;
  actorNickname: string | null;
  body: string | null;
}

/**
 * The sentence of a line in 消息通知 (docs/product.md#notifications): what came out, what
 * was bought (a chapter, N chapters, the whole work), who replied, a settled payout, a
 * reviewer's decision on the author's chapter or appeal, a followed author's new work.
 */
export function inboxLineText(line: InboxLineFacts): string {
  const work = line.workTitle ? `《${line.workTitle}》` : "作品";
  const who = line.actorNickname ?? "一位读者";
  switch (line.kind) {
    case "chapters":
      if (line.count === 0) return `${work}此前更新的章节已被作者删除或撤回`;
      return `${work}更新了 ${line.count ?? 1} 章${line.chapterTitle ? `：${line.chapterTitle}` : ""}`;
    case "purchase":
      if (line.count === 1 && line.chapterTitle) return `${who} 购买了${work}的${line.chapterTitle}`;
      if (line.count !== null && line.count > 0) return `${who} 购买了${work}的 ${line.count} 章`;
      if (line.count === 0) return `${who} 购买了${work}全本`;
      // A line from before purchases recorded what they bought.
      return `${who} 购买了你的作品${work}`;
    case "reply":
      return `${who} 回复了你在${work}的评论`;
    case "payout":
      return line.body ?? "你的提现申请已处理";
    case "review":
      return `审核通知：${line.body ?? ""}`;
    case "tip":
      // body: the credits tipped (decision 207).
      return `${who} 打赏了${work} ${line.body ?? ""} 积分`;
    case "new-work":
      // A followed author's new work (decision 230).
      return `你关注的作者 ${line.actorNickname ?? ""} 发布了新作品${work}`;
    case "typo":
      // A reader's 错别字 report (decision 234): body is the sentence and the correction.
      return `${who} 报告了${work}${line.chapterTitle ? `${line.chapterTitle}` : ""}的错别字：${line.body ?? ""}`;
    case "admin":
      return `管理员消息：${line.body ?? ""}`;
  }
}
