// What the dashboard shows, computed from the recorded history and the HPAs as an informer (or
// a simulation) holds them: the overview rows, one HPA's charts and timeline, one sync's
// explanation (by the one explainer, src/explain), and a stream of changes for live views.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { explain } from "../explain/explanation.js";
import { explanationText } from "../explain/text.js";
import { formatHPAMetrics } from "../kinds/printing.js";
import { decisionOf, type HistoryRecord, type HpaHistory } from "./history.js";
import type {
  HpaDetail,
  HpaSummary,
  OverviewDocument,
  RecordedEvent,
  RunMeasures,
  StreamEvents,
  SyncDetail,
  SyncEntry,
  WhatIfEdits,
  WhatIfResult,
} from "./types.js";

/** The HPAs as an informer holds them (autoscaling/v2), keyed `namespace/name`. */
export interface HpaLister {
  list(): readonly HorizontalPodAutoscaler[];
  get(key: string): HorizontalPodAutoscaler | undefined;
  subscribe(listener: (key: string, hpa: HorizontalPodAutoscaler | null) => void): () => void;
}

export type WhatIfAnswer =
  | { ok: true; value: WhatIfResult }
  | { ok: false; status: 404 | 422; error: string; causes?: string[] };

export type StreamListener = <K extends keyof StreamEvents>(
  event: K,
  data: StreamEvents[K],
) => void;

/** The sparkline's span. */
export const SPARKLINE_MS = 60 * 60 * 1000;
/** Events listed on one HPA's page. */
const MAX_EVENTS = 100;

export interface DashboardDataOptions {
  history: HpaHistory;
  hpas: HpaLister;
  /** Shown in the header ("controller", a simulation's name). */
  source: string;
  /** A simulation's end: the views' "now" (default: live, the browser's clock). */
  clock?: number;
  /** A simulation's first instant: the views read their times as offsets from it. */
  start?: number;
  /** A simulation's measures per HPA key. */
  measures?: (key: string) => RunMeasures | null;
  /** `simulate --compare`: the other run. */
  compare?: { label: string; history: HpaHistory; measures: (key: string) => RunMeasures | null };
  /** What-if runs (simulations): the HPA edited, run again. */
  whatIf?: {
    /** "simulation": the scenario run again; "replay": the recorded hour replayed (src/web/replay.ts). */
    kind: "simulation" | "replay";
    run: (namespace: string, name: string, edits: WhatIfEdits) => Promise<WhatIfAnswer>;
  };
}

function keyOfHpa(hpa: HorizontalPodAutoscaler): string {
  return `${hpa.metadata.namespace ?? "default"}/${hpa.metadata.name ?? ""}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}

export function syncEntryOf(record: HistoryRecord): SyncEntry {
  return {
    seq: record.seq,
    at: record.sample.at,
    currentReplicas: record.sample.currentReplicas,
    desiredReplicas: record.sample.desiredReplicas,
    outcome: record.sample.outcome,
    reason: record.reason,
    limited: record.limited,
  };
}

/**
 * TARGETS from the last sync's trace, for HPAs whose status carries no current metrics (a
 * simulation's, or before the first status write): current/target per metric.
 */
export function targetsOfTrace(record: HistoryRecord): string {
  const metrics = decisionOf(record).trace.metrics;
  if (metrics.length === 0) return "<none>";
  const shown = metrics.slice(0, 2).map((m) => {
    if (!m.target) return "<unknown>";
    if (m.target.type === "Utilization") {
      // The trace writes the target as the API does ("50%"), the current as a number.
      const current = m.utilization === undefined ? "<unknown>" : `${m.utilization}%`;
      return `${m.description?.split(" ")[0] ?? m.type}: ${current}/${m.target.value}`;
    }
    return `${m.current ?? "<unknown>"}/${m.target.value}${m.target.type === "AverageValue" && m.type !== "Pods" ? " (avg)" : ""}`;
  });
  return metrics.length > 2
    ? `${shown.join(", ")} + ${metrics.length - 2} more...`
    : shown.join(", ");
}

export class DashboardData {
  readonly source: string;
  private readonly history: HpaHistory;
  private readonly hpas: HpaLister;
  private readonly options: DashboardDataOptions;

  constructor(options: DashboardDataOptions) {
    this.options = options;
    this.history = options.history;
    this.hpas = options.hpas;
    this.source = options.source;
  }

  /** Runs a what-if, or null when this source has none (a live controller). */
  whatIf(namespace: string, name: string, edits: WhatIfEdits): Promise<WhatIfAnswer> | null {
    return this.options.whatIf?.run(namespace, name, edits) ?? null;
  }

  get capacity(): number {
    return this.history.capacity;
  }

  /** Every HPA the lister holds, and those with history only, sorted by namespace and name. */
  keys(): string[] {
    const keys = new Set(this.history.keys());
    for (const hpa of this.hpas.list()) keys.add(keyOfHpa(hpa));
    return [...keys].sort();
  }

  overview(): OverviewDocument {
    const hpas: HpaSummary[] = [];
    for (const key of this.keys()) {
      const summary = this.summary(key);
      if (summary) hpas.push(summary);
    }
    return {
      hpas,
      source: this.source,
      clock: this.options.clock ?? null,
      start: this.options.start ?? null,
    };
  }

  summary(key: string): HpaSummary | null {
    const [namespace, name] = splitKey(key);
    const hpa = this.hpas.get(key);
    const latest = this.history.latest(namespace, name);
    if (!hpa && !latest) return null;
    const sparkline = this.history
      .get(namespace, name, SPARKLINE_MS)
      // A failed sync decided nothing (its desired replicas are the status' old value, 0 at first).
      .filter((record) => record.sample.outcome !== "failed")
      .map((record) => record.sample.desiredReplicas);
    const lastSync = latest?.sample.at ?? null;
    if (hpa) {
      const ref = hpa.spec.scaleTargetRef;
      return {
        namespace,
        name,
        reference: `${ref.kind}/${ref.name}`,
        minReplicas: hpa.spec.minReplicas ?? 1,
        maxReplicas: hpa.spec.maxReplicas,
        currentReplicas: hpa.status?.currentReplicas ?? null,
        desiredReplicas: hpa.status?.desiredReplicas ?? null,
        targets: hpa.status?.currentMetrics
          ? formatHPAMetrics(hpa.spec.metrics, hpa.status.currentMetrics)
          : latest
            ? targetsOfTrace(latest)
            : formatHPAMetrics(hpa.spec.metrics, null),
        conditions: hpa.status?.conditions ?? [],
        lastScaleTime: hpa.status?.lastScaleTime ?? null,
        sparkline,
        lastSync,
      };
    }
    const sample = latest!.sample;
    return {
      namespace,
      name,
      reference: "",
      minReplicas: sample.minReplicas,
      maxReplicas: sample.maxReplicas,
      currentReplicas: sample.currentReplicas,
      desiredReplicas: sample.desiredReplicas,
      targets: targetsOfTrace(latest!),
      conditions: decisionOf(latest!).conditions,
      lastScaleTime: null,
      sparkline,
      lastSync,
    };
  }

  detail(namespace: string, name: string): HpaDetail | null {
    const key = `${namespace}/${name}`;
    const summary = this.summary(key);
    if (!summary) return null;
    const records = this.history.get(namespace, name);
    const events: RecordedEvent[] = [];
    for (const record of records) {
      for (const event of record.events) events.push({ ...event, at: record.sample.at });
    }
    const compare = this.options.compare;
    return {
      summary,
      hpa: this.hpas.get(key) ?? null,
      samples: records.map((record) => record.sample),
      syncs: records.map(syncEntryOf),
      events: events.slice(-MAX_EVENTS),
      capacity: this.history.capacity,
      measures: this.options.measures?.(key) ?? null,
      compare: compare
        ? {
            label: compare.label,
            samples: compare.history.get(namespace, name).map((record) => record.sample),
            measures: compare.measures(key),
          }
        : null,
      whatIf: this.options.whatIf?.kind ?? null,
    };
  }

  sync(namespace: string, name: string, seq: number): SyncDetail | null {
    const record = this.history.get(namespace, name).find((r) => r.seq === seq);
    if (!record) return null;
    const decision = decisionOf(record);
    const explanation = explain(decision.trace);
    return {
      entry: syncEntryOf(record),
      explanation,
      text: explanationText(explanation),
      conditions: decision.conditions,
      events: decision.events,
      error: decision.error,
    };
  }

  /** Changes, as the event stream sends them: new syncs, changed and deleted HPAs. */
  subscribe(listener: StreamListener): () => void {
    const offHistory = this.history.subscribe((event) => {
      if (event.type === "forget") return;
      listener("sync", {
        key: event.key,
        sample: event.record.sample,
        entry: syncEntryOf(event.record),
        events: event.record.events,
      });
      const summary = this.summary(event.key);
      if (summary) listener("hpa", summary);
    });
    const offHpas = this.hpas.subscribe((key, hpa) => {
      if (hpa === null) {
        listener("deleted", { key });
        return;
      }
      const summary = this.summary(key);
      if (summary) listener("hpa", summary);
    });
    return () => {
      offHistory();
      offHpas();
    };
  }
}
