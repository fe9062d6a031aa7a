// `npm run bench:controller`: `horizon controller` against the embedded API server (`horizon up
// --no-controller`) over loopback HTTPS, with 1,000 and 10,000 HPAs, each on its own Deployment
// of 10 idle pods (10,000 HPAs: 100,000 pods). Three processes, so that the controller's RSS and
// CPU are its own: the API server (`--server` child), the controller (`--controller` child, with
// the flags below) and this one, which creates the objects over HTTP and reads the figures.
//
// Timing as upstream: a new HPA is first synced one sync period (15s) after the informer
// delivers it, then every period after each sync. The measurement window opens once every HPA
// has been synced once (warm-up) and lasts WINDOW_PERIODS periods; the effective period is the
// time between the starts of two consecutive syncs of one HPA, both inside the window.
//
// Figures (issue #5 "Speed"), each with its target:
//   effective sync period p99 at 10,000 HPAs          ≤ 16 s
//   API requests per HPA per sync, nothing changing    ≤ 2 (scale GET + one metrics query)
//   controller peak RSS                                ≤ 512 MiB
// and, for information: reconciliations/s in the window and the warm-up burst's rate (how fast
// the controller drains a backlog: its capacity), the effective period's p50, the worker count,
// list/watch traffic (informers) counted apart, and CPU of both processes (the controller's also
// per sync period of the window: how much one run varies; --window=N for a longer window).
//
// Usage: node .bench/bench/controller.bench.js [--only=1000|10000] [--workers=N] [--qps=N]
//        [--burst=N] [--window=PERIODS] [--shared-reads-max-age=D] (the controller flag; 0s, upstream's
//        reads, by default). BENCH_WINDOW_PROFILE=DIR writes the controller's CPU profile of the
//        measurement window (not the set-up or warm-up) to DIR/controller-window.cpuprofile (the
//        profiler then adds its own cost to that run's CPU figure); BENCH_WINDOW_ALLOCATIONS=DIR
//        writes the window's sampled allocations (collected or not) to
//        DIR/controller-window.heapprofile.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SyncObservation } from "../src/controller/metrics.js";
import { parseControllerOptions } from "../src/controller-manager/options.js";
import type { RunningUp } from "../src/up/up.js";
import { meetsTarget, shownText } from "./figures.js";

const SIZES = [1000, 10_000];
const REPLICAS = 10;
const NAMESPACES = 10;
const SYNC_PERIOD_S = 15;
/**
 * The flags the bench runs the controller with. kube-controller-manager's defaults
 * (--kube-api-qps 20, --kube-api-burst 30) carry 20 × 15 / 2 = 150 HPAs at 2 requests per sync;
 * N HPAs need a qps of at least N × 2 / 15 (10,000 HPAs: 1,333), with headroom for informer
 * relists and status writes.
 */
/**
 * The controller's node flags as deployed: bin/horizon.js's young generation, and the old-space
 * limit deploy/deployment.yaml sets in NODE_OPTIONS (V8 otherwise keeps heap headroom far above
 * the ≈ 270 MiB live at 10,000 HPAs), or the 448 MiB docs/controller.md asks for with shared
 * reads (≈ 240 MiB live after a full GC, 2026-11-25). BENCH_NODE_FLAGS overrides them.
 */
function binNodeFlags(sharedReads: boolean): string[] {
  const deployed = `--max-semi-space-size=32 --max-old-space-size=${sharedReads ? 448 : 320}`;
  return (process.env.BENCH_NODE_FLAGS ?? deployed).split(" ").filter(Boolean);
}
const DEFAULTS = { qps: 2000, burst: 4000, workers: 10, windowPeriods: 3, sharedReads: "0s" };

function argValue(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// IPC: request/answer over the fork channel

type Message = { id: number; type: string; [field: string]: unknown };

/** Answers the parent's requests with `handlers[type](message)`. */
function serve(handlers: Record<string, (m: Message) => unknown>): void {
  process.on("message", (m: Message) => {
    Promise.resolve()
      .then(() => handlers[m.type]!(m))
      .then(
        (value) => process.send!({ id: m.id, value }),
        (error: unknown) => process.send!({ id: m.id, error: String(error) }),
      );
  });
}

interface Child {
  process: ChildProcess;
  ask<T>(type: string, fields?: Record<string, unknown>): Promise<T>;
  exited: Promise<number | null>;
}

function spawnChild(mode: string, args: string[] = [], execArgv: string[] = []): Child {
  const child = fork(fileURLToPath(import.meta.url), [mode, ...args], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: ["--expose-gc", ...execArgv],
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on("message", (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(`${mode}: ${m.error}`));
    else w?.resolve(m.value);
  });
  const exited = new Promise<number | null>((r) => child.on("exit", r));
  void exited.then((code) => {
    for (const w of waiting.values()) w.reject(new Error(`${mode} exited ${code}`));
  });
  return {
    process: child,
    exited,
    ask<T>(type: string, fields: Record<string, unknown> = {}) {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, type, ...fields });
      });
    },
  };
}

/** CPU time of this process since `since` (ms). */
function cpuMs(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

// ---------------------------------------------------------------------------------------------
// The API server child

interface ServerInfo {
  url: string;
  token: string | null;
  ca: string | null;
  kubeconfig: string;
}

async function serverChild(): Promise<void> {
  const { startUp } = await import("../src/up/up.js");
  const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
  if (!started.ok) throw new Error(started.error);
  const up: RunningUp = started.value;
  let cpuMark = process.cpuUsage();
  let wallMark = performance.now();
  serve({
    info: (): ServerInfo => ({
      url: up.url,
      token: up.token,
      ca: up.caCert,
      kubeconfig: up.kubeconfig,
    }),
    pods: () => {
      let running = 0;
      let total = 0;
      for (const pod of up.cluster.store.list("Pod")) {
        total++;
        if ((pod.status as { phase?: string } | undefined)?.phase === "Running") running++;
      }
      return { running, total };
    },
    /** Scale changes since the start (nothing should change in this bench). */
    replicas: () => {
      const counts: Record<string, number> = {};
      for (const d of up.cluster.store.list("Deployment")) {
        const r = String((d.spec as { replicas?: number }).replicas);
        counts[r] = (counts[r] ?? 0) + 1;
      }
      return counts;
    },
    mark: () => {
      cpuMark = process.cpuUsage();
      wallMark = performance.now();
      return null;
    },
    usage: () => ({
      cpuPercent: (cpuMs(cpuMark) / (performance.now() - wallMark)) * 100,
      rss: process.memoryUsage().rss,
    }),
    close: async () => {
      await up.close();
      setImmediate(() => process.exit(0));
      return null;
    },
  });
  process.send!({ id: -1, ready: true });
}

// ---------------------------------------------------------------------------------------------
// The controller child

interface ControllerSnapshot {
  syncs: number;
  syncedHpas: number;
  /** HPAs whose last sync failed (fresh pods' CPU samples are skipped at first, as upstream). */
  failingHpas: number;
  errors: number;
  firstErrors: string[];
  /** Requests by `verb resource` (every attempt). */
  requests: Record<string, number>;
  throttledMs: number;
  retries: number;
  peakRss: number;
  rss: number;
  heapUsed: number;
  workers: number;
}

interface WindowResult {
  seconds: number;
  /** Syncs finished in the window (whenever they started). */
  syncs: number;
  /** Effective periods (ms) with both syncs inside the window, sorted. */
  periods: number[];
  /** HPAs with no sync in the window. */
  unsynced: number;
  /** The longest an HPA went unsynced at the end of the window (ms since its last sync). */
  maxSinceLast: number;
  cpuPercent: number;
  /** The controller's CPU in each sync period of the window (%): how much one run varies. */
  cpuPerPeriod: number[];
  statusWrites: number;
}

async function controllerChild(kubeconfigPath: string, flags: string[]): Promise<void> {
  const { startController } = await import("../src/controller-manager/controller-manager.js");
  const { createLogger } = await import("../src/controller/log.js");
  const option = (name: string) => flags.find((f) => f.startsWith(`--${name}=`))?.split("=")[1];
  const parsed = parseControllerOptions({
    kubeconfig: kubeconfigPath,
    kubeApiQps: option("kube-api-qps"),
    kubeApiBurst: option("kube-api-burst"),
    concurrentHorizontalPodAutoscalerSyncs: option("concurrent-horizontal-pod-autoscaler-syncs"),
    sharedReadsMaxAge: option("shared-reads-max-age"),
    leaderElect: "false",
    metricsBindAddress: "0",
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  let errors = 0;
  const firstErrors: string[] = [];
  const log = createLogger({
    verbosity: 0,
    write: (line) => {
      if (/"level":"(error|warn)"/.test(line)) {
        errors++;
        if (firstErrors.length < 5) firstErrors.push(line.slice(0, 400));
      }
    },
  });
  const started = await startController(parsed.value, { log });
  if (!started.ok) throw new Error(started.error);
  const running = started.value;

  // Every sync's start, per HPA, seen through the metrics observer (the one hook that sees
  // every sync without touching the controller).
  let syncs = 0;
  let syncErrors = 0;
  const lastSync = new Map<string, number>();
  const failing = new Set<string>();
  let window: {
    openedAt: number;
    cpu: NodeJS.CpuUsage;
    syncs: number;
    periods: number[];
    seen: Map<string, number>;
    statusWrites0: number;
    cpuPerPeriod: number[];
    ticker: NodeJS.Timeout;
  } | null = null;
  const record = running.metrics.recordSync.bind(running.metrics);
  running.metrics.recordSync = (observation: SyncObservation) => {
    syncs++;
    const key = `${observation.hpa.metadata.namespace}/${observation.hpa.metadata.name}`;
    const failed = Boolean(
      observation.statusError || observation.result?.error || !observation.result,
    );
    if (failed) failing.add(key);
    else failing.delete(key);
    if (failed) {
      syncErrors++;
      const text =
        observation.result?.error ?? observation.statusError ?? String(observation.error);
      if (firstErrors.length < 5) firstErrors.push(`${key}: ${text}`);
    }
    lastSync.set(key, observation.at);
    if (window) window.syncs++;
    if (window && observation.at >= window.openedAt) {
      const previous = window.seen.get(key);
      if (previous !== undefined) window.periods.push(observation.at - previous);
      window.seen.set(key, observation.at);
    }
    return record(observation);
  };
  const statusWrites = () =>
    running.client.stats().byVerbResource["update horizontalpodautoscalers.autoscaling/status"] ??
    0;

  const snapshot = (): ControllerSnapshot => {
    const stats = running.client.stats();
    const memory = process.memoryUsage();
    return {
      syncs,
      syncedHpas: lastSync.size,
      failingHpas: failing.size,
      errors: errors + syncErrors,
      firstErrors,
      requests: stats.byVerbResource,
      throttledMs: stats.throttledMs,
      retries: stats.retries,
      // The kernel's peak (ru_maxrss, KiB): exact, and no sampling timer in the measured process.
      peakRss: process.resourceUsage().maxRSS * 1024,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      workers: parsed.value.controller.concurrentSyncs,
    };
  };

  const profileDir = process.env.BENCH_WINDOW_PROFILE;
  const allocationsDir = process.env.BENCH_WINDOW_ALLOCATIONS;
  const profiler = new Session();
  if (profileDir || allocationsDir) profiler.connect();
  serve({
    snapshot,
    heapSnapshot: async (m: Message) => {
      const { writeHeapSnapshot } = await import("node:v8");
      return writeHeapSnapshot(String(m.path));
    },
    open: async () => {
      if (profileDir) {
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
      }
      if (allocationsDir) {
        await profiler.post("HeapProfiler.startSampling", {
          samplingInterval: 32_768,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      }
      // From here on, an error is the window's (warm-up errors are expected, see above).
      errors = 0;
      syncErrors = 0;
      firstErrors.length = 0;
      const openedAt = Date.now();
      const cpu = process.cpuUsage();
      const cpuPerPeriod: number[] = [];
      let mark = { at: openedAt, cpu };
      const ticker = setInterval(() => {
        const at = Date.now();
        cpuPerPeriod.push((cpuMs(mark.cpu) / (at - mark.at)) * 100);
        mark = { at, cpu: process.cpuUsage() };
      }, SYNC_PERIOD_S * 1000);
      window = {
        openedAt,
        cpu,
        syncs: 0,
        periods: [],
        seen: new Map(),
        statusWrites0: statusWrites(),
        cpuPerPeriod,
        ticker,
      };
      return snapshot();
    },
    close: async (): Promise<{
      window: WindowResult;
      snapshot: ControllerSnapshot;
      liveHeap: number;
    }> => {
      const w = window!;
      window = null;
      clearInterval(w.ticker);
      const now = Date.now();
      let maxSinceLast = 0;
      for (const at of lastSync.values()) maxSinceLast = Math.max(maxSinceLast, now - at);
      const result: WindowResult = {
        seconds: (now - w.openedAt) / 1000,
        syncs: w.syncs,
        periods: w.periods.sort((a, b) => a - b),
        unsynced: lastSync.size - w.seen.size,
        maxSinceLast,
        cpuPercent: (cpuMs(w.cpu) / (now - w.openedAt)) * 100,
        cpuPerPeriod: w.cpuPerPeriod,
        statusWrites: statusWrites() - w.statusWrites0,
      };
      const at = snapshot();
      if (profileDir) {
        const { profile } = await profiler.post("Profiler.stop");
        writeFileSync(join(profileDir, "controller-window.cpuprofile"), JSON.stringify(profile));
      }
      if (allocationsDir) {
        const { profile } = await profiler.post("HeapProfiler.stopSampling");
        writeFileSync(
          join(allocationsDir, "controller-window.heapprofile"),
          JSON.stringify(profile),
        );
      }
      (globalThis as { gc?: () => void }).gc?.();
      return { window: result, snapshot: at, liveHeap: process.memoryUsage().heapUsed };
    },
    stop: async () => {
      await running.stop();
      setImmediate(() => process.exit(0));
      return null;
    },
  });
  process.send!({ id: -1, ready: true });
}

// ---------------------------------------------------------------------------------------------
// Fixtures over HTTP (from this process)

function request(
  target: ServerInfo,
  agent: http.Agent,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const lib = target.url.startsWith("https:") ? https : http;
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(payload)),
  };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  return new Promise((resolve, reject) => {
    const req = lib.request(`${target.url}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

async function createAll(
  target: ServerInfo,
  agent: http.Agent,
  items: { path: string; body: unknown }[],
  concurrency = 16,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const res = await request(target, agent, "POST", item.path, item.body);
      if (res.status !== 201) throw new Error(`POST ${item.path}: ${res.status} ${res.body}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

function deployment(name: string, namespace: string): unknown {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: "app",
              image: "registry.k8s.io/hpa-example:1.0",
              resources: { requests: { cpu: "200m", memory: "256Mi" } },
            },
          ],
        },
      },
    },
  };
}

/** Idle pods want fewer than minReplicas: every sync keeps the scale as it is. */
function hpa(name: string, namespace: string): unknown {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name, namespace },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      minReplicas: REPLICAS,
      maxReplicas: REPLICAS * 2,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
      ],
    },
  };
}

async function seed(server: Child, target: ServerInfo, hpas: number): Promise<number> {
  const t0 = performance.now();
  const agent = target.url.startsWith("https:")
    ? new https.Agent({ keepAlive: true, maxSockets: 16, ...(target.ca ? { ca: target.ca } : {}) })
    : new http.Agent({ keepAlive: true, maxSockets: 16 });
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`);
  await createAll(
    target,
    agent,
    namespaces.map((name) => ({
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    })),
  );
  const names = Array.from({ length: hpas }, (_, i) => ({
    ns: namespaces[i % NAMESPACES]!,
    name: `app-${i}`,
  }));
  await createAll(
    target,
    agent,
    names.map(({ ns, name }) => ({
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: deployment(name, ns),
    })),
  );
  await createAll(
    target,
    agent,
    names.map(({ ns, name }) => ({
      path: `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`,
      body: hpa(name, ns),
    })),
  );
  agent.destroy();
  const wanted = hpas * REPLICAS;
  const deadline = Date.now() + 900_000;
  for (;;) {
    const { running } = await server.ask<{ running: number }>("pods");
    if (running >= wanted) break;
    if (Date.now() > deadline) throw new Error(`only ${running}/${wanted} pods running`);
    await sleep(500);
  }
  return (performance.now() - t0) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Report

interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: number;
  kind?: "min" | "max";
  note?: string;
  /** Decimals below 100 (default 2). */
  digits?: number;
}

function report(figure: Figure): boolean {
  const value = shownText(figure.value, figure.digits);
  let verdict = "";
  let pass = true;
  if (figure.target !== undefined) {
    pass = meetsTarget(figure.value, figure.target, figure.kind ?? "max", figure.digits);
    const op = figure.kind === "min" ? "≥" : "≤";
    verdict = `target ${op} ${figure.target.toLocaleString("en-US")} ${figure.unit}   ${pass ? "PASS" : "MISS"}`;
  }
  console.log(
    `${figure.name.padEnd(50)} ${`${value} ${figure.unit}`.padStart(14)}   ${verdict}${figure.note ? `   (${figure.note})` : ""}`,
  );
  return pass;
}

/** Informer traffic (list/watch of HPAs, pods, events): not per-sync work. */
function isInformerTraffic(key: string): boolean {
  return /^(list|watch) (pods|horizontalpodautoscalers\.autoscaling|events)$/.test(key);
}

function diff(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(b)) {
    const d = value - (a[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}

async function runSize(hpas: number, settings: typeof DEFAULTS): Promise<boolean> {
  const label = `${hpas.toLocaleString("en-US")} HPAs`;
  console.log(
    `\n== ${label}, ${(hpas * REPLICAS).toLocaleString("en-US")} pods; controller flags: --kube-api-qps ${settings.qps} --kube-api-burst ${settings.burst} --concurrent-horizontal-pod-autoscaler-syncs ${settings.workers} --shared-reads-max-age ${settings.sharedReads}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "horizon-bench-controller-"));
  const server = spawnChild("--server");
  let controller: Child | null = null;
  try {
    await new Promise<void>((resolve) => server.process.once("message", () => resolve()));
    const target = await server.ask<ServerInfo>("info");
    const seedSeconds = await seed(server, target, hpas);
    console.log(`setup: objects created and pods running in ${seedSeconds.toFixed(1)} s`);
    const kubeconfigPath = join(dir, "kubeconfig");
    writeFileSync(kubeconfigPath, target.kubeconfig, { mode: 0o600 });

    controller = spawnChild(
      "--controller",
      [
        kubeconfigPath,
        `--kube-api-qps=${settings.qps}`,
        `--kube-api-burst=${settings.burst}`,
        `--concurrent-horizontal-pod-autoscaler-syncs=${settings.workers}`,
        `--shared-reads-max-age=${settings.sharedReads}`,
      ],
      binNodeFlags(!/^0+[a-z]*$/.test(settings.sharedReads)),
    );
    await new Promise<void>((resolve) => controller!.process.once("message", () => resolve()));
    const startedAt = performance.now();

    // Warm-up: the first round (all HPAs due one period after the informer's LIST), whose
    // drain rate is the controller's capacity; then until every HPA's last sync succeeded (a
    // fresh pod's CPU sample is skipped until it postdates readiness, as upstream's).
    let firstAt = 0;
    let snap = await controller.ask<ControllerSnapshot>("snapshot");
    const warmDeadline = performance.now() + (SYNC_PERIOD_S * 6 + hpas / 50) * 1000;
    let burstSeconds = 0;
    let burstRate = 0;
    while (snap.syncedHpas < hpas || snap.failingHpas > 0) {
      if (performance.now() > warmDeadline) {
        throw new Error(
          `warm-up: ${snap.syncedHpas}/${hpas} HPAs synced, ${snap.failingHpas} failing; ${snap.firstErrors.join(" | ")}`,
        );
      }
      await sleep(100);
      snap = await controller.ask<ControllerSnapshot>("snapshot");
      if (firstAt === 0 && snap.syncs > 0) firstAt = performance.now();
      if (burstRate === 0 && snap.syncedHpas >= hpas) {
        burstSeconds = (performance.now() - firstAt) / 1000;
        burstRate = snap.syncs / Math.max(0.1, burstSeconds);
      }
    }
    // One more period, so the window sees the steady schedule, not the first round's backlog.
    await sleep(SYNC_PERIOD_S * 1000);
    console.log(
      `warm-up: ${snap.syncs.toLocaleString("en-US")} syncs, all HPAs synced and healthy, then one more period: ${((performance.now() - startedAt) / 1000).toFixed(1)} s after start (first round drained in ${burstSeconds.toFixed(1)} s)`,
    );

    // Measurement window.
    const before = await controller.ask<ControllerSnapshot>("open");
    await server.ask("mark");
    await sleep(settings.windowPeriods * SYNC_PERIOD_S * 1000 + 1000);
    const closed = await controller.ask<{
      window: WindowResult;
      snapshot: ControllerSnapshot;
      liveHeap: number;
    }>("close");
    const result = closed.window;
    const after = closed.snapshot;
    const serverUsage = await server.ask<{ cpuPercent: number; rss: number }>("usage");
    const heapPath = argValue("heap-snapshot");
    if (heapPath)
      console.log(
        `heap snapshot: ${await controller.ask<string>("heapSnapshot", { path: heapPath })}`,
      );
    const replicas = await server.ask<Record<string, number>>("replicas");

    const delta = diff(before.requests, after.requests);
    let perSync = 0;
    const informer: string[] = [];
    const perSyncParts: string[] = [];
    for (const [key, count] of Object.entries(delta).sort((a, b) => b[1] - a[1])) {
      if (isInformerTraffic(key)) informer.push(`${key} ${count}`);
      else {
        perSync += count;
        perSyncParts.push(`${key} ${(count / result.syncs).toFixed(3)}`);
      }
    }
    const p50 = percentile(result.periods, 50) / 1000;
    const p99 = percentile(result.periods, 99) / 1000;
    const max = (result.periods.at(-1) ?? Number.NaN) / 1000;
    const results = [
      report({
        name: `reconciliations/s, steady (${label})`,
        value: result.syncs / result.seconds,
        unit: "/s",
        note: `needed ${(hpas / SYNC_PERIOD_S).toFixed(0)}/s; ${result.syncs.toLocaleString("en-US")} syncs in ${result.seconds.toFixed(0)} s`,
      }),
      report({
        name: `reconciliations/s, warm-up backlog (${label})`,
        value: burstRate,
        unit: "/s",
        note: "capacity: all HPAs due at once",
      }),
      report({
        name: `effective sync period p50 (${label})`,
        value: p50,
        unit: "s",
        note: `${result.periods.length.toLocaleString("en-US")} intervals`,
      }),
      report({
        name: `effective sync period p99 (${label})`,
        value: p99,
        unit: "s",
        target: SYNC_PERIOD_S + 1,
        kind: "max",
        note: `max ${max.toFixed(2)} s; ${result.unsynced} HPAs unsynced in the window`,
      }),
      report({
        name: `API requests per HPA per sync (${label})`,
        value: perSync / result.syncs,
        unit: "req",
        target: 2,
        kind: "max",
        digits: 3,
        note: perSyncParts.join(", "),
      }),
      report({
        name: `workers (${label})`,
        value: after.workers,
        unit: "",
        note: "--concurrent-horizontal-pod-autoscaler-syncs",
      }),
      report({
        name: `controller peak RSS (${label})`,
        value: after.peakRss / 2 ** 20,
        unit: "MiB",
        target: 512,
        kind: "max",
        note: `heap ${Math.round(after.heapUsed / 2 ** 20)} MiB at the end, ${Math.round(closed.liveHeap / 2 ** 20)} MiB live after a full GC`,
      }),
      report({
        name: `controller CPU in the window (${label})`,
        value: result.cpuPercent,
        unit: "%",
        note: `per period ${result.cpuPerPeriod.map((c) => c.toFixed(1)).join(" / ")} %; API server ${serverUsage.cpuPercent.toFixed(0)} %, RSS ${Math.round(serverUsage.rss / 2 ** 20)} MiB`,
      }),
    ];
    console.log(
      `  informer traffic in the window (not per sync): ${informer.join(", ") || "none"}; status writes ${result.statusWrites}; throttled ${(after.throttledMs - before.throttledMs).toFixed(0)} ms; retries ${after.retries - before.retries}; errors ${after.errors} (warm-up: ${before.errors}, fresh pods)`,
    );
    if (after.firstErrors.length > 0) {
      console.log(`  first errors: ${after.firstErrors.join("\n    ")}`);
    }
    const scaled = Object.keys(replicas).filter((r) => r !== String(REPLICAS));
    if (scaled.length > 0) console.log(`  note: deployments scaled: ${JSON.stringify(replicas)}`);
    return results.every(Boolean) && result.unsynced === 0 && after.errors === 0;
  } finally {
    if (controller) await controller.ask("stop").catch(() => {});
    await server.ask("close").catch(() => {});
    await Promise.all([server.exited, controller?.exited]);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === "--server") return serverChild();
  if (mode === "--controller") return controllerChild(process.argv[3]!, process.argv.slice(4));
  const only = argValue("only");
  const settings = {
    qps: Number(argValue("qps") ?? DEFAULTS.qps),
    burst: Number(argValue("burst") ?? DEFAULTS.burst),
    workers: Number(argValue("workers") ?? DEFAULTS.workers),
    windowPeriods: Number(argValue("window") ?? DEFAULTS.windowPeriods),
    sharedReads: argValue("shared-reads-max-age") ?? "0s",
  };
  console.log(`horizon controller against horizon up --no-controller (node ${process.version})`);
  const sizes = only ? [Number(only)] : SIZES;
  let all = true;
  for (const size of sizes) all = (await runSize(size, settings)) && all;
  console.log(all ? "\nall targets met" : "\nsome targets missed");
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
