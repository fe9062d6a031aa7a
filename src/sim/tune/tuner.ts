// `horizon tune`: runs the scenario once per candidate setting and ranks them. Candidates come
// from a grid (every combination), a seeded random sample, or successive halving (a random
// sample run on ever longer prefixes of the trace, keeping the better half each round). The
// ranking, the Pareto front and the winner depend only on the inputs and the search seed, never
// on --jobs or on the order runs finish in.
import { Random } from "../../registry/random.js";
import type { Assertion } from "../assertions.js";
import { scenarioYardsticks } from "../demand.js";
import { parseScenario } from "../scenario.js";
import type { SummaryRecord } from "../timeline.js";
import { type TaskOutcome, type TuneBase, versionOption } from "./evaluate.js";
import { constraintsHold, measureOf, type Objective } from "./objective.js";
import { TunePool } from "./pool.js";
import { gridPoint, type SearchEntry, setExpression, spaceSize } from "./space.js";

export type Strategy = "grid" | "random" | "halving";

export interface TuneOptions {
  base: TuneBase;
  entries: SearchEntry[];
  objective: Objective;
  constraints: Assertion[];
  /** "auto": grid when the space fits the budget, else random. */
  strategy: Strategy | "auto";
  /** Full-length runs to spend (successive halving counts a run on 1/8 of the trace as 1/8). */
  budget: number;
  searchSeed: number;
  jobs: number;
  /** Called after each run with the runs done and planned. */
  progress?: (done: number, total: number) => void;
}

export interface Row {
  /** Grid index of the candidate (its identity); references have none. */
  id: number | null;
  label: string;
  /** The value of each entry, in entry order; null for a reference (the file's own setting). */
  values: unknown[] | null;
  sets: string[];
  ok: boolean;
  error?: string;
  summary?: SummaryRecord;
  objective: number | null;
  feasible: boolean;
  violated: string[];
  /** Σ unmet demand (pod-seconds) over the HPAs: the Pareto front's second axis. */
  unmetDemandPodSeconds: number | null;
  pareto: boolean;
  /** 1-based rank among the ranked candidates; null for references and failed runs. */
  rank: number | null;
}

export interface TuneResult {
  strategy: Strategy;
  spaceSize: number;
  /** Runs made (any length). */
  runs: number;
  /** Candidates run over the whole trace, best first. */
  rows: Row[];
  /** The file as written, and (when the search touches `behavior`) upstream's default behavior. */
  references: Row[];
}

function chooseStrategy(options: TuneOptions, size: number): Strategy {
  if (options.strategy !== "auto") return options.strategy;
  return size <= options.budget ? "grid" : "random";
}

/** `count` distinct grid indices, drawn with the search seed (sorted, so order is canonical). */
function sample(size: number, count: number, seed: number): number[] {
  if (count >= size) return Array.from({ length: size }, (_, i) => i);
  const random = new Random(seed);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(random.next() * size));
  return [...chosen].sort((a, b) => a - b);
}

function setsFor(
  entries: readonly SearchEntry[],
  id: number,
): { values: unknown[]; sets: string[] } {
  const point = gridPoint(entries, id);
  const values = point.map((v, i) => entries[i]!.values[v]);
  return { values, sets: entries.map((e, i) => setExpression(e, values[i])) };
}

function score(row: Row, objective: Objective): number {
  if (row.objective === null) return Number.POSITIVE_INFINITY;
  return objective.direction === "minimize" ? row.objective : -row.objective;
}

/** Feasible first, then by objective, then by grid index: a total order. */
function compareRows(objective: Objective) {
  return (a: Row, b: Row): number => {
    if (a.ok !== b.ok) return a.ok ? -1 : 1;
    if (a.feasible !== b.feasible) return a.feasible ? -1 : 1;
    const d = score(a, objective) - score(b, objective);
    if (d !== 0 && !Number.isNaN(d)) return d;
    return (a.id ?? -1) - (b.id ?? -1);
  };
}

function rowOf(
  base: Omit<
    Row,
    "ok" | "objective" | "feasible" | "violated" | "unmetDemandPodSeconds" | "pareto" | "rank"
  >,
  outcome: TaskOutcome,
  options: TuneOptions,
): Row {
  if (!outcome.ok)
    return {
      ...base,
      ok: false,
      error: outcome.error,
      objective: null,
      feasible: false,
      violated: [],
      unmetDemandPodSeconds: null,
      pareto: false,
      rank: null,
    };
  const held = constraintsHold(options.constraints, outcome.summary);
  return {
    ...base,
    ok: true,
    summary: outcome.summary,
    objective: measureOf(outcome.summary, options.objective.measure, options.objective.hpa),
    feasible: held.feasible,
    violated: held.violated,
    unmetDemandPodSeconds: measureOf(outcome.summary, "unmetDemandPodSeconds", null),
    pareto: false,
    rank: null,
  };
}

/** Marks the rows no other row beats on both the objective and unmet demand. */
function markPareto(rows: Row[], objective: Objective): void {
  const valid = rows.filter(
    (r) => r.ok && r.objective !== null && r.unmetDemandPodSeconds !== null,
  );
  for (const r of valid) {
    r.pareto = !valid.some(
      (o) =>
        o !== r &&
        score(o, objective) <= score(r, objective) &&
        o.unmetDemandPodSeconds! <= r.unmetDemandPodSeconds! &&
        (score(o, objective) < score(r, objective) ||
          o.unmetDemandPodSeconds! < r.unmetDemandPodSeconds!),
    );
  }
}

export async function tune(options: TuneOptions): Promise<TuneResult> {
  const { entries } = options;
  const size = spaceSize(entries);
  const strategy = chooseStrategy(options, size);
  const base = options.base.yardsticks
    ? options.base
    : { ...options.base, yardsticks: writtenYardsticks(options.base) };
  const pool = new TunePool(base, Math.max(1, options.jobs));
  let runs = 0;
  let planned = 0;
  const runAll = async (tasks: { id: number; sets: string[]; durationMs?: number }[]) => {
    const outcomes = await Promise.all(
      tasks.map((task) =>
        pool.run(task).then((outcome) => {
          runs++;
          options.progress?.(runs, planned);
          return outcome;
        }),
      ),
    );
    return outcomes;
  };
  try {
    const references = referenceCandidates(entries);
    let ids: number[];
    let fullDurationMs: number | undefined;
    if (strategy === "halving") {
      fullDurationMs = options.base.durationMs ?? scenarioDuration(options.base);
      ids = await halvingRounds(options, size, fullDurationMs, runAll, (n) => {
        planned += n;
      });
    } else {
      ids =
        strategy === "grid"
          ? sample(size, size, 0)
          : sample(size, options.budget, options.searchSeed);
    }
    planned += ids.length + references.length;
    const candidates = ids.map((id) => ({ id, ...setsFor(entries, id) }));
    const outcomes = await runAll([
      ...candidates.map((c) => ({ id: c.id, sets: c.sets })),
      ...references.map((r, i) => ({ id: -1 - i, sets: r.sets })),
    ]);
    const rows = candidates.map((c, i) =>
      rowOf(
        { id: c.id, label: "candidate", values: c.values, sets: c.sets },
        outcomes[i]!,
        options,
      ),
    );
    const refs = references.map((r, i) =>
      rowOf(
        { id: null, label: r.label, values: null, sets: r.sets },
        outcomes[candidates.length + i]!,
        options,
      ),
    );
    rows.sort(compareRows(options.objective));
    let rank = 0;
    for (const r of rows) if (r.ok) r.rank = ++rank;
    markPareto([...rows, ...refs], options.objective);
    return { strategy, spaceSize: size, runs, rows, references: refs };
  } finally {
    await pool.close();
  }
}

export const UPSTREAM_DEFAULT_BEHAVIOR = "upstream default behavior";

/** The file as written; and upstream's default behavior when a `behavior` field is searched. */
function referenceCandidates(entries: readonly SearchEntry[]): { label: string; sets: string[] }[] {
  const out = [{ label: "as written", sets: [] as string[] }];
  const behaviorTargets = [
    ...new Set(
      entries
        .filter((e) => e.kind === "HorizontalPodAutoscaler" && e.path[1] === "behavior")
        .map((e) => e.target),
    ),
  ];
  if (behaviorTargets.length > 0)
    out.push({
      label: "upstream default behavior",
      sets: behaviorTargets.map((t) => `${t}:spec.behavior=null`),
    });
  return out;
}

/** The demand models of the file as written (with the run's `--set`s), one per HPA. */
function writtenYardsticks(base: TuneBase): NonNullable<TuneBase["yardsticks"]> {
  const loaded = parseScenario(base.text, {
    file: base.file,
    baseDir: base.baseDir,
    sets: base.sets,
  });
  return loaded.ok ? scenarioYardsticks(loaded.scenario) : {};
}

function scenarioDuration(base: TuneBase): number {
  const loaded = parseScenario(base.text, {
    file: base.file,
    baseDir: base.baseDir,
    sets: base.sets,
    ...versionOption(base),
  });
  if (!loaded.ok) throw new Error("the scenario does not load");
  return loaded.scenario.spec.durationMs;
}

/** Rounds on 1/8, 1/4, 1/2 of the trace keep the better half each time; returns the survivors. */
async function halvingRounds(
  options: TuneOptions,
  size: number,
  fullDurationMs: number,
  runAll: (tasks: { id: number; sets: string[]; durationMs: number }[]) => Promise<TaskOutcome[]>,
  plan: (n: number) => void,
): Promise<number[]> {
  const ROUNDS = 3;
  // Cost in full runs: n0 × (1/8 + 1/8 + 1/8) + n0/8 = n0/2, so n0 = 2 × budget.
  let ids = sample(size, Math.max(1, options.budget * 2), options.searchSeed);
  for (let r = 0; r < ROUNDS && ids.length > 1; r++) {
    const durationMs = Math.max(1000, Math.round(fullDurationMs / 2 ** (ROUNDS - r)));
    plan(ids.length);
    const tasks = ids.map((id) => ({ id, sets: setsFor(options.entries, id).sets, durationMs }));
    const outcomes = await runAll(tasks);
    const rows = ids.map((id, i) =>
      rowOf({ id, label: "candidate", values: null, sets: tasks[i]!.sets }, outcomes[i]!, options),
    );
    rows.sort(compareRows(options.objective));
    ids = rows
      .slice(0, Math.ceil(rows.length / 2))
      .map((row) => row.id!)
      .sort((a, b) => a - b);
  }
  return ids;
}
