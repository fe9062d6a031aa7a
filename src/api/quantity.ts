// resource.Quantity as Kubernetes v1.34 has it (k8s.io/apimachinery/pkg/api/resource), exact and
// immutable. The value is `unscaled × 10^scale` with a BigInt `unscaled`; no float ever holds it.
//
// Upstream keeps a quantity in one of two representations, and several observable results depend
// on which one a value is in, so this class records it (`#dec`):
//   - int64Amount {value, scale}: what ParseQuantity's fast path and NewQuantity/NewMilliQuantity/
//     NewScaledQuantity build, and what Add/Sub keep while nothing overflows int64;
//   - inf.Dec {unscaled, scale}: ParseQuantity's slow path (more than 18 digits, finer than nano, a
//     fraction of a binary suffix, Pi/Ei) and every Add/Sub that overflowed or involved an inf.Dec.
// The representation decides AsApproximateFloat64 (`base × math.Pow10(exponent)`: "0.3" is
// 0.30000000000000004 but "300m" is 0.3) and how MilliValue/Value round negative values.
//
// Deliberate differences from upstream, all outside int64 where upstream's results are undefined:
//   - milliValue()/value()/scaledValue() return the exact BigInt. Upstream v1.34 does not saturate:
//     past int64 it wraps or returns 0 ("an overflowed result is undefined and must not be used").
//     Beyond 10^MAX_EXPONENT these accessors saturate at ±10^MAX_EXPONENT.
//   - fromInt/fromMilli/fromScaled accept values outside int64 (kept as inf.Dec).
//   - negating or subtracting an int64 of -2^63 gives the exact result (v1.34 wraps it; fixed upstream later).
//   - numbers needing more than 10^MAX_EXPONENT to be written out exactly are refused at parse time
//     (upstream would allocate them) and make add/sub throw a RangeError.

/**
 * Plain `<digits><suffix>` quantities, what metrics-server writes (`12345678n`, `2048Ki`): 1 to
 * 15 digits and one of these suffixes, read by a scan (no regular expression: a metrics list has
 * 100,000 of them) and worked out by exact integer arithmetic. Signs, fractions, exponents,
 * spaces and values past 2^53 go through the parser.
 */
function simpleMilliValue(input: string): number | null {
  let digits = 0;
  let value = 0;
  while (digits < input.length) {
    const c = input.charCodeAt(digits);
    if (c < 48 || c > 57) break;
    value = value * 10 + (c - 48);
    digits++;
  }
  if (digits === 0 || digits > 15) return null;
  const factor = milliPerUnit(input, digits);
  if (factor === 0) return null;
  let milli: number;
  if (factor > 0) milli = value * factor;
  else {
    const rest = value % -factor;
    milli = (value - rest) / -factor + (rest > 0 ? 1 : 0);
  }
  return Number.isSafeInteger(milli) ? milli : null;
}

/**
 * Milli-units per unit of the suffix at `at` (to the end), negative for units per milli-unit
 * (n, u), 0 for a suffix the fast path does not take.
 */
function milliPerUnit(input: string, at: number): number {
  const left = input.length - at;
  if (left === 0) return 1000;
  const c = input.charCodeAt(at);
  if (left === 2) {
    if (input.charCodeAt(at + 1) !== 105 /* i */) return 0;
    if (c === 75 /* K */) return 1024 * 1000;
    if (c === 77 /* M */) return 1024 ** 2 * 1000;
    if (c === 71 /* G */) return 1024 ** 3 * 1000;
    return 0;
  }
  if (left !== 1) return 0;
  switch (c) {
    case 110 /* n */:
      return -1_000_000;
    case 117 /* u */:
      return -1000;
    case 109 /* m */:
      return 1;
    case 107 /* k */:
      return 1e6;
    case 77 /* M */:
      return 1e9;
    case 71 /* G */:
      return 1e12;
    default:
      return 0;
  }
}

/** Quantity.tryParseJSON(input)'s milliValue() (rounded up, as MilliValue), or null when it does not parse. */
export function milliValueOfJSON(input: unknown): bigint | null {
  if (typeof input === "string") {
    const simple = simpleMilliValue(input);
    if (simple !== null) return BigInt(simple);
  }
  const parsed = Quantity.tryParseJSON(input);
  return parsed.ok ? parsed.quantity.milliValue() : null;
}

/** milliValueOfJSON as a number (no BigInt made for a plain quantity), or null. */
export function milliNumberOfJSON(input: unknown): number | null {
  if (typeof input === "string") {
    const simple = simpleMilliValue(input);
    if (simple !== null) return simple;
  }
  const milli = milliValueOfJSON(input);
  return milli === null ? null : Number(milli);
}

/** How a quantity is printed: `12Mi` (BinarySI), `12M` (DecimalSI) or `12e6` (DecimalExponent). */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** The three error texts of upstream ParseQuantity (ErrFormatWrong, ErrNumeric, ErrSuffix). */
export const QuantityErrorReason = {
  formatWrong:
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  numeric: "unable to parse numeric part of quantity",
  suffix: "unable to parse quantity's suffix",
} as const;

/** A string that is not a quantity. `reason` is the upstream error text, `message` adds the input. */
export class QuantityParseError extends Error {
  readonly input: string;
  readonly reason: string;
  constructor(input: string, reason: string) {
    super(`${reason}: ${JSON.stringify(input)}`);
    this.name = "QuantityParseError";
    this.input = input;
    this.reason = reason;
  }
}

export type QuantityParseResult =
  | { ok: true; quantity: Quantity }
  | { ok: false; error: string; reason: string };

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const fitsInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;

/** Largest power of ten this module writes out as a BigInt (upstream has no limit but memory). */
export const MAX_EXPONENT = 100_000;

const NANO = -9;
const MILLI = -3;

const POW10: bigint[] = [];
for (let i = 0, p = 1n; i <= 40; i++, p *= 10n) POW10.push(p);

function pow10(k: number): bigint {
  const cached = POW10[k];
  if (cached !== undefined) return cached;
  if (k > MAX_EXPONENT) {
    throw new RangeError(`quantity needs 10^${k}, more than the supported 10^${MAX_EXPONENT}`);
  }
  return 10n ** BigInt(k);
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);
const digitCount = (v: bigint): number => (v === 0n ? 0 : abs(v).toString().length);
const cmpBig = (a: bigint, b: bigint): -1 | 0 | 1 => (a < b ? -1 : a > b ? 1 : 0);

/** Exact comparison of u1×10^e1 and u2×10^e2, without writing out far-apart powers of ten. */
function compareExact(u1: bigint, e1: number, u2: bigint, e2: number): -1 | 0 | 1 {
  const s1 = u1 < 0n ? -1 : u1 > 0n ? 1 : 0;
  const s2 = u2 < 0n ? -1 : u2 > 0n ? 1 : 0;
  if (s1 !== s2) return s1 < s2 ? -1 : 1;
  if (s1 === 0) return 0;
  if (e1 === e2) return cmpBig(u1, u2);
  if (Math.abs(e1 - e2) > 40) {
    // |u|×10^e lies in [10^(o-1), 10^o) with o = digits + e.
    const o1 = digitCount(u1) + e1;
    const o2 = digitCount(u2) + e2;
    if (o1 !== o2) return ((o1 > o2 ? 1 : -1) * s1) as -1 | 1;
    // Same order of magnitude: the exponent gap is at most the digit-count gap, so aligning is cheap.
  }
  const e = Math.min(e1, e2);
  return cmpBig(u1 * pow10(e1 - e), u2 * pow10(e2 - e));
}

// ---- Go math.Pow10, bit for bit: AsApproximateFloat64 multiplies by it. ----
const POW10_TAB: number[] = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32: number[] = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32: number[] = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return (POW10_POS32[n >>> 5] as number) * (POW10_TAB[n & 31] as number);
  if (n < 0 && n >= -323) return (POW10_NEG32[-n >>> 5] as number) / (POW10_TAB[-n & 31] as number);
  return n > 0 ? Number.POSITIVE_INFINITY : 0;
}

// ---- suffixes (suffix.go) ----
const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const DECIMAL_SUFFIX_OF: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]),
);
const BINARY_SUFFIX_OF: ReadonlyMap<number, string> = new Map(
  [...BINARY_SUFFIXES].map(([s, e]) => [e / 10, s]),
);

interface Suffix {
  base: 10 | 2;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(s: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(s);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIXES.get(s);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  // "e<int>" / "E<int>": strconv.ParseInt(s[1:], 10, 64), then truncated to int32 as upstream does.
  if (s.length > 1 && (s[0] === "e" || s[0] === "E")) {
    const rest = s.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const parsed = BigInt(rest);
    if (!fitsInt64(parsed)) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

// ---- the scanner of upstream parseQuantityString, re-derived ----
interface Scanned {
  positive: boolean;
  /** Integer digits without leading zeros, "0" when none are left. */
  num: string;
  /** Fraction digits as written. */
  denom: string;
  suffix: string;
  /** Whether the numeric part has a digit at all (inf.Dec.SetString needs one). */
  hasDigit: boolean;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const SUFFIX_LETTERS = "eEinumkKMGTP";

function scanQuantity(str: string): Scanned | undefined {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") {
    pos++;
  }
  const zerosStart = pos;
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) {
    return { positive, num: "0", denom: "", suffix: "", hasDigit: true };
  }
  let hasDigit = pos > zerosStart;
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  let num = str.slice(numStart, pos);
  if (num.length > 0) hasDigit = true;
  if (pos >= end) return { positive, num, denom: "", suffix: "", hasDigit };
  if (num.length === 0) num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (denom.length > 0) hasDigit = true;
    if (pos >= end) return { positive, num, denom, suffix: "", hasDigit };
  }
  // Suffix: letters, then an optional sign and digits (checked by interpretSuffix later).
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos] as string)) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return undefined;
  return { positive, num, denom, suffix: str.slice(suffixStart), hasDigit };
}

/** What ParseQuantity builds, before it becomes a Quantity. */
interface Parsed {
  unscaled: bigint;
  scale: number;
  dec: boolean;
  format: QuantityFormat;
  kept: string | undefined;
}

/** ParseQuantity: the parsed value, or the upstream error text. */
function parseQuantity(str: string): Parsed | string {
  if (str.length === 0) return QuantityErrorReason.formatWrong;
  if (str === "0") return { unscaled: 0n, scale: 0, dec: false, format: "DecimalSI", kept: str };
  const scanned = scanQuantity(str);
  if (scanned === undefined) return QuantityErrorReason.formatWrong;
  const { positive, num, denom } = scanned;
  const suffix = interpretSuffix(scanned.suffix);
  if (suffix === undefined) return QuantityErrorReason.suffix;
  let format = suffix.format;

  // Fast path: an int64Amount when the digits certainly fit and the value is not finer than nano.
  let scale = 0;
  let precision: number;
  let multiplier = 1n;
  if (suffix.base === 10) {
    scale = suffix.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (denom.length === 0) {
    multiplier = 1n << BigInt(suffix.exponent);
    // upstream: 15 - len(num) - int32(float32(exponent)*3/10) - 1
    precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale = (scale - denom.length) | 0;
    if (scale >= NANO) {
      const shifted = num + denom;
      const digits = BigInt(shifted);
      let result = digits * multiplier;
      if (fitsInt64(result)) {
        if (!positive) result = -result;
        // Upstream keeps the input as the String() of a parse it deems canonical, even "+1k",
        // "01k" or "1.500k" (the check only looks at the shifted digits and the scale).
        const keep =
          format === "BinarySI"
            ? suffix.exponent % 10 === 0 && (digits & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return { unscaled: result, scale, dec: false, format, kept: keep ? str : undefined };
      }
    }
  }

  // Slow path: inf.Dec.
  if (!scanned.hasDigit) return QuantityErrorReason.numeric;
  let unscaled = BigInt(num + denom);
  let exponent: number;
  if (suffix.base === 10) {
    exponent = -((denom.length - suffix.exponent) | 0);
  } else {
    exponent = -denom.length;
    unscaled *= 1n << BigInt(suffix.exponent);
  }
  if (unscaled !== 0n) {
    // Round the magnitude up to a whole number of nanos ("0.1n" is "1n"): inf.Dec.Round to
    // scale 9, which also rescales coarser values to nano (unscaled × 10^(exponent+9)).
    if (exponent >= NANO) {
      if (exponent - NANO > MAX_EXPONENT) return `quantity too large: more than 10^${MAX_EXPONENT}`;
      unscaled *= pow10(exponent - NANO);
    } else {
      const shift = NANO - exponent;
      if (shift > digitCount(unscaled)) {
        unscaled = 1n;
      } else {
        const d = pow10(shift);
        unscaled = unscaled / d + (unscaled % d === 0n ? 0n : 1n);
      }
    }
    exponent = NANO;
  }
  if (format === "BinarySI") {
    // BinarySI is capped, silently, at 2^63-1 ("8Ei" parses as 2^63-1).
    if (compareExact(unscaled, exponent, INT64_MAX, 0) > 0) {
      unscaled = INT64_MAX;
      exponent = 0;
    }
    if (unscaled !== 0n && compareExact(unscaled, exponent, 1n, 0) < 0) format = "DecimalSI";
  }
  if (!positive) unscaled = -unscaled;
  return { unscaled, scale: exponent, dec: true, format, kept: undefined };
}

// Go's unicode.IsSpace, which strings.TrimSpace uses in UnmarshalJSON.
const GO_SPACE =
  "[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

function checkScale(scale: number): void {
  if (!Number.isInteger(scale) || scale < -2147483648 || scale > 2147483647) {
    throw new RangeError(`quantity scale must be an int32, got ${scale}`);
  }
}

function toBigInt(value: bigint | number, what: string): bigint {
  if (typeof value === "bigint") return value;
  if (!Number.isInteger(value)) throw new RangeError(`${what} must be an integer, got ${value}`);
  return BigInt(value);
}

function describe(input: unknown): string {
  if (typeof input === "string") return input;
  if (typeof input === "number" || typeof input === "boolean" || typeof input === "bigint") {
    return String(input);
  }
  if (input === null) return "null";
  if (input === undefined) return "undefined";
  try {
    return JSON.stringify(input) ?? typeof input;
  } catch {
    return typeof input;
  }
}

export class Quantity {
  readonly format: QuantityFormat;
  /** The value is #unscaled × 10^#scale. */
  readonly #unscaled: bigint;
  readonly #scale: number;
  /** Upstream holds this value as an inf.Dec (else as an int64Amount). */
  readonly #dec: boolean;
  /** The string upstream remembers from parsing, returned by String() as is. */
  readonly #parsed: string | undefined;
  #milli: bigint | undefined;
  #value: bigint | undefined;
  #canonicalText: string | undefined;

  private constructor(
    unscaled: bigint,
    scale: number,
    dec: boolean,
    format: QuantityFormat,
    parsed: string | undefined,
  ) {
    this.#unscaled = unscaled;
    this.#scale = scale;
    this.#dec = dec;
    this.format = format;
    this.#parsed = parsed;
  }

  static #fromParsed(p: Parsed): Quantity {
    return new Quantity(p.unscaled, p.scale, p.dec, p.format, p.kept);
  }

  /**
   * ParseQuantity for a string. A number is taken as a JSON number is by UnmarshalJSON, through
   * its shortest decimal text (String(n)); upstream sees the original JSON text, so `1e3` written
   * in JSON stays DecimalExponent there but arrives here as 1000 ("1k").
   */
  static parse(input: string | number): Quantity {
    const text = typeof input === "number" ? String(input) : input;
    const parsed = parseQuantity(text);
    if (typeof parsed === "string") throw new QuantityParseError(text, parsed);
    return Quantity.#fromParsed(parsed);
  }

  /** Like parse, with the failure as data; anything but a string or number fails. */
  static tryParse(input: unknown): QuantityParseResult {
    if (typeof input !== "string" && typeof input !== "number") {
      const reason = QuantityErrorReason.formatWrong;
      return { ok: false, error: new QuantityParseError(describe(input), reason).message, reason };
    }
    const text = typeof input === "number" ? String(input) : input;
    const parsed = parseQuantity(text);
    if (typeof parsed === "string") {
      return { ok: false, error: new QuantityParseError(text, parsed).message, reason: parsed };
    }
    return { ok: true, quantity: Quantity.#fromParsed(parsed) };
  }

  /** UnmarshalJSON: like tryParse, but a string is first trimmed of Go white space (" 1" is 1). */
  static tryParseJSON(input: unknown): QuantityParseResult {
    return Quantity.tryParse(typeof input === "string" ? input.replace(GO_TRIM, "") : input);
  }

  /** NewQuantity(value, format). */
  static fromInt(value: bigint | number, format: QuantityFormat = "DecimalSI"): Quantity {
    const v = toBigInt(value, "quantity value");
    return new Quantity(v, 0, !fitsInt64(v), format, undefined);
  }

  /** NewMilliQuantity(value, format): value / 1000. */
  static fromMilli(milli: bigint | number, format: QuantityFormat = "DecimalSI"): Quantity {
    const v = toBigInt(milli, "quantity milli-value");
    return new Quantity(v, MILLI, !fitsInt64(v), format, undefined);
  }

  /** NewScaledQuantity(value, scale): value × 10^scale (upstream always DecimalSI). */
  static fromScaled(
    value: bigint | number,
    scale: number,
    format: QuantityFormat = "DecimalSI",
  ): Quantity {
    checkScale(scale);
    const v = toBigInt(value, "quantity value");
    return new Quantity(v, scale, !fitsInt64(v), format, undefined);
  }

  /** The exact value: unscaled × 10^scale (not normalized). */
  exactValue(): { unscaled: bigint; scale: number } {
    return { unscaled: this.#unscaled, scale: this.#scale };
  }

  /** MilliValue(): the value in thousandths, rounded as upstream does (see scaledValue). */
  milliValue(): bigint {
    if (this.#milli === undefined) this.#milli = this.#scaled(MILLI);
    return this.#milli;
  }

  /** Value(): the value rounded to a whole number as upstream does (see scaledValue). */
  value(): bigint {
    if (this.#value === undefined) this.#value = this.#scaled(0);
    return this.#value;
  }

  /**
   * ScaledValue(scale): the value in units of 10^scale. Rounding follows upstream exactly:
   * positive values round up; negative int64Amount values round away from zero ("-1n" has
   * milli-value -1); negative inf.Dec values go through upstream's scaledValue, which truncates
   * and then adds one ("-0.5n" has milli-value 1), or takes the ceiling when the unscaled value
   * does not fit int64 or the shift is 19 digits or more.
   */
  scaledValue(scale: number): bigint {
    checkScale(scale);
    return this.#scaled(scale);
  }

  #scaled(scale: number): bigint {
    const u = this.#unscaled;
    const e = this.#scale;
    if (u === 0n) return 0n;
    if (e >= scale) {
      const up = e - scale;
      if (up > MAX_EXPONENT) return u > 0n ? pow10(MAX_EXPONENT) : -pow10(MAX_EXPONENT);
      return u * pow10(up);
    }
    const down = scale - e;
    if (!this.#dec) {
      // int64Amount.AsScaledInt64 → negativeScaleInt64: away from zero.
      if (down >= 19) return u > 0n ? 1n : -1n; // |u| < 10^19
      const d = pow10(down);
      const q = u / d;
      if (u % d === 0n) return q;
      return u > 0n ? q + 1n : q - 1n;
    }
    // scale_int.go scaledValue on an inf.Dec.
    if (abs(u) < INT64_MAX && down < 19) {
      const d = pow10(down);
      const q = u / d; // Go int64 division truncates
      return u % d === 0n ? q : q + 1n;
    }
    if (down >= digitCount(u)) return u > 0n ? 1n : 0n; // floor is 0 or -1, remainder non-zero
    const d = pow10(down);
    let q = u / d;
    const r = u % d;
    if (r !== 0n && u < 0n) q -= 1n; // big.Int.DivMod is Euclidean: floor for a positive divisor
    return r === 0n ? q : q + 1n;
  }

  sign(): -1 | 0 | 1 {
    return this.#unscaled < 0n ? -1 : this.#unscaled > 0n ? 1 : 0;
  }

  isZero(): boolean {
    return this.#unscaled === 0n;
  }

  /** Cmp: exact comparison of the values (format is ignored). */
  cmp(other: Quantity): -1 | 0 | 1 {
    return compareExact(this.#unscaled, this.#scale, other.#unscaled, other.#scale);
  }

  /** Equal: same value, whatever the format or representation. */
  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** Add: the sum; when this is zero the result takes the other's format. */
  add(other: Quantity): Quantity {
    return this.#combine(other, other.#unscaled, other.#dec);
  }

  /** Sub: the difference; when this is zero the result takes the other's format. */
  sub(other: Quantity): Quantity {
    // int64Amount.Sub adds the negated int64; -(-2^63) does not fit, so go to inf.Dec.
    const dec = other.#dec || other.#unscaled === INT64_MIN;
    return this.#combine(other, -other.#unscaled, dec);
  }

  #combine(other: Quantity, otherUnscaled: bigint, otherDec: boolean): Quantity {
    const format = this.#unscaled === 0n ? other.format : this.format;
    const au = this.#unscaled;
    const ae = this.#scale;
    const bu = otherUnscaled;
    const be = other.#scale;
    if (!this.#dec && !otherDec) {
      const sum = addInt64Amounts(au, ae, bu, be);
      if (sum !== undefined) return new Quantity(sum.unscaled, sum.scale, false, format, undefined);
    }
    // inf.Dec.Add/Sub: aligned at the finer scale.
    const e = Math.min(ae, be);
    return new Quantity(au * pow10(ae - e) + bu * pow10(be - e), e, true, format, undefined);
  }

  /** Neg: the negated value, same format. */
  neg(): Quantity {
    const u = this.#unscaled;
    return new Quantity(-u, this.#scale, this.#dec || u === INT64_MIN, this.format, undefined);
  }

  /** AsApproximateFloat64: float64(unscaled) × math.Pow10(exponent) of upstream's representation. */
  asApproximateFloat64(): number {
    const base = Number(this.#unscaled);
    return this.#scale === 0 ? base : base * goPow10(this.#scale);
  }

  /**
   * String() / MarshalJSON: the string kept from parsing when upstream keeps it, otherwise the
   * canonical form.
   */
  toString(): string {
    return this.#parsed ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  /** CanonicalizeBytes: the canonical form, ignoring any string kept from parsing. */
  canonical(): string {
    if (this.#canonicalText === undefined) this.#canonicalText = this.#format();
    return this.#canonicalText;
  }

  #format(): string {
    const u = this.#unscaled;
    if (u === 0n) return "0";
    let format = this.format;
    if (format === "BinarySI") {
      // Between -1024 and 1024, or not a whole number: printed as DecimalSI.
      if (compareExact(abs(u), this.#scale, 1024n, 0) < 0) {
        format = "DecimalSI";
      } else {
        const whole = this.#wholeValue();
        if (whole === undefined) format = "DecimalSI";
        else return formatBinary(whole);
      }
    }
    let mantissa = u;
    let exponent = this.#scale;
    const chunk = POW10[16] as bigint;
    while (mantissa % chunk === 0n) {
      mantissa /= chunk;
      exponent += 16;
    }
    while (mantissa % 10n === 0n) {
      mantissa /= 10n;
      exponent += 1;
    }
    // Lower the exponent to a multiple of three.
    const r = ((exponent % 3) + 3) % 3;
    if (r !== 0) {
      mantissa *= pow10(r);
      exponent -= r;
    }
    let suffix: string;
    if (format === "DecimalExponent") {
      suffix = exponent === 0 ? "" : `e${exponent}`;
    } else {
      // v1.34 has no DecimalSI suffix outside n..E and then prints the mantissa alone:
      // "1000E" (10^21) prints as "1". Fixed upstream only in 2026 (kubernetes#140459).
      suffix = DECIMAL_SUFFIX_OF.get(exponent) ?? "";
    }
    return `${mantissa}${suffix}`;
  }

  /** The value as a whole number, or undefined when it has a fraction (or is too large to write). */
  #wholeValue(): bigint | undefined {
    const u = this.#unscaled;
    const e = this.#scale;
    if (e >= 0) return e > MAX_EXPONENT ? undefined : u * pow10(e);
    if (-e > digitCount(u)) return undefined;
    const d = pow10(-e);
    return u % d === 0n ? u / d : undefined;
  }
}

/** int64Amount.Add: undefined where upstream overflows int64 and falls back to inf.Dec. */
function addInt64Amounts(
  au: bigint,
  ae: number,
  bu: bigint,
  be: number,
): { unscaled: bigint; scale: number } | undefined {
  if (bu === 0n) return { unscaled: au, scale: ae };
  if (au === 0n) return { unscaled: bu, scale: be };
  let a = au;
  let b = bu;
  if (ae > be) {
    if (ae - be >= 19) return undefined;
    a *= pow10(ae - be);
    if (!fitsInt64(a)) return undefined;
  } else if (be > ae) {
    if (be - ae >= 19) return undefined;
    b *= pow10(be - ae);
    if (!fitsInt64(b)) return undefined;
  }
  const sum = a + b;
  return fitsInt64(sum) ? { unscaled: sum, scale: Math.min(ae, be) } : undefined;
}

function formatBinary(whole: bigint): string {
  let mantissa = whole;
  let exponent = 0;
  while (mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    exponent++;
  }
  // v1.34 has no suffix past Ei (2^60) and prints the mantissa alone.
  return `${mantissa}${BINARY_SUFFIX_OF.get(exponent) ?? ""}`;
}
