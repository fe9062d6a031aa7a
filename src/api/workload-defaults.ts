// apps/v1 and core/v1 defaulting of the workload kinds, as the API server applies it on every
// write (SetDefaults_Deployment, _StatefulSet, _DaemonSet, _ReplicaSet, _ReplicationController,
// and SetDefaults_PodSpec on their pod template: pod-defaults.ts).
import { defaultPodTemplate } from "./pod-defaults.js";
import type { KubeObject } from "./types.js";

type Spec = Record<string, unknown>;

function templateLabels(spec: Spec): Record<string, string> | undefined {
  const template = spec.template as { metadata?: { labels?: Record<string, string> } } | undefined;
  return template?.metadata?.labels;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function record(value: unknown): Spec {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? { ...(value as Spec) }
    : {};
}

/** Returns the object with the defaults filled in (a new object when anything was added). */
export function applyWorkloadDefaults(object: KubeObject): KubeObject {
  const spec = { ...((object.spec as Spec | undefined) ?? {}) };
  let metadata = object.metadata;
  switch (object.kind) {
    case "Deployment": {
      if (!isSet(spec.replicas)) spec.replicas = 1;
      const strategy = record(spec.strategy);
      if (!strategy.type) strategy.type = "RollingUpdate";
      if (strategy.type === "RollingUpdate") {
        const rollingUpdate = record(strategy.rollingUpdate);
        if (!isSet(rollingUpdate.maxUnavailable)) rollingUpdate.maxUnavailable = "25%";
        if (!isSet(rollingUpdate.maxSurge)) rollingUpdate.maxSurge = "25%";
        strategy.rollingUpdate = rollingUpdate;
      }
      spec.strategy = strategy;
      if (!isSet(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
      if (!isSet(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
      spec.template = defaultPodTemplate(spec.template);
      break;
    }
    case "StatefulSet": {
      if (!isSet(spec.replicas)) spec.replicas = 1;
      if (!spec.podManagementPolicy) spec.podManagementPolicy = "OrderedReady";
      const updateStrategy = record(spec.updateStrategy);
      if (!updateStrategy.type) updateStrategy.type = "RollingUpdate";
      if (updateStrategy.type === "RollingUpdate") {
        // A partition the client set survives an unset type; maxUnavailable stays unset
        // (MaxUnavailableStatefulSet is off by default).
        const rollingUpdate = record(updateStrategy.rollingUpdate);
        if (!isSet(rollingUpdate.partition)) rollingUpdate.partition = 0;
        updateStrategy.rollingUpdate = rollingUpdate;
      }
      spec.updateStrategy = updateStrategy;
      // StatefulSetAutoDeletePVC is GA: the retention policy is always filled in.
      const retention = record(spec.persistentVolumeClaimRetentionPolicy);
      if (!retention.whenDeleted) retention.whenDeleted = "Retain";
      if (!retention.whenScaled) retention.whenScaled = "Retain";
      spec.persistentVolumeClaimRetentionPolicy = retention;
      if (!isSet(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
      spec.template = defaultPodTemplate(spec.template);
      break;
    }
    case "DaemonSet": {
      const updateStrategy = record(spec.updateStrategy);
      if (!updateStrategy.type) updateStrategy.type = "RollingUpdate";
      if (updateStrategy.type === "RollingUpdate") {
        const rollingUpdate = record(updateStrategy.rollingUpdate);
        if (!isSet(rollingUpdate.maxUnavailable)) rollingUpdate.maxUnavailable = 1;
        if (!isSet(rollingUpdate.maxSurge)) rollingUpdate.maxSurge = 0;
        updateStrategy.rollingUpdate = rollingUpdate;
      }
      spec.updateStrategy = updateStrategy;
      if (!isSet(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
      spec.template = defaultPodTemplate(spec.template);
      break;
    }
    case "ReplicaSet":
      if (!isSet(spec.replicas)) spec.replicas = 1;
      spec.template = defaultPodTemplate(spec.template);
      break;
    case "ReplicationController": {
      if (!isSet(spec.replicas)) spec.replicas = 1;
      // An RC without a selector (or labels) takes its template's labels.
      const labels = templateLabels(spec);
      if (labels) {
        if (!spec.selector || Object.keys(spec.selector as object).length === 0)
          spec.selector = { ...labels };
        if (!metadata.labels || Object.keys(metadata.labels).length === 0)
          metadata = { ...metadata, labels: { ...labels } };
      }
      if (isSet(spec.template)) spec.template = defaultPodTemplate(spec.template);
      break;
    }
    default:
      return object;
  }
  return { ...object, metadata, spec };
}
