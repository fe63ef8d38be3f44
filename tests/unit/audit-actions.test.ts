import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AUDIT_ACTION_LABELS } from "~/utils/audit-actions";

/** Every `.ts` file under a folder. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(file) : /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

describe("the audit log's action names", () => {
  it("has a Chinese name for every action code the server records", () => {
    const root = path.resolve(import.meta.dirname, "../../app");
    const codes = new Set<string>();
    for (const file of sources(root)) {
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/action: "([a-z-]+\.[a-z-]+)"/g)) codes.add(match[1]);
      for (const match of text.matchAll(/saveSiteSettings\(\s*actor,\s*"([a-z-]+\.[a-z-]+)"/g)) codes.add(match[1]);
    }
    // Report decisions are recorded as `comment.<decision>` (app/server/admin/works-moderation.server.ts).
    for (const decision of ["hide", "restore", "delete", "dismiss"]) codes.add(`comment.${decision}`);
    expect(codes.size).toBeGreaterThan(30);
    expect([...codes].filter((code) => !(code in AUDIT_ACTION_LABELS)).sort()).toEqual([]);
  });
});
