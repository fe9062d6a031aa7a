// Suites `podGrouping` and `requestSummation`: pod classification and request sums.
import type { PodView } from "../core/pods.js";
import { calculatePodRequests, groupPods, type PodSamples } from "../core/replica-calculator.js";
import { at, Differences, milli, NOW, sorted, type VectorOutcome } from "./common.js";

interface GroupingPod {
  name: string;
  phase: PodView["phase"];
  startTimeSeconds: number | null;
  readyCondition: { status: "True" | "False" | "Unknown"; lastTransitionSeconds: number } | null;
  deleting: boolean;
}

interface GroupingVector {
  resource: string;
  cpuInitializationPeriodSeconds: number;
  delayOfInitialReadinessStatusSeconds: number;
  pods: GroupingPod[];
  metrics: Record<string, { value: string; timestampSeconds: number; windowSeconds: number }>;
  expect: { readyPodCount: number; unready: string[]; missing: string[]; ignored: string[] };
}

export function runPodGrouping(v: GroupingVector): VectorOutcome {
  const pods: PodView[] = v.pods.map((p) => ({
    name: p.name,
    labels: {},
    phase: p.phase,
    deleting: p.deleting,
    startTime: p.startTimeSeconds === null ? null : at(p.startTimeSeconds),
    ready: p.readyCondition
      ? {
          status: p.readyCondition.status,
          lastTransitionTime: at(p.readyCondition.lastTransitionSeconds),
        }
      : null,
    containers: [],
    restartableInitContainers: [],
    podRequests: null,
  }));
  const samples: PodSamples = new Map();
  for (const [name, m] of Object.entries(v.metrics)) {
    samples.set(name, {
      value: Number(milli(m.value)),
      timestamp: at(m.timestampSeconds),
      window: m.windowSeconds * 1000,
    });
  }
  const groups = groupPods(
    pods,
    samples,
    v.resource,
    {
      cpuInitializationPeriodMs: v.cpuInitializationPeriodSeconds * 1000,
      initialReadinessDelayMs: v.delayOfInitialReadinessStatusSeconds * 1000,
    },
    NOW,
  );
  return new Differences()
    .check("readyPodCount", v.expect.readyPodCount, groups.readyPodCount)
    .check("unready", sorted(v.expect.unready), sorted(groups.unready))
    .check("missing", sorted(v.expect.missing), sorted(groups.missing))
    .check("ignored", sorted(v.expect.ignored), sorted(groups.ignored))
    .outcome();
}

interface RequestContainer {
  name: string;
  requests?: Record<string, string>;
  restartPolicy?: string;
}

interface RequestsVector {
  resource: string;
  container: string;
  podLevelResourcesEnabled: boolean;
  pods: {
    name: string;
    podRequests?: Record<string, string>;
    containers: RequestContainer[];
    initContainers?: RequestContainer[];
  }[];
  expect: { requestsMilli: Record<string, number> } | { error: true; errorEquals: string };
}

function millis(requests: Record<string, string> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, q] of Object.entries(requests ?? {})) out[k] = Number(milli(q));
  return out;
}

export function runRequestSummation(v: RequestsVector): VectorOutcome {
  const pods: PodView[] = v.pods.map((p) => ({
    name: p.name,
    labels: {},
    phase: "Running",
    deleting: false,
    startTime: null,
    ready: null,
    containers: p.containers.map((c) => ({ name: c.name, requests: millis(c.requests) })),
    restartableInitContainers: (p.initContainers ?? [])
      .filter((c) => c.restartPolicy === "Always")
      .map((c) => ({ name: c.name, requests: millis(c.requests) })),
    podRequests: p.podRequests ? millis(p.podRequests) : null,
  }));
  const result = calculatePodRequests(pods, v.container, v.resource, v.podLevelResourcesEnabled);
  const diff = new Differences();
  if ("error" in v.expect) {
    if (result.ok)
      return diff.note(`expected error "${v.expect.errorEquals}", got success`).outcome();
    return diff.check("error", v.expect.errorEquals, result.error).outcome();
  }
  if (!result.ok) return diff.note(`unexpected error: ${result.error}`).outcome();
  return diff
    .check("requestsMilli", v.expect.requestsMilli, Object.fromEntries(result.requests))
    .outcome();
}
