import { defineConfig } from "vitest/config";

// Its own config, without the reactRouter() plugin, which would take over vitest runs.
// Two projects (docs/decisions/282): `unit` (tests/unit, app/**) needs no database, and
// `integration` (tests/integration) gives every file its own. CI runs both on PostgreSQL
// and only `integration` again on PGlite, as the unit tests do not touch a database.
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    pool: "forks",
    // One process per worker runs file after file: starting a process and importing the
    // app for each of 36 files took half the run. tests/setup/per-file-env.ts gives each
    // file fresh app modules and its own environment, tests/setup/per-file.ts an
    // integration file its own database (docs/decisions/068).
    isolate: false,
    // Four on a 2-core machine: files wait on databases, child processes and timers more
    // than they compute (docs/decisions/103).
    maxWorkers: 4,
    testTimeout: 30_000,
    // Above the 90 s a child server.js gets to start (tests/fixtures/processes.ts) on a busy machine.
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts", "app/**/*.test.ts"], setupFiles: ["tests/setup/per-file-env.ts"] },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          globalSetup: ["tests/setup/global-setup.ts"],
          setupFiles: ["tests/setup/per-file-env.ts", "tests/setup/per-file.ts"],
        },
      },
    ],
  },
});
