// batch/v1 CronJob: Jobs made from its template on a cron schedule. kubectl ≥ 1.32 sends
// `kubectl create cronjob` as protobuf, so the spec carries its field numbers.
import { formatLabelSelector } from "../api/scale.js";
import type { KubeObject, LabelSelector } from "../api/types.js";
import { applyWorkloadDefaults } from "../api/workload-defaults.js";
import { validateCronJob } from "./batchvalidation.js";
import { JOB_SPEC } from "./job.js";
import { OBJECT_META, root } from "./meta.js";
import {
  AGE,
  asRecord,
  CONTAINERS,
  col,
  containerCells,
  hasTime,
  IMAGES,
  NAME,
  since,
} from "./printing.js";
import { atomicOf, bool, i32, i64, ptr, str, struct, time } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const OBJECT_REFERENCE = struct(
  {
    kind: str(1),
    namespace: str(2),
    name: str(3),
    uid: str(4),
    apiVersion: str(5),
    resourceVersion: str(6),
    fieldPath: str(7),
  },
  { go: "v1.ObjectReference", atomic: true },
);

const CRONJOB_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const { status: _status, ...rest } = applyWorkloadDefaults(object);
    return checked(rest as KubeObject, validateCronJob(rest as KubeObject));
  },
  prepareForUpdate(next, current) {
    const value = applyWorkloadDefaults(next);
    return checked(value, validateCronJob(value, current));
  },
};

/** printBoolPtr. */
function boolCell(value: unknown): string {
  if (typeof value !== "boolean") return "<unset>";
  return value ? "True" : "False";
}

export const cronJob: KindDefinition<"CronJob"> = {
  kind: "CronJob",
  resource: "cronjobs",
  singular: "cronjob",
  description:
    "A CronJob creates a Job from its jobTemplate at each time its cron schedule names, in its timeZone (UTC when unset), on the cluster's clock; it keeps the latest successful and failed Jobs up to its history limits.",
  group: "batch",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root(
        "v1.CronJob",
        struct(
          {
            schedule: str(1),
            timeZone: str(8, ptr),
            startingDeadlineSeconds: i64(2, ptr),
            concurrencyPolicy: str(3, { go: "v1.ConcurrencyPolicy" }),
            suspend: bool(4, ptr),
            jobTemplate: struct(
              { metadata: OBJECT_META, spec: JOB_SPEC },
              { go: "v1.JobTemplateSpec", zero: true, proto: 5 },
            ),
            successfulJobsHistoryLimit: i32(6, ptr),
            failedJobsHistoryLimit: i32(7, ptr),
          },
          { go: "v1.CronJobSpec", zero: true, proto: 2 },
        ),
        struct(
          {
            active: atomicOf(OBJECT_REFERENCE),
            lastScheduleTime: time(undefined, ptr),
            lastSuccessfulTime: time(undefined, ptr),
          },
          { go: "v1.CronJobStatus", zero: true },
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["cj"],
  categories: ["all"],
  gcPolicy: "DeleteDependents",
  generation: "spec",
  fieldSelectors: [],
  strategy: CRONJOB_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Schedule",
        "string",
        "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
      ),
      col(
        "Timezone",
        "string",
        "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process.",
      ),
      col(
        "Suspend",
        "boolean",
        "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
      ),
      col("Active", "integer", "A list of pointers to currently running jobs."),
      col(
        "Last Schedule",
        "string",
        "Information when was the last time the job was successfully scheduled.",
      ),
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
      const jobSpec = asRecord(asRecord(spec.jobTemplate).spec);
      const [names, images] = containerCells(jobSpec.template);
      return [
        obj.metadata.name,
        typeof spec.schedule === "string" ? spec.schedule : "",
        typeof spec.timeZone === "string" ? spec.timeZone : "<none>",
        boolCell(spec.suspend),
        Array.isArray(status.active) ? status.active.length : 0,
        hasTime(status.lastScheduleTime) ? since(status.lastScheduleTime, now) : "<none>",
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(jobSpec.selector as LabelSelector | undefined),
      ];
    },
  },
};
