// `horizon tune`: which HPA settings meet the constraints at the best objective on this scenario's
// traffic. Exit codes: 0 a candidate meets every constraint, 1 none does (or --patch/--report
// could not be written), 2 bad input (reported before anything runs, output paths included).
import { existsSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../api/duration.js";
import {
  KUBERNETES_VERSION_FLAG,
  KUBERNETES_VERSION_HELP,
  readKubernetesVersionFlag,
} from "../api/kubernetes-version-flag.js";
import type { KubernetesVersion } from "../api/versions.js";
import { formatNumber } from "../explain/format.js";
import { type Assertion, matches as matchesHpa, parseAssertion } from "../sim/assertions.js";
import { formatScenarioError, parseScenario } from "../sim/scenario.js";
import { formatPath } from "../sim/set-path.js";
import { type TuneBase, versionOption } from "../sim/tune/evaluate.js";
import {
  objectiveProblem,
  parseObjective,
  rowMeasure,
  tableMeasures,
} from "../sim/tune/objective.js";
import { patchYaml, winningPatch } from "../sim/tune/patch.js";
import { tuneReportHtml } from "../sim/tune/report.js";
import {
  duplicateEntries,
  parseSearchSpace,
  type SearchEntry,
  setExpression,
} from "../sim/tune/space.js";
import {
  type Row,
  type Strategy,
  type TuneOptions,
  type TuneResult,
  tune,
  UPSTREAM_DEFAULT_BEHAVIOR,
} from "../sim/tune/tuner.js";
import { outputFileProblem, writeOutputFile } from "./files.js";

export interface TuneCommandOptions {
  search: string[];
  minimize?: string;
  maximize?: string;
  constraint: string[];
  strategy: string;
  budget: string;
  searchSeed: string;
  jobs?: string;
  set: string[];
  duration?: string;
  seed?: string;
  output: string;
  report?: string;
  patch?: string;
  top: string;
  quiet?: boolean;
  kubernetesVersion?: string;
}

export interface TuneIO {
  out: (text: string) => void;
  err: (line: string) => void;
  /** Whether stderr is a terminal (a redrawn progress line vs. one line every 10%). */
  interactive: boolean;
  now?: () => number;
}

const STRATEGIES = ["auto", "grid", "random", "halving"] as const;

/** A warning that the API server drops a field (scenario.ts: "… is dropped: feature gate …"). */
const GATED = /(\S+) is dropped: feature gate (.*)$/;

function positiveInt(flag: string, text: string): number | string {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    return `${flag}: expected a positive integer, got "${text}"`;
  return Number(text);
}

/** Reads a --search value: a file when one exists at that path, else the YAML text itself
 * (which has a `:`; without one it can only be meant as a file). */
function readSpace(spec: string): { text: string; source: string } | { error: string } {
  if (existsSync(spec)) {
    if (!statSync(spec).isFile()) return { error: `--search ${spec}: is a directory, not a file` };
    return { text: readFileSync(spec, "utf8"), source: spec };
  }
  if (!spec.includes(":"))
    return { error: `--search ${spec}: no such file (nor inline YAML of FIELD: VALUES)` };
  return { text: spec, source: "--search" };
}

interface Prepared extends Omit<TuneOptions, "progress"> {
  top: number;
}

/** Everything checked before the first run; the errors name the flag or search entry at fault. */
function prepare(
  file: string,
  options: TuneCommandOptions,
): { ok: true; value: Prepared } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  if (options.output !== "table" && options.output !== "json")
    errors.push(`--output: expected table or json, got "${options.output}"`);
  if (!(STRATEGIES as readonly string[]).includes(options.strategy))
    errors.push(`--strategy: expected one of ${STRATEGIES.join(", ")}, got "${options.strategy}"`);
  const budget = positiveInt("--budget", options.budget);
  const top = positiveInt("--top", options.top);
  const jobs =
    options.jobs === undefined ? availableParallelism() : positiveInt("--jobs", options.jobs);
  const searchSeed = /^\d+$/.test(options.searchSeed)
    ? Number(options.searchSeed)
    : `--search-seed: expected a non-negative integer, got "${options.searchSeed}"`;
  for (const v of [budget, top, jobs, searchSeed]) if (typeof v === "string") errors.push(v);
  if (options.minimize !== undefined && options.maximize !== undefined)
    errors.push("--minimize and --maximize: give one objective");
  const objectiveParsed =
    options.maximize !== undefined
      ? parseObjective(options.maximize, "maximize")
      : parseObjective(options.minimize ?? "podHours", "minimize");
  if (!objectiveParsed.ok) errors.push(objectiveParsed.error);
  const constraints: Assertion[] = [];
  for (const expr of options.constraint) {
    const parsed = parseAssertion(expr);
    if (parsed.ok) constraints.push(parsed.assertion);
    else errors.push(`--constraint ${parsed.error}`);
  }
  let seed: number | undefined;
  if (options.seed !== undefined) {
    if (/^\d+$/.test(options.seed)) seed = Number(options.seed);
    else errors.push(`--seed: expected a non-negative integer, got "${options.seed}"`);
  }
  let durationMs: number | undefined;
  if (options.duration !== undefined) {
    const parsed = parseDuration(options.duration);
    if (parsed.ok && parsed.ms > 0) durationMs = parsed.ms;
    else errors.push(`--duration: ${parsed.ok ? "must be positive" : parsed.error}`);
  }
  let kubernetesVersion: KubernetesVersion | undefined;
  if (options.kubernetesVersion !== undefined) {
    const read = readKubernetesVersionFlag(options.kubernetesVersion);
    if (read.ok) kubernetesVersion = read.value.version;
    else errors.push(read.error.replace(/^error: /, ""));
  }
  if (options.search.length === 0)
    errors.push("--search: give the search space, e.g. --search 'spec.minReplicas: 1..4'");
  const entries: SearchEntry[] = [];
  for (const spec of options.search) {
    const read = readSpace(spec);
    if ("error" in read) {
      errors.push(read.error);
      continue;
    }
    const space = parseSearchSpace(read.text, read.source);
    if (space.ok) entries.push(...space.entries);
    else errors.push(...space.errors);
  }
  if (options.patch !== undefined && !entries.some((e) => e.kind === "HorizontalPodAutoscaler"))
    errors.push(
      `--patch ${options.patch}: no searched field is an HPA field, so there is no HPA patch to write (the winner's controller flags are printed)`,
    );
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    return {
      ok: false,
      errors: [...errors, `${file}: cannot read the scenario: ${(error as Error).message}`],
    };
  }
  const base: TuneBase = {
    text,
    file,
    baseDir: file === "-" ? process.cwd() : dirname(resolve(file)),
    sets: options.set,
    ...(seed === undefined ? {} : { seed }),
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(kubernetesVersion === undefined ? {} : { kubernetesVersion }),
  };
  const loaded = parseScenario(text, {
    file,
    baseDir: base.baseDir,
    sets: options.set,
    ...versionOption(base),
  });
  if (!loaded.ok)
    return { ok: false, errors: [...errors, ...loaded.errors.map(formatScenarioError)] };
  const hpas = loaded.scenario.objects
    .filter((o) => o.kind === "HorizontalPodAutoscaler")
    .map((o) => `${o.metadata.namespace ?? "default"}/${o.metadata.name}`);
  if (objectiveParsed.ok) {
    const problem = objectiveProblem(objectiveParsed.objective, hpas);
    if (problem) errors.push(problem);
  }
  for (const c of constraints) {
    if (c.hpa !== null && !hpas.some((h) => matchesHpa(c.hpa!, h)))
      errors.push(`--constraint ${c.text}: no HPA hpa/${c.hpa} in the scenario`);
  }
  errors.push(...duplicateEntries(text, options.set, entries));
  // Each value alone, validated as the same edit of the file would be.
  for (const entry of entries) {
    let dropped = false;
    for (const value of entry.values) {
      const one = parseScenario(text, {
        file,
        baseDir: base.baseDir,
        sets: [...options.set, setExpression(entry, value)],
        ...versionOption(base),
      });
      if (one.ok && !dropped) {
        // A field the API server drops (its feature gate is off) would make every row the same.
        const searched = formatPath(entry.path);
        const gated = one.scenario.warnings
          .map((w) => GATED.exec(w))
          .find((m) => m && (m[1] === searched || m[1]!.startsWith(`${searched}.`)));
        if (gated) {
          dropped = true;
          errors.push(
            `search entry "${entry.key}": ${gated[1]} is dropped by the API server: feature gate ${gated[2]}, so every candidate would run the same`,
          );
        }
      }
      if (!one.ok) {
        const why = one.errors
          .map((e) => e.message.replace(/ \(set by --set [^)]*\)$/, ""))
          .join("; ");
        errors.push(`search entry "${entry.key}": value ${JSON.stringify(value)}: ${why}`);
      }
    }
  }
  if (errors.length > 0 || !objectiveParsed.ok) return { ok: false, errors };
  return {
    ok: true,
    value: {
      base,
      entries,
      objective: objectiveParsed.objective,
      constraints,
      strategy: options.strategy as Strategy | "auto",
      budget: budget as number,
      searchSeed: searchSeed as number,
      jobs: jobs as number,
      top: top as number,
    },
  };
}

function progressLine(io: TuneIO, quiet: boolean, jobs: number) {
  const now = io.now ?? Date.now;
  const started = now();
  let lastTenth = -1;
  let shown = false;
  return {
    update(done: number, total: number) {
      if (quiet || total === 0) return;
      const elapsed = now() - started;
      const eta = done > 0 ? (elapsed / done) * (total - done) : null;
      const text = `tune: ${done}/${total} runs on ${jobs} job${jobs === 1 ? "" : "s"}, ${formatDuration(Math.round(elapsed / 1000) * 1000)} elapsed${eta === null ? "" : `, ETA ${formatDuration(Math.ceil(eta / 1000) * 1000)}`}`;
      if (io.interactive) {
        process.stderr.write(`\r${text}\u001b[K`);
        shown = true;
      } else if (Math.floor((done / total) * 10) > lastTenth) {
        lastTenth = Math.floor((done / total) * 10);
        io.err(text);
      }
    },
    done() {
      if (shown) process.stderr.write("\n");
    },
  };
}

/** What a reference row has for a searched field: upstream's default, or the file's value. */
function referenceValue(row: Row, entry: SearchEntry): string {
  return row.label === UPSTREAM_DEFAULT_BEHAVIOR && entry.path[1] === "behavior"
    ? "(default)"
    : "(as written)";
}

function cell(value: unknown): string {
  if (typeof value === "number") return formatNumber(value);
  if (value === null || value === undefined) return "-";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function table(result: TuneResult, prepared: Prepared): string {
  const { entries, objective, constraints } = prepared;
  const measures = tableMeasures(objective, constraints);
  const header = [
    "RANK",
    ...entries.map((e) => e.key),
    ...measures.map((m) =>
      m === objective.measure ? `${m} (${objective.direction === "minimize" ? "min" : "max"})` : m,
    ),
    "MEETS",
    "PARETO",
  ];
  const line = (row: Row, rank: string) => [
    rank,
    ...(row.values ?? entries.map((e) => referenceValue(row, e))).map(cell),
    ...measures.map((m) => (row.summary ? cell(rowMeasure(row, m, objective)) : "-")),
    row.ok ? (row.feasible ? "yes" : `no (${row.violated.join(", ")})`) : `error: ${row.error}`,
    row.pareto ? "*" : "",
  ];
  const body = result.rows
    .filter((r) => r.ok)
    .slice(0, prepared.top)
    .map((r) => line(r, String(r.rank)));
  const refs = result.references.map((r) => line(r, r.label));
  const rows = [header, ...body, ...refs];
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const render = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  const out = [render(header), ...body.map(render)];
  if (refs.length > 0) out.push("", ...refs.map(render));
  const failed = result.rows.filter((r) => !r.ok);
  if (failed.length > 0)
    out.push("", `${failed.length} candidate(s) did not load, e.g. ${failed[0]!.error}`);
  return `${out.join("\n")}\n`;
}

function jsonRow(row: Row, entries: readonly SearchEntry[]) {
  return {
    rank: row.rank,
    label: row.label,
    values:
      row.values === null
        ? null
        : Object.fromEntries(entries.map((e, i) => [e.key, row.values![i]])),
    sets: row.sets,
    ok: row.ok,
    ...(row.error ? { error: row.error } : {}),
    objective: row.objective,
    feasible: row.feasible,
    violated: row.violated,
    unmetDemandPodSeconds: row.unmetDemandPodSeconds,
    pareto: row.pareto,
    hpas:
      row.summary?.hpas.map(
        ({ actions: _a, loadSteps: _l, timeToMeetDemandSeconds: _t, ...measures }) => measures,
      ) ?? [],
  };
}

export async function tuneCommand(
  file: string,
  options: TuneCommandOptions,
  io: TuneIO,
): Promise<number> {
  // Where the results go is checked with the rest of the input, before anything runs.
  const outputs: string[] = [];
  for (const [flag, path] of [
    ["--patch", options.patch],
    ["--report", options.report],
  ] as const) {
    const problem = path === undefined ? null : outputFileProblem(flag, path);
    if (problem) outputs.push(problem);
  }
  const prepared = prepare(file, options);
  if (!prepared.ok || outputs.length > 0) {
    for (const e of [...outputs, ...(prepared.ok ? [] : prepared.errors)]) io.err(`error: ${e}`);
    return 2;
  }
  const p = prepared.value;
  const quiet = options.quiet ?? false;
  const progress = progressLine(io, quiet, p.jobs);
  const result = await tune({ ...p, progress: (done, total) => progress.update(done, total) });
  progress.done();
  const best = result.rows.find((r) => r.ok && r.feasible) ?? null;
  const patch = best ? winningPatch(p.base, p.entries, best.sets) : null;
  if (options.output === "json") {
    io.out(
      `${JSON.stringify(
        {
          strategy: result.strategy,
          spaceSize: result.spaceSize,
          runs: result.runs,
          objective: {
            measure: p.objective.measure,
            hpa: p.objective.hpa,
            direction: p.objective.direction,
          },
          constraints: p.constraints.map((c) => c.text),
          best: best
            ? {
                ...jsonRow(best, p.entries),
                patch: patch ? patchYaml(patch) : null,
                controllerFlags: patch?.controllerFlags ?? [],
              }
            : null,
          rows: result.rows.map((r) => jsonRow(r, p.entries)),
          references: result.references.map((r) => jsonRow(r, p.entries)),
        },
        null,
        2,
      )}\n`,
    );
  } else {
    io.out(table(result, p));
    if (best && patch) {
      io.out(`\nBest (rank 1): ${best.sets.join(" ")}\n`);
      if (patch.hpaPatches.length > 0) io.out(`\n${patchYaml(patch)}`);
      if (patch.controllerFlags.length > 0)
        io.out(`\nkube-controller-manager flags: ${patch.controllerFlags.join(" ")}\n`);
    } else io.out("\nNo candidate meets every constraint.\n");
    if (!quiet) {
      io.err(
        `Ran ${result.runs} simulations (${result.strategy} search over ${result.spaceSize} combinations, ${p.jobs} job${p.jobs === 1 ? "" : "s"}).`,
      );
    }
  }
  let written = true;
  const write = (flag: string, path: string, text: string, what: string) => {
    const error = writeOutputFile(flag, path, text);
    if (error) io.err(`error: ${error}`);
    else if (!quiet) io.err(`${what} written to ${path}`);
    written &&= error === null;
  };
  if (options.patch && patch) {
    if (patch.hpaPatches.length > 0) write("--patch", options.patch, patchYaml(patch), "Patch");
    else {
      // The winner changes no HPA field: no file rather than an empty one.
      const flags = patch.controllerFlags.join(" ");
      io.err(
        `No HPA patch: the winner changes no HPA field${flags ? ` (its setting: kube-controller-manager ${flags})` : ""}; ${options.patch} not written`,
      );
    }
  }
  if (options.report) {
    const html = tuneReportHtml(result, p.entries, p.objective, file, p.constraints);
    write("--report", options.report, html, "Report");
  }
  // A write can still fail after the checks (a disk that filled): as simulate's report, exit 1.
  return best && written ? 0 : 1;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerTuneCommand(program: Command): void {
  program
    .command("tune")
    .description(
      "Run a scenario once per candidate HPA setting and rank them: the best objective that meets the constraints",
    )
    .argument("<file>", "scenario YAML file, or - for standard input")
    .option(
      "--search <spec>",
      "search space: a YAML file or inline YAML of FIELD: VALUES, e.g. 'spec.minReplicas: 1..4' (repeatable)",
      collect,
      [],
    )
    .option("--minimize <measure>", "the measure to minimize (default podHours)")
    .option("--maximize <measure>", "the measure to maximize, e.g. meanUtilization")
    .option(
      "--constraint <expr>",
      "a condition the winner must meet, e.g. 'unmetDemandSeconds<=60' (repeatable)",
      collect,
      [],
    )
    .option("--strategy <name>", "auto, grid, random or halving", "auto")
    .option("--budget <n>", "full-length simulations to spend when the space is larger", "200")
    .option("--search-seed <n>", "seed of the random and halving searches", "1")
    .option("-j, --jobs <n>", "simulations in parallel (default: the number of cores)")
    .option("--set <path=value>", "change a field of every candidate (repeatable)", collect, [])
    .option("--duration <duration>", "virtual time to simulate (overrides the scenario)")
    .option("--seed <n>", "random seed of the scenario (overrides the scenario)")
    .option("-o, --output <format>", "table or json", "table")
    .option("--top <n>", "candidates to print in the table", "10")
    .option("--patch <file.yaml>", "write the best setting as a merge patch for kubectl patch")
    .option("--report <file.html>", "write an HTML report with the Pareto front")
    .option("-q, --quiet", "only errors and warnings on stderr (no progress, no status lines)")
    .option(KUBERNETES_VERSION_FLAG, `${KUBERNETES_VERSION_HELP} (overrides the scenario)`)
    .action(async (file: string, options: TuneCommandOptions) => {
      process.exitCode = await tuneCommand(file, options, {
        out: (text) => process.stdout.write(text),
        err: (line) => console.error(line),
        interactive: Boolean(process.stderr.isTTY),
      });
    });
}
