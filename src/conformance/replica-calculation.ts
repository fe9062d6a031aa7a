// Suite `replicaCalculation`: one metric → replica count, through the real metric source modules.

import type { LabelSelector, MetricSpec, MetricTarget, MetricValueStatus } from "../api/types.js";
import type { KubernetesVersion } from "../api/versions.js";
import type { PodView } from "../core/pods.js";
import { metricSourceFor } from "../core/sources/registry.js";
import { resourceObservation } from "../core/sources/resource-usage.js";
import type { MetricContext, MetricObservation } from "../core/sources/types.js";
import { at, Differences, milli, NOW, type VectorOutcome } from "./common.js";

interface VectorPod {
  name: string;
  labels: Record<string, string>;
  phase: PodView["phase"];
  ready: "True" | "False" | "Unknown";
  startTimeSeconds: number;
  readyTransitionSeconds: number;
  deleting: boolean;
  containers: { name: string; requests: Record<string, string> }[];
}

interface ReplicaVector {
  method: string;
  currentReplicas: number;
  statusReplicas?: number;
  tolerances: { scaleDown: number; scaleUp: number };
  cpuInitializationPeriodSeconds: number;
  delayOfInitialReadinessStatusSeconds: number;
  metric: {
    source: string;
    name: string;
    container?: string;
    selector?: LabelSelector;
    describedObject?: { kind: string; apiVersion?: string; name: string };
    target: MetricTarget;
  };
  pods: VectorPod[];
  podMetrics?: Record<
    string,
    { timestampSeconds: number; windowSeconds: number; containers: Record<string, string> }
  >;
  podMetricValues?: Record<string, string>;
  objectValue?: string;
  externalValues?: string[];
  /** Extension: the metrics API call fails with this error (the client's message). */
  metricsError?: string;
  expect:
    | { replicas: number; utilization?: number; rawValue: string; rawValueMilli?: string }
    | { error: true; errorContains: string };
}

function metricSpec(m: ReplicaVector["metric"]): MetricSpec {
  const identifier = m.selector ? { name: m.name, selector: m.selector } : { name: m.name };
  switch (m.source) {
    case "Resource":
      return { type: "Resource", resource: { name: m.name, target: m.target } };
    case "ContainerResource":
      return {
        type: "ContainerResource",
        containerResource: { name: m.name, container: m.container ?? "", target: m.target },
      };
    case "Pods":
      return { type: "Pods", pods: { metric: identifier, target: m.target } };
    case "Object":
      return {
        type: "Object",
        object: { describedObject: m.describedObject!, metric: identifier, target: m.target },
      };
    default:
      return { type: m.source, external: { metric: identifier, target: m.target } };
  }
}

function observation(v: ReplicaVector): MetricObservation {
  if (v.metricsError !== undefined) return { kind: "error", error: v.metricsError };
  if (v.podMetrics) {
    return resourceObservation(
      Object.entries(v.podMetrics).map(([name, m]) => ({
        name,
        timestamp: at(m.timestampSeconds),
        window: m.windowSeconds * 1000,
        containers: Object.entries(m.containers).map(([container, usage]) => ({
          name: container,
          usage: { [v.metric.name]: Number(milli(usage)) },
        })),
      })),
      v.metric.name,
      v.metric.container ?? "",
    );
  }
  if (v.podMetricValues) {
    const zero = at(-10000000000);
    return {
      kind: "pods",
      samples: new Map(
        Object.entries(v.podMetricValues).map(([name, value]) => [
          name,
          { value: Number(milli(value)), timestamp: zero, window: 60_000 },
        ]),
      ),
    };
  }
  if (v.objectValue !== undefined) {
    return { kind: "object", valueMilli: milli(v.objectValue), timestamp: NOW };
  }
  if (v.externalValues) {
    return { kind: "external", valuesMilli: v.externalValues.map(milli), timestamp: NOW };
  }
  return resourceObservation([], v.metric.name);
}

export function podViewOf(p: VectorPod): PodView {
  return {
    name: p.name,
    labels: p.labels,
    phase: p.phase,
    deleting: p.deleting,
    startTime: at(p.startTimeSeconds),
    ready: { status: p.ready, lastTransitionTime: at(p.readyTransitionSeconds) },
    containers: p.containers.map((c) => ({
      name: c.name,
      requests: Object.fromEntries(
        Object.entries(c.requests).map(([k, q]) => [k, Number(milli(q))]),
      ),
    })),
    restartableInitContainers: [],
    podRequests: null,
  };
}

function currentValue(current: MetricValueStatus | undefined): string | undefined {
  const value = current?.averageValue ?? current?.value;
  return value === undefined ? undefined : String(value);
}

export function runReplicaCalculation(v: ReplicaVector, version: KubernetesVersion): VectorOutcome {
  const spec = metricSpec(v.metric);
  const source = metricSourceFor(spec.type);
  const diff = new Differences();
  if (!source) return diff.note(`unknown metric source ${spec.type}`).outcome();
  const context: MetricContext = {
    specReplicas: v.currentReplicas,
    statusReplicas: v.statusReplicas ?? v.currentReplicas,
    namespace: "test-namespace",
    pods: v.pods.map(podViewOf),
    tolerances: v.tolerances,
    readiness: {
      cpuInitializationPeriodMs: v.cpuInitializationPeriodSeconds * 1000,
      initialReadinessDelayMs: v.delayOfInitialReadinessStatusSeconds * 1000,
    },
    podLevelResources: true,
    now: NOW,
    version,
  };
  const result = source.compute(spec, observation(v), context, 0);
  if ("error" in v.expect) {
    if (result.ok)
      return diff
        .note(
          `expected an error containing "${v.expect.errorContains}", got ${result.replicas} replicas`,
        )
        .outcome();
    if (!result.message.includes(v.expect.errorContains)) {
      diff.note(`error "${result.message}" does not contain "${v.expect.errorContains}"`);
    }
    return diff.outcome();
  }
  if (!result.ok) return diff.note(`unexpected error: ${result.message}`).outcome();
  const status = result.status;
  const current =
    status.resource?.current ??
    status.containerResource?.current ??
    status.pods?.current ??
    status.object?.current ??
    status.external?.current;
  diff.check("replicas", v.expect.replicas, result.replicas);
  if (v.expect.utilization !== undefined)
    diff.check("utilization", v.expect.utilization, current?.averageUtilization);
  const raw = currentValue(current);
  const expectedMilli = v.expect.rawValueMilli ?? String(milli(v.expect.rawValue));
  diff.check("rawValueMilli", expectedMilli, raw === undefined ? undefined : String(milli(raw)));
  return diff.outcome();
}
