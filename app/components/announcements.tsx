import type { ReactNode } from "react";
import type { AnnouncementView } from "~/types/front-page";
import { formatShanghai } from "~/utils/shanghai-time";

/**
 * The current 公告 (docs/product.md#front-page): on the home page, and at the top of the
 * inbox with a 标为已读 form per line (`action`). Nothing when there is none.
 */
export function AnnouncementList({ announcements, action }: { announcements: AnnouncementView[]; action?: (a: AnnouncementView) => ReactNode }) {
  if (announcements.length === 0) return null;
  return (
    <section className="announcements" aria-labelledby="announcements-title" data-testid="announcements">
      <h2 id="announcements-title">公告</h2>
      <ul>
        {announcements.map((a) => (
          <li key={a.id} className={a.unread ? "announcement unread" : "announcement"} data-testid="announcement">
            <div className="announcement-head">
              <h3>
                {a.unread ? <span className="badge badge-unread">未读</span> : null} {a.title}
              </h3>
              <time className="muted" dateTime={new Date(a.startsAt).toISOString()}>
                {formatShanghai(a.startsAt)}
              </time>
            </div>
            <p className="announcement-body">{a.body}</p>
            {action ? action(a) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
