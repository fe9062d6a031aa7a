// `horizon.dev/predictive`: scale ahead of the load a seasonal forecast sees coming. For each
// metric the total demand (usage ratio × the pods it was computed over × the target: what the
// dashboard's replay calls demand, in the metric's units) is learned, and its forecast at
// now + lead, with a headroom of the forecast's own recent spread, becomes one more proposal in
// upstream's max over metrics: tolerance, stabilization, behavior and min/max apply unchanged,
// and the forecast alone never scales down. Without enough history, with too large a recent
// error, or for a metric without a usage ratio, the HPA stays reactive and says why.

import { parseDuration } from "../../api/duration.js";
import { Quantity } from "../../api/quantity.js";
import type { MetricSpec } from "../../api/types.js";
import { setCondition } from "../conditions.js";
import { DAY_MS, HoltWinters, SeasonalForecaster } from "../forecast.js";
import type { PredictiveMemory } from "../history.js";
import type { SyncDecision, SyncInput } from "../sync.js";
import type { ExtensionTrace } from "../trace.js";

export type PredictiveMode = "scale" | "forecast-only";

export interface Predictive {
  /** Forecast this far ahead; null: the observed start-to-ready time plus the sync period. */
  leadMs: number | null;
  /** Season lengths, shortest first (`1d,7d`). */
  seasonsMs: number[];
  /** How far back the model effectively remembers. */
  historyMs: number;
  mode: PredictiveMode;
  /**
   * demand: Horizon's seasonal model of each metric's total demand. replicas-holt-winters: for
   * comparison, what jthomperoo's predictive-horizontal-pod-autoscaler does (additive
   * Holt-Winters, alpha = beta = gamma = 0.9, over the replica count, one sync ahead).
   */
  model: PredictiveModel;
}

export type PredictiveModel = "demand" | "replicas-holt-winters";

export const DEFAULT_PREDICTIVE_SEASONS_MS = [DAY_MS];
export const DEFAULT_PREDICTIVE_HISTORY_MS = 7 * DAY_MS;
/** Above this recent mean relative error the forecast is not acted on. */
export const MAX_PREDICTIVE_ERROR = 0.5;
/** The headroom over the forecast: this quantile of its recent relative error. */
export const PREDICTIVE_QUANTILE = 0.75;
/** The lead before any pod was seen becoming ready: kube's 15 s sync plus a minute. */
const FALLBACK_START_TO_READY_MS = 60_000;

export const PREDICTIVE_CONDITION = "PredictiveActive";

/** Reads a season or history length: Go durations, or whole days (`7d`). */
export function parseSpan(raw: string): { ok: true; ms: number } | { ok: false; error: string } {
  const days = /^(\d{1,4})d$/.exec(raw.trim());
  if (days) return { ok: true, ms: Number(days[1]) * DAY_MS };
  const parsed = parseDuration(raw);
  if (!parsed.ok) return { ok: false, error: `${parsed.error.replace(/\)$/, ", or 1d, 7d)")}` };
  return { ok: true, ms: parsed.ms };
}

/** The numeric target of a metric (the unit its total demand is counted in), null if none. */
export function targetValueOf(spec: MetricSpec | undefined): number | null {
  if (!spec) return null;
  const target =
    spec.resource?.target ??
    spec.containerResource?.target ??
    spec.pods?.target ??
    spec.object?.target ??
    spec.external?.target;
  if (!target) return null;
  if (target.type === "Utilization") return target.averageUtilization ?? null;
  const raw = target.type === "AverageValue" ? target.averageValue : target.value;
  if (raw === undefined) return null;
  try {
    const milli = Number(Quantity.parse(String(raw)).milliValue());
    return milli > 0 ? milli / 1000 : null;
  } catch {
    return null;
  }
}

function metricName(spec: MetricSpec): string {
  return (
    spec.resource?.name ??
    spec.containerResource?.name ??
    spec.pods?.metric.name ??
    spec.object?.metric.name ??
    spec.external?.metric.name ??
    spec.type
  );
}

/** A total demand in words: "840 requests_per_second", or CPU utilization as pods' requests. */
export function describeDemand(spec: MetricSpec, total: number): string {
  const target = spec.resource?.target ?? spec.containerResource?.target;
  if (target?.type === "Utilization") {
    return `${(total / 100).toFixed(1)} pods' ${metricName(spec)} requests`;
  }
  const rounded = total >= 100 ? Math.round(total).toString() : total.toPrecision(3);
  return `${rounded} ${metricName(spec)}`;
}

function settingsKey(p: Predictive): string {
  return `${p.model}/${p.seasonsMs.join(",")}/${p.historyMs}`;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** The longest start-to-ready time among ready pods (their readiness never flipped since). */
function startToReady(input: SyncInput, previous: number | null): number | null {
  let longest: number | null = null;
  for (const pod of input.pods) {
    if (pod.ready?.status !== "True" || pod.startTime === null || pod.deleting) continue;
    const ms = pod.ready.lastTransitionTime - pod.startTime;
    if (ms >= 0 && (longest === null || ms > longest)) longest = ms;
  }
  return longest ?? previous;
}

export interface PredictivePlan {
  /** The proposal to add to upstream's max (mode scale, model ready, metrics valid). */
  proposal: { replicas: number; metric: string } | null;
  /** The sentence for the trace and the condition, and the condition itself. */
  reason: string;
  message: string;
  active: boolean;
  /** The forecast behind the proposal, for the trace's wording after the decision. */
  forecast: { text: string; at: number; leadMs: number; replicas: number } | null;
  memory: PredictiveMemory;
}

/**
 * Learns this sync's demand from upstream's reactive decision (its metric traces) and plans the
 * forecast's proposal. Called with the reactive decision before the one that acts.
 */
export function planPredictive(
  predictive: Predictive,
  reactive: SyncDecision,
  previous: PredictiveMemory | undefined,
): PredictivePlan {
  const input = reactive.input;
  const specs = input.hpa.spec.metrics ?? [];
  const key = settingsKey(predictive);
  const memory: PredictiveMemory =
    previous && previous.key === key && previous.models.length === specs.length
      ? previous
      : { key, models: specs.map(() => null), startToReadyMs: null };
  memory.startToReadyMs = startToReady(input, memory.startToReadyMs);
  const syncMs = input.config.syncPeriodMs;
  const leadMs =
    predictive.leadMs ?? (memory.startToReadyMs ?? FALLBACK_START_TO_READY_MS) + syncMs;
  const now = input.now;
  const trace = reactive.trace;
  const plan = (reason: string, message: string, active = false): PredictivePlan => ({
    proposal: null,
    reason,
    message,
    active,
    forecast: null,
    memory,
  });
  if (reactive.finished || trace.branch !== "metrics" || trace.recommendation === null) {
    return plan(
      "NoRecommendation",
      "upstream's algorithm made no recommendation this sync: nothing learned, reactive",
    );
  }

  if (predictive.model === "replicas-holt-winters") {
    const period = Math.max(2, Math.round(predictive.seasonsMs[0]! / syncMs));
    memory.replicas ??= new HoltWinters(0.9, 0.9, 0.9, period);
    const model = memory.replicas;
    model.observe(trace.recommendation);
    const next = model.forecast(1);
    if (next === null) {
      return plan(
        "InsufficientHistory",
        `${model.seen()} of the ${2 * period} syncs (two seasons) Holt-Winters needs: reactive`,
      );
    }
    const replicas = Math.min(input.hpa.spec.maxReplicas, Math.max(0, Math.round(next)));
    const sentence = `Holt-Winters over the replica count forecasts ${replicas} at the next sync`;
    return {
      proposal:
        predictive.mode === "scale" ? { replicas, metric: "forecast of the replica count" } : null,
      reason: predictive.mode === "scale" ? "ForecastActive" : "ForecastOnly",
      message: sentence,
      active: predictive.mode === "scale",
      forecast: { text: `${replicas} replicas`, at: now + syncMs, leadMs: syncMs, replicas },
      memory,
    };
  }

  let best: PredictivePlan["forecast"] = null;
  let bestMetric = "";
  let notReady: { reason: string; message: string } | null = null;
  let modelled = 0;
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    const metricTrace = trace.metrics[i];
    const calc = metricTrace?.calculation;
    const target = targetValueOf(spec);
    if (!calc || metricTrace?.proposal === undefined || target === null) continue;
    const basis = calc.readyPodCount ?? calc.podCount ?? trace.currentReplicas;
    const total = calc.usageRatio * basis * target;
    let model = memory.models[i];
    if (!model) {
      model = new SeasonalForecaster({
        seasonsMs: predictive.seasonsMs,
        bins: 288,
        historyMs: predictive.historyMs,
        levelMs: 20 * 60_000,
        errorMs: 2 * 3_600_000,
        quantile: PREDICTIVE_QUANTILE,
      });
      memory.models[i] = model;
    }
    modelled++;
    model.observe(now, total, leadMs);
    const readiness = model.readiness(now, MAX_PREDICTIVE_ERROR);
    if (!readiness.ready) {
      notReady ??= {
        reason: readiness.reason,
        message: `${metricName(spec)}: ${readiness.message}`,
      };
      continue;
    }
    // Pods asked for now serve from now + start-to-ready until the next sync's pods do.
    const early = model.forecast(now, now + Math.max(0, leadMs - syncMs));
    const late = model.forecast(now, now + leadMs);
    if (!early || !late) continue;
    const peak = late.value >= early.value ? late : early;
    const headroom = 1 + Math.max(0, model.upperError());
    const replicas = Math.ceil((peak.value * headroom) / target - 1e-9);
    if (best === null || replicas > best.replicas) {
      best = {
        text: describeDemand(spec, peak.value),
        at: peak.at,
        leadMs: peak.at - now,
        replicas,
      };
      bestMetric = metricTrace.description ?? metricName(spec);
    }
  }
  if (modelled === 0) {
    return plan(
      "MetricNotModelled",
      "no metric of this HPA has a usage ratio to learn from (it needs a target and a calculation): reactive",
    );
  }
  if (best === null) {
    const why = notReady ?? { reason: "NoForecast", message: "no forecast for the time ahead" };
    return plan(why.reason, `${why.message}: reactive`);
  }
  const clamped = Math.min(best.replicas, input.hpa.spec.maxReplicas);
  const forecast = { ...best, replicas: clamped };
  const sentence = `forecast of ${best.text} at ${clock(best.at)}, ${Math.round(best.leadMs / 1000)} s away, needs ${clamped}`;
  if (predictive.mode === "forecast-only") {
    return {
      proposal: null,
      reason: "ForecastOnly",
      message: `forecast only: ${sentence}; would scale to ${Math.max(clamped, trace.desiredReplicas)} (reactive: ${trace.desiredReplicas})`,
      active: false,
      forecast,
      memory,
    };
  }
  return {
    proposal: { replicas: clamped, metric: `forecast of ${bestMetric}` },
    reason: "ForecastActive",
    message: sentence,
    active: true,
    forecast,
    memory,
  };
}

/** The condition's message: steady while the reason holds (the forecast's numbers are in the trace). */
function conditionMessage(plan: PredictivePlan): string {
  if (plan.reason === "ForecastActive") {
    return `scaling ahead of a seasonal forecast of the metrics' total demand (lead ${Math.round((plan.forecast?.leadMs ?? 0) / 1000)} s)`;
  }
  if (plan.reason === "ForecastOnly") {
    return "forecasting without acting (horizon.dev/predictive-mode: forecast-only): the decision trace says what it would have done";
  }
  return plan.message;
}

/** The condition, the Event when its reason changes, and the trace entry of one sync. */
export function reportPredictive(
  decision: SyncDecision,
  plan: PredictivePlan,
  reactiveReplicas: number,
  annotation: string,
  nowText: string,
): ExtensionTrace {
  const stored = decision.input.hpa.status?.conditions?.find(
    (c) => c.type === PREDICTIVE_CONDITION,
  );
  let message = plan.message;
  if (plan.active && plan.forecast) {
    const drove = decision.trace.recommendationMetric?.startsWith("forecast of ") ?? false;
    message = drove
      ? decision.rescale && decision.desiredReplicas > decision.currentReplicas
        ? `scaled to ${decision.desiredReplicas} ahead of a ${plan.message}`
        : `${plan.message}; held at ${decision.desiredReplicas}`
      : `${plan.message}; the metrics ask for as much or more`;
  }
  if (decision.input.scale.ok) {
    setCondition(
      decision.conditions,
      PREDICTIVE_CONDITION,
      plan.active ? "True" : "False",
      plan.reason,
      conditionMessage(plan),
      nowText,
    );
    if (stored?.reason !== plan.reason) {
      decision.events.push({
        type: "Normal",
        reason: plan.active ? "PredictiveActive" : "PredictiveInactive",
        message: `${plan.reason}: ${plan.message}`,
      });
    }
  }
  return {
    annotation,
    reason: plan.reason,
    message,
    upstreamReplicas: reactiveReplicas,
    replicas: decision.desiredReplicas,
  };
}
