// Go integer semantics the algorithm depends on.

export const MAX_INT32 = 2147483647;
export const MIN_INT32 = -2147483648;
export const MAX_INT64 = 9223372036854775807n;
export const MIN_INT64 = -9223372036854775808n;

/** int32(math.Ceil(x)), saturating at the int32 range as upstream's clamps do. */
export function ceilToInt32(x: number): number {
  if (Number.isNaN(x)) return 0;
  const c = Math.ceil(x);
  if (c >= MAX_INT32) return MAX_INT32;
  if (c <= MIN_INT32) return MIN_INT32;
  return c;
}

/**
 * int32(math.Ceil(x)) as Go compiles it for amd64 (CVTTSD2SL): out of the int32 range, or NaN,
 * it is MinInt32. Go leaves the conversion implementation-defined (arm64 saturates); the upstream
 * conversions not yet guarded behave so on amd64 (kubernetes/kubernetes#141397).
 */
export function ceilToInt32Amd64(x: number): number {
  const c = Math.ceil(x);
  return c >= -2147483648 && c <= MAX_INT32 ? c : MIN_INT32;
}

/** int64(math.Ceil(x)), saturating at the int64 range. */
export function ceilToInt64(x: number): bigint {
  if (Number.isNaN(x)) return 0n;
  if (x >= 2 ** 63) return MAX_INT64;
  if (x <= -(2 ** 63)) return MIN_INT64;
  return BigInt(Math.ceil(x));
}

/** Adds int64 values, capping at MaxInt64/MinInt64 instead of wrapping (upstream's overflow guard). */
export function addInt64Saturating(a: bigint, b: bigint): bigint {
  const sum = a + b;
  if (sum > MAX_INT64) return MAX_INT64;
  if (sum < MIN_INT64) return MIN_INT64;
  return sum;
}

/** Go's int32 wrap-around, for additions that upstream does not guard. */
export function int32(x: number): number {
  return x | 0;
}
