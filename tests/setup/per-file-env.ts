import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, vi } from "vitest";

/**
 * Every test file (unit and integration, vitest.config.ts) starts from fresh app modules,
 * the environment it found, real timers and console, and a data directory of its own.
 * A worker process runs many files one after another (isolate: false in vitest.config.ts,
 * docs/decisions/068); only node_modules stay loaded. tests/setup/per-file.ts adds a
 * database for the integration tests (it runs after this file).
 */
vi.resetModules();
const environment = { ...process.env };
// The app keeps its process-wide singletons (database client, event hub, storage) on
// globalThis so that they survive module reloads: a new file starts without them.
const holder = globalThis as Record<string, unknown>;
const dropSingletons = () => {
  for (const name of Object.keys(holder)) if (name.startsWith("__inkstone")) delete holder[name];
};
dropSingletons();

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "inkstone-file-"));
process.env.DATA_DIR = dataDir;
process.env.SESSION_SECRET = "test-session-secret";
// A test reads right after its own write, in the same tick that the write's change event
// is still on its way: the few-second public caches (docs/decisions/060) are off here,
// and tests/integration/public-cache.test.ts turns them on to test them.
process.env.PAGE_CACHE = "0";
// Password hashes at scrypt's lowest accepted cost: the suite registers hundreds of
// accounts, about 80 ms of CPU each at the default (docs/decisions/140).
process.env.PASSWORD_SCRYPT_N = "1024";
// 实名认证 is on in tests (decision 204): a fixed 32-byte key, base64.
process.env.IDENTITY_KEY = "aW5rc3RvbmUtdGVzdC1pZGVudGl0eS1rZXktMzJieXQ=";

// After hooks run in reverse order of registration (vitest's sequence.hooks "stack"):
// this one runs after per-file.ts has closed the file's database.
afterAll(() => {
  // Nothing a file spied on or faked reaches the next file in this worker.
  vi.restoreAllMocks();
  vi.useRealTimers();
  dropSingletons();
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
