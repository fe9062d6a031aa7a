// `npm run bench:traffic`, the network's section: the pod network of `horizon up` on this machine. One Service in
// front of 10 pods (the sample app, no capacity limit); the clients run in a worker thread
// (their own event loop, as `horizon load` or curl would be a process of their own). Prints:
//   requests/s through the ClusterIP proxy, closed loop: 64 keep-alive connections, and a new
//     connection per request (as `horizon load` and the docs' wget loop)
//   the proxy's added latency: an open loop at a fixed rate, new connection per request,
//     through the ClusterIP and straight to the pods (in turn); p50 and p99 of each, and the
//     difference of the p99s
// No target is set for these figures (issue #12 asks for them in the note): they depend on
// the machine and its load, so the run prints them with the node version and core count.
import { Agent, request } from "node:http";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { LoadGenerator, type LoadTarget, summarize } from "../src/cluster/loadgen.js";
import { emptyScenario, startUp } from "../src/up/up.js";

const PODS = 10;
const CLOSED_SECONDS = 5;
const CLOSED_CONNECTIONS = 64;
const OPEN_RPS = 500;
const OPEN_SECONDS = 6;

type Job =
  | { mode: "closed"; target: LoadTarget; connections: number; keepAlive: boolean; seconds: number }
  | { mode: "open"; targets: LoadTarget[]; rps: number; seconds: number };

interface ClosedResult {
  perSecond: number;
  errors: number;
}
interface OpenResult {
  sent: number;
  answered: number;
  errors: number;
  p50: number | null;
  p99: number | null;
}

// ---------------------------------------------------------------------------------------------
// Worker: the clients

function get(target: LoadTarget, agent: Agent | false): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: target.host, port: target.port, path: "/", agent, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

async function closedLoop(job: Extract<Job, { mode: "closed" }>): Promise<ClosedResult> {
  const agent = job.keepAlive ? new Agent({ keepAlive: true, maxSockets: job.connections }) : false;
  const ends = performance.now() + job.seconds * 1000;
  let ok = 0;
  let errors = 0;
  const loop = async () => {
    while (performance.now() < ends) {
      if ((await get(job.target, agent)) === 200) ok++;
      else errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  if (agent) agent.destroy();
  return { perSecond: ok / seconds, errors };
}

async function openLoop(job: Extract<Job, { mode: "open" }>): Promise<OpenResult> {
  const generator = new LoadGenerator({ target: job.targets, rps: job.rps, concurrency: 1000 });
  generator.start();
  await new Promise((r) => setTimeout(r, job.seconds * 1000));
  await generator.stop();
  // The first second warms up (connections, JIT): it does not count.
  const skip = Math.min(generator.latencies.length, job.rps);
  const latency = summarize(generator.latencies.slice(skip));
  return {
    sent: generator.counts.sent,
    answered: generator.counts.answered,
    errors: generator.counts.errors,
    p50: latency.p50Ms,
    p99: latency.p99Ms,
  };
}

if (!isMainThread && (workerData as { network?: Job } | null)?.network) {
  const job = (workerData as { network: Job }).network;
  (job.mode === "closed" ? closedLoop(job) : openLoop(job)).then(
    (result) => parentPort!.postMessage({ result }),
    (error: unknown) => parentPort!.postMessage({ error: String(error) }),
  );
}

function inWorker<T>(job: Job): Promise<T> {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { network: job } });
  return new Promise((resolve, reject) => {
    worker.on("message", (m: { result?: T; error?: string }) => {
      if (m.error) reject(new Error(m.error));
      else resolve(m.result as T);
      void worker.terminate();
    });
    worker.on("error", reject);
  });
}

// ---------------------------------------------------------------------------------------------
// Main: the server, the pods, the figures

export async function benchNetwork(log: (line: string) => void): Promise<void> {
  const started = await startUp({
    scenario: emptyScenario(),
    port: 0,
    insecureHttp: true,
    kubeconfigOut: null,
    controller: false,
    listeners: true,
    // Ranges of their own, apart from a `horizon up` running on its defaults.
    podCidr: "127.201.0.0/24",
    serviceCidr: "127.202.0.0/24",
  });
  if (!started.ok) throw new Error(started.error);
  const up = started.value;
  try {
    up.cluster.create({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "bench", namespace: "default" },
      spec: {
        replicas: PODS,
        selector: { matchLabels: { app: "bench" } },
        template: {
          metadata: { labels: { app: "bench" } },
          spec: {
            containers: [{ name: "app", image: "sample-app", ports: [{ containerPort: 8080 }] }],
          },
        },
      },
    });
    up.cluster.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "bench", namespace: "default" },
      spec: { selector: { app: "bench" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const deadline = Date.now() + 30_000;
    let pods: string[] = [];
    for (;;) {
      up.driver.catchUp();
      up.cluster.reconcile();
      const endpoints = up.cluster.store.get("Endpoints", "default", "bench");
      const subsets = (endpoints?.subsets ?? []) as { addresses?: { ip: string }[] }[];
      pods = subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
      if (pods.length === PODS) break;
      if (Date.now() > deadline) throw new Error(`only ${pods.length} of ${PODS} pods ready`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const service = up.cluster.store.get("Service", "default", "bench")!;
    const clusterIP = (service.spec as { clusterIP: string }).clusterIP;
    const proxy: LoadTarget = { host: clusterIP, port: 80 };
    const direct: LoadTarget[] = pods.map((ip) => ({ host: ip, port: 8080 }));
    // Both answer before anything is measured.
    await inWorker<OpenResult>({ mode: "open", targets: [proxy, ...direct], rps: 200, seconds: 1 });

    log(
      `horizon up pod network: 1 Service, ${PODS} pods (node ${process.version}, ${availableParallelism()} cores, shared)`,
    );
    for (const keepAlive of [true, false]) {
      const result = await inWorker<ClosedResult>({
        mode: "closed",
        target: proxy,
        connections: CLOSED_CONNECTIONS,
        keepAlive,
        seconds: CLOSED_SECONDS,
      });
      if (result.errors > 0) throw new Error(`through the proxy: ${result.errors} errors`);
      const how = keepAlive
        ? `${CLOSED_CONNECTIONS} keep-alive connections`
        : `${CLOSED_CONNECTIONS} in flight, a new connection per request`;
      log(
        `${`requests/s through the ClusterIP proxy (${how})`.padEnd(86)} ${Math.round(result.perSecond).toLocaleString("en-US").padStart(8)} req/s`,
      );
    }
    const viaProxy = await inWorker<OpenResult>({
      mode: "open",
      targets: [proxy],
      rps: OPEN_RPS,
      seconds: OPEN_SECONDS,
    });
    const straight = await inWorker<OpenResult>({
      mode: "open",
      targets: direct,
      rps: OPEN_RPS,
      seconds: OPEN_SECONDS,
    });
    for (const [name, r] of [
      ["through the ClusterIP proxy", viaProxy],
      ["straight to the pods", straight],
    ] as const) {
      if (r.errors > 0) throw new Error(`${name}: ${r.errors} errors`);
      log(
        `${`latency at ${OPEN_RPS} req/s open loop, new connection per request, ${name}`.padEnd(86)} p50 ${r.p50!.toFixed(2)} ms, p99 ${r.p99!.toFixed(2)} ms`,
      );
    }
    const added = viaProxy.p99! - straight.p99!;
    log(
      `${"the proxy's added p99 latency".padEnd(86)} ${added.toFixed(2).padStart(8)} ms   (p50 ${(viaProxy.p50! - straight.p50!).toFixed(2)} ms)`,
    );
  } finally {
    await up.close();
  }
}
