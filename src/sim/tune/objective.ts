// What `horizon tune` optimizes: one summary measure (`--minimize podHours`, `--maximize
// meanUtilization`, optionally of one HPA: `hpa/web:podHours`) under constraints written as
// `--assert` expressions (`unmetDemandSeconds <= 60`). Measures are those of `horizon simulate`'s
// summary (src/sim/assertions.ts); over several HPAs an additive measure is summed.
import { type Assertion, checkAssertions, MEASURES, matches, NAME } from "../assertions.js";
import type { HpaSummary, SummaryRecord } from "../timeline.js";

export interface Objective {
  /** As written, for messages and output. */
  text: string;
  measure: string;
  hpa: string | null;
  direction: "minimize" | "maximize";
}

/** Measures that add up over HPAs (pod-hours of two HPAs are the pod-hours of both). */
const ADDITIVE = new Set([
  "podHours",
  "scaleUps",
  "scaleDowns",
  "scalingActions",
  "actions",
  "flaps",
  "unmetDemandPodSeconds",
  "unmetDemandSeconds",
  "loadSteps",
  "demandPodHours",
]);

export function parseObjective(
  text: string,
  direction: Objective["direction"],
): { ok: true; objective: Objective } | { ok: false; error: string } {
  const flag = `--${direction} ${text}`;
  let measure = text.trim();
  let hpa: string | null = null;
  const colon = measure.indexOf(":");
  if (colon >= 0) {
    const prefix = measure.slice(0, colon);
    const parts = prefix.startsWith("hpa/") ? prefix.slice(4).split("/") : [];
    if (parts.length === 0 || parts.length > 2 || parts.some((p) => !NAME.test(p)))
      return {
        ok: false,
        error: `${flag}: prefix "${prefix}" must be hpa/NAME or hpa/NAMESPACE/NAME`,
      };
    hpa = parts.join("/");
    measure = measure.slice(colon + 1).trim();
  }
  if (!Object.hasOwn(MEASURES, measure))
    return {
      ok: false,
      error: `${flag}: unknown measure "${measure}"; known: ${Object.keys(MEASURES).join(", ")}`,
    };
  return { ok: true, objective: { text: text.trim(), measure, hpa, direction } };
}

/** The HPAs a measure is taken over: the named one, or all. */
function selected(summary: SummaryRecord, hpa: string | null): HpaSummary[] {
  return hpa === null ? summary.hpas : summary.hpas.filter((h) => matches(hpa, h.hpa));
}

/** Why an objective cannot be evaluated on a scenario with these HPAs, or null. */
export function objectiveProblem(objective: Objective, hpas: readonly string[]): string | null {
  const flag = `--${objective.direction} ${objective.text}`;
  const n =
    objective.hpa === null ? hpas.length : hpas.filter((h) => matches(objective.hpa!, h)).length;
  if (n === 0)
    return objective.hpa === null
      ? `${flag}: the scenario has no HPA`
      : `${flag}: no HPA hpa/${objective.hpa} in the scenario`;
  if (n > 1 && !ADDITIVE.has(objective.measure))
    return `${flag}: ${objective.measure} does not add up over the scenario's ${n} HPAs; name one (hpa/NAME:${objective.measure})`;
  return null;
}

/** A measure over the selected HPAs (summed when additive); null when not available. */
export function measureOf(
  summary: SummaryRecord,
  measure: string,
  hpa: string | null,
): number | null {
  const fn = MEASURES[measure]!;
  let total = 0;
  for (const h of selected(summary, hpa)) {
    const value = fn(h);
    if (value === null) return null;
    total += value;
  }
  return total;
}

/** A measure to show for a whole run: summed when additive or when there is one HPA, else null. */
export function runMeasure(summary: SummaryRecord, measure: string): number | null {
  if (summary.hpas.length > 1 && !ADDITIVE.has(measure)) return null;
  return measureOf(summary, measure, null);
}

/** Whether every constraint holds, and the ones that do not. */
export function constraintsHold(
  constraints: readonly Assertion[],
  summary: SummaryRecord,
): { feasible: boolean; violated: string[] } {
  const violated: string[] = [];
  for (const c of constraints) {
    if (!checkAssertions([c], summary).passed) violated.push(c.text);
  }
  return { feasible: violated.length === 0, violated };
}

/**
 * The measures a tune's table shows, in order (the CLI's and the report's alike): the objective,
 * unmet demand (the Pareto front's other axis), pod-hours, and each constrained measure.
 */
export function tableMeasures(
  objective: Objective,
  constraints: readonly { measure: string }[],
): string[] {
  return [
    objective.measure,
    "unmetDemandPodSeconds",
    "podHours",
    ...constraints.map((c) => c.measure),
  ].filter((m, i, all) => all.indexOf(m) === i);
}

/** A row's value of a table measure: its objective as ranked, else the run's measure. */
export function rowMeasure(
  row: { objective: number | null; summary?: SummaryRecord },
  measure: string,
  objective: Objective,
): number | null {
  if (measure === objective.measure) return row.objective;
  return row.summary ? runMeasure(row.summary, measure) : null;
}
