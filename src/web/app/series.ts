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

/**
 * A sync's desired replicas on a chart: none where the sync failed. Such a sync decided nothing;
 * its trace carries the status' previous desired replicas, 0 before the HPA's first decision.
 */
export function plottedDesired(s: SyncSample): number | null {
  return s.outcome === "failed" ? null : s.desiredReplicas;
}

export interface MetricSeries {
  name: string;
  unit: string;
  current: (number | null)[];
  target: (number | null)[];
}

/**
 * One series pair per metric that has a value at some sync, in order of first appearance. A
 * metric that failed carries neither a value nor its description (only a stand-in name such as
 * "Metric 1 (Pods)"): it opens no chart of its own, and is a gap in its metric's chart.
 */
export function metricSeries(samples: SyncSample[]): MetricSeries[] {
  const units = new Map<string, string>();
  for (const s of samples) {
    for (const m of s.metrics) {
      if ((m.current !== null || m.target !== null) && !units.has(m.name))
        units.set(m.name, m.unit);
    }
  }
  return [...units].map(([name, unit]) => {
    const point = (s: SyncSample) => s.metrics.find((m) => m.name === name);
    return {
      name,
      unit,
      current: samples.map((s) => point(s)?.current ?? null),
      target: samples.map((s) => point(s)?.target ?? null),
    };
  });
}
