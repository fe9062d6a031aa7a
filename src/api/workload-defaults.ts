// apps/v1, batch/v1 and core/v1 defaulting of the workload kinds, as the API server applies it
// on every write (SetDefaults_Deployment, _StatefulSet, _DaemonSet, _ReplicaSet, _Job, _CronJob,
// _ReplicationController, and SetDefaults_PodSpec on their pod template: pod-defaults.ts), and
// the selector a Job's create generates (the Job strategy's generateSelector).
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

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status defaults to True. */
function withPodConditionStatuses(policy: unknown): unknown {
  if (!isSet(policy) || !Array.isArray((policy as Spec).rules)) return policy;
  const rules = ((policy as Spec).rules as unknown[]).map((rule) => {
    const r = record(rule);
    if (!Array.isArray(r.onPodConditions)) return rule;
    const onPodConditions = r.onPodConditions.map((pattern) => {
      const p = record(pattern);
      return p.status ? pattern : { ...p, status: "True" };
    });
    return { ...r, onPodConditions };
  });
  return { ...(policy as Spec), rules };
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
    case "Job": {
      // Both unset: one pod, once. Only parallelism set: a work queue (completions stays unset).
      if (!isSet(spec.completions) && !isSet(spec.parallelism)) spec.completions = 1;
      if (!isSet(spec.parallelism)) spec.parallelism = 1;
      if (!isSet(spec.backoffLimit))
        spec.backoffLimit = isSet(spec.backoffLimitPerIndex) ? 2_147_483_647 : 6;
      const labels = templateLabels(spec);
      if (labels && (!metadata.labels || Object.keys(metadata.labels).length === 0))
        metadata = { ...metadata, labels: { ...labels } };
      if (!isSet(spec.completionMode)) spec.completionMode = "NonIndexed";
      if (!isSet(spec.suspend)) spec.suspend = false;
      if (isSet(spec.podFailurePolicy))
        spec.podFailurePolicy = withPodConditionStatuses(spec.podFailurePolicy);
      if (!isSet(spec.podReplacementPolicy))
        spec.podReplacementPolicy = isSet(spec.podFailurePolicy) ? "Failed" : "TerminatingOrFailed";
      if (!isSet(spec.manualSelector)) spec.manualSelector = false;
      spec.template = defaultPodTemplate(spec.template);
      break;
    }
    case "CronJob": {
      if (!spec.concurrencyPolicy) spec.concurrencyPolicy = "Allow";
      if (!isSet(spec.suspend)) spec.suspend = false;
      if (!isSet(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
      if (!isSet(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
      // The job template's pod template and pod failure policy get their defaults, not a Job's.
      const jobTemplate = record(spec.jobTemplate);
      const jobSpec = record(jobTemplate.spec);
      if (isSet(jobSpec.podFailurePolicy))
        jobSpec.podFailurePolicy = withPodConditionStatuses(jobSpec.podFailurePolicy);
      jobSpec.template = defaultPodTemplate(jobSpec.template);
      spec.jobTemplate = { ...jobTemplate, spec: jobSpec };
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

/** The labels a Job's pods carry, and its generated selector's (batch/v1 well-known labels). */
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";

/**
 * The Job strategy's generateSelector, for a Job whose uid is known and whose manualSelector is
 * not true: the job-name and controller-uid labels (legacy and batch.kubernetes.io/) added to the
 * template where absent, and the selector on batch.kubernetes.io/controller-uid.
 */
export function withGeneratedJobSelector(job: KubeObject): KubeObject {
  const spec = (job.spec ?? {}) as Spec;
  const uid = job.metadata.uid;
  if (spec.manualSelector === true || !uid) return job;
  const template = record(spec.template);
  const templateMeta = record(template.metadata);
  const labels = { ...(record(templateMeta.labels) as Record<string, string>) };
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= job.metadata.name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= uid;
  const selector = record(spec.selector);
  const matchLabels = { ...(record(selector.matchLabels) as Record<string, string>) };
  matchLabels[CONTROLLER_UID_LABEL] ??= uid;
  return {
    ...job,
    spec: {
      ...spec,
      selector: { ...selector, matchLabels },
      template: { ...template, metadata: { ...templateMeta, labels } },
    },
  };
}

/**
 * A new Job as the API server stores it: defaults, its generated selector, then defaults again
 * (a Job without labels takes its template's, generated ones included, as a read back does).
 */
export function prepareJob(job: KubeObject): KubeObject {
  return applyWorkloadDefaults(withGeneratedJobSelector(applyWorkloadDefaults(job)));
}
