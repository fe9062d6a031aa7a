// `horizon explain hpa/NAME`: why did the HPA (not) scale? Reads the decision traces of recent
// syncs — from a running controller's /debug/decisions (an address, or the one the leader
// publishes on its Lease), or from a simulation's JSON output — and words the latest one.
// Exit codes: 0 explained, 1 no traces for that HPA (or the source could not be read), 2 bad
// flags.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { CoordinationV1Api } from "@kubernetes/client-node";
import { type Command, type CommanderError, Option } from "commander";
import type { DecisionRecord, DecisionsDocument } from "../controller/decisions.js";
import { DEBUG_ADDRESS_ANNOTATION, isLoopbackHost } from "../controller/server.js";
import { formatDuration, parseDuration } from "../core/duration.js";
import type { DecisionTrace } from "../core/trace.js";
import { loadKubeConfig } from "../kube/config.js";

export interface ExplainOptions {
  namespace?: string;
  address?: string;
  kubeconfig?: string;
  leaseNamespace?: string;
  leaseName?: string;
  fromSimulation?: string;
  at?: string;
  output?: string;
  history?: string;
}

export interface ExplainIO {
  out: (text: string) => void;
  err: (line: string) => void;
  /** Epoch ms, for ages of controller traces (tests fix it). */
  now?: () => number;
  /** Standard input, for `--from-simulation -`. */
  stdin?: NodeJS.ReadableStream;
}

export const EXPLAIN_DEFAULTS = {
  address: "http://127.0.0.1:8085",
  leaseNamespace: "kube-system",
  leaseName: "horizon-controller",
  history: 10,
} as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** `hpa/NAME` (also `horizontalpodautoscaler[s][.autoscaling]/NAME`, or a bare NAME). */
export function parseHpaTarget(text: string): Parsed<string> {
  const slash = text.indexOf("/");
  const name = slash === -1 ? text : text.slice(slash + 1);
  if (slash !== -1) {
    const kind = text.slice(0, slash).toLowerCase();
    const kinds = ["hpa", "horizontalpodautoscaler", "horizontalpodautoscalers"];
    if (!kinds.includes(kind.replace(/\.autoscaling$/, ""))) {
      return {
        ok: false,
        error: `explain works on HorizontalPodAutoscalers (hpa/NAME), got "${text}"`,
      };
    }
  }
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
    return { ok: false, error: `"${name}" is not a valid HorizontalPodAutoscaler name` };
  }
  return { ok: true, value: name };
}

/** `--at`: seconds after the simulation start (`315`, `5m15s`) or an RFC 3339 time. */
export type AtPoint = { kind: "offset"; seconds: number } | { kind: "time"; ms: number };

export function parseAt(text: string): Parsed<AtPoint> {
  if (/^\d+(\.\d+)?$/.test(text))
    return { ok: true, value: { kind: "offset", seconds: Number(text) } };
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return { ok: true, value: { kind: "time", ms } };
    return { ok: false, error: `--at: invalid time "${text}"` };
  }
  const parsed = parseDuration(text);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `--at: expected seconds after the start (315, 5m15s) or an RFC 3339 time, got "${text}"`,
    };
  }
  return { ok: true, value: { kind: "offset", seconds: parsed.ms / 1000 } };
}

interface Source {
  /** How the records were found, for the header. */
  description: string;
  records: DecisionRecord[];
  /** Simulation: its start (RFC 3339) for offsets. */
  simulationStart?: string;
}

// ---------------------------------------------------------------------------------------------
// Sources.

/** The sync records of one HPA in a `horizon simulate --output json` stream. */
export async function readSimulation(
  input: NodeJS.ReadableStream,
  namespace: string,
  name: string,
): Promise<Parsed<{ records: DecisionRecord[]; start?: string }>> {
  const wanted = `${namespace}/${name}`;
  const records: DecisionRecord[] = [];
  let start: string | undefined;
  let lineNumber = 0;
  let sawRecord = false;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === "") continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return {
        ok: false,
        error: `line ${lineNumber}: not JSON (expected \`horizon simulate --output json\` output)`,
      };
    }
    sawRecord = true;
    if (parsed.type === "start" && typeof parsed.startTime === "string") start = parsed.startTime;
    if (parsed.type !== "sync" || parsed.hpa !== wanted) continue;
    const record: DecisionRecord = {
      trace: parsed.trace as DecisionTrace,
      conditions: (parsed.conditions as DecisionRecord["conditions"]) ?? [],
      events: (parsed.events as DecisionRecord["events"]) ?? [],
      error: (parsed.error as string | null) ?? null,
    };
    if (typeof parsed.t === "number") record.t = parsed.t;
    records.push(record);
  }
  if (!sawRecord)
    return { ok: false, error: "no records (expected `horizon simulate --output json` output)" };
  return { ok: true, value: { records, ...(start !== undefined ? { start } : {}) } };
}

/** GET {address}/debug/decisions for one HPA. */
export async function fetchDecisions(
  address: string,
  namespace: string,
  name: string,
): Promise<Parsed<DecisionRecord[]>> {
  const base = address.replace(/\/+$/, "");
  const url = `${base}/debug/decisions?namespace=${encodeURIComponent(namespace)}&name=${encodeURIComponent(name)}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      error: `cannot reach the controller at ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    };
  }
  const text = await response.text();
  if (response.status !== 200) {
    return {
      ok: false,
      error: `${url} answered ${response.status}${text ? `: ${text.trim().slice(0, 200)}` : ""}`,
    };
  }
  let document: DecisionsDocument;
  try {
    document = JSON.parse(text) as DecisionsDocument;
  } catch {
    return { ok: false, error: `${url} did not answer JSON` };
  }
  const hpa = (document.hpas ?? []).find((h) => h.namespace === namespace && h.name === name);
  return { ok: true, value: hpa?.decisions ?? [] };
}

/** client-go's default identity is `hostname_uuid`; in a pod the hostname is the pod name. */
function podOfIdentity(identity: string): string {
  const underscore = identity.indexOf("_");
  return underscore === -1 ? identity : identity.slice(0, underscore);
}

/** The leader's debug address, from the Lease it holds. */
export async function findLeaderAddress(options: {
  kubeconfig?: string;
  leaseNamespace: string;
  leaseName: string;
}): Promise<Parsed<{ address: string; holder: string }>> {
  const loaded = await loadKubeConfig({ kubeconfig: options.kubeconfig ?? null });
  if (!loaded.ok) return { ok: false, error: `cannot load the kubeconfig: ${loaded.error}` };
  const kc = loaded.value.kubeConfig;
  const lease = `${options.leaseNamespace}/${options.leaseName}`;
  let body: {
    metadata?: { annotations?: Record<string, string> };
    spec?: { holderIdentity?: string };
  };
  try {
    body = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: options.leaseName, namespace: options.leaseNamespace });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 404) {
      return {
        ok: false,
        error: `lease ${lease} not found (is the controller running with --leader-elect? set --lease-namespace/--lease-name, e.g. --lease-namespace horizon-system for deploy/)`,
      };
    }
    return { ok: false, error: `cannot read lease ${lease}: ${(error as Error).message}` };
  }
  const holder = body.spec?.holderIdentity ?? "";
  const address = body.metadata?.annotations?.[DEBUG_ADDRESS_ANNOTATION];
  if (!holder)
    return { ok: false, error: `lease ${lease} has no holder: no controller is leading` };
  if (!address) {
    return {
      ok: false,
      error: `lease ${lease} (held by ${holder}) has no ${DEBUG_ADDRESS_ANNOTATION} annotation: the leader serves no /debug address (see --debug-bind-address)`,
    };
  }
  return { ok: true, value: { address, holder } };
}

function isLoopbackUrl(address: string): boolean {
  try {
    const host = new URL(address).hostname.replace(/^\[|\]$/g, "");
    return isLoopbackHost(host);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Words.

const num = (value: number, digits = 3): string => {
  if (!Number.isFinite(value)) return String(value);
  const text = String(Number(value.toFixed(digits)));
  return text === "-0" ? "0" : text;
};

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

function podList(pods: readonly string[] | undefined): string {
  if (!pods || pods.length === 0) return "";
  const shown = pods.slice(0, 5).join(", ");
  return pods.length > 5 ? ` (${shown}, …)` : ` (${shown})`;
}

function describeMetric(m: DecisionTrace["metrics"][number], currentReplicas: number): string[] {
  const label = `Metric ${m.index + 1} (${m.type}${m.description ? `, ${m.description}` : ""})`;
  if (m.reason !== undefined || m.proposal === undefined) {
    return [`${label}: failed with ${m.reason ?? "an error"}: ${m.error ?? "no value"}.`];
  }
  const lines: string[] = [];
  const target = m.target ? `${m.target.value} (${m.target.type})` : "its target";
  const current =
    m.utilization !== undefined
      ? `${m.utilization}% of request${m.current !== undefined ? ` (${m.current} per pod)` : ""}`
      : (m.current ?? "?");
  const c = m.calculation;
  if (!c) {
    lines.push(`${label}: current ${current} vs target ${target} → proposes ${m.proposal}.`);
    return lines;
  }
  const low = 1 - c.tolerances.scaleDown;
  const high = 1 + c.tolerances.scaleUp;
  const band = `[${num(low, 4)}, ${num(high, 4)}]`;
  lines.push(
    `${label}: current ${current} vs target ${target}: usage ratio ${num(c.usageRatio, 4)}; the tolerance band is ${band} (tolerance ${num(c.tolerances.scaleDown * 100, 2)}% down, ${num(c.tolerances.scaleUp * 100, 2)}% up).`,
  );
  const ready = c.readyPodCount;
  const readyText = ready === undefined ? "the ready pods" : plural(ready, "ready pod");
  const filled =
    (c.missingPods?.length ?? 0) + (c.unreadyPods?.length ?? 0) > 0
      ? `after counting ${[
          c.missingPods?.length
            ? `${plural(c.missingPods.length, "pod")} without metrics (at 100% of request on a scale-down, 0 on a scale-up)`
            : "",
          c.unreadyPods?.length ? `${plural(c.unreadyPods.length, "unready pod")} (at 0)` : "",
        ]
          .filter(Boolean)
          .join(" and ")}`
      : "after re-computing";
  const paths: Record<string, string> = {
    withinTolerance: `The ratio is within the band, so it proposes keeping the current ${plural(currentReplicas, "replica")}.`,
    direct: `The ratio is outside the band, so it proposes ceil(${num(c.usageRatio, 4)} × ${readyText}) = ${m.proposal}.`,
    rebalanced: `The ratio is outside the band; ${filled} the ratio is ${num(c.newUsageRatio ?? Number.NaN, 4)}, which proposes ${m.proposal}.`,
    rebalancedWithinTolerance: `The ratio is outside the band, but ${filled} it is ${num(c.newUsageRatio ?? Number.NaN, 4)}, within the band: it proposes keeping ${m.proposal}.`,
    rebalancedDirectionChange: `The ratio is outside the band, but ${filled} it is ${num(c.newUsageRatio ?? Number.NaN, 4)}, on the other side of 1: it proposes keeping ${m.proposal}.`,
    rebalancedCountGuard: `The ratio is outside the band, but ${filled} (ratio ${num(c.newUsageRatio ?? Number.NaN, 4)}) the count would move against the ratio's direction: it proposes keeping ${m.proposal}.`,
    scaleFromZero: `The target is at zero replicas: it proposes ceil(${num(c.usageRatio, 4)}) = ${m.proposal}.`,
    perPod: `The target is per pod: it proposes ceil(total ÷ target per pod) = ${m.proposal}.`,
  };
  lines.push(paths[c.path] ?? `Calculation ${c.path}: it proposes ${m.proposal}.`);
  if (c.podCount !== undefined) {
    const parts = [
      `${plural(c.podCount, "pod")} matched the selector`,
      `${c.readyPodCount ?? 0} ready`,
    ];
    if (c.unreadyPods?.length)
      parts.push(`${c.unreadyPods.length} not yet ready${podList(c.unreadyPods)}`);
    if (c.missingPods?.length)
      parts.push(`${c.missingPods.length} without metrics${podList(c.missingPods)}`);
    if (c.ignoredPods?.length)
      parts.push(`${c.ignoredPods.length} ignored as deleted or failed${podList(c.ignoredPods)}`);
    lines.push(`Pods: ${parts.join(", ")}.`);
  }
  return lines;
}

function describeStabilization(trace: DecisionTrace): string | null {
  const s = trace.stabilization;
  if (!s) return null;
  if (s.path === "legacy") {
    const window = `${formatDuration((s.windowSeconds ?? 0) * 1000)}`;
    if (s.stabilized !== s.recommendation) {
      const held = s.winner
        ? ` (a recommendation of ${s.winner.replicas} from ${num(s.winner.ageSeconds, 1)}s ago)`
        : "";
      return `Stabilization (no spec.behavior: the controller's ${window} downscale window): a higher recommendation within the window${held} holds the count at ${s.stabilized} instead of ${s.recommendation} (ScaleDownStabilized).`;
    }
    return `Stabilization (no spec.behavior: the controller's ${window} downscale window): nothing higher in the window, ${s.recommendation} stands (ReadyForNewScale).`;
  }
  const up = `scale-up window ${s.scaleUpWindowSeconds ?? 0}s (lowest recommendation in it: ${s.upRecommendation ?? "?"})`;
  const down = `scale-down window ${s.scaleDownWindowSeconds ?? 0}s (highest in it: ${s.downRecommendation ?? "?"})`;
  let effect = `${s.recommendation} stands (${s.reason})`;
  if (s.stabilized > s.recommendation) {
    effect = `the scale-down window holds the count at ${s.stabilized} instead of ${s.recommendation} (${s.reason})`;
  } else if (s.stabilized < s.recommendation) {
    effect = `the scale-up window holds the count at ${s.stabilized} instead of ${s.recommendation} (${s.reason})`;
  }
  return `Stabilization (spec.behavior): ${up}, ${down}: ${effect}.`;
}

function describeLimit(trace: DecisionTrace): string | null {
  const l = trace.limit;
  if (!l) return null;
  const stabilized = trace.stabilization?.stabilized ?? trace.recommendation;
  switch (l.reason) {
    case "DesiredWithinRange":
      return `Limits: none applied — ${stabilized ?? trace.desiredReplicas} is within minReplicas ${trace.minReplicas}–maxReplicas ${trace.maxReplicas} and the allowed scaling rate (DesiredWithinRange).`;
    case "TooManyReplicas":
      return `Limits: capped at maxReplicas ${l.limit ?? trace.maxReplicas} (TooManyReplicas).`;
    case "TooFewReplicas":
      return `Limits: raised to minReplicas ${l.limit ?? trace.minReplicas} (TooFewReplicas).`;
  }
  const direction = l.reason === "ScaleUpLimit" ? "scale-up" : "scale-down";
  if (l.policies && l.policies.length > 0) {
    const policies = l.policies
      .map(
        (p) =>
          `${p.type} ${p.value}${p.type === "Percent" ? "%" : ""} per ${p.periodSeconds}s allows ${p.proposal} (from ${p.periodStartReplicas} at the start of its period)`,
      )
      .join("; ");
    const pick =
      l.selectPolicy === "Min"
        ? "the smallest change"
        : l.selectPolicy === "Disabled"
          ? "no change at all"
          : "the largest change";
    return `Limits: the ${direction} rate is limited by spec.behavior.${direction === "scale-up" ? "scaleUp" : "scaleDown"}.policies — ${policies}; selectPolicy ${l.selectPolicy ?? "Max"} takes ${pick}: ${l.policyLimit ?? l.limit} (${l.reason}).`;
  }
  if (l.legacyScaleUpLimit !== undefined && l.reason === "ScaleUpLimit") {
    return `Limits: without spec.behavior a sync may at most double the replicas (or reach 4): max(2 × ${trace.currentReplicas}, 4) = ${l.legacyScaleUpLimit} (ScaleUpLimit).`;
  }
  return `Limits: ${l.reason}: ${l.message}${l.limit !== undefined ? ` (bound ${l.limit})` : ""}.`;
}

function outcomeLine(trace: DecisionTrace): string {
  if (trace.outcome === "scaled") {
    return `Scaled from ${trace.currentReplicas} to ${trace.desiredReplicas} replicas${trace.rescaleReason ? ` (reason: ${trace.rescaleReason})` : ""}.`;
  }
  if (trace.outcome === "failed") {
    return `Did not scale: the sync failed${trace.error ? `: ${trace.error}` : ""}.`;
  }
  return `Did not scale: kept ${plural(trace.currentReplicas, "replica")}${trace.desiredReplicas !== trace.currentReplicas ? ` (desired ${trace.desiredReplicas})` : ""}.`;
}

/** Plain-language bullets: why this sync decided what it did. */
export function explainDecision(record: DecisionRecord): string[] {
  const trace = record.trace;
  const why: string[] = [];
  if ("error" in trace.scale) {
    why.push(`The target's scale subresource could not be read: ${trace.scale.error}.`);
    return why;
  }
  const range = `minReplicas ${trace.minReplicas}, maxReplicas ${trace.maxReplicas}`;
  why.push(
    `The target has ${plural(trace.scale.specReplicas, "replica")} (status: ${trace.scale.statusReplicas}${trace.scale.selector ? `, selector ${trace.scale.selector}` : ""}); ${range}.`,
  );
  switch (trace.branch) {
    case "scalingDisabled":
      why.push(
        "The target is at 0 replicas while minReplicas > 0: autoscaling is disabled until something scales the target up (ScalingDisabled).",
      );
      return why;
    case "aboveMaxReplicas":
      why.push(
        `The target is above maxReplicas: the HPA moves it to ${trace.desiredReplicas} without reading metrics.`,
      );
      return why;
    case "belowMinReplicas":
      why.push(
        `The target is below minReplicas: the HPA moves it to ${trace.desiredReplicas} without reading metrics.`,
      );
      return why;
    default:
      break;
  }
  if (trace.metrics.length === 0) {
    why.push(
      trace.error
        ? `No metric was computed: ${trace.error}.`
        : "No metric was computed (the HPA has no metrics).",
    );
    return why;
  }
  for (const metric of trace.metrics) why.push(...describeMetric(metric, trace.currentReplicas));
  const failed = trace.metrics.filter((m) => m.reason !== undefined || m.proposal === undefined);
  if (trace.recommendation === null) {
    why.push(
      failed.length === trace.metrics.length
        ? "No metric could be computed, so the HPA does not scale."
        : "Some metrics failed and the others would scale down: the HPA never scales down on partial metrics, so it does not scale.",
    );
    return why;
  }
  if (trace.metrics.length > 1) {
    why.push(
      `With several metrics the HPA takes the highest proposal: ${trace.recommendation}${trace.recommendationMetric ? `, from ${trace.recommendationMetric}` : ""}.`,
    );
  }
  if (failed.length > 0) {
    why.push(
      `${plural(failed.length, "metric")} failed; the HPA still acts on the others because they scale up (it never scales down on partial metrics).`,
    );
  }
  const stabilization = describeStabilization(trace);
  if (stabilization) why.push(stabilization);
  const limit = describeLimit(trace);
  if (limit) why.push(limit);
  if (trace.rescale) {
    why.push(
      `Desired ${trace.desiredReplicas} differs from current ${trace.currentReplicas}: the scale is updated.`,
    );
  } else {
    why.push(
      `Desired ${trace.desiredReplicas} equals current ${trace.currentReplicas}: nothing to update.`,
    );
  }
  return why;
}

function when(record: DecisionRecord, source: Source, now: number): string {
  const time = record.trace.time;
  if (record.t !== undefined) return `${time} (${formatDuration(record.t * 1000)} after the start)`;
  const age = Math.round((now - Date.parse(time)) / 1000);
  return Number.isFinite(age) && age >= 0 && source.simulationStart === undefined
    ? `${time} (${formatDuration(age * 1000)} ago)`
    : time;
}

function columns(rows: string[][], indent: string): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  return rows.map((row) =>
    (
      indent +
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")
    ).trimEnd(),
  );
}

/** The whole text of `horizon explain`. */
export function formatExplanation(
  namespace: string,
  name: string,
  source: Source,
  history: number,
  now: number,
): string {
  const records = source.records;
  const latest = records[records.length - 1]!;
  const out: string[] = [
    `HPA ${namespace}/${name} — ${source.description}`,
    `Latest sync: ${when(latest, source, now)}`,
    "",
    outcomeLine(latest.trace),
    "",
    "Why:",
    ...explainDecision(latest).map((line) => `  - ${line}`),
  ];
  if (latest.conditions.length > 0) {
    out.push("", "Conditions after the sync:");
    out.push(
      ...columns(
        latest.conditions.map((c) => [c.type, c.status, c.reason ?? "", c.message ?? ""]),
        "  ",
      ),
    );
  }
  if (latest.events.length > 0) {
    out.push("", "Events of the sync:");
    out.push(
      ...columns(
        latest.events.map((e) => [e.type, e.reason, e.message]),
        "  ",
      ),
    );
  }
  if (latest.statusError) out.push("", `The status write failed: ${latest.statusError}`);
  if (latest.trace.outcome !== "scaled") {
    const lastScale = [...records].reverse().find((r) => r.trace.outcome === "scaled");
    if (lastScale) {
      out.push(
        "",
        `Last rescale: ${when(lastScale, source, now)}: ${lastScale.trace.currentReplicas} → ${lastScale.trace.desiredReplicas}${lastScale.trace.rescaleReason ? ` (${lastScale.trace.rescaleReason})` : ""}.`,
      );
    } else out.push("", `No rescale in the ${plural(records.length, "sync")} available.`);
  }
  const recent = records.slice(Math.max(0, records.length - history));
  if (recent.length > 1) {
    out.push("", `Recent syncs (${recent.length} of ${records.length}, oldest first):`);
    const rows = [["TIME", "REPLICAS", "OUTCOME", "WHY"]];
    for (const r of recent) {
      const t = r.trace;
      const note =
        t.outcome === "failed"
          ? (t.error ?? "")
          : [
              t.rescale ? t.rescaleReason : "",
              t.stabilization && t.stabilization.stabilized !== t.stabilization.recommendation
                ? t.stabilization.reason
                : "",
              t.limit && t.limit.reason !== "DesiredWithinRange" ? t.limit.reason : "",
            ]
              .filter(Boolean)
              .join("; ");
      rows.push([
        r.t !== undefined ? formatDuration(r.t * 1000) : t.time,
        `${t.currentReplicas} → ${t.desiredReplicas}`,
        t.outcome,
        note || "-",
      ]);
    }
    out.push(...columns(rows, "  "));
  }
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// The command.

const OUTPUTS = ["text", "json"];

function selectAt(records: DecisionRecord[], at: AtPoint | null): DecisionRecord[] {
  if (at === null) return records;
  return records.filter((r) =>
    at.kind === "offset"
      ? r.t !== undefined && r.t <= at.seconds
      : Date.parse(r.trace.time) <= at.ms,
  );
}

/** Runs `horizon explain`; resolves with the exit code. */
export async function explainCommand(
  target: string,
  options: ExplainOptions,
  io: ExplainIO,
): Promise<number> {
  const bad = (message: string) => {
    io.err(`error: ${message}`);
    return 2;
  };
  const parsedTarget = parseHpaTarget(target);
  if (!parsedTarget.ok) return bad(parsedTarget.error);
  const name = parsedTarget.value;
  const namespace = options.namespace ?? "default";
  const output = options.output ?? "text";
  if (!OUTPUTS.includes(output)) return bad(`--output: must be text or json, got "${output}"`);
  let history: number = EXPLAIN_DEFAULTS.history;
  if (options.history !== undefined) {
    history = Number(options.history);
    if (!/^\d+$/.test(options.history) || history < 1) {
      return bad(`--history: must be a positive integer, got "${options.history}"`);
    }
  }
  let at: AtPoint | null = null;
  if (options.at !== undefined) {
    const parsed = parseAt(options.at);
    if (!parsed.ok) return bad(parsed.error);
    at = parsed.value;
  }
  const controllerFlags = [
    options.address,
    options.kubeconfig,
    options.leaseNamespace,
    options.leaseName,
  ];
  if (options.fromSimulation !== undefined && controllerFlags.some((f) => f !== undefined)) {
    return bad(
      "--from-simulation reads a file: it does not go with --address, --kubeconfig or --lease-*",
    );
  }
  if (options.address !== undefined && options.kubeconfig !== undefined) {
    return bad("--address and --kubeconfig are two ways to find the controller: give one");
  }
  if (at?.kind === "offset" && options.fromSimulation === undefined) {
    return bad(
      "--at: a controller's traces need an RFC 3339 time (offsets are for --from-simulation)",
    );
  }
  if (options.address !== undefined) {
    try {
      const url = new URL(options.address);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
    } catch {
      return bad(
        `--address: expected a URL such as http://127.0.0.1:8085, got "${options.address}"`,
      );
    }
  }

  let source: Source;
  if (options.fromSimulation !== undefined) {
    const file = options.fromSimulation;
    let input: NodeJS.ReadableStream;
    if (file === "-") input = io.stdin ?? process.stdin;
    else {
      const stream = createReadStream(file);
      const opened = await new Promise<Error | null>((resolve) => {
        stream.once("open", () => resolve(null));
        stream.once("error", (error) => resolve(error));
      });
      if (opened) {
        io.err(`error: --from-simulation: cannot read ${file}: ${opened.message}`);
        return 1;
      }
      input = stream;
    }
    const read = await readSimulation(input, namespace, name);
    if (!read.ok) {
      io.err(`error: --from-simulation ${file}: ${read.error}`);
      return 1;
    }
    source = {
      description: `from the simulation ${file === "-" ? "on standard input" : file}`,
      records: read.value.records,
      ...(read.value.start !== undefined ? { simulationStart: read.value.start } : {}),
    };
  } else {
    let address = options.address;
    let description = "";
    if (
      address === undefined &&
      (options.kubeconfig !== undefined ||
        options.leaseName !== undefined ||
        options.leaseNamespace !== undefined)
    ) {
      const leader = await findLeaderAddress({
        ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
        leaseNamespace: options.leaseNamespace ?? EXPLAIN_DEFAULTS.leaseNamespace,
        leaseName: options.leaseName ?? EXPLAIN_DEFAULTS.leaseName,
      });
      if (!leader.ok) {
        io.err(`error: ${leader.error}`);
        return 1;
      }
      address = leader.value.address;
      description = `from the leader ${leader.value.holder} at ${address}`;
      const fetched = await fetchDecisions(address, namespace, name);
      if (!fetched.ok) {
        io.err(`error: ${fetched.error}`);
        if (isLoopbackUrl(address)) {
          const pod = podOfIdentity(leader.value.holder);
          const port = new URL(address).port || "80";
          io.err(
            `hint: the leader serves /debug on its own loopback; forward it first:\n  kubectl port-forward -n ${options.leaseNamespace ?? EXPLAIN_DEFAULTS.leaseNamespace} pod/${pod} ${port}:${port}\nthen run: horizon explain ${target} -n ${namespace} --address ${address}`,
          );
        }
        return 1;
      }
      source = { description, records: fetched.value };
    } else {
      const defaulted = address === undefined;
      address ??= EXPLAIN_DEFAULTS.address;
      const fetched = await fetchDecisions(address, namespace, name);
      if (!fetched.ok) {
        io.err(`error: ${fetched.error}`);
        if (defaulted) {
          io.err(
            "hint: name the source: --address URL (a controller's /debug), --kubeconfig FILE (the leader's Lease) or --from-simulation FILE",
          );
        }
        return 1;
      }
      source = { description: `from the controller at ${address}`, records: fetched.value };
    }
  }

  source.records = selectAt(source.records, at);
  if (source.records.length === 0) {
    io.err(
      `error: no decision traces for hpa/${name} in namespace ${namespace} ${source.description}${at ? ` up to --at ${options.at}` : ""} (has it been synced yet? is the name or namespace right?)`,
    );
    return 1;
  }
  if (output === "json") {
    io.out(`${JSON.stringify({ namespace, name, decisions: source.records }, null, 2)}\n`);
    return 0;
  }
  io.out(formatExplanation(namespace, name, source, history, (io.now ?? Date.now)()));
  return 0;
}

export function registerExplainCommand(program: Command): void {
  const command = program
    .command("explain")
    .description(
      "Explain why an HPA did (or did not) scale, from the decision traces of its recent syncs",
    )
    .argument("<hpa>", "the HPA: hpa/NAME")
    .option("-n, --namespace <namespace>", "the HPA's namespace", "default")
    .option(
      "--address <url>",
      `a running controller's /debug address (default ${EXPLAIN_DEFAULTS.address}, the default --metrics-bind-address)`,
    )
    .option(
      "--kubeconfig <file>",
      `find the leading controller through its Lease (its ${DEBUG_ADDRESS_ANNOTATION} annotation)`,
    )
    .option(
      "--lease-namespace <namespace>",
      `namespace of the leader-election Lease (default ${EXPLAIN_DEFAULTS.leaseNamespace}; horizon-system for deploy/)`,
    )
    .option("--lease-name <name>", `name of the Lease (default ${EXPLAIN_DEFAULTS.leaseName})`)
    .option(
      "--from-simulation <file>",
      "read `horizon simulate --output json` output instead (- for standard input)",
    )
    .option(
      "--at <time>",
      "explain the last sync at or before this time: seconds or a duration after the simulation start (315, 5m15s), or an RFC 3339 time",
    )
    .addOption(
      new Option("-o, --output <format>", "text, or json (the raw decision records)")
        .choices(OUTPUTS)
        .default("text"),
    )
    .option("--history <n>", "how many recent syncs to list", String(EXPLAIN_DEFAULTS.history))
    .addHelpText(
      "after",
      `
Examples:
  horizon explain hpa/web                                # controller on ${EXPLAIN_DEFAULTS.address}
  horizon explain hpa/web -n shop --address http://127.0.0.1:8086
  horizon explain hpa/web --kubeconfig ~/.kube/config --lease-namespace horizon-system
  horizon simulate examples/cpu-step.yaml -o json > run.jsonl
  horizon explain hpa/web --from-simulation run.jsonl --at 5m15s

Exit codes: 0 explained, 1 no decision traces for the HPA (or the source could not be read),
2 bad flags. See docs/observability.md.`,
    )
    .action(async (hpa: string, options: ExplainOptions) => {
      process.exitCode = await explainCommand(hpa, options, {
        out: (text) => process.stdout.write(text),
        err: (line) => console.error(line),
      });
    });
  // Flag errors exit 2, as the other checks of this command (commander's default is 1).
  command.exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
}
