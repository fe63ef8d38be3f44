import { Link } from "react-router";
import { tagHref } from "~/schemas/discovery";

/** A work's tags as links to their pages (/tags/:name). */
export function TagChips({ tags, max }: { tags: string[]; max?: number }) {
  if (tags.length === 0) return null;
  const shown = max ? tags.slice(0, max) : tags;
  return (
    <ul className="tag-chips" aria-label="标签">
      {shown.map((tag) => (
        <li key={tag}>
          <Link className="tag-chip" to={tagHref(tag)}>
            #{tag}
          </Link>
        </li>
      ))}
    </ul>
  );
}
