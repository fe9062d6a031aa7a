// API validation of autoscaling/v2 HorizontalPodAutoscaler with the semantics of kube-apiserver
// v1.34: pkg/apis/autoscaling/validation/validation.go, the option computation of
// pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go, the ObjectMeta rules of
// apimachinery/pkg/api/validation, the name rules of apimachinery/pkg/util/validation and the
// message format of apimachinery/pkg/util/validation/field/errors.go. Errors come back as data, in
// upstream's order (callers report the first one), each with its field path, cause type and
// detail text.
//
// Validation runs on the wire object as given (no defaulting), the way upstream validates the
// internal object: absent fields count as Go zero values (nil pointer, "", 0, empty list).

import { FeatureGates } from "./featuregates.js";
import { goJsonString } from "./gojson.js";
import { isRecord } from "./json.js";
import { Quantity } from "./quantity.js";
import type {
  ContainerResourceMetricSource,
  CrossVersionObjectReference,
  ExternalMetricSource,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerSpec,
  HPAScalingPolicy,
  HPAScalingRules,
  MetricIdentifier,
  MetricSpec,
  MetricTarget,
  ObjectMeta,
  ObjectMetricSource,
  OwnerReference,
  PodsMetricSource,
  QuantityValue,
  ResourceMetricSource,
} from "./types.js";
import type { KubernetesVersion } from "./versions.js";

// ---------------------------------------------------------------------------------------------
// field.Error

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "InternalError";

export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue?: unknown;
  detail: string;
  /**
   * Upstream renders this value as JSON rather than with Go's %q: typed values such as enum
   * strings, resource names and quantities (field.Error ErrorBody falls back to json.Marshal for
   * anything that is not a plain string, int32/int64, float or bool).
   */
  badValueJSON?: boolean;
}

/** A bad value left out of the message (field.TooMany with an unknown count). */
export const OMITTED_VALUE: unique symbol = Symbol("omitted value");

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
  InternalError: "Internal error",
};

/** Exactly upstream's field.Error.Error(): `<field>: <ErrorBody()>`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** field.Error.ErrorBody(): the message without the field path. */
export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  const valueless =
    e.type === "FieldValueRequired" ||
    e.type === "FieldValueForbidden" ||
    e.type === "FieldValueTooLong" ||
    e.type === "InternalError" ||
    e.badValue === OMITTED_VALUE;
  if (!valueless) s += `: ${renderBadValue(e.badValue, e.badValueJSON === true)}`;
  if (e.detail.length > 0) s += `: ${e.detail}`;
  return s;
}

/** A bad value printed as given: Go's %#v of a value JSON cannot show (a map[string]interface{}). */
export class GoVerbatim {
  constructor(readonly text: string) {}
}

function renderBadValue(value: unknown, json: boolean): string {
  if (value === undefined || value === null) return "null";
  if (value instanceof GoVerbatim) return value.text;
  if (typeof value === "string") return json ? goJsonString(value) : goQuote(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return String(value);
  }
  return goJSON(value);
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's strconv.Quote (fmt %q): printable runes stay, others are escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    // A lone surrogate cannot come out of Go's UTF-8 decoding; it would be U+FFFD.
    const r = cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : ch;
    if (r === '"' || r === "\\") out += `\\${r}`;
    else if (PRINTABLE.test(r)) out += r;
    else if (r === "\x07") out += "\\a";
    else if (r === "\b") out += "\\b";
    else if (r === "\f") out += "\\f";
    else if (r === "\n") out += "\\n";
    else if (r === "\r") out += "\\r";
    else if (r === "\t") out += "\\t";
    else if (r === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

function goJSON(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goJSON).join(",")}]`;
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${goJsonString(k)}:${goJSON(v)}`);
    return `{${parts.join(",")}}`;
  }
  return "null";
}

// Constructors mirroring field.Required, field.Invalid, ... (the field path is a string built
// like field.Path: children joined by ".", indices as "[i]").

export function required(field: string, detail: string): FieldError {
  return { type: "FieldValueRequired", field, badValue: "", detail };
}

export function invalid(
  field: string,
  badValue: unknown,
  detail: string,
  json = false,
): FieldError {
  const e: FieldError = { type: "FieldValueInvalid", field, badValue, detail };
  if (json) e.badValueJSON = true;
  return e;
}

export function notSupported(
  field: string,
  badValue: unknown,
  validValues: readonly string[],
  json = false,
): FieldError {
  const detail =
    validValues.length > 0
      ? `supported values: ${validValues.map((v) => goQuote(v)).join(", ")}`
      : "";
  const e: FieldError = { type: "FieldValueNotSupported", field, badValue, detail };
  if (json) e.badValueJSON = true;
  return e;
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, badValue: "", detail };
}

export function tooLong(field: string, maxLength: number): FieldError {
  const unit = maxLength === 1 ? "byte" : "bytes";
  return {
    type: "FieldValueTooLong",
    field,
    badValue: "<value omitted>",
    detail: `may not be more than ${maxLength} ${unit}`,
  };
}

export function duplicate(field: string, badValue: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, badValue, detail: "" };
}

export function child(path: string, name: string): string {
  return path.length === 0 ? name : `${path}.${name}`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

// ---------------------------------------------------------------------------------------------
// Name rules (apimachinery/pkg/util/validation, api/validation/path)

function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Upstream joins the examples with " or " after a trailing ", " (hence the double space).
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

const EMPTY_ERROR = "must be non-empty";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX = 63;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** IsDNS1123Label: the messages for a value that is not an RFC 1123 label. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a label can only be failing because of its dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** IsDNS1123Subdomain. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errs;
}

/** IsQualifiedName: `[prefix/]name`, name up to 63 characters, prefix a DNS subdomain. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX) {
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  }
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`,
    );
  }
  return errs;
}

/** IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

/** path.IsValidPathSegmentName: names used in REST paths (kinds, object and metric names). */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of [".", ".."]) {
    if (name === illegal) return [`may not be '${illegal}'`];
  }
  const errs: string[] = [];
  for (const illegal of ["/", "%"]) {
    if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  }
  return errs;
}

// NameIsDNSSubdomain (ValidateReplicationControllerName, which HPA names use): a generateName
// prefix may end with "-" (MaskTrailingDash replaces the last two characters with "a").
function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  let n = name;
  if (prefix && n.length > 1 && n.endsWith("-")) n = `${n.slice(0, -2)}a`;
  return isDNS1123Subdomain(n);
}

// ---------------------------------------------------------------------------------------------
// ObjectMeta (apimachinery api/validation/objectmeta.go + core's finalizer-name check)

const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10);
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);
const IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0";
const FIELD_IMMUTABLE_ERROR_MSG = "field is immutable";

// Go map iteration order is random; keys are visited sorted so the error order is stable.
function sortedEntries(map: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function validateLabels(
  labels: Record<string, string> | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of sortedEntries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

function validateAnnotations(
  annotations: Record<string, string> | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of sortedEntries(annotations)) {
    // QualifiedName rules, except that case does not matter.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B)
    errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

// schema.ParseGroupVersion: "" and "/" are the empty group version; more than one "/" fails.
function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv.length === 0 || gv === "/") return { group: "", version: "" };
  const slashes = gv.split("/").length - 1;
  if (slashes === 0) return { group: "", version: gv };
  if (slashes === 1) {
    const i = gv.indexOf("/");
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return { error: `unexpected GroupVersion string: ${gv}` };
}

function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  for (const ref of refs ?? []) {
    const gv = parseGroupVersion(ref.apiVersion ?? "");
    const group = "error" in gv ? "" : gv.group;
    const version = "error" in gv ? "" : gv.version;
    const kind = ref.kind ?? "";
    if (version.length === 0) {
      errs.push(
        invalid(child(path, "apiVersion"), ref.apiVersion ?? "", "version must not be empty"),
      );
    }
    if (kind.length === 0) errs.push(invalid(child(path, "kind"), kind, "must not be empty"));
    if ((ref.name ?? "").length === 0) {
      errs.push(invalid(child(path, "name"), ref.name ?? "", "must not be empty"));
    }
    if ((ref.uid ?? "").length === 0) {
      errs.push(invalid(child(path, "uid"), ref.uid ?? "", "must not be empty", true));
    }
    if (group === "" && version === "v1" && kind === "Event") {
      errs.push(invalid(path, ref, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller === true) {
      const current = `${kind}/${ref.name ?? ""}`;
      if (firstController !== "") {
        errs.push(
          invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else firstController = current;
    }
  }
  return errs;
}

function validateKubeFinalizerNames(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((name, i) => {
    const p = index(path, i);
    const msgs = isQualifiedName(name);
    for (const msg of msgs) errs.push(invalid(p, name, msg));
    if (name.split("/").length === 1 && !STANDARD_FINALIZERS.has(name)) {
      errs.push(
        invalid(p, name, "name is neither a standard finalizer name nor is it fully qualified"),
      );
    }
  });
  return errs;
}

function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of finalizers ?? []) {
    for (const msg of isQualifiedName(name)) errs.push(invalid(path, name, msg));
  }
  if (finalizers?.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(
      invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"),
    );
  }
  return errs;
}

/**
 * ValidateObjectMeta for a namespaced object whose name must be a DNS subdomain (the HPA name
 * validator, ValidateReplicationControllerName).
 */
export function validateObjectMeta(meta: ObjectMeta | undefined, path = "metadata"): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  const generateName = m.generateName ?? "";
  if (generateName.length > 0) {
    for (const msg of nameIsDNSSubdomain(generateName, true)) {
      errs.push(invalid(child(path, "generateName"), generateName, msg));
    }
  }
  const name = m.name ?? "";
  if (name.length === 0)
    errs.push(required(child(path, "name"), "name or generateName is required"));
  else {
    for (const msg of nameIsDNSSubdomain(name, false))
      errs.push(invalid(child(path, "name"), name, msg));
  }
  const namespace = m.namespace ?? "";
  if (namespace.length === 0) errs.push(required(child(path, "namespace"), ""));
  else {
    for (const msg of isDNS1123Label(namespace)) {
      errs.push(invalid(child(path, "namespace"), namespace, msg));
    }
  }
  const generation = m.generation ?? 0;
  if (generation < 0)
    errs.push(invalid(child(path, "generation"), generation, IS_NEGATIVE_ERROR_MSG));
  errs.push(...validateLabels(m.labels, child(path, "labels")));
  errs.push(...validateAnnotations(m.annotations, child(path, "annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(path, "ownerReferences")));
  errs.push(...validateFinalizers(m.finalizers, child(path, "finalizers")));
  errs.push(...validateKubeFinalizerNames(m.finalizers, child(path, "finalizers")));
  return errs;
}

function sameOptional(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}

/** ValidateObjectMetaUpdate. */
export function validateObjectMetaUpdate(
  meta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path = "metadata",
): FieldError[] {
  const m = meta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp !== undefined && o.deletionTimestamp !== null) {
    const old = new Set(o.finalizers ?? []);
    const extra = [...new Set(m.finalizers ?? [])].filter((f) => !old.has(f)).sort();
    if (extra.length > 0) {
      errs.push(
        forbidden(
          child(path, "finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => goQuote(f)).join(", ")}}`,
        ),
      );
    }
  }
  const resourceVersion = m.resourceVersion ?? "";
  if (resourceVersion.length === 0) {
    errs.push(
      invalid(child(path, "resourceVersion"), resourceVersion, "must be specified for an update"),
    );
  }
  if ((m.generation ?? 0) < (o.generation ?? 0)) {
    errs.push(invalid(child(path, "generation"), m.generation ?? 0, "must not be decremented"));
  }
  const immutable: Array<[string, unknown, unknown, boolean]> = [
    ["name", m.name ?? "", o.name ?? "", false],
    ["namespace", m.namespace ?? "", o.namespace ?? "", false],
    ["uid", m.uid ?? "", o.uid ?? "", true],
    ["creationTimestamp", m.creationTimestamp ?? null, o.creationTimestamp ?? null, true],
    ["deletionTimestamp", m.deletionTimestamp ?? null, o.deletionTimestamp ?? null, true],
    [
      "deletionGracePeriodSeconds",
      m.deletionGracePeriodSeconds,
      o.deletionGracePeriodSeconds,
      true,
    ],
  ];
  for (const [name, value, old, json] of immutable) {
    if (!sameOptional(value, old)) {
      errs.push(invalid(child(path, name), value ?? null, FIELD_IMMUTABLE_ERROR_MSG, json));
    }
  }
  errs.push(...validateLabels(m.labels, child(path, "labels")));
  errs.push(...validateAnnotations(m.annotations, child(path, "annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(path, "ownerReferences")));
  errs.push(...validateKubeFinalizerNames(m.finalizers, child(path, "finalizers")));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Options (strategy.go validationOptionsForHorizontalPodAutoscaler)

export interface CrossVersionObjectReferenceValidationOptions {
  /** An apiVersion without a group (core "v1", or none) is accepted. */
  allowEmptyAPIGroup: boolean;
  /** apiVersion is not checked at all (ratcheting: unchanged on update, or already invalid). */
  allowInvalidAPIVersion: boolean;
}

export interface HorizontalPodAutoscalerSpecValidationOptions {
  /** 1, or 0 with HPAScaleToZero on or when the old object already had minReplicas 0. */
  minReplicasLowerBound: number;
  scaleTargetRefValidationOptions: CrossVersionObjectReferenceValidationOptions;
  objectMetricsValidationOptions: CrossVersionObjectReferenceValidationOptions;
  /** HPAConfigurableTolerance on, or the old object already used a tolerance. */
  allowTolerance: boolean;
}

export interface ValidationOptions {
  featureGates: FeatureGates;
  /** The stored object, for update validation. */
  old?: HorizontalPodAutoscaler;
}

function toleranceInUse(spec: HorizontalPodAutoscalerSpec | undefined): boolean {
  const behavior = spec?.behavior;
  if (!behavior) return false;
  return [behavior.scaleDown, behavior.scaleUp].some(
    (rules) => rules?.tolerance !== undefined && rules.tolerance !== null,
  );
}

/**
 * ValidateAPIVersion: null when the reference's apiVersion is acceptable, else the message. The
 * apiVersion must parse as a group version and, unless allowed, name an API group.
 */
export function validateAPIVersion(
  ref: CrossVersionObjectReference | undefined,
  opts: CrossVersionObjectReferenceValidationOptions,
): string | null {
  if (opts.allowInvalidAPIVersion) return null;
  const gv = parseGroupVersion(ref?.apiVersion ?? "");
  if ("error" in gv) return gv.error;
  if (!opts.allowEmptyAPIGroup && gv.group.length === 0) return "apiVersion must specify API group";
  return null;
}

/** The options kube-apiserver derives for a create (old absent) or an update. */
export function horizontalPodAutoscalerSpecValidationOptions(
  spec: HorizontalPodAutoscalerSpec | undefined,
  oldSpec: HorizontalPodAutoscalerSpec | undefined,
  featureGates: FeatureGates,
): HorizontalPodAutoscalerSpecValidationOptions {
  const opts: HorizontalPodAutoscalerSpecValidationOptions = {
    minReplicasLowerBound: 1,
    scaleTargetRefValidationOptions: { allowEmptyAPIGroup: false, allowInvalidAPIVersion: false },
    objectMetricsValidationOptions: { allowEmptyAPIGroup: true, allowInvalidAPIVersion: false },
    allowTolerance: featureGates.enabled("HPAConfigurableTolerance") || toleranceInUse(oldSpec),
  };
  if (featureGates.enabled("HPAScaleToZero") || oldSpec?.minReplicas === 0) {
    opts.minReplicasLowerBound = 0;
  }
  const ref = spec?.scaleTargetRef;
  const oldRef = oldSpec?.scaleTargetRef;
  if (
    oldSpec !== undefined &&
    (oldRef?.apiVersion ?? "") === (ref?.apiVersion ?? "") &&
    (oldRef?.kind ?? "") === (ref?.kind ?? "")
  ) {
    // Updates that keep kind and apiVersion skip the apiVersion check.
    opts.scaleTargetRefValidationOptions.allowInvalidAPIVersion = true;
  } else if (ref?.kind === "ReplicationController") {
    // The only scalable kind in the core (group-less) API.
    opts.scaleTargetRefValidationOptions.allowEmptyAPIGroup = true;
  }
  for (const metric of oldSpec?.metrics ?? []) {
    if (metric?.type === "Object" && metric.object) {
      if (validateAPIVersion(metric.object.describedObject, opts.objectMetricsValidationOptions)) {
        // The stored metrics are already invalid: do not reject unrelated updates.
        opts.objectMetricsValidationOptions.allowInvalidAPIVersion = true;
        break;
      }
    }
  }
  return opts;
}

// ---------------------------------------------------------------------------------------------
// Spec

/** MaxPeriodSeconds: the largest scaling-policy period. */
export const MAX_PERIOD_SECONDS = 1800;
/** MaxStabilizationWindowSeconds: the largest stabilization window. */
export const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

const VALID_METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const VALID_SELECT_POLICY_TYPES = ["Disabled", "Max", "Min"];
const VALID_POLICY_TYPES = ["Percent", "Pods"];

function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** ValidateCrossVersionObjectReference (kind, name, then apiVersion). */
export function validateCrossVersionObjectReference(
  ref: CrossVersionObjectReference | undefined,
  path: string,
  opts: CrossVersionObjectReferenceValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ["kind", "name"] as const) {
    const value = ref?.[key] ?? "";
    if (value.length === 0) errs.push(required(child(path, key), ""));
    else
      for (const msg of isValidPathSegmentName(value))
        errs.push(invalid(child(path, key), value, msg));
  }
  const msg = validateAPIVersion(ref, opts);
  if (msg !== null) errs.push(invalid(child(path, "apiVersion"), ref?.apiVersion ?? "", msg));
  return errs;
}

type ParsedQuantity = { ok: true; quantity: Quantity } | { ok: false; reason: string };

// The wire value as UnmarshalJSON reads it. A malformed quantity is a decode error (HTTP 400)
// upstream and never reaches validation; here it is reported as an invalid value with the
// ParseQuantity error text.
function parseQuantity(value: QuantityValue): ParsedQuantity {
  const parsed = Quantity.tryParseJSON(value);
  return parsed.ok ? parsed : { ok: false, reason: parsed.reason };
}

// A quantity that must be positive (Sign() == 1). Its bad value prints as JSON of the canonical
// form, as upstream marshals a *resource.Quantity.
function checkPositiveQuantity(value: QuantityValue, path: string): FieldError[] {
  const parsed = parseQuantity(value);
  if (!parsed.ok) return [invalid(path, String(value), parsed.reason)];
  if (parsed.quantity.sign() !== 1) {
    return [invalid(path, parsed.quantity.toString(), "must be positive", true)];
  }
  return [];
}

function validateMetricTarget(target: MetricTarget | undefined, path: string): FieldError[] {
  const t = target ?? ({} as Partial<MetricTarget>);
  const errs: FieldError[] = [];
  const type = t.type ?? "";
  if (type.length === 0)
    errs.push(required(child(path, "type"), "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue") {
    errs.push(
      invalid(
        child(path, "type"),
        type,
        "must be either Utilization, Value, or AverageValue",
        true,
      ),
    );
  }
  if (isSet(t.value)) errs.push(...checkPositiveQuantity(t.value, child(path, "value")));
  if (isSet(t.averageValue)) {
    errs.push(...checkPositiveQuantity(t.averageValue, child(path, "averageValue")));
  }
  if (isSet(t.averageUtilization) && t.averageUtilization < 1) {
    errs.push(
      invalid(child(path, "averageUtilization"), t.averageUtilization, "must be greater than 0"),
    );
  }
  return errs;
}

function validateMetricIdentifier(id: MetricIdentifier | undefined, path: string): FieldError[] {
  const name = id?.name ?? "";
  if (name.length === 0) return [required(child(path, "name"), "must specify a metric name")];
  return isValidPathSegmentName(name).map((msg) => invalid(child(path, "name"), name, msg));
}

function validateObjectSource(
  src: ObjectMetricSource,
  path: string,
  opts: CrossVersionObjectReferenceValidationOptions,
): FieldError[] {
  const errs = [
    ...validateCrossVersionObjectReference(
      src.describedObject,
      child(path, "describedObject"),
      opts,
    ),
    ...validateMetricIdentifier(src.metric, child(path, "metric")),
    ...validateMetricTarget(src.target, child(path, "target")),
  ];
  if (!isSet(src.target?.value) && !isSet(src.target?.averageValue)) {
    errs.push(
      required(
        child(child(path, "target"), "averageValue"),
        "must set either a target value or averageValue",
      ),
    );
  }
  return errs;
}

function validateExternalSource(src: ExternalMetricSource, path: string): FieldError[] {
  const errs = [
    ...validateMetricIdentifier(src.metric, child(path, "metric")),
    ...validateMetricTarget(src.target, child(path, "target")),
  ];
  const hasValue = isSet(src.target?.value);
  const hasAverage = isSet(src.target?.averageValue);
  if (!hasValue && !hasAverage) {
    errs.push(
      required(
        child(child(path, "target"), "averageValue"),
        "must set either a target value for metric or a per-pod target",
      ),
    );
  }
  if (hasValue && hasAverage) {
    errs.push(
      forbidden(
        child(child(path, "target"), "value"),
        "may not set both a target value for metric and a per-pod target",
      ),
    );
  }
  return errs;
}

function validatePodsSource(src: PodsMetricSource, path: string): FieldError[] {
  const errs = [
    ...validateMetricIdentifier(src.metric, child(path, "metric")),
    ...validateMetricTarget(src.target, child(path, "target")),
  ];
  if (!isSet(src.target?.averageValue)) {
    errs.push(
      required(
        child(child(path, "target"), "averageValue"),
        "must specify a positive target averageValue",
      ),
    );
  }
  return errs;
}

// Utilization or a raw average value, not both (Resource and ContainerResource).
function validateUtilizationOrAverage(
  target: MetricTarget | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const hasUtilization = isSet(target?.averageUtilization);
  const hasAverage = isSet(target?.averageValue);
  if (!hasUtilization && !hasAverage) {
    errs.push(
      required(
        child(child(path, "target"), "averageUtilization"),
        "must set either a target raw value or a target utilization",
      ),
    );
  }
  if (hasUtilization && hasAverage) {
    errs.push(
      forbidden(
        child(child(path, "target"), "averageValue"),
        "may not set both a target raw value and a target utilization",
      ),
    );
  }
  return errs;
}

function validateResourceSource(src: ResourceMetricSource, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if ((src.name ?? "").length === 0) {
    errs.push(required(child(path, "name"), "must specify a resource name"));
  }
  errs.push(...validateMetricTarget(src.target, child(path, "target")));
  errs.push(...validateUtilizationOrAverage(src.target, path));
  return errs;
}

// core/v1 helper sets used by ValidateContainerResourceName.
const STANDARD_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);
const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

function isNativeResource(name: string): boolean {
  return !name.includes("/") || name.includes("kubernetes.io/");
}

function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** core/v1 ValidateContainerResourceName (the bad value is a typed ResourceName: JSON). */
function validateContainerResourceName(value: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // ValidateResourceName
  const qualified = isQualifiedName(value);
  if (qualified.length > 0) {
    errs.push(...qualified.map((msg) => invalid(path, value, msg, true)));
  } else if (value.split("/").length === 1) {
    const standard =
      STANDARD_RESOURCES.has(value) ||
      value.startsWith("hugepages-") ||
      value.startsWith("requests.hugepages-");
    if (!standard) {
      errs.push(invalid(path, value, "must be a standard resource type or fully qualified", true));
    }
  }
  if (value.split("/").length === 1) {
    if (!STANDARD_CONTAINER_RESOURCES.has(value) && !value.startsWith("hugepages-")) {
      errs.push(invalid(path, value, "must be a standard resource for containers"));
    }
  } else if (!isNativeResource(value) && !isExtendedResourceName(value)) {
    errs.push(invalid(path, value, "doesn't follow extended resource name standard"));
  }
  return errs;
}

function validateContainerResourceSource(
  src: ContainerResourceMetricSource,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = src.name ?? "";
  if (name.length === 0) errs.push(required(child(path, "name"), "must specify a resource name"));
  else errs.push(...validateContainerResourceName(name, child(path, "name")));
  const container = src.container ?? "";
  if (container.length === 0)
    errs.push(required(child(path, "container"), "must specify a container"));
  else {
    for (const msg of isDNS1123Label(container)) {
      errs.push(invalid(child(path, "container"), container, msg));
    }
  }
  errs.push(...validateMetricTarget(src.target, child(path, "target")));
  errs.push(...validateUtilizationOrAverage(src.target, path));
  return errs;
}

type SourceField = "object" | "external" | "pods" | "resource" | "containerResource";

const SOURCE_FIELD_OF_TYPE: Record<string, SourceField> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  External: "external",
  ContainerResource: "containerResource",
};

function validateMetricSpec(
  spec: MetricSpec,
  path: string,
  opts: CrossVersionObjectReferenceValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  const type = spec.type ?? "";
  if (type.length === 0)
    errs.push(required(child(path, "type"), "must specify a metric source type"));
  if (!VALID_METRIC_SOURCE_TYPES.includes(type)) {
    errs.push(notSupported(child(path, "type"), type, VALID_METRIC_SOURCE_TYPES, true));
  }
  // Only the first populated source is validated; the others are reported below.
  const present: SourceField[] = [];
  const validators: Array<[SourceField, (p: string) => FieldError[]]> = [
    ["object", (p) => validateObjectSource(spec.object!, p, opts)],
    ["external", (p) => validateExternalSource(spec.external!, p)],
    ["pods", (p) => validatePodsSource(spec.pods!, p)],
    ["resource", (p) => validateResourceSource(spec.resource!, p)],
    ["containerResource", (p) => validateContainerResourceSource(spec.containerResource!, p)],
  ];
  for (const [fieldName, validate] of validators) {
    if (!isSet(spec[fieldName])) continue;
    present.push(fieldName);
    if (present.length === 1) errs.push(...validate(child(path, fieldName)));
  }
  const expected = Object.hasOwn(SOURCE_FIELD_OF_TYPE, type)
    ? SOURCE_FIELD_OF_TYPE[type]
    : undefined;
  if (expected === undefined) {
    // Upstream's switch default reports the unsupported type a second time.
    errs.push(notSupported(child(path, "type"), type, VALID_METRIC_SOURCE_TYPES, true));
  } else if (!isSet(spec[expected])) {
    errs.push(
      required(child(path, expected), "must populate information for the given metric source"),
    );
  }
  if (present.length !== 1) {
    // Upstream walks a Go set (random order); the fixed source order is used here.
    for (const fieldName of present) {
      if (fieldName !== expected) {
        errs.push(forbidden(child(path, fieldName), "must populate the given metric source only"));
      }
    }
  }
  return errs;
}

function validateMetrics(
  metrics: MetricSpec[] | null | undefined,
  path: string,
  minReplicas: number | null | undefined,
  opts: CrossVersionObjectReferenceValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  let hasObjectOrExternal = false;
  (metrics ?? []).forEach((metric, i) => {
    const m = metric ?? ({} as MetricSpec);
    errs.push(...validateMetricSpec(m, index(path, i), opts));
    if (m.type === "Object" || m.type === "External") hasObjectOrExternal = true;
  });
  if (minReplicas === 0 && !hasObjectOrExternal) {
    errs.push(
      forbidden(
        path,
        "must specify at least one Object or External metric to support scaling to zero replicas",
      ),
    );
  }
  return errs;
}

function validateScalingPolicy(policy: HPAScalingPolicy, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = policy.type ?? "";
  if (type !== "Pods" && type !== "Percent") {
    errs.push(notSupported(child(path, "type"), type, VALID_POLICY_TYPES, true));
  }
  const value = policy.value ?? 0;
  if (value <= 0) errs.push(invalid(child(path, "value"), value, "must be greater than zero"));
  const period = policy.periodSeconds ?? 0;
  if (period <= 0)
    errs.push(invalid(child(path, "periodSeconds"), period, "must be greater than zero"));
  if (period > MAX_PERIOD_SECONDS) {
    errs.push(
      invalid(
        child(path, "periodSeconds"),
        period,
        `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
      ),
    );
  }
  return errs;
}

// Message for a tolerance set while HPAConfigurableTolerance is off. The v1.33 unit tests only
// assert that it contains "not supported"; the exact upstream sentence was not found.
export const TOLERANCE_NOT_SUPPORTED_DETAIL =
  "tolerance is not supported when the HPAConfigurableTolerance feature gate is not enabled";

function validateScalingRules(
  rules: HPAScalingRules | null | undefined,
  path: string,
  opts: HorizontalPodAutoscalerSpecValidationOptions,
): FieldError[] {
  if (!isSet(rules)) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (isSet(window) && window < 0) {
    errs.push(
      invalid(
        child(path, "stabilizationWindowSeconds"),
        window,
        "must be greater than or equal to zero",
      ),
    );
  }
  if (isSet(window) && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(
      invalid(
        child(path, "stabilizationWindowSeconds"),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  if (isSet(rules.selectPolicy) && !VALID_SELECT_POLICY_TYPES.includes(rules.selectPolicy)) {
    errs.push(
      notSupported(
        child(path, "selectPolicy"),
        rules.selectPolicy,
        VALID_SELECT_POLICY_TYPES,
        true,
      ),
    );
  }
  const policiesPath = child(path, "policies");
  const policies = rules.policies ?? [];
  if (policies.length === 0) errs.push(required(policiesPath, "must specify at least one Policy"));
  policies.forEach((policy, i) => {
    errs.push(...validateScalingPolicy(policy ?? ({} as HPAScalingPolicy), index(policiesPath, i)));
  });
  if (isSet(rules.tolerance)) {
    const tolerancePath = child(path, "tolerance");
    if (!opts.allowTolerance) errs.push(forbidden(tolerancePath, TOLERANCE_NOT_SUPPORTED_DETAIL));
    const parsed = parseQuantity(rules.tolerance);
    if (!parsed.ok) errs.push(invalid(tolerancePath, String(rules.tolerance), parsed.reason));
    else if (parsed.quantity.sign() < 0) {
      errs.push(
        invalid(
          tolerancePath,
          parsed.quantity.toString(),
          "must be greater or equal to zero",
          true,
        ),
      );
    }
  }
  return errs;
}

function validateBehavior(
  behavior: HorizontalPodAutoscalerBehavior | null | undefined,
  path: string,
  opts: HorizontalPodAutoscalerSpecValidationOptions,
): FieldError[] {
  if (!isSet(behavior)) return [];
  return [
    ...validateScalingRules(behavior.scaleUp, child(path, "scaleUp"), opts),
    ...validateScalingRules(behavior.scaleDown, child(path, "scaleDown"), opts),
  ];
}

/**
 * validateHorizontalPodAutoscalerSpec with explicit options: minReplicas, maxReplicas,
 * scaleTargetRef, metrics, behavior, in that order.
 */
export function validateHorizontalPodAutoscalerSpecWithOptions(
  spec: HorizontalPodAutoscalerSpec | undefined,
  path: string,
  opts: HorizontalPodAutoscalerSpecValidationOptions,
): FieldError[] {
  const s = spec ?? ({} as Partial<HorizontalPodAutoscalerSpec>);
  const errs: FieldError[] = [];
  const min = s.minReplicas;
  if (isSet(min) && min < opts.minReplicasLowerBound) {
    errs.push(
      invalid(
        child(path, "minReplicas"),
        min,
        `must be greater than or equal to ${opts.minReplicasLowerBound}`,
      ),
    );
  }
  const max = s.maxReplicas ?? 0;
  if (max < 1) errs.push(invalid(child(path, "maxReplicas"), max, "must be greater than 0"));
  if (isSet(min) && max < min) {
    errs.push(
      invalid(child(path, "maxReplicas"), max, "must be greater than or equal to `minReplicas`"),
    );
  }
  errs.push(
    ...validateCrossVersionObjectReference(
      s.scaleTargetRef,
      child(path, "scaleTargetRef"),
      opts.scaleTargetRefValidationOptions,
    ),
  );
  errs.push(
    ...validateMetrics(s.metrics, child(path, "metrics"), min, opts.objectMetricsValidationOptions),
  );
  errs.push(...validateBehavior(s.behavior, child(path, "behavior"), opts));
  return errs;
}

/** Spec validation with the options kube-apiserver derives from the gates and the old object. */
export function validateHorizontalPodAutoscalerSpec(
  spec: HorizontalPodAutoscalerSpec,
  opts: ValidationOptions & { fieldPath?: string },
): FieldError[] {
  const options = horizontalPodAutoscalerSpecValidationOptions(
    spec,
    opts.old?.spec,
    opts.featureGates,
  );
  return validateHorizontalPodAutoscalerSpecWithOptions(spec, opts.fieldPath ?? "spec", options);
}

/** ValidateHorizontalPodAutoscaler (create): metadata, then spec. */
export function validateHorizontalPodAutoscaler(
  hpa: HorizontalPodAutoscaler,
  opts: ValidationOptions,
): FieldError[] {
  if (opts.old !== undefined) return validateHorizontalPodAutoscalerUpdate(hpa, opts.old, opts);
  return [
    ...validateObjectMeta(hpa.metadata),
    ...validateHorizontalPodAutoscalerSpec(hpa.spec, { featureGates: opts.featureGates }),
  ];
}

/** ValidateHorizontalPodAutoscalerUpdate: metadata update rules, then spec. */
export function validateHorizontalPodAutoscalerUpdate(
  hpa: HorizontalPodAutoscaler,
  old: HorizontalPodAutoscaler,
  opts: { featureGates: FeatureGates },
): FieldError[] {
  return [
    ...validateObjectMetaUpdate(hpa.metadata, old.metadata),
    ...validateHorizontalPodAutoscalerSpec(hpa.spec, { featureGates: opts.featureGates, old }),
  ];
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: metadata update rules, non-negative counts. */
export function validateHorizontalPodAutoscalerStatusUpdate(
  hpa: HorizontalPodAutoscaler,
  old: HorizontalPodAutoscaler,
): FieldError[] {
  const errs = validateObjectMetaUpdate(hpa.metadata, old.metadata);
  const current = hpa.status?.currentReplicas ?? 0;
  if (current < 0) errs.push(invalid("status.currentReplicas", current, IS_NEGATIVE_ERROR_MSG));
  const desired = hpa.status?.desiredReplicas ?? 0;
  if (desired < 0) errs.push(invalid("status.desiredReplicas", desired, IS_NEGATIVE_ERROR_MSG));
  return errs;
}

/**
 * dropDisabledFields of the HPA registry strategy: with HPAConfigurableTolerance off, a tolerance
 * is cleared before validation unless the old object already used one. Returns a new object.
 */
export function dropDisabledHorizontalPodAutoscalerFields(
  hpa: HorizontalPodAutoscaler,
  old: HorizontalPodAutoscaler | undefined,
  featureGates: FeatureGates,
): HorizontalPodAutoscaler {
  const out = structuredClone(hpa);
  if (featureGates.enabled("HPAConfigurableTolerance") || toleranceInUse(old?.spec)) return out;
  const behavior = out.spec?.behavior;
  if (!behavior) return out;
  for (const rules of [behavior.scaleDown, behavior.scaleUp]) {
    if (rules) delete rules.tolerance;
  }
  return out;
}

/**
 * Entry point for the conformance runner's `validation` suite: validates a spec the way upstream's
 * spec validation tests do (the given gates over `version`'s defaults, no defaulting). Throws on
 * an unknown gate or a spec that is not an object.
 */
export function validateSpecForConformance(
  spec: unknown,
  opts: {
    featureGates: Record<string, boolean>;
    operation: "create" | "update";
    oldSpec?: unknown;
    version: KubernetesVersion;
  },
): FieldError[] {
  if (!isRecord(spec)) throw new TypeError("spec must be an object");
  const featureGates = FeatureGates.fromRecord(
    opts.featureGates ?? {},
    FeatureGates.defaults(opts.version),
  );
  let old: HorizontalPodAutoscaler | undefined;
  if (opts.operation === "update") {
    if (!isRecord(opts.oldSpec)) throw new TypeError("an update needs an oldSpec object");
    old = { metadata: {}, spec: opts.oldSpec as unknown as HorizontalPodAutoscalerSpec };
  }
  return validateHorizontalPodAutoscalerSpec(spec as unknown as HorizontalPodAutoscalerSpec, {
    featureGates,
    ...(old ? { old } : {}),
  });
}
