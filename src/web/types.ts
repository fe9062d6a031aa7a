// The dashboard API's documents (docs/dashboard.md), shared by the server and the front end
// (type imports only: the browser bundle carries none of the server's code).
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerCondition,
} from "../api/types.js";
import type { SyncEvent } from "../core/sync.js";
import type { Explanation } from "../explain/explanation.js";
import type { SyncSample } from "./history.js";

export type { SyncSample };

/** One row of the overview. */
export interface HpaSummary {
  namespace: string;
  name: string;
  /** The scale target as `kubectl get hpa` prints REFERENCE: Kind/name. */
  reference: string;
  minReplicas: number;
  maxReplicas: number;
  /** From status (null before the first sync). */
  currentReplicas: number | null;
  desiredReplicas: number | null;
  /** Each metric's current/target as `kubectl get hpa` prints TARGETS. */
  targets: string;
  conditions: HorizontalPodAutoscalerCondition[];
  lastScaleTime: string | null;
  /** Desired replicas of each sync in the last hour that decided (not failed), oldest first. */
  sparkline: number[];
  /** Epoch ms of the last recorded sync. */
  lastSync: number | null;
}

/** One sync in the timeline: enough to list it; its explanation is fetched when opened. */
export interface SyncEntry {
  seq: number;
  at: number;
  currentReplicas: number;
  desiredReplicas: number;
  outcome: SyncSample["outcome"];
  /** The rescale reason, or the error, or the stabilization/limit reason that held it. */
  reason: string;
  /** A bound, a `behavior` policy or a stabilization window held the recommendation back. */
  limited: boolean;
}

export interface RecordedEvent extends SyncEvent {
  at: number;
}

/** GET /api/v1/namespaces/{ns}/hpas/{name}. */
export interface HpaDetail {
  summary: HpaSummary;
  /** The HPA as last seen (spec and status); null when only history is left. */
  hpa: HorizontalPodAutoscaler | null;
  samples: SyncSample[];
  syncs: SyncEntry[];
  /** The Events the recorded syncs emitted, newest last. */
  events: RecordedEvent[];
  /** Syncs kept per HPA. */
  capacity: number;
  /** A simulation's measures of this HPA (null for a live controller). */
  measures: RunMeasures | null;
  /** `simulate --compare`: the other run's trajectory of this HPA. */
  compare: Trajectory | null;
  /** Whether POST …/whatif answers (simulations). */
  whatIf: "simulation" | "replay" | null;
}

/** A run's measures of one HPA (src/sim/measures.ts). */
export interface RunMeasures {
  podHours: number;
  unmetDemandPodSeconds: number;
  unmetDemandSeconds: number;
  flaps: number;
  scaleUps: number;
  scaleDowns: number;
}

export interface Trajectory {
  label: string;
  samples: SyncSample[];
  measures: RunMeasures | null;
}

/** POST /api/v1/namespaces/{ns}/hpas/{name}/whatif: what to change (absent: unchanged). */
export interface WhatIfEdits {
  minReplicas?: number;
  maxReplicas?: number;
  /** null removes the behavior (upstream defaults). */
  behavior?: HorizontalPodAutoscalerBehavior | null;
}

export interface WhatIfResult {
  original: Trajectory;
  whatIf: Trajectory;
  /** The edits as a JSON merge patch, and the kubectl command that applies it. */
  patch: string;
  command: string;
  /**
   * "simulation": the scenario ran again; "open": a live replay with each sync's demand as
   * recorded; "closed": a live replay whose CPU Utilization metrics follow the replicas.
   */
  loop: "simulation" | "open" | "closed";
}

/** GET /api/v1/namespaces/{ns}/hpas/{name}/syncs/{seq}: one sync's decision, explained. */
export interface SyncDetail {
  entry: SyncEntry;
  explanation: Explanation;
  /** The explanation in words: the lines `horizon explain` prints. */
  text: string[];
  conditions: HorizontalPodAutoscalerCondition[];
  events: SyncEvent[];
  error: string | null;
}

/** GET /api/v1/hpas. */
export interface OverviewDocument {
  hpas: HpaSummary[];
  /** Where the data comes from ("controller", or a simulation's name). */
  source: string;
  /** The source's "now", epoch ms: a simulation's end (times read "ago" from it); null: live. */
  clock: number | null;
  /** A simulation's first instant, epoch ms (times read as offsets from it); null: live. */
  start: number | null;
}

/** What the event stream (GET /api/v1/events, text/event-stream) sends, by event name. */
export interface StreamEvents {
  hpa: HpaSummary;
  sync: { key: string; sample: SyncSample; entry: SyncEntry; events: SyncEvent[] };
  deleted: { key: string };
}
