import type { KnipConfig } from "knip";

// knip finds unused files, exports and dependencies (`npm run check:unused`, part of
// `npm test`). The React Router, vitest, Playwright, drizzle and vite plugins find their own
// entry points: app/routes.ts and every route module in it, app/root.tsx,
// app/entry.server.tsx, the test files, the config files; package.json's scripts give
// server.js (`start`), scripts/*.ts and bench/*.ts. Listed here is what they cannot see. A pattern ending in `!` is production code: `knip --production` (the second run of
// check:unused) reads only those and reports an export that only tests import, unless it
// is tagged `/** @internal */` (docs/decisions/191).
const config: KnipConfig = {
  entry: [
    // The CLI behind `npm run db:migrate`, `admin:create`, `backup`, ... (tsx).
    "scripts/*.ts!",
    // Started as processes, by path: the soak benchmark's `--import`, the e2e web server's
    // seed, the data-directory lock test's holder.
    "bench/lib-memory-probe.js",
    "tests/e2e/fixtures/seed.ts",
    "tests/fixtures/hold-data-dir.ts",
    // Preloaded into `node server.js` by the full-disk test (`--import`).
    "tests/fixtures/full-disk.mjs",
  ],
  project: [
    "app/**/*.{ts,tsx}!",
    "server/**/*.js!",
    "scripts/**/*.ts!",
    "bench/**/*.{ts,js}",
    "tests/**/*.{ts,mjs}",
    "*.{ts,js}",
  ],
  // bench/ssr.ts loads autocannon with createRequire (it ships no types), which knip does not
  // follow; the --production run reads `start`, not `postinstall`, which runs patch-package
  // (patches/, docs/decisions/273).
  ignoreDependencies: ["autocannon", ...(process.argv.includes("--production") ? ["patch-package"] : [])],
  // Programs the benchmarks and tests run that are not npm packages (xmllint validates the
  // sitemaps); and, in the --production run,
  // `npm start`'s `react-router build`, a devDependency's binary (the image builds in its
  // own stage, with devDependencies).
  ignoreBinaries: ["java", "psql", "iconv", "xmllint", ...(process.argv.includes("--production") ? ["react-router"] : [])],
};

export default config;
