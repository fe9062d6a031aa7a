// horizon.dev/predictive on the pure core: its annotations, and syncs stepped by a fake clock
// over a daily ramp, each compared with upstream's reactive decision on the same input.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { annotationFieldIssues, parseExtensions } from "../../src/core/extensions/annotations.js";
import { syncExtendedOnce } from "../../src/core/extensions/sync.js";
import { DAY_MS } from "../../src/core/forecast.js";
import { EMPTY_HISTORY, type HpaHistory } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import { decideSync, type SyncInput, type SyncResult } from "../../src/core/sync.js";
import { explain, explanationText } from "../../src/explain/index.js";
import { cpuUsage, hpa, pods } from "./builders.js";

const HOUR = 3_600_000;
/** Midnight UTC, so that the ramp's hours read as clock times. */
const MIDNIGHT = Date.UTC(2026, 0, 5);

function annotated(annotations: Record<string, string>): HorizontalPodAutoscaler {
  const base = setDefaultsHorizontalPodAutoscaler(hpa({ minReplicas: 2, maxReplicas: 40 }));
  return { ...base, metadata: { ...base.metadata, annotations } };
}

/** Total CPU demand (millicores): 150m at night, 1,450m at 14:00 (request 100m, target 50%). */
function demand(t: number): number {
  const hour = ((t - MIDNIGHT) % DAY_MS) / HOUR;
  return 800 - 650 * Math.cos(((hour - 2) / 24) * 2 * Math.PI);
}

function input(h: HorizontalPodAutoscaler, replicas: number, now: number, history: HpaHistory) {
  const list = pods(replicas);
  const perPod = Math.round(demand(now) / replicas);
  const usage = Object.fromEntries(list.map((p) => [p.name, perPod]));
  return {
    now,
    hpa: h,
    scale: { ok: true, specReplicas: replicas, statusReplicas: replicas, selector: "app=web" },
    pods: list,
    observations: [resourceObservation(cpuUsage(usage, now), "cpu")],
    history,
    config: defaultControllerConfig(),
  } satisfies SyncInput;
}

interface Step {
  now: number;
  result: SyncResult;
  /** Upstream's decision on the same input and history. */
  reactive: number;
}

/** Syncs every 15 s from midnight for `ms`; the target reaches each decision at once. */
function run(annotations: Record<string, string>, ms: number): Step[] {
  let h = annotated(annotations);
  const plain = annotated({});
  let history: HpaHistory = EMPTY_HISTORY;
  let replicas = 2;
  const steps: Step[] = [];
  for (let now = MIDNIGHT; now <= MIDNIGHT + ms; now += 15_000) {
    const sync = input(h, replicas, now, history);
    const reactive = decideSync({ ...sync, hpa: { ...plain, status: h.status } }).desiredReplicas;
    const result = syncExtendedOnce(sync);
    steps.push({ now, result, reactive });
    history = result.history;
    replicas = result.desiredReplicas;
    h = { ...h, status: result.status };
  }
  return steps;
}

const predictiveCondition = (r: SyncResult) =>
  r.status.conditions?.find((c) => c.type === "PredictiveActive");

describe("horizon.dev/predictive annotations", () => {
  const cases: {
    name: string;
    annotations: Record<string, string>;
    errors?: [string, RegExp][];
    predictive?: object;
  }[] = [
    {
      name: "defaults: a daily season, 7 days of history, the lead derived, scaling",
      annotations: { "horizon.dev/predictive": "true" },
      predictive: {
        leadMs: null,
        seasonsMs: [DAY_MS],
        historyMs: 7 * DAY_MS,
        mode: "scale",
        model: "demand",
      },
    },
    {
      name: "every key set",
      annotations: {
        "horizon.dev/predictive": "true",
        "horizon.dev/predictive-lead": "2m",
        "horizon.dev/predictive-seasons": "7d, 1d",
        "horizon.dev/predictive-history": "14d",
        "horizon.dev/predictive-mode": "forecast-only",
        "horizon.dev/predictive-model": "replicas-holt-winters",
      },
      predictive: {
        leadMs: 120_000,
        seasonsMs: [DAY_MS, 7 * DAY_MS],
        historyMs: 14 * DAY_MS,
        mode: "forecast-only",
        model: "replicas-holt-winters",
      },
    },
    {
      name: "bad values name their annotation",
      annotations: {
        "horizon.dev/predictive": "true",
        "horizon.dev/predictive-lead": "soon",
        "horizon.dev/predictive-seasons": "1d,36h",
        "horizon.dev/predictive-history": "2h",
        "horizon.dev/predictive-mode": "auto",
        "horizon.dev/predictive-model": "lstm",
      },
      errors: [
        ["horizon.dev/predictive-history", /shorter than the shortest season/],
        ["horizon.dev/predictive-lead", /invalid value "soon"/],
        ["horizon.dev/predictive-mode", /"scale" \(the default\) or "forecast-only"/],
        ["horizon.dev/predictive-model", /unsupported value "lstm"/],
        ["horizon.dev/predictive-seasons", /whole multiple of the shortest/],
      ],
    },
    {
      name: 'a key without horizon.dev/predictive: "true"',
      annotations: { "horizon.dev/predictive": "false", "horizon.dev/predictive-lead": "90s" },
      errors: [["horizon.dev/predictive-lead", /needs horizon.dev\/predictive: "true"/]],
    },
    {
      name: "not a boolean",
      annotations: { "horizon.dev/predictive": "yes" },
      errors: [["horizon.dev/predictive", /must be "true" or "false"/]],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parsed = parseExtensions(c.annotations);
      if (c.errors) {
        const errors = [...parsed.errors].sort((a, b) => a.annotation.localeCompare(b.annotation));
        assert.equal(errors.length, c.errors.length, JSON.stringify(errors));
        c.errors.forEach(([annotation, message], i) => {
          assert.equal(errors[i]!.annotation, annotation);
          assert.match(errors[i]!.message, message);
        });
      } else {
        assert.deepEqual(parsed.errors, []);
        assert.deepEqual(parsed.extensions?.predictive, c.predictive);
      }
    });
  }
});

describe("horizon.dev/predictive as the API server and horizon validate check it", () => {
  it("a bad value is a field error at metadata.annotations[key] with the value", () => {
    const issues = annotationFieldIssues(
      annotated({ "horizon.dev/predictive": "true", "horizon.dev/predictive-mode": "auto" }),
    );
    assert.deepEqual(issues.errors, [
      {
        type: "FieldValueInvalid",
        field: "metadata.annotations[horizon.dev/predictive-mode]",
        badValue: "auto",
        detail: 'unsupported value "auto": must be "scale" (the default) or "forecast-only"',
      },
    ]);
  });
});

describe("horizon.dev/predictive syncs (fake clock, a daily ramp)", () => {
  const steps = run({ "horizon.dev/predictive": "true" }, DAY_MS + 12 * HOUR);

  it("reactive with too little history, and says why: condition, one Event, the trace", () => {
    const first = steps[0]!.result;
    const condition = predictiveCondition(first);
    assert.equal(condition?.status, "False");
    assert.equal(condition?.reason, "InsufficientHistory");
    assert.match(condition?.message ?? "", /the model needs one full season \(1d\): reactive/);
    const events = steps
      .slice(0, 100)
      .flatMap((s) => s.result.events.filter((e) => e.reason.startsWith("Predictive")));
    assert.equal(events.length, 1, "one Event as the reason is first set");
    const entry = first.trace.extensions?.find((x) => x.annotation === "horizon.dev/predictive");
    assert.equal(entry?.reason, "InsufficientHistory");
    for (const s of steps.filter((x) => x.now < MIDNIGHT + DAY_MS)) {
      assert.equal(s.result.desiredReplicas, s.reactive, "reactive during the first day");
    }
  });

  it("after a day it scales ahead of the morning ramp, and says so", () => {
    const day2 = steps.filter((s) => s.now >= MIDNIGHT + DAY_MS + HOUR);
    assert.ok(day2.every((s) => predictiveCondition(s.result)?.reason === "ForecastActive"));
    const ahead = day2.filter((s) => s.result.desiredReplicas > s.reactive);
    assert.ok(ahead.length > 20, `ahead of upstream at ${ahead.length} syncs`);
    const scaled = ahead.find((s) => s.result.scaleUpdated);
    assert.ok(scaled);
    const entry = scaled.result.trace.extensions!.find(
      (x) => x.annotation === "horizon.dev/predictive",
    )!;
    assert.match(
      entry.message,
      /^scaled to \d+ ahead of a forecast of [\d.]+ pods' cpu requests at \d\d:\d\d, \d+ s away, needs \d+$/,
    );
    assert.equal(entry.replicas, scaled.result.desiredReplicas);
    assert.equal(scaled.result.trace.recommendationMetric?.startsWith("forecast of cpu"), true);
    // The lead: the pods' start-to-ready (100 s) plus the 15 s sync period.
    assert.match(entry.message, / 115 s away/);
    const text = explanationText(explain(scaled.result.trace));
    assert.match(
      text.at(-1)!,
      /^Extension horizon\.dev\/predictive \(ForecastActive\): scaled to (\d+) ahead of a forecast of .* s away, needs \d+ \(upstream's algorithm: \d+; with the extension: \1\)\.$/,
    );
  });

  it("the forecast never lowers upstream's decision: no scale-down acts on it alone", () => {
    for (const s of steps) assert.ok(s.result.desiredReplicas >= s.reactive);
  });

  it("forecast-only records what it would do, and does what upstream does", () => {
    const only = run(
      { "horizon.dev/predictive": "true", "horizon.dev/predictive-mode": "forecast-only" },
      DAY_MS + 10 * HOUR,
    );
    for (const s of only) assert.equal(s.result.desiredReplicas, s.reactive);
    const last = only.at(-1)!.result;
    assert.equal(predictiveCondition(last)?.reason, "ForecastOnly");
    const entry = last.trace.extensions!.find((x) => x.annotation === "horizon.dev/predictive")!;
    assert.match(
      entry.message,
      /^forecast only: forecast of .* would scale to \d+ \(reactive: \d+\)$/,
    );
  });

  it("removing the annotation removes its condition and models", () => {
    const last = steps.at(-1)!;
    const plain = annotated({});
    const result = syncExtendedOnce(
      input(
        { ...plain, status: last.result.status },
        last.result.desiredReplicas,
        last.now + 15_000,
        last.result.history,
      ),
    );
    assert.equal(predictiveCondition(result), undefined);
    assert.equal(result.history.predictive, undefined);
  });
});
