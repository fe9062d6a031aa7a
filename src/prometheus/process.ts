// Prometheus as a child process of `horizon up --prometheus`: the binary found on PATH (Debian's
// package: /usr/bin/prometheus), a free loopback port or the address given, its TSDB in the data directory (or a temp
// directory), the lifecycle API on for reloads (POST /-/reload after the configuration file
// changes), stopped with SIGTERM, and with `horizon up` however it ends (WATCHDOG).
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
  log?: (line: string) => void;
}

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
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  let spawnError: Error | null = null;
  child.once("error", (error) => {
    spawnError = error;
  });
  const cleanup = () => {
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    // Ends the watchdog subshell.
    child.stdin?.destroy();
    cleanup();
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (spawnError || child.exitCode !== null) {
      await stop();
      const why = spawnError ? (spawnError as Error).message : `exited with ${child.exitCode}`;
      return { ok: false, error: `--prometheus: ${binary} ${why}:\n${lastLines(tail)}` };
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      return {
        ok: false,
        error: `--prometheus: not ready within the deadline:\n${lastLines(tail)}`,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
      stop,
    },
  };
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join("\n");
}
