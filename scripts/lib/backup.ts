// Backups of the embedded mode (README "Operations", docs/decisions/075): the PGlite
// data directory, the uploads (when stored on the local disk) and the session secret,
// copied while no process has the database open. The copy holds the data directory's
// lock (docs/decisions/075) from start to end: while the server runs it refuses, and no
// server or script can open the directory half-way through.
import fs from "node:fs";
import path from "node:path";
import { DataDirLockedError, lockDataDir } from "~/db/data-dir-lock.server";
import { databaseUrl, dataDir, pgliteDir } from "~/env.server";
import { s3ConfigFromEnv } from "~/server/platform/storage.server";

const MANIFEST = "inkstone-backup.json";

interface Manifest {
  format: 1;
  createdAt: string;
  /** What the backup holds, each a path inside it. */
  pglite: string;
  uploads: string | null;
  sessionSecret: string | null;
}

export class BackupError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

function refuseWithPostgres() {
  if (databaseUrl()) {
    throw new BackupError(
      "DATABASE_URL 已设置：PostgreSQL 请用 pg_dump / pg_restore 备份和恢复（见 README 的“运维”一节）。\n" +
        "DATABASE_URL is set: back up PostgreSQL with pg_dump and restore it with pg_restore (README, Operations).",
    );
  }
}

async function withLock<T>(work: () => T): Promise<T> {
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDir(pgliteDir());
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new BackupError(error.message, 3);
    throw error;
  }
  try {
    return work();
  } finally {
    await unlock();
  }
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** Copies the data into a new directory under `destination`; returns its path. */
export async function backup(destination: string): Promise<string> {
  refuseWithPostgres();
  const source = pgliteDir();
  if (!fs.existsSync(path.join(source, "PG_VERSION"))) {
    throw new BackupError(`找不到 PGlite 数据目录 ${source}。\nNo PGlite data directory at ${source}.`);
  }
  return withLock(() => {
    const now = new Date();
    const target = path.resolve(destination, `inkstone-backup-${stamp(now)}`);
    if (fs.existsSync(target)) throw new BackupError(`${target} 已存在。\n${target} already exists.`);
    const partial = `${target}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.mkdirSync(partial, { recursive: true });
    fs.cpSync(source, path.join(partial, "pglite"), { recursive: true });
    const uploads = path.join(dataDir(), "uploads");
    const localUploads = !s3ConfigFromEnv() && fs.existsSync(uploads);
    if (localUploads) fs.cpSync(uploads, path.join(partial, "uploads"), { recursive: true });
    const secret = path.join(dataDir(), "session-secret");
    const hasSecret = fs.existsSync(secret);
    if (hasSecret) fs.copyFileSync(secret, path.join(partial, "session-secret"));
    const manifest: Manifest = {
      format: 1,
      createdAt: now.toISOString(),
      pglite: "pglite",
      uploads: localUploads ? "uploads" : null,
      sessionSecret: hasSecret ? "session-secret" : null,
    };
    fs.writeFileSync(path.join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    // Complete or absent: the directory gets its final name only once everything is in it.
    fs.renameSync(partial, target);
    return target;
  });
}

/**
 * Puts a backup back: the current data directory, uploads and secret are moved aside to
 * `<name>.before-restore-<time>` (never deleted), then the backup's copies take their
 * place. Returns the paths moved aside.
 */
export async function restore(from: string): Promise<string[]> {
  refuseWithPostgres();
  const source = path.resolve(from);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(source, MANIFEST), "utf8")) as Manifest;
  } catch {
    throw new BackupError(`${source} 不是 npm run backup 做的备份（缺少 ${MANIFEST}）。\n${source} is not a backup made by npm run backup (no ${MANIFEST}).`);
  }
  if (manifest.format !== 1 || !fs.existsSync(path.join(source, manifest.pglite, "PG_VERSION"))) {
    throw new BackupError(`${source} 的备份不完整或格式未知。\nThe backup in ${source} is incomplete or of an unknown format.`);
  }
  return withLock(() => {
    const suffix = `.before-restore-${stamp(new Date())}`;
    const movedAside: string[] = [];
    const put = (inBackup: string | null, target: string, kind: "dir" | "file") => {
      if (!inBackup) return;
      if (fs.existsSync(target)) {
        fs.renameSync(target, target + suffix);
        movedAside.push(target + suffix);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (kind === "dir") fs.cpSync(path.join(source, inBackup), target, { recursive: true });
      else fs.copyFileSync(path.join(source, inBackup), target);
    };
    put(manifest.pglite, pgliteDir(), "dir");
    if (!s3ConfigFromEnv()) put(manifest.uploads, path.join(dataDir(), "uploads"), "dir");
    put(manifest.sessionSecret, path.join(dataDir(), "session-secret"), "file");
    return movedAside;
  });
}
