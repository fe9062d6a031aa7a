// One candidate of `horizon tune`: the scenario file with the candidate's `--set` edits, run to
// its summary. Runs in a worker thread (./worker.ts) or in-process; either way the same inputs
// give the same summary, so results do not depend on --jobs.

import type { KubernetesVersion } from "../../api/versions.js";
import type { DemandYardstick } from "../demand.js";
import { runSimulation } from "../runner.js";
import { formatScenarioError, parseScenario } from "../scenario.js";
import type { SummaryRecord } from "../timeline.js";

/** What every candidate shares: the file's text, where it is, and the run's overrides. */
export interface TuneBase {
  text: string;
  /** The file name for messages. */
  file: string;
  /** Directory replay traces are relative to. */
  baseDir: string;
  /** `--set` edits every candidate gets first. */
  sets: string[];
  seed?: number;
  durationMs?: number;
  /**
   * The elasticity measures' demand models of the file as written, given to every candidate:
   * a measure the search compares must not move with the setting searched (a candidate's own
   * CPU target would redefine its demand).
   */
  yardsticks?: Record<string, DemandYardstick | null>;
  /** `--kubernetes-version`: wins over the scenario's. */
  kubernetesVersion?: KubernetesVersion;
}

export interface TuneTask {
  id: number;
  sets: string[];
  /** Run only this much virtual time (successive halving's early rounds). */
  durationMs?: number;
}

export type TaskOutcome =
  | { id: number; ok: true; summary: SummaryRecord; durationMs: number }
  | { id: number; ok: false; error: string };

/** The virtual time of an isolate's priming run (see `prime`). */
const PRIMING_MS = 10 * 60_000;
/** Whether this isolate (the main thread or a worker) has run its priming run. */
let primed = false;

/**
 * Before an isolate's first candidate: the candidate's first ten minutes of virtual time, its
 * result discarded. V8 gives a function its feedback only after some calls, so what only a
 * run's first syncs see (an HPA with no status yet, its first history, the pods' first scrapes)
 * went unrecorded in the first candidate, while the code optimized during it was compiled; the
 * second candidate then deoptimized about thirty functions at its first sync, each compiled
 * again. A run does not depend on the runs before it in its isolate (a worker runs candidates
 * one after another), so this one changes no result.
 */
async function prime(base: TuneBase, task: TuneTask, durationMs: number): Promise<void> {
  primed = true;
  const loaded = parseScenario(base.text, {
    file: base.file,
    baseDir: base.baseDir,
    sets: [...base.sets, ...task.sets],
    ...versionOption(base),
  });
  if (!loaded.ok) return;
  const scenario = loaded.scenario;
  if (base.seed !== undefined) scenario.spec.seed = base.seed;
  scenario.spec.durationMs = Math.min(durationMs, PRIMING_MS);
  try {
    await runSimulation({ scenario });
  } catch {
    // The candidate's own run reports what went wrong.
  }
}

/** The load option of `--kubernetes-version`, when given. */
export function versionOption(base: TuneBase): { kubernetesVersion?: KubernetesVersion } {
  return base.kubernetesVersion === undefined ? {} : { kubernetesVersion: base.kubernetesVersion };
}

export async function evaluateTask(base: TuneBase, task: TuneTask): Promise<TaskOutcome> {
  const loaded = parseScenario(base.text, {
    file: base.file,
    baseDir: base.baseDir,
    sets: [...base.sets, ...task.sets],
    ...versionOption(base),
  });
  if (!loaded.ok)
    return { id: task.id, ok: false, error: loaded.errors.map(formatScenarioError).join("; ") };
  const scenario = loaded.scenario;
  if (base.seed !== undefined) scenario.spec.seed = base.seed;
  const durationMs = task.durationMs ?? base.durationMs ?? scenario.spec.durationMs;
  scenario.spec.durationMs = durationMs;
  if (!primed) await prime(base, task, durationMs);
  const { summary } = await runSimulation({
    scenario,
    ...(base.yardsticks ? { yardsticks: base.yardsticks } : {}),
  });
  // Wall time is not part of a result: it would make runs differ by machine and --jobs.
  const { wallMs: _wallMs, ...result } = summary;
  return { id: task.id, ok: true, summary: result, durationMs };
}
