import { defineConfig } from "vitest/config";

// Its own config, without the reactRouter() plugin, which would take over vitest runs.
// Three projects (docs/decisions/282, 284): `unit` (tests/unit, app/**) needs no database,
// `integration` (tests/integration) gives every file its own, and `standalone`
// (tests/standalone) brings its own or none, the same whatever the backend (child
// processes on a PGlite directory of their own, postgres.js against a PostgreSQL server, the
// source read as text). CI runs all three on PostgreSQL and only `integration` again on PGlite.
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
        test: { name: "standalone", include: ["tests/standalone/**/*.test.ts"], setupFiles: ["tests/setup/per-file-env.ts"] },
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
