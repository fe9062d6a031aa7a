// metav1.Time and metav1.MicroTime as kube-apiserver decodes and re-encodes them
// (k8s.io/apimachinery/pkg/apis/meta/v1 time.go, micro_time.go): a body is decoded with Go's
// `time.Parse(time.RFC3339, s)` (Time: any fractional digits, or none) or
// `time.Parse(RFC3339Micro, s)` (MicroTime: exactly six fractional digits), and the stored object
// is written back in UTC at second precision (Time) or with six fractional digits (MicroTime);
// the zero instant is written as `null`. A value Go cannot parse fails the whole decode with
// Go's `*time.ParseError` text, which the API server wraps in a 400 BadRequest.
import { isRecord } from "../api/json.js";
import { kindDefinition } from "../kinds/registry.js";
import { jsonFields, type SchemaNode } from "../kinds/schema.js";
import { type ApiError, badRequest, invalid } from "./errors.js";

/** Go's layouts: `time.RFC3339` and apimachinery's `RFC3339Micro`. */
export const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";
export const RFC3339_MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

export type TimeType = "Time" | "MicroTime";

/**
 * Where an object's Time/MicroTime fields are (a view of its kind's schema tree). A `*` type is
 * a pointer field: JSON null decodes to nil and is omitted on output; a value field is written
 * as null.
 */
export type TimeLeaf = TimeType | "*Time" | "*MicroTime";
export type TimeTree = { [field: string]: TimeTree | TimeLeaf | [TimeTree] };

const timeTrees = new WeakMap<SchemaNode, TimeTree | TimeLeaf | [TimeTree] | null>();

/** The Time fields below a schema node (deduced parts included, by their shape); null: none. */
export function timeTreeOf(node: SchemaNode): TimeTree | TimeLeaf | [TimeTree] | null {
  const cached = timeTrees.get(node);
  if (cached !== undefined) return cached;
  let view: TimeTree | TimeLeaf | [TimeTree] | null = null;
  switch (node.kind) {
    case "scalar":
      if (node.type === "Time" || node.type === "MicroTime")
        view = node.ptr ? `*${node.type}` : node.type;
      break;
    case "deduced":
      view = node.shape ? timeTreeOf(node.shape) : null;
      break;
    case "struct": {
      const fields = jsonFields(node).flatMap(([k, v]) => {
        const sub = timeTreeOf(v);
        return sub === null ? [] : [[k, sub] as const];
      });
      view = fields.length > 0 ? Object.fromEntries(fields) : null;
      break;
    }
    case "list": {
      const item = timeTreeOf(node.element);
      if (item !== null && typeof item === "object" && !Array.isArray(item)) view = [item];
      break;
    }
    case "map":
      break;
  }
  timeTrees.set(node, view);
  return view;
}

/** An instant: Unix seconds (integer) and nanoseconds within the second. */
export interface Instant {
  sec: number;
  nsec: number;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

/** Unix seconds of Go's zero time.Time (0001-01-01T00:00:00Z): IsZero, marshalled as null. */
const ZERO_SEC = -62135596800;

// Go's time package quote(): ASCII stays (with \" and \\ escaped), other bytes become \xNN.
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x80 || cp < 0x20) {
      for (const byte of Buffer.from(ch, "utf8")) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else {
      if (ch === '"' || ch === "\\") out += "\\";
      out += ch;
    }
  }
  return `${out}"`;
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | null {
  if (!isDigit(s, 0)) return null;
  if (!isDigit(s, 1)) return fixed ? null : { n: s.charCodeAt(0) - 48, rest: s.slice(1) };
  return { n: (s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), rest: s.slice(2) };
}

/** Go's time.atoi: an optional sign and digits only ("" and "-" are 0). */
function atoi(s: string): number | null {
  let neg = false;
  let digits = s;
  if (digits !== "" && (digits[0] === "-" || digits[0] === "+")) {
    neg = digits[0] === "-";
    digits = digits.slice(1);
  }
  if (!/^[0-9]*$/.test(digits)) return null;
  const n = digits === "" ? 0 : Number(digits);
  return neg ? -n : n;
}

function commaOrPeriod(c: string | undefined): boolean {
  return c === "." || c === ",";
}

/** Go's parseNanoseconds over `value[0:nbytes]` (separator included). */
function parseNanoseconds(value: string, nbytes: number): { ns: number } | "bad" | "range" {
  if (!commaOrPeriod(value[0])) return "bad";
  const n = Math.min(nbytes, 10);
  const ns = atoi(value.slice(1, n));
  if (ns === null) return "bad";
  if (ns < 0) return "range";
  return { ns: ns * 10 ** (10 - n) };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * `time.Parse(layout, value)` for the two layouts Kubernetes uses, with Go's error texts:
 * `parsing time "X" as "LAYOUT": cannot parse "REST" as "ELEM"` or `parsing time "X": month
 * out of range`.
 */
export function parseGoTime(type: TimeType, value: string): Decoded<Instant> {
  const micro = type === "MicroTime";
  const layout = micro ? RFC3339_MICRO_LAYOUT : RFC3339_LAYOUT;
  const cannot = (rest: string, elem: string): Decoded<Instant> => ({
    ok: false,
    error: `parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(rest)} as ${timeQuote(elem)}`,
  });
  const outOfRange = (what: string): Decoded<Instant> => ({
    ok: false,
    error: `parsing time ${timeQuote(value)}: ${what} out of range`,
  });
  let rest = value;
  const literal = (prefix: string): boolean => {
    if (!rest.startsWith(prefix)) return false;
    rest = rest.slice(prefix.length);
    return true;
  };

  // 2006
  if (rest.length < 4 || !isDigit(rest, 0)) return cannot(rest, "2006");
  const year = atoi(rest.slice(0, 4));
  if (year === null) return cannot(rest, "2006");
  rest = rest.slice(4);
  // -01
  if (!literal("-")) return cannot(rest, "-");
  const month = getnum(rest, true);
  if (!month) return cannot(rest, "01");
  if (month.n < 1 || month.n > 12) return outOfRange("month");
  rest = month.rest;
  // -02 (validated against the month at the end, as Go does)
  if (!literal("-")) return cannot(rest, "-");
  const day = getnum(rest, true);
  if (!day) return cannot(rest, "02");
  rest = day.rest;
  // T15 (one digit is enough for Go's stdHour)
  if (!literal("T")) return cannot(rest, "T");
  const hour = getnum(rest, false);
  if (!hour) return cannot(rest, "15");
  if (hour.n >= 24) return outOfRange("hour");
  rest = hour.rest;
  // :04
  if (!literal(":")) return cannot(rest, ":");
  const minute = getnum(rest, true);
  if (!minute) return cannot(rest, "04");
  if (minute.n >= 60) return outOfRange("minute");
  rest = minute.rest;
  // :05
  if (!literal(":")) return cannot(rest, ":");
  const second = getnum(rest, true);
  if (!second) return cannot(rest, "05");
  if (second.n >= 60) return outOfRange("second");
  rest = second.rest;
  let nsec = 0;
  if (micro) {
    // `.000000` wants exactly six digits after a period or comma.
    if (rest.length < 7) return cannot(rest, ".000000");
    const frac = parseNanoseconds(rest, 7);
    if (frac === "bad") return cannot(rest, ".000000");
    if (frac === "range") return outOfRange("fractional second");
    nsec = frac.ns;
    rest = rest.slice(7);
  } else if (rest.length >= 2 && commaOrPeriod(rest[0]) && isDigit(rest, 1)) {
    // No fraction in the layout: Go still takes any number of fractional digits here.
    let n = 2;
    while (n < rest.length && isDigit(rest, n)) n++;
    const frac = parseNanoseconds(rest, n);
    if (frac === "bad") return cannot(rest, "05");
    if (frac === "range") return outOfRange("fractional second");
    nsec = frac.ns;
    rest = rest.slice(n);
  }
  // Z07:00
  let offset = 0;
  if (rest.startsWith("Z")) rest = rest.slice(1);
  else {
    if (rest.length < 6 || rest[3] !== ":") return cannot(rest, "Z07:00");
    const hh = getnum(rest.slice(1, 3), true);
    const mm = getnum(rest.slice(4, 6), true);
    if (!hh || !mm) return cannot(rest, "Z07:00");
    if (mm.n > 60) return outOfRange("time zone offset minute");
    if (hh.n > 24) return outOfRange("time zone offset hour");
    if (rest[0] !== "+" && rest[0] !== "-") return cannot(rest, "Z07:00");
    offset = (hh.n * 60 + mm.n) * 60 * (rest[0] === "-" ? -1 : 1);
    rest = rest.slice(6);
  }
  if (rest !== "") {
    return { ok: false, error: `parsing time ${timeQuote(value)}: extra text: ${timeQuote(rest)}` };
  }
  if (day.n < 1 || day.n > daysIn(month.n, year)) return outOfRange("day");
  const date = new Date(0);
  date.setUTCFullYear(year, month.n - 1, day.n);
  date.setUTCHours(hour.n, minute.n, second.n, 0);
  return { ok: true, value: { sec: date.getTime() / 1000 - offset, nsec } };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `t.UTC().Format(layout)`: seconds (Time, truncated) or six fractional digits (MicroTime). */
export function formatGoTime(type: TimeType, instant: Instant): string {
  const date = new Date(instant.sec * 1000);
  const y = date.getUTCFullYear();
  const year = y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
  const base = `${year}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`;
  if (type === "Time") return `${base}Z`;
  return `${base}.${pad(Math.floor(instant.nsec / 1000), 6)}Z`;
}

/**
 * One JSON value decoded as Time/MicroTime and encoded back: the string kube-apiserver stores
 * and serves, `null` for JSON null and for the zero instant, or Go's decode error.
 */
export function normalizeTimeValue(type: TimeType, raw: unknown): Decoded<string | null> {
  if (raw === null) return { ok: true, value: null };
  if (typeof raw !== "string") {
    // UnmarshalJSON first decodes a Go string: encoding/json's UnmarshalTypeError.
    const what =
      typeof raw === "number"
        ? "number"
        : typeof raw === "boolean"
          ? "bool"
          : Array.isArray(raw)
            ? "array"
            : "object";
    return { ok: false, error: `json: cannot unmarshal ${what} into Go value of type string` };
  }
  const parsed = parseGoTime(type, raw);
  if (!parsed.ok) return parsed;
  if (parsed.value.sec === ZERO_SEC && parsed.value.nsec === 0) return { ok: true, value: null };
  return { ok: true, value: formatGoTime(type, parsed.value) };
}

/**
 * The object with every Time/MicroTime field of its kind decoded and re-encoded as
 * kube-apiserver stores it; the first field Go cannot decode (in document order, as
 * encoding/json stops there) gives the error. Copies only what changes; the input is untouched.
 */
export function normalizeTimes<T>(kind: string, object: T): Decoded<T> {
  // The Go types of the preferred version (the others' Time fields are at the same paths).
  const schema = kindDefinition(kind)?.versions[0]?.schema;
  const tree = schema && timeTreeOf(schema);
  if (!tree || typeof tree !== "object" || Array.isArray(tree)) return { ok: true, value: object };
  return walk(object, tree) as Decoded<T>;
}

function walk(value: unknown, tree: TimeTree | [TimeTree]): Decoded<unknown> {
  if (Array.isArray(tree)) {
    if (!Array.isArray(value)) return { ok: true, value };
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = walk(value[i], tree[0]);
      if (!item.ok) return item;
      if (item.value !== value[i]) {
        out ??= [...value];
        out[i] = item.value;
      }
    }
    return { ok: true, value: out ?? value };
  }
  if (!isRecord(value)) return { ok: true, value };
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const sub = tree[key];
    if (sub === undefined) continue;
    const child = value[key];
    if (typeof sub === "string") {
      const pointer = sub.startsWith("*");
      const type = (pointer ? sub.slice(1) : sub) as TimeType;
      // A JSON null into a pointer is nil (omitted); into a value, the zero time (null).
      if (child === null && pointer) {
        out ??= { ...value };
        delete out[key];
        continue;
      }
      const decoded = normalizeTimeValue(type, child);
      if (!decoded.ok) return decoded;
      if (decoded.value !== child) {
        out ??= { ...value };
        out[key] = decoded.value;
      }
      continue;
    }
    const nested = walk(child, sub);
    if (!nested.ok) return nested;
    if (nested.value !== child) {
      out ??= { ...value };
      out[key] = nested.value;
    }
  }
  return { ok: true, value: out ?? value };
}

/** Go's `fmt.Sprintf("%+v", patchMap)` of a decoded JSON patch (map keys sorted). */
export function goMapString(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goMapString).join(" ")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goMapString(value[k])}`).join(" ")}]`;
  }
  if (typeof value === "number") return goFloat(value);
  return String(value);
}

/** `%v` of a float64 (JSON numbers decode to float64): shortest %g, exponent from 1e+06 on. */
function goFloat(n: number): string {
  if (n === 0) return "0";
  const [mantissa, expText] = n.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

export interface TimeDecodeContext {
  kind: string;
  /** The version the body was decoded in (`v1`, `v2`). */
  version: string;
  /**
   * Set when the object came out of a PATCH: its media type, the patch as sent (decoded) and
   * the patched object that failed to decode.
   */
  patch?: { contentType: string; body: unknown; patched: unknown };
}

/**
 * The Status kube-apiserver answers when an object's body fails to decode: a create or update
 * gets transformDecodeError's 400 (`Lease in version "v1" cannot be handled as a Lease: ...`);
 * a JSON or merge patch a 422 on `patch` carrying the patched object as JSON, a strategic
 * merge patch the same with the patch map as Go prints it (handlers/patch.go); an apply patch
 * a 400.
 */
export function timeDecodeFailure(context: TimeDecodeContext, error: string): ApiError {
  const patch = context.patch;
  if (
    patch &&
    (patch.contentType === "application/json-patch+json" ||
      patch.contentType === "application/merge-patch+json" ||
      patch.contentType === "application/strategic-merge-patch+json")
  ) {
    const badValue =
      patch.contentType === "application/strategic-merge-patch+json"
        ? goMapString(patch.body)
        : JSON.stringify(patch.patched);
    return invalid({ resource: "", group: "", kind: "" }, "", [
      { type: "FieldValueInvalid", field: "patch", badValue, detail: error },
    ]);
  }
  return badRequest(
    `${context.kind} in version ${JSON.stringify(context.version)} cannot be handled as a ${context.kind}: ${error}`,
  );
}
