import path from "node:path";

/** Where the embedded database, the session secret and uploads live. */
export function dataDir(): string {
  return path.resolve(process.env.DATA_DIR ?? "./data");
}

/** The data directory of the embedded database (PGLITE_DIR, else DATA_DIR/pglite). */
export function pgliteDir(): string {
  return path.resolve(process.env.PGLITE_DIR ?? path.join(dataDir(), "pglite"));
}

export function databaseUrl(): string | undefined {
  const url = process.env.DATABASE_URL?.trim();
  return url ? url : undefined;
}

/** Integer from the environment, for tunables such as rate limits. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
