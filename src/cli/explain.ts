// `horizon explain hpa/NAME`: why did the HPA (not) scale? Reads the decision traces of recent
// syncs — from a running controller's /debug/decisions (an address, or the one the leader
// publishes on its Lease), or from a simulation's JSON output — and words the latest one.
// Exit codes: 0 explained, 1 no traces for that HPA (or the source could not be read), 2 bad
// flags.
import { createReadStream, fstatSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { CoordinationV1Api } from "@kubernetes/client-node";
import { type Command, Option } from "commander";
import { formatDuration, parseDuration } from "../api/duration.js";
import { controllerDebugAddressOf, defaultKubeconfigPath } from "../apiserver/kubeconfig.js";
import type { DecisionRecord, DecisionsDocument, LeaderInfo } from "../controller/decisions.js";
import { DEBUG_ADDRESS_ANNOTATION, isLoopbackHost } from "../controller/server.js";
import type { DecisionTrace } from "../core/trace.js";
import { replicaChange } from "../explain/format.js";
import { explain, explanationNote, explanationText, outcomeText } from "../explain/index.js";
import { loadKubeConfig } from "../kube/config.js";
import { ioErrorText } from "./files.js";

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
  /** KUBECONFIG's source (default process.env) and the home directory (tests fix them). */
  env?: Record<string, string | undefined>;
  homeDir?: string;
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
  /** Said under the header (a standby's traces are from when it led). */
  note?: string;
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
): Promise<
  Parsed<{ records: DecisionRecord[]; start?: string; durationSeconds?: number; hpas: string[] }>
> {
  const wanted = `${namespace}/${name}`;
  const records: DecisionRecord[] = [];
  /** Every HPA the file holds syncs of ("namespace/name"), for a name or namespace not found. */
  const hpas = new Set<string>();
  let start: string | undefined;
  let durationSeconds: number | undefined;
  let lineNumber = 0;
  let sawRecord = false;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
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
  } catch (error) {
    // A read error of the input (a directory opens, then fails to read: EISDIR).
    return { ok: false, error: `cannot read: ${ioErrorText(error)}` };
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
function askTheLeader(leader: LeaderInfo, target: string, namespace: string): string | null {
  if (leader.holderIdentity === "" || leader.debugAddress === null) return null;
  const run = `horizon explain ${target} -n ${namespace} --address ${leader.debugAddress}`;
  if (!isLoopbackUrl(leader.debugAddress)) return `hint: ask the leader: ${run}`;
  const pod = podOfIdentity(leader.holderIdentity);
  const port = new URL(leader.debugAddress).port || "80";
  const leaseNamespace = leader.lease.slice(0, leader.lease.indexOf("/"));
  return `hint: the leader ${leader.holderIdentity} serves /debug on its own loopback (${leader.debugAddress}); forward it first:\n  kubectl port-forward -n ${leaseNamespace} pod/${pod} ${port}:${port}\nthen run: ${run}`;
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
        error: `lease ${lease} not found (is the controller running with --leader-elect? set --lease-namespace/--lease-name, e.g. --lease-namespace horizon-system for deploy/; for \`horizon up\`, give the kubeconfig it wrote, or the --address its banner prints)`,
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

/**
 * Without --address or --kubeconfig: the kubeconfig the other commands read (KUBECONFIG's
 * files, else ~/.kube/config), then the one `horizon up` writes (~/.horizon/kubeconfig); the
 * first that names a controller (`export KUBECONFIG=…` as `horizon up` suggests finds it).
 */
function implicitUpController(
  env: Record<string, string | undefined>,
  home: string,
): { file: string; address: string } | null {
  const variable = env.KUBECONFIG;
  const files =
    variable !== undefined && variable !== ""
      ? variable.split(delimiter).filter((file) => file !== "")
      : [join(home, ".kube", "config")];
  for (const file of [...files, defaultKubeconfigPath(home)]) {
    const address = upControllerAddress(file);
    if (address !== null) return { file, address };
  }
  return null;
}

/** The controller address `horizon up` wrote into a kubeconfig file (null: none, or unreadable). */
function upControllerAddress(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // The Lease lookup reports an unreadable kubeconfig.
    return null;
  }
  return controllerDebugAddressOf(text);
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

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

/** Plain-language bullets: why this sync decided what it did (src/explain's text rendering). */
export function explainDecision(record: DecisionRecord): string[] {
  return explanationText(explain(record.trace));
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
  /** Whether the controller read leads (null: no leader election, or a simulation). */
  let leaderOf: LeaderInfo | null = null;
  if (options.fromSimulation !== undefined) {
    const file = options.fromSimulation;
    let input: NodeJS.ReadableStream;
    if (file === "-") input = io.stdin ?? process.stdin;
    else {
      const stream = createReadStream(file);
      const opened = await new Promise<Error | null>((resolve) => {
        // A directory opens; its first read fails (EISDIR).
        stream.once("open", (fd) =>
          resolve(
            fstatSync(fd).isDirectory() ? Object.assign(new Error(), { code: "EISDIR" }) : null,
          ),
        );
        stream.once("error", (error) => resolve(error));
      });
      if (opened) {
        stream.destroy();
        io.err(`error: --from-simulation: cannot read ${file}: ${ioErrorText(opened)}`);
        return 1;
      }
      input = stream;
    }
    const read = await readSimulation(input, namespace, name);
    if (!read.ok) {
      io.err(`error: --from-simulation ${file}: ${read.error}`);
      return 1;
    }
    const { hpas, durationSeconds, start } = read.value;
    if (read.value.records.length === 0 && hpas.length > 0) {
      // A wrong name or namespace: say which HPAs the run has.
      const held = hpas.map((key) => {
        const [ns, hpaName] = [key.slice(0, key.indexOf("/")), key.slice(key.indexOf("/") + 1)];
        return `hpa/${hpaName} -n ${ns}`;
      });
      io.err(
        `error: no HPA hpa/${name} in namespace ${namespace} in the simulation ${file === "-" ? "on standard input" : file}; it holds ${held.join(", ")}`,
      );
      return 1;
    }
    // --at after the run's end would silently explain its last sync.
    if (at !== null && durationSeconds !== undefined) {
      const endMs = start !== undefined ? Date.parse(start) + durationSeconds * 1000 : Number.NaN;
      const past =
        at.kind === "offset"
          ? at.seconds > durationSeconds
          : Number.isFinite(endMs) && at.ms > endMs;
      if (past) {
        return bad(
          `--at ${options.at}: after the end of the simulation (${formatDuration(durationSeconds * 1000)}${Number.isFinite(endMs) ? `, ${new Date(endMs).toISOString().replace(".000Z", "Z")}` : ""})`,
        );
      }
    }
    source = {
      description: `from the simulation ${file === "-" ? "on standard input" : file}`,
      records: read.value.records,
      ...(read.value.start !== undefined ? { simulationStart: read.value.start } : {}),
    };
  } else {
    let address = options.address;
    let description = "";
    const noLease = options.leaseName === undefined && options.leaseNamespace === undefined;
    // `horizon up` names its controller's address in the kubeconfig it writes (no Lease).
    let up: { file: string; address: string } | null = null;
    if (options.kubeconfig !== undefined && noLease) {
      const found = upControllerAddress(options.kubeconfig);
      if (found !== null) up = { file: options.kubeconfig, address: found };
    } else if (options.kubeconfig === undefined && address === undefined && noLease) {
      up = implicitUpController(io.env ?? process.env, io.homeDir ?? homedir());
    }
    if (up !== null) {
      address = up.address;
      const fetched = await fetchDecisionsDocument(address, namespace, name);
      if (!fetched.ok) {
        io.err(`error: ${fetched.error}`);
        io.err(
          `hint: ${up.file} names the controller of \`horizon up\` at ${address}: is it still running?`,
        );
        return 1;
      }
      source = {
        description: `from the controller of \`horizon up\` at ${address}`,
        records: fetched.value.records,
      };
      leaderOf = fetched.value.leader;
    } else if (
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
      const fetched = await fetchDecisionsDocument(address, namespace, name);
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
      source = { description, records: fetched.value.records };
      leaderOf = fetched.value.leader;
    } else {
      const defaulted = address === undefined;
      address ??= EXPLAIN_DEFAULTS.address;
      const fetched = await fetchDecisionsDocument(address, namespace, name);
      if (!fetched.ok) {
        io.err(`error: ${fetched.error}`);
        if (defaulted) {
          io.err(
            "hint: name the source: --address URL (a controller's /debug; `horizon up` prints its own), --kubeconfig FILE (the leader's Lease, or the kubeconfig `horizon up` wrote) or --from-simulation FILE",
          );
        }
        return 1;
      }
      source = { description: `from the controller at ${address}`, records: fetched.value.records };
      leaderOf = fetched.value.leader;
    }
  }

  // A standby syncs no HPA: what it has is from when it led (or restored from --data-dir).
  const standby = leaderOf !== null && !leaderOf.leading ? leaderOf : null;
  const leads = standby
    ? standby.holderIdentity === ""
      ? "no replica leads now"
      : `${standby.holderIdentity} leads`
    : "";
  source.records = selectAt(source.records, at);
  if (source.records.length === 0) {
    io.err(
      `error: no decision traces for hpa/${name} in namespace ${namespace} ${source.description}${at ? ` up to --at ${options.at}` : ""} ${standby ? `(it is a standby, not the leader: a standby syncs no HPAs; ${leads})` : "(has it been synced yet? is the name or namespace right?)"}`,
    );
    const hint = standby ? askTheLeader(standby, target, namespace) : null;
    if (hint) io.err(hint);
    return 1;
  }
  if (standby) {
    source.note = `this controller is a standby, not the leader (${leads}): its syncs are from when it led`;
    const hint = askTheLeader(standby, target, namespace);
    if (output === "json" || hint) io.err(`warning: ${source.note}`);
    if (hint) io.err(hint);
  }
  if (output === "json") {
    io.out(`${JSON.stringify({ namespace, name, decisions: source.records }, null, 2)}\n`);
    return 0;
  }
  io.out(formatExplanation(namespace, name, source, history, (io.now ?? Date.now)()));
  return 0;
}

export function registerExplainCommand(program: Command): void {
  program
    .command("explain")
    .description(
      "Explain why an HPA did (or did not) scale, from the decision traces of its recent syncs",
    )
    .argument("<hpa>", "the HPA: hpa/NAME")
    .option("-n, --namespace <namespace>", "the HPA's namespace", "default")
    .option(
      "--address <url>",
      `a running controller's /debug address (default: the controller of \`horizon up\` named in $KUBECONFIG, ~/.kube/config or ~/.horizon/kubeconfig, else ${EXPLAIN_DEFAULTS.address}, the default --metrics-bind-address)`,
    )
    .option(
      "--kubeconfig <file>",
      `find the controller through the kubeconfig \`horizon up\` wrote, else the leader's Lease (its ${DEBUG_ADDRESS_ANNOTATION} annotation)`,
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
  horizon explain hpa/web                                # horizon up's controller ($KUBECONFIG), else ${EXPLAIN_DEFAULTS.address}
  horizon explain hpa/web -n shop --address http://127.0.0.1:8087  # deploy/, port-forwarded
  horizon explain hpa/web --kubeconfig ~/.horizon/kubeconfig  # the controller of \`horizon up\`
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
}
