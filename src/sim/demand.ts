// The demand of the elasticity measures (docs/simulate.md "Elasticity"): the fewest ready pods
// that meet an HPA's targets at the offered load, from the workload's usage model and the HPA's
// metrics. A plain value (sent to `horizon tune`'s workers), so that every candidate of a search
// can be measured with the yardstick of the file as written.
import { milliNumberOfJSON } from "../api/quantity.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import type { Scenario, WorkloadModel } from "./scenario-types.js";

/** Per-pod usage `base + perRps × (demand / pods)` must stay at or below `target`. */
export interface DemandBound {
  /** What the bound stands for, e.g. "cpu Utilization 70%". */
  metric: string;
  base: number;
  perRps: number;
  target: number;
}

export interface DemandYardstick {
  /** Requests/s one ready pod serves (null = unlimited). */
  capacityRps: number | null;
  bounds: DemandBound[];
}

/** The fewest ready pods (at least 1) that serve `demandRps` and meet every bound; null if none can. */
export function demandPods(yardstick: DemandYardstick, demandRps: number): number | null {
  let pods = 1;
  if (yardstick.capacityRps !== null && yardstick.capacityRps > 0)
    pods = Math.max(pods, Math.ceil(demandRps / yardstick.capacityRps - 1e-9));
  for (const b of yardstick.bounds) {
    const load = b.perRps * demandRps;
    if (load <= 0) {
      if (b.base > b.target) return null;
      continue;
    }
    const headroom = b.target - b.base;
    if (headroom <= 0) return null;
    pods = Math.max(pods, Math.ceil(load / headroom - 1e-9));
  }
  return pods;
}

type Metric = NonNullable<HorizontalPodAutoscaler["spec"]["metrics"]>[number];
type Target = NonNullable<Metric["resource"]>["target"];

interface Container {
  resources?: { requests?: Record<string, unknown> };
}

/** The sum of the template's containers' requests of `resource` in milli-units; null if one has none. */
function templateRequest(workload: KubeObject | undefined, resource: string): number | null {
  const spec = workload?.spec as { template?: { spec?: { containers?: Container[] } } } | undefined;
  const containers = spec?.template?.spec?.containers ?? [];
  if (containers.length === 0) return null;
  let sum = 0;
  for (const c of containers) {
    const milli = milliNumberOfJSON(c.resources?.requests?.[resource]);
    if (milli === null) return null;
    sum += milli;
  }
  return sum;
}

/** A Resource metric's bound: CPU in millicores, memory in milli-bytes (as quantities count). */
function resourceBound(
  name: string,
  target: Target,
  model: WorkloadModel,
  manifest: KubeObject | undefined,
): DemandBound | null {
  const usage =
    name === "cpu"
      ? { base: model.usage.cpu.baseMilli, perRps: model.usage.cpu.milliPerRps }
      : name === "memory"
        ? {
            base: model.usage.memory.baseBytes * 1000,
            perRps: model.usage.memory.bytesPerRps * 1000,
          }
        : null;
  if (!usage) return null;
  let limit: number;
  let metric: string;
  if (target.type === "Utilization" && target.averageUtilization !== undefined) {
    const request = templateRequest(manifest, name);
    if (request === null || request <= 0) return null;
    limit = (target.averageUtilization / 100) * request;
    metric = `${name} Utilization ${target.averageUtilization}%`;
  } else if (target.type === "AverageValue" && target.averageValue !== undefined) {
    const value = milliNumberOfJSON(target.averageValue);
    if (value === null) return null;
    limit = value;
    metric = `${name} AverageValue ${target.averageValue}`;
  } else return null;
  // A CPU limit at or below the target caps usage there: the target is always met.
  const cap = name === "cpu" ? model.usage.cpu.limitMilli : null;
  if (cap !== null && cap <= limit) return null;
  return { metric, ...usage, target: limit };
}

/** An AverageValue target on a metric that is the requests/s the workload's pods serve. */
function perPodRpsBound(label: string, target: Target): DemandBound | null {
  if (target.type !== "AverageValue" || target.averageValue === undefined) return null;
  const milli = milliNumberOfJSON(target.averageValue);
  if (milli === null || milli <= 0) return null;
  return {
    metric: `${label} AverageValue ${target.averageValue}`,
    base: 0,
    perRps: 1,
    target: milli / 1000,
  };
}

const refKey = (r: { namespace: string; kind: string; name: string }) =>
  `${r.namespace}/${r.kind}/${r.name}`;

/**
 * The yardstick of one HPA: its workload's capacity and a bound per metric the scenario models
 * as a function of the offered load (Resource cpu and memory, Pods and Object AverageValue over
 * the workload's requests); null when none of its metrics is such a metric.
 */
export function demandYardstick(
  scenario: Scenario,
  hpa: HorizontalPodAutoscaler,
): DemandYardstick | null {
  const namespace = hpa.metadata.namespace ?? "default";
  const ref = hpa.spec.scaleTargetRef;
  const key = `${namespace}/${ref.kind}/${ref.name}`;
  const model = scenario.spec.workloads.find((w) => refKey(w.target) === key);
  if (!model) return null;
  const manifest = scenario.objects.find(
    (o) =>
      o.kind === ref.kind &&
      o.metadata.name === ref.name &&
      (o.metadata.namespace ?? "default") === namespace,
  );
  const bounds: DemandBound[] = [];
  for (const m of hpa.spec.metrics ?? []) {
    let bound: DemandBound | null = null;
    if (m.type === "Resource" && m.resource) {
      bound = resourceBound(m.resource.name, m.resource.target, model, manifest);
    } else if (m.type === "Pods" && m.pods) {
      const name = m.pods.metric.name;
      const served = scenario.spec.metrics.pods.some(
        (p) => p.name === name && p.namespace === namespace && refKey(p.workload) === key,
      );
      if (served) bound = perPodRpsBound(`Pods ${name}`, m.pods.target);
    } else if (m.type === "Object" && m.object) {
      const { metric, describedObject: d } = m.object;
      const served = scenario.spec.metrics.object.some(
        (o) =>
          o.name === metric.name &&
          o.namespace === namespace &&
          o.describedObject.kind === d.kind &&
          o.describedObject.name === d.name &&
          refKey(o.workload) === key,
      );
      if (served) bound = perPodRpsBound(`Object ${metric.name}`, m.object.target);
    }
    if (bound) bounds.push(bound);
  }
  if (bounds.length === 0) return null;
  return { capacityRps: model.usage.capacityRps, bounds };
}

/** Every HPA's yardstick by `namespace/name` (null: no modelled metric). */
export function demandYardsticks(
  scenario: Scenario,
  hpas: readonly HorizontalPodAutoscaler[],
): Record<string, DemandYardstick | null> {
  const out: Record<string, DemandYardstick | null> = {};
  for (const hpa of hpas) {
    out[`${hpa.metadata.namespace ?? "default"}/${hpa.metadata.name}`] = demandYardstick(
      scenario,
      hpa,
    );
  }
  return out;
}

/** The yardsticks of a scenario's HPAs as written (before any run). */
export function scenarioYardsticks(scenario: Scenario): Record<string, DemandYardstick | null> {
  const hpas = scenario.objects.filter(
    (o) => o.kind === "HorizontalPodAutoscaler",
  ) as unknown as HorizontalPodAutoscaler[];
  return demandYardsticks(scenario, hpas);
}
