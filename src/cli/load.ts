// `horizon load SERVICE --rps N [--for D]`: drives traffic at a Service of a running
// `horizon up`, as the docs' walkthrough does with a load-generator pod looping
// `wget http://php-apache`. It talks to the server only through the Kubernetes API (so it works
// wherever kubectl does): it sets the Service's `horizon.dev/load` annotation with a JSON merge
// patch, and the embedded cluster adds that load to the workloads the Service selects
// (src/cluster/load.ts). Exit codes: 0 done, 1 the API call failed, 2 bad flags.
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Command } from "commander";
import { formatLoadAnnotation, LOAD_ANNOTATION } from "../cluster/load.js";
import { formatDuration, parseDuration } from "../core/duration.js";
import { loadKubeConfig } from "../kube/config.js";
import { defaultKubeconfigPath } from "./up.js";

export interface LoadCommandOptions {
  rps?: string;
  for?: string;
  stop?: boolean;
  namespace?: string;
  kubeconfig?: string;
}

/** What the flags ask for. */
export type LoadPlan =
  | { action: "set"; rps: number; durationMs: number | null }
  | { action: "stop"; durationMs: null };

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
  if (options.stop) {
    if (options.rps !== undefined) {
      return { ok: false, error: "--rps and --stop cannot be used together" };
    }
    if (durationMs !== null) return { ok: false, error: "--for: has no effect with --stop" };
    return { ok: true, plan: { action: "stop", durationMs: null } };
  }
  if (options.rps === undefined) {
    return { ok: false, error: "--rps is required (or --stop to remove the load)" };
  }
  const text = options.rps.trim();
  const rps = Number(text);
  if (text === "" || !/^[0-9.eE+]+$/.test(text) || !Number.isFinite(rps) || rps < 0) {
    return {
      ok: false,
      error: `--rps: must be a number of requests per second >= 0, got "${options.rps}"`,
    };
  }
  if (rps === 0) {
    if (durationMs !== null) return { ok: false, error: "--for: has no effect with --rps 0" };
    return { ok: true, plan: { action: "stop", durationMs: null } };
  }
  return { ok: true, plan: { action: "set", rps, durationMs } };
}

export interface LoadIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Aborted on Ctrl-C: a running `--for` load is removed and the command ends. */
  signal?: AbortSignal;
  /** How often `--for` prints progress (default 10 s; 1 s on a terminal). */
  progressEveryMs?: number;
  /** Epoch ms (tests may fake it). */
  now?: () => number;
}

type ServiceJson = {
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
  spec?: { selector?: Record<string, string> };
};

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

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

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
  const now = io.now ?? Date.now;
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
  const kc = loaded.value.kubeConfig;
  const namespace = options.namespace ?? loaded.value.namespace ?? "default";
  const api = kc.makeApiClient(CoreV1Api);
  const what = `service/${service} (namespace ${namespace})`;

  const patch = (annotation: string | null, resourceVersion?: string) =>
    api.patchNamespacedService(
      {
        name: service,
        namespace,
        body: {
          metadata: {
            ...(resourceVersion !== undefined ? { resourceVersion } : {}),
            annotations: { [LOAD_ANNOTATION]: annotation },
          },
        },
      },
      mergePatch,
    ) as Promise<ServiceJson>;

  if (plan.action === "stop") {
    try {
      await patch(null);
    } catch (error) {
      io.err(describeApiError(error));
      return 1;
    }
    io.out(`load on ${what} stopped`);
    return 0;
  }

  const started = now();
  const untilMs = plan.durationMs === null ? null : started + plan.durationMs;
  const value = formatLoadAnnotation({ rps: plan.rps, untilMs });
  let updated: ServiceJson;
  try {
    updated = await patch(value);
  } catch (error) {
    io.err(describeApiError(error));
    return 1;
  }
  await warnIfNoPods(api, namespace, service, updated, io);

  if (untilMs === null) {
    io.out(
      `load on ${what}: ${plan.rps} rps until stopped (horizon load ${service} --stop${options.namespace ? ` -n ${namespace}` : ""})`,
    );
    return 0;
  }
  io.out(
    `load on ${what}: ${plan.rps} rps for ${formatDuration(plan.durationMs!)}, until ${new Date(untilMs).toISOString()} (Ctrl-C stops it)`,
  );
  const every = io.progressEveryMs ?? 10_000;
  let next = started + every;
  while (!io.signal?.aborted) {
    const t = now();
    if (t >= untilMs) break;
    if (t >= next) {
      io.out(`${service}: ${plan.rps} rps, ${formatDuration(remaining(untilMs - t))} left`);
      next += every * Math.max(1, Math.ceil((t - next + 1) / every));
    }
    await sleep(Math.max(1, Math.min(next, untilMs) - now()), io.signal);
  }
  const interrupted = io.signal?.aborted === true;
  const removed = await removeIfOurs(api, namespace, service, value, patch);
  if (removed !== "removed") {
    if (removed === "replaced") {
      io.err(`${what} carries another load now (set by someone else); leaving it`);
    } else {
      io.err(
        `warning: could not remove the ${LOAD_ANNOTATION} annotation (${removed}); the load ends by itself at its expiry`,
      );
    }
  }
  io.out(
    interrupted
      ? `interrupted: load on ${what} stopped after ${formatDuration(remaining(now() - started))}`
      : `load on ${what} ended after ${formatDuration(plan.durationMs!)}`,
  );
  return 0;
}

/** Whole seconds (rounded up) for progress lines: "1m25s" rather than "1m24.713s". */
function remaining(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000) * 1000);
}

/**
 * Removes the annotation unless another `horizon load` replaced it since: read, compare, and
 * patch with the read resourceVersion (a 409 means it changed in between: look again).
 */
async function removeIfOurs(
  api: CoreV1Api,
  namespace: string,
  service: string,
  value: string,
  patch: (annotation: string | null, resourceVersion?: string) => Promise<ServiceJson>,
): Promise<"removed" | "replaced" | string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const current = (await api.readNamespacedService({
        name: service,
        namespace,
      })) as ServiceJson;
      const annotation = current.metadata?.annotations?.[LOAD_ANNOTATION];
      if (annotation === undefined) return "removed";
      if (annotation !== value) return "replaced";
      await patch(null, current.metadata?.resourceVersion);
      return "removed";
    } catch (error) {
      if (error instanceof ApiException && error.code === 409) continue;
      if (error instanceof ApiException && error.code === 404) return "removed";
      return describeApiError(error);
    }
  }
  return "the Service kept changing";
}

/** A Service whose selector matches no pod sends its load nowhere: say so. */
async function warnIfNoPods(
  api: CoreV1Api,
  namespace: string,
  service: string,
  updated: ServiceJson,
  io: LoadIO,
): Promise<void> {
  const selector = updated.spec?.selector ?? {};
  const keys = Object.keys(selector);
  if (keys.length === 0) {
    io.err(`Warning: service/${service} has no selector: its load reaches no pods`);
    return;
  }
  try {
    const labelSelector = keys.map((k) => `${k}=${selector[k]}`).join(",");
    const pods = await api.listNamespacedPod({ namespace, labelSelector, limit: 1 });
    if (pods.items.length === 0) {
      io.err(
        `Warning: service/${service} selects no pods (${labelSelector}) yet: its load reaches the workloads whose pods it selects once they exist`,
      );
    }
  } catch {
    // Only a hint: the load is set either way.
  }
}

/** Adds `horizon load` to the program (wired in main.ts). */
export function registerLoadCommand(program: Command): void {
  program
    .command("load")
    .description(
      "Drive traffic at a Service of a running `horizon up` (like the docs' load-generator pod): the workloads it selects get N requests/s more",
    )
    .argument("<service>", "the Service's name")
    .option("--rps <n>", "requests per second to add (0 removes the load)")
    .option(
      "--for <duration>",
      "stop after this long, e.g. 30s, 5m (Go duration); prints progress, Ctrl-C stops early",
    )
    .option("--stop", "remove the load from the Service")
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
          progressEveryMs: process.stdout.isTTY ? 1000 : 10_000,
        });
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
