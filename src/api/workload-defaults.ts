// apps/v1 and core/v1 defaulting of the workload fields the embedded controllers read, as the
// API server applies it on create (SetDefaults_Deployment, _StatefulSet, _ReplicaSet, _RC).
import type { KubeObject } from "./types.js";

type Spec = Record<string, unknown>;

function templateLabels(spec: Spec): Record<string, string> | undefined {
  const template = spec.template as { metadata?: { labels?: Record<string, string> } } | undefined;
  return template?.metadata?.labels;
}

/** Returns the object with the defaults filled in (a new object when anything was added). */
export function applyWorkloadDefaults(object: KubeObject): KubeObject {
  const spec = { ...((object.spec as Spec | undefined) ?? {}) };
  switch (object.kind) {
    case "Deployment": {
      spec.replicas ??= 1;
      const strategy = { ...((spec.strategy as Spec | undefined) ?? {}) };
      strategy.type ??= "RollingUpdate";
      if (strategy.type === "RollingUpdate") {
        strategy.rollingUpdate = {
          maxUnavailable: "25%",
          maxSurge: "25%",
          ...((strategy.rollingUpdate as Spec | undefined) ?? {}),
        };
      }
      spec.strategy = strategy;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      break;
    }
    case "StatefulSet": {
      spec.replicas ??= 1;
      spec.podManagementPolicy ??= "OrderedReady";
      spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { partition: 0 } };
      spec.revisionHistoryLimit ??= 10;
      break;
    }
    case "ReplicaSet":
      spec.replicas ??= 1;
      break;
    case "ReplicationController": {
      spec.replicas ??= 1;
      // An RC without a selector selects its template's labels (SetDefaults_ReplicationController).
      const labels = templateLabels(spec);
      if (!spec.selector && labels) spec.selector = { ...labels };
      break;
    }
    default:
      return object;
  }
  return { ...object, spec };
}
