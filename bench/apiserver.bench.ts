// `npm run bench:apiserver`: `horizon up` in-process (no controller), driven over loopback by
// clients in a worker thread (their own core, as kubectl or an informer would be), with
// keep-alive agents. Prints each figure with its target (issue #4 "Speed"):
//   GET of one HPA, 64 requests in flight          ≥ 5,000 requests/s (HTTP and HTTPS)
//   LIST of 1,000 HPAs as a Table (kubectl's Accept) p50 ≤ 50 ms
//   watch latency, write (PATCH) → delivery, 100 watchers  p99 ≤ 20 ms
//   RSS with 10,000 HPAs and 100,000 pods stored, idle     ≤ 1 GiB
// The RSS figure comes from a fresh child process (`--rss`), so the other phases' garbage does
// not count: it creates the HPAs over HTTP and 1,000 Deployments × 100 replicas, lets the
// embedded cluster's pod lifecycle bring all 100,000 pods to Running, then idles and measures.
import { spawn } from "node:child_process";
import http from "node:http";
import https from "node:https";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { boundHeapGrowth, fitGarbageCollectorToCores } from "../src/cli/gc.js";
import { type RunningUp, startUp } from "../src/up/up.js";
import { meetsTarget, shownText } from "./figures.js";

const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const GET_CONCURRENCY = 64;
const GET_SECONDS = 5;
const LIST_SIZE = 1000;
const LIST_REQUESTS = 60;
const WATCHERS = 100;
const WATCH_WRITES = 300;
const RSS_HPAS = 10_000;
const RSS_DEPLOYMENTS = 1000;
const RSS_REPLICAS = 100;

// ---------------------------------------------------------------------------------------------
// A minimal client (both threads)

interface Target {
  url: string;
  token: string | null;
  ca: string | null;
}

function agentFor(target: Target, maxSockets: number): http.Agent {
  const options = { keepAlive: true, maxSockets };
  return target.url.startsWith("https:")
    ? new https.Agent({ ...options, ...(target.ca ? { ca: target.ca } : {}) })
    : new http.Agent(options);
}

function request(
  target: Target,
  agent: http.Agent,
  method: string,
  path: string,
  options: { body?: unknown; accept?: string; contentType?: string } = {},
): Promise<{ status: number; body: string }> {
  const lib = target.url.startsWith("https:") ? https : http;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (payload !== undefined) {
    headers["content-type"] = options.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
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

function nowMs(): number {
  // Comparable across threads: each thread's timeOrigin differs, their sum does not.
  return performance.timeOrigin + performance.now();
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---------------------------------------------------------------------------------------------
// Worker: load generation and watchers

type Job =
  | { mode: "get"; target: Target; path: string; concurrency: number; seconds: number }
  | { mode: "list"; target: Target; path: string; requests: number }
  | { mode: "watch"; target: Target; path: string; watchers: number; events: number };

async function runGet(job: Extract<Job, { mode: "get" }>): Promise<unknown> {
  const agent = agentFor(job.target, job.concurrency);
  const warmUntil = nowMs() + 1000;
  const end = warmUntil + job.seconds * 1000;
  let count = 0;
  let errors = 0;
  const loop = async () => {
    for (;;) {
      const t = nowMs();
      if (t >= end) return;
      const res = await request(job.target, agent, "GET", job.path);
      if (res.status !== 200) errors++;
      else if (t >= warmUntil) count++;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  agent.destroy();
  return { perSecond: count / job.seconds, errors };
}

async function runList(job: Extract<Job, { mode: "list" }>): Promise<unknown> {
  const agent = agentFor(job.target, 1);
  const latencies: number[] = [];
  let rows = 0;
  for (let i = 0; i < job.requests + 5; i++) {
    const t0 = nowMs();
    const res = await request(job.target, agent, "GET", job.path, { accept: TABLE_ACCEPT });
    const elapsed = nowMs() - t0;
    if (res.status !== 200) throw new Error(`LIST: ${res.status} ${res.body.slice(0, 200)}`);
    if (i === 0) rows = (JSON.parse(res.body) as { rows: unknown[] }).rows.length;
    if (i >= 5) latencies.push(elapsed); // the first few warm the JIT
  }
  agent.destroy();
  return { latencies, rows };
}

/** Opens the watches, reports "ready", then reports each event's arrival per watcher. */
async function runWatch(job: Extract<Job, { mode: "watch" }>): Promise<unknown> {
  const lib = job.target.url.startsWith("https:") ? https : http;
  const agent = agentFor(job.target, job.watchers + 1);
  const arrivals: number[][] = Array.from({ length: job.watchers }, () => []);
  const counts = new Array<number>(job.watchers).fill(0);
  const delivered = new Array<number>(job.events).fill(0);
  const requests: http.ClientRequest[] = [];
  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    for (let w = 0; w < job.watchers; w++) {
      const headers: Record<string, string> = { accept: "application/json" };
      if (job.target.token) headers.authorization = `Bearer ${job.target.token}`;
      const req = lib.get(`${job.target.url}${job.path}`, { agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch: ${res.statusCode}`));
        if (++ready === job.watchers) resolve();
        res.on("data", (chunk: Buffer) => {
          const t = nowMs();
          // One event per line; count the newlines of the chunk.
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
            const n = counts[w]!++;
            arrivals[w]!.push(t);
            if (n < job.events && ++delivered[n]! === job.watchers) {
              parentPort!.postMessage({ delivered: n });
            }
          }
        });
      });
      req.on("error", (err) => {
        if (!(err as NodeJS.ErrnoException).code?.startsWith("ECONNRESET")) reject(err);
      });
      requests.push(req);
    }
  });
  parentPort!.postMessage({ ready: true });
  await new Promise<void>((resolve) => {
    parentPort!.on("message", (m: { stop?: boolean }) => {
      if (m.stop) resolve();
    });
  });
  for (const req of requests) req.destroy();
  agent.destroy();
  return { arrivals };
}

if (!isMainThread) {
  const job = workerData as Job;
  const run = job.mode === "get" ? runGet(job) : job.mode === "list" ? runList(job) : runWatch(job);
  run.then(
    (result) => parentPort!.postMessage({ result }),
    (err: unknown) => parentPort!.postMessage({ error: String(err) }),
  );
}

function inWorker<T>(job: Job, onMessage?: (m: Record<string, unknown>, w: Worker) => void) {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: job });
  const done = new Promise<T>((resolve, reject) => {
    worker.on("message", (m: Record<string, unknown>) => {
      if ("result" in m) resolve(m.result as T);
      else if ("error" in m) reject(new Error(String(m.error)));
      else onMessage?.(m, worker);
    });
    worker.on("error", reject);
  });
  return { worker, done: done.finally(() => worker.terminate()) };
}

// ---------------------------------------------------------------------------------------------
// Fixtures

function hpa(name: string, namespace: string): unknown {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name, namespace, labels: { app: name, bench: "true" } },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      minReplicas: 2,
      maxReplicas: 20,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
        {
          type: "Pods",
          pods: {
            metric: { name: "http_requests_per_second" },
            target: { type: "AverageValue", averageValue: "10" },
          },
        },
      ],
    },
  };
}

function deployment(name: string, namespace: string, replicas: number): unknown {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
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

/** Runs `items` creations over HTTP with `concurrency` in flight. */
async function createAll(
  target: Target,
  agent: http.Agent,
  items: { path: string; body: unknown }[],
  concurrency = 32,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const res = await request(target, agent, "POST", item.path, { body: item.body });
      if (res.status !== 201) throw new Error(`POST ${item.path}: ${res.status} ${res.body}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

async function createNamespace(target: Target, agent: http.Agent, name: string): Promise<void> {
  await createAll(target, agent, [
    {
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    },
  ]);
}

const hpaPath = (ns: string) => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;

function targetOf(up: RunningUp): Target {
  return { url: up.url, token: up.token, ca: up.caCert };
}

// ---------------------------------------------------------------------------------------------
// Report

interface Figure {
  name: string;
  value: number;
  unit: string;
  target: number;
  /** "min": the value must be at least the target; "max": at most. */
  kind: "min" | "max";
  note?: string;
}

function report(figure: Figure): boolean {
  const pass = meetsTarget(figure.value, figure.target, figure.kind);
  const op = figure.kind === "min" ? "≥" : "≤";
  const value = shownText(figure.value);
  const target = figure.target.toLocaleString("en-US");
  console.log(
    `${figure.name.padEnd(52)} ${`${value} ${figure.unit}`.padStart(16)}   target ${op} ${target} ${figure.unit}   ${pass ? "PASS" : "MISS"}${figure.note ? `   (${figure.note})` : ""}`,
  );
  return pass;
}

// ---------------------------------------------------------------------------------------------
// Phases

async function getThroughput(up: RunningUp, label: string): Promise<Figure> {
  const target = targetOf(up);
  const path = `${hpaPath("get")}/one`;
  const { done } = inWorker<{ perSecond: number; errors: number }>({
    mode: "get",
    target,
    path,
    concurrency: GET_CONCURRENCY,
    seconds: GET_SECONDS,
  });
  const result = await done;
  if (result.errors > 0) throw new Error(`GET: ${result.errors} errors`);
  return {
    name: `GET one HPA, ${GET_CONCURRENCY} in flight (${label})`,
    value: result.perSecond,
    unit: "req/s",
    target: 5000,
    kind: "min",
  };
}

async function listLatency(up: RunningUp, label: string): Promise<Figure> {
  const { done } = inWorker<{ latencies: number[]; rows: number }>({
    mode: "list",
    target: targetOf(up),
    // No limit: one page of all 1,000 rows (kubectl's limit=500 would split it in two).
    path: hpaPath("list"),
    requests: LIST_REQUESTS,
  });
  const { latencies, rows } = await done;
  if (rows !== LIST_SIZE) throw new Error(`LIST returned ${rows} rows`);
  latencies.sort((a, b) => a - b);
  return {
    name: `LIST ${LIST_SIZE} HPAs as a Table, p50 (${label})`,
    value: percentile(latencies, 50),
    unit: "ms",
    target: 50,
    kind: "max",
    note: `p90 ${percentile(latencies, 90).toFixed(1)} ms`,
  };
}

async function watchLatency(up: RunningUp, label: string): Promise<Figure[]> {
  const target = targetOf(up);
  const agent = agentFor(target, 4);
  const rv = up.cluster.store.resourceVersion();
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => {
    onReady = r;
  });
  const waiting = new Map<number, () => void>();
  const { worker, done } = inWorker<{ arrivals: number[][] }>(
    {
      mode: "watch",
      target,
      path: `${hpaPath("watch")}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`,
      watchers: WATCHERS,
      events: WATCH_WRITES,
    },
    (m) => {
      if (m.ready) onReady();
      if (typeof m.delivered === "number") {
        waiting.get(m.delivered)?.();
        waiting.delete(m.delivered);
      }
    },
  );
  await ready;
  const starts: number[] = [];
  for (let i = 0; i < WATCH_WRITES; i++) {
    const deliveredAll = new Promise<void>((r) => waiting.set(i, r));
    const name = `w${i % 10}`;
    const t0 = nowMs();
    starts.push(t0);
    const res = await request(target, agent, "PATCH", `${hpaPath("watch")}/${name}`, {
      body: { metadata: { annotations: { "bench/seq": String(i) } } },
      contentType: "application/merge-patch+json",
    });
    if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${res.body}`);
    await deliveredAll;
  }
  worker.postMessage({ stop: true });
  const { arrivals } = await done;
  agent.destroy();
  const latencies: number[] = [];
  for (const perWatcher of arrivals) {
    for (let i = 0; i < WATCH_WRITES; i++) latencies.push(perWatcher[i]! - starts[i]!);
  }
  latencies.sort((a, b) => a - b);
  const note = `${WATCHERS} watchers × ${WATCH_WRITES} PATCHes`;
  return [
    {
      name: `watch latency write→delivery, p50 (${label})`,
      value: percentile(latencies, 50),
      unit: "ms",
      target: 20,
      kind: "max",
      note,
    },
    {
      name: `watch latency write→delivery, p99 (${label})`,
      value: percentile(latencies, 99),
      unit: "ms",
      target: 20,
      kind: "max",
      note,
    },
  ];
}

async function seedApiFixtures(up: RunningUp): Promise<void> {
  const target = targetOf(up);
  const agent = agentFor(target, 32);
  for (const ns of ["get", "list", "watch"]) await createNamespace(target, agent, ns);
  await createAll(target, agent, [{ path: hpaPath("get"), body: hpa("one", "get") }]);
  const list = Array.from({ length: LIST_SIZE }, (_, i) => ({
    path: hpaPath("list"),
    body: hpa(`app-${String(i).padStart(4, "0")}`, "list"),
  }));
  await createAll(target, agent, list);
  const watch = Array.from({ length: 10 }, (_, i) => ({
    path: hpaPath("watch"),
    body: hpa(`w${i}`, "watch"),
  }));
  await createAll(target, agent, watch);
  agent.destroy();
}

async function apiPhases(insecureHttp: boolean): Promise<Figure[]> {
  const label = insecureHttp ? "HTTP" : "HTTPS";
  const started = await startUp({ port: 0, controller: false, kubeconfigOut: null, insecureHttp });
  if (!started.ok) throw new Error(started.error);
  const up = started.value;
  try {
    await seedApiFixtures(up);
    const figures = [await getThroughput(up, label), await listLatency(up, label)];
    figures.push(...(await watchLatency(up, label)));
    return figures;
  } finally {
    await up.close();
  }
}

/** The `--rss` child: fills a fresh server, lets it settle, prints one JSON line. */
async function rssChild(): Promise<void> {
  // As the `horizon up` command runs its server.
  fitGarbageCollectorToCores();
  boundHeapGrowth();
  const t0 = Date.now();
  const started = await startUp({
    port: 0,
    controller: false,
    kubeconfigOut: null,
    insecureHttp: true,
  });
  if (!started.ok) throw new Error(started.error);
  const up = started.value;
  const target = targetOf(up);
  const agent = agentFor(target, 32);
  const namespaces = Array.from({ length: 10 }, (_, i) => `ns-${i}`);
  for (const ns of namespaces) await createNamespace(target, agent, ns);
  await createAll(
    target,
    agent,
    Array.from({ length: RSS_HPAS }, (_, i) => {
      const ns = namespaces[i % namespaces.length]!;
      return { path: hpaPath(ns), body: hpa(`app-${i}`, ns) };
    }),
  );
  const hpasAt = Date.now();
  await createAll(
    target,
    agent,
    Array.from({ length: RSS_DEPLOYMENTS }, (_, i) => {
      const ns = namespaces[i % namespaces.length]!;
      return {
        path: `/apis/apps/v1/namespaces/${ns}/deployments`,
        body: deployment(`app-${i}`, ns, RSS_REPLICAS),
      };
    }),
    8,
  );
  agent.destroy();
  // The embedded cluster's pod lifecycle (default: no delays) brings the pods up on its ticks.
  const wanted = RSS_DEPLOYMENTS * RSS_REPLICAS;
  const deadline = Date.now() + 600_000;
  let running = 0;
  for (;;) {
    running = 0;
    for (const pod of up.cluster.store.list("Pod")) {
      if ((pod.status as { phase?: string } | undefined)?.phase === "Running") running++;
    }
    if (running >= wanted || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const podsAt = Date.now();
  // Idle: no client, no controller; let timers and the collector settle.
  await new Promise((r) => setTimeout(r, 3000));
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 2000));
  const memory = process.memoryUsage();
  console.log(
    JSON.stringify({
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      hpas: up.cluster.store.list("HorizontalPodAutoscaler").length,
      pods: up.cluster.store.list("Pod").length,
      running,
      hpaSeconds: (hpasAt - t0) / 1000,
      podSeconds: (podsAt - hpasAt) / 1000,
    }),
  );
  await up.close();
}

async function rssFigure(): Promise<Figure> {
  const file = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ["--expose-gc", file, "--rss"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  const code = await new Promise<number | null>((r) => child.on("close", r));
  if (code !== 0) throw new Error(`--rss child exited ${code}`);
  const result = JSON.parse(out.trim().split("\n").pop()!) as {
    rss: number;
    heapUsed: number;
    heapTotal: number;
    hpas: number;
    pods: number;
    running: number;
    hpaSeconds: number;
    podSeconds: number;
  };
  if (result.hpas !== RSS_HPAS || result.running !== RSS_DEPLOYMENTS * RSS_REPLICAS) {
    throw new Error(`--rss child stored ${result.hpas} HPAs, ${result.running} running pods`);
  }
  return {
    name: `RSS, ${RSS_HPAS.toLocaleString("en-US")} HPAs + ${result.pods.toLocaleString("en-US")} pods, idle`,
    value: result.rss / 2 ** 20,
    unit: "MiB",
    target: 1024,
    kind: "max",
    // Committed beyond used: old-space pages left part-full by the garbage of the pods'
    // start-up (a full GC moves only a few MiB; src/cli/gc.ts bounds how far it grows).
    note: `heap ${Math.round(result.heapUsed / 2 ** 20)} MiB used of ${Math.round(result.heapTotal / 2 ** 20)} MiB; setup ${result.hpaSeconds.toFixed(1)} s HPAs + ${result.podSeconds.toFixed(1)} s pods`,
  };
}

async function main(): Promise<void> {
  if (process.argv.includes("--rss")) return rssChild();
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7);
  console.log(`horizon up API server (node ${process.version})`);
  const results: boolean[] = [];
  if (!only || only === "http") for (const f of await apiPhases(true)) results.push(report(f));
  if (!only || only === "https") for (const f of await apiPhases(false)) results.push(report(f));
  if (!only || only === "rss") results.push(report(await rssFigure()));
  console.log(results.every(Boolean) ? "all targets met" : "some targets missed");
}

if (isMainThread) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
