// Workload spec validation (Deployment, ReplicaSet, StatefulSet, DaemonSet,
// ReplicationController): the part of upstream's Validate<Kind>Spec that the embedded
// controllers and `kubectl describe` depend on: replicas, a selector that parses and selects the
// template's labels, valid template labels and a valid pod spec; apps/v1 selectors are
// immutable; a DaemonSet's restart policy and update strategy.
import { isRecord, semanticallyEqual } from "../api/json.js";
import { selectorFromLabelSelector, selectorMatches } from "../api/selector.js";
import type { KubeObject, LabelSelector } from "../api/types.js";
import {
  child,
  type FieldError,
  forbidden,
  index,
  invalid,
  isQualifiedName,
  isValidLabelValue,
  notSupported,
  required,
  validateLabels,
} from "../api/validation.js";
import { validatePodSpec } from "./podvalidation.js";

const IMMUTABLE = "field is immutable";
const PERCENT_FMT = "[0-9]+%";

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
export function validateIntOrPercent(value: unknown, field: string): FieldError[] {
  if (typeof value === "number") {
    return value < 0 ? [invalid(field, value, "must be greater than or equal to 0")] : [];
  }
  if (typeof value !== "string") return [];
  if (!new RegExp(`^${PERCENT_FMT}$`).test(value)) {
    return [
      invalid(
        field,
        value,
        `a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '${PERCENT_FMT}')`,
      ),
    ];
  }
  return Number(value.slice(0, -1)) > 100
    ? [invalid(field, value, "must not be greater than 100%")]
    : [];
}

/** getIntOrPercentValue: a count, or a percentage's number. */
function intOrPercentValue(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  return 0;
}

function nonNegative(spec: Record<string, unknown>, name: string, path: string): FieldError[] {
  const value = spec[name];
  return typeof value === "number" && value < 0
    ? [invalid(child(path, name), value, "must be greater than or equal to 0")]
    : [];
}

/** ValidateDaemonSetUpdateStrategy (with ValidateRollingUpdateDaemonSet). */
function validateDaemonSetUpdateStrategy(strategy: unknown, path: string): FieldError[] {
  const s = isRecord(strategy) ? strategy : {};
  if (s.type === "OnDelete") return [];
  if (s.type !== "RollingUpdate") {
    // Upstream renders the internal struct, which has no json tags.
    const bad = { Type: s.type ?? "", RollingUpdate: s.rollingUpdate ?? null };
    return [notSupported(path, bad, ["RollingUpdate", "OnDelete"])];
  }
  if (!isRecord(s.rollingUpdate)) return [required(child(path, "rollingUpdate"), "")];
  const at = child(path, "rollingUpdate");
  const { maxUnavailable, maxSurge } = s.rollingUpdate;
  const errs = [
    ...validateIntOrPercent(maxUnavailable, child(at, "maxUnavailable")),
    ...validateIntOrPercent(maxSurge, child(at, "maxSurge")),
  ];
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(
      invalid(child(at, "maxSurge"), maxSurge, "may not be set when maxUnavailable is non-zero"),
    );
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(required(child(at, "maxUnavailable"), "cannot be 0 when maxSurge is 0"));
  }
  return errs;
}

/** What ValidateDaemonSetSpec checks beyond the selector and template every workload gets. */
function validateDaemonSetSpec(spec: Record<string, unknown>): FieldError[] {
  const template = isRecord(spec.template) ? spec.template : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  const errs: FieldError[] = [];
  if (podSpec.restartPolicy !== "Always") {
    errs.push(
      notSupported("spec.template.spec.restartPolicy", podSpec.restartPolicy ?? "", ["Always"]),
    );
  }
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(
      invalid(
        "spec.template.spec.activeDeadlineSeconds",
        podSpec.activeDeadlineSeconds,
        "activeDeadlineSeconds in DaemonSet is not Supported",
      ),
    );
  }
  return [
    ...errs,
    ...nonNegative(spec, "minReadySeconds", "spec"),
    ...validateDaemonSetUpdateStrategy(spec.updateStrategy, "spec.updateStrategy"),
    ...nonNegative(spec, "revisionHistoryLimit", "spec"),
  ];
}

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
export function validateTemplate(template: Record<string, unknown>, path: string): FieldError[] {
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
  DaemonSet: "empty selector is invalid for daemonset",
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
  errs.push(...validateTemplate(template ?? {}, "spec.template"));
  if (object.kind === "DaemonSet") errs.push(...validateDaemonSetSpec(spec));
  return errs;
}
