// `npm run bench:soak -- [--seconds N]`: mixed clients against `horizon up` (plain HTTP, no
// controller) for N seconds (default 30), twice, each with a fresh server: with 5 watchers that
// never read, and without them. The server is a process of its own, pinned to one core and the
// clients to the others where the machine has two or more (as clients on other machines: the
// load generator does not take the server's CPU, and the server has exactly one core). Reads (GET, LIST), writes (create, PATCH of a
// Service with a 20 KB annotation) and 3 reading watchers run throughout, and a /healthz probe
// every 50 ms from a thread of its own (as a kubelet probes: its latency is the server's, not the
// busy load generator's; its first request, which opens its connection, is not counted; the thread
// runs at real-time priority where the machine allows it, as a kubelet on its own core: otherwise
// its samples include the time the shared client core takes to wake it). Prints requests/s, p99
// latency per verb, peak RSS and the watchers dropped, and
// the goals: RSS with the stalled watchers within 100 MiB of the run without them,
// healthz p99 under 10 ms.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readlinkSync } from "node:fs";
import http from "node:http";
import { connect, type Socket } from "node:net";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { boundHeapGrowth, fitGarbageCollectorToCores } from "../src/cli/gc.js";
import { startUp } from "../src/up/up.js";

const SERVICES = "/api/v1/namespaces/default/services";
const BLOB = "x".repeat(20_000);

interface PhaseResult {
  stalled: number;
  seconds: number;
  requests: number;
  p99: Record<string, number>;
  peakRssMiB: number;
  dropped: number;
  probePriority: string;
  probeSamples: number;
}

interface ProbeResult {
  samples: number[];
  priority: string;
}

function request(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: body ? { "content-type": contentType } : {},
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function p99(samples: number[]): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

/**
 * Puts the calling thread under SCHED_FIFO (`chrt`, root or CAP_SYS_NICE): the probe shares the
 * client core with the busy load generator, whose time slices otherwise delay the probe's wake-up
 * on the server's answer by up to ~30 ms (measured), time a kubelet on its own core does not wait.
 * Says what it did.
 */
function realTimePriority(): string {
  const tid = readlinkSync("/proc/thread-self").split("/").pop() ?? "";
  const chrt = spawnSync("chrt", ["--fifo", "--pid", "10", tid], { encoding: "utf8" });
  if (chrt.status === 0) return "real-time (SCHED_FIFO)";
  const why = chrt.error?.message ?? chrt.stderr.trim().split("\n")[0] ?? `exit ${chrt.status}`;
  return `normal (chrt: ${why}; its samples include the client core's wake-up delay)`;
}

/**
 * The probe's thread: GET /healthz every 50 ms until the deadline, on its own connection and
 * event loop, as a kubelet or load balancer probes (so the figure is the server's answer time,
 * not the time the load generator's busy loop takes to notice it). Posts the latencies.
 */
async function probe(port: number, deadline: number): Promise<void> {
  const priority = realTimePriority();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // Not counted: the first request opens the probe's connection and compiles the probe's own
  // HTTP client in this fresh thread (~20 ms of the instrument, not of the server).
  await request(agent, port, "GET", "/healthz");
  const samples: number[] = [];
  while (Date.now() < deadline) {
    const t = performance.now();
    const status = await request(agent, port, "GET", "/healthz");
    if (status !== 200) throw new Error(`healthz: ${status}`);
    samples.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  agent.destroy();
  parentPort?.postMessage({ samples, priority } satisfies ProbeResult);
}

/**
 * The server's process: starts `horizon up`, prints its port; on a line on stdin closes it and
 * prints its peak RSS in bytes.
 */
async function serve(): Promise<void> {
  fitGarbageCollectorToCores();
  boundHeapGrowth();
  const started = await startUp({
    port: 0,
    insecureHttp: true,
    controller: false,
    kubeconfigOut: null,
  });
  if (!started.ok) throw new Error(started.error);
  const up = started.value;
  process.stdin.once("data", async () => {
    await up.close();
    console.log(process.resourceUsage().maxRSS * 1024);
    process.exit(0);
  });
  console.log(up.port);
}

/**
 * The server's node flags: bin/horizon.js's, which `horizon up` runs with (a 32 MiB young
 * generation). BENCH_NODE_FLAGS overrides them ("" for V8's defaults).
 */
function serverNodeFlags(): string[] {
  return (process.env.BENCH_NODE_FLAGS ?? "--max-semi-space-size=32").split(" ").filter(Boolean);
}

/** `node ARGS` pinned to the given cores where `taskset` and two cores are there. */
function pinned(cores: string, args: string[]) {
  const pin = availableParallelism() >= 2 && existsSync("/usr/bin/taskset");
  return pin
    ? spawn("/usr/bin/taskset", ["-c", cores, process.execPath, ...args], {
        stdio: ["pipe", "pipe", "inherit"],
      })
    : spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
}

/** The clients' cores and the server's: the last core is the server's. */
function cores(): { clients: string; server: string } {
  const n = availableParallelism();
  return { clients: n >= 2 ? `0-${n - 2}` : "0", server: String(Math.max(0, n - 1)) };
}

/** Resolves with the next line a child prints. */
function nextLine(proc: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const end = out.indexOf("\n");
      if (end < 0) return;
      proc.stdout?.off("data", onData);
      resolve(out.slice(0, end));
    };
    proc.stdout?.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
}

async function phase(stalled: number, seconds: number): Promise<PhaseResult> {
  const server = pinned(cores().server, [
    ...serverNodeFlags(),
    fileURLToPath(import.meta.url),
    "--serve",
  ]);
  const port = Number(await nextLine(server));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const latencies: Record<string, number[]> = {};
  let requests = 0;
  const timed = async (verb: string, run: () => Promise<number>) => {
    const t = performance.now();
    const status = await run();
    const samples = latencies[verb] ?? [];
    samples.push(performance.now() - t);
    latencies[verb] = samples;
    requests++;
    if (status >= 500) throw new Error(`${verb}: ${status}`);
  };
  const service = (name: string, note: string) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, annotations: { note } },
      spec: { ports: [{ port: 80 }] },
    });
  for (let i = 0; i < 20; i++) {
    await request(agent, port, "POST", SERVICES, service(`s${i}`, BLOB));
  }
  // Watchers that never read: the request goes out, then nothing is read until the end.
  const stalledSockets: Socket[] = [];
  for (let i = 0; i < stalled; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.pause();
    socket.on("error", () => {});
    socket.write(`GET ${SERVICES}?watch=1&resourceVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n`);
    stalledSockets.push(socket);
  }
  // Watchers that read.
  const readers = [1, 2, 3].map(
    () =>
      new Promise<void>((resolve) => {
        http
          .get({ host: "127.0.0.1", port, path: `${SERVICES}?watch=1` }, (res) => {
            res.resume();
            res.on("close", () => resolve());
          })
          .on("error", () => resolve());
      }),
  );
  const deadline = Date.now() + seconds * 1000;
  let created = 0;
  const loops = [
    async () => {
      while (Date.now() < deadline) {
        await timed("patch", () =>
          request(
            agent,
            port,
            "PATCH",
            `${SERVICES}/s${created % 20}`,
            JSON.stringify({ metadata: { annotations: { note: `${Date.now()}${BLOB}` } } }),
            "application/merge-patch+json",
          ),
        );
      }
    },
    async () => {
      while (Date.now() < deadline) {
        const name = `c${created++}`;
        await timed("create", () => request(agent, port, "POST", SERVICES, service(name, "y")));
        await timed("delete", () => request(agent, port, "DELETE", `${SERVICES}/${name}`));
      }
    },
    ...[1, 2].map(() => async () => {
      while (Date.now() < deadline) {
        await timed("get", () => request(agent, port, "GET", `${SERVICES}/s${created % 20}`));
      }
    }),
    async () => {
      while (Date.now() < deadline) {
        await timed("list", () => request(agent, port, "GET", SERVICES));
      }
    },
  ];
  const prober = new Worker(fileURLToPath(import.meta.url), {
    workerData: { probe: { port, deadline } },
  });
  const probed = new Promise<ProbeResult>((resolve, reject) => {
    prober.once("message", resolve);
    prober.once("error", reject);
  });
  await Promise.all(loops.map((loop) => loop()));
  const { samples: healthz, priority: probePriority } = await probed;
  latencies.healthz = healthz;
  requests += latencies.healthz.length;
  await prober.terminate();
  // A stalled watcher the server dropped ends soon once read; a kept one stays open.
  const dropped = await Promise.all(
    stalledSockets.map(
      (socket) =>
        new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 3000);
          socket.on("data", () => {});
          socket.on("close", () => {
            clearTimeout(timer);
            resolve(true);
          });
          socket.resume();
        }),
    ),
  );
  for (const socket of stalledSockets) socket.destroy();
  agent.destroy();
  const peakRss = nextLine(server);
  server.stdin?.write("close\n");
  const peak = Number(await peakRss);
  await Promise.all(readers);
  const result: PhaseResult = {
    stalled,
    seconds,
    requests,
    p99: Object.fromEntries(Object.entries(latencies).map(([verb, s]) => [verb, p99(s)])),
    peakRssMiB: peak / 2 ** 20,
    dropped: dropped.filter(Boolean).length,
    probePriority,
    probeSamples: healthz.length,
  };
  return result;
}

/** Runs one phase's clients in a child process on the clients' cores. */
function child(stalled: number, seconds: number): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const proc = pinned(cores().clients, [
      fileURLToPath(import.meta.url),
      "--phase",
      String(stalled),
      String(seconds),
    ]);
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`phase exited ${code}`));
      else resolve(JSON.parse(out.trim().split("\n").pop()!) as PhaseResult);
    });
  });
}

/** The two phases and the figures. */
async function main(args: string[]): Promise<void> {
  if (args.includes("--help")) {
    console.log("npm run bench:soak -- [--seconds N]   (default 30 s per phase)");
    return;
  }
  const at = args.indexOf("--seconds");
  const seconds = at >= 0 ? Number(args[at + 1]) : 30;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    console.error("error: --seconds: must be a positive number");
    process.exitCode = 2;
    return;
  }
  const rows: PhaseResult[] = [];
  for (const stalled of [5, 0]) {
    console.error(`soak: ${seconds} s with ${stalled} watchers that never read...`);
    rows.push(await child(stalled, seconds));
  }
  for (const r of rows) {
    const verbs = Object.entries(r.p99)
      .map(([verb, ms]) => `${verb} ${ms.toFixed(1)} ms`)
      .join(", ");
    console.log(
      `${r.stalled} stalled watchers: ${(r.requests / r.seconds).toFixed(0)} requests/s; p99 ${verbs}; peak RSS ${r.peakRssMiB.toFixed(0)} MiB; watchers dropped ${r.dropped}/${r.stalled}`,
    );
  }
  const [withStalled, without] = rows as [PhaseResult, PhaseResult];
  const extra = withStalled.peakRssMiB - without.peakRssMiB;
  console.log(
    `RSS with 5 stalled watchers − without: ${extra.toFixed(0)} MiB (goal ≤ 100 MiB: ${extra <= 100 ? "met" : "NOT met"})`,
  );
  console.log(`healthz probe thread priority: ${withStalled.probePriority}`);
  if (withStalled.probeSamples === 0 || without.probeSamples === 0) {
    console.log(
      "healthz p99: no samples in a phase (too short for the probe; goal < 10 ms: NOT met)",
    );
    return;
  }
  const healthz = Math.max(withStalled.p99.healthz ?? 0, without.p99.healthz ?? 0);
  console.log(
    `healthz p99: ${healthz.toFixed(1)} ms (goal < 10 ms: ${healthz < 10 ? "met" : "NOT met"})`,
  );
}

const args = process.argv.slice(2);
if (!isMainThread) {
  const role = workerData as { probe: { port: number; deadline: number } };
  await probe(role.probe.port, role.probe.deadline);
} else if (args[0] === "--serve") {
  await serve();
} else if (args[0] === "--phase") {
  const result = await phase(Number(args[1]), Number(args[2]));
  console.log(JSON.stringify(result));
  process.exit(0);
} else {
  await main(args);
}
