import { AppLink } from "~/components/ui/app-link";
import { tagHref } from "~/utils/hrefs";

/** A work's tags as links to their pages (/tags/:name). */
export function TagChips({ tags, max }: { tags: string[]; max?: number }) {
  if (tags.length === 0) return null;
  const shown = max ? tags.slice(0, max) : tags;
  return (
    <ul className="tag-chips" aria-label="标签">
      {shown.map((tag) => (
        <li key={tag}>
          <AppLink className="tag-chip" to={tagHref(tag)}>
            #{tag}
          </AppLink>
        </li>
      ))}
    </ul>
  );
}
