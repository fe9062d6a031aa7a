// An HPA's recorded decisions as `horizon explain` reads and words them: the sync records of a
// simulation's JSON output or of a running controller's /debug/decisions, those up to a point
// in time, the hint that sends a standby's reader to the leader, and the whole text of the
// explanation (src/explain's words for each sync, conditions, events, recent syncs).
import { createInterface } from "node:readline";
import { formatDuration } from "../api/duration.js";
import type { DecisionRecord, DecisionsDocument, LeaderInfo } from "../controller/decisions.js";
import { isLoopbackHost } from "../controller/server.js";
import type { DecisionTrace } from "../core/trace.js";
import { explain } from "./explanation.js";
import { replicaChange } from "./format.js";
import { explanationNote, explanationText, outcomeText } from "./text.js";

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** `--at`: seconds after the simulation start (`315`, `5m15s`) or an RFC 3339 time. */
export type AtPoint = { kind: "offset"; seconds: number } | { kind: "time"; ms: number };

/** Where the records came from, and the records. */
export interface DecisionSource {
  /** How the records were found, for the header. */
  description: string;
  records: DecisionRecord[];
  /** Said under the header (a standby's traces are from when it led). */
  note?: string;
  /** Simulation: its start (RFC 3339) for offsets. */
  simulationStart?: string;
}

/** One HPA's syncs in a simulation's JSON, with what the file says of the run. */
export interface SimulationRead {
  records: DecisionRecord[];
  /** The run's start (RFC 3339). */
  start?: string;
  durationSeconds?: number;
  /** Every HPA the file holds syncs of, as namespace/name, sorted. */
  hpas: string[];
}

/**
 * The sync records of one HPA in a `horizon simulate --output json` stream. A read error of the
 * input (a directory opens, then fails to read: EISDIR) rejects, for the reader to word.
 */
export async function readSimulation(
  input: NodeJS.ReadableStream,
  namespace: string,
  name: string,
): Promise<Parsed<SimulationRead>> {
  const wanted = `${namespace}/${name}`;
  const records: DecisionRecord[] = [];
  /** Every HPA the file holds syncs of ("namespace/name"), for a name or namespace not found. */
  const hpas = new Set<string>();
  let start: string | undefined;
  let durationSeconds: number | undefined;
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
    if (parsed.type === "start" && typeof parsed.durationSeconds === "number") {
      durationSeconds = parsed.durationSeconds;
    }
    if (parsed.type === "sync" && typeof parsed.hpa === "string") hpas.add(parsed.hpa);
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
  return {
    ok: true,
    value: {
      records,
      ...(start !== undefined ? { start } : {}),
      ...(durationSeconds !== undefined ? { durationSeconds } : {}),
      hpas: [...hpas].sort(),
    },
  };
}

/**
 * What is wrong with explaining `hpa/name -n namespace` at `at` from a simulation read: an HPA
 * the file does not hold (the message lists those it holds), or a time after the run's end
 * (which would silently explain its last sync). Null when neither.
 */
export function simulationLookupProblem(
  read: SimulationRead,
  wanted: { namespace: string; name: string; at: AtPoint | null; atText?: string; file: string },
): { kind: "no-such-hpa" | "after-the-end"; message: string } | null {
  const { hpas, durationSeconds, start } = read;
  if (read.records.length === 0 && hpas.length > 0) {
    const held = hpas.map((key) => {
      const slash = key.indexOf("/");
      return `hpa/${key.slice(slash + 1)} -n ${key.slice(0, slash)}`;
    });
    const where = wanted.file === "-" ? "on standard input" : wanted.file;
    return {
      kind: "no-such-hpa",
      message: `no HPA hpa/${wanted.name} in namespace ${wanted.namespace} in the simulation ${where}; it holds ${held.join(", ")}`,
    };
  }
  const { at } = wanted;
  if (at === null || durationSeconds === undefined) return null;
  const endMs = start !== undefined ? Date.parse(start) + durationSeconds * 1000 : Number.NaN;
  const past =
    at.kind === "offset" ? at.seconds > durationSeconds : Number.isFinite(endMs) && at.ms > endMs;
  if (!past) return null;
  const end = Number.isFinite(endMs)
    ? `, ${new Date(endMs).toISOString().replace(".000Z", "Z")}`
    : "";
  return {
    kind: "after-the-end",
    message: `--at ${wanted.atText}: after the end of the simulation (${formatDuration(durationSeconds * 1000)}${end})`,
  };
}

/** GET {address}/debug/decisions for one HPA. */
export async function fetchDecisions(
  address: string,
  namespace: string,
  name: string,
): Promise<Parsed<DecisionRecord[]>> {
  const fetched = await fetchDecisionsDocument(address, namespace, name);
  return fetched.ok ? { ok: true, value: fetched.value.records } : fetched;
}

/** One HPA's records, and whether the controller that serves them leads (leader election). */
export async function fetchDecisionsDocument(
  address: string,
  namespace: string,
  name: string,
): Promise<Parsed<{ records: DecisionRecord[]; leader: LeaderInfo | null }>> {
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
  return { ok: true, value: { records: hpa?.decisions ?? [], leader: document.leader ?? null } };
}

/**
 * Where to ask instead of a standby: the leader's debug address from its Lease; on its pod's
 * loopback, with the port-forward that reaches it. Null when the Lease names none.
 */
export function askTheLeader(leader: LeaderInfo, target: string, namespace: string): string | null {
  if (leader.holderIdentity === "" || leader.debugAddress === null) return null;
  const run = `horizon explain ${target} -n ${namespace} --address ${leader.debugAddress}`;
  if (!isLoopbackUrl(leader.debugAddress)) return `hint: ask the leader: ${run}`;
  const pod = podOfIdentity(leader.holderIdentity);
  const port = new URL(leader.debugAddress).port || "80";
  const leaseNamespace = leader.lease.slice(0, leader.lease.indexOf("/"));
  return `hint: the leader ${leader.holderIdentity} serves /debug on its own loopback (${leader.debugAddress}); forward it first:\n  kubectl port-forward -n ${leaseNamespace} pod/${pod} ${port}:${port}\nthen run: ${run}`;
}

/** client-go's default identity is `hostname_uuid`; in a pod the hostname is the pod name. */
export function podOfIdentity(identity: string): string {
  const underscore = identity.indexOf("_");
  return underscore === -1 ? identity : identity.slice(0, underscore);
}

export function isLoopbackUrl(address: string): boolean {
  try {
    const host = new URL(address).hostname.replace(/^\[|\]$/g, "");
    return isLoopbackHost(host);
  } catch {
    return false;
  }
}

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

/** Plain-language bullets: why this sync decided what it did (src/explain's text rendering). */
export function explainDecision(record: DecisionRecord): string[] {
  return explanationText(explain(record.trace));
}

function when(record: DecisionRecord, source: DecisionSource, now: number): string {
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
  source: DecisionSource,
  history: number,
  now: number,
): string {
  const records = source.records;
  const latest = records[records.length - 1]!;
  const explanation = explain(latest.trace);
  const out: string[] = [
    `HPA ${namespace}/${name} — ${source.description}`,
    ...(source.note ? [`Note: ${source.note}.`] : []),
    `Latest sync: ${when(latest, source, now)}`,
    "",
    outcomeText(explanation),
    "",
    "Why:",
    ...explanationText(explanation).map((line) => `  - ${line}`),
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
      const note = explanationNote(explain(t));
      rows.push([
        r.t !== undefined ? formatDuration(r.t * 1000) : t.time,
        replicaChange(t),
        t.outcome,
        note || "-",
      ]);
    }
    out.push(...columns(rows, "  "));
  }
  return `${out.join("\n")}\n`;
}

/** The records up to `--at` (all of them without it). */
export function selectAt(records: DecisionRecord[], at: AtPoint | null): DecisionRecord[] {
  if (at === null) return records;
  return records.filter((r) =>
    at.kind === "offset"
      ? r.t !== undefined && r.t <= at.seconds
      : Date.parse(r.trace.time) <= at.ms,
  );
}
