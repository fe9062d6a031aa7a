import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { DecisionTrace } from "../../src/core/trace.js";
import { MeasureCollector } from "../../src/sim/measures.js";
import {
  explainTrace,
  MAX_POINTS_PER_SERIES,
  metricPoint,
  ReportBuilder,
  Series,
} from "../../src/sim/report.js";
import type { SimulationRecord, StartRecord, SummaryRecord } from "../../src/sim/timeline.js";

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

function assertWellFormed(html: string) {
  assert.ok(html.startsWith('<!DOCTYPE html>\n<html lang="en">'));
  assert.ok(html.trimEnd().endsWith("</html>"));
  for (const tag of [
    "svg",
    "figure",
    "details",
    "section",
    "table",
    "script",
    "style",
    "a",
    "ul",
    "pre",
  ]) {
    assert.equal(
      count(html, new RegExp(`<${tag}[\\s>]`, "g")),
      count(html, new RegExp(`</${tag}>`, "g")),
      `<${tag}> opened and closed`,
    );
  }
  // Self-contained: no network reference of any kind, no external script, stylesheet or font.
  assert.ok(!/https?:\/\//.test(html), "no http(s) URL");
  assert.ok(!/<script[^>]*\ssrc=/.test(html));
  assert.ok(!/<link[\s>]/.test(html));
  assert.ok(!/@import|url\(/.test(html));
  for (const m of html.matchAll(/\shref="([^"]*)"/g)) assert.ok(m[1]!.startsWith("#"), m[1]);
}

describe("ReportBuilder", () => {
  const actions = new Map([
    [135, 3],
    [150, 4],
    [465, 1],
  ]);

  test("one page with a chart per view and every action's trace", () => {
    const { builder, summary } = build(run(600, actions));
    const html = builder.html(summary);
    assertWellFormed(html);
    // load, replicas, metric 0, metric 1, cpu, workload metrics, events and conditions
    assert.equal(count(html, /<svg[\s>]/g), 7);
    assert.equal(count(html, /<figure>/g), 7);
    for (const caption of [
      "Load: demand vs served (requests/s)",
      "Replicas: current (spec.replicas), desired, ready, pods",
      "Metric 0: cpu resource utilization (percentage of request) (% of request) vs target",
      "Metric 1: pods metric http_requests vs target",
      "Events and condition changes",
    ]) {
      assert.ok(html.includes(`<figcaption>${caption}</figcaption>`), caption);
    }
    // Every action: a marker linking to a collapsible trace with its JSON and its explanation.
    assert.equal(count(html, /<details class="trace" id="action-0-default-web-\d+">/g), 3);
    for (let k = 0; k < 3; k++) assert.ok(html.includes(`href="#action-0-default-web-${k}"`));
    assert.equal(count(html, /&quot;rescaleReason&quot;: &quot;/g), 3);
    assert.ok(
      html.includes("1 → 3 — cpu resource utilization (percentage of request) above target"),
    );
    assert.ok(
      html.includes(
        "<li>Recommendation: 3 (from cpu resource utilization (percentage of request)).</li>",
      ),
    );
    // Scenario event text is escaped; events are aggregated like Kubernetes does.
    assert.ok(html.includes("step to 300 rps &lt;now&gt;"));
    assert.ok(!html.includes("<now>"));
    assert.ok(html.includes("(×2, last at 45s)"));
    // The summary row.
    assert.ok(html.includes('<a href="#hpa-default-web">default/web</a>'));
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
    const html = builder.html(summary);
    assertWellFormed(html);
    const paths = [...html.matchAll(/<path class="series" d="([^"]*)"/g)].map((m) => m[1]!);
    assert.ok(paths.length >= 8);
    for (const d of paths) {
      const points = count(d, /[MLV]/g);
      assert.ok(points <= MAX_POINTS_PER_SERIES, `${points} points`);
    }
    assert.equal(count(html, /<details class="trace"/g), many.size);
    assert.equal(summary.hpas[0]!.actions.length, many.size);
  });

  test("a comparison draws both runs on the same axes with the deltas", () => {
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
    const html = a.builder.html(a.summary);
    assertWellFormed(html);
    assert.ok(html.includes("<title>Horizon simulation: before vs after</title>"));
    assert.ok(html.includes("<th>delta (after − before)</th>"));
    // highest replicas 4 in both; scale-ups 2 → 1.
    assert.ok(
      html.includes(
        '<tr><th>highest replicas</th><td class="num">4</td><td class="num">4</td><td class="num">0</td></tr>',
      ),
    );
    assert.ok(
      html.includes(
        '<tr><th>scale-ups</th><td class="num">2</td><td class="num">1</td><td class="num">-1</td></tr>',
      ),
    );
    // Same x axis, up to the longer run (900 s: ticks every 2m0s up to 14m0s).
    assert.ok(html.includes(">14m0s</text>"), "axis covers the longer run");
    assert.ok(html.includes("before: demand") && html.includes("after: demand"));
    assert.ok(html.includes('stroke-dasharray="6 4"'));
    assert.equal(count(html, /<details class="trace" id="action-0-/g), 3);
    assert.equal(count(html, /<details class="trace" id="action-1-/g), 2);
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
      "cpu resource utilization (percentage of request): current 70m (70% of request) vs target Utilization 50%; usage ratio 1.4 (band 0.9–1.1); ceil(ratio × ready pods); 3 pods, 3 ready, 0 unready, 0 missing, 0 ignored → proposes 4.",
      "pods metric http_requests: current 250m vs target AverageValue 500m → proposes 1.",
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
