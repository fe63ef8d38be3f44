import { NavLink, useLocation } from "react-router";
import { isCurrent, navFor } from "./nav";

/**
 * The admin menu. Groups are <details> sharing one `name`, so the browser keeps a single
 * group open, without JavaScript; the group holding the current page opens itself.
 */
export function AdminSidebar({ role, open = false }: { role: Parameters<typeof navFor>[0]; /** The phone drawer is open. */ open?: boolean }) {
  const { pathname } = useLocation();
  const linkClass = ({ isActive }: { isActive: boolean }) => (isActive ? "admin-nav-link active" : "admin-nav-link");
  return (
    <aside className={open ? "admin-sidebar open" : "admin-sidebar"} id="admin-menu" aria-label="管理菜单">
      <div className="admin-brand">管理后台</div>
      <nav>
        <ul className="admin-nav">
          {navFor(role).map((group) =>
            group.to ? (
              <li key={group.label}>
                <NavLink to={group.to} className={linkClass}>
                  {group.label}
                </NavLink>
              </li>
            ) : (
              <li key={group.label}>
                <details
                  name="admin-nav"
                  className="admin-nav-group"
                  open={group.items!.some((item) => isCurrent(pathname, item.to))}
                >
                  <summary>{group.label}</summary>
                  <ul>
                    {group.items!.map((item) => (
                      <li key={item.to}>
                        <NavLink to={item.to} className={linkClass}>
                          {item.label}
                        </NavLink>
                      </li>
                    ))}
                  </ul>
                </details>
              </li>
            ),
          )}
        </ul>
      </nav>
    </aside>
  );
}
