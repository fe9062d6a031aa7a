// `horizon simulate --report FILE.html`: one self-contained HTML file (no network: inline CSS,
// inline SVG drawn here, a few lines of inline JS), built while the records stream by. Chart
// series are decimated into fixed time buckets so memory and file size stay bounded on long
// runs; every scaling action keeps its full decision trace. Contents: docs/simulate.md ("Report").
import { Quantity } from "../api/quantity.js";
import type { DecisionTrace, MetricTrace } from "../core/trace.js";
import { escapeHtml, explain, explanationHtml, explanationSummary } from "../explain/index.js";
import {
  COMPARED_MEASURES,
  formatComparedValue,
  formatDelta,
  formatNumber,
  formatSeconds,
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

interface ListedEvent {
  t: number;
  lastT: number;
  count: number;
  type: string;
  reason: string;
  message: string;
}

interface ConditionChange {
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
    h.desired.add(r.t, r.desiredReplicas);
    if (!("error" in trace.scale)) h.current.add(r.t, r.currentReplicas);
    for (const m of trace.metrics) {
      const point = metricPoint(m);
      let data = h.metrics.get(m.index);
      if (!data) {
        if (point.target === null && point.current === null) continue;
        data = {
          label: m.description ?? h.metricsText[m.index] ?? `metric ${m.index}`,
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

  html(summary: SummaryRecord): string {
    const cmp = this.#comparison;
    const runs: Run[] = [{ builder: this, summary, label: cmp ? cmp.labels[0] : "", dash: false }];
    if (cmp)
      runs.push({ builder: cmp.other, summary: cmp.summary, label: cmp.labels[1], dash: true });
    return renderDocument(runs);
  }

  // Read by the renderer (the same class, so private fields of both runs are reachable).
  static view(b: ReportBuilder): BuilderView {
    return {
      start: b.#start,
      duration: b.#duration,
      hpas: b.#hpas,
      workloads: b.#workloads,
      scenarioEvents: b.#scenarioEvents,
      scenarioEventsDropped: b.#scenarioEventsDropped,
    };
  }
}

interface BuilderView {
  start: StartRecord;
  duration: number;
  hpas: Map<string, HpaData>;
  workloads: Map<string, WorkloadData>;
  scenarioEvents: { t: number; event: string; detail: string }[];
  scenarioEventsDropped: number;
}

interface Run {
  builder: ReportBuilder;
  summary: SummaryRecord;
  label: string;
  dash: boolean;
}

// ---------------------------------------------------------------------------------------------
// SVG charts.

export { escapeHtml };

const WIDTH = 960;
const HEIGHT = 240;
const M = { left: 58, right: 30, top: 14, bottom: 28 };
const PLOT_W = WIDTH - M.left - M.right;

interface ChartLine {
  label: string;
  color: string;
  dash: boolean;
  step: boolean;
  points: [number, number][];
  /** Where a step line's last value ends (the run's end). */
  end: number;
}

interface ChartMarker {
  t: number;
  kind: "up" | "down" | "event";
  title: string;
  href?: string;
  /** 0: markers of the first run (top edge); 1: of the second (bottom edge). */
  row: 0 | 1;
}

function niceStep(range: number, ticks: number): number {
  const raw = range / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const f of [1, 2, 2.5, 5, 10]) if (raw <= f * mag) return f * mag;
  return 10 * mag;
}

const TIME_STEPS = [
  1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800,
  604800,
];

function timeStep(xMax: number): number {
  for (const s of TIME_STEPS) if (xMax / s <= 10) return s;
  return niceStep(xMax, 10);
}

function n1(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/** An SVG line chart over [0, xMax] seconds; y from 0 (or the lowest value) to the highest. */
export function svgChart(opts: {
  title: string;
  xMax: number;
  lines: ChartLine[];
  markers: ChartMarker[];
  height?: number;
}): string {
  const height = opts.height ?? HEIGHT;
  const plotH = height - M.top - M.bottom;
  const xMax = Math.max(opts.xMax, 1);
  let lo = 0;
  let hi = 0;
  for (const line of opts.lines)
    for (const [, v] of line.points) {
      if (v > hi) hi = v;
      if (v < lo) lo = v;
    }
  if (hi <= lo) hi = lo + 1;
  const yStep = niceStep(hi - lo, 5);
  const yMin = Math.floor(lo / yStep) * yStep;
  const yMax = Math.ceil((hi * 1.02) / yStep) * yStep || yStep;
  const x = (t: number) => M.left + (Math.min(Math.max(t, 0), xMax) / xMax) * PLOT_W;
  const y = (v: number) => M.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  const parts: string[] = [
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(opts.title)}">`,
    `<title>${escapeHtml(opts.title)}</title>`,
  ];
  // Grid and axes.
  for (let v = yMin; v <= yMax + yStep / 1000; v += yStep) {
    const yy = n1(y(v));
    parts.push(
      `<line class="grid" x1="${M.left}" x2="${WIDTH - M.right}" y1="${yy}" y2="${yy}"/>`,
      `<text class="ylab" x="${M.left - 6}" y="${yy}">${escapeHtml(formatNumber(v, 3))}</text>`,
    );
  }
  const ts = timeStep(xMax);
  for (let t = 0; t <= xMax + 1e-9; t += ts) {
    const xx = n1(x(t));
    parts.push(
      `<line class="grid" x1="${xx}" x2="${xx}" y1="${M.top}" y2="${M.top + plotH}"/>`,
      `<text class="xlab" x="${xx}" y="${height - 8}">${escapeHtml(formatSeconds(t))}</text>`,
    );
  }
  parts.push(
    `<rect class="frame" x="${M.left}" y="${M.top}" width="${PLOT_W}" height="${plotH}"/>`,
  );
  // Scenario events as vertical lines, behind the data.
  for (const mk of opts.markers) {
    if (mk.kind !== "event") continue;
    const xx = n1(x(mk.t));
    parts.push(
      `<line class="event${mk.row ? " b" : ""}" x1="${xx}" x2="${xx}" y1="${M.top}" y2="${M.top + plotH}"><title>${escapeHtml(mk.title)}</title></line>`,
    );
  }
  for (const line of opts.lines) {
    if (line.points.length === 0) continue;
    let d = "";
    line.points.forEach(([t, v], i) => {
      const xx = n1(x(t));
      const yy = n1(y(v));
      if (i === 0) d += `M${xx} ${yy}`;
      else if (line.step) d += `H${xx}V${yy}`;
      else d += `L${xx} ${yy}`;
    });
    if (line.step) d += `H${n1(x(line.end))}`;
    parts.push(
      `<path class="series" d="${d}" stroke="${line.color}"${line.dash ? ' stroke-dasharray="6 4"' : ""}><title>${escapeHtml(line.label)}</title></path>`,
    );
  }
  // Scaling actions as triangles on the top (first run) or bottom (second run) edge.
  for (const mk of opts.markers) {
    if (mk.kind === "event") continue;
    const xx = x(mk.t);
    const yy = mk.row === 0 ? M.top + 6 : M.top + plotH - 6;
    const pts =
      mk.kind === "up"
        ? `${n1(xx - 5)},${n1(yy + 4)} ${n1(xx + 5)},${n1(yy + 4)} ${n1(xx)},${n1(yy - 5)}`
        : `${n1(xx - 5)},${n1(yy - 4)} ${n1(xx + 5)},${n1(yy - 4)} ${n1(xx)},${n1(yy + 5)}`;
    const shape = `<polygon class="action ${mk.kind}${mk.row ? " b" : ""}" points="${pts}"><title>${escapeHtml(mk.title)}</title></polygon>`;
    parts.push(mk.href ? `<a href="${escapeHtml(mk.href)}">${shape}</a>` : shape);
  }
  parts.push("</svg>");
  return parts.join("");
}

/** Condition status over time, one band per condition type, plus a band of events. */
function svgConditionChart(opts: {
  title: string;
  xMax: number;
  rows: {
    label: string;
    segments: { from: number; to: number; cls: string; title: string }[];
    ticks: { t: number; cls: string; title: string }[];
  }[];
}): string {
  const band = 22;
  const height = M.top + opts.rows.length * band + M.bottom;
  const left = 170;
  const plotW = WIDTH - left - M.right;
  const xMax = Math.max(opts.xMax, 1);
  const x = (t: number) => left + (Math.min(Math.max(t, 0), xMax) / xMax) * plotW;
  const parts: string[] = [
    `<svg class="chart conditions" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(opts.title)}">`,
    `<title>${escapeHtml(opts.title)}</title>`,
  ];
  opts.rows.forEach((row, i) => {
    const top = M.top + i * band;
    parts.push(
      `<text class="rowlab" x="${left - 6}" y="${top + band / 2}">${escapeHtml(row.label)}</text>`,
      `<rect class="frame" x="${left}" y="${top + 3}" width="${plotW}" height="${band - 6}"/>`,
    );
    for (const s of row.segments) {
      const x1 = x(s.from);
      const w = Math.max(x(s.to) - x1, 0.5);
      parts.push(
        `<rect class="seg ${s.cls}" x="${n1(x1)}" y="${top + 4}" width="${n1(w)}" height="${band - 8}"><title>${escapeHtml(s.title)}</title></rect>`,
      );
    }
    for (const tk of row.ticks) {
      const xx = n1(x(tk.t));
      parts.push(
        `<line class="tick ${tk.cls}" x1="${xx}" x2="${xx}" y1="${top + 3}" y2="${top + band - 3}"><title>${escapeHtml(tk.title)}</title></line>`,
      );
    }
  });
  const axisY = M.top + opts.rows.length * band;
  const ts = timeStep(xMax);
  for (let t = 0; t <= xMax + 1e-9; t += ts) {
    parts.push(
      `<text class="xlab" x="${n1(x(t))}" y="${axisY + 16}">${escapeHtml(formatSeconds(t))}</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}

/** The compact reasons of a decision, one line per step (src/explain's summary rendering). */
export function explainTrace(trace: DecisionTrace): string[] {
  return explanationSummary(explain(trace));
}

// ---------------------------------------------------------------------------------------------
// The document.

const COLORS = {
  demand: "#d1495b",
  served: "#00798c",
  spec: "#2e4057",
  desired: "#edae49",
  ready: "#66a182",
  pods: "#8d96a3",
  current: "#00798c",
  target: "#d1495b",
  cpu: "#2e4057",
};
const PALETTE = [
  "#00798c",
  "#d1495b",
  "#edae49",
  "#66a182",
  "#2e4057",
  "#8d96a3",
  "#9b5de5",
  "#f15bb5",
];

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1000px;padding:16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ccd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d6d9e0;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f1f3f7}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:10px 0}figcaption{font-weight:600;margin-bottom:2px}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:18px;height:0;border-top:3px solid;margin-right:5px;vertical-align:middle}.legend i.dash{border-top-style:dashed}
svg.chart{max-width:100%;height:auto;background:#fff}
svg .grid{stroke:#e6e8ee;stroke-width:1}svg .frame{fill:none;stroke:#aab}svg .series{fill:none;stroke-width:1.8}
svg text{font-size:11px;fill:#556}svg .ylab{text-anchor:end;dominant-baseline:middle}svg .xlab{text-anchor:middle}svg .rowlab{text-anchor:end;dominant-baseline:middle}
svg .event{stroke:#9b5de5;stroke-width:1.2;stroke-dasharray:3 3}svg .event.b{stroke:#f15bb5}
svg .action.up{fill:#2a9d3f}svg .action.down{fill:#d1495b}svg .action.b{opacity:.6}
svg .seg.True{fill:#2a9d3f}svg .seg.False{fill:#d1495b}svg .seg.Unknown{fill:#999}svg .seg.limitedFalse{fill:#2a9d3f}svg .seg.limitedTrue{fill:#e9a03b}svg .tick{stroke-width:2}svg .tick.Normal{stroke:#00798c}svg .tick.Warning{stroke:#d1495b}svg .tick.scenario{stroke:#9b5de5}
details{border:1px solid #d6d9e0;border-radius:4px;margin:4px 0;padding:2px 8px}details[open]{background:#fafbfd}summary{cursor:pointer}
details ul{margin:6px 0;padding-left:20px}pre{overflow:auto;background:#f4f5f8;padding:8px;font-size:12px;max-height:480px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}.muted{color:#667}.tools button{margin-right:6px}
:target{outline:2px solid #edae49}
`;

// Opens the trace an action marker links to; expand/collapse all. No external resources.
const SCRIPT = `
function openTarget(){var id=location.hash.slice(1);if(!id)return;var el=document.getElementById(id);if(el&&el.tagName==="DETAILS"){el.open=true;}}
window.addEventListener("hashchange",openTarget);openTarget();
function setAll(open){document.querySelectorAll("details.trace").forEach(function(d){d.open=open;});}
`;

function legend(items: { label: string; color: string; dash: boolean }[]): string {
  return `<div class="legend">${items
    .map(
      (i) =>
        `<span><i style="border-top-color:${i.color}"${i.dash ? ' class="dash"' : ""}></i>${escapeHtml(i.label)}</span>`,
    )
    .join("")}</div>`;
}

function figure(title: string, lines: ChartLine[], svg: string): string {
  return `<figure><figcaption>${escapeHtml(title)}</figcaption>${svg}${legend(lines)}</figure>`;
}

function anchor(prefix: string, text: string): string {
  return `${prefix}-${text.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

function lineLabel(run: Run, label: string, runs: Run[]): string {
  return runs.length > 1 ? `${run.label}: ${label}` : label;
}

function renderHpa(name: string, runs: Run[], xMax: number): string {
  const views = runs.map((r) => ReportBuilder.view(r.builder));
  const datas = views.map((v) => v.hpas.get(name));
  const first = datas.find((d) => d !== undefined);
  const target = first?.target ?? null;
  const out: string[] = [
    `<section class="hpa" id="${anchor("hpa", name)}"><h2>HPA ${escapeHtml(name)}${target ? ` → ${escapeHtml(target)}` : ""}</h2>`,
  ];
  if (first && first.metricsText.length > 0) {
    out.push(`<p class="muted">Metrics: ${escapeHtml(first.metricsText.join("; "))}</p>`);
  }

  const markers: ChartMarker[] = [];
  runs.forEach((run, i) => {
    const row = (i === 0 ? 0 : 1) as 0 | 1;
    const view = views[i]!;
    for (const e of view.scenarioEvents) {
      markers.push({
        t: e.t,
        kind: "event",
        title: `${lineLabel(run, e.event, runs)} at ${formatSeconds(e.t)}: ${e.detail}`,
        row,
      });
    }
    datas[i]?.actions.forEach((a, k) => {
      markers.push({
        t: a.t,
        kind: a.to > a.from ? "up" : "down",
        title: `${lineLabel(run, `${a.from} → ${a.to}`, runs)} at ${formatSeconds(a.t)}: ${a.reason}${a.limit ? ` [${a.limit}]` : ""}`,
        href: `#${actionId(name, i, k)}`,
        row,
      });
    });
  });

  const chart = (title: string, build: (run: Run, i: number) => ChartLine[]) => {
    const lines = runs.flatMap((run, i) => build(run, i));
    if (lines.every((l) => l.points.length === 0)) return;
    out.push(figure(title, lines, svgChart({ title, xMax, lines, markers })));
  };
  const line = (
    run: Run,
    i: number,
    label: string,
    color: string,
    series: Series | undefined,
    step: boolean,
  ): ChartLine[] =>
    series
      ? [
          {
            label: lineLabel(run, label, runs),
            color,
            dash: run.dash,
            step,
            points: series.points(),
            end: views[i]!.duration,
          },
        ]
      : [];

  const workloadOf = (i: number) => (target ? views[i]!.workloads.get(target) : undefined);
  chart("Load: demand vs served (requests/s)", (run, i) => {
    const w = workloadOf(i);
    return [
      ...line(run, i, "demand", COLORS.demand, w?.demand, true),
      ...line(run, i, "served", COLORS.served, w?.served, true),
    ];
  });
  chart("Replicas: current (spec.replicas), desired, ready, pods", (run, i) => {
    const w = workloadOf(i);
    return [
      ...line(run, i, "current (spec.replicas)", COLORS.spec, w?.spec, true),
      ...line(run, i, "desired", COLORS.desired, datas[i]?.desired, true),
      ...line(run, i, "ready", COLORS.ready, w?.ready, true),
      ...line(run, i, "pods", COLORS.pods, w?.pods, true),
    ];
  });
  const metricIndexes = new Set<number>();
  for (const d of datas) for (const k of d?.metrics.keys() ?? []) metricIndexes.add(k);
  for (const index of [...metricIndexes].sort((a, b) => a - b)) {
    const meta = datas.map((d) => d?.metrics.get(index)).find((m) => m !== undefined)!;
    chart(
      `Metric ${index}: ${meta.label}${meta.unit ? ` (${meta.unit})` : ""} vs target`,
      (run, i) => {
        const m = datas[i]?.metrics.get(index);
        return [
          ...line(run, i, "current", COLORS.current, m?.current, true),
          ...line(run, i, "target", COLORS.target, m?.target, true),
        ];
      },
    );
  }
  chart("CPU utilization of ready pods (% of request, from samples)", (run, i) =>
    line(run, i, "cpu utilization", COLORS.cpu, workloadOf(i)?.cpu, true),
  );
  const sampleNames = new Set<string>();
  runs.forEach((_, i) => {
    for (const k of workloadOf(i)?.sampleMetrics.keys() ?? []) sampleNames.add(k);
  });
  if (sampleNames.size > 0) {
    const names = [...sampleNames].sort();
    chart("Workload metrics (from samples)", (run, i) =>
      names.flatMap((n, k) =>
        line(run, i, n, PALETTE[k % PALETTE.length]!, workloadOf(i)?.sampleMetrics.get(n), true),
      ),
    );
  }

  // Events and condition changes: a chart, then the list.
  const rows: Parameters<typeof svgConditionChart>[0]["rows"] = [];
  runs.forEach((run, i) => {
    const d = datas[i];
    const end = views[i]!.duration;
    const types: string[] = [];
    for (const c of d?.conditions ?? []) if (!types.includes(c.type)) types.push(c.type);
    for (const type of types) {
      const changes = d!.conditions.filter((c) => c.type === type);
      rows.push({
        label: lineLabel(run, type, runs),
        segments: changes.map((c, k) => ({
          from: c.t,
          to: changes[k + 1]?.t ?? end,
          // Green is the healthy state: True for AbleToScale/ScalingActive, False for ScalingLimited.
          cls: type === "ScalingLimited" ? `limited${c.status}` : c.status,
          title: `${type}=${c.status} ${c.reason} from ${formatSeconds(c.t)}: ${c.message}`,
        })),
        ticks: [],
      });
    }
    rows.push({
      label: lineLabel(run, "events", runs),
      segments: [],
      ticks: [
        ...(d?.events ?? []).map((e) => ({
          t: e.t,
          cls: e.type,
          title: `${formatSeconds(e.t)} ${e.type} ${e.reason}: ${e.message}${e.count > 1 ? ` (×${e.count} until ${formatSeconds(e.lastT)})` : ""}`,
        })),
        ...views[i]!.scenarioEvents.map((e) => ({
          t: e.t,
          cls: "scenario",
          title: `${formatSeconds(e.t)} scenario ${e.event}: ${e.detail}`,
        })),
      ],
    });
  });
  out.push(
    `<figure><figcaption>Events and condition changes</figcaption>${svgConditionChart({ title: `Conditions and events of ${name}`, xMax, rows })}</figure>`,
  );

  const listCols = runs.map((run, i) => {
    const d = datas[i];
    const parts: string[] = [];
    if (runs.length > 1) parts.push(`<h4>${escapeHtml(run.label)}</h4>`);
    const entries: { t: number; html: string }[] = [];
    for (const e of d?.events ?? []) {
      entries.push({
        t: e.t,
        html: `<tr><td>${escapeHtml(formatSeconds(e.t))}</td><td>event</td><td>${escapeHtml(e.type)}</td><td>${escapeHtml(e.reason)}</td><td>${escapeHtml(e.message)}${e.count > 1 ? ` <span class="muted">(×${e.count}, last at ${escapeHtml(formatSeconds(e.lastT))})</span>` : ""}</td></tr>`,
      });
    }
    for (const c of d?.conditions ?? []) {
      entries.push({
        t: c.t,
        html: `<tr><td>${escapeHtml(formatSeconds(c.t))}</td><td>condition</td><td>${escapeHtml(`${c.type}=${c.status}`)}</td><td>${escapeHtml(c.reason)}</td><td>${escapeHtml(c.message)}</td></tr>`,
      });
    }
    entries.sort((a, b) => a.t - b.t);
    parts.push(
      `<details><summary>${entries.length} events and condition changes</summary><table><thead><tr><th>time</th><th>kind</th><th>type</th><th>reason</th><th>message</th></tr></thead><tbody>${entries.map((e) => e.html).join("")}</tbody></table></details>`,
    );
    if (d && d.eventsDropped + d.conditionsDropped > 0) {
      parts.push(
        `<p class="muted">${d.eventsDropped} more events and ${d.conditionsDropped} more condition changes not listed.</p>`,
      );
    }
    return parts.join("");
  });
  out.push("<h3>Events and condition changes</h3>", columnsHtml(listCols));

  const actionCols = runs.map((run, i) => {
    const d = datas[i];
    const parts: string[] = [];
    if (runs.length > 1) parts.push(`<h4>${escapeHtml(run.label)}</h4>`);
    if (!d || d.actions.length === 0) parts.push('<p class="muted">No scaling action.</p>');
    d?.actions.forEach((a, k) => {
      parts.push(
        `<details class="trace" id="${actionId(name, i, k)}"><summary>${escapeHtml(formatSeconds(a.t))}: ${a.from} → ${a.to} — ${escapeHtml(a.reason || "rescale")}${a.limit ? ` <span class="muted">[${escapeHtml(a.limit)}]</span>` : ""}</summary>${explanationHtml(explain(a.trace))}<pre>${escapeHtml(JSON.stringify(JSON.parse(stableStringify(a.trace, RECORD_SHAPES.sync.children!.trace)), null, 2))}</pre></details>`,
      );
    });
    return parts.join("");
  });
  out.push(
    '<h3>Scaling actions and their decision traces</h3><p class="tools"><button type="button" onclick="setAll(true)">expand all</button><button type="button" onclick="setAll(false)">collapse all</button></p>',
    columnsHtml(actionCols),
    "</section>",
  );
  return out.join("\n");
}

function actionId(hpa: string, run: number, index: number): string {
  return anchor(`action-${run}`, `${hpa}-${index}`);
}

function columnsHtml(cols: string[]): string {
  return cols.length > 1
    ? `<div class="cols">${cols.map((c) => `<div>${c}</div>`).join("")}</div>`
    : cols[0]!;
}

function summaryTable(runs: Run[]): string {
  if (runs.length === 1) {
    const rows = runs[0]!.summary.hpas.map((s) => {
      const cells = COMPARED_MEASURES.map(
        (m) => `<td class="num">${escapeHtml(formatComparedValue(m, m.value(s)))}</td>`,
      ).join("");
      return `<tr><th><a href="#${anchor("hpa", s.hpa)}">${escapeHtml(s.hpa)}</a></th><td class="num">${s.minReplicas}–${s.maxReplicas}</td>${cells}<td class="num">${s.targetUtilization === null ? "n/a" : escapeHtml(formatNumber(s.targetUtilization, 1))}</td></tr>`;
    });
    return `<table class="summary"><thead><tr><th>HPA</th><th>bounds</th>${COMPARED_MEASURES.map((m) => `<th>${escapeHtml(m.label)}</th>`).join("")}<th>target utilization (%)</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  }
  const [a, b] = runs as [Run, Run];
  const blocks = pairHpas(a.summary, b.summary).map(([name, sa, sb]) => {
    const rows = COMPARED_MEASURES.map((m) => {
      const va = sa ? m.value(sa) : undefined;
      const vb = sb ? m.value(sb) : undefined;
      return `<tr><th>${escapeHtml(m.label)}</th><td class="num">${escapeHtml(formatComparedValue(m, va))}</td><td class="num">${escapeHtml(formatComparedValue(m, vb))}</td><td class="num">${escapeHtml(formatDelta(m, va, vb))}</td></tr>`;
    });
    return `<h3><a href="#${anchor("hpa", name)}">${escapeHtml(name)}</a></h3><table class="summary"><thead><tr><th>measure</th><th>${escapeHtml(a.label)}</th><th>${escapeHtml(b.label)}</th><th>delta (${escapeHtml(b.label)} − ${escapeHtml(a.label)})</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  });
  return blocks.join("\n");
}

function runHeader(run: Run, runs: Run[]): string {
  const v = ReportBuilder.view(run.builder);
  const s = v.start;
  const flags = Object.keys(s.controllerFlags)
    .sort()
    .map((k) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(s.controllerFlags[k]!)}</td></tr>`)
    .join("");
  const events = v.scenarioEvents
    .map(
      (e) =>
        `<tr><td>${escapeHtml(formatSeconds(e.t))}</td><td>${escapeHtml(e.event)}</td><td>${escapeHtml(e.detail)}</td></tr>`,
    )
    .join("");
  return `<div><p>${runs.length > 1 ? `<strong>${escapeHtml(run.label)}</strong>: ` : ""}scenario <strong>${escapeHtml(s.scenario)}</strong>, seed ${s.seed}, ${escapeHtml(formatSeconds(s.durationSeconds))} from ${escapeHtml(s.startTime)}${run.summary.wallMs !== undefined ? `, simulated in ${escapeHtml(formatNumber(run.summary.wallMs / 1000))}s` : ""}.</p>
<details><summary>Controller flags</summary><table><tbody>${flags}</tbody></table></details>
<details${events ? " open" : ""}><summary>${v.scenarioEvents.length} scenario events</summary><table><thead><tr><th>time</th><th>event</th><th>detail</th></tr></thead><tbody>${events}</tbody></table>${v.scenarioEventsDropped > 0 ? `<p class="muted">${v.scenarioEventsDropped} more not listed.</p>` : ""}</details></div>`;
}

function renderDocument(runs: Run[]): string {
  const views = runs.map((r) => ReportBuilder.view(r.builder));
  const xMax = Math.max(...views.map((v) => v.duration));
  const names: string[] = [];
  for (const v of views) for (const k of v.hpas.keys()) if (!names.includes(k)) names.push(k);
  const title =
    runs.length > 1
      ? `Horizon simulation: ${runs[0]!.label} vs ${runs[1]!.label}`
      : `Horizon simulation: ${views[0]!.start.scenario}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="horizon simulate">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>
${columnsHtml(runs.map((r) => runHeader(r, runs)))}
${runs.length > 1 ? `<p class="muted">Both runs are drawn on the same axes: ${escapeHtml(runs[0]!.label)} solid, ${escapeHtml(runs[1]!.label)} dashed; ▲/▼ mark scale-ups/downs (${escapeHtml(runs[0]!.label)} on the top edge, ${escapeHtml(runs[1]!.label)} on the bottom edge).</p>` : '<p class="muted">▲/▼ on the charts mark scale-ups/downs (click one for its decision trace); dashed vertical lines are scenario events.</p>'}
</header>
<nav><strong>HPAs:</strong> ${names.map((n) => `<a href="#${anchor("hpa", n)}">${escapeHtml(n)}</a>`).join(" · ")}</nav>
<section id="summary"><h2>Summary${runs.length > 1 ? " and deltas" : ""}</h2>
${summaryTable(runs)}
</section>
${names.map((n) => renderHpa(n, runs, xMax)).join("\n")}
<script>${SCRIPT}</script>
</body>
</html>
`;
}
