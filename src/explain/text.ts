// The plain-language rendering of an explanation (`horizon explain`): one bullet per step of
// the decision, in the words an operator reads, and the one-line notes of recent syncs.
import { formatDuration } from "../api/duration.js";
import type { Explanation, MetricExplanation } from "./explanation.js";
import { formatNumber, metricName } from "./format.js";

/** Non-finite values as JavaScript prints them (a missing ratio reads NaN, not n/a). */
const num = (value: number, digits = 3): string =>
  Number.isFinite(value) ? formatNumber(value, digits) : String(value);

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

function podList(pods: readonly string[]): string {
  if (pods.length === 0) return "";
  const shown = pods.slice(0, 5).join(", ");
  return pods.length > 5 ? ` (${shown}, …)` : ` (${shown})`;
}

function metricLines(m: MetricExplanation, currentReplicas: number): string[] {
  const label = metricName(m);
  if (m.failure || m.proposal === undefined) {
    return [
      `${label}: failed with ${m.failure?.reason ?? "an error"}: ${m.failure?.error ?? "no value"}.`,
    ];
  }
  const lines: string[] = [];
  const target = m.target ? `${m.target.value} (${m.target.type})` : "its target";
  const current =
    m.utilization !== undefined
      ? `${m.utilization}% of request${m.current !== undefined ? ` (${m.current} per pod)` : ""}`
      : (m.current ?? "?");
  const r = m.ratio;
  if (!r) {
    lines.push(`${label}: current ${current} vs target ${target} → proposes ${m.proposal}.`);
    return lines;
  }
  const band = `[${num(r.band.low, 4)}, ${num(r.band.high, 4)}]`;
  lines.push(
    `${label}: current ${current} vs target ${target}: usage ratio ${num(r.usageRatio, 4)}; the tolerance band is ${band} (tolerance ${num(r.tolerances.scaleDown * 100, 2)}% down, ${num(r.tolerances.scaleUp * 100, 2)}% up).`,
  );
  const pods = m.pods ?? { unready: [], missing: [], ignored: [] };
  const readyText = pods.ready === undefined ? "the ready pods" : plural(pods.ready, "ready pod");
  const filled =
    pods.missing.length + pods.unready.length > 0
      ? `after counting ${[
          pods.missing.length
            ? `${plural(pods.missing.length, "pod")} without metrics (at 100% of request on a scale-down, 0 on a scale-up)`
            : "",
          pods.unready.length ? `${plural(pods.unready.length, "unready pod")} (at 0)` : "",
        ]
          .filter(Boolean)
          .join(" and ")}`
      : "after re-computing";
  const newRatio = num(r.newUsageRatio ?? Number.NaN, 4);
  const paths: Record<string, string> = {
    withinTolerance: `The ratio is within the band, so it proposes keeping the current ${plural(currentReplicas, "replica")}.`,
    direct: `The ratio is outside the band, so it proposes ceil(${num(r.usageRatio, 4)} × ${readyText}) = ${m.proposal}.`,
    rebalanced: `The ratio is outside the band; ${filled} the ratio is ${newRatio}, which proposes ${m.proposal}.`,
    rebalancedWithinTolerance: `The ratio is outside the band, but ${filled} it is ${newRatio}, within the band: it proposes keeping ${m.proposal}.`,
    rebalancedDirectionChange: `The ratio is outside the band, but ${filled} it is ${newRatio}, on the other side of 1: it proposes keeping ${m.proposal}.`,
    rebalancedCountGuard: `The ratio is outside the band, but ${filled} (ratio ${newRatio}) the count would move against the ratio's direction: it proposes keeping ${m.proposal}.`,
    scaleFromZero: `The target is at zero replicas: it proposes ceil(${num(r.usageRatio, 4)}) = ${m.proposal}.`,
    perPod: `The target is per pod: it proposes ceil(total ÷ target per pod) = ${m.proposal}.`,
  };
  lines.push(paths[r.path] ?? `Calculation ${r.path}: it proposes ${m.proposal}.`);
  if (pods.count !== undefined) {
    const parts = [`${plural(pods.count, "pod")} matched the selector`, `${pods.ready ?? 0} ready`];
    if (pods.unready.length)
      parts.push(`${pods.unready.length} not yet ready${podList(pods.unready)}`);
    if (pods.missing.length)
      parts.push(`${pods.missing.length} without metrics${podList(pods.missing)}`);
    if (pods.ignored.length)
      parts.push(`${pods.ignored.length} ignored as deleted or failed${podList(pods.ignored)}`);
    lines.push(`Pods: ${parts.join(", ")}.`);
  }
  return lines;
}

function stabilizationLine(e: Explanation): string | null {
  const s = e.stabilization;
  if (!s) return null;
  if (s.path === "legacy") {
    const window = `${formatDuration((s.windowSeconds ?? 0) * 1000)}`;
    if (s.heldBy !== null) {
      const held = s.winner
        ? ` (a recommendation of ${s.winner.replicas} from ${num(s.winner.ageSeconds, 1)}s ago)`
        : "";
      return `Stabilization (no spec.behavior: the controller's ${window} downscale window): a higher recommendation within the window${held} holds the count at ${s.stabilized} instead of ${s.recommendation} (ScaleDownStabilized).`;
    }
    return `Stabilization (no spec.behavior: the controller's ${window} downscale window): nothing higher in the window, ${s.recommendation} stands (ReadyForNewScale).`;
  }
  const up = `scale-up window ${s.scaleUpWindowSeconds ?? 0}s (lowest recommendation in it: ${s.upRecommendation ?? "?"})`;
  const down = `scale-down window ${s.scaleDownWindowSeconds ?? 0}s (highest in it: ${s.downRecommendation ?? "?"})`;
  let effect = `${s.recommendation} stands (${s.reason})`;
  if (s.heldBy === "scaleDown") {
    effect = `the scale-down window holds the count at ${s.stabilized} instead of ${s.recommendation} (${s.reason})`;
  } else if (s.heldBy === "scaleUp") {
    effect = `the scale-up window holds the count at ${s.stabilized} instead of ${s.recommendation} (${s.reason})`;
  }
  return `Stabilization (spec.behavior): ${up}, ${down}: ${effect}.`;
}

function limitLine(e: Explanation): string | null {
  const l = e.limit;
  if (!l) return null;
  switch (l.reason) {
    case "DesiredWithinRange":
      return `Limits: none applied — ${l.from ?? e.desiredReplicas} is within minReplicas ${e.minReplicas}–maxReplicas ${e.maxReplicas} and the allowed scaling rate (DesiredWithinRange).`;
    case "TooManyReplicas":
      return `Limits: capped at maxReplicas ${l.limit ?? e.maxReplicas} (TooManyReplicas).`;
    case "TooFewReplicas":
      return `Limits: raised to minReplicas ${l.limit ?? e.minReplicas} (TooFewReplicas).`;
    case "ScheduledMinimum":
      return `Limits: raised to the scheduled minReplicas ${l.limit ?? e.minReplicas} of horizon.dev/schedule (ScheduledMinimum).`;
  }
  const direction = l.reason === "ScaleUpLimit" ? "scale-up" : "scale-down";
  if (l.policies && l.policies.length > 0) {
    const policies = l.policies
      .map(
        (p) =>
          `${p.type} ${p.value}${p.type === "Percent" ? "%" : ""} per ${p.periodSeconds}s allows ${p.proposal} (from ${p.periodStartReplicas} at the start of its period)`,
      )
      .join("; ");
    const pick =
      l.selectPolicy === "Min"
        ? "the smallest change"
        : l.selectPolicy === "Disabled"
          ? "no change at all"
          : "the largest change";
    return `Limits: the ${direction} rate is limited by spec.behavior.${direction === "scale-up" ? "scaleUp" : "scaleDown"}.policies — ${policies}; selectPolicy ${l.selectPolicy ?? "Max"} takes ${pick}: ${l.policyLimit ?? l.limit} (${l.reason}).`;
  }
  if (l.legacyScaleUpLimit !== undefined && l.reason === "ScaleUpLimit") {
    return `Limits: without spec.behavior a sync may at most double the replicas (or reach 4): max(2 × ${e.currentReplicas}, 4) = ${l.legacyScaleUpLimit} (ScaleUpLimit).`;
  }
  return `Limits: ${l.reason}: ${l.message}${l.limit !== undefined ? ` (bound ${l.limit})` : ""}.`;
}

/** What the sync did, in one line. */
export function outcomeText(e: Explanation): string {
  if (e.outcome === "scaled") {
    return `Scaled from ${e.currentReplicas} to ${e.desiredReplicas} replicas${e.rescaleReason ? ` (reason: ${e.rescaleReason})` : ""}.`;
  }
  if (e.outcome === "failed") {
    return `Did not scale: the sync failed${e.error ? `: ${e.error}` : ""}.`;
  }
  return `Did not scale: kept ${plural(e.currentReplicas, "replica")}${e.desiredReplicas !== e.currentReplicas ? ` (desired ${e.desiredReplicas})` : ""}.`;
}

/** Plain-language bullets: why this sync decided what it did, extensions last. */
export function explanationText(e: Explanation): string[] {
  return [...upstreamText(e), ...extensionLines(e)];
}

/** One line per `horizon.dev/` rule that acted: what upstream decided and what the rule did. */
export function extensionLines(e: Explanation): string[] {
  return (e.extensions ?? []).map((x) => {
    const effect =
      x.upstreamReplicas !== undefined && x.replicas !== undefined
        ? ` (upstream's algorithm: ${x.upstreamReplicas}; with the extension: ${x.replicas})`
        : "";
    return `Extension ${x.annotation} (${x.reason}): ${x.message}${effect}.`;
  });
}

function upstreamText(e: Explanation): string[] {
  const why: string[] = [];
  if ("error" in e.target) {
    why.push(`The target's scale subresource could not be read: ${e.target.error}.`);
    return why;
  }
  const scheduled = e.extensions?.some(
    (x) => x.reason === "ScheduleActive" && x.replicas === e.minReplicas,
  );
  const range = `minReplicas ${e.minReplicas}${scheduled ? " (scheduled by horizon.dev/schedule)" : ""}, maxReplicas ${e.maxReplicas}`;
  why.push(
    `The target has ${plural(e.target.specReplicas, "replica")} (status: ${e.target.statusReplicas}${e.target.selector ? `, selector ${e.target.selector}` : ""}); ${range}.`,
  );
  switch (e.branch) {
    case "scalingDisabled":
      why.push(
        "The target is at 0 replicas while minReplicas > 0: autoscaling is disabled until something scales the target up (ScalingDisabled).",
      );
      return why;
    case "aboveMaxReplicas":
      why.push(
        `The target is above maxReplicas: the HPA moves it to ${e.desiredReplicas} without reading metrics.`,
      );
      return why;
    case "belowMinReplicas":
      why.push(
        `The target is below minReplicas: the HPA moves it to ${e.desiredReplicas} without reading metrics.`,
      );
      return why;
    default:
      break;
  }
  if (e.metrics.length === 0) {
    why.push(
      e.error
        ? `No metric was computed: ${e.error}.`
        : "No metric was computed (the HPA has no metrics).",
    );
    return why;
  }
  for (const metric of e.metrics) why.push(...metricLines(metric, e.currentReplicas));
  if (e.recommendation === null) {
    why.push(
      e.failedMetrics === e.metrics.length
        ? "No metric could be computed, so the HPA does not scale."
        : "Some metrics failed and the others would scale down: the HPA never scales down on partial metrics, so it does not scale.",
    );
    return why;
  }
  if (e.metrics.length > 1) {
    why.push(
      `With several metrics the HPA takes the highest proposal: ${e.recommendation.replicas}${e.recommendation.metric ? `, from ${e.recommendation.metric}` : ""}.`,
    );
  }
  if (e.failedMetrics > 0) {
    why.push(
      `${plural(e.failedMetrics, "metric")} failed; the HPA still acts on the others because they scale up (it never scales down on partial metrics).`,
    );
  }
  const stabilization = stabilizationLine(e);
  if (stabilization) why.push(stabilization);
  const limit = limitLine(e);
  if (limit) why.push(limit);
  if (e.rescale) {
    why.push(
      `Desired ${e.desiredReplicas} differs from current ${e.currentReplicas}: the scale is updated.`,
    );
  } else {
    why.push(
      `Desired ${e.desiredReplicas} equals current ${e.currentReplicas}: nothing to update.`,
    );
  }
  return why;
}

/** A short note of why a sync went as it did (a row of a list of syncs); "" when nothing stands out. */
export function explanationNote(e: Explanation): string {
  if (e.outcome === "failed") return e.error ?? "";
  return [
    e.rescale ? e.rescaleReason : "",
    e.stabilization && e.stabilization.stabilized !== e.stabilization.recommendation
      ? e.stabilization.reason
      : "",
    e.limit && e.limit.reason !== "DesiredWithinRange" ? e.limit.reason : "",
    ...(e.extensions ?? []).map((x) => `${x.reason} (${x.annotation})`),
  ]
    .filter(Boolean)
    .join("; ");
}
