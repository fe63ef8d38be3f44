import { AiLevelBadge, type AiLevel } from "~/components/ui/ai-badge";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { TagChips } from "~/components/discovery/tag-chips";
import { authorWorksHref } from "~/utils/hrefs";
import { defaultCoverHref } from "~/utils/default-cover";
import { formatWordCount, WORK_STATUS_LABELS, WORK_TYPE_LABELS } from "~/utils/format";

export interface ReaderWork {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  /** The author's user id: their name links to their works. */
  userId?: string;
  wordCount: number;
  chapterCount: number;
  type: keyof typeof WORK_TYPE_LABELS;
  status: keyof typeof WORK_STATUS_LABELS;
  visibility: "public" | "public-vip" | "private";
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
  aiLevel?: AiLevel;
  price: number;
  tags?: string[];
  categoryName?: string | null;
}

/** The work page's header: cover, title, author, description, counts, rating, price. */
export function WorkHeader({
  work,
  defaultCoverUrl,
  children,
}: {
  work: ReaderWork;
  defaultCoverUrl?: string;
  children?: ReactNode;
}) {
  // The site's default cover when the administrator set one, else one drawn for this work.
  const cover = work.coverUrl || defaultCoverUrl || defaultCoverHref(work);
  return (
    <header className="reader-header">
      <div className="reader-cover">
        <img src={cover} alt={`《${work.title}》封面`} width={200} height={275} />
      </div>
      <div className="reader-info">
        <h1>{work.title}</h1>
        <p className="reader-author">
          作者：{work.userId ? <Link to={authorWorksHref(work.userId)}>{work.authorNickname}</Link> : work.authorNickname}
        </p>
        <p className="work-meta reader-meta">
          <span>{formatWordCount(work.wordCount)}</span>
          <span>{work.chapterCount} 章</span>
          <span>{WORK_TYPE_LABELS[work.type]}</span>
          {work.type === "series" ? <span>{WORK_STATUS_LABELS[work.status]}</span> : null}
          <span className={work.rating === "r18" ? "badge badge-r18" : "badge"}>{work.rating === "r18" ? "R-18" : "全年龄"}</span>
          {work.isAiGenerated ? <span className="badge badge-ai">AI 创作</span> : null}
          <AiLevelBadge level={work.aiLevel} />
          {work.visibility === "public-vip" ? (
            <span className="badge badge-price">{work.price > 0 ? `付费 ${work.price} 积分` : "按章付费"}</span>
          ) : work.visibility === "private" ? (
            <span className="badge">未公开</span>
          ) : (
            <span className="badge badge-free">免费</span>
          )}
        </p>
        {work.categoryName || work.tags?.length ? (
          <div className="reader-taxonomy">
            {work.categoryName ? <span className="badge badge-category">{work.categoryName}</span> : null}
            <TagChips tags={work.tags ?? []} />
          </div>
        ) : null}
        <p className="reader-description">{work.description}</p>
        {children}
      </div>
    </header>
  );
}
