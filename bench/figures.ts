// A benchmark figure against its target, judged as it is printed: the digits below those shown
// are noise of the measurement (e.g. the controller bench's window edges: syncs in flight as it
// opens and closes, whose requests fall on one side and whose end on the other), so a line never
// reads "2.000 req, target ≤ 2 req, MISS".

/** The figure as printed: an integer from 100 up, else `digits` decimals. */
export function shownText(value: number, digits = 2): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(digits);
}

/** Whether the printed figure meets its target (`min`: at least it; `max`: at most it). */
export function meetsTarget(
  value: number,
  target: number,
  kind: "min" | "max",
  digits = 2,
): boolean {
  const shown = Number(Math.abs(value) >= 100 ? Math.round(value) : value.toFixed(digits));
  return kind === "min" ? shown >= target : shown <= target;
}
