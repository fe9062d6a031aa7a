// One candidate of `horizon tune`: the scenario file with the candidate's `--set` edits, run to
// its summary. Runs in a worker thread (./worker.ts) or in-process; either way the same inputs
// give the same summary, so results do not depend on --jobs.
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

export async function evaluateTask(base: TuneBase, task: TuneTask): Promise<TaskOutcome> {
  const loaded = parseScenario(base.text, {
    file: base.file,
    baseDir: base.baseDir,
    sets: [...base.sets, ...task.sets],
  });
  if (!loaded.ok)
    return { id: task.id, ok: false, error: loaded.errors.map(formatScenarioError).join("; ") };
  const scenario = loaded.scenario;
  if (base.seed !== undefined) scenario.spec.seed = base.seed;
  const durationMs = task.durationMs ?? base.durationMs ?? scenario.spec.durationMs;
  scenario.spec.durationMs = durationMs;
  const { summary } = await runSimulation({ scenario });
  // Wall time is not part of a result: it would make runs differ by machine and --jobs.
  const { wallMs: _wallMs, ...result } = summary;
  return { id: task.id, ok: true, summary: result, durationMs };
}
