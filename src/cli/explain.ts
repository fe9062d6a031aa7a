// `horizon explain hpa/NAME`: why did the HPA (not) scale? Reads the decision traces of recent
// syncs — from a running controller's /debug/decisions (an address, or the one the leader
// publishes on its Lease), or from a simulation's JSON output — and words the latest one
// (src/explain/decisions.ts reads and words them; this file picks the source from the flags).
// Exit codes: 0 explained, 1 no traces for that HPA (or the source could not be read), 2 bad
// flags.
import { createReadStream, fstatSync } from "node:fs";
import { homedir } from "node:os";
import { type Command, Option } from "commander";
import { parseDuration } from "../api/duration.js";
import { implicitUpController, upControllerAddress } from "../apiserver/kubeconfig.js";
import type { LeaderInfo } from "../controller/decisions.js";
import { DEBUG_ADDRESS_ANNOTATION } from "../controller/server.js";
import {
  type AtPoint,
  askTheLeader,
  type DecisionSource,
  fetchDecisionsDocument,
  formatExplanation,
  isLoopbackUrl,
  podOfIdentity,
  readSimulation,
  selectAt,
  simulationLookupProblem,
} from "../explain/decisions.js";
import { findLeaderAddress } from "../kube/leader.js";
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

// ---------------------------------------------------------------------------------------------
// The command.

const OUTPUTS = ["text", "json"];

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

  let source: DecisionSource;
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
    let read: Awaited<ReturnType<typeof readSimulation>>;
    try {
      read = await readSimulation(input, namespace, name);
    } catch (error) {
      // A read error of the input (a directory opens, then fails to read: EISDIR).
      read = { ok: false, error: `cannot read: ${ioErrorText(error)}` };
    }
    if (!read.ok) {
      io.err(`error: --from-simulation ${file}: ${read.error}`);
      return 1;
    }
    const problem = simulationLookupProblem(read.value, {
      namespace,
      name,
      at,
      ...(options.at !== undefined ? { atText: options.at } : {}),
      file,
    });
    if (problem?.kind === "no-such-hpa") {
      io.err(`error: ${problem.message}`);
      return 1;
    }
    if (problem?.kind === "after-the-end") return bad(problem.message);
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
