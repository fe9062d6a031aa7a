// Conversion between the served and legacy versions of the HorizontalPodAutoscaler and
// autoscaling/v2, with the behaviour of kube-apiserver v1.34:
//
// - autoscaling/v1 keeps what it cannot represent in `autoscaling.alpha.kubernetes.io/*`
//   annotations (pkg/apis/autoscaling/v1/conversion.go). The metric annotations hold the legacy
//   v1 `MetricSpec`/`MetricStatus` JSON; the behavior annotation holds the *internal*
//   `HorizontalPodAutoscalerBehavior` marshalled without json tags (Go field names, nil as
//   `null`), which is also how `tolerance` travels through v1 ("Tolerance").
// - autoscaling/v2beta2 has the v2 shapes minus `tolerance`, which it keeps in the
//   `scale-{up,down}-tolerance` annotations (pkg/apis/autoscaling/v2beta2/conversion.go).
// - autoscaling/v2beta1 has the legacy metric shapes and keeps `behavior` in the annotation.
//
// The annotation JSON is written byte for byte as Go's encoding/json writes the legacy structs
// (field order = struct order, omitempty, HTML-safe escaping, sorted map keys, canonical
// quantities, RFC 3339 UTC seconds), and read back as encoding/json reads it: keys matched
// case-insensitively, unknown keys ignored, and a value that does not decode makes upstream
// ignore that annotation as a whole.

import { goJsonString } from "./gojson.js";
import { isRecord } from "./json.js";
import { Quantity } from "./quantity.js";
import type {
  ContainerResourceMetricSource,
  ContainerResourceMetricStatus,
  CrossVersionObjectReference,
  ExternalMetricSource,
  ExternalMetricStatus,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerSpecV1,
  HorizontalPodAutoscalerStatus,
  HorizontalPodAutoscalerStatusV1,
  HorizontalPodAutoscalerV1,
  HPAScalingPolicy,
  HPAScalingRules,
  LabelSelector,
  LabelSelectorRequirement,
  MetricIdentifier,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
  ObjectMeta,
  ObjectMetricSource,
  ObjectMetricStatus,
  PodsMetricSource,
  PodsMetricStatus,
  QuantityValue,
  ResourceMetricSource,
  ResourceMetricStatus,
} from "./types.js";
import { V1_ANNOTATIONS } from "./types.js";

/** A conversion upstream refuses (malformed legacy input, an unparsable tolerance annotation). */
export class ConversionError extends Error {
  override name = "ConversionError";
}

export interface ReadResult {
  hpa: HorizontalPodAutoscaler;
  warnings: string[];
}

/** The annotations every conversion drops before writing its own (upstream
 * `DropRoundTripHorizontalPodAutoscalerAnnotations`). */
export const ROUND_TRIP_ANNOTATIONS: readonly string[] = [
  V1_ANNOTATIONS.metrics,
  V1_ANNOTATIONS.behavior,
  V1_ANNOTATIONS.scaleDownTolerance,
  V1_ANNOTATIONS.scaleUpTolerance,
  V1_ANNOTATIONS.currentMetrics,
  V1_ANNOTATIONS.conditions,
];

/** kube-apiserver's deprecation warnings (prerelease-lifecycle: v2beta1 deprecated 1.22,
 * removed 1.25; v2beta2 deprecated 1.23, removed 1.26; replacement autoscaling/v2). */
export const DEPRECATION_WARNINGS = {
  "autoscaling/v2beta1":
    "autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; use autoscaling/v2 HorizontalPodAutoscaler",
  "autoscaling/v2beta2":
    "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler",
} as const;

/** v1 and v2beta1 conversion adds this CPU target when no metric is left (DefaultCPUUtilization). */
const DEFAULT_CPU_UTILIZATION = 80;

// =============================================================================================
// Go encoding/json: writing

/** A JSON object from fields in struct order; `undefined` values are omitted (omitempty). */
function goObject(fields: Array<[string, string | undefined]>): string {
  const parts: string[] = [];
  for (const [key, value] of fields) {
    if (value !== undefined) parts.push(`${goJsonString(key)}:${value}`);
  }
  return `{${parts.join(",")}}`;
}

function goArray(items: readonly string[]): string {
  return `[${items.join(",")}]`;
}

/** Go sorts map keys by their UTF-8 bytes. */
function goSortedKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

// =============================================================================================
// Go encoding/json: reading. A strict RFC 8259 parser that keeps what JSON.parse loses and
// encoding/json looks at: number literals as written, duplicate keys in order, and whether a
// string had escapes (resource.Quantity.UnmarshalJSON parses the raw bytes between the quotes).

class JNumber {
  constructor(readonly raw: string) {}
}
class JObject {
  constructor(readonly entries: Array<[string, JValue]>) {}
}
class JEscapedString {
  constructor(readonly value: string) {}
}
type JValue = null | boolean | string | JEscapedString | JNumber | JValue[] | JObject;

class DecodeError extends Error {}

function parseGoJson(text: string): JValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new DecodeError(`invalid JSON: ${what} at offset ${i}`);
  };
  const skipSpace = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const parseString = (): string | JEscapedString => {
    i++; // opening quote
    let out = "";
    let escaped = false;
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text[i]!;
      if (c === '"') {
        i++;
        return escaped ? new JEscapedString(out) : out;
      }
      if (c < " ") fail("control character in string");
      if (c !== "\\") {
        out += c;
        i++;
        continue;
      }
      escaped = true;
      const e = text[i + 1];
      i += 2;
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e !== undefined && e in simple) {
        out += simple[e];
        continue;
      }
      if (e !== "u") fail("invalid escape");
      const readHex = (): number => {
        const hex = text.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid \\u escape");
        i += 4;
        return Number.parseInt(hex, 16);
      };
      const unit = readHex();
      if (unit >= 0xd800 && unit < 0xdc00 && text.startsWith("\\u", i)) {
        const save = i;
        i += 2;
        const low = readHex();
        if (low >= 0xdc00 && low < 0xe000) {
          out += String.fromCharCode(unit, low);
          continue;
        }
        i = save;
      }
      // Go replaces an unpaired surrogate with U+FFFD.
      out += unit >= 0xd800 && unit < 0xe000 ? "\ufffd" : String.fromCharCode(unit);
    }
  };
  const parseValue = (): JValue => {
    skipSpace();
    const c = text[i];
    if (c === "{") {
      i++;
      const entries: Array<[string, JValue]> = [];
      skipSpace();
      if (text[i] === "}") {
        i++;
        return new JObject(entries);
      }
      for (;;) {
        skipSpace();
        if (text[i] !== '"') fail("expected object key");
        const key = parseString();
        skipSpace();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        entries.push([typeof key === "string" ? key : key.value, parseValue()]);
        skipSpace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return new JObject(entries);
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const items: JValue[] = [];
      skipSpace();
      if (text[i] === "]") {
        i++;
        return items;
      }
      for (;;) {
        items.push(parseValue());
        skipSpace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return items;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value;
      }
    }
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (m === null) return fail("invalid value");
    i += m[0].length;
    return new JNumber(m[0]);
  };
  const value = parseValue();
  skipSpace();
  if (i !== text.length) fail("data after top-level value");
  return value;
}

/** An object from the wire (already parsed by the caller) as a JValue. */
function fromWire(v: unknown): JValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return new JNumber(String(v));
  if (Array.isArray(v)) return v.map(fromWire);
  if (typeof v === "object") {
    const entries: Array<[string, JValue]> = [];
    for (const [k, x] of Object.entries(v)) if (x !== undefined) entries.push([k, fromWire(x)]);
    return new JObject(entries);
  }
  throw new DecodeError(`unsupported value of type ${typeof v}`);
}

// Typed decoding with encoding/json's rules. A decoder returns the Go value (`undefined` for a
// nil pointer, slice or map) or NO_EFFECT, for a JSON null into a non-pointer value, which Go
// ignores.

const NO_EFFECT: unique symbol = Symbol("no effect");
type Decoded<T> = T | undefined | typeof NO_EFFECT;
interface DecodeContext {
  /** encoding/json (annotations) matches keys case-insensitively; the API server's decoder does not. */
  caseInsensitive: boolean;
}
/** `path` is the dotted JSON path of the value, `owner` the Go struct that holds it (for
 * encoding/json's error text: "Go struct field Owner.path of type T"). */
type Decoder<T> = (v: JValue, path: string, ctx: DecodeContext, owner: string) => Decoded<T>;

function jsonKind(v: JValue): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string" || v instanceof JEscapedString) return "string";
  if (v instanceof JNumber) return `number ${v.raw}`;
  if (Array.isArray(v)) return "array";
  return "object";
}

function typeError(v: JValue, path: string, owner: string, goType: string): never {
  const where = owner === "" ? "Go value" : `Go struct field ${owner}.${path}`;
  throw new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into ${where} of type ${goType}`);
}

function stringOf(v: JValue): string | undefined {
  if (typeof v === "string") return v;
  if (v instanceof JEscapedString) return v.value;
  return undefined;
}

const decodeString: Decoder<string> = (v, path, _ctx, owner) => {
  if (v === null) return NO_EFFECT;
  return stringOf(v) ?? typeError(v, path, owner, "string");
};

const decodeInt32: Decoder<number> = (v, path, _ctx, owner) => {
  if (v === null) return NO_EFFECT;
  // encoding/json parses the literal: 1.0 and 1e2 are not int32s.
  if (!(v instanceof JNumber) || !/^-?[0-9]+$/.test(v.raw)) {
    return typeError(v, path, owner, "int32");
  }
  const n = BigInt(v.raw);
  if (n < -2147483648n || n > 2147483647n) return typeError(v, path, owner, "int32");
  return Number(n);
};

/** resource.Quantity.UnmarshalJSON: null is the zero quantity; otherwise the raw bytes (between
 * the quotes, escapes not decoded) are trimmed of Go white space and parsed. Yields the text
 * MarshalJSON writes back. */
const decodeQuantity: Decoder<string> = (v) => {
  if (v === null) return "0";
  let parsed: ReturnType<typeof Quantity.tryParse>;
  if (typeof v === "string") parsed = Quantity.tryParseJSON(v);
  else if (v instanceof JNumber) parsed = Quantity.tryParse(v.raw);
  // A backslash (escaped string), `true`, `{`, `[` never parse as a quantity.
  else parsed = Quantity.tryParse(v instanceof JEscapedString ? "\\" : jsonKind(v));
  if (!parsed.ok) throw new DecodeError(parsed.reason);
  return parsed.quantity.toString();
};

const RFC3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$/;

/** Parses RFC 3339 as Go's time.Parse does and returns metav1.Time's JSON form (UTC, whole
 * seconds), or undefined when Go would reject it. */
function normalizeTime(s: string): string | undefined {
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zone = m[7]!;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (month < 1 || month > 12 || day < 1 || day > days[month - 1]!) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const y = d.getUTCFullYear();
  if (y < 0 || y > 9999) return undefined;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(y, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}

/** metav1.Time.UnmarshalJSON: null is the zero time; otherwise a string in RFC 3339. */
const decodeTime: Decoder<string> = (v) => {
  if (v === null) return undefined;
  const s = stringOf(v);
  if (s === undefined) return typeError(v, "", "", "string");
  const t = normalizeTime(s);
  if (t === undefined) throw new DecodeError(`parsing time ${JSON.stringify(s)} as RFC 3339`);
  return t;
};

function pointer<T>(decode: Decoder<T>): Decoder<T> {
  return (v, path, ctx, owner) => (v === null ? undefined : decode(v, path, ctx, owner));
}

function sliceOf<T>(decode: Decoder<T>, zero: () => T, goType: string): Decoder<T[]> {
  return (v, path, ctx, owner) => {
    if (v === null) return undefined;
    if (!Array.isArray(v)) return typeError(v, path, owner, goType);
    return v.map((item) => {
      const d = decode(item, path, ctx, owner);
      return d === NO_EFFECT || d === undefined ? zero() : d;
    });
  };
}

const decodeStringMap: Decoder<Record<string, string>> = (v, path, ctx, owner) => {
  if (v === null) return undefined;
  if (!(v instanceof JObject)) return typeError(v, path, owner, "map[string]string");
  const out: Record<string, string> = {};
  for (const [k, x] of v.entries) {
    const s = decodeString(x, `${path}.${k}`, ctx, owner);
    out[k] = s === NO_EFFECT || s === undefined ? "" : s;
  }
  return out;
};

type FieldDecoders = Record<string, Decoder<unknown>>;

/** A Go struct: keys matched exactly, or (encoding/json) case-insensitively; unknown keys are
 * ignored; a later duplicate key overrides an earlier one. */
function struct<T>(goType: string, fields: FieldDecoders): Decoder<T> {
  const names = Object.keys(fields);
  return (v, path, ctx, owner) => {
    if (v === null) return NO_EFFECT;
    if (!(v instanceof JObject)) return typeError(v, path, owner, goType);
    const out: Record<string, unknown> = {};
    for (const [key, value] of v.entries) {
      let name = names.find((n) => n === key);
      if (name === undefined && ctx.caseInsensitive) {
        const folded = key.toLowerCase();
        name = names.find((n) => n.toLowerCase() === folded);
      }
      if (name === undefined) continue;
      const decoded = fields[name]!(value, path === "" ? name : `${path}.${name}`, ctx, goType);
      if (decoded === NO_EFFECT) continue;
      if (decoded === undefined) delete out[name];
      else out[name] = decoded;
    }
    return out as T;
  };
}

function decodeWith<T>(
  decode: Decoder<T>,
  v: JValue,
  ctx: DecodeContext,
  path = "",
): T | undefined {
  const d = decode(v, path, ctx, "");
  return d === NO_EFFECT ? undefined : d;
}

/** encoding/json.Unmarshal of an annotation, or undefined where upstream ignores it. */
function decodeAnnotation<T>(
  text: string | undefined,
  decode: Decoder<T>,
): { value: T | undefined } | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return { value: decodeWith(decode, parseGoJson(text), { caseInsensitive: true }) };
  } catch (err) {
    if (err instanceof DecodeError) return undefined;
    throw err;
  }
}

// =============================================================================================
// The legacy (autoscaling/v1 annotation, autoscaling/v2beta1) structs, as decoded. A missing key
// is the Go zero value.

interface LegacyRef {
  kind?: string;
  name?: string;
  apiVersion?: string;
}
interface LegacySelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }>;
}
interface LegacyObjectSource {
  target?: LegacyRef;
  metricName?: string;
  targetValue?: string;
  selector?: LegacySelector;
  averageValue?: string;
}
interface LegacyPodsSource {
  metricName?: string;
  targetAverageValue?: string;
  selector?: LegacySelector;
}
interface LegacyResourceSource {
  name?: string;
  targetAverageUtilization?: number;
  targetAverageValue?: string;
  container?: string;
}
interface LegacyExternalSource {
  metricName?: string;
  metricSelector?: LegacySelector;
  targetValue?: string;
  targetAverageValue?: string;
}
interface LegacyMetricSpec {
  type?: string;
  object?: LegacyObjectSource;
  pods?: LegacyPodsSource;
  resource?: LegacyResourceSource;
  containerResource?: LegacyResourceSource;
  external?: LegacyExternalSource;
}
interface LegacyObjectStatus {
  target?: LegacyRef;
  metricName?: string;
  currentValue?: string;
  selector?: LegacySelector;
  averageValue?: string;
}
interface LegacyPodsStatus {
  metricName?: string;
  currentAverageValue?: string;
  selector?: LegacySelector;
}
interface LegacyResourceStatus {
  name?: string;
  currentAverageUtilization?: number;
  currentAverageValue?: string;
  container?: string;
}
interface LegacyExternalStatus {
  metricName?: string;
  metricSelector?: LegacySelector;
  currentValue?: string;
  currentAverageValue?: string;
}
interface LegacyMetricStatus {
  type?: string;
  object?: LegacyObjectStatus;
  pods?: LegacyPodsStatus;
  resource?: LegacyResourceStatus;
  containerResource?: LegacyResourceStatus;
  external?: LegacyExternalStatus;
}
interface LegacyCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}
/** The internal HPAScalingRules, as the behavior annotation holds it. */
interface InternalRules {
  StabilizationWindowSeconds?: number;
  SelectPolicy?: string;
  Policies?: Array<{ Type?: string; Value?: number; PeriodSeconds?: number }>;
  Tolerance?: string;
}
interface InternalBehavior {
  ScaleUp?: InternalRules;
  ScaleDown?: InternalRules;
}

const decodeRef = struct<LegacyRef>("CrossVersionObjectReference", {
  kind: decodeString,
  name: decodeString,
  apiVersion: decodeString,
});
const decodeSelector = pointer(
  struct<LegacySelector>("LabelSelector", {
    matchLabels: decodeStringMap,
    matchExpressions: sliceOf(
      struct("LabelSelectorRequirement", {
        key: decodeString,
        operator: decodeString,
        values: sliceOf(decodeString, () => "", "[]string"),
      }),
      () => ({}),
      "[]v1.LabelSelectorRequirement",
    ),
  }),
);
const decodeLegacyMetricSpec = struct<LegacyMetricSpec>("MetricSpec", {
  type: decodeString,
  object: pointer(
    struct("ObjectMetricSource", {
      target: decodeRef,
      metricName: decodeString,
      targetValue: decodeQuantity,
      selector: decodeSelector,
      averageValue: pointer(decodeQuantity),
    }),
  ),
  pods: pointer(
    struct("PodsMetricSource", {
      metricName: decodeString,
      targetAverageValue: decodeQuantity,
      selector: decodeSelector,
    }),
  ),
  resource: pointer(
    struct("ResourceMetricSource", {
      name: decodeString,
      targetAverageUtilization: pointer(decodeInt32),
      targetAverageValue: pointer(decodeQuantity),
    }),
  ),
  containerResource: pointer(
    struct("ContainerResourceMetricSource", {
      name: decodeString,
      targetAverageUtilization: pointer(decodeInt32),
      targetAverageValue: pointer(decodeQuantity),
      container: decodeString,
    }),
  ),
  external: pointer(
    struct("ExternalMetricSource", {
      metricName: decodeString,
      metricSelector: decodeSelector,
      targetValue: pointer(decodeQuantity),
      targetAverageValue: pointer(decodeQuantity),
    }),
  ),
});
const decodeLegacyMetricStatus = struct<LegacyMetricStatus>("MetricStatus", {
  type: decodeString,
  object: pointer(
    struct("ObjectMetricStatus", {
      target: decodeRef,
      metricName: decodeString,
      currentValue: decodeQuantity,
      selector: decodeSelector,
      averageValue: pointer(decodeQuantity),
    }),
  ),
  pods: pointer(
    struct("PodsMetricStatus", {
      metricName: decodeString,
      currentAverageValue: decodeQuantity,
      selector: decodeSelector,
    }),
  ),
  resource: pointer(
    struct("ResourceMetricStatus", {
      name: decodeString,
      currentAverageUtilization: pointer(decodeInt32),
      currentAverageValue: decodeQuantity,
    }),
  ),
  containerResource: pointer(
    struct("ContainerResourceMetricStatus", {
      name: decodeString,
      currentAverageUtilization: pointer(decodeInt32),
      currentAverageValue: decodeQuantity,
      container: decodeString,
    }),
  ),
  external: pointer(
    struct("ExternalMetricStatus", {
      metricName: decodeString,
      metricSelector: decodeSelector,
      currentValue: decodeQuantity,
      currentAverageValue: pointer(decodeQuantity),
    }),
  ),
});
const decodeLegacyMetricSpecs = sliceOf(decodeLegacyMetricSpec, () => ({}), "[]MetricSpec");
const decodeLegacyMetricStatuses = sliceOf(decodeLegacyMetricStatus, () => ({}), "[]MetricStatus");
const decodeLegacyConditions = sliceOf(
  struct<LegacyCondition>("HorizontalPodAutoscalerCondition", {
    type: decodeString,
    status: decodeString,
    lastTransitionTime: decodeTime,
    reason: decodeString,
    message: decodeString,
  }),
  () => ({}),
  "[]HorizontalPodAutoscalerCondition",
);
const decodeInternalRules = pointer(
  struct<InternalRules>("HPAScalingRules", {
    StabilizationWindowSeconds: pointer(decodeInt32),
    SelectPolicy: pointer(decodeString),
    Policies: sliceOf(
      struct("HPAScalingPolicy", {
        Type: decodeString,
        Value: decodeInt32,
        PeriodSeconds: decodeInt32,
      }),
      () => ({}),
      "[]autoscaling.HPAScalingPolicy",
    ),
    Tolerance: pointer(decodeQuantity),
  }),
);
const decodeInternalBehavior = struct<InternalBehavior>("HorizontalPodAutoscalerBehavior", {
  ScaleUp: decodeInternalRules,
  ScaleDown: decodeInternalRules,
});

// =============================================================================================
// v2 → legacy JSON (what the v1 annotations hold)

/** A quantity as Go re-serializes it after decoding (canonical unless already canonical text);
 * an unparsable value is kept as given. */
function canonicalQuantity(q: QuantityValue): string {
  const parsed = Quantity.tryParseJSON(q);
  return parsed.ok ? parsed.quantity.toString() : String(q);
}

function present<T>(v: T | null | undefined): v is T {
  return v !== undefined && v !== null;
}

function quantityJson(q: QuantityValue | null | undefined): string | undefined {
  return present(q) ? goJsonString(canonicalQuantity(q)) : undefined;
}

/** A non-pointer resource.Quantity: the zero value marshals as "0". */
function quantityOrZeroJson(q: QuantityValue | null | undefined): string {
  return quantityJson(q) ?? '"0"';
}

function int32Json(n: number | null | undefined): string | undefined {
  return present(n) ? String(n) : undefined;
}

function refJson(ref: Partial<CrossVersionObjectReference> | undefined): string {
  return goObject([
    ["kind", goJsonString(ref?.kind ?? "")],
    ["name", goJsonString(ref?.name ?? "")],
    ["apiVersion", ref?.apiVersion ? goJsonString(ref.apiVersion) : undefined],
  ]);
}

function selectorJson(selector: LabelSelector | null | undefined): string | undefined {
  if (!present(selector)) return undefined;
  const labels = selector.matchLabels ?? {};
  const keys = goSortedKeys(labels);
  const expressions = selector.matchExpressions ?? [];
  return goObject([
    [
      "matchLabels",
      keys.length > 0
        ? `{${keys.map((k) => `${goJsonString(k)}:${goJsonString(labels[k] ?? "")}`).join(",")}}`
        : undefined,
    ],
    [
      "matchExpressions",
      expressions.length > 0
        ? goArray(
            expressions.map((r: LabelSelectorRequirement) =>
              goObject([
                ["key", goJsonString(r.key ?? "")],
                ["operator", goJsonString(r.operator ?? "")],
                [
                  "values",
                  r.values && r.values.length > 0
                    ? goArray(r.values.map((v) => goJsonString(v)))
                    : undefined,
                ],
              ]),
            ),
          )
        : undefined,
    ],
  ]);
}

function legacyMetricSpecJson(m: MetricSpec): string {
  const target = (t: MetricTarget | undefined): MetricTarget => t ?? { type: "" };
  const object = m.object;
  const pods = m.pods;
  const resource = m.resource;
  const container = m.containerResource;
  const external = m.external;
  return goObject([
    ["type", goJsonString(m.type ?? "")],
    [
      "object",
      present(object)
        ? goObject([
            ["target", refJson(object.describedObject)],
            ["metricName", goJsonString(object.metric?.name ?? "")],
            ["targetValue", quantityOrZeroJson(target(object.target).value)],
            ["selector", selectorJson(object.metric?.selector)],
            ["averageValue", quantityJson(target(object.target).averageValue)],
          ])
        : undefined,
    ],
    [
      "pods",
      present(pods)
        ? goObject([
            ["metricName", goJsonString(pods.metric?.name ?? "")],
            ["targetAverageValue", quantityOrZeroJson(target(pods.target).averageValue)],
            ["selector", selectorJson(pods.metric?.selector)],
          ])
        : undefined,
    ],
    [
      "resource",
      present(resource)
        ? goObject([
            ["name", goJsonString(resource.name ?? "")],
            ["targetAverageUtilization", int32Json(target(resource.target).averageUtilization)],
            ["targetAverageValue", quantityJson(target(resource.target).averageValue)],
          ])
        : undefined,
    ],
    [
      "containerResource",
      present(container)
        ? goObject([
            ["name", goJsonString(container.name ?? "")],
            ["targetAverageUtilization", int32Json(target(container.target).averageUtilization)],
            ["targetAverageValue", quantityJson(target(container.target).averageValue)],
            ["container", goJsonString(container.container ?? "")],
          ])
        : undefined,
    ],
    [
      "external",
      present(external)
        ? goObject([
            ["metricName", goJsonString(external.metric?.name ?? "")],
            ["metricSelector", selectorJson(external.metric?.selector)],
            ["targetValue", quantityJson(target(external.target).value)],
            ["targetAverageValue", quantityJson(target(external.target).averageValue)],
          ])
        : undefined,
    ],
  ]);
}

function legacyMetricStatusJson(m: MetricStatus): string {
  const current = (c: MetricValueStatus | undefined): MetricValueStatus => c ?? {};
  const object = m.object;
  const pods = m.pods;
  const resource = m.resource;
  const container = m.containerResource;
  const external = m.external;
  return goObject([
    ["type", goJsonString(m.type ?? "")],
    [
      "object",
      present(object)
        ? goObject([
            ["target", refJson(object.describedObject)],
            ["metricName", goJsonString(object.metric?.name ?? "")],
            ["currentValue", quantityOrZeroJson(current(object.current).value)],
            ["selector", selectorJson(object.metric?.selector)],
            ["averageValue", quantityJson(current(object.current).averageValue)],
          ])
        : undefined,
    ],
    [
      "pods",
      present(pods)
        ? goObject([
            ["metricName", goJsonString(pods.metric?.name ?? "")],
            ["currentAverageValue", quantityOrZeroJson(current(pods.current).averageValue)],
            ["selector", selectorJson(pods.metric?.selector)],
          ])
        : undefined,
    ],
    [
      "resource",
      present(resource)
        ? goObject([
            ["name", goJsonString(resource.name ?? "")],
            ["currentAverageUtilization", int32Json(current(resource.current).averageUtilization)],
            ["currentAverageValue", quantityOrZeroJson(current(resource.current).averageValue)],
          ])
        : undefined,
    ],
    [
      "containerResource",
      present(container)
        ? goObject([
            ["name", goJsonString(container.name ?? "")],
            ["currentAverageUtilization", int32Json(current(container.current).averageUtilization)],
            ["currentAverageValue", quantityOrZeroJson(current(container.current).averageValue)],
            ["container", goJsonString(container.container ?? "")],
          ])
        : undefined,
    ],
    [
      "external",
      present(external)
        ? goObject([
            ["metricName", goJsonString(external.metric?.name ?? "")],
            ["metricSelector", selectorJson(external.metric?.selector)],
            ["currentValue", quantityOrZeroJson(current(external.current).value)],
            ["currentAverageValue", quantityJson(current(external.current).averageValue)],
          ])
        : undefined,
    ],
  ]);
}

/** metav1.Time marshals as RFC 3339 in UTC with whole seconds; the zero time as null. */
function timeJson(t: string | null | undefined): string {
  if (!present(t) || t === "") return "null";
  return goJsonString(normalizeTime(t) ?? t);
}

function legacyConditionJson(c: HorizontalPodAutoscalerCondition): string {
  return goObject([
    ["type", goJsonString(c.type ?? "")],
    ["status", goJsonString(c.status ?? "")],
    ["lastTransitionTime", timeJson(c.lastTransitionTime)],
    ["reason", c.reason ? goJsonString(c.reason) : undefined],
    ["message", c.message ? goJsonString(c.message) : undefined],
  ]);
}

/** json.Marshal of the internal HorizontalPodAutoscalerBehavior: no json tags, so Go field
 * names, every field written, nil pointers and slices as null. */
export function internalBehaviorJson(behavior: HorizontalPodAutoscalerBehavior): string {
  const rules = (r: HPAScalingRules | null | undefined): string => {
    if (!present(r)) return "null";
    const policies = r.policies;
    return goObject([
      ["StabilizationWindowSeconds", int32Json(r.stabilizationWindowSeconds) ?? "null"],
      ["SelectPolicy", present(r.selectPolicy) ? goJsonString(r.selectPolicy) : "null"],
      [
        "Policies",
        present(policies)
          ? goArray(
              policies.map((p: HPAScalingPolicy) =>
                goObject([
                  ["Type", goJsonString(p.type ?? "")],
                  ["Value", String(p.value ?? 0)],
                  ["PeriodSeconds", String(p.periodSeconds ?? 0)],
                ]),
              ),
            )
          : "null",
      ],
      ["Tolerance", quantityJson(r.tolerance) ?? "null"],
    ]);
  };
  return goObject([
    ["ScaleUp", rules(behavior.scaleUp)],
    ["ScaleDown", rules(behavior.scaleDown)],
  ]);
}

// =============================================================================================
// legacy → v2

function refFromLegacy(ref: LegacyRef | undefined): CrossVersionObjectReference {
  const out: CrossVersionObjectReference = { kind: ref?.kind ?? "", name: ref?.name ?? "" };
  if (ref?.apiVersion) out.apiVersion = ref.apiVersion;
  return out;
}

function selectorFromLegacy(s: LegacySelector): LabelSelector {
  const out: LabelSelector = {};
  if (s.matchLabels && Object.keys(s.matchLabels).length > 0) out.matchLabels = s.matchLabels;
  if (s.matchExpressions && s.matchExpressions.length > 0) {
    out.matchExpressions = s.matchExpressions.map((r) => {
      const req: LabelSelectorRequirement = { key: r.key ?? "", operator: r.operator ?? "" };
      if (r.values && r.values.length > 0) req.values = r.values;
      return req;
    });
  }
  return out;
}

function identifier(
  name: string | undefined,
  selector: LegacySelector | undefined,
): MetricIdentifier {
  const out: MetricIdentifier = { name: name ?? "" };
  if (selector !== undefined) out.selector = selectorFromLegacy(selector);
  return out;
}

/** Upstream's per-source conversions: the target type is inferred from which fields are set. */
function metricSpecFromLegacy(m: LegacyMetricSpec): MetricSpec {
  const out: MetricSpec = { type: m.type ?? "" };
  if (m.object) {
    const o = m.object;
    // `Value: &in.TargetValue`: always set, "0" when only averageValue was given (fixed upstream
    // only after v1.34, kubernetes#137856).
    const target: MetricTarget = {
      type: o.averageValue === undefined ? "Value" : "AverageValue",
      value: o.targetValue ?? "0",
    };
    if (o.averageValue !== undefined) target.averageValue = o.averageValue;
    out.object = {
      describedObject: refFromLegacy(o.target),
      target,
      metric: identifier(o.metricName, o.selector),
    } satisfies ObjectMetricSource;
  }
  if (m.pods) {
    out.pods = {
      metric: identifier(m.pods.metricName, m.pods.selector),
      target: { type: "AverageValue", averageValue: m.pods.targetAverageValue ?? "0" },
    } satisfies PodsMetricSource;
  }
  const resourceTarget = (r: LegacyResourceSource): MetricTarget => {
    const target: MetricTarget = {
      type: r.targetAverageUtilization === undefined ? "AverageValue" : "Utilization",
    };
    if (r.targetAverageValue !== undefined) target.averageValue = r.targetAverageValue;
    if (r.targetAverageUtilization !== undefined) {
      target.averageUtilization = r.targetAverageUtilization;
    }
    return target;
  };
  if (m.resource) {
    out.resource = {
      name: m.resource.name ?? "",
      target: resourceTarget(m.resource),
    } satisfies ResourceMetricSource;
  }
  if (m.containerResource) {
    out.containerResource = {
      name: m.containerResource.name ?? "",
      target: resourceTarget(m.containerResource),
      container: m.containerResource.container ?? "",
    } satisfies ContainerResourceMetricSource;
  }
  if (m.external) {
    const e = m.external;
    const target: MetricTarget = { type: e.targetValue === undefined ? "AverageValue" : "Value" };
    if (e.targetValue !== undefined) target.value = e.targetValue;
    if (e.targetAverageValue !== undefined) target.averageValue = e.targetAverageValue;
    out.external = {
      metric: identifier(e.metricName, e.metricSelector),
      target,
    } satisfies ExternalMetricSource;
  }
  return out;
}

function metricStatusFromLegacy(m: LegacyMetricStatus): MetricStatus {
  const out: MetricStatus = { type: (m.type ?? "") as MetricStatus["type"] };
  if (m.object) {
    const o = m.object;
    const current: MetricValueStatus = { value: o.currentValue ?? "0" };
    if (o.averageValue !== undefined) current.averageValue = o.averageValue;
    out.object = {
      metric: identifier(o.metricName, o.selector),
      current,
      describedObject: refFromLegacy(o.target),
    } satisfies ObjectMetricStatus;
  }
  if (m.pods) {
    out.pods = {
      metric: identifier(m.pods.metricName, m.pods.selector),
      current: { averageValue: m.pods.currentAverageValue ?? "0" },
    } satisfies PodsMetricStatus;
  }
  const resourceCurrent = (r: LegacyResourceStatus): MetricValueStatus => {
    const current: MetricValueStatus = { averageValue: r.currentAverageValue ?? "0" };
    if (r.currentAverageUtilization !== undefined) {
      current.averageUtilization = r.currentAverageUtilization;
    }
    return current;
  };
  if (m.resource) {
    out.resource = {
      name: m.resource.name ?? "",
      current: resourceCurrent(m.resource),
    } satisfies ResourceMetricStatus;
  }
  if (m.containerResource) {
    out.containerResource = {
      name: m.containerResource.name ?? "",
      current: resourceCurrent(m.containerResource),
      container: m.containerResource.container ?? "",
    } satisfies ContainerResourceMetricStatus;
  }
  if (m.external) {
    const e = m.external;
    const current: MetricValueStatus = { value: e.currentValue ?? "0" };
    if (e.currentAverageValue !== undefined) current.averageValue = e.currentAverageValue;
    out.external = {
      metric: identifier(e.metricName, e.metricSelector),
      current,
    } satisfies ExternalMetricStatus;
  }
  return out;
}

function conditionFromLegacy(c: LegacyCondition): HorizontalPodAutoscalerCondition {
  const out: HorizontalPodAutoscalerCondition = {
    type: c.type ?? "",
    status: (c.status ?? "") as HorizontalPodAutoscalerCondition["status"],
  };
  if (c.lastTransitionTime !== undefined) out.lastTransitionTime = c.lastTransitionTime;
  if (c.reason) out.reason = c.reason;
  if (c.message) out.message = c.message;
  return out;
}

function rulesFromInternal(r: InternalRules): HPAScalingRules {
  const out: HPAScalingRules = {};
  if (r.StabilizationWindowSeconds !== undefined) {
    out.stabilizationWindowSeconds = r.StabilizationWindowSeconds;
  }
  if (r.SelectPolicy !== undefined) out.selectPolicy = r.SelectPolicy;
  if (r.Policies !== undefined) {
    out.policies = r.Policies.map((p) => ({
      type: p.Type ?? "",
      value: p.Value ?? 0,
      periodSeconds: p.PeriodSeconds ?? 0,
    }));
  }
  if (r.Tolerance !== undefined) out.tolerance = r.Tolerance;
  return out;
}

/** The behavior annotation, or undefined where upstream ignores it: it must decode, and decode
 * to something other than the zero behavior (both directions nil). */
function behaviorFromAnnotation(
  text: string | undefined,
): HorizontalPodAutoscalerBehavior | undefined {
  const decoded = decodeAnnotation(text, decodeInternalBehavior)?.value;
  if (decoded === undefined) return undefined;
  if (decoded.ScaleUp === undefined && decoded.ScaleDown === undefined) return undefined;
  const out: HorizontalPodAutoscalerBehavior = {};
  if (decoded.ScaleUp !== undefined) out.scaleUp = rulesFromInternal(decoded.ScaleUp);
  if (decoded.ScaleDown !== undefined) out.scaleDown = rulesFromInternal(decoded.ScaleDown);
  return out;
}

// =============================================================================================
// shared helpers

function isCpuUtilizationMetric(m: MetricSpec): boolean {
  return (
    m.type === "Resource" &&
    present(m.resource) &&
    m.resource.name === "cpu" &&
    present(m.resource.target?.averageUtilization)
  );
}

function cpuUtilizationMetric(utilization: number): MetricSpec {
  return {
    type: "Resource",
    resource: { name: "cpu", target: { type: "Utilization", averageUtilization: utilization } },
  };
}

/** A copy of the metadata without the round-trip annotations; the map disappears when nothing
 * is left (omitempty). */
function withoutRoundTripAnnotations(meta: ObjectMeta | undefined): ObjectMeta {
  const out: ObjectMeta = structuredCopy(meta ?? {});
  const annotations = meta?.annotations;
  if (annotations === undefined || annotations === null) return out;
  if (!ROUND_TRIP_ANNOTATIONS.some((k) => Object.hasOwn(annotations, k))) {
    out.annotations = { ...annotations };
    return out;
  }
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) {
    if (!ROUND_TRIP_ANNOTATIONS.includes(k)) kept[k] = v;
  }
  if (Object.keys(kept).length > 0) out.annotations = kept;
  else delete out.annotations;
  return out;
}

function copyRef(
  ref: Partial<CrossVersionObjectReference> | undefined,
): CrossVersionObjectReference {
  const out: CrossVersionObjectReference = { kind: ref?.kind ?? "", name: ref?.name ?? "" };
  if (ref?.apiVersion) out.apiVersion = ref.apiVersion;
  return out;
}

// =============================================================================================
// autoscaling/v2 ⇄ autoscaling/v1

/** autoscaling/v2 → autoscaling/v1. The first CPU Utilization metric becomes
 * `targetCPUUtilizationPercentage`; every other metric (any other CPU Utilization one
 * included is lost, as upstream) goes to the metrics annotation; the behavior, all current
 * metrics and the conditions go to their annotations. */
export function convertV2ToV1(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscalerV1 {
  const metadata = withoutRoundTripAnnotations(hpa.metadata);
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  const spec = hpa.spec;
  const metrics = spec.metrics ?? [];
  const status = hpa.status;

  const others = metrics.filter((m) => !isCpuUtilizationMetric(m));
  if (others.length > 0) {
    annotations[V1_ANNOTATIONS.metrics] = goArray(others.map(legacyMetricSpecJson));
  }
  // Kept even when it is only the CPU status, for the raw value v1 has no field for.
  const currentMetrics = status?.currentMetrics ?? [];
  if (currentMetrics.length > 0) {
    annotations[V1_ANNOTATIONS.currentMetrics] = goArray(
      currentMetrics.map(legacyMetricStatusJson),
    );
  }
  if (present(spec.behavior)) {
    annotations[V1_ANNOTATIONS.behavior] = internalBehaviorJson(spec.behavior);
  }
  const conditions = status?.conditions ?? [];
  if (conditions.length > 0) {
    annotations[V1_ANNOTATIONS.conditions] = goArray(conditions.map(legacyConditionJson));
  }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;

  const v1Spec = { scaleTargetRef: copyRef(spec.scaleTargetRef) } as HorizontalPodAutoscalerSpecV1;
  if (present(spec.minReplicas)) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas;
  const cpu = metrics.find(isCpuUtilizationMetric);
  if (cpu !== undefined) {
    v1Spec.targetCPUUtilizationPercentage = cpu.resource!.target.averageUtilization!;
  }

  const out: HorizontalPodAutoscalerV1 = {
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata,
    spec: v1Spec,
  };
  if (present(status)) {
    const v1Status = {} as HorizontalPodAutoscalerStatusV1;
    if (present(status.observedGeneration)) v1Status.observedGeneration = status.observedGeneration;
    if (present(status.lastScaleTime)) v1Status.lastScaleTime = status.lastScaleTime;
    v1Status.currentReplicas = status.currentReplicas ?? 0;
    v1Status.desiredReplicas = status.desiredReplicas ?? 0;
    // No `break` upstream: the last CPU status with a utilization wins.
    for (const m of currentMetrics) {
      const utilization = m.resource?.current?.averageUtilization;
      if (m.type === "Resource" && m.resource?.name === "cpu" && present(utilization)) {
        v1Status.currentCPUUtilizationPercentage = utilization;
      }
    }
    out.status = v1Status;
  }
  return out;
}

/** autoscaling/v1 → autoscaling/v2. Annotation metrics come first, in their order, then the
 * CPU metric of `targetCPUUtilizationPercentage`; a v1 object with neither gets the implicit
 * CPU target of 80 %. Annotations that do not decode are ignored; all round-trip annotations
 * are removed. */
export function convertV1ToV2(hpa: HorizontalPodAutoscalerV1): HorizontalPodAutoscaler {
  const annotations = hpa.metadata?.annotations ?? {};
  const spec = hpa.spec;

  let metrics: MetricSpec[] = [];
  if (present(spec.targetCPUUtilizationPercentage)) {
    metrics = [cpuUtilizationMetric(spec.targetCPUUtilizationPercentage)];
  }
  const others = decodeAnnotation(annotations[V1_ANNOTATIONS.metrics], decodeLegacyMetricSpecs);
  if (others !== undefined) {
    metrics = [...(others.value ?? []).map(metricSpecFromLegacy), ...metrics];
  }
  const behavior = behaviorFromAnnotation(annotations[V1_ANNOTATIONS.behavior]);

  let currentMetrics: MetricStatus[] | undefined;
  if (present(hpa.status?.currentCPUUtilizationPercentage)) {
    currentMetrics = [
      {
        type: "Resource",
        resource: {
          name: "cpu",
          current: { averageUtilization: hpa.status.currentCPUUtilizationPercentage },
        },
      },
    ];
  }
  // The annotation has more information (the raw value): it replaces the CPU status.
  const statuses = decodeAnnotation(
    annotations[V1_ANNOTATIONS.currentMetrics],
    decodeLegacyMetricStatuses,
  );
  if (statuses !== undefined) currentMetrics = (statuses.value ?? []).map(metricStatusFromLegacy);

  if (metrics.length === 0) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];

  const decodedConditions = decodeAnnotation(
    annotations[V1_ANNOTATIONS.conditions],
    decodeLegacyConditions,
  );
  const conditions = decodedConditions?.value?.map(conditionFromLegacy);

  const v2Spec: HorizontalPodAutoscaler["spec"] = {
    scaleTargetRef: copyRef(spec.scaleTargetRef),
  } as HorizontalPodAutoscaler["spec"];
  if (present(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas;
  v2Spec.metrics = metrics;
  if (behavior !== undefined) v2Spec.behavior = behavior;

  const out: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: withoutRoundTripAnnotations(hpa.metadata),
    spec: v2Spec,
  };
  const v1Status = hpa.status;
  if (present(v1Status) || currentMetrics !== undefined || (conditions?.length ?? 0) > 0) {
    const status = {} as HorizontalPodAutoscalerStatus;
    if (present(v1Status?.observedGeneration))
      status.observedGeneration = v1Status.observedGeneration;
    if (present(v1Status?.lastScaleTime)) status.lastScaleTime = v1Status.lastScaleTime;
    // autoscaling/v2 omits a zero currentReplicas (omitempty).
    if (present(v1Status?.currentReplicas) && v1Status.currentReplicas !== 0) {
      status.currentReplicas = v1Status.currentReplicas;
    }
    status.desiredReplicas = v1Status?.desiredReplicas ?? 0;
    if (currentMetrics !== undefined) status.currentMetrics = currentMetrics;
    // An empty list is omitted (omitempty).
    if (conditions !== undefined && conditions.length > 0) status.conditions = conditions;
    out.status = status;
  }
  return out;
}

// =============================================================================================
// autoscaling/v2beta2 and autoscaling/v2beta1 → autoscaling/v2

function expectObject(v: unknown, what: string): Record<string, unknown> {
  if (!isRecord(v)) throw new ConversionError(`${what} must be an object`);
  return v;
}

function decodeWire<T>(
  decode: Decoder<T>,
  v: unknown,
  version: string,
  path: string,
): T | undefined {
  try {
    return decodeWith(decode, fromWire(v), { caseInsensitive: false }, path);
  } catch (err) {
    if (err instanceof DecodeError) {
      throw new ConversionError(
        `HorizontalPodAutoscaler in version "${version}" cannot be handled as a HorizontalPodAutoscaler: ${err.message}`,
      );
    }
    throw err;
  }
}

function structuredCopy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** autoscaling/v2beta2 → autoscaling/v2: the same shapes, except that v2beta2 has no
 * `tolerance`, which it keeps in the scale-up/scale-down tolerance annotations. */
export function convertV2beta2ToV2(obj: unknown): HorizontalPodAutoscaler {
  const hpa = structuredCopy(expectObject(obj, "HorizontalPodAutoscaler"));
  const metadata = expectObject(hpa.metadata ?? {}, "metadata") as ObjectMeta;
  const spec = expectObject(hpa.spec ?? {}, "spec") as unknown as HorizontalPodAutoscaler["spec"];
  const annotations = metadata.annotations ?? {};

  // v2beta2's HPAScalingRules has no such field: a `tolerance` in the object is not decoded.
  for (const rules of [spec.behavior?.scaleUp, spec.behavior?.scaleDown]) {
    if (isRecord(rules)) delete rules.tolerance;
  }
  for (const [key, direction] of [
    [V1_ANNOTATIONS.scaleDownTolerance, "scaleDown"],
    [V1_ANNOTATIONS.scaleUpTolerance, "scaleUp"],
  ] as const) {
    const text = annotations[key];
    if (typeof text !== "string") continue;
    // resource.ParseQuantity, without UnmarshalJSON's trimming.
    const parsed = Quantity.tryParse(text);
    if (!parsed.ok) {
      throw new ConversionError(
        `failed to parse annotation ${JSON.stringify(key)}: ${parsed.reason}`,
      );
    }
    const tolerance = parsed.quantity.toString();
    spec.behavior ??= {};
    spec.behavior[direction] ??= {};
    spec.behavior[direction].tolerance = tolerance;
  }

  const out: HorizontalPodAutoscaler = {
    ...(hpa as unknown as HorizontalPodAutoscaler),
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: withoutRoundTripAnnotations(metadata),
    spec,
  };
  return out;
}

/** autoscaling/v2beta1 → autoscaling/v2: legacy metric shapes (targetAverageUtilization,
 * targetAverageValue, targetValue, metricName + selector/metricSelector, object `target`),
 * converted as v1's annotations are; `behavior` comes from the behavior annotation. */
export function convertV2beta1ToV2(obj: unknown): HorizontalPodAutoscaler {
  const hpa = expectObject(obj, "HorizontalPodAutoscaler");
  const metadata = expectObject(hpa.metadata ?? {}, "metadata") as ObjectMeta;
  const spec = expectObject(hpa.spec ?? {}, "spec");
  const version = "autoscaling/v2beta1";
  const annotations = metadata.annotations ?? {};

  const v2Spec = {
    scaleTargetRef: copyRef(spec.scaleTargetRef as Partial<CrossVersionObjectReference>),
  } as HorizontalPodAutoscaler["spec"];
  if (present(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas as number;
  v2Spec.maxReplicas = (spec.maxReplicas as number | undefined) ?? 0;
  const metrics = decodeWire(decodeLegacyMetricSpecs, spec.metrics, version, "spec.metrics");
  if (metrics !== undefined) v2Spec.metrics = metrics.map(metricSpecFromLegacy);
  const behavior = behaviorFromAnnotation(annotations[V1_ANNOTATIONS.behavior]);
  if (behavior !== undefined) v2Spec.behavior = behavior;

  const out: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: withoutRoundTripAnnotations(metadata),
    spec: v2Spec,
  };
  if (present(hpa.status)) {
    const s = expectObject(hpa.status, "status");
    const status = {} as HorizontalPodAutoscalerStatus;
    if (present(s.observedGeneration)) status.observedGeneration = s.observedGeneration as number;
    if (present(s.lastScaleTime)) status.lastScaleTime = s.lastScaleTime as string;
    if (present(s.currentReplicas) && s.currentReplicas !== 0) {
      status.currentReplicas = s.currentReplicas as number;
    }
    status.desiredReplicas = (s.desiredReplicas as number | undefined) ?? 0;
    const current = decodeWire(
      decodeLegacyMetricStatuses,
      s.currentMetrics,
      version,
      "status.currentMetrics",
    );
    if (current !== undefined) status.currentMetrics = current.map(metricStatusFromLegacy);
    // v2beta1 conditions already have the v2 shape.
    if (Array.isArray(s.conditions) && s.conditions.length > 0) {
      status.conditions = structuredCopy(s.conditions) as HorizontalPodAutoscalerCondition[];
    }
    out.status = status;
  }
  return out;
}

// =============================================================================================
// reading and writing any version

const KIND = "HorizontalPodAutoscaler";

/** Accepts any served/legacy HPA version by apiVersion and returns autoscaling/v2; v2beta1/v2beta2 give a deprecation warning worded as kube-apiserver's (e.g. "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler"). Unknown apiVersion → error result naming it. */
export function readHorizontalPodAutoscaler(
  obj: unknown,
): { ok: true; value: ReadResult } | { ok: false; error: string } {
  if (!isRecord(obj))
    return { ok: false, error: "a HorizontalPodAutoscaler must be a JSON object" };
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  if (typeof apiVersion !== "string" || apiVersion === "") {
    return { ok: false, error: `Object 'apiVersion' is missing in '${JSON.stringify(obj)}'` };
  }
  if (typeof kind !== "string" || kind === "") {
    return { ok: false, error: `Object 'Kind' is missing in '${JSON.stringify(obj)}'` };
  }
  if (kind !== KIND) {
    return { ok: false, error: `no matches for kind "${kind}" in version "${apiVersion}"` };
  }
  try {
    switch (apiVersion) {
      case "autoscaling/v2": {
        const hpa = structuredCopy(obj) as unknown as HorizontalPodAutoscaler;
        // v2 round-trips without annotations: any left by other versions are dropped.
        hpa.metadata = withoutRoundTripAnnotations(hpa.metadata);
        return { ok: true, value: { hpa, warnings: [] } };
      }
      case "autoscaling/v1": {
        expectObject(obj.spec ?? {}, "spec");
        const v1 = { ...obj, spec: obj.spec ?? {} } as unknown as HorizontalPodAutoscalerV1;
        return { ok: true, value: { hpa: convertV1ToV2(v1), warnings: [] } };
      }
      case "autoscaling/v2beta2":
        return {
          ok: true,
          value: { hpa: convertV2beta2ToV2(obj), warnings: [DEPRECATION_WARNINGS[apiVersion]] },
        };
      case "autoscaling/v2beta1":
        return {
          ok: true,
          value: { hpa: convertV2beta1ToV2(obj), warnings: [DEPRECATION_WARNINGS[apiVersion]] },
        };
      default:
        return { ok: false, error: `no matches for kind "${kind}" in version "${apiVersion}"` };
    }
  } catch (err) {
    if (err instanceof ConversionError) return { ok: false, error: err.message };
    throw err;
  }
}

/** The object as served in `apiVersion`. autoscaling/v2 carries no round-trip annotations. */
export function writeHorizontalPodAutoscaler(
  hpa: HorizontalPodAutoscaler,
  apiVersion: "autoscaling/v1" | "autoscaling/v2",
): unknown {
  if (apiVersion === "autoscaling/v1") return convertV2ToV1(hpa);
  const out = structuredCopy(hpa);
  return {
    ...out,
    apiVersion: "autoscaling/v2",
    kind: KIND,
    metadata: withoutRoundTripAnnotations(out.metadata),
  };
}
