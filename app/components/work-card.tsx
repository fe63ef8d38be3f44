import { TagChips } from "~/components/discovery/tag-chips";
import { authorWorksHref } from "~/utils/hrefs";
import { AiLevelBadge, type AiLevel } from "~/components/ui/ai-badge";
import { AppLink } from "~/components/ui/app-link";
import { defaultCoverHref } from "~/utils/default-cover";
import { formatWordCount, WORK_STATUS_LABELS, WORK_TYPE_LABELS } from "~/utils/format";

export interface WorkCardData {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  /** The author's user id: their name links to their works (absent where a listing does not read it). */
  userId?: string;
  wordCount: number;
  type: keyof typeof WORK_TYPE_LABELS;
  status: keyof typeof WORK_STATUS_LABELS;
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
  /** From the generation log (decision 126); absent where a listing does not read it. */
  aiLevel?: AiLevel;
  price: number;
  visibility: "public" | "public-vip" | "private";
  tags?: string[];
}

/**
 * `headingLevel`: the title's heading, one below the heading the cards sit under (2 in a
 * list under the page's h1, 3 under a section's h2), so levels never skip (axe: heading-order).
 */
export function WorkCard({ work, defaultCoverUrl, headingLevel = 3 }: { work: WorkCardData; defaultCoverUrl?: string; headingLevel?: 2 | 3 }) {
  const Title = headingLevel === 2 ? "h2" : "h3";
  // The site's default cover when the administrator set one, else one drawn for this work.
  const cover = work.coverUrl || defaultCoverUrl || defaultCoverHref(work);
  return (
    <article className="work-card" data-testid="work-card">
      <AppLink to={`/works/${work.id}`} className="work-cover" aria-hidden="true" tabIndex={-1}>
        <img src={cover} alt="" width={200} height={275} loading="lazy" />
        {work.visibility === "public-vip" ? <span className="badge badge-paid">{work.price > 0 ? `付费 ${work.price} 积分` : "按章付费"}</span> : null}
      </AppLink>
      <div className="work-body">
        <Title className="work-title">
          <AppLink to={`/works/${work.id}`}>{work.title}</AppLink>
        </Title>
        <p className="work-author">
          {work.userId ? <AppLink to={authorWorksHref(work.userId)}>{work.authorNickname}</AppLink> : work.authorNickname}
        </p>
        <p className="work-meta">
          <span>{formatWordCount(work.wordCount)}</span>
          <span>{WORK_TYPE_LABELS[work.type]}</span>
          {work.type === "series" ? <span>{WORK_STATUS_LABELS[work.status]}</span> : null}
          {work.rating === "r18" ? <span className="badge badge-r18">R-18</span> : null}
          {work.isAiGenerated ? <span className="badge badge-ai">AI</span> : null}
          <AiLevelBadge level={work.aiLevel} />
        </p>
        <p className="work-description">{work.description}</p>
        {work.tags?.length ? <TagChips tags={work.tags} max={4} /> : null}
      </div>
    </article>
  );
}
