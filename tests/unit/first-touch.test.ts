import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scriptsAtFirstTouch } from "~/server/platform/first-touch.server";
import { withHashesForNonce } from "~/server/platform/shared-cache.server";

const nonce = "bm9uY2Vub25jZW5vbmNlMQ==";
const modules = 'import "/assets/manifest-1.js";\nimport * as route0 from "/assets/root-1.js";\nimport("/assets/entry.client-1.js");';
const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** A page as React Router renders it: preloads in <head>, then the text, its data and its one module script. */
function renderedPage(moduleScripts = 1): Buffer {
  return Buffer.from(
    `<!DOCTYPE html><html lang="zh-CN"><head><meta charSet="utf-8"/>` +
      `<link rel="modulepreload" fetchpriority="low" href="/assets/manifest-1.js"/><link rel="modulepreload" fetchpriority="low" href="/assets/root-1.js"/></head>` +
      `<body><p>第一段，“引号”。</p><script nonce="${nonce}">window.__reactRouterContext = {};</script>` +
      `<script nonce="${nonce}" type="module" async="">${modules}</script>`.repeat(moduleScripts) +
      `<script nonce="${nonce}">window.__reactRouterContext.streamController.close();</script></body></html>`,
  );
}

describe("a chapter's scripts at the first touch (decision 264)", () => {
  it("takes out the preloads, holds the module script as data with their addresses, and adds the starter with the nonce", () => {
    const html = scriptsAtFirstTouch(renderedPage(), nonce).toString("utf8");
    expect(html).toMatch(/^<!DOCTYPE html><html data-scripts="at-first-touch" lang="zh-CN">/);
    expect(html).not.toMatch(/<link[^>]*modulepreload/);
    expect(html).not.toContain('type="module"');
    expect(html).toContain(
      `<script nonce="${nonce}" type="inkstone/at-first-touch" data-preload="/assets/manifest-1.js /assets/root-1.js">${modules}</script>`,
    );
    // The text and the data scripts are as they were; the starter is the body's last element.
    expect(html).toContain("<p>第一段，“引号”。</p>");
    expect(html).toContain(`<script nonce="${nonce}">window.__reactRouterContext = {};</script>`);
    expect(html).toMatch(new RegExp(`<script nonce="${nonce}">\\(\\(\\) => \\{[\\s\\S]*\\}\\)\\(\\);</script></body></html>$`));
    for (const event of ["pointerdown", "touchstart", "keydown", "wheel", "scroll", "focusin"]) expect(html).toContain(`"${event}"`);
  });

  it("on a shared page, names the held module script by the hash of the text the starter inserts again", () => {
    const { page, scriptHashes } = withHashesForNonce(scriptsAtFirstTouch(renderedPage(), nonce), nonce);
    expect(page.toString("utf8")).not.toContain("nonce=");
    expect(scriptHashes).toContain(sha(modules));
    // Every inline script of the page, the starter included, and nothing else.
    const inline = [...page.toString("utf8").matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => sha(m[1]));
    expect(new Set(scriptHashes)).toEqual(new Set(inline));
    expect(inline).toHaveLength(4);
  });

  it("leaves a page it does not recognise, or one laid out in pages, as it was: its scripts run at load", () => {
    const twice = renderedPage(2);
    expect(scriptsAtFirstTouch(twice, nonce)).toBe(twice);
    const none = Buffer.from("<!DOCTYPE html><html><body><p>正文</p></body></html>");
    expect(scriptsAtFirstTouch(none, nonce)).toBe(none);
    // 翻页 needs its script to lay out the pages it shows.
    const paged = Buffer.from(renderedPage().toString("utf8").replace('<html lang="zh-CN">', '<html lang="zh-CN" data-reader-layout="paged">'));
    expect(scriptsAtFirstTouch(paged, nonce)).toBe(paged);
  });
});
