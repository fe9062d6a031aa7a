// `npm run bench:tune`: `horizon tune` over a 24 h trace (one HPA on CPU, a diurnal load with
// noise) and 200 candidates (scale-down window × minReplicas × scale-up Pods policy), with 1 and
// with 2 jobs. Prints each wall time, candidates per second, CPU time per candidate (every thread:
// the same work per candidate whatever --jobs, so the speed-up is parallelism), the cores it kept
// busy and the speed-up. Each run is a new process, cold like a `horizon tune` command: a later
// run in the same isolate would find the simulator already optimized.
// Goals (issue #17):
// ≤ 60 s with 2 jobs on a 2-core machine, speed-up ≥ 1.8×. Flags: --candidates=N (a smaller
// grid, same shape), --jobs=1,2, --rounds=N (alternates the job counts N times and reports the
// medians: on a machine shared with other work one run says little).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseObjective } from "../src/sim/tune/objective.js";
import { parseSearchSpace } from "../src/sim/tune/space.js";
import { tune } from "../src/sim/tune/tuner.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
/** A whole number ≥ 1 from flag `name`, or exit 2 naming the flag. */
function count(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name}: "${text}" is not a whole number ≥ 1`);
    process.exit(2);
  }
  return n;
}
const candidates = count("candidates", arg("candidates") ?? "200");
const jobList = (arg("jobs") ?? "1,2").split(",").map((j) => count("jobs", j));
const rounds = count("rounds", arg("rounds") ?? "1");
/** Set on the process that makes one measurement (see `measure`). */
const ONE_RUN = "--one-run";

const SCENARIO = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: example/web:1
          resources: {requests: {cpu: 200m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 30
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
  behavior:
    scaleUp:
      policies: [{type: Pods, value: 4, periodSeconds: 60}]
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: bench-tune-24h}
spec:
  duration: 24h
  seed: 3
  workloads:
    - target: Deployment/web
      usage: {cpu: {base: 10m, perRps: 2m}, capacityRps: 100}
      traffic:
        - {type: diurnal, base: 900, amplitude: 600, phase: 2h}
`;

// 10 windows × 4 floors × 5 policy values = 200; fewer candidates shrink the windows first.
const windows = Math.max(1, Math.round(candidates / 20));
const SPACE = `spec.behavior.scaleDown.stabilizationWindowSeconds: 0..${(windows - 1) * 60}/60
spec.minReplicas: 1..4
spec.behavior.scaleUp.policies[0].value: 2..10/2
`;

const dir = mkdtempSync(join(tmpdir(), "horizon-bench-tune-"));
const file = join(dir, "scenario.yaml");
writeFileSync(file, SCENARIO);
const space = parseSearchSpace(SPACE, "bench");
const objective = parseObjective("podHours", "minimize");
if (!space.ok || !objective.ok) throw new Error("bench inputs do not parse");
const entries = space.entries;
const podHours = objective.objective;

/** CPU time (ms) of each of this process's threads, from /proc; null where there is none. */
function threadCpuMs(): Map<number, number> | null {
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return null;
  }
  const out = new Map<number, number>();
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}
// USER_HZ: 100 on every Linux architecture Node runs on.
const TICKS_PER_SECOND = 100;

/**
 * Each kind of thread's CPU time over `run`. Worker threads end before `run` returns, so `run`
 * calls `sample` once their work is done; reading /proc more often would itself take CPU.
 */
async function cpuByThread<T>(run: (sample: () => void) => Promise<T>) {
  const before = threadCpuMs();
  const latest = new Map(before);
  const sample = () => {
    for (const [tid, ms] of threadCpuMs() ?? []) latest.set(tid, ms);
  };
  const result = await run(sample);
  sample();
  if (before === null) return { result, split: null };
  const split = { main: 0, workers: 0, helpers: 0 };
  for (const [tid, ms] of latest) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === process.pid) split.main += used;
    else if (before.has(tid)) split.helpers += used;
    else split.workers += used;
  }
  return { result, split };
}

interface Measurement {
  jobs: number;
  runs: number;
  seconds: number;
  cpuMsPerRun: number;
  split: { main: number; workers: number; helpers: number } | null;
  ranking: string;
  best: string;
}

/** One `tune` of the whole grid in this process, written to stdout as JSON. */
async function measureHere(jobs: number): Promise<void> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { result, split } = await cpuByThread((sample) =>
    tune({
      base: { text: SCENARIO, file, baseDir: dir, sets: [] },
      entries,
      objective: podHours,
      constraints: [],
      strategy: "grid",
      budget: candidates,
      searchSeed: 1,
      jobs,
      // The workers' CPU time, read after the last answer and before the pool ends them.
      progress: (done, total) => {
        if (done === total) sample();
      },
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const measurement: Measurement = {
    jobs,
    runs: result.runs,
    seconds,
    cpuMsPerRun: (cpu.user + cpu.system) / 1000 / result.runs,
    split,
    ranking: JSON.stringify(result.rows.map((r) => [r.id, r.objective])),
    best: result.rows[0]?.sets.join(" ") ?? "",
  };
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

/** Runs `measureHere` in a new process with this one's Node flags (cold, like a command). */
function measure(jobs: number): Measurement {
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      process.argv[1]!,
      ONE_RUN,
      `--jobs=${jobs}`,
      `--candidates=${candidates}`,
    ],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 64 << 20 },
  );
  if (child.status !== 0) throw new Error(`the jobs=${jobs} run exited with ${child.status}`);
  return JSON.parse(child.stdout) as Measurement;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function describe(m: Measurement, label: string): string {
  const where =
    m.split === null
      ? ""
      : ` (this thread ${(m.split.main / 1000).toFixed(1)} s, workers ${(m.split.workers / 1000).toFixed(1)} s, V8 helper threads ${(m.split.helpers / 1000).toFixed(1)} s)`;
  const cores = (m.cpuMsPerRun * m.runs) / 1000 / m.seconds;
  return `${label}: ${m.runs} simulations of 24 h in ${m.seconds.toFixed(1)} s (${(m.runs / m.seconds).toFixed(2)}/s), ${m.cpuMsPerRun.toFixed(0)} ms CPU each, ${cores.toFixed(2)} cores busy${where}`;
}

if (process.argv.includes(ONE_RUN)) {
  await measureHere(count("jobs", arg("jobs") ?? "1"));
} else {
  const byJobs = new Map<number, Measurement[]>(jobList.map((j) => [j, []]));
  let reference: Measurement | null = null;
  for (let round = 1; round <= rounds; round++) {
    for (const jobs of jobList) {
      const m = measure(jobs);
      if (reference !== null && m.ranking !== reference.ranking)
        throw new Error(`jobs=${jobs} ranked differently from jobs=${reference.jobs}`);
      reference ??= m;
      byJobs.get(jobs)!.push(m);
      const label = rounds > 1 ? `round ${round}/${rounds} jobs=${jobs}` : `jobs=${jobs}`;
      console.log(`${describe(m, label)}; best ${m.best}`);
    }
  }
  const seconds = new Map<number, number>();
  for (const [jobs, runs] of byJobs) {
    seconds.set(jobs, median(runs.map((m) => m.seconds)));
    if (rounds > 1)
      console.log(
        `jobs=${jobs}, medians of ${rounds}: ${seconds.get(jobs)!.toFixed(1)} s, ${median(runs.map((m) => m.cpuMsPerRun)).toFixed(0)} ms CPU each`,
      );
  }
  const one = seconds.get(1);
  const two = seconds.get(2);
  if (one !== undefined && two !== undefined)
    console.log(
      `speed-up 1 → 2 jobs: ${(one / two).toFixed(2)}× (goal ≥ 1.8×); 2 jobs ${two.toFixed(1)} s (goal ≤ 60 s)`,
    );
}
