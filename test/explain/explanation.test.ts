// The one explainer: a decision trace becomes plain serializable facts (the winning metric,
// pods set aside, the window that held the count, the limit), and the text and HTML renderings
// read only those facts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decisionRecordOf } from "../../src/controller/decisions.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import type { DecisionTrace } from "../../src/core/trace.js";
import { replicaChange } from "../../src/explain/format.js";
import {
  EXPLANATION_VERSION,
  explain,
  explanationHtml,
  explanationNote,
  explanationSummary,
  explanationText,
  outcomeText,
} from "../../src/explain/index.js";
import { type ReportInput, syncReport } from "../controller/sync-reports.js";
import { cpuUsage, cpuUtilization, t } from "../core/builders.js";

/** Both pods at 100m of their 100m request. */
const cpu100 = resourceObservation(cpuUsage({ "web-0": 100, "web-1": 100 }, t(15)), "cpu");

const traceOf = (input: ReportInput): DecisionTrace => syncReport(input).result!.trace;

describe("explain: the facts of a decision", () => {
  const cases: {
    name: string;
    report: ReportInput;
    /** A projection of the explanation and what it must be. */
    facts: (e: ReturnType<typeof explain>) => unknown;
    expected: unknown;
  }[] = [
    {
      name: "the winning metric of several",
      report: {
        replicas: 2,
        metrics: [cpuUtilization(50), cpuUtilization(100)],
        observations: [cpu100, cpu100],
      },
      facts: (e) => ({
        recommendation: e.recommendation,
        winners: e.metrics.map((m) => m.winner),
        proposals: e.metrics.map((m) => m.proposal),
      }),
      expected: {
        recommendation: {
          replicas: 4,
          metric: "cpu resource utilization (percentage of request)",
        },
        // Both metrics have the same description: both are named as the winner upstream would name.
        winners: [true, true],
        proposals: [4, 2],
      },
    },
    {
      name: "pods without metrics are set aside, by name",
      report: {
        replicas: 3,
        observations: [resourceObservation(cpuUsage({ "web-0": 100 }, t(15)), "cpu")],
      },
      facts: (e) => e.metrics[0]?.pods,
      // Ready counts the pods with a sample (upstream's readyPodCount).
      expected: { count: 3, ready: 1, unready: [], missing: ["web-1", "web-2"], ignored: [] },
    },
    {
      name: "a failed metric: its reason and error, no proposal",
      report: { observations: [{ kind: "error", error: "metrics API down" }] },
      facts: (e) => ({
        failure: e.metrics[0]?.failure,
        proposal: e.metrics[0]?.proposal,
        failed: e.failedMetrics,
        recommendation: e.recommendation,
      }),
      expected: {
        failure: {
          reason: "FailedGetResourceMetric",
          error:
            "failed to get cpu utilization: unable to get metrics for resource cpu: metrics API down",
        },
        proposal: undefined,
        failed: 1,
        recommendation: null,
      },
    },
    {
      name: "the legacy downscale window holds a scale-down",
      report: { replicas: 4, cpuPerPodMilli: 10 },
      facts: (e) => ({
        heldBy: e.stabilization?.heldBy,
        from: e.stabilization?.recommendation,
        to: e.stabilization?.stabilized,
      }),
      expected: { heldBy: "scaleDown", from: 1, to: 4 },
    },
    {
      name: "a behavior scale-up policy bounds the count",
      report: {
        replicas: 4,
        cpuPerPodMilli: 200,
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: 0,
            selectPolicy: "Max",
            policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
          },
        },
      },
      facts: (e) => ({
        reason: e.limit?.reason,
        direction: e.limit?.direction,
        from: e.limit?.from,
        policyLimit: e.limit?.policyLimit,
        desired: e.desiredReplicas,
      }),
      expected: {
        reason: "ScaleUpLimit",
        direction: "scaleUp",
        from: 16,
        policyLimit: 5,
        desired: 5,
      },
    },
    {
      name: "an unreadable scale",
      report: { scaleError: 'deployments.apps "web" not found' },
      facts: (e) => ({ target: e.target, outcome: e.outcome }),
      expected: { target: { error: 'deployments.apps "web" not found' }, outcome: "failed" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = explain(traceOf(c.report));
      assert.equal(e.version, EXPLANATION_VERSION);
      assert.deepEqual(c.facts(e), c.expected);
    });
  }

  it("is plain data: it survives JSON unchanged", () => {
    for (const c of cases) {
      const e = explain(traceOf(c.report));
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e, c.name);
    }
  });

  it("does not share objects with the trace", () => {
    const trace = traceOf({ replicas: 4, cpuPerPodMilli: 200 });
    const before = JSON.stringify(trace);
    const e = explain(trace);
    e.metrics[0]!.pods!.missing.push("x");
    if (e.limit) e.limit.reason = "changed";
    assert.equal(JSON.stringify(trace), before);
  });
});

describe("renderings of one explanation", () => {
  it("text: the outcome, the reasons, and a short note", () => {
    const e = explain(traceOf({ replicas: 2, cpuPerPodMilli: 500 }));
    assert.equal(
      outcomeText(e),
      "Scaled from 2 to 4 replicas (reason: cpu resource utilization (percentage of request) above target).",
    );
    const text = explanationText(e);
    assert.ok(text.includes("Desired 4 differs from current 2: the scale is updated."));
    assert.ok(text.some((l) => l.includes("max(2 × 2, 4) = 4 (ScaleUpLimit)")));
    assert.equal(
      explanationNote(e),
      "cpu resource utilization (percentage of request) above target; ScaleUpLimit",
    );
  });

  it("the text of `horizon explain` is the text rendering of the record's trace", async () => {
    const { explainDecision } = await import("../../src/explain/decisions.js");
    const result = syncReport({ replicas: 4, cpuPerPodMilli: 10 }).result!;
    assert.deepEqual(
      explainDecision(decisionRecordOf(result)),
      explanationText(explain(result.trace)),
    );
  });

  it("HTML: the summary lines as a list, escaped", () => {
    const e = explain(traceOf({ scaleError: 'deployments.apps "<web>" not found' }));
    const html = explanationHtml(e);
    assert.equal(
      html,
      `<ul>${explanationSummary(e)
        .map(
          (l) =>
            `<li>${l.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")}</li>`,
        )
        .join("")}</ul>`,
    );
    assert.ok(html.includes("&lt;web&gt;"));
    assert.ok(!html.includes("<web>"));
  });
});

describe("replicaChange", () => {
  const cases: {
    name: string;
    sync: Parameters<typeof replicaChange>[0];
    want: string;
  }[] = [
    {
      name: "scaled",
      sync: { outcome: "scaled", currentReplicas: 4, desiredReplicas: 6 },
      want: "4 → 6",
    },
    {
      name: "kept",
      sync: { outcome: "unchanged", currentReplicas: 4, desiredReplicas: 4 },
      want: "4",
    },
    {
      name: "failed: the status's old desired count is not shown",
      sync: { outcome: "failed", currentReplicas: 1, desiredReplicas: 0 },
      want: "1",
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(replicaChange(c.sync), c.want));
});
