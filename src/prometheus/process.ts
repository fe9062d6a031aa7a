// Prometheus as a child process of `horizon up --prometheus`: the binary found on PATH (Debian's
// package: /usr/bin/prometheus), a free loopback port or the address given, its TSDB in the data directory (or a temp
// directory), the lifecycle API on for reloads (POST /-/reload after the configuration file
// changes), started again with back-off when it dies, stopped with SIGTERM, and with
// `horizon up` however it ends (WATCHDOG).
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export const INSTALL_HINT =
  "install it (Debian/Ubuntu: apt-get install prometheus) or put the prometheus binary on PATH";

/** The prometheus binary on PATH, or null. */
export function findPrometheus(path = process.env.PATH ?? ""): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "prometheus");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Prometheus must not outlive `horizon up`, even a SIGKILLed one (which runs no exit handler).
 * The shell keeps the read end of a pipe whose write end only this process holds, leaves a
 * subshell blocked on it, and execs Prometheus (so the child's pid is Prometheus' own and
 * SIGTERM reaches it directly). When this process exits the kernel closes the write end, the
 * subshell's read sees EOF and sends SIGTERM to Prometheus.
 */
const WATCHDOG = [
  "exec 3<&0",
  "(while read -r _ <&3; do :; done; kill -TERM $$ 2>/dev/null) </dev/null >/dev/null 2>&1 &",
  'exec "$@" </dev/null 3<&-',
].join("\n");

/**
 * Listens on host:port and lets go at once: whether Prometheus can (a clear error before it
 * starts, not its log), and which port 0 picks.
 */
async function probeListen(
  host: string,
  port: number,
): Promise<{ ok: true; port: number } | { ok: false; error: string }> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why =
      code === "EADDRINUSE"
        ? "address already in use"
        : code === "EADDRNOTAVAIL"
          ? "address not available on this machine"
          : code === "EACCES"
            ? "permission denied"
            : message;
    return { ok: false, error: why };
  }
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) return { ok: false, error: "no port" };
  return { ok: true, port: address.port };
}

/** Host part of a URL: IPv6 in brackets, a wildcard dialled on loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

export interface PrometheusProcess {
  url: string;
  configFile: string;
  /** Writes a new configuration and asks Prometheus to load it. */
  reload(config: string): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Null while Prometheus runs; why not while it is down and being restarted. */
  notReady(): string | null;
  /** How many times it was restarted after dying. */
  readonly restarts: number;
  /** The running Prometheus' process id. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export type StartResult = { ok: true; value: PrometheusProcess } | { ok: false; error: string };

export interface StartOptions {
  /** Where the TSDB and configuration go; a temp directory (removed on stop) when absent. */
  dataDir?: string;
  config: string;
  /** Prometheus' --web.listen-address; default 127.0.0.1 and a free port (port 0: a free one). */
  listenAddress?: { host: string; port: number };
  /** The flag that set listenAddress, named when it cannot be listened on. */
  listenFlag?: string;
  binary?: string | null;
  readyTimeoutMs?: number;
  /**
   * The wait before restarting a Prometheus that died, doubled after each quick death up to
   * `max` (default 1 s to 30 s); back to `initial` once one ran a minute.
   */
  restartBackoffMs?: { initial: number; max: number };
  log?: (line: string) => void;
}

/** One run of the binary under the watchdog. */
interface Launched {
  child: ChildProcess;
  exited: Promise<void>;
  startedAt: number;
  spawnError(): Error | null;
  tail(): string;
}

const STEADY_RUN_MS = 60_000;

export async function startPrometheus(options: StartOptions): Promise<StartResult> {
  const binary = options.binary === undefined ? findPrometheus() : options.binary;
  if (!binary)
    return { ok: false, error: `--prometheus: prometheus is not installed; ${INSTALL_HINT}` };
  const temporary = options.dataDir === undefined;
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), "horizon-prometheus-"));
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, "prometheus.yml");
  writeFileSync(configFile, options.config);
  const host = options.listenAddress?.host ?? "127.0.0.1";
  const probed = await probeListen(host, options.listenAddress?.port ?? 0);
  if (!probed.ok) {
    if (temporary) rmSync(dir, { recursive: true, force: true });
    const flag = options.listenFlag ?? "--prometheus";
    const wanted = `${host.includes(":") ? `[${host}]` : host}:${options.listenAddress?.port ?? 0}`;
    return { ok: false, error: `${flag} ${wanted}: cannot listen there: ${probed.error}` };
  }
  const { port } = probed;
  const listen = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const url = `http://${urlHost(host)}:${port}`;
  const log = options.log ?? (() => {});
  const backoff = options.restartBackoffMs ?? { initial: 1000, max: 30_000 };

  const launch = (): Launched => {
    const child: ChildProcess = spawn(
      "/bin/sh",
      [
        "-c",
        WATCHDOG,
        "prometheus-watchdog",
        binary,
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=${listen}`,
        "--web.enable-lifecycle",
      ],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    // Never written: its end (when this process exits, however it exits) stops Prometheus.
    child.stdin?.on("error", () => {});
    let tail = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    });
    let spawnError: Error | null = null;
    child.once("error", (error) => {
      spawnError = error;
    });
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    return {
      child,
      exited,
      startedAt: Date.now(),
      spawnError: () => spawnError,
      tail: () => tail,
    };
  };

  let current = launch();
  let stopping = false;
  let down: string | null = null;
  let restarts = 0;
  let delay = backoff.initial;
  let restartTimer: NodeJS.Timeout | undefined;
  const running = (run: Launched) => run.child.exitCode === null && run.child.signalCode === null;
  const end = async (run: Launched) => {
    if (running(run)) run.child.kill("SIGTERM");
    await run.exited;
    // Ends the watchdog subshell.
    run.child.stdin?.destroy();
  };
  const stop = async () => {
    stopping = true;
    clearTimeout(restartTimer);
    await end(current);
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    const spawnError = current.spawnError();
    if (spawnError || current.child.exitCode !== null) {
      await stop();
      const why = spawnError ? spawnError.message : `exited with ${current.child.exitCode}`;
      return { ok: false, error: `--prometheus: ${binary} ${why}:\n${lastLines(current.tail())}` };
    }
    if (await isReady(url)) break;
    if (Date.now() > deadline) {
      await stop();
      return {
        ok: false,
        error: `--prometheus: not ready within the deadline:\n${lastLines(current.tail())}`,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // A Prometheus that dies is started again on the same data directory and address, after a
  // back-off, so the custom metrics come back by themselves; meanwhile /readyz says why not.
  const supervise = (run: Launched) => {
    void run.exited.then(() => {
      if (stopping || run !== current) return;
      run.child.stdin?.destroy();
      const how =
        run.child.signalCode !== null
          ? `killed by ${run.child.signalCode}`
          : `exited with ${run.child.exitCode}`;
      if (Date.now() - run.startedAt >= STEADY_RUN_MS) delay = backoff.initial;
      down = `prometheus ${how}; restarting`;
      log(
        `prometheus ${how}; restarting it in ${formatSeconds(delay)} (its data in ${dir} kept)` +
          (run.tail().trim() ? `:\n${lastLines(run.tail())}` : ""),
      );
      restartTimer = setTimeout(() => {
        if (stopping) return;
        restarts++;
        current = launch();
        supervise(current);
        void waitReady(current);
      }, delay);
      delay = Math.min(delay * 2, backoff.max);
    });
  };
  const waitReady = async (run: Launched) => {
    while (!stopping && run === current && running(run)) {
      if (await isReady(url)) {
        down = null;
        log(`prometheus is back (restart ${restarts}) at ${url}`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  supervise(current);

  return {
    ok: true,
    value: {
      url,
      configFile,
      async reload(config) {
        writeFileSync(configFile, config);
        const answer = await fetch(`${url}/-/reload`, { method: "POST" }).catch(
          (error: Error) => error,
        );
        if (answer instanceof Error) return { ok: false, error: answer.message };
        if (!answer.ok) return { ok: false, error: (await answer.text()).trim() };
        return { ok: true };
      },
      notReady: () => down,
      get restarts() {
        return restarts;
      },
      get pid() {
        return current.child.pid;
      },
      stop,
    },
  };
}

function isReady(url: string): Promise<boolean> {
  return fetch(`${url}/-/ready`).then(
    (r) => r.ok,
    () => false,
  );
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join("\n");
}
