import { AppLink } from "~/components/ui/app-link";
import { authorWorksHref } from "~/utils/hrefs";
import type { BooklistCard } from "~/types/booklists";
import { shanghaiDate } from "~/utils/shanghai-time";

/**
 * 书单 as cards (/booklists, 我的书单, an author's page; decision 232): the title linking to
 * the list, its owner linking to their page, how many works and followers, the last change.
 * `headingLevel`: one below the heading the cards sit under.
 */
export function BooklistCards({ lists, headingLevel = 2, showOwner = true }: { lists: BooklistCard[]; headingLevel?: 2 | 3; showOwner?: boolean }) {
  const Title = headingLevel === 2 ? "h2" : "h3";
  return (
    <ul className="booklist-cards">
      {lists.map((list) => (
        <li key={list.id} className="booklist-card" data-testid="booklist-card">
          <Title className="booklist-card-title">
            <AppLink to={`/booklists/${list.id}`}>{list.title}</AppLink>
          </Title>
          <p className="muted booklist-card-meta">
            {showOwner ? (
              <>
                <AppLink to={authorWorksHref(list.owner.id)}>{list.owner.nickname}</AppLink> ·{" "}
              </>
            ) : null}
            {list.works} 部作品 · {list.followers} 人关注 · 更新于 {shanghaiDate(list.updatedAt)}
          </p>
          {list.description ? <p className="booklist-card-description">{list.description}</p> : null}
        </li>
      ))}
    </ul>
  );
}
