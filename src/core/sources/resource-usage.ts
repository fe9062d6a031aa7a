// Shared by the Resource and ContainerResource sources: per-pod usage from metrics.k8s.io items
// and the Utilization / AverageValue calculations (upstream computeStatusForResourceMetricGeneric).
import { Quantity } from "../../api/quantity.js";
import type { MetricTarget, MetricValueStatus } from "../../api/types.js";
import {
  type Calculation,
  type PodSamples,
  plainMetricReplicas,
  podRequestList,
  resourceUtilizationReplicas,
  type Samples,
} from "../replica-calculator.js";
import type { MetricContext, MetricObservation, PodMetricsItem } from "./types.js";

/**
 * Whole pod: the sum over its containers; a container without the resource (or no containers
 * at all) makes the pod count as having no metric. Named container: only that container, and
 * a pod without it is simply absent (since v1.32).
 */
export function usageByPod(
  items: readonly PodMetricsItem[],
  resource: string,
  container: string,
): PodSamples {
  const samples: PodSamples = new Map();
  for (const item of items) {
    if (container !== "") {
      const c = item.containers.find((entry) => entry.name === container);
      const value = c?.usage[resource];
      if (value !== undefined) {
        samples.set(item.name, { value, timestamp: item.timestamp, window: item.window });
      }
      continue;
    }
    let sum = 0;
    let missing = item.containers.length === 0;
    for (const c of item.containers) {
      const value = c.usage[resource];
      if (value === undefined) {
        missing = true;
        break;
      }
      sum += value;
    }
    if (!missing)
      samples.set(item.name, { value: sum, timestamp: item.timestamp, window: item.window });
  }
  return samples;
}

/**
 * The metrics client's step: a metrics.k8s.io PodMetrics list to the samples of one resource
 * (and container); an empty list is an error, as upstream's client reports it.
 */
export function resourceObservation(
  items: readonly PodMetricsItem[],
  resource: string,
  container = "",
): MetricObservation {
  if (items.length === 0)
    return { kind: "error", error: "no metrics returned from resource metrics API" };
  return { kind: "resource", samples: usageByPod(items, resource, container) };
}

export type ResourceCalculation =
  | {
      ok: true;
      calculation: Extract<Calculation, { ok: true }>;
      current: MetricValueStatus;
      averageValueTarget: boolean;
    }
  | { ok: false; error: string };

const targetMilliCache = new WeakMap<MetricTarget, number>();

/** A target quantity's milli-value, parsed once per spec object. */
export function targetMilli(target: MetricTarget, field: "value" | "averageValue"): number {
  const cached = field === "averageValue" ? targetMilliCache.get(target) : undefined;
  if (cached !== undefined) return cached;
  const milli = Number(Quantity.parse(target[field]!).milliValue());
  if (field === "averageValue") targetMilliCache.set(target, milli);
  return milli;
}

/**
 * What the sources remember of one metric target between syncs, in one record: a sync looks
 * it up once instead of once per table (each lookup a first read of a table entry and of its
 * value after the other HPAs' syncs). Each part says what it was computed for, so a target
 * object shared by two metrics stays correct.
 */
export interface TargetMemo {
  /**
   * The last current value's milli-value and text (null: none yet): a value unchanged since
   * the HPA's last sync (most syncs) is then the very string the stored status holds (the
   * status comparison compares no characters), and no Quantity is made and formatted.
   */
  milli: bigint;
  text: string | null;
  /** describeTarget's answer, once computed. */
  target: { type: string; value: string } | null;
  /** describeResourceMetric's two strings, and the metric they describe. */
  describedName: string | null;
  describedContainer: boolean;
  valueDescription: string;
  utilizationDescription: string;
  /** The Resource source's last status (see resource.ts), null until one is made. */
  status: unknown;
}

const targetMemos = new WeakMap<MetricTarget, TargetMemo>();

/** The target's record, made on first use. */
export function targetMemo(target: MetricTarget): TargetMemo {
  let memo = targetMemos.get(target);
  if (memo === undefined) {
    memo = {
      milli: 0n,
      text: null,
      target: null,
      describedName: null,
      describedContainer: false,
      valueDescription: "",
      utilizationDescription: "",
      status: null,
    };
    targetMemos.set(target, memo);
  }
  return memo;
}

/** `Quantity.fromMilli(milli).toString()`, remembered per target. */
function currentText(memo: TargetMemo, milli: bigint): string {
  if (memo.text !== null && memo.milli === milli) return memo.text;
  const text = Quantity.fromMilli(milli).toString();
  memo.milli = milli;
  memo.text = text;
  return text;
}

// Module-level, not closures made at every call.
function failed(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function fetchError(resource: string, error: string): string {
  return `unable to get metrics for resource ${resource}: ${error}`;
}

export function calculateResource(
  resource: string,
  container: string,
  target: MetricTarget,
  observed: Samples | { error: string },
  context: MetricContext,
  memo: TargetMemo = targetMemo(target),
): ResourceCalculation {
  if (target.averageValue !== undefined && target.averageValue !== null) {
    if ("error" in observed)
      return failed(`failed to get ${resource} usage: ${fetchError(resource, observed.error)}`);
    const calculation = plainMetricReplicas({
      currentReplicas: context.specReplicas,
      pods: context.pods,
      samples: observed,
      resource,
      tolerances: context.tolerances,
      readiness: context.readiness,
      now: context.now,
      targetMilli: targetMilli(target, "averageValue"),
    });
    if (!calculation.ok) return failed(`failed to get ${resource} usage: ${calculation.error}`);
    return {
      ok: true,
      calculation,
      current: { averageValue: currentText(memo, calculation.rawValueMilli) },
      averageValueTarget: true,
    };
  }
  if (target.averageUtilization === undefined || target.averageUtilization === null) {
    return failed(
      "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set",
    );
  }
  if ("error" in observed)
    return failed(`failed to get ${resource} utilization: ${fetchError(resource, observed.error)}`);
  const calculation = resourceUtilizationReplicas({
    currentReplicas: context.specReplicas,
    pods: context.pods,
    samples: observed,
    resource,
    tolerances: context.tolerances,
    readiness: context.readiness,
    now: context.now,
    targetUtilization: target.averageUtilization,
    requests: () => podRequestList(context.pods, container, resource, context.podLevelResources),
  });
  if (!calculation.ok) return failed(`failed to get ${resource} utilization: ${calculation.error}`);
  return {
    ok: true,
    calculation,
    current: {
      averageUtilization: calculation.utilization!,
      averageValue: currentText(memo, calculation.rawValueMilli),
    },
    averageValueTarget: false,
  };
}

// Equal descriptions as one string, whichever target made them: the sync's ValidMetricFound
// message is found by its description (sync.ts), by identity when it is the one last asked for.
// Bounded as that table is.
const descriptions = new Map<string, string>();

function interned(text: string): string {
  let kept = descriptions.get(text);
  if (kept === undefined) {
    if (descriptions.size >= 1024) descriptions.clear();
    descriptions.set(text, text);
    kept = text;
  }
  return kept;
}

/**
 * The metric's description ("cpu resource utilization (percentage of request)"), one string
 * per spec: the ValidMetricFound message holds it, and a string built anew at every sync had
 * to be flattened and compared character by character with the stored status's.
 */
export function describeResourceMetric(
  source: { name: string; target: MetricTarget },
  container: boolean,
  averageValueTarget: boolean,
  memo: TargetMemo = targetMemo(source.target),
): string {
  if (memo.describedName !== source.name || memo.describedContainer !== container) {
    memo.valueDescription = interned(`${source.name} resource`);
    memo.utilizationDescription = interned(
      `${source.name}${container ? " container" : ""} resource utilization (percentage of request)`,
    );
    memo.describedName = source.name;
    memo.describedContainer = container;
  }
  return averageValueTarget ? memo.valueDescription : memo.utilizationDescription;
}

/** The target as the trace shows it ("50%", "500m"), computed once per spec object. */
export function describeTarget(
  target: MetricTarget,
  memo: TargetMemo = targetMemo(target),
): { type: string; value: string } {
  let described = memo.target;
  if (described === null) {
    if (target.type === "Utilization")
      described = { type: "Utilization", value: `${target.averageUtilization}%` };
    else if (target.type === "AverageValue")
      described = { type: "AverageValue", value: String(target.averageValue) };
    else described = { type: String(target.type), value: String(target.value) };
    memo.target = described;
  }
  return described;
}
