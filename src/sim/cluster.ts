// The simulator's side of the embedded cluster: the ClusterModel a Scenario describes, and the
// scenario's events applied through the cluster's primitive operations (the virtual-time runner
// and `horizon up`'s real-time driver both apply them here).
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { mergePatch } from "../api/patch/merge-patch.js";
import { strategicMergePatch } from "../api/patch/strategic-merge-patch.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import type { ClusterModel } from "../cluster/cluster-model.js";
import type { PodRecord } from "../cluster/model.js";
import { podTemplatePatchMeta } from "../kinds/patchmeta.js";
import { Random, streamSeed } from "../registry/random.js";
import type { ScenarioEvent, ScenarioSpec } from "./scenario-types.js";

/** The cluster's part of a scenario. The models are shared, not copied: events hold the same refs. */
export function clusterModelOf(spec: ScenarioSpec): ClusterModel {
  return {
    seed: spec.seed,
    capacityPods: spec.cluster.capacityPods,
    metricsResolutionMs: spec.cluster.metricsResolutionMs,
    workloads: spec.workloads,
    metrics: spec.metrics,
  };
}

/** What applying an event may touch besides the cluster: the controller (restartController). */
export interface EventContext {
  cluster: EmbeddedCluster;
  controller: { restart(now: number): void } | null;
  /** Epoch ms the event is applied at. */
  now: number;
}

/** Applies one scenario event when it falls due. */
export function applyScenarioEvent(event: ScenarioEvent, context: EventContext): void {
  const { cluster } = context;
  switch (event.type) {
    case "updateTemplate": {
      const ref = event.workload;
      const current = cluster.store.get(ref.kind, ref.namespace, ref.name);
      if (!current) return;
      const spec = current.spec as { template?: unknown };
      // As `kubectl patch` of the workload's spec.template. The scenario checked the patch against
      // the manifest's template; one that no longer applies changes nothing, as a failed patch.
      const patched = strategicMergePatch(
        spec.template ?? {},
        event.patch,
        podTemplatePatchMeta(ref.kind),
      );
      if (!patched.ok) return;
      const template = patched.value;
      cluster.update({
        ...current,
        metadata: { ...current.metadata, resourceVersion: undefined },
        spec: { ...(current.spec as object), template },
      });
      return;
    }
    case "killPods": {
      const workload = cluster.workloadOf(event.workload);
      if (!workload) return;
      const candidates: PodRecord[] = [];
      for (const owner of workload.owners)
        for (const pod of owner.pods) if (pod.active) candidates.push(pod);
      candidates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Seeded by workload and time: equal scenarios kill the same pods.
      const random = new Random(
        streamSeed(cluster.model.seed, `kill/${workload.key}/${event.atMs}`),
      );
      const victims: PodRecord[] = [];
      for (let i = 0; i < event.count && candidates.length > 0; i++) {
        const [victim] = candidates.splice(random.int(candidates.length), 1);
        if (victim) victims.push(victim);
      }
      cluster.deletePods(victims);
      return;
    }
    case "metricsOutage":
      cluster.metrics.outage(event.apis, cluster.now + event.durationMs);
      return;
    case "patchHpa": {
      const current = cluster.store.get("HorizontalPodAutoscaler", event.namespace, event.name);
      if (!current) return;
      const patched = mergePatch(current, event.patch) as KubeObject;
      const defaulted = setDefaultsHorizontalPodAutoscaler(
        patched as unknown as HorizontalPodAutoscaler,
      );
      cluster.store.update({
        ...(defaulted as unknown as KubeObject),
        metadata: { ...current.metadata, ...(patched.metadata ?? {}), resourceVersion: undefined },
      });
      return;
    }
    case "setTraffic":
      cluster.setTraffic(event.workload, event.traffic);
      return;
    case "scale":
      cluster.scaleWorkload(
        event.workload.namespace,
        event.workload.kind,
        event.workload.name,
        event.replicas,
      );
      return;
    case "restartController":
      // Its in-memory histories are lost, as upstream's are.
      context.controller?.restart(context.now);
      return;
  }
}
