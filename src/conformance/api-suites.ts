// Suites `behaviorDefaulting` and `validation`: the API side of the vectors.
import { defaultScalingRulesForConformance } from "../api/defaults.js";
import { fieldErrorMessage, validateSpecForConformance } from "../api/validation.js";
import type { KubernetesVersion } from "../api/versions.js";
import { Differences, type VectorOutcome } from "./common.js";

interface DefaultingVector {
  direction: "scaleUp" | "scaleDown";
  input: unknown;
  expect: { policies: unknown; stabilizationWindowSeconds: number | null; selectPolicy: string };
}

export function runBehaviorDefaulting(v: DefaultingVector): VectorOutcome {
  const rules = defaultScalingRulesForConformance(v.direction, v.input);
  return new Differences()
    .check("policies", v.expect.policies, rules.policies)
    .check(
      "stabilizationWindowSeconds",
      v.expect.stabilizationWindowSeconds,
      rules.stabilizationWindowSeconds ?? null,
    )
    .check("selectPolicy", v.expect.selectPolicy, rules.selectPolicy)
    .outcome();
}

interface ValidationVector {
  operation: "create" | "update";
  featureGates: Record<string, boolean>;
  spec: unknown;
  oldSpec?: unknown;
  expect:
    | { valid: true }
    | { valid: false; firstErrorContains: string; field?: string; errorCount?: number };
}

export function runValidation(v: ValidationVector, version: KubernetesVersion): VectorOutcome {
  const errors = validateSpecForConformance(v.spec, {
    version,
    featureGates: v.featureGates ?? {},
    operation: v.operation,
    ...(v.oldSpec !== undefined ? { oldSpec: v.oldSpec } : {}),
  });
  const diff = new Differences();
  const messages = errors.map(fieldErrorMessage);
  if (v.expect.valid) {
    if (errors.length > 0) diff.note(`expected valid, got ${JSON.stringify(messages)}`);
    return diff.outcome();
  }
  const first = errors[0];
  if (!first)
    return diff
      .note(`expected an error containing "${v.expect.firstErrorContains}", got none`)
      .outcome();
  if (!messages[0]!.includes(v.expect.firstErrorContains)) {
    diff.note(`first error "${messages[0]}" does not contain "${v.expect.firstErrorContains}"`);
  }
  if (v.expect.field !== undefined) diff.check("field", v.expect.field, first.field);
  if (v.expect.errorCount !== undefined)
    diff.check("errorCount", v.expect.errorCount, errors.length);
  return diff.outcome();
}
