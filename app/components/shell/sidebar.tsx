import { useLocation, useNavigate } from "react-router";
import { AppLink } from "~/components/ui/app-link";
import { authHref } from "./auth-links";
import { NAV_SECTIONS } from "./nav";
import { SIDEBAR_ID } from "./nav-drawer";

export function Sidebar({
  site,
  signedIn,
  open,
  onNavigate,
}: {
  site: { title: string; logoUrl: string };
  signedIn: boolean;
  /** The phone drawer is open (nav-drawer.tsx); a desktop always shows the sidebar. */
  open: boolean;
  onNavigate: () => void;
}) {
  const location = useLocation();
  const navigate = useNavigate();
  // What NavLink would mark: the page itself or one below it (the home page only itself).
  const isActive = (to: string) =>
    to === "/" ? location.pathname === "/" : location.pathname === to || location.pathname.startsWith(`${to}/`);
  return (
    <aside id={SIDEBAR_ID} className={open ? "sidebar open" : "sidebar"} aria-label="主导航">
      <a className="brand" href="/">
        {site.logoUrl ? (
          <img src={site.logoUrl} alt={site.title} height={48} />
        ) : (
          <span className="brand-mark" aria-hidden="true">
            砚
          </span>
        )}
        <span className="brand-title">{site.title}</span>
      </a>
      <nav>
        {NAV_SECTIONS.map((section, i) => (
          <div className="nav-section" key={section.title ?? i}>
            {section.title ? <div className="nav-section-title">{section.title}</div> : null}
            <ul>
              {section.items.map((item) => (
                <li key={item.to}>
                  <AppLink
                    to={item.to}
                    className={isActive(item.to) ? "nav-link active" : "nav-link"}
                    aria-current={isActive(item.to) ? "page" : undefined}
                    onClick={(event) => {
                      onNavigate();
                      // Logged out: open the login dialog here instead of navigating.
                      if (item.requiresAuth && !signedIn) {
                        event.preventDefault();
                        navigate(authHref(location, "login", item.to));
                      }
                    }}
                  >
                    <span className="nav-icon" aria-hidden="true">
                      {item.icon}
                    </span>
                    {item.label}
                  </AppLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <div className="sidebar-footer">
        <a href="/terms">用户协议</a>
        <a href="/privacy">隐私政策</a>
      </div>
    </aside>
  );
}
