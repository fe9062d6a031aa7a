// The records a simulation emits, in time order. `--output json` streams them one per line
// (schema `horizon.dev/simulation/v1`, documented in docs/simulate.md); the summary, table,
// CSV and HTML report are all computed from this stream.
import type { HorizontalPodAutoscalerCondition } from "../api/types.js";
import type { SyncEvent } from "../core/sync.js";
import type { DecisionTrace } from "../core/trace.js";

export const SIMULATION_SCHEMA = "horizon.dev/simulation/v1";

export interface StartRecord {
  type: "start";
  schema: typeof SIMULATION_SCHEMA;
  scenario: string;
  seed: number;
  /** Virtual start time, RFC 3339. Record times `t` are seconds after it. */
  startTime: string;
  durationSeconds: number;
  /** The controller flags in force, by upstream name. */
  controllerFlags: Record<string, string>;
  hpas: {
    hpa: string;
    target: string;
    minReplicas: number;
    maxReplicas: number;
    /** Each metric as "<description> target <value>", e.g. "cpu Utilization 50%". */
    metrics: string[];
    /** The scale-down stabilization window in force at the start, seconds (informational). */
    scaleDownWindowSeconds: number;
  }[];
}

/** One workload's state, sampled at every metrics resolution step. */
export interface SampleRecord {
  type: "sample";
  t: number;
  /** "namespace/Kind/name". */
  workload: string;
  /** Offered load and what ready pods served (requests/s). */
  demandRps: number;
  servedRps: number;
  /** The scale's spec.replicas, pods that exist (not terminating), and ready pods. */
  specReplicas: number;
  pods: number;
  readyPods: number;
  /** Average CPU usage of ready pods as a percentage of request (null without requests). */
  cpuUtilization: number | null;
  /** Custom/external metric values by name at this time (e.g. queue length). */
  metrics?: Record<string, number>;
  /**
   * Requests/s one ready pod can serve (null = unlimited). Optional: without it the measures
   * infer it from saturated samples (served / ready pods); see docs/simulate.md.
   */
  capacityRps?: number | null;
}

/** One sync of one HPA. */
export interface SyncRecord {
  type: "sync";
  t: number;
  /** "namespace/name". */
  hpa: string;
  currentReplicas: number;
  desiredReplicas: number;
  scaled: boolean;
  /** The status after the sync (conditions with reasons and messages). */
  conditions: HorizontalPodAutoscalerCondition[];
  events: SyncEvent[];
  error: string | null;
  trace: DecisionTrace;
}

/** A scenario event taking effect (rolling update, pod kill, outage, restart, ...). */
export interface ScenarioEventRecord {
  type: "event";
  t: number;
  event: string;
  detail: string;
}

export interface HpaSummary {
  hpa: string;
  /** The HPA's spec bounds at the start of the run (not the replicas reached). */
  minReplicas: number;
  maxReplicas: number;
  /** The fewest and most spec replicas the scale target had during the run, and its last. */
  lowestReplicas: number;
  highestReplicas: number;
  finalReplicas: number;
  /** Σ pods (not terminating) × time, in hours. */
  podHours: number;
  scaleUps: number;
  scaleDowns: number;
  /** Direction reversals: a scale in one direction within 300 s (FLAP_WINDOW_SECONDS) after one in the other. */
  flaps: number;
  /** Σ max(0, demand − served) / capacity-per-pod over time, in pod-seconds (0 when capacity is unlimited). */
  unmetDemandPodSeconds: number;
  /** Time during which demand exceeded what ready pods could serve. */
  unmetDemandSeconds: number;
  /** For each rise of the offered load: seconds until ready capacity met it again (null if never). */
  timeToMeetDemandSeconds: (number | null)[];
  /** The load steps those times are measured from, in the same order. */
  loadSteps: { t: number; fromRps: number; toRps: number }[];
  /** Mean CPU utilization of ready pods (percent of request) vs the HPA's cpu target. */
  meanUtilization: number | null;
  targetUtilization: number | null;
  /** Every rescale: when, from, to, the reason text and the limit that applied. */
  actions: { t: number; from: number; to: number; reason: string; limit: string }[];
  // The elasticity measures (Herbst et al., SPEC RG; docs/simulate.md "Elasticity"), null
  // without a demand model. Optional for summaries made before them; simulate always writes them.
  /** Σ demand (fewest ready pods meeting the targets) × time, in hours. */
  demandPodHours?: number | null;
  /** θU, θO: mean relative shortfall / excess of ready pods against demand, percent. */
  underProvisioningAccuracy?: number | null;
  overProvisioningAccuracy?: number | null;
  /** τU, τO: share of time with fewer / more ready pods than demand, percent. */
  underProvisioningTimeshare?: number | null;
  overProvisioningTimeshare?: number | null;
  /** υ: share of time supply and demand moved in different directions, percent. */
  instability?: number | null;
  /** j: (supply changes − demand changes) per minute. */
  jitter?: number | null;
  /**
   * Present (true) when no sync ever read the scale target (upstream's FailedGetScale: a
   * scaleTargetRef naming nothing): the replica measures then describe no workload.
   */
  failedGetScale?: true;
}

export interface SummaryRecord {
  type: "summary";
  hpas: HpaSummary[];
  /** Wall time of the run, milliseconds (not part of determinism comparisons). */
  wallMs?: number;
}

export type SimulationRecord =
  | StartRecord
  | SampleRecord
  | SyncRecord
  | ScenarioEventRecord
  | SummaryRecord;
