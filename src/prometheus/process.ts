// Prometheus as a child process of `horizon up --prometheus`: the binary found on PATH (Debian's
// package: /usr/bin/prometheus), a loopback port, its TSDB in the data directory (or a temp
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

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
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
  /** Loopback port; 0 or absent picks a free one. */
  port?: number;
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
  const port = options.port || (await freeLoopbackPort());
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    "/bin/sh",
    [
      "-c",
      WATCHDOG,
      "prometheus-watchdog",
      binary,
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
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
