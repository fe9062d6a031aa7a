// `npm run bench:sim`: 24 hours of virtual time, 100 HPAs over 100 Deployments (up to 2,000
// pods), 15 s sync period and 15 s metric resolution. Prints wall time, the virtual/real time
// ratio and peak memory (RSS). Targets (issue #17): ≤ 3 s and ≤ 256 MiB on one core.
import { runSimulation } from "../src/sim/runner.js";
import { parseScenario } from "../src/sim/scenario.js";

const HPAS = 100;

function scenarioYaml(): string {
  const docs: string[] = [];
  const workloads: string[] = [];
  for (let i = 0; i < HPAS; i++) {
    const name = `app-${String(i).padStart(3, "0")}`;
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: app
          image: example/app:1
          resources: {requests: {cpu: 200m, memory: 256Mi}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ${name}, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ${name}}
  minReplicas: 2
  maxReplicas: 20
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}`);
    // A diurnal load per app in four phase groups: at the daily peaks the HPAs reach their 20-pod maximum.
    workloads.push(`    - target: Deployment/${name}
      usage: {cpu: {base: 10m, perRps: 2m}, capacityRps: 100}
      traffic:
        - {type: diurnal, base: ${800 + (i % 7) * 50}, amplitude: ${400 + (i % 5) * 40}, phase: ${i % 4}h}`);
  }
  docs.push(`apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: bench-24h-100-hpas}
spec:
  duration: 24h
  seed: 7
  cluster: {metricsResolution: 15s}
  workloads:
${workloads.join("\n")}`);
  return docs.join("\n---\n");
}

const parsed = parseScenario(scenarioYaml(), {
  file: "bench-24h-100-hpas.yaml",
  baseDir: process.cwd(),
});
if (!parsed.ok) {
  for (const e of parsed.errors)
    console.error(`${e.file}:${e.line ?? "?"}:${e.column ?? "?"}: ${e.path ?? ""} ${e.message}`);
  process.exit(2);
}

let peakRss = process.memoryUsage().rss;
let peakPods = 0;
let syncs = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);
const started = performance.now();
// Samples of one instant arrive together: sum them, and take the peak when the instant changes.
let sampleTime = -1;
let podsNow = 0;
const result = await runSimulation({
  scenario: parsed.scenario,
  emit: (record) => {
    if (record.type === "sync") syncs++;
    if (record.type === "sample") {
      if (record.t !== sampleTime) {
        sampleTime = record.t;
        podsNow = 0;
      }
      podsNow += record.pods;
      peakPods = Math.max(peakPods, podsNow);
    }
    return undefined;
  },
});
const wallMs = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);

const virtualMs = result.start.durationSeconds * 1000;
console.log(
  `bench:sim — 24h of virtual time, ${HPAS} HPAs, 15s sync period and metric resolution (node ${process.version})`,
);
console.log(`  syncs                 ${syncs}`);
console.log(`  peak pods             ${peakPods}`);
console.log(
  `  wall time             ${(wallMs / 1000).toFixed(2)} s  (target ≤ 3 s: ${wallMs <= 3_000 ? "met" : "MISSED"})`,
);
console.log(`  virtual / real time   ${Math.round(virtualMs / wallMs)}×  (target ≥ 28,800×)`);
console.log(
  `  peak memory (RSS)     ${(peakRss / 2 ** 20).toFixed(0)} MiB  (target ≤ 256 MiB: ${peakRss <= 256 * 2 ** 20 ? "met" : "MISSED"})`,
);
