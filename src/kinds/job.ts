// batch/v1 Job: pods that run to completion. kubectl ≥ 1.32 sends `kubectl create job` as
// protobuf, so the spec carries its field numbers.
import { formatLabelSelector } from "../api/scale.js";
import type { KubeObject, LabelSelector } from "../api/types.js";
import { applyWorkloadDefaults, prepareJob } from "../api/workload-defaults.js";
import { validateJob } from "./batchvalidation.js";
import { condition, conditions, LABEL_SELECTOR, root } from "./meta.js";
import { WORKLOAD_TEMPLATE } from "./podspec.js";
import {
  AGE,
  asRecord,
  CONTAINERS,
  col,
  containerCells,
  hasTime,
  humanDuration,
  IMAGES,
  int,
  NAME,
  since,
} from "./printing.js";
import { bool, DEDUCED, i32, i64, pb, ptr, str, strs, struct, time } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

/** JobSpec (also a CronJob's jobTemplate.spec). */
export const JOB_SPEC = struct(
  {
    parallelism: i32(1, ptr),
    completions: i32(2, ptr),
    activeDeadlineSeconds: i64(3, ptr),
    podFailurePolicy: DEDUCED,
    successPolicy: DEDUCED,
    backoffLimit: i32(7, ptr),
    backoffLimitPerIndex: i32(12, ptr),
    maxFailedIndexes: i32(13, ptr),
    selector: pb(4, LABEL_SELECTOR, ptr),
    manualSelector: bool(5, ptr),
    template: pb(6, WORKLOAD_TEMPLATE),
    ttlSecondsAfterFinished: i32(8, ptr),
    completionMode: str(9, { ptr: true, go: "v1.CompletionMode" }),
    suspend: bool(10, ptr),
    podReplacementPolicy: str(14, { ptr: true, go: "v1.PodReplacementPolicy" }),
    managedBy: str(15, ptr),
  },
  { go: "v1.JobSpec", zero: true, proto: 2 },
);

const JOB_STATUS = struct(
  {
    conditions: conditions(condition("v1.JobCondition", { lastProbeTime: time() })),
    startTime: time(undefined, ptr),
    completionTime: time(undefined, ptr),
    active: i32(),
    succeeded: i32(),
    failed: i32(),
    terminating: i32(undefined, ptr),
    completedIndexes: str(),
    failedIndexes: str(undefined, ptr),
    uncountedTerminatedPods: struct(
      { succeeded: strs(), failed: strs() },
      { go: "v1.UncountedTerminatedPods", ptr: true },
    ),
    ready: i32(undefined, ptr),
  },
  { go: "v1.JobStatus", zero: true },
);

function hasCondition(status: Record<string, unknown>, type: string): boolean {
  const list = Array.isArray(status.conditions) ? status.conditions : [];
  return list.some((c) => asRecord(c).type === type && asRecord(c).status === "True");
}

/** printJob's STATUS (kubectl ≥ 1.31 shows the column the server sends). */
function jobStatusCell(obj: KubeObject): string {
  const status = asRecord(obj.status);
  if (hasCondition(status, "Complete")) return "Complete";
  if (hasCondition(status, "Failed")) return "Failed";
  if (obj.metadata.deletionTimestamp) return "Terminating";
  if (hasCondition(status, "Suspended")) return "Suspended";
  if (hasCondition(status, "FailureTarget")) return "FailureTarget";
  return "Running";
}

/** printJob's COMPLETIONS. */
function completionsCell(spec: Record<string, unknown>, status: Record<string, unknown>): string {
  const succeeded = int(status.succeeded);
  if (typeof spec.completions === "number") return `${succeeded}/${spec.completions}`;
  const parallelism = int(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's DURATION: start to completion, or to now while it runs. */
function durationCell(status: Record<string, unknown>, now: number): string {
  if (!hasTime(status.startTime)) return "";
  const start = Date.parse(status.startTime as string);
  const end = hasTime(status.completionTime) ? Date.parse(status.completionTime as string) : now;
  return humanDuration(end - start);
}

const JOB_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    // The uid is known before the store writes it: the generated selector names it.
    const { status: _status, ...rest } = object;
    const job = prepareJob({
      ...(rest as KubeObject),
      metadata: { ...object.metadata, uid: crypto.randomUUID() },
    });
    return checked(job, validateJob(job));
  },
  prepareForUpdate(next, current) {
    const job = applyWorkloadDefaults(next);
    return checked(job, validateJob(job, current));
  },
};

export const job: KindDefinition<"Job"> = {
  kind: "Job",
  resource: "jobs",
  singular: "job",
  description:
    "A Job runs pods from its template until the given number of them have completed successfully, retrying failed ones up to its backoffLimit. Horizon's Job pods run for the pod template's `horizon.dev/run-duration` (5s by default).",
  group: "batch",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root("v1.Job", JOB_SPEC, JOB_STATUS),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "spec",
  fieldSelectors: [],
  strategy: JOB_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Status", "string", "Status of the job."),
      col(
        "Completions",
        "string",
        "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
      ),
      col("Duration", "string", "Time required to complete the job."),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        jobStatusCell(obj),
        completionsCell(spec, status),
        durationCell(status, now),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(spec.selector as LabelSelector | undefined),
      ];
    },
  },
};
