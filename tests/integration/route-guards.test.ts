import { describe, expect, it } from "vitest";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { SETTINGS_MESSAGES } from "~/schemas/settings";
import {
  requireAdminMiddleware,
  requireChiefEditorMiddleware,
  requireExportAccessMiddleware,
  requireOpdsReaderMiddleware,
  requireReviewerMiddleware,
  requireStaffMiddleware,
  requireSuperAdminMiddleware,
  requireUserMiddleware,
} from "~/middleware/guards.server";
import { adminCookieFor, createAdmin, settle } from "./admin-fixtures";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { importRoute, routeTree, runRoute, type RouteNode } from "./route-chain";

/**
 * Which routes are guarded is read from app/routes.ts itself (docs/architecture.md#guards):
 * a page is signed-in, back office or export by the layout it sits under. Every other
 * route must be on the PUBLIC list below, so a page added outside the guards fails here
 * until someone decides it is public; a guard removed from its layout fails the requests.
 */

const GUARDS = {
  user: { layout: "routes/shell/signed-in.tsx", middleware: requireUserMiddleware },
  admin: { layout: "routes/admin/layout.tsx", middleware: requireAdminMiddleware },
  export: { layout: "routes/exports/layout.ts", middleware: requireExportAccessMiddleware },
  // Reading apps (decision 201): the personal token in the address.
  opds: { layout: "routes/opds/layout.ts", middleware: requireOpdsReaderMiddleware },
  // 超级管理员 only, below the admin layout (docs/product.md#admin-roles).
  super: { layout: "routes/admin/super-only.tsx", middleware: requireSuperAdminMiddleware },
  // 超级管理员 and 运营: the daily back office, closed to 审核员 and 总编辑.
  staff: { layout: "routes/admin/staff.tsx", middleware: requireStaffMiddleware },
  // 先审后发 (docs/product.md#review): 审核员, 总编辑 and 超级管理员.
  review: { layout: "routes/admin/reviewers.tsx", middleware: requireReviewerMiddleware },
  // The review policy: 总编辑 and 超级管理员.
  chief: { layout: "routes/admin/chief-only.tsx", middleware: requireChiefEditorMiddleware },
} as const;
type Guard = keyof typeof GUARDS;

/** Routes anyone may call, each on purpose (path patterns as in app/routes.ts). */
const PUBLIC = new Set([
  "/healthz",
  "/auth/logout", // ends the session, if any; a POST only
  "/home",
  "/files/*", // covers and avatars
  "/covers/:file", // drawn default covers; a private work's only for its owner (decision 105)
  "/api/events", // site changes for everyone, the user's own when signed in
  "/api/generate", // answers 401 itself before anything else (the session is read with the project)
  "/api/operate", // answers 401 itself, as /api/generate (decision 130)
  "/api/continue", // answers 401 itself, as /api/generate (decision 141)
  "/api/notify", // the payment gateway, authenticated by its signature
  "/api/*",
  "/works/:id/paragraphs", // the reader: visitors read free works (docs/product.md D5)
  "/works/:id/progress", // answers 401 to a visitor itself
  "/works/:id/offline", // 离线阅读's list: answers 401 to a visitor itself (decision 244)
  "/works/:id/export.txt", // the owner's download: 404 to anyone else, visitors too (decision 098)
  "/works/:id/export.epub",
  "/works/:id/comment-counts", // the bubbles' counts: readable where the chapter is
  "/works/:id/feed.xml", // a work's Atom feed: only what a visitor may see
  "/robots.txt", // for crawlers (decision 200)
  "/sitemap.xml", // the sitemap index: only what a visitor may read
  "/sitemaps/:file",
  "/reader-settings", // a visitor's settings go to a cookie, a signed-in reader's to the profile (decision 106)
  "/work/:id",
  "/",
  "/works",
  "/tags/:name", // discovery: public like /works
  "/rankings",
  "/terms",
  "/privacy",
  "/refund",
  "/auth/login",
  "/auth/register",
  "/auth/forgot-password",
  "/auth/reset-password",
  "/works/:id",
  "/authors/:id", // an author's page: public works only; following needs a session (decision 230)
  "/booklists", // readers' public 书单: only lists with a work the viewer may see (decision 232)
  "/booklists/:id", // a 书单's page: only its works the viewer may see; following needs a session (decision 232)
  "/works/:id/fans", // a work's 粉丝榜: public as the work (decision 207)
  "/works/:id/wiki", // 角色百科: public as the work, each fact up to the viewer's readable chapters (decision 259)
  "/works/:id/wiki/:entityId",
  "/works/:id/comments", // comment threads: readable where the chapter is (free works for visitors); posting needs a session
  "/works/:id/reviews", // 书评区: readable where the work page is; writing needs a session (decision 211)
  "/xbbadmin",
  "/admin/logout",
  "/admin",
  "/admin/*",
  "/exports/*",
  "/*",
]);

interface Leaf {
  pattern: string;
  node: RouteNode;
  guards: Guard[];
}

/** Every route that answers a URL (no children), with the guard layouts above it. */
function leaves(node: RouteNode, prefix: string, guards: Guard[]): Leaf[] {
  const pattern = node.path ? `${prefix.replace(/\/$/, "")}/${node.path}` : prefix || "/";
  const own = (Object.keys(GUARDS) as Guard[]).filter((g) => GUARDS[g].layout === node.file);
  const above = [...guards, ...own];
  if (node.children.length === 0) return [{ pattern, node, guards: above }];
  return node.children.flatMap((child) => leaves(child, pattern, above));
}

const ALL = leaves(routeTree, "", []);
const under = (guard: Guard) => ALL.filter((leaf) => leaf.guards.includes(guard));
const urlOf = (pattern: string) => `http://localhost${pattern.replace(/:\w+/g, "1").replace("*", "x")}`;

describe("app/routes.ts", () => {
  it("puts every route either under a guard or on the public list", () => {
    const unguarded = ALL.filter((leaf) => leaf.guards.length === 0).map((leaf) => leaf.pattern);
    expect(unguarded.filter((p) => !PUBLIC.has(p)), "routes outside every guard and not on the public list").toEqual([]);
    expect([...PUBLIC].filter((p) => !unguarded.includes(p)), "public entries that are no unguarded route").toEqual([]);
  });

  it("has the signed-in pages under the signed-in guard and the back office under the admin guard", () => {
    const signedIn = under("user").map((l) => l.pattern);
    for (const page of ["/following", "/purchased", "/my-works", "/submit", "/works/:id/edit", "/credits", "/settings/password", "/payment/success"]) {
      expect(signedIn).toContain(page);
    }
    expect(under("admin").map((l) => l.pattern)).toContain("/admin/users/:id");
    expect(under("export").map((l) => l.pattern)).toContain("/exports/database.zip");
  });

  it("has site settings, API keys, payment keys, exports and admin management under the super-admin guard, and the daily work outside it", () => {
    const superOnly = under("super").map((l) => l.pattern);
    for (const page of [
      "/admin/admins",
      "/admin/migration",
      "/admin/api-tokens",
      "/admin/payment",
      "/admin/settings/payment-api",
      "/admin/settings/api",
      "/admin/settings/tokens",
      "/admin/settings/economy",
      "/admin/settings/site",
      "/admin/settings/icon",
      "/admin/settings/terms",
      "/admin/tests/openai",
    ]) {
      expect(superOnly).toContain(page);
    }
    for (const page of ["/admin/dashboard", "/admin/users/:id", "/admin/works", "/admin/payouts", "/admin/audit", "/admin/account"]) {
      expect(superOnly).not.toContain(page);
    }
    // Every super-only page is also behind the admin session.
    for (const leaf of under("super")) expect(leaf.guards).toContain("admin");
  });

  it("has each guard's middleware on its layout", async () => {
    for (const guard of Object.values(GUARDS)) {
      const layout = await import(/* @vite-ignore */ `../../app/${guard.layout}`);
      expect(layout.middleware, guard.layout).toContain(guard.middleware);
    }
  });

  it("gives every guarded page a loader, so a client-side navigation asks the server (and its guard)", async () => {
    for (const leaf of [...under("user"), ...under("admin")]) {
      expect(typeof (await importRoute(leaf.node)).loader, leaf.pattern).toBe("function");
    }
  });
});

describe("signed-in pages refuse a visitor", () => {
  for (const leaf of under("user")) {
    it(`${leaf.pattern}: GET and POST go to the login dialog, coming back to the page`, async () => {
      const mod = await importRoute(leaf.node);
      const url = urlOf(leaf.pattern);
      const path = new URL(url).pathname;
      const login = `/?auth=login&redirectTo=${encodeURIComponent(path)}`;
      const get = await settle(() => runRoute("loader", mod, new Request(url)));
      expect([get.status, get.location]).toEqual([302, login]);
      if (mod.action) {
        const post = new Request(url, { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ intent: "x" }) });
        const posted = await settle(() => runRoute("action", mod, post));
        expect([posted.status, posted.location]).toEqual([302, login]);
      }
    });
  }
});

describe("back-office pages refuse a request without an admin session", () => {
  for (const leaf of under("admin")) {
    it(`${leaf.pattern}: GET goes to /xbbadmin, POST gets 401`, async () => {
      const mod = await importRoute(leaf.node);
      const url = urlOf(leaf.pattern);
      const get = await settle(() => runRoute("loader", mod, new Request(url)));
      expect([get.status, get.location]).toEqual([302, `/xbbadmin?redirectTo=${encodeURIComponent(new URL(url).pathname)}`]);
      if (mod.action) {
        const post = new Request(url, { method: "POST", headers: { Origin: "http://localhost" }, body: new URLSearchParams({ intent: "x" }) });
        const posted = await settle(() => runRoute("action", mod, post));
        expect([posted.status, posted.data]).toEqual([401, ADMIN_MESSAGES.unauthorized]);
      }
    });
  }
});

describe("exports refuse a request without an admin session or API token", () => {
  for (const leaf of under("export")) {
    it(`${leaf.pattern}: 401 with WWW-Authenticate`, async () => {
      const mod = await importRoute(leaf.node);
      const r = await settle(() => runRoute("loader", mod, new Request(urlOf(leaf.pattern))));
      expect(r.status).toBe(401);
      expect(r.response!.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    });
  }
});

describe("the reading apps' catalog refuses a request without a working token", () => {
  it("has the catalog, the library and the downloads under the token guard", () => {
    expect(under("opds").map((l) => l.pattern).sort()).toEqual(["/opds/:token", "/opds/:token/library", "/opds/:token/works/:id/book.epub"]);
  });
  for (const leaf of under("opds")) {
    it(`${leaf.pattern}: 401, no data, no cookie, even with a signed-in session`, async () => {
      const mod = await importRoute(leaf.node);
      for (const headers of [{}, { Cookie: await sessionCookieFor((await createUser()).id) }] as Record<string, string>[]) {
        const r = await settle(() => runRoute("loader", mod, new Request(urlOf(leaf.pattern), { headers })));
        expect(r.status).toBe(401);
        expect(await r.response!.text()).toBe(SETTINGS_MESSAGES.opdsUnauthorized);
        expect(r.response!.headers.get("Set-Cookie")).toBeNull();
      }
    });
  }
});

describe("a 运营 admin gets 403 on every super-admin page, action and export", () => {
  let cookie: string;
  const operator = async () => {
    cookie ??= await adminCookieFor((await createAdmin({ role: "operator" })).id);
    return cookie;
  };
  for (const leaf of under("super")) {
    it(`${leaf.pattern}: GET and POST get 403`, async () => {
      const mod = await importRoute(leaf.node);
      const url = urlOf(leaf.pattern);
      const headers = { Cookie: await operator(), Origin: "http://localhost" };
      const get = await settle(() => runRoute("loader", mod, new Request(url, { headers })));
      expect([get.status, get.data]).toEqual([403, ADMIN_MESSAGES.superOnly]);
      if (mod.action) {
        const post = new Request(url, { method: "POST", headers, body: new URLSearchParams({ intent: "x" }) });
        const posted = await settle(() => runRoute("action", mod, post));
        expect([posted.status, posted.data]).toEqual([403, ADMIN_MESSAGES.superOnly]);
      }
    });
  }
  for (const leaf of under("export")) {
    it(`${leaf.pattern}: 403`, async () => {
      const mod = await importRoute(leaf.node);
      const headers = { Cookie: await operator() };
      const r = await settle(() => runRoute("loader", mod, new Request(urlOf(leaf.pattern), { headers })));
      expect(r.status).toBe(403);
      expect(await r.response!.text()).toBe(ADMIN_MESSAGES.superOnly);
    });
  }
  it("while the pages for both roles open", async () => {
    await operator();
    const leaf = under("admin").find((l) => l.pattern === "/admin/audit")!;
    const mod = await importRoute(leaf.node);
    const r = await settle(() => runRoute("loader", mod, new Request(urlOf(leaf.pattern), { headers: { Cookie: cookie } })));
    expect(r.status).toBe(200);
  });
});

describe("a 审核员 reaches the review pages and nothing else of the back office (docs/product.md#admin-roles)", () => {
  const cookies: Partial<Record<"reviewer" | "chief_editor" | "operator", string>> = {};
  const as = async (role: "reviewer" | "chief_editor" | "operator") => (cookies[role] ??= await adminCookieFor((await createAdmin({ role })).id));
  const call = async (leaf: Leaf, role: "reviewer" | "chief_editor" | "operator", method: "GET" | "POST") => {
    const mod = await importRoute(leaf.node);
    const headers = { Cookie: await as(role), Origin: "http://localhost" };
    if (method === "GET") return settle(() => runRoute("loader", mod, new Request(urlOf(leaf.pattern), { headers })));
    if (!mod.action) return null;
    return settle(() => runRoute("action", mod, new Request(urlOf(leaf.pattern), { method: "POST", headers, body: new URLSearchParams({ intent: "x" }) })));
  };

  it("puts every admin page under exactly one of: the review pages, the staff pages, or one's own account", () => {
    for (const leaf of under("admin")) {
      const places = (["review", "staff"] as const).filter((g) => leaf.guards.includes(g));
      if (leaf.pattern === "/admin/account") expect(places).toEqual([]);
      else expect(places, leaf.pattern).toHaveLength(1);
    }
    for (const leaf of under("super")) expect(leaf.guards).toContain("staff");
    for (const leaf of under("chief")) expect(leaf.guards).toContain("review");
    expect(under("review").map((l) => l.pattern)).toEqual(expect.arrayContaining(["/admin/review", "/admin/review/:id", "/admin/settings/review"]));
  });

  for (const role of ["reviewer", "chief_editor"] as const) {
    it(`a ${role}: every staff page's GET goes to the review queue, every post gets 403`, async () => {
      for (const leaf of under("staff")) {
        const get = await call(leaf, role, "GET");
        expect([get!.status, get!.location], leaf.pattern).toEqual([302, "/admin/review"]);
        const post = await call(leaf, role, "POST");
        if (post) expect([post.status, post.data], leaf.pattern).toEqual([403, ADMIN_MESSAGES.staffOnly]);
      }
    });
  }

  it("a 运营 gets 403 on every review page and action", async () => {
    for (const leaf of under("review")) {
      const get = await call(leaf, "operator", "GET");
      expect([get!.status, get!.data], leaf.pattern).toEqual([403, ADMIN_MESSAGES.reviewersOnly]);
      const post = await call(leaf, "operator", "POST");
      if (post) expect([post.status, post.data], leaf.pattern).toEqual([403, ADMIN_MESSAGES.reviewersOnly]);
    }
  });

  it("a 审核员 gets 403 on the review policy; a 总编辑 opens it", async () => {
    for (const leaf of under("chief")) {
      const get = await call(leaf, "reviewer", "GET");
      expect([get!.status, get!.data], leaf.pattern).toEqual([403, ADMIN_MESSAGES.chiefOnly]);
      const post = await call(leaf, "reviewer", "POST");
      if (post) expect([post.status, post.data], leaf.pattern).toEqual([403, ADMIN_MESSAGES.chiefOnly]);
      expect((await call(leaf, "chief_editor", "GET"))!.status, leaf.pattern).toBe(200);
    }
  });

  it("a 审核员 opens the queue and the account page", async () => {
    for (const pattern of ["/admin/review", "/admin/account"]) {
      const leaf = under("admin").find((l) => l.pattern === pattern)!;
      expect((await call(leaf, "reviewer", "GET"))!.status, pattern).toBe(200);
    }
  });
});
