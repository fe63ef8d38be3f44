import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// Playwright loads this file in the runner and again in every worker. The runner picks
// one fresh directory per run (PGlite data, seed facts) and hands it to the workers and
// the web server through the environment. The web server creates it and removes it when
// it stops, so a run that never starts the server (--list) leaves nothing behind.
process.env.INKSTONE_E2E_RUN_DIR ??= path.join(os.tmpdir(), `inkstone-e2e-${randomBytes(6).toString("hex")}`);
const runDir = process.env.INKSTONE_E2E_RUN_DIR;

// The e2e site's first administrator, created from the environment on first start.
// Set here so the web server and the workers (tests/e2e/admin.spec.ts) agree.
process.env.ADMIN_EMAIL ??= "e2e-admin@example.com";
process.env.ADMIN_PASSWORD ??= "e2e-admin-password";

const port = Number(process.env.E2E_PORT ?? 3107);
// The fakes' ports; the specs read the same variables (or these defaults).
const aiPort = Number((process.env.E2E_AI_PORT ??= "3198"));
const gatewayPort = Number((process.env.E2E_GATEWAY_PORT ??= "3108"));
const baseURL = `http://127.0.0.1:${port}`;
/**
 * Specs that change what every reader gets: they run last (the *-switches projects below).
 * 后台实名's switch (decision 235); a 公告, which every reader's bell counts while it is
 * current (front-page.spec.ts; notifications.spec.ts counts the bell exactly).
 */
const SITE_SWITCHES = /(sms-verification|front-page)\.spec\.ts$/;
const databaseUrl = process.env.DATABASE_URL?.trim();

// Debian's Chromium; Playwright must never download a browser. Its old headless shell
// (package chromium-headless-shell, what Playwright itself runs headless) renders the same
// pages for about half the CPU of the full browser in headless mode (docs/decisions/139).
const chromiumPath =
  process.env.CHROMIUM_PATH || ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((file) => fs.existsSync(file)) || "/usr/bin/chromium";

const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};

export default defineConfig({
  testDir: "tests/e2e",
  // Every test makes its own users or reads seeded data it does not change.
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  // Four on a 2-core machine: a test spends most of its time waiting on the browser and
  // the server, not computing (the suite used 40% of the CPU with two). docs/decisions/103.
  // E2E_WORKERS overrides it: CI gives the PGlite run 3 while both backends' runs share the
  // machine, as PGlite's server answers every request in one process (decision 251).
  workers: Number(process.env.E2E_WORKERS) || 4,
  retries: 0,
  reporter: "list",
  // Every balance still matches its ledger after the run (PostgreSQL; see the file).
  globalTeardown: "./tests/e2e/fixtures/ledger-teardown.ts",
  // Per test: CI machines differ about three-fold in browser speed; on the slowest a journey
  // of 20 s took 50-60 s (docs/decisions/280). Each step still waits at most 15 s.
  timeout: process.env.CI ? 120_000 : 60_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL,
    locale: "zh-CN",
    timezoneId: "Asia/Shanghai",
    // Traces cost time on every test; `npx playwright test --trace on` records them.
    trace: "off",
    screenshot: "only-on-failure",
    // The site's service worker (decision 244) would answer requests that specs intercept with
    // page.route; only tests/e2e/offline.spec.ts, whose subject it is, lets it run.
    serviceWorkers: "block",
  },
  projects: [
    { name: "chromium", testIgnore: SITE_SWITCHES, use: { ...chromium } },
    // docs/product.md D2: the key forms work without JavaScript. Tests tagged @nojs run here too.
    { name: "chromium-nojs", grep: /@nojs/, testIgnore: SITE_SWITCHES, use: { ...chromium, javaScriptEnabled: false } },
    // Specs that change what every reader gets (后台实名's switch, decision 235; a 公告) run
    // after every other spec, so no other spec meets it; with and without JavaScript, one after the other.
    { name: "chromium-switches", testMatch: SITE_SWITCHES, dependencies: ["chromium", "chromium-nojs"], use: { ...chromium } },
    {
      name: "chromium-nojs-switches",
      testMatch: SITE_SWITCHES,
      grep: /@nojs/,
      dependencies: ["chromium-switches"],
      use: { ...chromium, javaScriptEnabled: false },
    },
  ],
  webServer: [
    // The fake AI provider and epay gateway speak the real wire protocols over HTTP.
    {
      command: `node --import tsx tests/fakes/ai-provider.ts --port ${aiPort} --delay 5`,
      url: `http://127.0.0.1:${aiPort}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `node --import tsx tests/fakes/epay-gateway.ts --port ${gatewayPort}`,
      url: `http://127.0.0.1:${gatewayPort}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
    // Seeds the run's fresh database, then runs `node server.js` (the build comes from
    // `npm test`, which builds before running vitest and Playwright).
    command: "node tests/e2e/fixtures/seed-and-serve.mjs",
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    // The seed takes about 30 s alone; CI seeds both backends' sites at once (decision 251).
    timeout: 300_000,
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    stdout: "ignore",
    stderr: "pipe",
    env: {
      INKSTONE_E2E_RUN_DIR: runDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: path.join(runDir, "data"),
      PGLITE_DIR: path.join(runDir, "data", "pglite"),
      // Every test comes from 127.0.0.1; the per-e-mail limits stay at their defaults.
      RATE_LIMIT_PER_ADDRESS: "100000",
      LOGIN_ADDRESS_LIMIT: "100000",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      E2E_AI_PORT: String(aiPort),
      E2E_GATEWAY_PORT: String(gatewayPort),
      NODE_ENV: "production",
      // The server's own clock is UTC, as on most hosts; pages still show Beijing time (tests/e2e/clock.spec.ts).
      TZ: "UTC",
      // Links in mails come from SITE_URL only (docs/decisions/166).
      SITE_URL: baseURL,
      // New password hashes at scrypt's lowest accepted cost (docs/decisions/140).
      PASSWORD_SCRYPT_N: "1024",
      // 实名认证 on (decision 204): a fixed 32-byte key, base64.
      IDENTITY_KEY: "aW5rc3RvbmUtdGVzdC1pZGVudGl0eS1rZXktMzJieXQ=",
    },
    },
  ],
});
