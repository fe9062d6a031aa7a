// Number formatting shared by the explanation's renderings and the simulator's outputs.

/** A number with at most `digits` decimals, trailing zeros dropped. */
export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return value > 0 ? "∞" : value < 0 ? "-∞" : "n/a";
  const text = String(Number(value.toFixed(digits)));
  return text === "-0" ? "0" : text;
}

/**
 * A sync's replicas as its history lists them: `4 → 6` when it asked for another count, `4`
 * when it kept them, or failed (a failed sync's desired count is the status's old one, 0 on a
 * new HPA, not a count it asked for).
 */
export function replicaChange(sync: {
  outcome: "scaled" | "unchanged" | "failed";
  currentReplicas: number;
  desiredReplicas: number;
}): string {
  return sync.outcome === "failed" || sync.desiredReplicas === sync.currentReplicas
    ? String(sync.currentReplicas)
    : `${sync.currentReplicas} → ${sync.desiredReplicas}`;
}

/**
 * A metric's name everywhere Horizon shows one (explain, the report, the dashboard): its
 * 1-based place in spec.metrics and its type, then upstream's description where the sync
 * produced one ("Metric 1 (Resource, cpu resource utilization (percentage of request))").
 */
export function metricName(m: { index: number; type: string; description?: string }): string {
  return `Metric ${m.index + 1} (${m.type}${m.description ? `, ${m.description}` : ""})`;
}

/**
 * A chart title with its unit, unless the title already says it: upstream's utilization
 * descriptions end in "(percentage of request)", the unit "% of request".
 */
export function withUnit(title: string, unit: string): string {
  if (!unit) return title;
  const spelled = unit.replace(/^% /, "percentage ");
  return title.includes(unit) || title.includes(spelled) ? title : `${title} (${unit})`;
}
