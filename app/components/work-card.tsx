import { Link } from "react-router";
import { defaultCoverHref } from "~/utils/default-cover";
import { formatWordCount, WORK_STATUS_LABELS, WORK_TYPE_LABELS } from "~/utils/format";

export interface WorkCardData {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  wordCount: number;
  type: keyof typeof WORK_TYPE_LABELS;
  status: keyof typeof WORK_STATUS_LABELS;
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
  price: number;
  visibility: "public" | "public-vip" | "private";
}

export function WorkCard({ work, defaultCoverUrl }: { work: WorkCardData; defaultCoverUrl?: string }) {
  // The site's default cover when the administrator set one, else one drawn for this work.
  const cover = work.coverUrl || defaultCoverUrl || defaultCoverHref(work);
  return (
    <article className="work-card" data-testid="work-card">
      <Link to={`/works/${work.id}`} className="work-cover" aria-hidden="true" tabIndex={-1}>
        <img src={cover} alt="" width={200} height={275} loading="lazy" />
        {work.visibility === "public-vip" ? <span className="badge badge-paid">{work.price > 0 ? `付费 ${work.price} 积分` : "按章付费"}</span> : null}
      </Link>
      <div className="work-body">
        <h3 className="work-title">
          <Link to={`/works/${work.id}`}>{work.title}</Link>
        </h3>
        <p className="work-author">{work.authorNickname}</p>
        <p className="work-meta">
          <span>{formatWordCount(work.wordCount)}</span>
          <span>{WORK_TYPE_LABELS[work.type]}</span>
          {work.type === "series" ? <span>{WORK_STATUS_LABELS[work.status]}</span> : null}
          {work.rating === "r18" ? <span className="badge badge-r18">R-18</span> : null}
          {work.isAiGenerated ? <span className="badge badge-ai">AI</span> : null}
        </p>
        <p className="work-description">{work.description}</p>
      </div>
    </article>
  );
}
