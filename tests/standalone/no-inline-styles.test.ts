import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The policy's `style-src 'self'` refuses every style attribute, and a React `style` prop
 * is rendered as one (docs/decisions/156): the bookshelf's progress bars were drawn full.
 * The browser test sees a refusal only on a page that renders the element; this reads
 * the source, so a style prop is found wherever it is.
 */
const APP = path.resolve(__dirname, "../../app");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "+types" ? [] : sources(file);
    return /\.(tsx?|jsx?)$/.test(entry.name) ? [file] : [];
  });
}

/** `style={...}` or `style="..."` (a prop on a line of its own too), or a `style:` key handed to createElement. */
const STYLE = /\bstyle=[{"']|createElement\([^)]*\bstyle:/;

describe("app/ under the Content-Security-Policy", () => {
  it("has no style prop or attribute anywhere", () => {
    const found = sources(APP).flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ where: `${path.relative(APP, file)}:${i + 1}`, line }))
        .filter(({ line }) => STYLE.test(line))
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it("would find the ones that shipped", () => {
    expect(STYLE.test(`          <span style={{ width: \`\${item.progress}%\` }} />`)).toBe(true);
    expect(STYLE.test(`<td style={{ whiteSpace: "pre-wrap", maxWidth: "16rem" }}>{r.payee}</td>`)).toBe(true);
    expect(STYLE.test(`<div className="admin-progress-bar" style={{ width: \`\${progress.percent}%\` }} />`)).toBe(true);
    expect(STYLE.test(`<progress className="progress-bar" max={100} value={item.progress} aria-hidden="true" />`)).toBe(false);
  });
});
