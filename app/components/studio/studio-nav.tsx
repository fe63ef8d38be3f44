import { Link } from "react-router";

/** The author studio's header: the work's title and its pages (写作台, chapters, story bible, outlines, continuity checks, context, settings, pricing, statistics, muted commenters). */
export function StudioNav({
  workId,
  title,
  current,
}: {
  workId: number;
  title: string;
  current: "desk" | "settings" | "pricing" | "chapters" | "stats" | "comment-mutes" | "bible" | "outline" | "continuity" | "context";
}) {
  const tabs = [
    { id: "desk", label: "写作台", to: `/works/${workId}/desk` },
    { id: "chapters", label: "章节管理", to: `/works/${workId}/chapters` },
    { id: "bible", label: "故事设定", to: `/works/${workId}/bible` },
    { id: "outline", label: "大纲", to: `/works/${workId}/outline` },
    { id: "continuity", label: "连续性检查", to: `/works/${workId}/continuity` },
    { id: "context", label: "本次上下文", to: `/works/${workId}/context` },
    { id: "settings", label: "作品设置", to: `/works/${workId}/settings` },
    { id: "pricing", label: "销售设置", to: `/works/${workId}/pricing` },
    { id: "stats", label: "数据统计", to: `/works/${workId}/stats` },
    { id: "comment-mutes", label: "评论禁言", to: `/works/${workId}/comment-mutes` },
  ] as const;
  return (
    <header className="studio-head">
      <p className="studio-back">
        <Link to="/my-works">← 我的作品</Link>
        <Link to={`/works/${workId}`}>查看作品页</Link>
      </p>
      <h1>《{title}》</h1>
      <nav className="tabs" aria-label="作品管理">
        {tabs.map((t) => (
          <Link key={t.id} to={t.to} className={t.id === current ? "tab active" : "tab"} aria-current={t.id === current ? "page" : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
    </header>
  );
}
