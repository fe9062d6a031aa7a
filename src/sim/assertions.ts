// `horizon simulate --assert EXPR`: a condition on a summary measure that gates CI. Grammar and
// measure names are documented in docs/simulate.md ("Assertions").
import type { HpaSummary, SummaryRecord } from "./timeline.js";

export type Operator = "<" | "<=" | ">" | ">=" | "==" | "!=";

export interface Assertion {
  /** The text as given, for messages. */
  text: string;
  /** `namespace/name` or `name` of one HPA; null = every HPA. */
  hpa: string | null;
  /** The measure name as written (an alias stays an alias in messages). */
  measure: string;
  op: Operator;
  value: number;
}

/** A measure's value for one HPA; null = not available (the assertion fails). */
type MeasureFn = (s: HpaSummary) => number | null;

const longestTimeToMeet: MeasureFn = (s) => {
  let longest = 0;
  for (const t of s.timeToMeetDemandSeconds) {
    if (t === null) return Number.POSITIVE_INFINITY;
    if (t > longest) longest = t;
  }
  return longest;
};

/** Every measure an assertion may name. */
export const MEASURES: Readonly<Record<string, MeasureFn>> = {
  // The issue's `maxReplicas<=8` means the replicas reached, not the spec bound, so the
  // summary's bound fields are addressed as hpaMinReplicas / hpaMaxReplicas instead.
  minReplicas: (s) => s.lowestReplicas,
  maxReplicas: (s) => s.highestReplicas,
  lowestReplicas: (s) => s.lowestReplicas,
  highestReplicas: (s) => s.highestReplicas,
  finalReplicas: (s) => s.finalReplicas,
  hpaMinReplicas: (s) => s.minReplicas,
  hpaMaxReplicas: (s) => s.maxReplicas,
  podHours: (s) => s.podHours,
  scaleUps: (s) => s.scaleUps,
  scaleDowns: (s) => s.scaleDowns,
  scalingActions: (s) => s.scaleUps + s.scaleDowns,
  actions: (s) => s.actions.length,
  flaps: (s) => s.flaps,
  unmetDemandPodSeconds: (s) => s.unmetDemandPodSeconds,
  unmetDemandSeconds: (s) => s.unmetDemandSeconds,
  timeToMeetDemandSeconds: longestTimeToMeet,
  maxTimeToMeetDemandSeconds: longestTimeToMeet,
  loadSteps: (s) => s.loadSteps.length,
  meanUtilization: (s) => s.meanUtilization,
  targetUtilization: (s) => s.targetUtilization,
  // The elasticity measures (docs/simulate.md "Elasticity"), with the literature's symbols.
  demandPodHours: (s) => s.demandPodHours ?? null,
  underProvisioningAccuracy: (s) => s.underProvisioningAccuracy ?? null,
  overProvisioningAccuracy: (s) => s.overProvisioningAccuracy ?? null,
  underProvisioningTimeshare: (s) => s.underProvisioningTimeshare ?? null,
  overProvisioningTimeshare: (s) => s.overProvisioningTimeshare ?? null,
  thetaU: (s) => s.underProvisioningAccuracy ?? null,
  thetaO: (s) => s.overProvisioningAccuracy ?? null,
  tauU: (s) => s.underProvisioningTimeshare ?? null,
  tauO: (s) => s.overProvisioningTimeshare ?? null,
  instability: (s) => s.instability ?? null,
  jitter: (s) => s.jitter ?? null,
};

const OPERATORS: readonly Operator[] = ["<=", ">=", "==", "!=", "<", ">"];

/** An HPA name (or namespace) as `hpa/NAME` prefixes write it. */
export const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function parseAssertion(
  expr: string,
): { ok: true; assertion: Assertion } | { ok: false; error: string } {
  const text = expr.trim();
  const fail = (what: string) => ({ ok: false as const, error: `assertion "${expr}": ${what}` });
  if (text === "") return fail("empty; expected MEASURE OP NUMBER, e.g. maxReplicas<=8");

  let rest = text;
  let hpa: string | null = null;
  const colon = rest.indexOf(":");
  if (colon >= 0) {
    const prefix = rest.slice(0, colon).trim();
    rest = rest.slice(colon + 1);
    if (!prefix.startsWith("hpa/"))
      return fail(`prefix "${prefix}" must be hpa/NAME or hpa/NAMESPACE/NAME`);
    const parts = prefix.slice(4).split("/");
    if (parts.length > 2 || parts.some((p) => !NAME.test(p)))
      return fail(`prefix "${prefix}" must be hpa/NAME or hpa/NAMESPACE/NAME`);
    hpa = parts.join("/");
  }

  const opMatch = /(<=|>=|==|!=|=<|=>|<|>|=)/.exec(rest);
  if (!opMatch) return fail(`no comparison operator; expected one of ${OPERATORS.join(" ")}`);
  const opText = opMatch[1]!;
  if (!(OPERATORS as readonly string[]).includes(opText))
    return fail(`operator "${opText}" is not one of ${OPERATORS.join(" ")}`);
  const op = opText as Operator;
  const measure = rest.slice(0, opMatch.index).trim();
  const valueText = rest.slice(opMatch.index + opText.length).trim();

  if (measure === "") return fail(`no measure before "${op}"`);
  if (!Object.hasOwn(MEASURES, measure))
    return fail(`unknown measure "${measure}"; known: ${Object.keys(MEASURES).join(", ")}`);
  if (valueText === "") return fail(`no number after "${op}"`);
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(valueText))
    return fail(`"${valueText}" is not a number`);
  return { ok: true, assertion: { text, hpa, measure, op, value: Number(valueText) } };
}

function compare(actual: number, op: Operator, expected: number): boolean {
  switch (op) {
    case "<":
      return actual < expected;
    case "<=":
      return actual <= expected;
    case ">":
      return actual > expected;
    case ">=":
      return actual >= expected;
    case "==":
      return actual === expected;
    case "!=":
      return actual !== expected;
  }
}

/** A measure value for messages: integers as is, others to at most 3 decimals. */
export function formatMeasure(value: number | null): string {
  if (value === null) return "n/a";
  if (value === Number.POSITIVE_INFINITY) return "never";
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(3)));
}

/** `hpa/web` matches web in any namespace; `hpa/ns/web` only that one. */
export function matches(pattern: string, hpa: string): boolean {
  return pattern.includes("/") ? hpa === pattern : hpa.slice(hpa.indexOf("/") + 1) === pattern;
}

export function checkAssertions(
  assertions: Assertion[],
  summary: SummaryRecord,
): { passed: boolean; lines: string[] } {
  const lines: string[] = [];
  let passed = true;
  for (const a of assertions) {
    const hpas = a.hpa === null ? summary.hpas : summary.hpas.filter((h) => matches(a.hpa!, h.hpa));
    if (hpas.length === 0) {
      passed = false;
      lines.push(
        `FAIL ${a.text}: ${a.hpa === null ? "the simulation has no HPA" : `no HPA hpa/${a.hpa} in the simulation`}`,
      );
      continue;
    }
    for (const h of hpas) {
      // A broken scaleTargetRef measures 0 replicas and 0 pod-hours: no measure of it passes.
      if (h.failedGetScale) {
        passed = false;
        lines.push(
          `FAIL hpa/${h.hpa} ${a.measure}: the HPA never got its scale (FailedGetScale: its scaleTargetRef names nothing to scale), so it has no measures`,
        );
        continue;
      }
      const actual = MEASURES[a.measure]!(h);
      const ok = actual !== null && compare(actual, a.op, a.value);
      if (!ok) passed = false;
      lines.push(
        `${ok ? "PASS" : "FAIL"} hpa/${h.hpa} ${a.measure}=${formatMeasure(actual)} ${a.op} ${formatMeasure(a.value)}`,
      );
    }
  }
  return { passed, lines };
}
