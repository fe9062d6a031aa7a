// The `horizon.dev/` extensions on the pure core: the annotation parser, each rule as a table of
// named cases on a fake clock, and the property that without such annotations a sync is
// byte-identical to upstream's.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
} from "../../src/api/types.js";
import { type ControllerConfig, defaultControllerConfig } from "../../src/core/config.js";
import { extensionsOf, parseExtensions } from "../../src/core/extensions/annotations.js";
import { parseSchedule, scheduledFloor } from "../../src/core/extensions/schedule.js";
import {
  completeExtendedSync,
  decideExtendedSync,
  hasExtensions,
  needsExtendedMetrics,
  syncExtendedOnce,
} from "../../src/core/extensions/sync.js";
import { EMPTY_HISTORY, type HpaHistory } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import type { MetricObservation } from "../../src/core/sources/types.js";
import { completeSync, decideSync, type SyncInput, type SyncResult } from "../../src/core/sync.js";
import { cpuUsage, cpuUtilization, hpa, pods, t } from "./builders.js";

/** An HPA as the API server stores it (defaulted), with these annotations. */
function annotated(
  annotations: Record<string, string>,
  spec: Partial<HorizontalPodAutoscaler["spec"]> = {},
): HorizontalPodAutoscaler {
  const base = setDefaultsHorizontalPodAutoscaler(hpa(spec));
  return { ...base, metadata: { ...base.metadata, annotations } };
}

/** One sync input: `replicas` ready pods sharing `totalMilli` of CPU (request 100m each). */
function input(options: {
  hpa: HorizontalPodAutoscaler;
  replicas: number;
  totalMilli: number;
  now?: number;
  history?: HpaHistory;
  config?: ControllerConfig;
  observations?: MetricObservation[];
}): SyncInput {
  const now = options.now ?? t(15);
  const list = pods(options.replicas);
  const perPod = options.replicas > 0 ? Math.round(options.totalMilli / options.replicas) : 0;
  const usage = Object.fromEntries(list.map((p) => [p.name, perPod]));
  return {
    now,
    hpa: options.hpa,
    scale: {
      ok: true,
      specReplicas: options.replicas,
      statusReplicas: options.replicas,
      selector: "app=web",
    },
    pods: list,
    observations: options.observations ?? [resourceObservation(cpuUsage(usage, now), "cpu")],
    history: options.history ?? EMPTY_HISTORY,
    config: options.config ?? defaultControllerConfig(),
  };
}

const condition = (result: SyncResult, type: string) =>
  result.status.conditions?.find((c) => c.type === type);

describe("parseExtensions", () => {
  const cases: {
    name: string;
    annotations: Record<string, string> | undefined;
    extensions?: Record<string, unknown> | null;
    errors?: string[];
    warnings?: string[];
  }[] = [
    { name: "no annotations", annotations: undefined, extensions: null },
    {
      name: "other prefixes are not ours",
      annotations: { "example.com/paused": "true", "horizon.dev.example/x": "1" },
      extensions: null,
    },
    {
      name: "paused",
      annotations: { "horizon.dev/paused": "true" },
      extensions: { paused: true, pausedReplicas: null, dryRun: false },
    },
    {
      name: "paused false is an explicit no",
      annotations: { "horizon.dev/paused": "false" },
      extensions: { paused: false, pausedReplicas: null, dryRun: false },
    },
    {
      name: "paused-replicas",
      annotations: { "horizon.dev/paused-replicas": "3" },
      extensions: { paused: false, pausedReplicas: 3, dryRun: false },
    },
    {
      name: "dry-run",
      annotations: { "horizon.dev/dry-run": "true" },
      extensions: { paused: false, pausedReplicas: null, dryRun: true },
    },
    {
      name: "a malformed boolean names its annotation",
      annotations: { "horizon.dev/paused": "yes" },
      extensions: null,
      errors: ['horizon.dev/paused: invalid value "yes": must be "true" or "false"'],
    },
    {
      name: "a negative count",
      annotations: { "horizon.dev/paused-replicas": "-1" },
      extensions: null,
      errors: [
        'horizon.dev/paused-replicas: invalid value "-1": must be a whole number of replicas (0 or more)',
      ],
    },
    {
      name: "a count beyond int32",
      annotations: { "horizon.dev/paused-replicas": "2147483648" },
      extensions: null,
      errors: [
        'horizon.dev/paused-replicas: invalid value "2147483648": must be a whole number of replicas (0 or more)',
      ],
    },
    {
      name: "paused and dry-run contradict",
      annotations: { "horizon.dev/paused": "true", "horizon.dev/dry-run": "true" },
      extensions: null,
      errors: [
        "horizon.dev/dry-run: contradicts horizon.dev/paused: a paused HPA decides nothing to try; remove one of them",
      ],
    },
    {
      name: "paused-replicas with paused false contradict",
      annotations: { "horizon.dev/paused": "false", "horizon.dev/paused-replicas": "2" },
      extensions: null,
      errors: [
        'horizon.dev/paused-replicas: holds the target, which contradicts horizon.dev/paused: "false"',
      ],
    },
    {
      name: "an unknown key is a warning, the rest still applies",
      annotations: { "horizon.dev/pause": "true", "horizon.dev/dry-run": "true" },
      extensions: { paused: false, pausedReplicas: null, dryRun: true },
      warnings: [
        "horizon.dev/pause: unknown annotation: Horizon ignores it (see docs/extensions.md)",
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parsed = parseExtensions(c.annotations);
      if (c.extensions !== undefined) {
        assert.deepEqual(
          parsed.extensions === null ? null : { ...parsed.extensions },
          c.extensions === null ? null : { ...parsed.extensions, ...c.extensions },
        );
      }
      assert.deepEqual(
        parsed.errors.map((e) => `${e.annotation}: ${e.message}`),
        c.errors ?? [],
      );
      assert.deepEqual(
        parsed.warnings.map((w) => `${w.annotation}: ${w.message}`),
        c.warnings ?? [],
      );
    });
  }
});

describe("pause and dry-run rules", () => {
  // 4 pods at 100% of a 50% target: upstream scales 4 → 8.
  const busy = { replicas: 4, totalMilli: 400 };
  const cases: {
    name: string;
    annotations: Record<string, string>;
    behavior?: HorizontalPodAutoscalerBehavior;
    replicas?: number;
    totalMilli?: number;
    desiredReplicas: number;
    scaleUpdated: boolean;
    ableToScale: string;
    events: string[];
    traceReasons: string[];
    upstreamReplicas?: number;
  }[] = [
    {
      name: "paused: no write, AbleToScale False Paused, what upstream would do in the trace",
      annotations: { "horizon.dev/paused": "true" },
      desiredReplicas: 4,
      scaleUpdated: false,
      ableToScale: "False/Paused",
      events: ["Normal/Paused"],
      traceReasons: ["Paused"],
      upstreamReplicas: 8,
    },
    {
      name: "paused false: upstream's decision",
      annotations: { "horizon.dev/paused": "false" },
      desiredReplicas: 8,
      scaleUpdated: true,
      ableToScale: "True/SucceededRescale",
      events: ["Normal/SuccessfulRescale"],
      traceReasons: [],
    },
    {
      name: "paused-replicas above the current count: one write to the hold, still Paused",
      annotations: { "horizon.dev/paused-replicas": "2" },
      totalMilli: 4000,
      desiredReplicas: 2,
      scaleUpdated: true,
      ableToScale: "False/Paused",
      events: ["Normal/Paused", "Normal/SuccessfulRescale"],
      traceReasons: ["Paused"],
      upstreamReplicas: 8,
    },
    {
      name: "paused-replicas outside min/max holds there anyway",
      annotations: { "horizon.dev/paused-replicas": "0" },
      desiredReplicas: 0,
      scaleUpdated: true,
      ableToScale: "False/Paused",
      events: ["Normal/Paused", "Normal/SuccessfulRescale"],
      traceReasons: ["Paused"],
      upstreamReplicas: 8,
    },
    {
      name: "paused-replicas at the current count: no write",
      annotations: { "horizon.dev/paused-replicas": "4" },
      desiredReplicas: 4,
      scaleUpdated: false,
      ableToScale: "False/Paused",
      events: ["Normal/Paused"],
      traceReasons: ["Paused"],
      upstreamReplicas: 8,
    },
    {
      name: "paused-replicas is not bounded by a scale-up policy",
      annotations: { "horizon.dev/paused-replicas": "9" },
      behavior: { scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] } },
      desiredReplicas: 9,
      scaleUpdated: true,
      ableToScale: "False/Paused",
      events: ["Normal/Paused", "Normal/SuccessfulRescale"],
      traceReasons: ["Paused"],
      upstreamReplicas: 5,
    },
    {
      name: "dry-run: a DryRun event with what it would do, no write",
      annotations: { "horizon.dev/dry-run": "true" },
      desiredReplicas: 4,
      scaleUpdated: false,
      ableToScale: "True/ReadyForNewScale",
      events: ["Normal/DryRun"],
      traceReasons: ["DryRun"],
      upstreamReplicas: 8,
    },
    {
      name: "dry-run with the ratio in tolerance: no event",
      annotations: { "horizon.dev/dry-run": "true" },
      totalMilli: 200,
      desiredReplicas: 4,
      scaleUpdated: false,
      ableToScale: "True/ReadyForNewScale",
      events: [],
      traceReasons: ["DryRun"],
    },
    {
      name: "dry-run also holds upstream's min/max correction",
      annotations: { "horizon.dev/dry-run": "true" },
      replicas: 12,
      totalMilli: 600,
      desiredReplicas: 12,
      scaleUpdated: false,
      ableToScale: "True/SucceededGetScale",
      events: ["Normal/DryRun"],
      traceReasons: ["DryRun"],
      upstreamReplicas: 10,
    },
    {
      name: "invalid annotations: no write, InvalidAnnotation named in condition and event",
      annotations: { "horizon.dev/paused": "maybe" },
      desiredReplicas: 4,
      scaleUpdated: false,
      ableToScale: "False/InvalidAnnotation",
      events: ["Warning/InvalidAnnotation"],
      traceReasons: ["InvalidAnnotation"],
    },
    {
      name: "an unknown key warns on every sync and changes nothing else",
      annotations: { "horizon.dev/colour": "blue" },
      desiredReplicas: 8,
      scaleUpdated: true,
      ableToScale: "True/SucceededRescale",
      events: ["Warning/UnknownAnnotation", "Normal/SuccessfulRescale"],
      traceReasons: ["UnknownAnnotation"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const spec = c.behavior ? { behavior: c.behavior } : {};
      const result = syncExtendedOnce(
        input({
          hpa: annotated(c.annotations, spec),
          replicas: c.replicas ?? busy.replicas,
          totalMilli: c.totalMilli ?? busy.totalMilli,
        }),
      );
      assert.equal(result.desiredReplicas, c.desiredReplicas);
      assert.equal(result.scaleUpdated, c.scaleUpdated);
      const able = condition(result, "AbleToScale");
      assert.equal(`${able?.status}/${able?.reason}`, c.ableToScale);
      assert.deepEqual(
        result.events.map((e) => `${e.type}/${e.reason}`),
        c.events,
      );
      const entries = result.trace.extensions ?? [];
      assert.deepEqual(
        entries.map((e) => e.reason),
        c.traceReasons,
      );
      if (c.upstreamReplicas !== undefined) {
        assert.equal(entries.at(-1)?.upstreamReplicas, c.upstreamReplicas);
      }
    });
  }

  it("names the annotations at fault in the InvalidAnnotation event and the sync's error", () => {
    const result = syncExtendedOnce(
      input({
        hpa: annotated({ "horizon.dev/paused": "true", "horizon.dev/dry-run": "true" }),
        ...busy,
      }),
    );
    assert.match(
      result.events[0]!.message,
      /horizon\.dev\/dry-run: contradicts horizon\.dev\/paused/,
    );
    assert.match(result.error ?? "", /invalid horizon\.dev annotations, not scaling/);
  });

  it("the DryRun event says what it would have done", () => {
    const result = syncExtendedOnce(
      input({ hpa: annotated({ "horizon.dev/dry-run": "true" }), ...busy }),
    );
    assert.equal(
      result.events[0]!.message,
      "dry run (horizon.dev/dry-run): would scale from 4 to 8; reason: cpu resource utilization (percentage of request) above target",
    );
    assert.equal(result.status.desiredReplicas, 4);
  });

  it("a hold goes on when every metric fails, and reports the failure", () => {
    const result = syncExtendedOnce(
      input({
        hpa: annotated({ "horizon.dev/paused-replicas": "6" }),
        ...busy,
        observations: [{ kind: "error", error: "metrics API unavailable" }],
      }),
    );
    assert.equal(result.scaleUpdated, true);
    assert.equal(result.desiredReplicas, 6);
    assert.match(result.error ?? "", /failed to compute desired number of replicas/);
    assert.equal(condition(result, "ScalingActive")?.status, "False");
  });

  it("a failed hold write keeps upstream's FailedUpdateScale", () => {
    const decision = decideExtendedSync(
      input({ hpa: annotated({ "horizon.dev/paused-replicas": "2" }), ...busy }),
    );
    const result = completeExtendedSync(decision, { ok: false, error: "conflict" });
    assert.equal(condition(result, "AbleToScale")?.reason, "FailedUpdateScale");
  });

  it("fake clock: the Paused condition keeps its transition time while paused, then upstream resumes", () => {
    let current = annotated({ "horizon.dev/paused-replicas": "2" });
    let history: HpaHistory = EMPTY_HISTORY;
    let replicas = 4;
    const seen: { seconds: number; replicas: number; able: string; since: string }[] = [];
    const events: string[] = [];
    for (let seconds = 15; seconds <= 75; seconds += 15) {
      if (seconds === 60) current = { ...current, metadata: { name: "web", namespace: "default" } };
      const result = syncExtendedOnce(
        input({ hpa: current, replicas, totalMilli: 400, now: t(seconds), history }),
      );
      history = result.history;
      current = { ...current, status: result.status };
      if (result.scaleUpdated) replicas = result.desiredReplicas;
      for (const e of result.events) events.push(`${seconds}s ${e.reason}: ${e.message}`);
      const able = condition(result, "AbleToScale")!;
      seen.push({
        seconds,
        replicas,
        able: `${able.status}/${able.reason}`,
        since: able.lastTransitionTime ?? "",
      });
    }
    assert.deepEqual(seen, [
      { seconds: 15, replicas: 2, able: "False/Paused", since: "2026-01-01T12:00:15Z" },
      { seconds: 30, replicas: 2, able: "False/Paused", since: "2026-01-01T12:00:15Z" },
      { seconds: 45, replicas: 2, able: "False/Paused", since: "2026-01-01T12:00:15Z" },
      // Annotation removed: upstream's legacy path doubles 2 → 4 (400m over 2 pods is 200%).
      { seconds: 60, replicas: 4, able: "True/SucceededRescale", since: "2026-01-01T12:01:00Z" },
      { seconds: 75, replicas: 8, able: "True/SucceededRescale", since: "2026-01-01T12:01:00Z" },
    ]);
    // The pause is said once as it begins (then the hold's write), not at every sync.
    assert.deepEqual(events.slice(0, 2), [
      "15s Paused: scaling is paused by horizon.dev/paused-replicas, holding the target at 2; the HPA would scale from 4 to 8",
      "15s SuccessfulRescale: New size: 2; reason: held at 2 by horizon.dev/paused-replicas",
    ]);
    assert.deepEqual(
      events.filter((e) => e.includes(" Paused:")),
      [events[0]],
    );
  });
});

describe("per-HPA controller knobs", () => {
  const gates = defaultControllerConfig();
  const withTolerance: ControllerConfig = {
    ...gates,
    featureGates: gates.featureGates.with({ HPAConfigurableTolerance: true }),
  };
  // 4 pods, 50% target: 280m is a ratio of 1.4 (upstream: 6), 140m of 0.7 (upstream: 3).
  const cases: {
    name: string;
    annotations: Record<string, string>;
    totalMilli: number;
    behavior?: HorizontalPodAutoscalerBehavior;
    config?: ControllerConfig;
    desiredReplicas: number;
    overrides: string[];
  }[] = [
    {
      name: "no knob: a ratio of 1.4 scales 4 → 6",
      annotations: {},
      totalMilli: 280,
      desiredReplicas: 6,
      overrides: [],
    },
    {
      name: "tolerance 0.5 keeps a ratio of 1.4 inside the band",
      annotations: { "horizon.dev/tolerance": "0.5" },
      totalMilli: 280,
      desiredReplicas: 4,
      overrides: [
        "horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 for this HPA (controller: 0.1)",
      ],
    },
    {
      name: "scale-up-tolerance only holds scale-ups",
      annotations: {
        "horizon.dev/scale-up-tolerance": "0.5",
        "horizon.dev/downscale-stabilization": "0s",
      },
      totalMilli: 140,
      desiredReplicas: 3,
      overrides: [
        "horizon.dev/scale-up-tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 when scaling up for this HPA (controller: 0.1)",
        "horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 0s for this HPA (controller: 5m0s)",
      ],
    },
    {
      name: "scale-up-tolerance holds a ratio of 1.4",
      annotations: { "horizon.dev/scale-up-tolerance": "0.5" },
      totalMilli: 280,
      desiredReplicas: 4,
      overrides: [
        "horizon.dev/scale-up-tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 when scaling up for this HPA (controller: 0.1)",
      ],
    },
    {
      name: "scale-down-tolerance holds a ratio of 0.7, over tolerance",
      annotations: {
        "horizon.dev/tolerance": "0.01",
        "horizon.dev/scale-down-tolerance": "0.5",
        "horizon.dev/downscale-stabilization": "0s",
      },
      totalMilli: 140,
      desiredReplicas: 4,
      overrides: [
        "horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.01 for this HPA (controller: 0.1)",
        "horizon.dev/scale-down-tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 when scaling down for this HPA (controller: 0.1)",
        "horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 0s for this HPA (controller: 5m0s)",
      ],
    },
    {
      name: "without downscale-stabilization the 5 min window holds a scale-down (first sync)",
      annotations: { "horizon.dev/tolerance": "0.1" },
      totalMilli: 140,
      desiredReplicas: 4,
      overrides: [
        "horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.1 for this HPA (controller: 0.1)",
      ],
    },
    {
      name: "behavior's scaleDown window, when set, still wins over downscale-stabilization",
      annotations: { "horizon.dev/downscale-stabilization": "0s" },
      behavior: { scaleDown: { stabilizationWindowSeconds: 600 } },
      totalMilli: 140,
      desiredReplicas: 4,
      overrides: [
        "horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 0s for this HPA (controller: 5m0s)",
      ],
    },
    {
      name: "downscale-stabilization is the window of a behavior that leaves it unset",
      annotations: { "horizon.dev/downscale-stabilization": "0s" },
      behavior: { scaleUp: { stabilizationWindowSeconds: 0 } },
      totalMilli: 140,
      desiredReplicas: 3,
      overrides: [
        "horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 0s for this HPA (controller: 5m0s)",
      ],
    },
    {
      name: "spec.behavior's tolerance (HPAConfigurableTolerance) wins over the annotation",
      annotations: { "horizon.dev/tolerance": "0.5" },
      behavior: { scaleUp: { tolerance: "0.05" } },
      config: withTolerance,
      totalMilli: 280,
      desiredReplicas: 6,
      overrides: [
        "horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 for this HPA (controller: 0.1)",
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = syncExtendedOnce(
        input({
          hpa: annotated(c.annotations, c.behavior ? { behavior: c.behavior } : {}),
          replicas: 4,
          totalMilli: c.totalMilli,
          ...(c.config ? { config: c.config } : {}),
        }),
      );
      assert.equal(result.desiredReplicas, c.desiredReplicas);
      assert.deepEqual(
        (result.trace.extensions ?? []).map((x) => `${x.annotation}: ${x.message}`),
        c.overrides,
      );
    });
  }

  it("initialization periods: pods not ready 2 min after start are unready only within the period", () => {
    // 2 of 4 pods started 2 min ago and are not ready since 1 min after start (past the 30 s
    // readiness delay). Within the default 5 min CPU initialization period they are unready,
    // counted at 0 on a scale-up, which brings the ratio back into tolerance; with a 1 min
    // period they are counted as they are (each pod at 100% of a 50% target: 4 → 8).
    const list = pods(4).map((p, i) =>
      i < 2
        ? {
            ...p,
            startTime: t(15) - 120_000,
            ready: { status: "False" as const, lastTransitionTime: t(15) - 60_000 },
          }
        : p,
    );
    const run = (annotations: Record<string, string>) => {
      const base = input({ hpa: annotated(annotations), replicas: 4, totalMilli: 400 });
      return syncExtendedOnce({ ...base, pods: list });
    };
    const unready = (r: SyncResult) => r.trace.metrics[0]?.calculation?.unreadyPods ?? [];
    const upstream = run({});
    assert.deepEqual(unready(upstream), ["web-0", "web-1"]);
    assert.equal(upstream.desiredReplicas, 4);
    const shorter = run({ "horizon.dev/cpu-initialization-period": "1m" });
    assert.deepEqual(unready(shorter), []);
    assert.equal(shorter.desiredReplicas, 8);
    // A readiness delay longer than the time to the readiness change makes them unready again.
    const delayed = run({
      "horizon.dev/cpu-initialization-period": "1m",
      "horizon.dev/initial-readiness-delay": "90s",
    });
    assert.deepEqual(unready(delayed), ["web-0", "web-1"]);
    assert.equal(delayed.desiredReplicas, 4);
  });

  it("bad values name the annotation", () => {
    const parsed = parseExtensions({
      "horizon.dev/sync-period": "0s",
      "horizon.dev/tolerance": "-0.1",
      "horizon.dev/scale-up-tolerance": "1e-2",
      "horizon.dev/initial-readiness-delay": "soon",
    });
    assert.equal(parsed.extensions, null);
    assert.deepEqual(
      parsed.errors.map((e) => e.annotation),
      [
        "horizon.dev/sync-period",
        "horizon.dev/tolerance",
        "horizon.dev/scale-up-tolerance",
        "horizon.dev/initial-readiness-delay",
      ],
    );
    assert.match(parsed.errors[1]!.message, /must be a decimal number, 0 or more/);
    assert.match(parsed.errors[3]!.message, /invalid value "soon"/);
  });
});

describe("fallback on metric failure", () => {
  interface Step {
    seconds: number;
    replicas: number;
    events: string[];
    scalingActive: string;
    fallback: string;
  }

  /** Syncs every 15 s; `healthy(i)` says whether sync i (0-based) gets its metrics. */
  function run(options: {
    annotations: Record<string, string>;
    startReplicas: number;
    healthy: (i: number) => boolean;
    syncs: number;
    totalMilli?: number;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
  }): Step[] {
    let current = annotated(options.annotations, options.spec ?? {});
    let history: HpaHistory = EMPTY_HISTORY;
    let replicas = options.startReplicas;
    const steps: Step[] = [];
    for (let i = 0; i < options.syncs; i++) {
      const base = input({
        hpa: current,
        replicas,
        totalMilli: options.totalMilli ?? 50 * replicas,
        now: t(15 * (i + 1)),
        history,
      });
      const metricCount = current.spec.metrics?.length ?? 1;
      const result = syncExtendedOnce(
        options.healthy(i)
          ? { ...base, observations: Array(metricCount).fill(base.observations[0]) }
          : {
              ...base,
              observations: Array(metricCount).fill({
                kind: "error",
                error: "the metrics API is unavailable",
              }),
            },
      );
      history = result.history;
      current = { ...current, status: result.status };
      if (result.scaleUpdated) replicas = result.desiredReplicas;
      const active = condition(result, "ScalingActive");
      steps.push({
        seconds: 15 * (i + 1),
        replicas,
        events: result.events.map((e) => e.reason),
        scalingActive: `${active?.status}/${active?.reason}`,
        fallback: `${result.history.fallback?.failures}/${result.history.fallback?.active}`,
      });
    }
    return steps;
  }

  it("activates after K failing syncs, holds, and ends at the first healthy sync", () => {
    const steps = run({
      annotations: {
        "horizon.dev/fallback-replicas": "6",
        "horizon.dev/fallback-failure-threshold": "2",
      },
      startReplicas: 3,
      healthy: (i) => i >= 3,
      syncs: 4,
    });
    assert.deepEqual(steps, [
      {
        seconds: 15,
        replicas: 3,
        events: ["FailedGetResourceMetric", "FailedComputeMetricsReplicas"],
        scalingActive: "False/FailedGetResourceMetric",
        fallback: "1/false",
      },
      {
        seconds: 30,
        replicas: 6,
        events: [
          "FailedGetResourceMetric",
          "FailedComputeMetricsReplicas",
          "FallbackActive",
          "SuccessfulRescale",
        ],
        scalingActive: "False/FallbackActive",
        fallback: "2/true",
      },
      {
        seconds: 45,
        replicas: 6,
        events: ["FailedGetResourceMetric", "FailedComputeMetricsReplicas"],
        scalingActive: "False/FallbackActive",
        fallback: "3/true",
      },
      // Healthy at 50% of target: upstream keeps 6 (the legacy window holds any scale-down).
      {
        seconds: 60,
        replicas: 6,
        events: ["FallbackEnded"],
        scalingActive: "True/ValidMetricFound",
        fallback: "0/false",
      },
    ]);
  });

  const cases: {
    name: string;
    annotations: Record<string, string>;
    startReplicas: number;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
    /** Sync indexes with metrics; all others fail. */
    healthy?: (i: number) => boolean;
    totalMilli?: number;
    replicas: number;
  }[] = [
    {
      name: "the default threshold is 3 syncs",
      annotations: { "horizon.dev/fallback-replicas": "6" },
      startReplicas: 3,
      replicas: 6,
    },
    {
      name: "currentReplicasIfHigher keeps a larger current count",
      annotations: { "horizon.dev/fallback-replicas": "6" },
      startReplicas: 8,
      replicas: 8,
    },
    {
      name: "static scales down to exactly N",
      annotations: {
        "horizon.dev/fallback-replicas": "6",
        "horizon.dev/fallback-mode": "static",
      },
      startReplicas: 8,
      replicas: 6,
    },
    {
      name: "bounded by maxReplicas",
      annotations: { "horizon.dev/fallback-replicas": "20" },
      startReplicas: 3,
      replicas: 10,
    },
    {
      name: "bounded by minReplicas (static)",
      annotations: {
        "horizon.dev/fallback-replicas": "1",
        "horizon.dev/fallback-mode": "static",
      },
      spec: { minReplicas: 2 },
      startReplicas: 5,
      replicas: 2,
    },
    {
      name: "a sync that heals before the threshold resets the count",
      annotations: { "horizon.dev/fallback-replicas": "6" },
      startReplicas: 3,
      healthy: (i) => i === 1,
      replicas: 3,
    },
    {
      name: "paused wins over the fallback",
      annotations: { "horizon.dev/fallback-replicas": "6", "horizon.dev/paused": "true" },
      startReplicas: 3,
      replicas: 3,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const steps = run({
        annotations: c.annotations,
        startReplicas: c.startReplicas,
        healthy: c.healthy ?? (() => false),
        syncs: 3,
        ...(c.spec ? { spec: c.spec } : {}),
      });
      assert.equal(steps.at(-1)!.replicas, c.replicas);
    });
  }

  it("with a healthy metric asking for more, the larger count wins", () => {
    // Two cpu metrics, the second failing; the first sees 150% of a 50% target on 3 pods, which
    // upstream scales to 6 (the legacy cap: max(2 × 3, 4)).
    let current = annotated(
      { "horizon.dev/fallback-replicas": "4", "horizon.dev/fallback-failure-threshold": "1" },
      { metrics: [cpuUtilization(50), cpuUtilization(50)] },
    );
    const base = input({ hpa: current, replicas: 3, totalMilli: 450 });
    const result = syncExtendedOnce({
      ...base,
      observations: [base.observations[0]!, { kind: "error", error: "no such metric" }],
    });
    current = { ...current, status: result.status };
    assert.equal(result.desiredReplicas, 6);
    assert.equal(result.trace.extensions?.[0]?.upstreamReplicas, 6);
    assert.match(result.error ?? "", /invalid metrics \(1 invalid out of 2\)/);
  });

  it("dry-run reports the fallback it would apply", () => {
    const steps = run({
      annotations: {
        "horizon.dev/fallback-replicas": "6",
        "horizon.dev/fallback-failure-threshold": "1",
        "horizon.dev/dry-run": "true",
      },
      startReplicas: 3,
      healthy: () => false,
      syncs: 1,
    });
    assert.equal(steps[0]!.replicas, 3);
    assert.ok(steps[0]!.events.includes("DryRun"), steps[0]!.events.join());
  });

  it("bad fallback annotations name themselves", () => {
    const parsed = parseExtensions({
      "horizon.dev/fallback-failure-threshold": "0",
      "horizon.dev/fallback-mode": "max",
    });
    assert.deepEqual(
      parsed.errors.map((e) => `${e.annotation}: ${e.message}`),
      [
        "horizon.dev/fallback-failure-threshold: needs horizon.dev/fallback-replicas",
        "horizon.dev/fallback-mode: needs horizon.dev/fallback-replicas",
      ],
    );
    const withReplicas = parseExtensions({
      "horizon.dev/fallback-replicas": "2",
      "horizon.dev/fallback-failure-threshold": "0",
      "horizon.dev/fallback-mode": "max",
    });
    assert.deepEqual(
      withReplicas.errors.map((e) => e.annotation),
      ["horizon.dev/fallback-failure-threshold", "horizon.dev/fallback-mode"],
    );
  });
});

describe("scale to zero with activation and cooldown", () => {
  const queue: HorizontalPodAutoscaler["spec"]["metrics"] = [
    {
      type: "External",
      external: {
        metric: { name: "queue_messages_ready" },
        target: { type: "AverageValue", averageValue: "10" },
      },
    },
  ];
  const external = (messages: number, now: number): MetricObservation => ({
    kind: "external",
    valuesMilli: [BigInt(messages * 1000)],
    timestamp: now,
  });

  interface Step {
    seconds: number;
    replicas: number;
    reason: string;
  }

  function run(options: {
    annotations: Record<string, string>;
    startReplicas: number;
    messages: (seconds: number) => number | null;
    until: number;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
  }): { steps: Step[]; last: SyncResult } {
    let current = annotated(options.annotations, { metrics: queue, ...options.spec });
    let history: HpaHistory = EMPTY_HISTORY;
    let replicas = options.startReplicas;
    const steps: Step[] = [];
    let last: SyncResult | null = null;
    for (let seconds = 15; seconds <= options.until; seconds += 15) {
      const now = t(seconds);
      const messages = options.messages(seconds);
      const result = syncExtendedOnce(
        input({
          hpa: current,
          replicas,
          totalMilli: 0,
          now,
          history,
          observations: [
            messages === null
              ? { kind: "error", error: "queue unreachable" }
              : external(messages, now),
          ],
        }),
      );
      history = result.history;
      current = { ...current, status: result.status };
      const from = replicas;
      if (result.scaleUpdated) replicas = result.desiredReplicas;
      if (replicas !== from) {
        const entry = result.trace.extensions?.find(
          (x) => x.annotation === "horizon.dev/min-replicas",
        );
        steps.push({
          seconds,
          replicas,
          reason: entry?.reason ?? result.trace.rescaleReason ?? "",
        });
      }
      last = result;
    }
    return { steps, last: last! };
  }

  it("a queue at zero overnight: activated by the first message, back to zero after the cooldown", () => {
    const { steps } = run({
      annotations: { "horizon.dev/min-replicas": "0", "horizon.dev/cooldown-period": "1m" },
      startReplicas: 0,
      // One message at 45 s, a burst of 30 at 60 s, empty from 75 s.
      messages: (s) => (s === 45 ? 1 : s === 60 ? 30 : 0),
      until: 240,
    });
    assert.deepEqual(steps, [
      { seconds: 45, replicas: 1, reason: "Activated" },
      {
        seconds: 60,
        replicas: 3,
        reason: "external metric queue_messages_ready(nil) above target",
      },
      // Last active at 60 s: the cooldown of 1 min ends at 120 s, before the 5 min window would.
      { seconds: 120, replicas: 0, reason: "ScaledToZero" },
    ]);
  });

  const cases: {
    name: string;
    annotations: Record<string, string>;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
    startReplicas: number;
    messages: (seconds: number) => number | null;
    until: number;
    steps: Step[];
    condition?: string;
  }[] = [
    {
      name: "at zero, nothing above the activation value: stays at zero, ScaledToZero",
      annotations: { "horizon.dev/min-replicas": "0" },
      startReplicas: 0,
      messages: () => 0,
      until: 60,
      steps: [],
      condition: "False/ScaledToZero",
    },
    {
      name: "activation is strictly above: 5 messages with an activation of 5 do not activate",
      annotations: {
        "horizon.dev/min-replicas": "0",
        "horizon.dev/activation.queue_messages_ready": "5",
      },
      startReplicas: 0,
      messages: (s) => (s >= 30 ? (s >= 60 ? 6 : 5) : 0),
      until: 60,
      steps: [{ seconds: 60, replicas: 1, reason: "Activated" }],
    },
    {
      name: "activation goes to spec.minReplicas when it is above 1",
      annotations: { "horizon.dev/min-replicas": "0" },
      spec: { minReplicas: 2 },
      startReplicas: 0,
      messages: () => 1,
      until: 15,
      steps: [{ seconds: 15, replicas: 2, reason: "Activated" }],
    },
    {
      name: "a failing metric at zero does not activate",
      annotations: { "horizon.dev/min-replicas": "0" },
      startReplicas: 0,
      messages: () => null,
      until: 60,
      steps: [],
      condition: "False/FailedGetExternalMetric",
    },
    {
      name: "a failing metric above zero never scales to zero",
      annotations: { "horizon.dev/min-replicas": "0", "horizon.dev/cooldown-period": "30s" },
      startReplicas: 2,
      messages: () => null,
      until: 120,
      steps: [],
    },
    {
      name: "the default cooldown is 5 minutes (counted from the first sync seen)",
      annotations: { "horizon.dev/min-replicas": "0" },
      startReplicas: 1,
      messages: () => 0,
      until: 330,
      steps: [{ seconds: 315, replicas: 0, reason: "ScaledToZero" }],
    },
    {
      name: "a message during the cooldown restarts it",
      annotations: { "horizon.dev/min-replicas": "0", "horizon.dev/cooldown-period": "1m" },
      startReplicas: 1,
      messages: (s) => (s === 60 ? 1 : 0),
      until: 150,
      steps: [{ seconds: 120, replicas: 0, reason: "ScaledToZero" }],
    },
    {
      name: "upstream's own minReplicas 0 (HPAScaleToZero) takes an activation value too",
      annotations: { "horizon.dev/activation.queue_messages_ready": "3" },
      spec: { minReplicas: 0 },
      startReplicas: 0,
      messages: (s) => (s >= 30 ? 4 : 2),
      until: 30,
      steps: [{ seconds: 30, replicas: 1, reason: "Activated" }],
    },
    {
      name: "paused wins: no activation (the metrics are still read and valid)",
      annotations: { "horizon.dev/min-replicas": "0", "horizon.dev/paused": "true" },
      startReplicas: 0,
      messages: () => 50,
      until: 30,
      steps: [],
      condition: "True/ValidMetricFound",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { steps, last } = run({
        annotations: c.annotations,
        startReplicas: c.startReplicas,
        messages: c.messages,
        until: c.until,
        ...(c.spec ? { spec: c.spec } : {}),
      });
      assert.deepEqual(steps, c.steps);
      if (c.condition) {
        const active = condition(last, "ScalingActive");
        assert.equal(`${active?.status}/${active?.reason}`, c.condition);
      }
    });
  }

  it("upstream today, without annotations: minReplicas 0 behind HPAScaleToZero scales from zero on the metric", () => {
    const { steps } = run({
      annotations: {},
      spec: { minReplicas: 0 },
      startReplicas: 0,
      messages: () => 25,
      until: 15,
    });
    // ceil(25 / 10) at zero replicas, no activation step: upstream's scale-from-zero path.
    assert.deepEqual(steps, [
      {
        seconds: 15,
        replicas: 3,
        reason: "external metric queue_messages_ready(nil) above target",
      },
    ]);
  });

  it("hasExtensions: known annotations only (an unknown key changes nothing Horizon does)", () => {
    assert.equal(hasExtensions(annotated({})), false);
    assert.equal(hasExtensions(annotated({ "horizon.dev/colour": "blue" })), false);
    assert.equal(hasExtensions(annotated({ "horizon.dev/paused": "maybe" })), true);
    assert.equal(hasExtensions(annotated({ "horizon.dev/activation.queue": "1" })), true);
  });

  it("the controller reads metrics at zero only for an HPA that may activate", () => {
    const scale = { ok: true as const, specReplicas: 0, statusReplicas: 0, selector: "app=web" };
    const plain = annotated({}, { metrics: queue });
    const zero = annotated({ "horizon.dev/min-replicas": "0" }, { metrics: queue });
    assert.equal(needsExtendedMetrics(plain, scale), false);
    assert.equal(needsExtendedMetrics(zero, scale), true);
  });

  it("bad scale-to-zero annotations name themselves", () => {
    const spec = hpa({ metrics: queue }).spec;
    const cpuOnly = hpa().spec;
    const cases: { annotations: Record<string, string>; spec: typeof spec; errors: string[] }[] = [
      {
        annotations: { "horizon.dev/min-replicas": "1" },
        spec,
        errors: [
          'horizon.dev/min-replicas: unsupported value "1": only "0" (scale to zero); other minimums go in spec.minReplicas',
        ],
      },
      {
        annotations: { "horizon.dev/min-replicas": "0" },
        spec: cpuOnly,
        errors: [
          "horizon.dev/min-replicas: scaling to zero needs at least one Object or External metric (pods' metrics do not exist at zero replicas)",
        ],
      },
      {
        annotations: { "horizon.dev/cooldown-period": "1m" },
        spec,
        errors: [
          'horizon.dev/cooldown-period: needs horizon.dev/min-replicas: "0" (or spec.minReplicas 0)',
        ],
      },
      {
        annotations: {
          "horizon.dev/min-replicas": "0",
          "horizon.dev/activation.queue": "1",
          "horizon.dev/activation.queue_messages_ready": "-1",
        },
        spec,
        errors: [
          'horizon.dev/activation.queue: no Object or External metric named "queue" in spec.metrics (there are: queue_messages_ready)',
          'horizon.dev/activation.queue_messages_ready: invalid value "-1": must be a quantity, 0 or more (e.g. "10", "500m")',
        ],
      },
    ];
    for (const c of cases) {
      assert.deepEqual(
        parseExtensions(c.annotations, c.spec).errors.map((e) => `${e.annotation}: ${e.message}`),
        c.errors,
      );
    }
  });
});

describe("schedules", () => {
  const at = (iso: string) => Date.parse(iso);
  const weekdays = (timeZone?: string) => {
    const parsed = parseSchedule(
      JSON.stringify([{ cron: "0 8 * * 1-5", duration: "10h", minReplicas: 6 }]),
      timeZone,
    );
    assert.ok(parsed.ok);
    return parsed.schedule;
  };

  const windowCases: {
    name: string;
    timeZone?: string;
    now: string;
    floor: number;
    text: RegExp;
  }[] = [
    {
      name: "Tuesday 08:30 in Paris (07:30 UTC): open since 07:00 UTC until 17:00 UTC",
      timeZone: "Europe/Paris",
      now: "2026-11-24T07:30:00Z",
      floor: 6,
      text: /open since 2026-11-24T07:00:00Z until 2026-11-24T17:00:00Z \(Europe\/Paris\)/,
    },
    {
      name: "the end is exclusive",
      timeZone: "Europe/Paris",
      now: "2026-11-24T17:00:00Z",
      floor: 0,
      text: /closed, next at 2026-11-25T07:00:00Z/,
    },
    {
      name: "the start is inclusive",
      now: "2026-11-24T08:00:00Z",
      floor: 6,
      text: /open since 2026-11-24T08:00:00Z until 2026-11-24T18:00:00Z \(UTC\)/,
    },
    {
      name: "Saturday: closed until Monday",
      now: "2026-11-28T12:00:00Z",
      floor: 0,
      text: /closed, next at 2026-11-30T08:00:00Z/,
    },
    {
      name: "Friday's window runs into Friday night, not past it",
      now: "2026-11-27T17:59:59Z",
      floor: 6,
      text: /open since 2026-11-27T08:00:00Z/,
    },
  ];
  for (const c of windowCases) {
    it(c.name, () => {
      const result = scheduledFloor(weekdays(c.timeZone), at(c.now));
      assert.equal(result.floor, c.floor);
      assert.match(result.text, c.text);
    });
  }

  it("one schedule asked again and again (its cached answer) says what a fresh one says", () => {
    const json = JSON.stringify([
      { cron: "*/20 * * * *", duration: "30m", minReplicas: 3 },
      { cron: "0 9 * * *", duration: "1h", minReplicas: 5 },
    ]);
    const parse = () => {
      const parsed = parseSchedule(json, "Europe/Paris");
      assert.ok(parsed.ok);
      return parsed.schedule;
    };
    const reused = parse();
    for (let s = 0; s <= 3 * 3600; s += 45) {
      const now = at("2026-11-24T06:30:00Z") + s * 1000;
      const again = scheduledFloor(reused, now);
      const fresh = scheduledFloor(parse(), now);
      assert.deepEqual(
        { floor: again.floor, text: again.text },
        { floor: fresh.floor, text: fresh.text },
        new Date(now).toISOString(),
      );
    }
  });

  it("openings closer than the duration keep the window open from the latest one", () => {
    const parsed = parseSchedule(
      JSON.stringify([
        { cron: "*/30 * * * *", duration: "1h", minReplicas: 3 },
        { cron: "0 10 * * *", duration: "30m", minReplicas: 5 },
      ]),
      undefined,
    );
    assert.ok(parsed.ok);
    const result = scheduledFloor(parsed.schedule, at("2026-11-24T10:45:00Z"));
    // The highest floor of the open windows wins: the second closed at 10:30.
    assert.equal(result.floor, 3);
    assert.match(result.text, /open since 2026-11-24T10:30:00Z until 2026-11-24T11:30:00Z/);
    assert.match(
      result.text,
      /"0 10 \* \* \*" for 30m0s \(minReplicas 5\) closed, next at 2026-11-25T10:00:00Z/,
    );
  });

  it("bad schedules name the annotation and the entry", () => {
    const spec = hpa({ maxReplicas: 10 }).spec;
    const cases: { annotations: Record<string, string>; errors: string[] }[] = [
      {
        annotations: { "horizon.dev/schedule": "[{cron: 1}]" },
        errors: ["horizon.dev/schedule: not JSON"],
      },
      {
        annotations: {
          "horizon.dev/schedule":
            '[{"cron": "0 8 * * *", "duration": "1h", "minReplicas": 2, "max": 3}]',
        },
        errors: ['horizon.dev/schedule: [0]: Unrecognized key: "max"'],
      },
      {
        annotations: {
          "horizon.dev/schedule":
            '[{"cron": "0 25 * * *", "duration": "1h", "minReplicas": 2}, {"cron": "0 8 * * *", "duration": "0s", "minReplicas": 11}]',
        },
        errors: [
          'horizon.dev/schedule: [0].cron: invalid value "0 25 * * *": CronPattern: Invalid value for hour: 25',
          'horizon.dev/schedule: [1].duration: invalid value "0s": must be greater than 0',
          "horizon.dev/schedule: [1].minReplicas: 11 is above spec.maxReplicas 10",
        ],
      },
      {
        // Every entry's causes, as upstream's validation lists them all.
        annotations: {
          "horizon.dev/schedule":
            '[{"cron": "0 1 * * *", "duration": "1h", "minReplicas": 11}, {"cron": "0 1 * * *", "duration": "1h", "minReplicas": 2, "foo": 1}]',
        },
        errors: [
          "horizon.dev/schedule: [0].minReplicas: 11 is above spec.maxReplicas 10",
          'horizon.dev/schedule: [1]: Unrecognized key: "foo"',
        ],
      },
      {
        annotations: {
          "horizon.dev/schedule": '[{"cron": "0 8 * * *", "duration": "1h", "minReplicas": 11}]',
        },
        errors: ["horizon.dev/schedule: [0].minReplicas: 11 is above spec.maxReplicas 10"],
      },
      {
        annotations: {
          "horizon.dev/schedule": '[{"cron": "0 8 * * *", "duration": "1h", "minReplicas": 2}]',
          "horizon.dev/time-zone": "Mars/Olympus",
        },
        errors: [
          'horizon.dev/time-zone: unknown time zone "Mars/Olympus" (an IANA name, e.g. "Europe/Paris")',
        ],
      },
      {
        annotations: { "horizon.dev/time-zone": "UTC" },
        errors: ["horizon.dev/time-zone: needs horizon.dev/schedule"],
      },
    ];
    for (const c of cases) {
      assert.deepEqual(
        parseExtensions(c.annotations, spec).errors.map((e) =>
          // JSON.parse's wording varies between Node versions.
          `${e.annotation}: ${e.message}`.replace(/^(horizon.dev\/schedule: not JSON):.*/, "$1"),
        ),
        c.errors,
      );
    }
  });

  it("with scale to zero, an opening window wakes the target to its floor and holds off the cooldown", () => {
    const hpaAtZero = annotated(
      {
        "horizon.dev/min-replicas": "0",
        "horizon.dev/cooldown-period": "1m",
        "horizon.dev/schedule": JSON.stringify([
          { cron: "0 2 * * *", duration: "1h", minReplicas: 4 },
        ]),
      },
      {
        metrics: [
          {
            type: "External",
            external: {
              metric: { name: "queue_messages_ready" },
              target: { type: "AverageValue", averageValue: "10" },
            },
          },
        ],
      },
    );
    const sync = (now: number, replicas: number, history: HpaHistory = EMPTY_HISTORY) =>
      syncExtendedOnce(
        input({
          hpa: hpaAtZero,
          replicas,
          totalMilli: 0,
          now,
          history,
          observations: [{ kind: "external", valuesMilli: [0n], timestamp: now }],
        }),
      );
    assert.equal(sync(at("2026-11-24T01:59:45Z"), 0).scaleUpdated, false);
    const woken = sync(at("2026-11-24T02:00:00Z"), 0);
    assert.equal(woken.desiredReplicas, 4);
    assert.deepEqual(
      woken.trace.extensions?.map((x) => x.reason),
      ["ScheduleActive", "Activated"],
    );
    // An empty queue for 10 minutes inside the window: no cooldown to zero.
    let history = woken.history;
    for (let s = 15; s <= 600; s += 15) {
      const result = sync(at("2026-11-24T02:00:00Z") + s * 1000, 4, history);
      assert.notEqual(result.desiredReplicas, 0, `at +${s}s`);
      history = result.history;
    }
  });

  it("fake clock: a nightly batch window raises the floor, metrics still go higher, upstream after", () => {
    const annotations = {
      "horizon.dev/schedule": JSON.stringify([
        { cron: "0 2 * * *", duration: "1h", minReplicas: 6 },
      ]),
    };
    let current = annotated(annotations, { minReplicas: 2 });
    let history: HpaHistory = EMPTY_HISTORY;
    let replicas = 2;
    const start = at("2026-11-24T01:59:00Z");
    const changes: { at: string; replicas: number; reason: string }[] = [];
    // 100m in all (2 pods at the 50% target), except a burst of 1200m from 02:30 to 02:35.
    for (let s = 15; s <= 90 * 60; s += 15) {
      const now = start + s * 1000;
      const burst = now >= at("2026-11-24T02:30:00Z") && now < at("2026-11-24T02:35:00Z");
      const result = syncExtendedOnce(
        input({ hpa: current, replicas, totalMilli: burst ? 1200 : 100, now, history }),
      );
      history = result.history;
      current = { ...current, status: result.status };
      if (result.scaleUpdated && result.desiredReplicas !== replicas) {
        replicas = result.desiredReplicas;
        changes.push({
          at: new Date(now).toISOString().slice(11, 19),
          replicas,
          reason: result.trace.rescaleReason ?? "",
        });
      }
    }
    assert.deepEqual(changes, [
      {
        at: "02:00:00",
        replicas: 6,
        reason:
          "Current number of replicas below the scheduled minReplicas 6 (horizon.dev/schedule)",
      },
      // 1200m over 6 pods is 400%: capped by the legacy limit max(2 × 6, 4) and maxReplicas 10.
      {
        at: "02:30:00",
        replicas: 10,
        reason: "cpu resource utilization (percentage of request) above target",
      },
      // The burst's last recommendation (02:34:45) leaves the 5 min window: down to the floor.
      { at: "02:39:45", replicas: 6, reason: "All metrics below target" },
      // The window closes: 100m over 6 pods (17m each, 34%) recommended 3 all along.
      { at: "03:00:00", replicas: 3, reason: "All metrics below target" },
      // 100m over 3 pods recommends 2, which the 5 min window holds back until 03:05.
      { at: "03:05:00", replicas: 2, reason: "All metrics below target" },
    ]);
  });
});

describe("knobs and schedules in conditions and Events", () => {
  const at = (iso: string) => Date.parse(iso);
  const nightly = {
    "horizon.dev/schedule": JSON.stringify([{ cron: "0 2 * * *", duration: "1h", minReplicas: 6 }]),
  };
  const byType = (result: SyncResult) =>
    Object.fromEntries(
      (result.status.conditions ?? []).map((c) => [
        c.type,
        `${c.status} ${c.reason}: ${c.message}`,
      ]),
    );

  const scheduleCases: {
    name: string;
    annotations: Record<string, string>;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
    replicas: number;
    totalMilli: number;
    now: string;
    history?: Partial<HpaHistory>;
    desiredReplicas: number;
    rescaleReason?: string;
    scalingLimited: string;
    limitReason: string;
    events: string[];
  }[] = [
    {
      name: "the floor holds metrics that want fewer: ScalingLimited ScheduledMinimum, an Event as the window opens",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 6,
      totalMilli: 100,
      now: "2026-11-24T02:15:00Z",
      desiredReplicas: 6,
      rescaleReason: "All metrics below target",
      scalingLimited:
        "True ScheduledMinimum: the desired replica count is less than the scheduled minimum replica count 6 (a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z)",
      limitReason: "ScheduledMinimum",
      events: [
        "Normal ScheduleActive: a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z: minReplicas is 6 (spec: 2)",
      ],
    },
    {
      name: "the same sync with the window already reported: no Event",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 6,
      totalMilli: 100,
      now: "2026-11-24T02:15:00Z",
      history: { scheduledFloor: 6 },
      desiredReplicas: 6,
      rescaleReason: "All metrics below target",
      scalingLimited:
        "True ScheduledMinimum: the desired replica count is less than the scheduled minimum replica count 6 (a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z)",
      limitReason: "ScheduledMinimum",
      events: [],
    },
    {
      name: "metrics above the floor: upstream's DesiredWithinRange",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 6,
      totalMilli: 480,
      now: "2026-11-24T02:15:00Z",
      history: { scheduledFloor: 6 },
      desiredReplicas: 10,
      rescaleReason: "cpu resource utilization (percentage of request) above target",
      scalingLimited: "False DesiredWithinRange: the desired count is within the acceptable range",
      limitReason: "DesiredWithinRange",
      events: [
        "Normal SuccessfulRescale: New size: 10; reason: cpu resource utilization (percentage of request) above target",
      ],
    },
    {
      name: "below the floor: raised without metrics, the rescale reason names the schedule",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 2,
      totalMilli: 100,
      now: "2026-11-24T02:00:00Z",
      history: { scheduledFloor: 0 },
      desiredReplicas: 6,
      rescaleReason:
        "Current number of replicas below the scheduled minReplicas 6 (horizon.dev/schedule)",
      scalingLimited: "(none)",
      limitReason: "(none)",
      events: [
        "Normal ScheduleActive: a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z: minReplicas is 6 (spec: 2)",
        "Normal SuccessfulRescale: New size: 6; reason: Current number of replicas below the scheduled minReplicas 6 (horizon.dev/schedule)",
      ],
    },
    {
      name: "with behavior policies: the floor is reported the same",
      annotations: nightly,
      spec: {
        minReplicas: 2,
        behavior: { scaleDown: { policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] } },
      },
      replicas: 6,
      totalMilli: 100,
      now: "2026-11-24T02:15:00Z",
      history: { scheduledFloor: 6 },
      desiredReplicas: 6,
      rescaleReason: "All metrics below target",
      scalingLimited:
        "True ScheduledMinimum: the desired replica count is less than the scheduled minimum replica count 6 (a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z)",
      limitReason: "ScheduledMinimum",
      events: [],
    },
    {
      name: "a floor not above spec.minReplicas: upstream's TooFewReplicas, the Event says so",
      annotations: {
        "horizon.dev/schedule": JSON.stringify([
          { cron: "0 2 * * *", duration: "1h", minReplicas: 2 },
        ]),
      },
      spec: { minReplicas: 3 },
      replicas: 3,
      totalMilli: 30,
      now: "2026-11-24T02:15:00Z",
      desiredReplicas: 3,
      rescaleReason: "All metrics below target",
      scalingLimited:
        "True TooFewReplicas: the desired replica count is less than the minimum replica count",
      limitReason: "TooFewReplicas",
      events: [
        "Normal ScheduleActive: a window of horizon.dev/schedule open until 2026-11-24T03:00:00Z: its minReplicas 2 is not above spec.minReplicas 3",
      ],
    },
    {
      name: "the window closed since the last sync: ScheduleInactive with the next opening",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 6,
      totalMilli: 100,
      now: "2026-11-24T03:00:00Z",
      history: { scheduledFloor: 6 },
      // 100m over 6 pods recommends 3; the last recommendation of 6 is 10 min old.
      desiredReplicas: 3,
      rescaleReason: "All metrics below target",
      scalingLimited: "False DesiredWithinRange: the desired count is within the acceptable range",
      limitReason: "DesiredWithinRange",
      events: [
        "Normal ScheduleInactive: no window of horizon.dev/schedule is open: minReplicas is 2 again; next window at 2026-11-25T02:00:00Z",
        "Normal SuccessfulRescale: New size: 3; reason: All metrics below target",
      ],
    },
    {
      name: "first sync with every window closed: nothing to report",
      annotations: nightly,
      spec: { minReplicas: 2 },
      replicas: 2,
      totalMilli: 100,
      now: "2026-11-24T12:00:00Z",
      desiredReplicas: 2,
      scalingLimited: "False DesiredWithinRange: the desired count is within the acceptable range",
      limitReason: "DesiredWithinRange",
      events: [],
    },
  ];
  for (const c of scheduleCases) {
    it(`schedule: ${c.name}`, () => {
      const now = at(c.now);
      const result = syncExtendedOnce(
        input({
          hpa: annotated(c.annotations, c.spec ?? {}),
          replicas: c.replicas,
          totalMilli: c.totalMilli,
          now,
          // A recommendation history, so a stabilization window is not what holds the count.
          history: {
            ...EMPTY_HISTORY,
            recommendations: [{ replicas: c.replicas, timestamp: now - 600_000 }],
            ...c.history,
          },
        }),
      );
      assert.equal(result.desiredReplicas, c.desiredReplicas);
      assert.equal(result.trace.rescaleReason, c.rescaleReason);
      assert.equal(byType(result).ScalingLimited ?? "(none)", c.scalingLimited);
      assert.equal(result.trace.limit?.reason ?? "(none)", c.limitReason);
      assert.deepEqual(
        result.events.map((e) => `${e.type} ${e.reason}: ${e.message}`),
        c.events,
      );
    });
  }

  it("fake clock: a night of syncs reports the window once as it opens and once as it closes", () => {
    let current = annotated(nightly, { minReplicas: 2 });
    let history: HpaHistory = EMPTY_HISTORY;
    let replicas = 2;
    const start = at("2026-11-24T01:00:00Z");
    const reported: string[] = [];
    const limited: string[] = [];
    for (let s = 15; s <= 3 * 3600; s += 15) {
      const now = start + s * 1000;
      const result = syncExtendedOnce(
        input({ hpa: current, replicas, totalMilli: 100, now, history }),
      );
      history = result.history;
      current = { ...current, status: result.status };
      if (result.scaleUpdated) replicas = result.desiredReplicas;
      const time = new Date(now).toISOString().slice(11, 19);
      for (const e of result.events)
        if (e.reason.startsWith("Schedule")) reported.push(`${time} ${e.reason}`);
      const reason = condition(result, "ScalingLimited")?.reason;
      if (reason !== undefined && reason !== limited.at(-1)?.split(" ")[1])
        limited.push(`${time} ${reason}`);
    }
    assert.deepEqual(reported, ["02:00:00 ScheduleActive", "03:00:00 ScheduleInactive"]);
    // The floor binds from the first sync at 6 replicas until the window closes.
    assert.deepEqual(limited, [
      "01:00:15 DesiredWithinRange",
      "02:00:15 ScheduledMinimum",
      "03:00:00 DesiredWithinRange",
    ]);
  });

  const knobCases: {
    name: string;
    annotations: Record<string, string>;
    behavior?: HorizontalPodAutoscalerBehavior;
    history?: Partial<HpaHistory>;
    /** The replicas recommended 1 min ago (held by a stabilization window). */
    recent?: number;
    totalMilli: number;
    scalingActive: string;
    ableToScale: string;
    events: string[];
  }[] = [
    {
      name: "tolerance: ValidMetricFound names it, one Override Event on the first sync",
      annotations: { "horizon.dev/tolerance": "0.5" },
      totalMilli: 280,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request) (per-HPA tolerance 0.5: horizon.dev annotations)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [
        "Normal Override: per-HPA overrides of controller flags: horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 for this HPA (controller: 0.1)",
      ],
    },
    {
      name: "the same overrides already reported: no Event",
      annotations: { "horizon.dev/tolerance": "0.5" },
      history: {
        overrides:
          "horizon.dev/tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 for this HPA (controller: 0.1)",
      },
      totalMilli: 280,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request) (per-HPA tolerance 0.5: horizon.dev annotations)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [],
    },
    {
      name: "every metric knob in the condition, in one message",
      annotations: {
        "horizon.dev/scale-up-tolerance": "0.5",
        "horizon.dev/scale-down-tolerance": "0.2",
        "horizon.dev/cpu-initialization-period": "90s",
        "horizon.dev/initial-readiness-delay": "10s",
      },
      history: { overrides: "(an older set)" },
      totalMilli: 280,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request) (per-HPA scale-up tolerance 0.5, scale-down tolerance 0.2, cpu-initialization-period 1m30s, initial-readiness-delay 10s: horizon.dev annotations)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [
        "Normal Override: per-HPA overrides of controller flags: horizon.dev/scale-up-tolerance: --horizontal-pod-autoscaler-tolerance is 0.5 when scaling up for this HPA (controller: 0.1); horizon.dev/scale-down-tolerance: --horizontal-pod-autoscaler-tolerance is 0.2 when scaling down for this HPA (controller: 0.1); horizon.dev/cpu-initialization-period: --horizontal-pod-autoscaler-cpu-initialization-period is 1m30s for this HPA (controller: 5m0s); horizon.dev/initial-readiness-delay: --horizontal-pod-autoscaler-initial-readiness-delay is 10s for this HPA (controller: 30s)",
      ],
    },
    {
      name: "downscale-stabilization: ScaleDownStabilized names the window it held with",
      annotations: { "horizon.dev/downscale-stabilization": "10m" },
      recent: 4,
      totalMilli: 140,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      ableToScale:
        "True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation (a window of 10m0s from horizon.dev/downscale-stabilization)",
      events: [
        "Normal Override: per-HPA overrides of controller flags: horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 10m0s for this HPA (controller: 5m0s)",
      ],
    },
    {
      name: "downscale-stabilization under spec.behavior's own window: upstream's message",
      annotations: { "horizon.dev/downscale-stabilization": "10m" },
      behavior: { scaleDown: { stabilizationWindowSeconds: 600 } },
      history: {
        overrides:
          "horizon.dev/downscale-stabilization: --horizontal-pod-autoscaler-downscale-stabilization is 10m0s for this HPA (controller: 5m0s)",
      },
      recent: 4,
      totalMilli: 140,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      ableToScale:
        "True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation",
      events: [],
    },
    {
      name: "sync-period: an Event, no condition changes",
      annotations: { "horizon.dev/sync-period": "5s" },
      totalMilli: 200,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [
        "Normal Override: per-HPA overrides of controller flags: horizon.dev/sync-period: --horizontal-pod-autoscaler-sync-period is 5s for this HPA (controller: 15s)",
      ],
    },
    {
      name: "the knobs removed, another annotation left: the flags apply again, said once",
      annotations: { "horizon.dev/fallback-replicas": "3" },
      history: { overrides: "horizon.dev/sync-period: ..." },
      totalMilli: 200,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [
        "Normal Override: no per-HPA overrides any more: the controller's flags apply to this HPA again",
      ],
    },
    {
      name: "every annotation removed: upstream's sync and one Event per report in force",
      annotations: {},
      history: { overrides: "horizon.dev/sync-period: ...", scheduledFloor: 6 },
      totalMilli: 200,
      scalingActive:
        "True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
      ableToScale: "True ReadyForNewScale: recommended size matches current size",
      events: [
        "Normal ScheduleInactive: horizon.dev/schedule was removed: minReplicas is 1 again",
        "Normal Override: no per-HPA overrides any more: the controller's flags apply to this HPA again",
      ],
    },
  ];
  for (const c of knobCases) {
    it(`knobs: ${c.name}`, () => {
      const now = t(600);
      const result = syncExtendedOnce(
        input({
          hpa: annotated(c.annotations, c.behavior ? { behavior: c.behavior } : {}),
          replicas: 4,
          totalMilli: c.totalMilli,
          now,
          history: {
            ...EMPTY_HISTORY,
            recommendations: c.recent
              ? [{ replicas: c.recent, timestamp: now - 60_000 }]
              : [{ replicas: 4, timestamp: now - 600_000 }],
            ...c.history,
          },
        }),
      );
      const conditions = byType(result);
      assert.equal(conditions.ScalingActive, c.scalingActive);
      assert.equal(conditions.AbleToScale, c.ableToScale);
      assert.deepEqual(
        result.events.map((e) => `${e.type} ${e.reason}: ${e.message}`),
        c.events,
      );
      // Without annotations nothing is remembered for reports any more.
      if (Object.keys(c.annotations).length === 0) {
        assert.equal(result.history.overrides, undefined);
        assert.equal(result.history.scheduledFloor, undefined);
      }
    });
  }
});

describe("interactions with behavior policies", () => {
  // One pod per minute at most, either way: what the rules do past such policies.
  const slow: HorizontalPodAutoscalerBehavior = {
    scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
    scaleDown: {
      stabilizationWindowSeconds: 0,
      policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
    },
  };
  const queue: HorizontalPodAutoscaler["spec"]["metrics"] = [
    {
      type: "External",
      external: {
        metric: { name: "queue_messages_ready" },
        target: { type: "AverageValue", averageValue: "10" },
      },
    },
  ];
  const cases: {
    name: string;
    annotations: Record<string, string>;
    spec?: Partial<HorizontalPodAutoscaler["spec"]>;
    replicas: number;
    observations: (now: number) => MetricObservation[];
    history?: HpaHistory;
    desiredReplicas: number;
  }[] = [
    {
      name: "upstream alone: the policy allows one pod (4 → 5)",
      annotations: {},
      replicas: 4,
      observations: (now) => [
        resourceObservation(
          cpuUsage(Object.fromEntries(pods(4).map((p) => [p.name, 100])), now),
          "cpu",
        ),
      ],
      desiredReplicas: 5,
    },
    {
      name: "a fallback scales straight to its count (4 → 8)",
      annotations: {
        "horizon.dev/fallback-replicas": "8",
        "horizon.dev/fallback-failure-threshold": "1",
      },
      replicas: 4,
      observations: () => [{ kind: "error", error: "down" }],
      desiredReplicas: 8,
    },
    {
      name: "the cooldown scales straight to zero (4 → 0)",
      annotations: { "horizon.dev/min-replicas": "0", "horizon.dev/cooldown-period": "1m" },
      spec: { metrics: queue },
      replicas: 4,
      observations: (now) => [{ kind: "external", valuesMilli: [0n], timestamp: now }],
      history: { ...EMPTY_HISTORY, scaleToZero: { lastActiveTime: t(15) - 60_000 } },
      desiredReplicas: 0,
    },
    {
      name: "a schedule's floor is reached at once, as upstream moves a target below minReplicas (2 → 6)",
      annotations: {
        "horizon.dev/schedule": JSON.stringify([
          { cron: "* * * * *", duration: "2m", minReplicas: 6 },
        ]),
      },
      replicas: 2,
      observations: (now) => [
        resourceObservation(
          cpuUsage(Object.fromEntries(pods(2).map((p) => [p.name, 50])), now),
          "cpu",
        ),
      ],
      desiredReplicas: 6,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = syncExtendedOnce(
        input({
          hpa: annotated(c.annotations, { behavior: slow, ...c.spec }),
          replicas: c.replicas,
          totalMilli: 0,
          ...(c.history ? { history: c.history } : {}),
          observations: c.observations(t(15)),
        }),
      );
      assert.equal(result.desiredReplicas, c.desiredReplicas);
    });
  }
});

describe("property: without horizon.dev annotations a sync is upstream's, byte for byte", () => {
  const behaviorArb: fc.Arbitrary<HorizontalPodAutoscalerBehavior | undefined> = fc.option(
    fc.record({
      scaleUp: fc.record({
        stabilizationWindowSeconds: fc.integer({ min: 0, max: 300 }),
        selectPolicy: fc.constantFrom("Max", "Min", "Disabled"),
        policies: fc.array(
          fc.record({
            type: fc.constantFrom("Pods", "Percent"),
            value: fc.integer({ min: 1, max: 200 }),
            periodSeconds: fc.integer({ min: 1, max: 120 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
      scaleDown: fc.record({
        stabilizationWindowSeconds: fc.integer({ min: 0, max: 300 }),
        selectPolicy: fc.constantFrom("Max", "Min", "Disabled"),
        policies: fc.array(
          fc.record({
            type: fc.constantFrom("Pods", "Percent"),
            value: fc.integer({ min: 1, max: 100 }),
            periodSeconds: fc.integer({ min: 1, max: 120 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
    }),
    { nil: undefined },
  );
  const scenarioArb = fc.record({
    minReplicas: fc.integer({ min: 1, max: 5 }),
    extraMax: fc.integer({ min: 0, max: 20 }),
    target: fc.integer({ min: 10, max: 150 }),
    behavior: behaviorArb,
    startReplicas: fc.integer({ min: 0, max: 30 }),
    annotations: fc.option(
      fc.dictionary(
        fc.constantFrom("example.com/owner", "kubectl.kubernetes.io/last-applied", "horizon.dev"),
        fc.string({ maxLength: 8 }),
      ),
      { nil: undefined },
    ),
    // Total CPU per step, and whether the metric fails at that step.
    steps: fc.array(
      fc.record({ totalMilli: fc.integer({ min: 0, max: 5000 }), fails: fc.boolean() }),
      { minLength: 1, maxLength: 12 },
    ),
    scaleWriteFails: fc.boolean(),
  });

  it("decisions, status, conditions, events and history match over generated runs", () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const base = hpa({
          minReplicas: s.minReplicas,
          maxReplicas: s.minReplicas + s.extraMax,
          metrics: [
            {
              type: "Resource",
              resource: {
                name: "cpu",
                target: { type: "Utilization", averageUtilization: s.target },
              },
            },
          ],
          ...(s.behavior ? { behavior: s.behavior } : {}),
        });
        let current: HorizontalPodAutoscaler = s.annotations
          ? { ...base, metadata: { ...base.metadata, annotations: s.annotations } }
          : base;
        let upstreamHistory: HpaHistory = EMPTY_HISTORY;
        let extendedHistory: HpaHistory = EMPTY_HISTORY;
        let replicas = s.startReplicas;
        s.steps.forEach((step, i) => {
          const now = t(15 * (i + 1));
          const observations: MetricObservation[] | undefined = step.fails
            ? [{ kind: "error", error: "unable to get metrics" }]
            : undefined;
          const make = (history: HpaHistory) =>
            input({
              hpa: current,
              replicas,
              totalMilli: step.totalMilli,
              now,
              history,
              ...(observations ? { observations } : {}),
            });
          const outcome =
            s.scaleWriteFails && i % 3 === 2
              ? { ok: false as const, error: "x" }
              : { ok: true as const };
          const upstreamDecision = decideSync(make(upstreamHistory));
          const upstream = completeSync(
            upstreamDecision,
            upstreamDecision.rescale ? outcome : null,
          );
          const decision = decideExtendedSync(make(extendedHistory));
          const extended = completeExtendedSync(decision, decision.rescale ? outcome : null);
          assert.equal(JSON.stringify(extended), JSON.stringify(upstream));
          upstreamHistory = upstream.history;
          extendedHistory = extended.history;
          current = { ...current, status: extended.status };
          if (extended.scaleUpdated) replicas = extended.desiredReplicas;
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("extensionsOf", () => {
  it("follows the annotations and the spec, whatever HPA object holds them", () => {
    const annotations = {
      "horizon.dev/schedule": '[{"cron": "0 8 * * *", "duration": "1h", "minReplicas": 11}]',
    };
    const base = hpa({ maxReplicas: 10 });
    const first = { ...base, metadata: { ...base.metadata, annotations } };
    assert.deepEqual(
      extensionsOf(first).errors.map((e) => e.message),
      ["[0].minReplicas: 11 is above spec.maxReplicas 10"],
    );
    // A status write: a new HPA object holding the same annotations and spec.
    const written = { ...first, status: { desiredReplicas: 3 } };
    assert.equal(extensionsOf(written), extensionsOf(first));
    // The same annotations over another spec are read against it.
    const raised = { ...first, spec: { ...first.spec, maxReplicas: 20 } };
    assert.deepEqual(extensionsOf(raised).errors, []);
    assert.equal(extensionsOf(raised).extensions?.schedule?.windows.length, 1);
    // Other annotations (another object) are parsed anew.
    const paused = {
      ...first,
      metadata: { ...first.metadata, annotations: { "horizon.dev/paused": "true" } },
    };
    assert.equal(extensionsOf(paused).extensions?.paused, true);
    // None at all: nothing to parse.
    assert.equal(extensionsOf(base).extensions, null);
  });
});
