// Number formatting shared by the explanation's renderings and the simulator's outputs.

/** A number with at most `digits` decimals, trailing zeros dropped. */
export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return value > 0 ? "∞" : value < 0 ? "-∞" : "n/a";
  const text = String(Number(value.toFixed(digits)));
  return text === "-0" ? "0" : text;
}
