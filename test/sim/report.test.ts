import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { DecisionTrace } from "../../src/core/trace.js";
import { MeasureCollector } from "../../src/sim/measures.js";
import {
  explainTrace,
  MAX_POINTS_PER_SERIES,
  metricPoint,
  ReportBuilder,
  type ReportDocument,
  Series,
} from "../../src/sim/report.js";
import type { SimulationRecord, StartRecord, SummaryRecord } from "../../src/sim/timeline.js";
import { reportHtml } from "../../src/web/report.js";

const WORKLOAD = "default/Deployment/web";

function start(durationSeconds: number, scenario = "cpu-step"): StartRecord {
  return {
    type: "start",
    schema: "horizon.dev/simulation/v1",
    scenario,
    seed: 1,
    startTime: "2026-01-01T00:00:00Z",
    durationSeconds,
    controllerFlags: { "horizontal-pod-autoscaler-sync-period": "15s" },
    hpas: [
      {
        hpa: "default/web",
        target: WORKLOAD,
        minReplicas: 1,
        maxReplicas: 10,
        metrics: ["Resource cpu Utilization 50%", "Pods http_requests AverageValue 500m"],
        scaleDownWindowSeconds: 300,
      },
    ],
  };
}

function trace(t: number, from: number, to: number, utilization: number): DecisionTrace {
  const rescale = from !== to;
  return {
    version: "horizon.dev/decision-trace/v1",
    hpa: { namespace: "default", name: "web" },
    time: new Date(Date.UTC(2026, 0, 1) + t * 1000).toISOString(),
    scale: { specReplicas: from, statusReplicas: from, selector: "app=web" },
    branch: "metrics",
    minReplicas: 1,
    maxReplicas: 10,
    currentReplicas: from,
    metrics: [
      {
        index: 0,
        type: "Resource",
        description: "cpu resource utilization (percentage of request)",
        target: { type: "Utilization", value: "50%" },
        proposal: to,
        utilization,
        current: `${utilization}m`,
        calculation: {
          path: "direct",
          usageRatio: utilization / 50,
          tolerances: { scaleUp: 0.1, scaleDown: 0.1 },
          podCount: from,
          readyPodCount: from,
          ignoredPods: [],
          unreadyPods: [],
          missingPods: [],
        },
      },
      {
        index: 1,
        type: "Pods",
        description: "pods metric http_requests",
        target: { type: "AverageValue", value: "500m" },
        proposal: 1,
        current: "250m",
      },
    ],
    recommendation: to,
    recommendationMetric: "cpu resource utilization (percentage of request)",
    stabilization: {
      path: "legacy",
      recommendation: to,
      stabilized: to,
      reason: "ReadyForNewScale",
      windowSeconds: 300,
    },
    limit: {
      reason: to > from * 2 ? "ScaleUpLimit" : "DesiredWithinRange",
      message: "the desired count is within the acceptable range",
      legacyScaleUpLimit: Math.max(2 * from, 4),
    },
    desiredReplicas: to,
    rescale,
    ...(rescale
      ? {
          rescaleReason:
            to > from
              ? "cpu resource utilization (percentage of request) above target"
              : "All metrics below target",
        }
      : {}),
    outcome: rescale ? "scaled" : "unchanged",
  };
}

/** A run: load steps from 100 to 300 rps at 120 s, back at 400 s; actions at the given times. */
function run(
  durationSeconds: number,
  actions: Map<number, number>,
  scenario = "cpu-step",
): { start: StartRecord; records: SimulationRecord[] } {
  const s = start(durationSeconds, scenario);
  const records: SimulationRecord[] = [
    s,
    { type: "event", t: 120, event: "setTraffic", detail: "step to 300 rps <now>" },
  ];
  let replicas = 1;
  for (let t = 0; t <= durationSeconds; t += 15) {
    const demand = t >= 120 && t < 400 ? 300 : 100;
    if (t > 0) {
      const to = actions.get(t) ?? replicas;
      const util = Math.round((demand / replicas) * 0.5);
      records.push({
        type: "sync",
        t,
        hpa: "default/web",
        currentReplicas: replicas,
        desiredReplicas: to,
        scaled: to !== replicas,
        conditions: [
          {
            type: "AbleToScale",
            status: "True",
            reason: to !== replicas ? "SucceededRescale" : "ReadyForNewScale",
            message: "m",
          },
          { type: "ScalingActive", status: "True", reason: "ValidMetricFound", message: "m" },
        ],
        events:
          to !== replicas
            ? [{ type: "Normal", reason: "SuccessfulRescale", message: `New size: ${to}` }]
            : t === 30 || t === 45
              ? [{ type: "Warning", reason: "FailedGetPodsMetric", message: "no metrics" }]
              : [],
        error: null,
        trace: trace(t, replicas, to, util),
      });
      replicas = to;
    }
    records.push({
      type: "sample",
      t,
      workload: WORKLOAD,
      demandRps: demand,
      servedRps: Math.min(demand, replicas * 100),
      specReplicas: replicas,
      pods: replicas,
      readyPods: replicas,
      cpuUtilization: (demand / replicas) * 0.5,
      metrics: { http_requests: Math.min(demand, replicas * 100) / replicas },
    });
  }
  return { start: s, records };
}

function build(r: { start: StartRecord; records: SimulationRecord[] }): {
  builder: ReportBuilder;
  summary: SummaryRecord;
} {
  const builder = new ReportBuilder(r.start);
  const measures = new MeasureCollector(r.start);
  for (const rec of r.records) {
    builder.add(rec);
    measures.add(rec);
  }
  return { builder, summary: measures.summary() };
}

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

/** The page of a document: the built bundle (pretest builds it) with the document inline. */
function page(doc: ReportDocument): string {
  const built = reportHtml(doc);
  assert.ok(built.ok, built.ok ? "" : built.error);
  return built.html;
}

function assertSelfContained(html: string) {
  assert.ok(html.startsWith('<!DOCTYPE html>\n<html lang="en">'));
  assert.ok(html.trimEnd().endsWith("</html>"));
  // One inline module script, one inline style, the document as JSON: nothing fetched.
  assert.equal(count(html, /<script[\s>]/g), 2);
  assert.equal(count(html, /<\/script>/g), 2);
  assert.equal(count(html, /<style>/g), 1);
  assert.ok(!/<script[^>]*\ssrc=/.test(html));
  assert.ok(!/<link[\s>]/.test(html));
  assert.ok(!/@import|url\(/.test(html));
  // The only http(s) URLs are XML namespace names (Preact creates SVG and MathML elements).
  const urls = new Set(html.match(/https?:\/\/[^\s"'`)]*/g) ?? []);
  for (const url of urls) {
    assert.match(url, /^http:\/\/www\.w3\.org\/(1999\/xhtml|2000\/svg|1998\/Math\/MathML)$/, url);
  }
  // The Content-Security-Policy allows exactly this script and this style, and nothing else.
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(csp, "a Content-Security-Policy");
  assert.match(csp, /default-src 'none'/);
  const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
  const script = /<script type="module">([\s\S]*)<\/script>\n<\/body>/.exec(html)?.[1];
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1];
  assert.ok(script !== undefined && style !== undefined);
  assert.ok(csp.includes(`script-src ${hash(script)}`), "the script's hash");
  assert.ok(csp.includes(`style-src ${hash(style)}`), "the style's hash");
}

/** The document back from the page, as the browser reads it. */
function documentOf(html: string): ReportDocument {
  const json = /<script type="application\/json" id="horizon-report">([^<]*)<\/script>/.exec(html);
  assert.ok(json, "the document block");
  return JSON.parse(json[1]!) as ReportDocument;
}

describe("ReportBuilder", () => {
  const actions = new Map([
    [135, 3],
    [150, 4],
    [465, 1],
  ]);

  test("one page with every view's series and every action's explained trace", () => {
    const { builder, summary } = build(run(600, actions));
    const html = page(builder.document(summary));
    assertSelfContained(html);
    // What the page renders is the document, escaped where it is text ("<now>" only as JSON).
    assert.ok(!html.includes("<now>"));
    const doc = documentOf(html);
    assert.equal(doc.title, "Horizon simulation: cpu-step");
    assert.deepEqual(doc.hpas, ["default/web"]);
    assert.equal(doc.durationSeconds, 600);
    const [only] = doc.runs;
    const hpa = only!.hpas["default/web"]!;
    assert.equal(hpa.target, WORKLOAD);
    // load, replicas, metric 0, metric 1, cpu, workload metrics: each has its points.
    const w = only!.workloads[WORKLOAD]!;
    for (const series of [w.demand, w.served, w.spec, w.pods, w.ready, w.cpu, hpa.desired]) {
      assert.ok(series.length > 0);
    }
    assert.deepEqual(Object.keys(w.sampleMetrics), ["http_requests"]);
    assert.deepEqual(
      hpa.metrics.map((m) => `${m.index}: ${m.label} [${m.unit}]`),
      [
        // Named as explain and the dashboard name them: 1-based, with the metric's type.
        "0: Metric 1 (Resource, cpu resource utilization (percentage of request)) [% of request]",
        "1: Metric 2 (Pods, pods metric http_requests) []",
      ],
    );
    // The demand steps to 300 at 120 s and back at 400 s (samples every 15 s).
    assert.deepEqual(
      w.demand.filter(([t]) => [105, 120, 390, 405].includes(t)),
      [
        [105, 100],
        [120, 300],
        [390, 300],
        [405, 100],
      ],
    );
    // Every action: its explanation (src/explain, as the dashboard's) and its trace.
    assert.deepEqual(
      hpa.actions.map((a) => [a.t, a.from, a.to]),
      [
        [135, 1, 3],
        [150, 3, 4],
        [465, 4, 1],
      ],
    );
    assert.equal(
      hpa.actions[0]!.reason,
      "cpu resource utilization (percentage of request) above target",
    );
    assert.ok(
      hpa.actions[0]!.explanation.includes(
        "Desired 3 differs from current 1: the scale is updated.",
      ),
      hpa.actions[0]!.explanation.join("\n"),
    );
    assert.equal(
      (hpa.actions[2]!.trace as { rescaleReason: string }).rescaleReason,
      "All metrics below target",
    );
    // Events are aggregated as Kubernetes does; scenario events kept as written.
    const warning = hpa.events.find((e) => e.reason === "FailedGetPodsMetric")!;
    assert.deepEqual([warning.t, warning.count, warning.lastT], [30, 2, 45]);
    assert.equal(only!.scenarioEvents[0]!.detail, "step to 300 rps <now>");
    // The summary row of the one HPA.
    assert.equal(doc.summary.length, 1);
    assert.equal(doc.summary[0]!.rows[0]!.hpa, "default/web");
    assert.equal(doc.summary[0]!.rows[0]!.cells[0], "1–10");
  });

  test("long runs keep at most 2,000 points per series and every action", () => {
    const day = 86_400;
    const many = new Map<number, number>();
    let r = 1;
    for (let t = 600; t < day; t += 1800) {
      r = r === 1 ? 5 : 1;
      many.set(t, r);
    }
    const { builder, summary } = build(run(day, many));
    const doc = documentOf(page(builder.document(summary)));
    const hpa = doc.runs[0]!.hpas["default/web"]!;
    const w = doc.runs[0]!.workloads[WORKLOAD]!;
    const series = [
      w.demand,
      w.served,
      w.spec,
      w.pods,
      w.ready,
      w.cpu,
      hpa.desired,
      hpa.current,
      ...hpa.metrics.flatMap((m) => [m.current, m.target]),
    ];
    assert.ok(series.length >= 8);
    for (const points of series) {
      assert.ok(points.length <= MAX_POINTS_PER_SERIES, `${points.length} points`);
      // Far fewer than the 5,760 samples of the day: decimated.
      assert.ok(points.length < 5760);
    }
    assert.equal(hpa.actions.length, many.size);
    assert.equal(summary.hpas[0]!.actions.length, many.size);
  });

  test("a comparison carries both runs on one time axis with the deltas", () => {
    const a = build(run(600, actions, "baseline"));
    const b = build(
      run(
        900,
        new Map([
          [135, 4],
          [510, 1],
        ]),
        "candidate",
      ),
    );
    a.builder.addComparison(b.builder, b.summary, ["before", "after"]);
    const html = page(a.builder.document(a.summary));
    assertSelfContained(html);
    assert.ok(html.includes("<title>Horizon simulation: before vs after</title>"));
    const doc = documentOf(html);
    assert.deepEqual(
      doc.runs.map((r) => [r.label, r.start.scenario, r.start.durationSeconds]),
      [
        ["before", "baseline", 600],
        ["after", "candidate", 900],
      ],
    );
    // Same x axis, up to the longer run.
    assert.equal(doc.durationSeconds, 900);
    const [table] = doc.summary;
    assert.deepEqual(table!.head, ["measure", "before", "after", "delta (after − before)"]);
    // highest replicas 4 in both; scale-ups 2 → 1.
    const row = (label: string) => table!.rows.find((r) => r.head === label)?.cells;
    assert.deepEqual(row("highest replicas"), ["4", "4", "0"]);
    assert.deepEqual(row("scale-ups"), ["2", "1", "-1"]);
    assert.equal(doc.runs[0]!.hpas["default/web"]!.actions.length, 3);
    assert.equal(doc.runs[1]!.hpas["default/web"]!.actions.length, 2);
  });

  test("without a built bundle the report names the build step", () => {
    const { builder, summary } = build(run(60, new Map()));
    const built = reportHtml(builder.document(summary), join(tmpdir(), "horizon-no-bundle"));
    assert.equal(built.ok, false);
    assert.match(built.ok ? "" : built.error, /npm run build:web/);
  });
});

describe("Series", () => {
  test("property: bounded, in time order, and keeps the extremes", () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 5000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (values, duration) => {
          const s = new Series(duration);
          values.forEach((v, i) => {
            s.add((i * duration) / values.length, v);
          });
          const points = s.points();
          assert.ok(points.length <= MAX_POINTS_PER_SERIES);
          for (let i = 1; i < points.length; i++) assert.ok(points[i]![0] >= points[i - 1]![0]);
          const vs = points.map((p) => p[1]);
          assert.equal(Math.max(...vs), Math.max(...values));
          assert.equal(Math.min(...vs), Math.min(...values));
          if (values.length <= 500) assert.equal(points.length, values.length);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("explainTrace and metricPoint", () => {
  test("the explanation walks the decision in order", () => {
    const lines = explainTrace(trace(150, 3, 4, 70));
    assert.deepEqual(lines, [
      "Scale: spec.replicas 3, status.replicas 3, selector app=web; bounds 1–10.",
      "The metrics were read (the normal path).",
      "Metric 1 (Resource, cpu resource utilization (percentage of request)): current 70m (70% of request) vs target Utilization 50%; usage ratio 1.4 (band 0.9–1.1); ceil(ratio × ready pods); 3 pods, 3 ready, 0 unready, 0 missing, 0 ignored → proposes 4.",
      "Metric 2 (Pods, pods metric http_requests): current 250m vs target AverageValue 500m → proposes 1.",
      "Recommendation: 4 (from cpu resource utilization (percentage of request)).",
      "Stabilization (no behavior: 300s downscale window): 4 → 4 (ReadyForNewScale).",
      "Limit: DesiredWithinRange: the desired count is within the acceptable range; legacy scale-up limit 6.",
      "Decision: desired 4 from current 3; rescale: cpu resource utilization (percentage of request) above target; outcome scaled.",
    ]);
  });

  const points = [
    {
      name: "Utilization: percent vs percent",
      metric: {
        index: 0,
        type: "Resource",
        target: { type: "Utilization", value: "50%" },
        utilization: 37,
        current: "75m",
      },
      expected: { current: 37, target: 50, unit: "% of request" },
    },
    {
      name: "AverageValue: quantities",
      metric: {
        index: 1,
        type: "Pods",
        target: { type: "AverageValue", value: "500m" },
        current: "1500m",
      },
      expected: { current: 1.5, target: 0.5, unit: "" },
    },
    {
      name: "failed metric: nothing",
      metric: { index: 1, type: "Pods", reason: "FailedGetPodsMetric", error: "x" },
      expected: { current: null, target: null, unit: "" },
    },
  ];
  for (const p of points) test(p.name, () => assert.deepEqual(metricPoint(p.metric), p.expected));
});
