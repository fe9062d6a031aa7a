// What-if over a live controller's recorded history: the recorded syncs replayed through the
// core's syncOnce with the HPA edited. Open loop: each sync's demand is read from its trace
// (usage ratio × the pods or replicas it was computed over = the replicas that would have met
// its target) and held fixed whatever replicas the replay reaches; in the replay each metric
// becomes an External AverageValue metric of that demand against a target of 1, so the core's
// tolerance, stabilization windows, behavior policies and min/max apply unchanged (the samples
// name each metric as the HPA does, in its units). Where the
// load and the target's response to it are known (`horizon up`'s cluster model), CPU
// Utilization metrics are closed loop: computed at the replicas the replay reached. Pod
// readiness and the response of other metrics (a queue draining faster) are not modelled: for
// those, run a simulation (horizon simulate --serve).

import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import type { HorizontalPodAutoscaler, MetricSpec } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import { type HpaHistory as CoreHistory, EMPTY_HISTORY } from "../core/history.js";
import type { MetricObservation } from "../core/sources/types.js";
import { syncOnce } from "../core/sync.js";
import type { DecisionTrace } from "../core/trace.js";
import type { HpaLister, WhatIfAnswer } from "./data.js";
import type { HpaHistory } from "./history.js";
import { decisionOf, type HistoryRecord, sampleOf } from "./history.js";
import type { RunMeasures, SyncSample, WhatIfEdits } from "./types.js";
import { editHpa } from "./whatif.js";

/** Each valid metric's demand in replicas at target (null: the metric gave no proposal). */
export function demandsOf(trace: DecisionTrace): (number | null)[] {
  return trace.metrics.map((m) => {
    const c = m.calculation;
    if (!c || m.proposal === undefined) return null;
    const basis = c.readyPodCount ?? c.podCount ?? trace.currentReplicas;
    return c.usageRatio * basis;
  });
}

function replayMetric(index: number): MetricSpec {
  return {
    type: "External",
    external: {
      metric: { name: `horizon-replay-${index}` },
      target: { type: "AverageValue", averageValue: "1" },
    },
  };
}

type SampleMetric = SyncSample["metrics"][number];

/**
 * A replayed metric as the HPA's own: its name and unit, and its value at the replay's replicas
 * (the replay's usage ratio — current over its target of 1 — times the metric's target), not
 * the stand-in External metric's.
 */
function asRecordedMetric(
  replayed: SampleMetric,
  recorded: SampleMetric | undefined,
): SampleMetric {
  if (!recorded) return replayed;
  const ratio =
    replayed.current !== null && replayed.target ? replayed.current / replayed.target : null;
  return {
    name: recorded.name,
    current: ratio !== null && recorded.target !== null ? ratio * recorded.target : null,
    target: recorded.target,
    unit: recorded.unit,
  };
}

export interface ReplayResult {
  samples: SyncSample[];
  measures: RunMeasures;
}

/**
 * How the scale target's pods respond to load, where a cluster model knows it (`horizon up`):
 * the mean CPU utilization (percent of request) of `replicas` ready pods serving `loadRps`
 * (null: unknown, e.g. no CPU request).
 */
export interface TargetResponse {
  cpuUtilization(loadRps: number, replicas: number): number | null;
}

/** Replicas searched for the fewest that meet a CPU target. */
const MAX_NEEDED = 10_000;

/** The fewest replicas whose CPU utilization at `loadRps` is within `target` (null: none). */
export function neededReplicas(
  response: TargetResponse,
  loadRps: number,
  target: number,
): number | null {
  const meets = (n: number) =>
    (response.cpuUtilization(loadRps, n) ?? Number.POSITIVE_INFINITY) <= target;
  if (!meets(MAX_NEEDED)) return null;
  // Utilization falls as replicas rise (the load spreads): the first that meets it.
  let low = 1;
  let high = MAX_NEEDED;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (meets(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** The CPU Utilization target of the HPA's metric `index` (percent), if it is one. */
function cpuTarget(hpa: HorizontalPodAutoscaler, index: number): number | null {
  const metric = hpa.spec.metrics?.[index];
  if (metric?.type !== "Resource" || metric.resource?.name !== "cpu") return null;
  const target = metric.resource.target;
  return target.type === "Utilization" && target.averageUtilization !== undefined
    ? target.averageUtilization
    : null;
}

/**
 * Replays `records` (oldest first) through the core with `hpa` (edited, defaulted) in force.
 * Flaps count direction changes within `flapWindowSeconds`: the same window for both runs of
 * a comparison (the recorded HPA's), or a window of 0 would never flap by definition. With the
 * target's `response` and a sync's recorded load, a CPU Utilization metric is closed loop: its
 * utilization is the response at the replicas the replay reached, and its demand the fewest
 * replicas that meet the target at that load.
 */
export function replay(
  hpa: HorizontalPodAutoscaler,
  records: readonly HistoryRecord[],
  config: ControllerConfig,
  flapWindowSeconds: number,
  response: TargetResponse | null = null,
): ReplayResult {
  const defaulted = setDefaultsHorizontalPodAutoscaler(hpa);
  let history: CoreHistory = EMPTY_HISTORY;
  let replicas = records[0] ? decisionOf(records[0]).trace.currentReplicas : 0;
  const samples: SyncSample[] = [];
  const needed: number[] = [];
  for (const record of records) {
    const decision = decisionOf(record);
    const load = record.sample.loadRps;
    const valid = demandsOf(decision.trace)
      .map((demand, index) => {
        const target = cpuTarget(defaulted, index);
        if (demand === null || !response || load === null || target === null || replicas < 1) {
          return { demand, needed: demand, index };
        }
        const utilization = response.cpuUtilization(load, replicas);
        if (utilization === null) return { demand, needed: demand, index };
        const closed = (utilization / target) * replicas;
        return { demand: closed, needed: neededReplicas(response, load, target) ?? closed, index };
      })
      .filter(
        (d): d is { demand: number; needed: number; index: number } =>
          d.demand !== null && d.needed !== null,
      );
    const at = record.sample.at;
    const observations: MetricObservation[] = valid.map((d) => ({
      kind: "external",
      valuesMilli: [BigInt(Math.round(d.demand * 1000))],
      timestamp: at,
    }));
    const result = syncOnce({
      now: at,
      hpa: {
        ...defaulted,
        spec: { ...defaulted.spec, metrics: valid.map((d) => replayMetric(d.index)) },
        status: { currentReplicas: replicas, desiredReplicas: replicas },
      },
      // External metrics read no pods, but a sync needs the target's selector all the same.
      scale: {
        ok: true,
        specReplicas: replicas,
        statusReplicas: replicas,
        selector:
          ("selector" in decision.trace.scale ? decision.trace.scale.selector : undefined) ??
          "horizon.dev/replay=true",
      },
      pods: [],
      observations,
      history,
      config,
    });
    history = result.history;
    const sample = sampleOf(
      { trace: result.trace, conditions: [], events: result.events, error: result.error },
      at,
      // The load is what it was: how it would change with other replicas is not known.
      load,
    );
    sample.metrics = sample.metrics.map((m, j) =>
      asRecordedMetric(m, record.sample.metrics[valid[j]!.index]),
    );
    samples.push(sample);
    needed.push(Math.ceil(Math.max(0, ...valid.map((d) => d.needed)) - 1e-9));
    if (result.scaleUpdated) replicas = result.desiredReplicas;
  }
  return { samples, measures: measuresOf(samples, needed, flapWindowSeconds) };
}

/**
 * Pod-hours (replicas × time between syncs), unmet demand (replicas short of the demand × time,
 * and the time it lasted), scale-ups and -downs, and flaps: a change of direction within the
 * scale-down window after the previous scaling, as the simulator counts them.
 */
export function measuresOf(
  samples: SyncSample[],
  needed: number[],
  windowSeconds: number,
): RunMeasures {
  const m: RunMeasures = {
    podHours: 0,
    unmetDemandPodSeconds: 0,
    unmetDemandSeconds: 0,
    flaps: 0,
    scaleUps: 0,
    scaleDowns: 0,
  };
  let last: { up: boolean; at: number } | null = null;
  samples.forEach((s, i) => {
    const next = samples[i + 1];
    const seconds = next ? (next.at - s.at) / 1000 : 0;
    m.podHours += (s.desiredReplicas * seconds) / 3600;
    const short = (needed[i] ?? 0) - s.desiredReplicas;
    if (short > 0) {
      m.unmetDemandPodSeconds += short * seconds;
      m.unmetDemandSeconds += seconds;
    }
    if (s.desiredReplicas === s.currentReplicas) return;
    const up = s.desiredReplicas > s.currentReplicas;
    if (up) m.scaleUps++;
    else m.scaleDowns++;
    if (last && last.up !== up && (s.at - last.at) / 1000 <= windowSeconds) m.flaps++;
    last = { up, at: s.at };
  });
  return m;
}

/** How much recorded history a live what-if replays: the last hour. */
export const REPLAY_MS = 60 * 60 * 1000;

/** A live controller's what-if: the last hour replayed as recorded and as edited. */
export function liveWhatIf(parts: {
  history: HpaHistory;
  hpas: HpaLister;
  config: ControllerConfig;
  /** The scale target's response to load, where a cluster model knows it (closed loop). */
  responseOf?: (hpa: HorizontalPodAutoscaler) => TargetResponse | null;
}): (namespace: string, name: string, edits: WhatIfEdits) => Promise<WhatIfAnswer> {
  return async (namespace, name, edits) => {
    const hpa = parts.hpas.get(`${namespace}/${name}`);
    const records = parts.history.get(namespace, name, REPLAY_MS);
    if (!hpa || records.length === 0) {
      return { ok: false, status: 404, error: `no HPA ${namespace}/${name} with recorded syncs` };
    }
    const edit = editHpa(hpa, edits, parts.config.featureGates);
    if (!edit.ok) return { ok: false, status: 422, error: edit.error, causes: edit.causes };
    const recorded = setDefaultsHorizontalPodAutoscaler({
      ...hpa,
      status: undefined,
    } as HorizontalPodAutoscaler);
    const window =
      recorded.spec.behavior?.scaleDown?.stabilizationWindowSeconds ??
      parts.config.downscaleStabilizationWindowMs / 1000;
    const response = parts.responseOf?.(hpa) ?? null;
    const asRecorded = replay(recorded, records, parts.config, window, response);
    const whatIf = replay(edit.hpa, records, parts.config, window, response);
    const closed =
      response !== null &&
      records.some((r) => r.sample.loadRps !== null) &&
      (recorded.spec.metrics ?? []).some((_, index) => cpuTarget(recorded, index) !== null);
    const patch = edit.patch;
    return {
      ok: true,
      value: {
        original: { label: "as recorded (replayed)", ...asRecorded },
        whatIf: { label: "what-if", ...whatIf },
        patch: JSON.stringify(patch, null, 2),
        command: `kubectl patch hpa ${name} -n ${namespace} --type merge -p '${JSON.stringify(patch)}'`,
        loop: closed ? "closed" : "open",
      },
    };
  };
}
