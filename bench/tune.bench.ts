// `npm run bench:tune`: `horizon tune` over a 24 h trace (one HPA on CPU, a diurnal load with
// noise) and 200 candidates (scale-down window × minReplicas × scale-up Pods policy), with 1 and
// with 2 jobs. Prints each wall time, candidates per second, CPU time per candidate (every thread:
// the same work per candidate whatever --jobs, so the speed-up is parallelism) and the speed-up.
// Goals (issue #17):
// ≤ 60 s with 2 jobs on a 2-core machine, speed-up ≥ 1.8×. Flags: --candidates=N (a smaller
// grid, same shape), --jobs=1,2.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseObjective } from "../src/sim/tune/objective.js";
import { parseSearchSpace } from "../src/sim/tune/space.js";
import { tune } from "../src/sim/tune/tuner.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const candidates = Number(arg("candidates") ?? 200);
const jobList = (arg("jobs") ?? "1,2").split(",").map(Number);

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

const seconds: Record<number, number> = {};
let reference: string | null = null;
for (const jobs of jobList) {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { result, split } = await cpuByThread((sample) =>
    tune({
      base: { text: SCENARIO, file, baseDir: dir, sets: [] },
      entries: space.entries,
      objective: objective.objective,
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
  const s = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerRun = (cpu.user + cpu.system) / 1000 / result.runs;
  seconds[jobs] = s;
  const ranking = JSON.stringify(result.rows.map((r) => [r.id, r.objective]));
  if (reference !== null && ranking !== reference)
    throw new Error(`jobs=${jobs} ranked differently`);
  reference = ranking;
  const where =
    split === null
      ? ""
      : ` (this thread ${(split.main / 1000).toFixed(1)} s, workers ${(split.workers / 1000).toFixed(1)} s, V8 helper threads ${(split.helpers / 1000).toFixed(1)} s)`;
  console.log(
    `jobs=${jobs}: ${result.runs} simulations of 24 h in ${s.toFixed(1)} s (${(result.runs / s).toFixed(2)}/s), ${cpuMsPerRun.toFixed(0)} ms CPU each${where}; best ${result.rows[0]?.sets.join(" ")}`,
  );
}
if (seconds[1] !== undefined && seconds[2] !== undefined)
  console.log(
    `speed-up 1 → 2 jobs: ${(seconds[1] / seconds[2]).toFixed(2)}× (goal ≥ 1.8×); 2 jobs ${seconds[2].toFixed(1)} s (goal ≤ 60 s)`,
  );
