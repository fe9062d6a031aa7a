// The compact rendering of an explanation: one line per step (scale, branch, each metric,
// recommendation, stabilization, limit, decision), as the simulation report lists a scaling
// action's reasons; and that list as HTML.
import type { Explanation } from "./explanation.js";
import { formatNumber, metricName } from "./format.js";
import { extensionLines } from "./text.js";

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const PATHS: Record<string, string> = {
  withinTolerance: "the ratio is within the tolerance band, so the current replicas are kept",
  direct: "ceil(ratio × ready pods)",
  rebalanced:
    "missing and unready pods were filled in (conservatively) and the re-computed count was used",
  rebalancedWithinTolerance:
    "after filling in missing and unready pods the ratio is within tolerance, so the current replicas are kept",
  rebalancedDirectionChange:
    "filling in missing and unready pods would reverse the direction, so the current replicas are kept",
  rebalancedCountGuard:
    "the re-computed count would move against the direction, so the current replicas are kept",
  scaleFromZero: "ceil(ratio) at zero replicas",
  perPod: "ceil(total / per-pod target)",
};

const BRANCHES: Record<string, string> = {
  scaleUnavailable: "The scale subresource could not be read, so the sync stopped there.",
  scalingDisabled:
    "The target is at 0 replicas while minReplicas > 0: autoscaling is disabled until someone scales it up.",
  aboveMaxReplicas:
    "The target is above maxReplicas: it is moved to the bound without reading metrics.",
  belowMinReplicas:
    "The target is below minReplicas: it is moved to the bound without reading metrics.",
  metrics: "The metrics were read (the normal path).",
};

/** One line per step of the decision, in order. */
export function explanationSummary(e: Explanation): string[] {
  const out: string[] = [];
  if ("error" in e.target) out.push(`Scale: could not be read: ${e.target.error}.`);
  else {
    out.push(
      `Scale: spec.replicas ${e.target.specReplicas}, status.replicas ${e.target.statusReplicas}${e.target.selector ? `, selector ${e.target.selector}` : ""}; bounds ${e.minReplicas}–${e.maxReplicas}.`,
    );
  }
  out.push(BRANCHES[e.branch] ?? `Branch: ${e.branch}.`);
  for (const m of e.metrics) {
    const name = metricName(m);
    if (m.failure) {
      out.push(`${name}: failed (${m.failure.reason ?? "error"}): ${m.failure.error ?? ""}`);
      continue;
    }
    let text = `${name}: current ${m.current ?? "?"}`;
    if (m.utilization !== undefined) text += ` (${m.utilization}% of request)`;
    if (m.target) text += ` vs target ${m.target.type} ${m.target.value}`;
    const r = m.ratio;
    if (r) {
      text += `; usage ratio ${formatNumber(r.usageRatio, 4)} (band ${formatNumber(r.band.low, 4)}–${formatNumber(r.band.high, 4)})`;
      if (r.newUsageRatio !== undefined)
        text += `, ${formatNumber(r.newUsageRatio, 4)} after filling in`;
      text += `; ${PATHS[r.path] ?? r.path}`;
      const p = m.pods;
      if (p?.count !== undefined) {
        text += `; ${p.count} pods, ${p.ready ?? 0} ready, ${p.unready.length} unready, ${p.missing.length} missing, ${p.ignored.length} ignored`;
      }
    }
    if (m.proposal !== undefined) text += ` → proposes ${m.proposal}`;
    out.push(`${text}.`);
  }
  if (e.recommendation !== null) {
    out.push(
      `Recommendation: ${e.recommendation.replicas}${e.recommendation.metric ? ` (from ${e.recommendation.metric})` : ""}.`,
    );
  }
  const s = e.stabilization;
  if (s) {
    let text =
      s.path === "legacy"
        ? `Stabilization (no behavior: ${s.windowSeconds ?? "?"}s downscale window)`
        : `Stabilization (behavior: scale-up window ${s.scaleUpWindowSeconds ?? "?"}s, lowest recent ${s.upRecommendation ?? "?"}; scale-down window ${s.scaleDownWindowSeconds ?? "?"}s, highest recent ${s.downRecommendation ?? "?"})`;
    text += `: ${s.recommendation} → ${s.stabilized} (${s.reason})`;
    if (s.winner)
      text += `, held by a recommendation of ${s.winner.replicas} from ${s.winner.ageSeconds}s ago`;
    out.push(`${text}.`);
  }
  const l = e.limit;
  if (l) {
    let text = `Limit: ${l.reason}: ${l.message}`;
    if (l.limit !== undefined) text += ` (bound ${l.limit})`;
    if (l.legacyScaleUpLimit !== undefined)
      text += `; legacy scale-up limit ${l.legacyScaleUpLimit}`;
    if (l.policies && l.policies.length > 0) {
      text += `; policies: ${l.policies
        .map(
          (p) =>
            `${p.type} ${p.value}/${p.periodSeconds}s from ${p.periodStartReplicas} → ${p.proposal}`,
        )
        .join(", ")}`;
    }
    if (l.selectPolicy !== undefined)
      text += `; selectPolicy ${l.selectPolicy}${l.policyLimit !== undefined ? ` → ${l.policyLimit}` : ""}`;
    out.push(`${text}.`);
  }
  out.push(...extensionLines(e));
  out.push(
    `Decision: desired ${e.desiredReplicas} from current ${e.currentReplicas}; ${e.rescale ? `rescale: ${e.rescaleReason ?? ""}` : "no rescale"}; outcome ${e.outcome}${e.error ? ` (error: ${e.error})` : ""}.`,
  );
  return out;
}

/** The summary as an HTML list. */
export function explanationHtml(e: Explanation): string {
  return `<ul>${explanationSummary(e)
    .map((line) => `<li>${escapeHtml(line)}</li>`)
    .join("")}</ul>`;
}
