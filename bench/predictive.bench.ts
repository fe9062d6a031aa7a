// `npm run bench:predictive` (issue 37): the NASA-HTTP 1995 trace (examples/traces/README.md),
// 1995-07-01..27, the minute counts × 311 as requests/minute, a Deployment whose pods serve
// 100 requests/s and take ~90 s to become ready, under a CPU 70% HPA (examples/nasa-trace.yaml).
// Every autoscaler runs the whole span; the first 14 days (07-01..14) are only learned from and
// the measures count 07-15..27 alone: a model sees each minute only once it has happened.
// Side by side: upstream's reactive HPA, horizon.dev/predictive, and the predictive HPA users try
// today (jthomperoo's PHPA: Holt-Winters over the replica count, alpha = beta = gamma = 0.9, a
// daily season, one sync ahead; horizon.dev/predictive-model: replicas-holt-winters), each with
// the same HPA spec. Goal: predictive ≤ 50% of reactive's unmet-demand pod-seconds with ≤ 10%
// more pod-hours. Also measured: how much of each one's unmet demand falls in spikes (minutes
// whose demand is 30% above the mean of the 10 minutes before), which no forecast of the
// seasonal shape can see coming.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { demandPods, scenarioYardsticks } from "../src/sim/demand.js";
import { MeasureCollector } from "../src/sim/measures.js";
import { runSimulation } from "../src/sim/runner.js";
import { parseScenario } from "../src/sim/scenario.js";
import type { SimulationRecord, StartRecord } from "../src/sim/timeline.js";

const DAY = 86_400;
const LEARN_DAYS = 14;
const DAYS = 27;
const examples = join(process.cwd(), "examples");

function scenarioText(annotations: Record<string, string>): string {
  let text = readFileSync(join(examples, "nasa-trace.yaml"), "utf8");
  text = text.replace("duration: 24h", `duration: ${DAYS * 24}h`);
  text = text.replace(/offset: 336h.*\n/, "offset: 0s\n");
  const lines = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join("\n");
  if (lines) {
    text = text.replace(
      "kind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n",
      `kind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  annotations:\n${lines}\n`,
    );
  }
  return text;
}

interface Row {
  name: string;
  wallSeconds: number;
  summary: ReturnType<MeasureCollector["summary"]>["hpas"][number];
  spikeShare: number;
  unmetPodSeconds: number;
}

async function measure(name: string, annotations: Record<string, string>): Promise<Row> {
  const parsed = parseScenario(scenarioText(annotations), {
    file: "nasa-predictive.yaml",
    baseDir: examples,
  });
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join("\n"));
  const scenario = parsed.scenario;
  const yardsticks = scenarioYardsticks(scenario);
  const yardstick = yardsticks["default/web"];
  if (!yardstick) throw new Error("no demand model for default/web");
  const offset = LEARN_DAYS * DAY;
  let collector: MeasureCollector | null = null;
  // Spikes: unmet pod-seconds while demand is 30% above its mean over the 10 minutes before.
  const recent: number[] = [];
  let spikeUnmet = 0;
  let unmet = 0;
  let last: { t: number; short: number; spike: boolean } | null = null;
  const started = performance.now();
  await runSimulation({
    scenario,
    yardsticks,
    emit: (record: SimulationRecord) => {
      if (record.type === "start") {
        const start: StartRecord = { ...record, durationSeconds: (DAYS - LEARN_DAYS) * DAY };
        collector = new MeasureCollector(start, yardsticks);
        return undefined;
      }
      if (record.type === "summary" || record.t < offset || collector === null) return undefined;
      (collector as MeasureCollector).add({ ...record, t: record.t - offset } as SimulationRecord);
      if (record.type === "sample") {
        if (last) {
          const seconds = record.t - last.t;
          unmet += last.short * seconds;
          if (last.spike) spikeUnmet += last.short * seconds;
        }
        const mean = recent.length > 0 ? recent.reduce((a, b) => a + b, 0) / recent.length : 0;
        const needed = demandPods(yardstick, record.demandRps) ?? 0;
        last = {
          t: record.t,
          short: Math.max(0, needed - record.readyPods),
          spike: mean > 0 && record.demandRps > 1.3 * mean,
        };
        recent.push(record.demandRps);
        if (recent.length > 40) recent.shift();
      }
      return undefined;
    },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = (collector as MeasureCollector | null)!.summary().hpas[0]!;
  return {
    name,
    wallSeconds,
    summary,
    spikeShare: unmet > 0 ? spikeUnmet / unmet : 0,
    unmetPodSeconds: unmet,
  };
}

const rows: Row[] = [];
for (const [name, annotations] of [
  ["upstream reactive", {}],
  ["horizon predictive", { "horizon.dev/predictive": "true" }],
  [
    "PHPA-style Holt-Winters",
    { "horizon.dev/predictive": "true", "horizon.dev/predictive-model": "replicas-holt-winters" },
  ],
] as const) {
  const row = await measure(name, annotations);
  rows.push(row);
  console.error(`${name}: ${row.wallSeconds.toFixed(0)} s`);
}

const fmt = (v: number | null | undefined, digits = 1) =>
  v === null || v === undefined ? "-" : v.toFixed(digits);
const header = [
  "autoscaler",
  "unmet pod-s",
  "pod-hours",
  "flaps",
  "θU %",
  "θO %",
  "τU %",
  "τO %",
  "instab. %",
  "jitter /h",
  "unmet in spikes",
];
const table = rows.map((r) => {
  const s = r.summary as unknown as Record<string, number | null>;
  return [
    r.name,
    fmt(s.unmetDemandPodSeconds, 0),
    fmt(s.podHours, 0),
    String(s.flaps),
    fmt(s.underProvisioningAccuracy),
    fmt(s.overProvisioningAccuracy),
    fmt(s.underProvisioningTimeshare),
    fmt(s.overProvisioningTimeshare),
    fmt(s.instability),
    fmt(s.jitter, 2),
    `${Math.round(r.spikeShare * 100)}%`,
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
console.log(
  `NASA-HTTP 1995, learned 07-01..14, measured 07-15..27 (${DAYS - LEARN_DAYS} days), CPU 70%, 100 rps/pod, ~90 s to ready`,
);
console.log(line(header));
for (const row of table) console.log(line(row));
const [reactive, predictive, phpa] = rows.map((r) => r.summary);
const unmetRatio = predictive!.unmetDemandPodSeconds / reactive!.unmetDemandPodSeconds;
const hoursRatio = predictive!.podHours / reactive!.podHours;
console.log(
  `predictive vs reactive: ${(unmetRatio * 100).toFixed(0)}% of the unmet demand (goal ≤ 50%), ${((hoursRatio - 1) * 100).toFixed(1)}% pod-hours (goal ≤ +10%): ${unmetRatio <= 0.5 && hoursRatio <= 1.1 ? "met" : "missed"}`,
);
console.log(
  `predictive vs PHPA-style: unmet ${(predictive!.unmetDemandPodSeconds / phpa!.unmetDemandPodSeconds).toFixed(2)}×, pod-hours ${(predictive!.podHours / phpa!.podHours).toFixed(2)}×`,
);
