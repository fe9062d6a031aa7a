import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { DecisionTrace } from "../../src/core/trace.js";
import {
  CSV_COLUMNS,
  CsvWriter,
  csvField,
  formatComparison,
  formatSummaryTable,
  JsonLinesWriter,
  stableStringify,
} from "../../src/sim/output.js";
import type {
  HpaSummary,
  SampleRecord,
  SimulationRecord,
  StartRecord,
  SummaryRecord,
  SyncRecord,
} from "../../src/sim/timeline.js";

const start: StartRecord = {
  type: "start",
  schema: "horizon.dev/simulation/v1",
  scenario: "cpu-step",
  seed: 7,
  startTime: "2026-01-01T00:00:00Z",
  durationSeconds: 1800,
  controllerFlags: { "horizontal-pod-autoscaler-sync-period": "15s" },
  hpas: [
    {
      hpa: "default/web",
      target: "default/Deployment/web",
      minReplicas: 1,
      maxReplicas: 10,
      metrics: ["Resource cpu Utilization 50%"],
      scaleDownWindowSeconds: 300,
    },
  ],
};

const web: HpaSummary = {
  hpa: "default/web",
  minReplicas: 1,
  maxReplicas: 10,
  lowestReplicas: 1,
  highestReplicas: 4,
  finalReplicas: 1,
  podHours: 1.23456,
  scaleUps: 1,
  scaleDowns: 1,
  flaps: 0,
  unmetDemandPodSeconds: 45,
  unmetDemandSeconds: 30,
  timeToMeetDemandSeconds: [30, null],
  loadSteps: [
    { t: 300, fromRps: 100, toRps: 300 },
    { t: 900, fromRps: 300, toRps: 1000 },
  ],
  meanUtilization: 48.24,
  targetUtilization: 50,
  actions: [
    {
      t: 315,
      from: 1,
      to: 4,
      reason: "cpu resource utilization (percentage of request) above target",
      limit: "ScaleUpLimit",
    },
    { t: 1215, from: 4, to: 1, reason: "All metrics below target", limit: "DesiredWithinRange" },
  ],
};

const summary: SummaryRecord = { type: "summary", hpas: [web] };

const trace: DecisionTrace = {
  version: "horizon.dev/decision-trace/v1",
  hpa: { namespace: "default", name: "web" },
  time: "2026-01-01T00:05:15Z",
  scale: { specReplicas: 1, statusReplicas: 1, selector: "app=web" },
  branch: "metrics",
  minReplicas: 1,
  maxReplicas: 10,
  currentReplicas: 1,
  metrics: [
    {
      index: 0,
      type: "Resource",
      description: "cpu resource utilization (percentage of request)",
      target: { type: "Utilization", value: "50%" },
      proposal: 4,
      utilization: 180,
      current: "180m",
    },
    { index: 1, type: "Pods", reason: "FailedGetPodsMetric", error: "no metrics" },
  ],
  recommendation: 4,
  desiredReplicas: 4,
  rescale: true,
  rescaleReason: "cpu resource utilization (percentage of request) above target",
  outcome: "scaled",
};

const syncRecord: SyncRecord = {
  type: "sync",
  t: 315,
  hpa: "default/web",
  currentReplicas: 1,
  desiredReplicas: 4,
  scaled: true,
  conditions: [{ type: "AbleToScale", status: "True", reason: "SucceededRescale", message: "ok" }],
  events: [{ type: "Normal", reason: "SuccessfulRescale", message: "New size: 4; reason: x" }],
  error: null,
  trace,
};

const sampleRecord: SampleRecord = {
  type: "sample",
  t: 300,
  workload: "default/Deployment/web",
  demandRps: 300,
  servedRps: 100,
  specReplicas: 1,
  pods: 1,
  readyPods: 1,
  cpuUtilization: 180,
  metrics: { queue: 12, http_requests: 0.5 },
};

describe("formatSummaryTable", () => {
  test("a block per HPA with every measure and the actions timeline", () => {
    const expected = [
      'Simulation "cpu-step": seed 7, 30m0s from 2026-01-01T00:00:00Z',
      "",
      "HPA default/web → default/Deployment/web",
      "  bounds               1–10 replicas",
      "  metrics              Resource cpu Utilization 50%",
      "  replicas             lowest 1, highest 4, final 1",
      "  pod-hours            1.235",
      "  scaling actions      1 up, 1 down",
      "  flaps                0",
      "  unmet demand         45 pod-seconds over 30s",
      "  time to meet demand  30s after 5m0s (100 → 300 rps); never after 15m0s (300 → 1000 rps)",
      "  mean utilization     48.2% (target 50%)",
      "  scaling actions:",
      "    time    replicas  limit               reason",
      "    5m15s   1 → 4     ScaleUpLimit        cpu resource utilization (percentage of request) above target",
      "    20m15s  4 → 1     DesiredWithinRange  All metrics below target",
      "",
    ].join("\n");
    assert.equal(formatSummaryTable(summary, start), expected);
  });

  test("more than three load steps: their count, median and the worst three", () => {
    const steps = [30, null, 45, 15, 60, 30];
    const busy: HpaSummary = {
      ...web,
      timeToMeetDemandSeconds: steps,
      loadSteps: steps.map((_, i) => ({ t: 600 * (i + 1), fromRps: 10 * i, toRps: 10 * i + 50 })),
    };
    const text = formatSummaryTable({ type: "summary", hpas: [busy] }, start);
    const line = text.split("\n").find((l) => l.startsWith("  time to meet demand"));
    assert.equal(
      line,
      "  time to meet demand  6 load steps, median 30s, never met 1; worst: never after 20m0s " +
        "(10 → 60 rps); 1m0s after 50m0s (40 → 90 rps); 45s after 30m0s (20 → 70 rps)",
    );
  });

  test("no action, no load step, no cpu target, wall time", () => {
    const quiet: HpaSummary = {
      ...web,
      actions: [],
      scaleUps: 0,
      scaleDowns: 0,
      timeToMeetDemandSeconds: [],
      loadSteps: [],
      meanUtilization: null,
      targetUtilization: null,
    };
    const text = formatSummaryTable({ type: "summary", hpas: [quiet], wallMs: 1500 }, start);
    assert.match(text, /\n {2}time to meet demand {2}no load step\n/);
    assert.match(text, /\n {2}mean utilization {5}n\/a \(no cpu target\)\n/);
    assert.match(text, /\n {2}no scaling action\n/);
    assert.match(text, /\nwall time 1\.5s\n$/);
  });
});

describe("formatComparison", () => {
  test("side by side with signed deltas B − A", () => {
    const faster: HpaSummary = {
      ...web,
      highestReplicas: 3,
      podHours: 2,
      timeToMeetDemandSeconds: [45, 60],
      meanUtilization: null,
    };
    const text = formatComparison(
      { start, summary },
      { start, summary: { type: "summary", hpas: [faster] } },
      ["baseline", "faster"],
    );
    const lines = text.split("\n");
    const row = (label: string) =>
      lines
        .find((l) => l.startsWith(`  ${label} `))
        ?.trim()
        .split(/\s{2,}/);
    assert.deepEqual(row("measure"), ["measure", "baseline", "faster", "delta (B − A)"]);
    assert.deepEqual(row("highest replicas"), ["highest replicas", "4", "3", "-1"]);
    assert.deepEqual(row("pod-hours"), ["pod-hours", "1.235", "2", "+0.765"]);
    assert.deepEqual(row("flaps"), ["flaps", "0", "0", "0"]);
    assert.deepEqual(row("longest time to meet demand"), [
      "longest time to meet demand",
      "never",
      "1m0s",
      "n/a",
    ]);
    assert.deepEqual(row("mean utilization (%)"), ["mean utilization (%)", "48.2", "n/a", "n/a"]);
    assert.ok(lines.includes("  baseline scaling actions:"));
    assert.ok(lines.includes("  faster scaling actions:"));
  });

  test("an HPA only in one run shows '-' for the other", () => {
    const text = formatComparison(
      { start, summary },
      { start, summary: { type: "summary", hpas: [] } },
      ["a", "b"],
    );
    assert.match(text, / {2}highest replicas +4 +- +n\/a\n/);
  });
});

describe("JsonLinesWriter", () => {
  function lines(records: SimulationRecord[]): string[] {
    let out = "";
    const w = new JsonLinesWriter((chunk) => {
      out += chunk;
    });
    for (const r of records) w.write(r);
    assert.ok(out.endsWith("\n"));
    return out.slice(0, -1).split("\n");
  }

  test("one line per record, keys in the documented order", () => {
    const out = lines([
      start,
      sampleRecord,
      syncRecord,
      { type: "event", t: 600, event: "killPods", detail: "x" },
      summary,
    ]);
    assert.equal(out.length, 5);
    assert.ok(
      out[0]!.startsWith(
        '{"type":"start","schema":"horizon.dev/simulation/v1","scenario":"cpu-step","seed":7,',
      ),
    );
    assert.equal(
      out[1],
      '{"type":"sample","t":300,"workload":"default/Deployment/web","demandRps":300,"servedRps":100,"specReplicas":1,"pods":1,"readyPods":1,"cpuUtilization":180,"metrics":{"http_requests":0.5,"queue":12}}',
    );
    assert.ok(
      out[2]!.startsWith(
        '{"type":"sync","t":315,"hpa":"default/web","currentReplicas":1,"desiredReplicas":4,"scaled":true,"conditions":[{"type":"AbleToScale","status":"True","reason":"SucceededRescale","message":"ok"}],',
      ),
    );
    assert.ok(
      out[2]!.includes(
        '"trace":{"version":"horizon.dev/decision-trace/v1","hpa":{"namespace":"default","name":"web"},"time":',
      ),
    );
    assert.equal(out[3], '{"type":"event","t":600,"event":"killPods","detail":"x"}');
    assert.ok(
      out[4]!.startsWith(
        '{"type":"summary","hpas":[{"hpa":"default/web","minReplicas":1,"maxReplicas":10,"lowestReplicas":1,"highestReplicas":4,"finalReplicas":1,',
      ),
    );
    for (const line of out) JSON.parse(line);
  });

  test("the same record built in another key order gives the same bytes", () => {
    const shuffled = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(shuffled);
      if (value === null || typeof value !== "object") return value;
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .reverse()
          .map(([k, v]) => [k, shuffled(v)]),
      );
    };
    for (const r of [start, sampleRecord, syncRecord, summary] as SimulationRecord[]) {
      assert.deepEqual(lines([shuffled(r) as SimulationRecord]), lines([r]));
      assert.deepEqual(JSON.parse(lines([r])[0]!), r);
    }
  });

  test("unknown keys follow the known ones, sorted; undefined is left out", () => {
    const record = { ...sampleRecord, zeta: 1, alpha: 2, cpuUtilization: null, metrics: undefined };
    assert.equal(
      lines([record as unknown as SimulationRecord])[0],
      '{"type":"sample","t":300,"workload":"default/Deployment/web","demandRps":300,"servedRps":100,"specReplicas":1,"pods":1,"readyPods":1,"cpuUtilization":null,"alpha":2,"zeta":1}',
    );
  });

  test("property: stableStringify is JSON that parses back to the value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.deepEqual(JSON.parse(stableStringify(value)), JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe("CsvWriter", () => {
  test("a header, then a row per sample and per sync; other records give no row", () => {
    let out = "";
    const w = new CsvWriter((chunk) => {
      out += chunk;
    });
    w.write(start);
    w.write(sampleRecord);
    w.write(syncRecord);
    w.write({ type: "event", t: 600, event: "killPods", detail: "x" });
    w.write(summary);
    assert.equal(
      out,
      [
        CSV_COLUMNS.join(","),
        "sample,300,,default/Deployment/web,300,100,1,1,1,180,http_requests=0.5;queue=12,,,,,,,,",
        "sync,315,default/web,,,,,,,,0:180%/50%;1:error,1,4,4,true,scaled,cpu resource utilization (percentage of request) above target,,",
        "",
      ].join("\n"),
    );
    assert.equal(
      CSV_COLUMNS.join(","),
      "type,t,hpa,workload,demandRps,servedRps,specReplicas,pods,readyPods,cpuUtilization,metrics,currentReplicas,desiredReplicas,recommendation,scaled,outcome,reason,limit,error",
    );
  });

  const fields = [
    { name: "plain", value: "abc", csv: "abc" },
    { name: "comma", value: "a,b", csv: '"a,b"' },
    { name: "quote", value: 'say "hi"', csv: '"say ""hi"""' },
    { name: "newline", value: "a\nb", csv: '"a\nb"' },
    { name: "null", value: null, csv: "" },
    { name: "number", value: 1.5, csv: "1.5" },
  ];
  for (const f of fields) {
    test(`field: ${f.name}`, () => assert.equal(csvField(f.value), f.csv));
  }
});
