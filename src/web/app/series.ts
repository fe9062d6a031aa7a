// Two runs' samples on one time axis for one chart: the union of their sync times, each
// series carrying its last value forward (replica counts hold between syncs).
import type { SyncSample } from "../types.js";

export function aligned(
  runs: SyncSample[][],
  value: (s: SyncSample) => number | null,
): [number[], ...(number | null)[][]] {
  const times = [...new Set(runs.flatMap((samples) => samples.map((s) => s.at)))].sort(
    (a, b) => a - b,
  );
  const columns = runs.map((samples) => {
    const out: (number | null)[] = [];
    let i = 0;
    let last: number | null = null;
    for (const t of times) {
      while (i < samples.length && samples[i]!.at <= t) last = value(samples[i++]!);
      out.push(last);
    }
    return out;
  });
  return [times.map((t) => t / 1000), ...columns];
}
