import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";

/**
 * One process per PGlite data directory (docs/decisions/075-data-directory-lock.md). PGlite
 * does not lock its directory: two processes on one directory each saw only their own
 * writes, and the second one's were lost. Whoever opens the directory (the server, a
 * script) first takes `<dir>.lock` with proper-lockfile (an atomic mkdir, its mtime
 * refreshed while held, removed on exit) and writes who holds it to `<dir>.lock.json`.
 *
 * A lock left by a process that died without cleaning up (`kill -9`, a power cut) is stale:
 * at once when the holder was on this host and its pid is gone (or a zombie), else once
 * its mtime is older than STALE_MS.
 */
const STALE_MS = 30_000;
const UPDATE_MS = 5_000;

export interface DataDirHolder {
  pid: number;
  hostname: string;
  command: string;
  since: string;
  /** The inode of the lock directory it took: a holder file left from an earlier lock does not count. */
  lockIno: number;
}

export class DataDirLockedError extends Error {
  readonly code = "EDATADIRLOCKED";
  constructor(
    readonly dir: string,
    readonly holder: DataDirHolder | null,
  ) {
    super(lockedMessage(dir, holder));
    this.name = "DataDirLockedError";
  }
}

/** What this process is, in the lock's holder file and in messages. */
function ownCommand(): string {
  const entry = process.argv[1] ? path.relative(process.cwd(), process.argv[1]) || process.argv[1] : "node";
  return `node ${entry}`;
}

function isServer(command: string): boolean {
  return /(^|[\s/])server\.js$/.test(command);
}

function lockedMessage(dir: string, holder: DataDirHolder | null): string {
  const who = holder ? `进程 ${holder.pid}（${holder.command}${holder.hostname !== os.hostname() ? `，主机 ${holder.hostname}` : ""}）` : "另一个进程";
  const whoEn = holder ? `process ${holder.pid} (${holder.command}${holder.hostname !== os.hostname() ? ` on ${holder.hostname}` : ""})` : "another process";
  const holderIsServer = !holder || isServer(holder.command);
  const weAreServer = isServer(ownCommand());
  const [zh, en] = holderIsServer
    ? weAreServer
      ? ["请先停止正在运行的服务器，或给这个服务器另一个 DATA_DIR。", "Stop the running server first, or give this one another DATA_DIR."]
      : ["请先停止服务器，再运行此脚本。", "Stop the server first, then run this script."]
    : ["请等它结束后再试。", "Wait for it to finish, then try again."];
  return [
    `数据目录 ${dir} 正被${who}使用：一个 PGlite 数据目录只能由一个进程打开。${zh}`,
    `The data directory ${dir} is in use by ${whoEn}: only one process may open a PGlite data directory. ${en}`,
  ].join("\n");
}

function holderFileOf(dir: string): string {
  return `${dir}.lock.json`;
}

function readHolder(dir: string): DataDirHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(holderFileOf(dir), "utf8")) as DataDirHolder;
    return Number.isSafeInteger(holder?.pid) ? holder : null;
  } catch {
    return null;
  }
}

/**
 * The process runs. A process that has exited but that its parent has not reaped yet (a
 * zombie: a server killed with SIGKILL under a supervisor that has not waited for it)
 * still answers kill(pid, 0); on Linux /proc/<pid>/stat tells it apart (state Z, or X
 * while being reaped) and it counts as gone.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false; // no /proc (not Linux), or gone this instant: kill(pid, 0) decides
  }
  // "<pid> (<command>) <state> ...": the command may itself hold spaces and parentheses.
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

// Directories this process holds; on a registered symbol so that module reloads (dev
// server, the tests' fresh modules) still see them.
const HELD_KEY = Symbol.for("inkstone.heldDataDirs");
const held: Set<string> = ((globalThis as Record<symbol, Set<string>>)[HELD_KEY] ??= new Set());

/**
 * The holder recorded in the holder file is gone: on this host, with a pid that no longer
 * runs (or that is this process's own, which does not hold it: a container restarted
 * with the same pid).
 */
function holderIsGone(dir: string, holder: DataDirHolder | null): boolean {
  if (!holder || holder.hostname !== os.hostname()) return false;
  try {
    if (fs.statSync(`${dir}.lock`).ino !== holder.lockIno) return false;
  } catch {
    return false;
  }
  if (holder.pid === process.pid) return !held.has(dir);
  return !isAlive(holder.pid);
}

async function tryLock(dir: string, onCompromised: (error: Error) => void) {
  return lockfile.lock(dir, { realpath: false, stale: STALE_MS, update: UPDATE_MS, onCompromised });
}

/**
 * Takes the lock on a PGlite data directory for this process, or throws a
 * DataDirLockedError naming the holder. Returns the release (also done on exit).
 */
export async function lockDataDir(directory: string): Promise<() => Promise<void>> {
  const dir = path.resolve(directory);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const onCompromised = (error: Error) => {
    // The lock could not be refreshed for STALE_MS (a blocked event loop, a removed lock
    // directory): another process may now take it. Say so loudly; the process keeps
    // serving what it has open rather than cutting requests.
    console.error(`data directory lock lost: ${dir}: ${error.message}`);
  };
  let release: () => Promise<void>;
  try {
    release = await tryLock(dir, onCompromised);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const holder = readHolder(dir);
    if (!holderIsGone(dir, holder)) throw new DataDirLockedError(dir, holder);
    // Age the dead holder's lock so that proper-lockfile takes it as stale (and, should
    // two processes get here at once, only one of them wins the mkdir).
    try {
      fs.utimesSync(`${dir}.lock`, new Date(0), new Date(0));
    } catch {
      // removed meanwhile: the retry simply takes it
    }
    try {
      release = await tryLock(dir, onCompromised);
    } catch (retryError) {
      if ((retryError as NodeJS.ErrnoException).code === "ELOCKED") throw new DataDirLockedError(dir, readHolder(dir));
      throw retryError;
    }
  }
  held.add(dir);
  const holder: DataDirHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    command: ownCommand(),
    since: new Date().toISOString(),
    lockIno: fs.statSync(`${dir}.lock`).ino,
  };
  const temp = `${holderFileOf(dir)}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(holder)}\n`);
  fs.renameSync(temp, holderFileOf(dir));
  let released: Promise<void> | undefined;
  return () =>
    (released ??= (async () => {
      held.delete(dir);
      fs.rmSync(holderFileOf(dir), { force: true });
      await release().catch(() => {});
    })());
}
