import { defineConfig } from "vitest/config";

// Its own config, without the reactRouter() plugin, which would take over vitest runs.
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    pool: "forks",
    // One process per worker runs file after file: starting a process and importing the
    // app for each of 36 files took half the run. tests/setup/per-file.ts gives each file
    // fresh app modules, its own database and its own environment (docs/decisions/068).
    isolate: false,
    // Four on a 2-core machine: files wait on databases, child processes and timers more
    // than they compute (docs/decisions/103).
    maxWorkers: 4,
    testTimeout: 30_000,
    // Above the 90 s a child server.js gets to start (tests/fixtures/processes.ts) on a busy machine.
    hookTimeout: 120_000,
  },
});
