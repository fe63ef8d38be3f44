// The production server (`node server.js`) as the benchmarks run it: on a free loopback
// port, ready once /healthz answers, stopped with SIGTERM, its memory read from /proc.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node server.js` in `cwd` on `port` with `env` (NODE_ENV as the caller sets it;
 * server.js defaults it to production), its output in `logFile` (or discarded), and
 * waits up to 60 s for /healthz to answer 200. BENCH_SERVER_FLAGS adds Node flags to the
 * server alone (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", which NODE_OPTIONS refuses).
 */
export async function startServer(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  logFile?: string;
  /** Node flags of this benchmark's own, before BENCH_SERVER_FLAGS. */
  nodeFlags?: string[];
}): Promise<ChildProcess> {
  const { cwd, env, port, logFile, nodeFlags = [] } = options;
  const out = logFile ? fs.openSync(logFile, "w") : "ignore";
  const flags = [...nodeFlags, ...(process.env.BENCH_SERVER_FLAGS?.split(" ").filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...flags, "server.js"], {
    cwd,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", out, out],
  });
  if (typeof out === "number") fs.closeSync(out);
  let exited = false;
  child.on("exit", () => (exited = true));
  const seeLog = logFile ? `; see ${logFile}` : "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`server exited at start${seeLog}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not answer /healthz within 60 s${seeLog}`);
}

/** SIGTERM (the server closes its database), SIGKILL after 10 s. */
export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Resident set and its high-water mark (VmHWM) of a process, in bytes. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
}

/**
 * CPU time (user + system) a process has used so far, in milliseconds, from /proc. Read
 * before and after a load, it gives the server's own CPU per request: a figure that other
 * processes on a shared machine disturb much less than throughput.
 */
export function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}
/** USER_HZ: 100 on Linux on every architecture the project runs on. */
const CLOCK_TICKS = 100;

/** Samples a process's RSS every `everyMs` until stop(), which returns the peak in bytes. */
export function sampleRss(pid: number, everyMs = 20): { stop: () => number } {
  let peak = memoryOf(pid).rss;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memoryOf(pid).rss);
    } catch {
      // the process is gone
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, memoryOf(pid).rss);
      } catch {
        // the process is gone
      }
      return peak;
    },
  };
}

/** Registers (if asked) and signs in a reader over HTTP, as a browser would; returns the session cookie. */
export async function signIn(origin: string, email: string, options: { register: boolean; password?: string }): Promise<string> {
  const password = options.password ?? "bench-password-1";
  const post = (to: string) =>
    fetch(`${origin}${to}`, {
      method: "POST",
      body: new URLSearchParams({ email, password }),
      headers: { Origin: origin },
      redirect: "manual",
    });
  if (options.register) await post("/auth/register");
  const login = await post("/auth/login");
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith("inkstone_session="));
  if (!cookie) throw new Error(`login failed: ${login.status}`);
  return cookie.split(";")[0];
}

/** Builds the app with `npx react-router build` if build/ is missing, or always when `force`. */
export function ensureBuild(root: string, force: boolean, log: (line: string) => void) {
  const built = fs.existsSync(path.join(root, "build/server/index.js"));
  if (built && !force) {
    log("using the existing build/ (pass --build to rebuild)");
    return;
  }
  log("building: npx react-router build");
  const r = spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) throw new Error("react-router build failed");
}
