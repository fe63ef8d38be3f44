import type { ReactNode } from "react";
import { Link } from "react-router";

/** A settings sub-page: a back link to /settings, the title, and the form. */
export function SettingsSubPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="settings-page settings-subpage">
      <p className="settings-back">
        <Link to="/settings">← 返回设置</Link>
      </p>
      <h1>{title}</h1>
      <div className="settings-card">{children}</div>
    </section>
  );
}
