// What the dashboard shows, computed from the recorded history and the HPAs as an informer (or
// a simulation) holds them: the overview rows, one HPA's charts and timeline, one sync's
// explanation (by the one explainer, src/explain), and a stream of changes for live views.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { formatHPAMetrics } from "../apiserver/kinds/printing.js";
import { explain } from "../explain/explanation.js";
import { explanationText } from "../explain/text.js";
import { decisionOf, type HistoryRecord, type HpaHistory } from "./history.js";
import type {
  HpaDetail,
  HpaSummary,
  OverviewDocument,
  RecordedEvent,
  StreamEvents,
  SyncDetail,
  SyncEntry,
} from "./types.js";

/** The HPAs as an informer holds them (autoscaling/v2), keyed `namespace/name`. */
export interface HpaLister {
  list(): readonly HorizontalPodAutoscaler[];
  get(key: string): HorizontalPodAutoscaler | undefined;
  subscribe(listener: (key: string, hpa: HorizontalPodAutoscaler | null) => void): () => void;
}

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
  };
}

export class DashboardData {
  readonly source: string;
  private readonly history: HpaHistory;
  private readonly hpas: HpaLister;

  constructor(options: DashboardDataOptions) {
    this.history = options.history;
    this.hpas = options.hpas;
    this.source = options.source;
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
    return { hpas, source: this.source };
  }

  summary(key: string): HpaSummary | null {
    const [namespace, name] = splitKey(key);
    const hpa = this.hpas.get(key);
    const latest = this.history.latest(namespace, name);
    if (!hpa && !latest) return null;
    const sparkline = this.history
      .get(namespace, name, SPARKLINE_MS)
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
        targets: formatHPAMetrics(hpa.spec.metrics, hpa.status?.currentMetrics),
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
      targets: "<unknown>",
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
    return {
      summary,
      hpa: this.hpas.get(key) ?? null,
      samples: records.map((record) => record.sample),
      syncs: records.map(syncEntryOf),
      events: events.slice(-MAX_EVENTS),
      capacity: this.history.capacity,
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
