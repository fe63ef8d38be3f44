import { useEffect, type ReactNode } from "react";
import { Link, useNavigate } from "react-router";

/**
 * A dialog over the credits page. The server renders it from `?dialog=...`, so it is a
 * plain page section without JavaScript; with JavaScript Escape closes it too.
 */
export function CreditsModal({ title, closeHref, children }: { title: string; closeHref: string; children: ReactNode }) {
  const navigate = useNavigate();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") navigate(closeHref, { replace: true, preventScrollReset: true });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [closeHref, navigate]);
  return (
    <div className="modal-backdrop" role="presentation">
      <div className="modal credits-dialog" role="dialog" aria-modal="true" aria-labelledby="credits-dialog-title">
        <Link to={closeHref} className="modal-close" aria-label="关闭" replace preventScrollReset>
          ×
        </Link>
        <h2 id="credits-dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}
