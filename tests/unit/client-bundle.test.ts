import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What the browser downloads per page, read from the build's route manifest (the build
 * must exist: npm test builds first). The form kit (zod and Conform, one chunk named
 * form-kit by vite.config.ts) is loaded only by pages whose purpose is a validating form;
 * a reading page that imports a limit from a schema module would ship all of zod
 * (docs/decisions/243). Every route of the site is checked by what its own module imports;
 * the list below is the exception. The shell layout is not in it: its login dialog lets the
 * server check the form (app/components/auth-dialog.tsx), so no page loads the kit through it.
 */
const FORM_PAGES = new Set([
  "routes/public/auth-forgot-password",
  "routes/public/auth-reset-password",
  "routes/shell/library/my-booklists",
  "routes/shell/library/booklist-edit",
  "routes/shell/reader/add-to-booklist",
  "routes/shell/reader/tip",
  "routes/shell/works/submit",
  "routes/shell/works/edit",
  "routes/shell/works/new-chapter",
  "routes/shell/studio/settings",
  "routes/shell/studio/chapters",
  "routes/shell/studio/stats",
  "routes/shell/studio/chapter-new",
  "routes/shell/studio/chapter-edit",
  "routes/shell/studio/chapter-revisions",
  "routes/shell/studio/chapter-appeal",
  "routes/shell/studio/work-appeal",
  "routes/shell/studio/bible",
  "routes/shell/studio/context",
  "routes/shell/writing/free-writing",
  "routes/shell/writing/short-writing",
  "routes/shell/writing/series-writing",
  "routes/shell/credits/credits",
  "routes/shell/credits/payout-account",
  "routes/shell/settings/nickname",
  "routes/shell/settings/pixiv-id",
  "routes/shell/settings/password",
  "routes/shell/settings/phone",
  "routes/shell/settings/opds",
  "routes/shell/settings/identity",
  "routes/shell/settings/minor-mode",
  "routes/shell/settings/delete-account",
]);

interface Manifest {
  entry: { module: string; imports: string[] };
  routes: Record<string, { id: string; parentId?: string; module?: string; imports?: string[] }>;
}

function readManifest(): Manifest {
  const assets = path.resolve("build/client/assets");
  const file = fs.existsSync(assets) ? fs.readdirSync(assets).find((name) => name.startsWith("manifest-")) : undefined;
  if (!file) throw new Error("build/client has no route manifest: run `npx react-router build` first (npm test does)");
  const source = fs.readFileSync(path.join(assets, file), "utf8");
  return JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1)) as Manifest;
}

/** The script files a page of `routeId` loads: the entry, and each route from the root down. */
function filesOf(manifest: Manifest, routeId: string): string[] {
  const files = new Set([manifest.entry.module, ...manifest.entry.imports]);
  for (let id: string | undefined = routeId; id; id = manifest.routes[id]?.parentId) {
    const route = manifest.routes[id];
    if (route.module) files.add(route.module);
    for (const file of route.imports ?? []) files.add(file);
  }
  return [...files];
}

describe("the JavaScript each page loads", () => {
  const manifest = readManifest();
  const userSide = Object.values(manifest.routes).filter((route) => route.module && !route.id.startsWith("routes/admin"));

  it("reading pages load no form kit of their own; the pages listed as forms do", () => {
    const withKit = userSide.filter((route) => [route.module, ...(route.imports ?? [])].some((file) => file && /\/form-kit-[^/]+\.js$/.test(file))).map((route) => route.id);
    expect(withKit.sort()).toEqual([...FORM_PAGES].sort());
  });

  it("every page loads React and React Router as one file", () => {
    for (const route of userSide) expect(filesOf(manifest, route.id).filter((file) => /\/framework-[^/]+\.js$/.test(file)), route.id).toHaveLength(1);
  });
});
