// Workload spec validation (Deployment, ReplicaSet, StatefulSet, ReplicationController): the
// part of upstream's Validate<Kind>Spec that the embedded controllers and `kubectl describe`
// depend on: replicas, a selector that parses and selects the template's labels, valid template
// labels and a valid pod spec; apps/v1 selectors are immutable.
import { isRecord, semanticallyEqual } from "../../api/json.js";
import type { KubeObject, LabelSelector } from "../../api/types.js";
import {
  child,
  type FieldError,
  forbidden,
  index,
  invalid,
  isQualifiedName,
  isValidLabelValue,
  required,
  validateLabels,
} from "../../api/validation.js";
import { selectorFromLabelSelector, selectorMatches } from "../../core/selector.js";
import { validatePodSpec } from "./podvalidation.js";

const IMMUTABLE = "field is immutable";

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value)
      .filter((e): e is [string, string] => typeof e[1] === "string")
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** ValidateLabelSelector (values checked strictly, as workloads do). */
export function validateLabelSelector(selector: LabelSelector, path: string): FieldError[] {
  const errs = validateLabels(stringMap(selector.matchLabels), child(path, "matchLabels"));
  for (const [i, expr] of (selector.matchExpressions ?? []).entries()) {
    const at = index(child(path, "matchExpressions"), i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          errs.push(
            required(child(at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"),
          );
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          errs.push(
            forbidden(
              child(at, "values"),
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        }
        break;
      default:
        errs.push(invalid(child(at, "operator"), expr.operator, "not a valid selector operator"));
    }
    for (const msg of isQualifiedName(expr.key ?? "")) {
      errs.push(invalid(child(at, "key"), expr.key ?? "", msg));
    }
    for (const [j, value] of values.entries()) {
      for (const msg of isValidLabelValue(value)) {
        errs.push(invalid(index(child(at, "values"), j), value, msg));
      }
    }
  }
  return errs;
}

/** ValidatePodTemplateSpec: labels (at `<path>.labels`, as upstream names it), then the spec. */
function validateTemplate(template: Record<string, unknown>, path: string): FieldError[] {
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  return [
    ...validateLabels(stringMap(metadata.labels), child(path, "labels")),
    ...validatePodSpec(template.spec, child(path, "spec")),
  ];
}

const EMPTY_SELECTOR: Record<string, string> = {
  Deployment: "empty selector is invalid for deployment",
  ReplicaSet: "empty selector is invalid for deployment",
  StatefulSet: "empty selector is invalid for statefulset",
};

/** A workload's spec, on create and update (`old`: the stored object). */
export function validateWorkload(object: KubeObject, old?: KubeObject): FieldError[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const errs: FieldError[] = [];
  const replicas = spec.replicas;
  if (typeof replicas === "number" && replicas < 0) {
    errs.push(invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
  }
  const template = isRecord(spec.template) ? spec.template : undefined;
  const labels = stringMap(isRecord(template?.metadata) ? template.metadata.labels : undefined);
  const mismatch = () =>
    invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`");
  if (object.kind === "ReplicationController") {
    // A map selector; defaulting has copied the template's labels into an absent one.
    const selector = stringMap(spec.selector);
    if (Object.keys(selector).length === 0) errs.push(required("spec.selector", ""));
    if (!template) return [...errs, required("spec.template", "")];
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length > 0 && !matches) errs.push(mismatch());
    return [...errs, ...validateTemplate(template, "spec.template")];
  }
  const selector = isRecord(spec.selector) ? (spec.selector as LabelSelector) : undefined;
  if (!selector) {
    errs.push(required("spec.selector", ""));
  } else {
    errs.push(...validateLabelSelector(selector, "spec.selector"));
    const terms =
      Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
    const empty = EMPTY_SELECTOR[object.kind];
    if (terms === 0 && empty) errs.push(invalid("spec.selector", selector, empty));
    if (old) {
      const before = isRecord(old.spec) ? old.spec.selector : undefined;
      if (!semanticallyEqual(selector, before)) {
        errs.push(invalid("spec.selector", selector, IMMUTABLE));
      }
    }
  }
  const parsed = selectorFromLabelSelector(selector);
  if (!parsed.ok) {
    const detail = object.kind === "StatefulSet" ? "" : "invalid label selector";
    return [...errs, invalid("spec.selector", selector ?? null, detail)];
  }
  if (parsed.selector.requirements.length > 0 && !selectorMatches(parsed.selector, labels)) {
    errs.push(mismatch());
  }
  // An apps/v1 template is a struct, not a pointer: absent, it is the zero value.
  return [...errs, ...validateTemplate(template ?? {}, "spec.template")];
}
