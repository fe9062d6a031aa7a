// What `horizon simulate` prints: the human table (`--output table`), a comparison of two runs,
// and the streamed JSON lines / CSV forms of the record stream. Formats are documented in
// docs/simulate.md.
import { formatDuration } from "../api/duration.js";
import type { DecisionTrace } from "../core/trace.js";
import { formatNumber } from "../explain/format.js";
import type { HpaSummary, SimulationRecord, StartRecord, SummaryRecord } from "./timeline.js";

// ---------------------------------------------------------------------------------------------
// Number and time formatting shared by the table, the comparison and the HTML report.

/** Seconds after the start as a Go-style duration: 315 → "5m15s". */
export function formatSeconds(seconds: number): string {
  return formatDuration(Math.round(seconds * 1000));
}

export { formatNumber };

/** At most this many load steps are listed one by one; more are summarised. */
const LISTED_LOAD_STEPS = 3;

function formatTimeToMeet(s: HpaSummary): string {
  if (s.timeToMeetDemandSeconds.length === 0) return "no load step";
  const step = (i: number) => {
    const secs = s.timeToMeetDemandSeconds[i] ?? null;
    const at = s.loadSteps[i];
    const after = at
      ? ` after ${formatSeconds(at.t)} (${formatNumber(at.fromRps, 1)} → ${formatNumber(at.toRps, 1)} rps)`
      : "";
    return `${secs === null ? "never" : formatSeconds(secs)}${after}`;
  };
  const all = s.timeToMeetDemandSeconds.map((_, i) => i);
  if (all.length <= LISTED_LOAD_STEPS) return all.map(step).join("; ");
  // A long trace has hundreds of steps: their count, median and worst, and the worst few.
  const met = s.timeToMeetDemandSeconds
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  const never = all.length - met.length;
  const median = met.length === 0 ? null : met[Math.floor((met.length - 1) / 2)]!;
  const worst = [...all]
    .sort((a, b) => {
      const ta = s.timeToMeetDemandSeconds[a] ?? Number.POSITIVE_INFINITY;
      const tb = s.timeToMeetDemandSeconds[b] ?? Number.POSITIVE_INFINITY;
      return tb - ta || a - b;
    })
    .slice(0, LISTED_LOAD_STEPS);
  const figures = [
    `${all.length} load steps`,
    ...(median === null ? [] : [`median ${formatSeconds(median)}`]),
    ...(never > 0 ? [`never met ${never}`] : []),
  ].join(", ");
  return `${figures}; worst: ${worst.map(step).join("; ")}`;
}

/** Left-aligned columns separated by two spaces, without trailing blanks. */
function columns(rows: string[][], indent = ""): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  return rows.map((row) =>
    (
      indent +
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!, " "))).join("  ")
    ).trimEnd(),
  );
}

// ---------------------------------------------------------------------------------------------
// The table.

function hpaInfo(start: StartRecord, hpa: string): StartRecord["hpas"][number] | undefined {
  return start.hpas.find((h) => h.hpa === hpa);
}

function formatUtilization(s: HpaSummary): string {
  const mean = s.meanUtilization === null ? "n/a" : `${formatNumber(s.meanUtilization, 1)}%`;
  const target =
    s.targetUtilization === null
      ? "no cpu target"
      : `target ${formatNumber(s.targetUtilization, 1)}%`;
  return `${mean} (${target})`;
}

/** Herbst et al.'s measures on one line, or null without a demand model. */
function formatElasticity(s: HpaSummary): string | null {
  if (s.underProvisioningAccuracy === undefined || s.underProvisioningAccuracy === null)
    return null;
  const pct = (v: number | null | undefined) =>
    v === null || v === undefined ? "-" : `${formatNumber(v, 1)}%`;
  const jitter = s.jitter ?? null;
  return [
    `θU ${pct(s.underProvisioningAccuracy)}`,
    `θO ${pct(s.overProvisioningAccuracy)}`,
    `τU ${pct(s.underProvisioningTimeshare)}`,
    `τO ${pct(s.overProvisioningTimeshare)}`,
    `instability ${pct(s.instability)}`,
    `jitter ${jitter === null ? "-" : `${jitter > 0 ? "+" : ""}${formatNumber(jitter, 2)}/min`}`,
    `demand ${formatNumber(s.demandPodHours ?? 0)} pod-hours`,
  ].join(", ");
}

/** The actions timeline of one HPA: time, replicas, limit, reason. */
function actionRows(s: HpaSummary): string[][] {
  const rows = [["time", "replicas", "limit", "reason"]];
  for (const a of s.actions) {
    rows.push([formatSeconds(a.t), `${a.from} → ${a.to}`, a.limit || "-", a.reason || "-"]);
  }
  return rows;
}

export function formatSummaryTable(summary: SummaryRecord, start: StartRecord): string {
  const out: string[] = [
    `Simulation "${start.scenario}": seed ${start.seed}, ${formatSeconds(start.durationSeconds)} from ${start.startTime}`,
  ];
  if (summary.hpas.length === 0) out.push("", "No HPA in the scenario.");
  for (const s of summary.hpas) {
    const info = hpaInfo(start, s.hpa);
    out.push("", `HPA ${s.hpa}${info ? ` → ${info.target}` : ""}`);
    const rows: string[][] = [
      ["bounds", `${s.minReplicas}–${s.maxReplicas} replicas`],
      ["metrics", info && info.metrics.length > 0 ? info.metrics.join("; ") : "-"],
      [
        "replicas",
        `lowest ${s.lowestReplicas}, highest ${s.highestReplicas}, final ${s.finalReplicas}`,
      ],
      ["pod-hours", formatNumber(s.podHours)],
      ["scaling actions", `${s.scaleUps} up, ${s.scaleDowns} down`],
      ["flaps", String(s.flaps)],
      [
        "unmet demand",
        `${formatNumber(s.unmetDemandPodSeconds, 1)} pod-seconds over ${formatSeconds(s.unmetDemandSeconds)}`,
      ],
      ["time to meet demand", formatTimeToMeet(s)],
      ["mean utilization", formatUtilization(s)],
    ];
    const elasticity = formatElasticity(s);
    if (elasticity) rows.push(["elasticity", elasticity]);
    if (s.failedGetScale) {
      rows.splice(2, 0, ["scale target", "never read (FailedGetScale): no replicas to measure"]);
    }
    out.push(...columns(rows, "  "));
    if (s.actions.length === 0) out.push("  no scaling action");
    else out.push("  scaling actions:", ...columns(actionRows(s), "    "));
  }
  if (summary.wallMs !== undefined)
    out.push("", `wall time ${formatNumber(summary.wallMs / 1000)}s`);
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Comparison of two runs.

export interface ComparedMeasure {
  label: string;
  /** null = not available; Infinity = never. */
  value: (s: HpaSummary) => number | null;
  digits: number;
  seconds?: boolean;
}

export const COMPARED_MEASURES: readonly ComparedMeasure[] = [
  { label: "lowest replicas", value: (s) => s.lowestReplicas, digits: 0 },
  { label: "highest replicas", value: (s) => s.highestReplicas, digits: 0 },
  { label: "final replicas", value: (s) => s.finalReplicas, digits: 0 },
  { label: "pod-hours", value: (s) => s.podHours, digits: 3 },
  { label: "scale-ups", value: (s) => s.scaleUps, digits: 0 },
  { label: "scale-downs", value: (s) => s.scaleDowns, digits: 0 },
  { label: "flaps", value: (s) => s.flaps, digits: 0 },
  { label: "unmet demand (pod-seconds)", value: (s) => s.unmetDemandPodSeconds, digits: 1 },
  { label: "unmet demand (time)", value: (s) => s.unmetDemandSeconds, digits: 0, seconds: true },
  {
    label: "longest time to meet demand",
    value: (s) =>
      s.timeToMeetDemandSeconds.reduce<number>(
        (m, t) => Math.max(m, t ?? Number.POSITIVE_INFINITY),
        0,
      ),
    digits: 0,
    seconds: true,
  },
  { label: "mean utilization (%)", value: (s) => s.meanUtilization, digits: 1 },
  { label: "demand (pod-hours)", value: (s) => s.demandPodHours ?? null, digits: 3 },
  {
    label: "θU under-provisioning (%)",
    value: (s) => s.underProvisioningAccuracy ?? null,
    digits: 1,
  },
  {
    label: "θO over-provisioning (%)",
    value: (s) => s.overProvisioningAccuracy ?? null,
    digits: 1,
  },
  {
    label: "τU under-provisioned time (%)",
    value: (s) => s.underProvisioningTimeshare ?? null,
    digits: 1,
  },
  {
    label: "τO over-provisioned time (%)",
    value: (s) => s.overProvisioningTimeshare ?? null,
    digits: 1,
  },
  { label: "instability (%)", value: (s) => s.instability ?? null, digits: 1 },
  { label: "jitter (/min)", value: (s) => s.jitter ?? null, digits: 2 },
];

export function formatComparedValue(m: ComparedMeasure, value: number | null | undefined): string {
  if (value === undefined) return "-";
  if (value === null) return "n/a";
  if (value === Number.POSITIVE_INFINITY) return "never";
  return m.seconds ? formatSeconds(value) : formatNumber(value, m.digits);
}

/** B − A, signed; "n/a" when either side has no finite value. */
export function formatDelta(
  m: ComparedMeasure,
  a: number | null | undefined,
  b: number | null | undefined,
): string {
  if (a === undefined || b === undefined || a === null || b === null) return "n/a";
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b ? "0" : "n/a";
  const d = b - a;
  const text = m.seconds ? formatSeconds(Math.abs(d)) : formatNumber(Math.abs(d), m.digits);
  if (text === "0" || text === "0s") return "0";
  return `${d > 0 ? "+" : "-"}${text}`;
}

/** The HPAs of both runs, a's order first. */
export function pairHpas(
  a: SummaryRecord,
  b: SummaryRecord,
): [string, HpaSummary | undefined, HpaSummary | undefined][] {
  const names = [...a.hpas.map((h) => h.hpa)];
  for (const h of b.hpas) if (!names.includes(h.hpa)) names.push(h.hpa);
  return names.map((n) => [n, a.hpas.find((h) => h.hpa === n), b.hpas.find((h) => h.hpa === n)]);
}

export function formatComparison(
  a: { start: StartRecord; summary: SummaryRecord },
  b: { start: StartRecord; summary: SummaryRecord },
  labels: [string, string],
): string {
  const out: string[] = [
    `Comparison: A = ${labels[0]} ("${a.start.scenario}", seed ${a.start.seed}), B = ${labels[1]} ("${b.start.scenario}", seed ${b.start.seed})`,
  ];
  for (const [name, sa, sb] of pairHpas(a.summary, b.summary)) {
    out.push("", `HPA ${name}`);
    const rows: string[][] = [["measure", labels[0], labels[1], "delta (B − A)"]];
    for (const m of COMPARED_MEASURES) {
      const va = sa ? m.value(sa) : undefined;
      const vb = sb ? m.value(sb) : undefined;
      rows.push([
        m.label,
        formatComparedValue(m, va),
        formatComparedValue(m, vb),
        formatDelta(m, va, vb),
      ]);
    }
    out.push(...columns(rows, "  "));
    for (const [label, s] of [
      [labels[0], sa],
      [labels[1], sb],
    ] as const) {
      if (!s) continue;
      if (s.actions.length === 0) out.push(`  ${label}: no scaling action`);
      else out.push(`  ${label} scaling actions:`, ...columns(actionRows(s), "    "));
    }
  }
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// JSON lines: every record with its keys in the documented order, whatever order the producer
// built them in; keys this table does not know follow, sorted, so output stays byte-stable.

interface Shape {
  keys: readonly string[];
  children?: Readonly<Record<string, Shape>>;
}

const CONDITION: Shape = { keys: ["type", "status", "lastTransitionTime", "reason", "message"] };
const SYNC_EVENT: Shape = { keys: ["type", "reason", "message"] };

const TRACE: Shape = {
  keys: [
    "version",
    "hpa",
    "time",
    "scale",
    "branch",
    "minReplicas",
    "maxReplicas",
    "currentReplicas",
    "metrics",
    "recommendation",
    "recommendationMetric",
    "stabilization",
    "limit",
    "desiredReplicas",
    "rescale",
    "rescaleReason",
    "outcome",
    "error",
  ],
  children: {
    hpa: { keys: ["namespace", "name"] },
    scale: { keys: ["specReplicas", "statusReplicas", "selector", "error"] },
    metrics: {
      keys: [
        "index",
        "type",
        "description",
        "target",
        "proposal",
        "utilization",
        "current",
        "calculation",
        "reason",
        "error",
      ],
      children: {
        target: { keys: ["type", "value"] },
        calculation: {
          keys: [
            "path",
            "usageRatio",
            "newUsageRatio",
            "tolerances",
            "podCount",
            "readyPodCount",
            "ignoredPods",
            "unreadyPods",
            "missingPods",
            "rebalancedEntries",
          ],
          children: { tolerances: { keys: ["scaleUp", "scaleDown"] } },
        },
      },
    },
    stabilization: {
      keys: [
        "path",
        "recommendation",
        "stabilized",
        "reason",
        "windowSeconds",
        "winner",
        "scaleUpWindowSeconds",
        "scaleDownWindowSeconds",
        "upRecommendation",
        "downRecommendation",
      ],
      children: { winner: { keys: ["replicas", "ageSeconds"] } },
    },
    limit: {
      keys: [
        "reason",
        "message",
        "limit",
        "legacyScaleUpLimit",
        "selectPolicy",
        "policies",
        "policyLimit",
      ],
      children: {
        policies: { keys: ["type", "value", "periodSeconds", "periodStartReplicas", "proposal"] },
      },
    },
  },
};

/** The key order of each record type, as documented in docs/simulate.md. */
export const RECORD_SHAPES: Readonly<Record<SimulationRecord["type"], Shape>> = {
  start: {
    keys: [
      "type",
      "schema",
      "scenario",
      "seed",
      "startTime",
      "durationSeconds",
      "controllerFlags",
      "hpas",
    ],
    children: {
      hpas: {
        keys: ["hpa", "target", "minReplicas", "maxReplicas", "metrics", "scaleDownWindowSeconds"],
      },
    },
  },
  sample: {
    keys: [
      "type",
      "t",
      "workload",
      "demandRps",
      "servedRps",
      "specReplicas",
      "pods",
      "readyPods",
      "cpuUtilization",
      "metrics",
      "capacityRps",
    ],
  },
  sync: {
    keys: [
      "type",
      "t",
      "hpa",
      "currentReplicas",
      "desiredReplicas",
      "scaled",
      "conditions",
      "events",
      "error",
      "trace",
    ],
    children: { conditions: CONDITION, events: SYNC_EVENT, trace: TRACE },
  },
  event: { keys: ["type", "t", "event", "detail"] },
  summary: {
    keys: ["type", "hpas", "wallMs"],
    children: {
      hpas: {
        keys: [
          "hpa",
          "minReplicas",
          "maxReplicas",
          "lowestReplicas",
          "highestReplicas",
          "finalReplicas",
          "podHours",
          "scaleUps",
          "scaleDowns",
          "flaps",
          "unmetDemandPodSeconds",
          "unmetDemandSeconds",
          "timeToMeetDemandSeconds",
          "loadSteps",
          "meanUtilization",
          "targetUtilization",
          "actions",
          "demandPodHours",
          "underProvisioningAccuracy",
          "overProvisioningAccuracy",
          "underProvisioningTimeshare",
          "overProvisioningTimeshare",
          "instability",
          "jitter",
        ],
        children: {
          loadSteps: { keys: ["t", "fromRps", "toRps"] },
          actions: { keys: ["t", "from", "to", "reason", "limit"] },
        },
      },
    },
  },
};

interface Compiled {
  keys: readonly string[];
  quoted: readonly string[];
  known: ReadonlySet<string>;
  children: ReadonlyMap<string, Compiled>;
}

const compiled = new WeakMap<Shape, Compiled>();

/** A shape with its keys pre-quoted (this runs once per record on long runs). */
function compile(shape: Shape): Compiled {
  let c = compiled.get(shape);
  if (!c) {
    const children = new Map<string, Compiled>();
    for (const [key, child] of Object.entries(shape.children ?? {}))
      children.set(key, compile(child));
    c = {
      keys: shape.keys,
      quoted: shape.keys.map((k) => `${JSON.stringify(k)}:`),
      known: new Set(shape.keys),
      children,
    };
    compiled.set(shape, c);
  }
  return c;
}

function writeValue(value: unknown, shape: Compiled | undefined): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          out += writeValue(value[i], shape) ?? "null";
        }
        return `${out}]`;
      }
      return writeObject(value as Record<string, unknown>, shape);
    case "bigint":
      throw new TypeError("a BigInt cannot be written as JSON");
    default:
      return undefined;
  }
}

function writeObject(record: Record<string, unknown>, shape: Compiled | undefined): string {
  let out = "{";
  let first = true;
  let matched = 0;
  if (shape) {
    const { keys, quoted, children } = shape;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (!Object.hasOwn(record, key)) continue;
      matched++;
      const text = writeValue(record[key], children.get(key));
      if (text === undefined) continue;
      out += first ? quoted[i] : `,${quoted[i]}`;
      out += text;
      first = false;
    }
  }
  const all = Object.keys(record);
  if (all.length > matched) {
    const extra = shape ? all.filter((k) => !shape.known.has(k)) : all;
    extra.sort();
    for (const key of extra) {
      const text = writeValue(record[key], undefined);
      if (text === undefined) continue;
      out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
      first = false;
    }
  }
  return `${out}}`;
}

/**
 * JSON text of `value` (as JSON.stringify would write it, without toJSON), object keys in
 * `shape` order, then unknown keys sorted.
 */
export function stableStringify(value: unknown, shape?: Shape): string {
  return writeValue(value, shape ? compile(shape) : undefined) ?? "null";
}

/** `--output json`: one record per line, written as it comes (nothing is held back). */
export class JsonLinesWriter {
  readonly #write: (chunk: string) => void;
  constructor(write: (chunk: string) => void) {
    this.#write = write;
  }
  write(record: SimulationRecord): void {
    this.#write(`${stableStringify(record, RECORD_SHAPES[record.type])}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// CSV: one row per sample and per sync; the columns are documented in docs/simulate.md.

export const CSV_COLUMNS = [
  "type",
  "t",
  "hpa",
  "workload",
  "demandRps",
  "servedRps",
  "specReplicas",
  "pods",
  "readyPods",
  "cpuUtilization",
  "metrics",
  "currentReplicas",
  "desiredReplicas",
  "recommendation",
  "scaled",
  "outcome",
  "reason",
  "limit",
  "error",
] as const;

type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null>>;

/** RFC 4180: quote a field holding a comma, quote or line break; double inner quotes. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A sync's metrics: "index:current/target" per metric (utilization in %), "index:error" if failed. */
export function traceMetricsCell(trace: DecisionTrace): string {
  return trace.metrics
    .map((m) => {
      if (m.error !== undefined || m.reason !== undefined) return `${m.index}:error`;
      const current =
        m.utilization !== undefined && m.target?.type === "Utilization"
          ? `${m.utilization}%`
          : (m.current ?? "");
      return `${m.index}:${current}/${m.target?.value ?? ""}`;
    })
    .join(";");
}

export class CsvWriter {
  readonly #write: (chunk: string) => void;
  #header = false;
  constructor(write: (chunk: string) => void) {
    this.#write = write;
  }

  write(record: SimulationRecord): void {
    if (!this.#header) {
      this.#header = true;
      this.#write(`${CSV_COLUMNS.join(",")}\n`);
    }
    let row: CsvRow;
    if (record.type === "sample") {
      const metrics = record.metrics
        ? Object.keys(record.metrics)
            .sort()
            .map((k) => `${k}=${record.metrics![k]}`)
            .join(";")
        : "";
      row = {
        type: "sample",
        t: record.t,
        workload: record.workload,
        demandRps: record.demandRps,
        servedRps: record.servedRps,
        specReplicas: record.specReplicas,
        pods: record.pods,
        readyPods: record.readyPods,
        cpuUtilization: record.cpuUtilization,
        metrics,
      };
    } else if (record.type === "sync") {
      const trace = record.trace;
      row = {
        type: "sync",
        t: record.t,
        hpa: record.hpa,
        metrics: traceMetricsCell(trace),
        currentReplicas: record.currentReplicas,
        desiredReplicas: record.desiredReplicas,
        recommendation: trace.recommendation,
        scaled: record.scaled,
        outcome: trace.outcome,
        reason: trace.rescaleReason ?? "",
        limit: trace.limit?.reason ?? "",
        error: record.error,
      };
    } else {
      return;
    }
    this.#write(`${CSV_COLUMNS.map((c) => csvField(row[c])).join(",")}\n`);
  }
}
