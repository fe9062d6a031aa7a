// The per-HPA measures `horizon simulate` prints, computed while the records stream by. Every
// measure is defined in docs/simulate.md ("Measures"); this file implements exactly that text.
// Memory grows with the number of HPAs and workloads, plus the outputs themselves (one entry
// per scaling action and per load step), never with the number of samples or syncs.
import type { DecisionTrace } from "../core/trace.js";
import { type DemandYardstick, demandPods } from "./demand.js";
import type {
  HpaSummary,
  SampleRecord,
  SimulationRecord,
  StartRecord,
  SummaryRecord,
  SyncRecord,
} from "./timeline.js";

/** A rise of demand between two samples counts as a load step above both of these. */
export const LOAD_STEP_RELATIVE = 0.1;
export const LOAD_STEP_MIN_RPS = 1;

/**
 * Flaps are reversals within this many seconds, whatever the HPA's own stabilization window:
 * upstream's default downscale stabilization (5m). One yardstick for every run, so that runs
 * with different windows compare (with its own window, a window of 0 could never flap).
 */
export const FLAP_WINDOW_SECONDS = 300;

/** Relative slack when comparing served with demand (both are float sums). */
const EPSILON = 1e-9;

/** Whether ready pods served all the offered load. */
export function demandMet(demandRps: number, servedRps: number): boolean {
  return servedRps >= demandRps - EPSILON * Math.max(1, Math.abs(demandRps));
}

/** Whether the demand rose from `from` to `to` by more than the load-step threshold. */
export function isLoadStep(from: number, to: number): boolean {
  const rise = to - from;
  return rise > LOAD_STEP_RELATIVE * from && rise > LOAD_STEP_MIN_RPS;
}

/** Parses "Resource cpu Utilization 50%" (a StartRecord metric) to 50. */
function cpuTargetFromDescription(metrics: readonly string[]): number | null {
  for (const m of metrics) {
    const match = /^(?:Resource|ContainerResource) cpu Utilization (\d+(?:\.\d+)?)%$/.exec(m);
    if (match) return Number(match[1]);
  }
  return null;
}

interface PendingStep {
  index: number;
  t: number;
}

/** Accumulators of one workload (shared by the HPAs that target it). */
class WorkloadState {
  last: SampleRecord | null = null;
  podSeconds = 0;
  unmetSeconds = 0;
  unmetPodSeconds = 0;
  /** Shortfall × time while the per-pod capacity was not yet known (converted at the end). */
  unknownCapacityRpsSeconds = 0;
  /** Per-pod capacity: given by the sample, or inferred from a saturated sample. */
  capacity: number | null | undefined = undefined;
  utilizationWeighted = 0;
  utilizationSeconds = 0;
  steps: { t: number; fromRps: number; toRps: number }[] = [];
  stepTimes: (number | null)[] = [];
  pending: PendingStep[] = [];

  add(sample: SampleRecord): void {
    const prev = this.last;
    if (prev) {
      this.close(prev, sample.t - prev.t);
      if (isLoadStep(prev.demandRps, sample.demandRps)) {
        this.steps.push({ t: sample.t, fromRps: prev.demandRps, toRps: sample.demandRps });
        this.stepTimes.push(null);
        this.pending.push({ index: this.stepTimes.length - 1, t: sample.t });
      }
    }
    this.learnCapacity(sample);
    if (this.pending.length > 0 && demandMet(sample.demandRps, sample.servedRps)) {
      for (const step of this.pending) this.stepTimes[step.index] = sample.t - step.t;
      this.pending = [];
    }
    this.last = sample;
  }

  private learnCapacity(sample: SampleRecord): void {
    if (sample.capacityRps !== undefined) {
      this.capacity = sample.capacityRps;
      return;
    }
    // Ready pods short of the demand serve at capacity, so served / ready is the per-pod capacity.
    if (
      sample.readyPods > 0 &&
      sample.servedRps > 0 &&
      !demandMet(sample.demandRps, sample.servedRps)
    ) {
      this.capacity = sample.servedRps / sample.readyPods;
    }
  }

  /** Adds the interval during which `sample` held (its values until the next sample). */
  close(sample: SampleRecord, dt: number): void {
    if (!(dt > 0)) return;
    this.podSeconds += sample.pods * dt;
    if (sample.cpuUtilization !== null && Number.isFinite(sample.cpuUtilization)) {
      this.utilizationWeighted += sample.cpuUtilization * dt;
      this.utilizationSeconds += dt;
    }
    if (!demandMet(sample.demandRps, sample.servedRps)) {
      const shortfall = sample.demandRps - sample.servedRps;
      this.unmetSeconds += dt;
      const capacity = sample.capacityRps !== undefined ? sample.capacityRps : this.capacity;
      if (capacity === undefined) this.unknownCapacityRpsSeconds += shortfall * dt;
      else if (capacity !== null && capacity > 0)
        this.unmetPodSeconds += (shortfall * dt) / capacity;
    }
  }
}

/**
 * The elasticity measures of Herbst et al. over one HPA's samples (docs/simulate.md
 * "Elasticity"): demand = the fewest ready pods that meet its targets at the offered load,
 * supply = the ready pods. Each sample holds until the next; the last is closed at the end.
 */
class Elasticity {
  /** Time covered by samples with a demand, seconds. */
  seconds = 0;
  under = 0;
  over = 0;
  underSeconds = 0;
  overSeconds = 0;
  demandPodSeconds = 0;
  /** Time covered by samples after the first (instability's denominator) and the part in which supply and demand moved differently. */
  movedSeconds = 0;
  unstableSeconds = 0;
  supplyChanges = 0;
  demandChanges = 0;
  /** The sample holding now, and the one before it. */
  t = Number.NaN;
  demand: number | null = null;
  supply = 0;
  moved = false;
  unstable = false;
  /** The last offered load converted, and its demand (a run repeats loads often). */
  lastRps = Number.NaN;
  lastPods: number | null = null;

  constructor(readonly yardstick: DemandYardstick) {}

  add(t: number, demandRps: number, supply: number): void {
    this.close(t);
    let demand: number | null;
    if (demandRps === this.lastRps) demand = this.lastPods;
    else {
      demand = demandPods(this.yardstick, demandRps);
      this.lastRps = demandRps;
      this.lastPods = demand;
    }
    const previous = this.demand;
    this.moved = previous !== null && demand !== null;
    if (this.moved) {
      const ds = Math.sign(supply - this.supply);
      const dd = Math.sign(demand! - previous!);
      this.unstable = ds !== dd;
      if (ds !== 0) this.supplyChanges++;
      if (dd !== 0) this.demandChanges++;
    }
    this.t = t;
    this.demand = demand;
    this.supply = supply;
  }

  /** Adds the holding sample's interval up to `end`. */
  close(end: number): void {
    const dt = end - this.t;
    const d = this.demand;
    if (!(dt > 0) || d === null) return;
    const s = this.supply;
    this.seconds += dt;
    this.demandPodSeconds += d * dt;
    if (d > s) {
      this.under += ((d - s) / d) * dt;
      this.underSeconds += dt;
    } else if (s > d) {
      this.over += ((s - d) / d) * dt;
      this.overSeconds += dt;
    }
    if (this.moved) {
      this.movedSeconds += dt;
      if (this.unstable) this.unstableSeconds += dt;
    }
  }

  /** The measures with the holding sample closed at `end` (this object is left as it was). */
  result(end: number): ElasticityMeasures {
    const c = Object.assign(new Elasticity(this.yardstick), this);
    c.close(end);
    const pct = (x: number, of: number) => (of > 0 ? (100 * x) / of : null);
    return {
      demandPodHours: c.seconds > 0 ? c.demandPodSeconds / 3600 : null,
      underProvisioningAccuracy: pct(c.under, c.seconds),
      overProvisioningAccuracy: pct(c.over, c.seconds),
      underProvisioningTimeshare: pct(c.underSeconds, c.seconds),
      overProvisioningTimeshare: pct(c.overSeconds, c.seconds),
      instability: pct(c.unstableSeconds, c.movedSeconds),
      jitter: c.seconds > 0 ? (c.supplyChanges - c.demandChanges) / (c.seconds / 60) : null,
    };
  }
}

type ElasticityMeasures = Pick<
  HpaSummary,
  | "demandPodHours"
  | "underProvisioningAccuracy"
  | "overProvisioningAccuracy"
  | "underProvisioningTimeshare"
  | "overProvisioningTimeshare"
  | "instability"
  | "jitter"
>;

const NO_ELASTICITY: ElasticityMeasures = {
  demandPodHours: null,
  underProvisioningAccuracy: null,
  overProvisioningAccuracy: null,
  underProvisioningTimeshare: null,
  overProvisioningTimeshare: null,
  instability: null,
  jitter: null,
};

/** Per-HPA accumulators. */
class HpaState {
  lowest = Number.POSITIVE_INFINITY;
  highest = Number.NEGATIVE_INFINITY;
  final: number | null = null;
  scaleUps = 0;
  scaleDowns = 0;
  flaps = 0;
  lastAction: { t: number; up: boolean } | null = null;
  targetUtilization: number | null;
  actions: HpaSummary["actions"] = [];
  elasticity: Elasticity | null = null;

  constructor(
    readonly hpa: string,
    readonly workload: string | null,
    readonly minReplicas: number,
    readonly maxReplicas: number,
    metrics: readonly string[],
  ) {
    this.targetUtilization = cpuTargetFromDescription(metrics);
  }

  observe(replicas: number): void {
    if (!Number.isFinite(replicas)) return;
    if (replicas < this.lowest) this.lowest = replicas;
    if (replicas > this.highest) this.highest = replicas;
    this.final = replicas;
  }

  // The last target parsed: a trace says the same target at every sync.
  #targetText: string | undefined = undefined;
  #targetValue = Number.NaN;

  /**
   * The first cpu Utilization target in a trace's metrics (failed metrics carry no target),
   * parsed only when its text changed.
   */
  #cpuTarget(trace: DecisionTrace): number | null {
    for (const m of trace.metrics) {
      if (
        (m.type === "Resource" || m.type === "ContainerResource") &&
        m.target?.type === "Utilization" &&
        m.description?.startsWith("cpu ")
      ) {
        const text = m.target.value;
        if (text !== this.#targetText) {
          this.#targetText = text;
          this.#targetValue = Number.parseFloat(text);
        }
        if (Number.isFinite(this.#targetValue)) return this.#targetValue;
      }
    }
    return null;
  }

  sync(record: SyncRecord): void {
    const trace = record.trace;
    const target = this.#cpuTarget(trace);
    if (target !== null) this.targetUtilization = target;
    // A scale that could not be read says nothing about the replicas.
    if (!("error" in trace.scale)) this.observe(record.currentReplicas);
    if (!record.scaled || record.desiredReplicas === record.currentReplicas) return;
    this.observe(record.desiredReplicas);
    const up = record.desiredReplicas > record.currentReplicas;
    if (up) this.scaleUps++;
    else this.scaleDowns++;
    const last = this.lastAction;
    if (last && last.up !== up && record.t - last.t <= FLAP_WINDOW_SECONDS) this.flaps++;
    this.lastAction = { t: record.t, up };
    this.actions.push({
      t: record.t,
      from: record.currentReplicas,
      to: record.desiredReplicas,
      reason: trace.rescaleReason ?? "",
      limit: extensionLimit(trace) ?? trace.limit?.reason ?? "",
    });
  }
}

/** The horizon.dev/ rule that set this count over upstream's (its reason), if one did. */
function extensionLimit(trace: DecisionTrace): string | undefined {
  const rules = trace.extensions ?? [];
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.replicas === trace.desiredReplicas && rule.upstreamReplicas !== rule.replicas) {
      return rule.reason;
    }
  }
  return undefined;
}

/**
 * The values of keys that arrive in the same order again and again (a run's samples go through
 * the workloads in one order at every instant, its syncs through the HPAs in key order): the
 * next key is compared with the one that came after the previous key last time, and only a
 * different key is looked up in the map. Same answers as the map, which it only caches.
 */
class ArrivalOrder<T> {
  readonly #keys: string[] = [];
  readonly #values: T[] = [];
  #next = 0;

  constructor(readonly map: ReadonlyMap<string, T>) {}

  get(key: string): T | undefined {
    let i = this.#next;
    if (i < this.#keys.length && this.#keys[i] === key) {
      this.#next = i + 1;
      return this.#values[i];
    }
    if (this.#keys.length > 0 && this.#keys[0] === key) {
      this.#next = 1;
      return this.#values[0];
    }
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    // Learned at this position (bounded: past the map's size it starts again from the front).
    if (i > this.map.size) i = 0;
    this.#keys[i] = key;
    this.#values[i] = value;
    this.#next = i + 1;
    return value;
  }
}

/**
 * A class, not a literal: made once per run, a literal's field types are widened by V8 at its
 * second run (the next `horizon tune` candidate), which deoptimized the optimized `add`.
 */
class WorkloadMeasures {
  constructor(
    readonly state: WorkloadState,
    /** The HPAs targeting it. */
    readonly hpas: readonly HpaState[],
  ) {}
}

export class MeasureCollector {
  readonly #start: StartRecord;
  readonly #hpas = new Map<string, HpaState>();
  readonly #workloads = new Map<string, WorkloadState>();
  /** The HPAs targeting each workload. */
  readonly #byWorkload = new Map<string, HpaState[]>();
  readonly #sampled = new Map<string, WorkloadMeasures>();
  readonly #sampleOrder = new ArrivalOrder(this.#sampled);
  readonly #syncOrder = new ArrivalOrder(this.#hpas);
  #latestT = 0;

  /**
   * `yardsticks`: each HPA's demand model (by `namespace/name`) for the elasticity measures;
   * without one an HPA's are null.
   */
  constructor(
    start: StartRecord,
    yardsticks: Readonly<Record<string, DemandYardstick | null>> = {},
  ) {
    this.#start = start;
    for (const h of start.hpas) {
      const state = new HpaState(h.hpa, h.target, h.minReplicas, h.maxReplicas, h.metrics);
      const yardstick = Object.hasOwn(yardsticks, h.hpa) ? yardsticks[h.hpa] : null;
      if (yardstick) state.elasticity = new Elasticity(yardstick);
      this.#hpas.set(h.hpa, state);
      if (!this.#workloads.has(h.target)) this.#workloads.set(h.target, new WorkloadState());
      const list = this.#byWorkload.get(h.target);
      if (list) list.push(state);
      else this.#byWorkload.set(h.target, [state]);
    }
    for (const [key, state] of this.#workloads) {
      this.#sampled.set(key, new WorkloadMeasures(state, this.#byWorkload.get(key) ?? []));
    }
  }

  add(record: SimulationRecord): void {
    switch (record.type) {
      case "sample": {
        this.#seen(record.t);
        const workload = this.#sampleOrder.get(record.workload);
        if (!workload) return;
        workload.state.add(record);
        for (const hpa of workload.hpas) {
          hpa.observe(record.specReplicas);
          hpa.elasticity?.add(record.t, record.demandRps, record.readyPods);
        }
        return;
      }
      case "sync": {
        this.#seen(record.t);
        let hpa = this.#syncOrder.get(record.hpa);
        if (!hpa) {
          // An HPA the start record did not list: measured from its syncs alone.
          hpa = new HpaState(
            record.hpa,
            null,
            record.trace.minReplicas,
            record.trace.maxReplicas,
            [],
          );
          this.#hpas.set(record.hpa, hpa);
        }
        hpa.sync(record);
        return;
      }
      case "event":
        this.#seen(record.t);
        return;
      default:
        return;
    }
  }

  #seen(t: number): void {
    if (t > this.#latestT) this.#latestT = t;
  }

  /** The measures so far, the last sample of each workload held until the end of the run. */
  summary(): SummaryRecord {
    const end = Math.max(this.#start.durationSeconds, this.#latestT);
    const closed = new Map<string, WorkloadState>();
    for (const [key, w] of this.#workloads) {
      // Close on a copy so that summary() can be called more than once.
      const copy = Object.assign(new WorkloadState(), w);
      if (w.last) copy.close(w.last, end - w.last.t);
      closed.set(key, copy);
    }
    const hpas: HpaSummary[] = [];
    for (const h of this.#hpas.values()) {
      const w = h.workload === null ? undefined : closed.get(h.workload);
      const capacity = w?.capacity;
      const unknown =
        w && w.unknownCapacityRpsSeconds > 0 && typeof capacity === "number" && capacity > 0
          ? w.unknownCapacityRpsSeconds / capacity
          : 0;
      hpas.push({
        hpa: h.hpa,
        minReplicas: h.minReplicas,
        maxReplicas: h.maxReplicas,
        lowestReplicas: h.final === null ? 0 : h.lowest,
        highestReplicas: h.final === null ? 0 : h.highest,
        finalReplicas: h.final ?? 0,
        podHours: (w?.podSeconds ?? 0) / 3600,
        scaleUps: h.scaleUps,
        scaleDowns: h.scaleDowns,
        flaps: h.flaps,
        unmetDemandPodSeconds: (w?.unmetPodSeconds ?? 0) + unknown,
        unmetDemandSeconds: w?.unmetSeconds ?? 0,
        timeToMeetDemandSeconds: w ? [...w.stepTimes] : [],
        loadSteps: w ? w.steps.map((s) => ({ ...s })) : [],
        meanUtilization:
          w && w.utilizationSeconds > 0 ? w.utilizationWeighted / w.utilizationSeconds : null,
        targetUtilization: h.targetUtilization,
        actions: h.actions.map((a) => ({ ...a })),
        ...(h.elasticity && h.workload !== null ? h.elasticity.result(end) : NO_ELASTICITY),
        // Only an HPA that never read its scale carries the field (--assert fails on it).
        ...(h.final === null ? { failedGetScale: true as const } : {}),
      });
    }
    return { type: "summary", hpas };
  }
}
