// `npm run bench:dashboard-memory`: the memory of the dashboard's recorded history when full:
// 1,000 HPAs × 240 syncs (the default --dashboard-history-size) of realistic decision records
// (the syncs of examples/cpu-step.yaml, one CPU metric, renamed per HPA), measured as heap used
// and RSS after a full GC, minus the same before filling; and the time to record a sync and to
// open one (decisionOf). Run with --expose-gc (the npm script does).
import { join } from "node:path";
import type { DecisionRecord } from "../src/controller/decisions.js";
import { runSimulation } from "../src/sim/runner.js";
import { loadScenarioFile } from "../src/sim/scenario.js";
import {
  DEFAULT_HISTORY_CAPACITY,
  decisionJson,
  decisionOf,
  HpaHistory,
} from "../src/web/history.js";

const HPAS = Number(process.env.HPAS ?? 1000);
const SYNCS = Number(process.env.SYNCS ?? DEFAULT_HISTORY_CAPACITY);
const MiB = 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc (npm run bench:dashboard-memory does)");
  process.exit(2);
}

function measure(): { heap: number; rss: number; buffers: number } {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss, buffers: m.arrayBuffers };
}

const loaded = await loadScenarioFile(
  join(import.meta.dirname, "..", "..", "examples", "cpu-step.yaml"),
);
if (!loaded.ok) throw new Error("examples/cpu-step.yaml did not load");
const templates: DecisionRecord[] = [];
await runSimulation({
  scenario: loaded.scenario,
  emit: (record) => {
    if (record.type === "sync") {
      templates.push({
        trace: record.trace,
        conditions: record.conditions,
        events: record.events,
        error: record.error,
      });
    }
    return undefined;
  },
});

let now = Date.UTC(2026, 10, 24);
const before = measure();
const history = new HpaHistory({ capacity: SYNCS, clock: { now: () => now } });
const recordTimes: number[] = [];
for (let s = 0; s < SYNCS; s++) {
  now += 15_000;
  const template = templates[s % templates.length]!;
  for (let h = 0; h < HPAS; h++) {
    // A fresh copy per sync, as the controller builds one: nothing shared with the template.
    const decision = JSON.parse(JSON.stringify(template)) as DecisionRecord;
    decision.trace.hpa = { namespace: `team-${h % 10}`, name: `app-${h}` };
    decision.trace.time = new Date(now).toISOString();
    const start = performance.now();
    history.record(decision, 100 + (s % 50));
    recordTimes.push(performance.now() - start);
  }
  if (s % 40 === 39) process.stderr.write(`recorded ${(s + 1) * HPAS} syncs\n`);
}
const after = measure();
const records = history.size;
const openStart = performance.now();
let opened = 0;
for (let h = 0; h < HPAS; h += 10) {
  for (const record of history.get(`team-${h % 10}`, `app-${h}`)) {
    opened += decisionOf(record).trace.currentReplicas > 0 ? 1 : 0;
  }
}
const openMs = (performance.now() - openStart) / Math.max(1, (HPAS / 10) * SYNCS);
recordTimes.sort((a, b) => a - b);
const heap = (after.heap - before.heap) / MiB;
const rss = (after.rss - before.rss) / MiB;
const buffers = (after.buffers - before.buffers) / MiB;
console.log(
  `dashboard history, ${HPAS} HPAs × ${SYNCS} syncs (${records} records, ${opened} opened):`,
);
console.log(
  `  heap used: ${heap.toFixed(1)} MiB (${((heap * MiB) / records).toFixed(0)} bytes per sync)`,
);
console.log(`  buffers (outside the heap): ${buffers.toFixed(1)} MiB`);
console.log(`  heap + buffers: ${(heap + buffers).toFixed(1)} MiB`);
console.log(`  RSS: ${rss.toFixed(1)} MiB`);
console.log(
  `  record a sync: median ${(recordTimes[recordTimes.length >> 1]! * 1000).toFixed(1)} µs, p99 ${(recordTimes[Math.floor(recordTimes.length * 0.99)]! * 1000).toFixed(1)} µs; open one: ${(openMs * 1000).toFixed(1)} µs`,
);
let jsonBytes = 0;
for (const record of history.get("team-3", "app-3")) jsonBytes += decisionJson(record).length;
const packing = history.packing();
console.log(
  `  decision records: ${(jsonBytes / SYNCS).toFixed(0)} bytes of JSON each, kept in ${(packing.bytes / packing.records).toFixed(0)} (${packing.batches} batches of ${packing.records} syncs)`,
);
