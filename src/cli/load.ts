// `horizon load SERVICE --rps N [--for D] [--concurrency C]`: real HTTP load at a Service of a
// running `horizon up`, as the docs' walkthrough does with a load-generator pod looping
// `wget http://php-apache`. It reads the Service through the Kubernetes API (so it finds it
// wherever kubectl does) and sends requests to its ClusterIP, which `horizon up` proxies to
// the Ready pods (the ClusterIP is a loopback address of this machine). With `--for` (or
// `--foreground`) it runs in the foreground and prints progress once a second; without, it
// starts itself in the background and `--stop` ends that load.
// Exit codes: 0 done, 1 the Service cannot be loaded (API error, no ClusterIP, every request
// failed), 2 bad flags.
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ApiException, CoreV1Api } from "@kubernetes/client-node";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../api/duration.js";
import { formatCounts, LoadGenerator, summarize } from "../cluster/loadgen.js";
import { loadKubeConfig } from "../kube/config.js";
import { defaultKubeconfigPath } from "./up.js";

export const DEFAULT_CONCURRENCY = 100;

export interface LoadCommandOptions {
  rps?: string;
  for?: string;
  concurrency?: string;
  stop?: boolean;
  foreground?: boolean;
  namespace?: string;
  kubeconfig?: string;
}

/** What the flags ask for. */
export type LoadPlan =
  | {
      action: "run";
      rps: number;
      durationMs: number | null;
      concurrency: number;
      /** Run here (`--for`, `--foreground`) or start a background process. */
      foreground: boolean;
    }
  | { action: "stop" };

export type ParsedLoadOptions = { ok: true; plan: LoadPlan } | { ok: false; error: string };

/** Checks the flags; errors name the flag (exit code 2). */
export function parseLoadOptions(options: LoadCommandOptions): ParsedLoadOptions {
  let durationMs: number | null = null;
  if (options.for !== undefined) {
    const parsed = parseDuration(options.for);
    if (!parsed.ok) return { ok: false, error: `--for: ${parsed.error}` };
    if (parsed.ms <= 0) {
      return { ok: false, error: `--for: must be a positive duration, got "${options.for}"` };
    }
    durationMs = parsed.ms;
  }
  let concurrency = DEFAULT_CONCURRENCY;
  if (options.concurrency !== undefined) {
    const text = options.concurrency.trim();
    concurrency = Number(text);
    if (!/^\d+$/.test(text) || concurrency < 1) {
      return {
        ok: false,
        error: `--concurrency: must be a whole number of requests >= 1, got "${options.concurrency}"`,
      };
    }
  }
  const stopping = options.stop || options.rps?.trim() === "0";
  if (stopping) {
    if (options.stop && options.rps !== undefined) {
      return { ok: false, error: "--rps and --stop cannot be used together" };
    }
    const why = options.stop ? "--stop" : "--rps 0";
    if (durationMs !== null) return { ok: false, error: `--for: has no effect with ${why}` };
    if (options.concurrency !== undefined)
      return { ok: false, error: `--concurrency: has no effect with ${why}` };
    if (options.foreground) return { ok: false, error: `--foreground: has no effect with ${why}` };
    return { ok: true, plan: { action: "stop" } };
  }
  if (options.rps === undefined) {
    return { ok: false, error: "--rps is required (or --stop to end a background load)" };
  }
  const text = options.rps.trim();
  const rps = Number(text);
  if (text === "" || !/^[0-9.eE+]+$/.test(text) || !Number.isFinite(rps) || rps <= 0) {
    return {
      ok: false,
      error: `--rps: must be a number of requests per second > 0, got "${options.rps}"`,
    };
  }
  return {
    ok: true,
    plan: {
      action: "run",
      rps,
      durationMs,
      concurrency,
      foreground: durationMs !== null || options.foreground === true,
    },
  };
}

export interface LoadIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Aborted on Ctrl-C / SIGTERM: a foreground load ends and prints its summary. */
  signal?: AbortSignal;
  /** How often a foreground load prints progress (default 1 s). */
  progressEveryMs?: number;
  /** Where background loads are recorded (default ~/.horizon/loads). */
  stateDir?: string;
  /** The command line that runs `horizon` (node, its flags, the script): a background load re-runs it. */
  cli?: readonly string[];
}

/** The API error as kubectl words it: `Error from server (NotFound): services "x" not found`. */
export function describeApiError(error: unknown): string {
  if (error instanceof ApiException) {
    let status: { reason?: string; message?: string } | undefined;
    try {
      status = typeof error.body === "string" ? JSON.parse(error.body) : error.body;
    } catch {
      status = undefined;
    }
    if (status?.message)
      return `Error from server (${status.reason ?? error.code}): ${status.message}`;
    return `Error from server (${error.code}): ${String(error.body ?? error.message)}`;
  }
  return `error: ${(error as Error).message ?? String(error)}`;
}

export function defaultStateDir(): string {
  return join(homedir(), ".horizon", "loads");
}

/** A background load, as recorded in the state directory. */
interface BackgroundLoad {
  pid: number;
  namespace: string;
  service: string;
  rps: number;
  log: string;
  startedAt: string;
}

function stateFile(dir: string, namespace: string, service: string): string {
  return join(dir, `${namespace}.${service}.json`);
}

function readBackground(file: string): BackgroundLoad | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as BackgroundLoad;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends a recorded background load: SIGTERM, then waits (up to 5 s) for it to print its summary. */
async function stopBackground(file: string): Promise<BackgroundLoad | null> {
  const load = readBackground(file);
  rmSync(file, { force: true });
  if (!load || !alive(load.pid)) return null;
  try {
    process.kill(load.pid, "SIGTERM");
  } catch {
    return null;
  }
  const deadline = Date.now() + 5000;
  while (alive(load.pid) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return load;
}

type ServiceJson = {
  spec?: {
    clusterIP?: string;
    type?: string;
    ports?: { name?: string; port: number; protocol?: string }[];
  };
};

/** Runs `horizon load`; resolves with the exit code. */
export async function loadCommand(
  service: string,
  options: LoadCommandOptions,
  io: LoadIO,
): Promise<number> {
  const parsed = parseLoadOptions(options);
  if (!parsed.ok) {
    io.err(`error: ${parsed.error}`);
    return 2;
  }
  const plan = parsed.plan;
  // As every command: --kubeconfig, KUBECONFIG, in-cluster, ~/.kube/config; then the
  // kubeconfig `horizon up` writes.
  const loaded = await loadKubeConfig({
    kubeconfig: options.kubeconfig ?? null,
    fallbackKubeconfig: defaultKubeconfigPath(),
  });
  if (!loaded.ok) {
    io.err(`error: cannot load the kubeconfig: ${loaded.error}`);
    return 1;
  }
  const namespace = options.namespace ?? loaded.value.namespace ?? "default";
  const what = `service/${service} (namespace ${namespace})`;
  const stateDir = io.stateDir ?? defaultStateDir();
  const file = stateFile(stateDir, namespace, service);

  if (plan.action === "stop") {
    const stopped = await stopBackground(file);
    if (!stopped) {
      io.err(
        `error: no background load on ${what} (start one with: horizon load ${service} --rps N)`,
      );
      return 1;
    }
    io.out(`load on ${what} stopped (pid ${stopped.pid}; its log: ${stopped.log})`);
    return 0;
  }

  const api = loaded.value.kubeConfig.makeApiClient(CoreV1Api);
  let svc: ServiceJson;
  try {
    svc = (await api.readNamespacedService({ name: service, namespace })) as ServiceJson;
  } catch (error) {
    io.err(describeApiError(error));
    return 1;
  }
  const clusterIP = svc.spec?.clusterIP ?? "";
  const ports = (svc.spec?.ports ?? []).filter((p) => (p.protocol ?? "TCP") === "TCP");
  const port = ports.find((p) => p.name === "http") ?? ports[0];
  if (clusterIP === "" || clusterIP === "None" || !port) {
    io.err(
      `error: ${what} has no ClusterIP and TCP port to send to (${clusterIP === "None" ? "headless" : svc.spec?.type === "ExternalName" ? "ExternalName" : "no ports"})`,
    );
    return 1;
  }
  const target = { host: clusterIP, port: port.port, path: "/" };
  const url = `http://${clusterIP}${port.port === 80 ? "" : `:${port.port}`}/`;

  if (!plan.foreground) return startBackground(service, namespace, plan, options, io, file, url);

  const generator = new LoadGenerator({ target, rps: plan.rps, concurrency: plan.concurrency });
  io.out(
    `load on ${what} at ${url}: ${plan.rps} requests/s${plan.durationMs !== null ? ` for ${formatDuration(plan.durationMs)}` : ""} (at most ${plan.concurrency} in flight; Ctrl-C stops it)`,
  );
  const started = Date.now();
  generator.start();
  const every = io.progressEveryMs ?? 1000;
  const ends = plan.durationMs === null ? Number.POSITIVE_INFINITY : started + plan.durationMs;
  let next = started + every;
  while (!io.signal?.aborted && Date.now() < ends) {
    await sleep(Math.max(1, Math.min(next, ends) - Date.now()), io.signal);
    if (Date.now() >= next) {
      io.out(
        `${Math.round((Date.now() - started) / 1000)}s: ${formatCounts(generator.counts, generator.window())}`,
      );
      next += every;
    }
  }
  await generator.stop();
  // Whole seconds: "12s" rather than "12.004s".
  const elapsed = Math.round((Date.now() - started) / 1000) * 1000;
  const summary = formatCounts(generator.counts, summarize(generator.latencies));
  io.out(
    `${io.signal?.aborted ? "interrupted: " : ""}load on ${what} ended after ${formatDuration(elapsed)}: ${summary}`,
  );
  if (generator.counts.sent > 0 && generator.counts.answered === 0) {
    io.err(`error: no request to ${url} was answered`);
    return 1;
  }
  return 0;
}

/** Runs the same load in a detached `horizon load --foreground`, recorded for `--stop`. */
function startBackground(
  service: string,
  namespace: string,
  plan: Extract<LoadPlan, { action: "run" }>,
  options: LoadCommandOptions,
  io: LoadIO,
  file: string,
  url: string,
): Promise<number> {
  return (async () => {
    const what = `service/${service} (namespace ${namespace})`;
    const replaced = existsSync(file) ? await stopBackground(file) : null;
    const dir = resolve(file, "..");
    mkdirSync(dir, { recursive: true });
    const log = join(dir, `${namespace}.${service}.log`);
    const cli = io.cli ?? [process.execPath, ...process.execArgv, process.argv[1] ?? ""];
    const args = [
      ...cli.slice(1),
      "load",
      service,
      "--rps",
      String(plan.rps),
      "--concurrency",
      String(plan.concurrency),
      "--foreground",
      "-n",
      namespace,
      ...(options.kubeconfig !== undefined ? ["--kubeconfig", resolve(options.kubeconfig)] : []),
    ];
    const fd = openSync(log, "w");
    const child = spawn(cli[0]!, args, { detached: true, stdio: ["ignore", fd, fd] });
    closeSync(fd);
    child.unref();
    const pid = child.pid;
    if (pid === undefined) {
      io.err(`error: cannot start the background load: ${cli[0]}`);
      return 1;
    }
    const record: BackgroundLoad = {
      pid,
      namespace,
      service,
      rps: plan.rps,
      log,
      startedAt: new Date().toISOString(),
    };
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    if (replaced)
      io.out(`the background load on ${what} at ${replaced.rps} requests/s was replaced`);
    io.out(
      `load on ${what} at ${url}: ${plan.rps} requests/s in the background (pid ${pid}, log ${log}); stop it with: horizon load ${service} --stop${options.namespace ? ` -n ${namespace}` : ""}`,
    );
    return 0;
  })();
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });
}

/** Adds `horizon load` to the program (wired in main.ts). */
export function registerLoadCommand(program: Command): void {
  program
    .command("load")
    .description(
      "Send real HTTP requests to a Service of a running `horizon up` (its ClusterIP), like the docs' load-generator pod: open loop at N requests/s, progress every second",
    )
    .argument("<service>", "the Service's name")
    .option("--rps <n>", "requests per second to send (0 is the same as --stop)")
    .option(
      "--for <duration>",
      "run in the foreground for this long, e.g. 30s, 5m (Go duration); Ctrl-C stops early",
    )
    .option(
      "--concurrency <n>",
      `most requests in flight; one due while that many are open is counted as an error (default ${DEFAULT_CONCURRENCY})`,
    )
    .option(
      "--foreground",
      "without --for: run in the foreground until Ctrl-C (default: in the background)",
    )
    .option("--stop", "end the background load on the Service")
    .option("-n, --namespace <namespace>", "the Service's namespace (default: the context's)")
    .option(
      "--kubeconfig <file>",
      `kubeconfig to use (default: $KUBECONFIG, in-cluster, ~/.kube/config, else ${defaultKubeconfigPath()})`,
    )
    .action(async (service: string, options: LoadCommandOptions) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      try {
        process.exitCode = await loadCommand(service, options, {
          out: (line) => console.log(line),
          err: (line) => console.error(line),
          signal: controller.signal,
        });
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
