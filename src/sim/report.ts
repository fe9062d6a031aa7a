// `horizon simulate --report FILE.html`: the report's data, built while the records stream by;
// src/web/report.ts writes it into one self-contained HTML file that the dashboard's own
// components render. Chart series are decimated into fixed time buckets so memory and file
// size stay bounded on long runs; every scaling action keeps its full decision trace.
// Contents: docs/simulate.md ("Report").
import { Quantity } from "../api/quantity.js";
import type { DecisionTrace, MetricTrace } from "../core/trace.js";
import { metricName } from "../explain/format.js";
import { explain, explanationSummary, explanationText } from "../explain/index.js";
import {
  COMPARED_MEASURES,
  formatComparedValue,
  formatDelta,
  formatNumber,
  pairHpas,
  RECORD_SHAPES,
  stableStringify,
} from "./output.js";
import type {
  SampleRecord,
  SimulationRecord,
  StartRecord,
  SummaryRecord,
  SyncRecord,
} from "./timeline.js";

/** Time buckets per series; each keeps at most 4 points (first, min, max, last) → ≤ 2,000. */
export const CHART_BUCKETS = 500;
export const MAX_POINTS_PER_SERIES = CHART_BUCKETS * 4;
/** Caps on the listed events and condition changes per HPA (and scenario events). */
export const MAX_LISTED = 500;
/** Custom metric names charted per workload. */
const MAX_SAMPLE_METRICS = 8;

// ---------------------------------------------------------------------------------------------
// Decimated series.

/** A time series reduced to the first, lowest, highest and last point of each time bucket. */
export class Series {
  readonly #bucketSeconds: number;
  readonly #done: number[] = [];
  #bucket = -1;
  #first: [number, number] = [0, 0];
  #min: [number, number] = [0, 0];
  #max: [number, number] = [0, 0];
  #last: [number, number] = [0, 0];

  constructor(durationSeconds: number) {
    this.#bucketSeconds = Math.max(durationSeconds, 1) / CHART_BUCKETS;
  }

  add(t: number, v: number): void {
    if (!Number.isFinite(v) || !Number.isFinite(t)) return;
    const bucket = Math.min(CHART_BUCKETS - 1, Math.max(0, Math.floor(t / this.#bucketSeconds)));
    const point: [number, number] = [t, v];
    if (bucket > this.#bucket) {
      this.#flush(this.#done);
      this.#bucket = bucket;
      this.#first = this.#min = this.#max = this.#last = point;
      return;
    }
    // Same bucket (or a record out of order, folded into the current one).
    if (v < this.#min[1]) this.#min = point;
    if (v > this.#max[1]) this.#max = point;
    this.#last = point;
  }

  #flush(into: number[]): void {
    if (this.#bucket < 0) return;
    const kept = [this.#first, this.#min, this.#max, this.#last]
      .filter((p, i, all) => all.indexOf(p) === i)
      .sort((a, b) => a[0] - b[0]);
    for (const [t, v] of kept) into.push(t, v);
  }

  /** The kept points in time order. */
  points(): [number, number][] {
    const flat = [...this.#done];
    this.#flush(flat);
    const out: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// What the builder keeps.

interface WorkloadData {
  demand: Series;
  served: Series;
  spec: Series;
  pods: Series;
  ready: Series;
  cpu: Series;
  sampleMetrics: Map<string, Series>;
}

interface MetricData {
  label: string;
  unit: string;
  current: Series;
  target: Series;
}

interface ActionData {
  t: number;
  from: number;
  to: number;
  reason: string;
  limit: string;
  trace: DecisionTrace;
}

export interface ListedEvent {
  t: number;
  lastT: number;
  count: number;
  type: string;
  reason: string;
  message: string;
}

export interface ConditionChange {
  t: number;
  type: string;
  status: string;
  reason: string;
  message: string;
}

interface HpaData {
  hpa: string;
  target: string | null;
  metricsText: string[];
  desired: Series;
  current: Series;
  metrics: Map<number, MetricData>;
  actions: ActionData[];
  events: ListedEvent[];
  eventsDropped: number;
  conditions: ConditionChange[];
  conditionsDropped: number;
  lastConditions: Map<string, string>;
}

const targetCache = new Map<string, number | null>();

/** A quantity string as a float (null if unparsable), cached: targets repeat every sync. */
function quantityValue(text: string): number | null {
  const cached = targetCache.get(text);
  if (cached !== undefined) return cached;
  const parsed = Quantity.tryParse(text);
  const value = parsed.ok ? parsed.quantity.asApproximateFloat64() : null;
  if (targetCache.size < 10_000) targetCache.set(text, value);
  return value;
}

/** A metric trace's current and target on one scale: percent for Utilization, else quantities. */
export function metricPoint(m: MetricTrace): {
  current: number | null;
  target: number | null;
  unit: string;
} {
  if (!m.target) return { current: null, target: null, unit: "" };
  if (m.target.type === "Utilization") {
    const target = Number.parseFloat(m.target.value);
    return {
      current: m.utilization ?? null,
      target: Number.isFinite(target) ? target : null,
      unit: "% of request",
    };
  }
  return {
    current: m.current === undefined ? null : quantityValue(m.current),
    target: quantityValue(m.target.value),
    unit: "",
  };
}

export class ReportBuilder {
  readonly #start: StartRecord;
  readonly #duration: number;
  readonly #hpas = new Map<string, HpaData>();
  readonly #workloads = new Map<string, WorkloadData>();
  readonly #scenarioEvents: { t: number; event: string; detail: string }[] = [];
  #scenarioEventsDropped = 0;
  #comparison: { other: ReportBuilder; summary: SummaryRecord; labels: [string, string] } | null =
    null;

  constructor(start: StartRecord) {
    this.#start = start;
    this.#duration = start.durationSeconds;
    for (const h of start.hpas) {
      this.#hpaData(h.hpa, h.target, h.metrics);
      if (!this.#workloads.has(h.target)) this.#workloads.set(h.target, this.#newWorkload());
    }
  }

  #newWorkload(): WorkloadData {
    const d = this.#duration;
    return {
      demand: new Series(d),
      served: new Series(d),
      spec: new Series(d),
      pods: new Series(d),
      ready: new Series(d),
      cpu: new Series(d),
      sampleMetrics: new Map(),
    };
  }

  #hpaData(hpa: string, target: string | null, metricsText: string[]): HpaData {
    let data = this.#hpas.get(hpa);
    if (!data) {
      data = {
        hpa,
        target,
        metricsText,
        desired: new Series(this.#duration),
        current: new Series(this.#duration),
        metrics: new Map(),
        actions: [],
        events: [],
        eventsDropped: 0,
        conditions: [],
        conditionsDropped: 0,
        lastConditions: new Map(),
      };
      this.#hpas.set(hpa, data);
    }
    return data;
  }

  add(record: SimulationRecord): void {
    switch (record.type) {
      case "sample":
        this.#sample(record);
        return;
      case "sync":
        this.#sync(record);
        return;
      case "event":
        if (this.#scenarioEvents.length < MAX_LISTED) {
          this.#scenarioEvents.push({ t: record.t, event: record.event, detail: record.detail });
        } else this.#scenarioEventsDropped++;
        return;
      default:
        return;
    }
  }

  #sample(s: SampleRecord): void {
    const w = this.#workloads.get(s.workload);
    if (!w) return;
    w.demand.add(s.t, s.demandRps);
    w.served.add(s.t, s.servedRps);
    w.spec.add(s.t, s.specReplicas);
    w.pods.add(s.t, s.pods);
    w.ready.add(s.t, s.readyPods);
    if (s.cpuUtilization !== null) w.cpu.add(s.t, s.cpuUtilization);
    if (s.metrics) {
      for (const [name, value] of Object.entries(s.metrics)) {
        let series = w.sampleMetrics.get(name);
        if (!series) {
          if (w.sampleMetrics.size >= MAX_SAMPLE_METRICS) continue;
          series = new Series(this.#duration);
          w.sampleMetrics.set(name, series);
        }
        series.add(s.t, value);
      }
    }
  }

  #sync(r: SyncRecord): void {
    const h = this.#hpaData(r.hpa, null, []);
    const trace = r.trace;
    // A failed sync decided nothing: its desired count is the status' old one (0 at first).
    if (trace.outcome !== "failed") h.desired.add(r.t, r.desiredReplicas);
    if (!("error" in trace.scale)) h.current.add(r.t, r.currentReplicas);
    for (const m of trace.metrics) {
      const point = metricPoint(m);
      let data = h.metrics.get(m.index);
      if (!data) {
        if (point.target === null && point.current === null) continue;
        data = {
          label: metricName({ ...m, description: m.description ?? h.metricsText[m.index] }),
          unit: point.unit,
          current: new Series(this.#duration),
          target: new Series(this.#duration),
        };
        h.metrics.set(m.index, data);
      }
      if (point.current !== null) data.current.add(r.t, point.current);
      if (point.target !== null) data.target.add(r.t, point.target);
    }
    for (const c of r.conditions) {
      const key = `${c.status}\u0000${c.reason ?? ""}`;
      if (h.lastConditions.get(c.type) === key) continue;
      h.lastConditions.set(c.type, key);
      if (h.conditions.length < MAX_LISTED) {
        h.conditions.push({
          t: r.t,
          type: c.type,
          status: c.status,
          reason: c.reason ?? "",
          message: c.message ?? "",
        });
      } else h.conditionsDropped++;
    }
    for (const e of r.events) {
      // Repeats of the same event fold into one entry, as Kubernetes aggregates events.
      const last = h.events[h.events.length - 1];
      if (last && last.type === e.type && last.reason === e.reason && last.message === e.message) {
        last.count++;
        last.lastT = r.t;
      } else if (h.events.length < MAX_LISTED) {
        h.events.push({ t: r.t, lastT: r.t, count: 1, ...e });
      } else h.eventsDropped++;
    }
    if (r.scaled && r.desiredReplicas !== r.currentReplicas) {
      h.actions.push({
        t: r.t,
        from: r.currentReplicas,
        to: r.desiredReplicas,
        reason: trace.rescaleReason ?? "",
        limit: trace.limit?.reason ?? "",
        trace,
      });
    }
  }

  /** Adds a second run, drawn on the same axes as this one, with the summary deltas. */
  addComparison(
    other: ReportBuilder,
    otherSummary: SummaryRecord,
    labels: [string, string] = ["A", "B"],
  ): void {
    this.#comparison = { other, summary: otherSummary, labels };
  }

  /** The report's data: what the page (src/web/app/report.tsx) renders, as JSON. */
  document(summary: SummaryRecord): ReportDocument {
    const cmp = this.#comparison;
    const runs = [this.#run(summary, cmp ? cmp.labels[0] : "")];
    if (cmp) runs.push(cmp.other.#run(cmp.summary, cmp.labels[1]));
    const names: string[] = [];
    for (const run of runs)
      for (const k of Object.keys(run.hpas)) if (!names.includes(k)) names.push(k);
    return {
      schema: REPORT_SCHEMA,
      title: cmp
        ? `Horizon simulation: ${cmp.labels[0]} vs ${cmp.labels[1]}`
        : `Horizon simulation: ${this.#start.scenario}`,
      durationSeconds: Math.max(...runs.map((r) => r.start.durationSeconds)),
      hpas: names,
      runs,
      summary: summaryTables(
        runs.map((r) => r.summary),
        runs.map((r) => r.label),
      ),
    };
  }

  #run(summary: SummaryRecord, label: string): ReportRun {
    const hpas: Record<string, ReportHpa> = {};
    for (const [name, h] of this.#hpas) {
      hpas[name] = {
        target: h.target,
        metricsText: h.metricsText,
        desired: h.desired.points(),
        current: h.current.points(),
        metrics: [...h.metrics.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([index, m]) => ({
            index,
            label: m.label,
            unit: m.unit,
            current: m.current.points(),
            target: m.target.points(),
          })),
        actions: h.actions.map((a) => ({
          t: a.t,
          from: a.from,
          to: a.to,
          reason: a.reason,
          limit: a.limit,
          explanation: explanationText(explain(a.trace)),
          trace: JSON.parse(stableStringify(a.trace, RECORD_SHAPES.sync.children!.trace)),
        })),
        events: h.events,
        eventsDropped: h.eventsDropped,
        conditions: h.conditions,
        conditionsDropped: h.conditionsDropped,
      };
    }
    const workloads: Record<string, ReportWorkload> = {};
    for (const [name, w] of this.#workloads) {
      workloads[name] = {
        demand: w.demand.points(),
        served: w.served.points(),
        spec: w.spec.points(),
        pods: w.pods.points(),
        ready: w.ready.points(),
        cpu: w.cpu.points(),
        sampleMetrics: Object.fromEntries(
          [...w.sampleMetrics.entries()].map(([n, series]) => [n, series.points()]),
        ),
      };
    }
    return {
      label,
      start: this.#start,
      summary,
      scenarioEvents: this.#scenarioEvents,
      scenarioEventsDropped: this.#scenarioEventsDropped,
      hpas,
      workloads,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The document.

export const REPORT_SCHEMA = "horizon.dev/report/v1";

/** [t seconds, value] points, in time order (decimated: at most MAX_POINTS_PER_SERIES). */
export type ReportPoints = [number, number][];

export interface ReportWorkload {
  demand: ReportPoints;
  served: ReportPoints;
  spec: ReportPoints;
  pods: ReportPoints;
  ready: ReportPoints;
  cpu: ReportPoints;
  sampleMetrics: Record<string, ReportPoints>;
}

export interface ReportHpa {
  /** The scale target, `namespace/Kind/name`. */
  target: string | null;
  metricsText: string[];
  desired: ReportPoints;
  current: ReportPoints;
  metrics: {
    index: number;
    label: string;
    unit: string;
    current: ReportPoints;
    target: ReportPoints;
  }[];
  /** Every scaling action, with its decision explained (src/explain) and its trace. */
  actions: {
    t: number;
    from: number;
    to: number;
    reason: string;
    limit: string;
    explanation: string[];
    trace: unknown;
  }[];
  /** Events, repeats folded (count, last time); at most MAX_LISTED. */
  events: ListedEvent[];
  eventsDropped: number;
  /** Each change of a condition's status or reason; at most MAX_LISTED. */
  conditions: ConditionChange[];
  conditionsDropped: number;
}

export interface ReportRun {
  /** "" for a single run; the run's name in a comparison. */
  label: string;
  start: StartRecord;
  summary: SummaryRecord;
  scenarioEvents: { t: number; event: string; detail: string }[];
  scenarioEventsDropped: number;
  hpas: Record<string, ReportHpa>;
  workloads: Record<string, ReportWorkload>;
}

/** A table of formatted cells: the summary, or per HPA the two runs and their delta. */
export interface ReportTable {
  /** The HPA a comparison's table is about (null: the single run's table of every HPA). */
  hpa: string | null;
  head: string[];
  /** The first cell is a row header (an HPA, which links to its section, or a measure). */
  rows: { head: string; hpa: string | null; cells: string[] }[];
}

export interface ReportDocument {
  schema: typeof REPORT_SCHEMA;
  title: string;
  /** Every chart's time axis: 0 to the longer run's duration. */
  durationSeconds: number;
  /** The HPAs of both runs, in the order first seen. */
  hpas: string[];
  runs: ReportRun[];
  summary: ReportTable[];
}

function summaryTables(summaries: SummaryRecord[], labels: string[]): ReportTable[] {
  if (summaries.length === 1) {
    return [
      {
        hpa: null,
        head: ["HPA", "bounds", ...COMPARED_MEASURES.map((m) => m.label), "target utilization (%)"],
        rows: summaries[0]!.hpas.map((s) => ({
          head: s.hpa,
          hpa: s.hpa,
          cells: [
            `${s.minReplicas}–${s.maxReplicas}`,
            ...COMPARED_MEASURES.map((m) => formatComparedValue(m, m.value(s))),
            s.targetUtilization === null ? "n/a" : formatNumber(s.targetUtilization, 1),
          ],
        })),
      },
    ];
  }
  const [a, b] = summaries as [SummaryRecord, SummaryRecord];
  const [la, lb] = labels as [string, string];
  return pairHpas(a, b).map(([name, sa, sb]) => ({
    hpa: name,
    head: ["measure", la, lb, `delta (${lb} − ${la})`],
    rows: COMPARED_MEASURES.map((m) => {
      const va = sa ? m.value(sa) : undefined;
      const vb = sb ? m.value(sb) : undefined;
      return {
        head: m.label,
        hpa: null,
        cells: [formatComparedValue(m, va), formatComparedValue(m, vb), formatDelta(m, va, vb)],
      };
    }),
  }));
}

/** The compact reasons of a decision, one line per step (src/explain's summary rendering). */
export function explainTrace(trace: DecisionTrace): string[] {
  return explanationSummary(explain(trace));
}
