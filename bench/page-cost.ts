// npm run bench:page-cost [-- --paths=/,/works?page=1,/terms --loads=30 --build]
//
// What a page costs the browser (docs/benchmarks.md#what-a-page-costs-the-browser-npm-run-benchpage-cost):
// Chromium's CPU time (all its processes, from /proc, the exited renderers included through
// their parents' reaped-children time) per page load, the way the Playwright tests load
// pages, against the production server (node server.js) on a fresh PGlite directory:
//   - fresh: a new page for each load (a new renderer process, nothing compiled yet), as every
//     test starts;
//   - warm: the same page loaded again (its renderer and compiled code kept);
//   - blank: a new page that loads nothing (the renderer's own start);
// each with JavaScript (until the page has hydrated) and without. Per kind of Chromium
// process as well (renderer, browser, GPU, network). docs/decisions/274.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { fmt, parseFlags } from "./lib-db";
import { busy, describeBusy, describeMachine } from "./lib-machine";
import { ensureBuild, freePort, startServer, stopServer } from "./lib-server";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_DIR = path.join(ROOT, "bench/results");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell";
const flags = parseFlags(process.argv.slice(2));
const PATHS = (flags.get("paths") ?? "/,/works?page=1,/terms").split(",");
const LOADS = Number(flags.get("loads") ?? 30);
const log = (line: string) => console.error(line);

/** Chromium's CPU time so far, in ms, by kind of process (exited children counted in their parent's). */
function chromiumCpu(): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const pid of fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    let command: string;
    let fields: string[];
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!command.includes("chrom")) continue;
      fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    } catch {
      continue; // gone meanwhile
    }
    const kind = command.match(/--type=([a-z-]+)/)?.[1] ?? "browser";
    // utime + stime, then cutime + cstime (children reaped: a zygote's exited renderers).
    const own = (Number(fields[11]) + Number(fields[12])) * 10;
    const reaped = (Number(fields[13]) + Number(fields[14])) * 10;
    const name = kind === "zygote" ? "renderer" : kind;
    byKind.set(name, (byKind.get(name) ?? 0) + own + reaped);
  }
  return byKind;
}

type Mode = "fresh" | "warm" | "blank";

/** Chromium's CPU per load, by kind of process, over LOADS loads of `url`. */
async function measure(browser: Browser, url: string, mode: Mode, javaScript: boolean): Promise<Map<string, number>> {
  let context: BrowserContext = await browser.newContext({ javaScriptEnabled: javaScript, locale: "zh-CN" });
  let page: Page = await context.newPage();
  const load = async () => {
    await page.goto(url);
    if (javaScript) await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
  };
  await load(); // the server's caches and the browser's first start, not counted
  const before = chromiumCpu();
  for (let i = 0; i < LOADS; i++) {
    if (mode !== "warm") {
      await context.close();
      context = await browser.newContext({ javaScriptEnabled: javaScript, locale: "zh-CN" });
      page = await context.newPage();
    }
    if (mode !== "blank") await load();
  }
  const after = chromiumCpu();
  await context.close();
  const perLoad = new Map<string, number>();
  for (const [kind, ms] of after) perLoad.set(kind, (ms - (before.get(kind) ?? 0)) / LOADS);
  return perLoad;
}

async function main() {
  ensureBuild(ROOT, flags.has("build"), log);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-bench-page-cost-"));
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.PGLITE_DIR;
  const port = await freePort();
  const server = await startServer({ cwd: ROOT, env, port, logFile: path.join(os.tmpdir(), "inkstone-bench-page-cost.log") });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  const rows: string[] = [];
  const kinds = ["renderer", "browser", "gpu-process", "utility"];
  const before = busy();
  try {
    for (const target of PATHS) {
      const url = `http://127.0.0.1:${port}${target}`;
      for (const javaScript of [true, false]) {
        for (const mode of ["fresh", "warm", "blank"] as const) {
          if (mode === "blank" && (!javaScript || target !== PATHS[0])) continue;
          const perLoad = await measure(browser, url, mode, javaScript);
          const total = [...perLoad.values()].reduce((sum, ms) => sum + ms, 0);
          const label = mode === "blank" ? "(blank page)" : `\`${target}\``;
          rows.push(`| ${label} | ${mode} | ${javaScript ? "yes" : "no"} | ${fmt(total)} | ${kinds.map((k) => fmt(perLoad.get(k) ?? 0)).join(" | ")} |`);
          log(rows.at(-1)!);
        }
      }
    }
  } finally {
    await browser.close();
    await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const after = busy();
  const report = [
    `Machine: ${describeMachine()}, ${new Date().toISOString()}. ${describeBusy(before, after)}`,
    "",
    `Chromium's CPU per page load, ms (${LOADS} loads each; clock ticks of 10 ms; ${CHROMIUM}):`,
    "",
    `| page | renderer | JavaScript | all | ${kinds.join(" | ")} |`,
    `| --- | --- | --- | --: | ${kinds.map(() => "--:").join(" | ")} |`,
    ...rows,
  ].join("\n");
  console.log(report);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(RESULTS_DIR, `page-cost-${stamp}.md`), report + "\n");
  log(`\nsaved to bench/results/page-cost-${stamp}.md`);
}

await main();
