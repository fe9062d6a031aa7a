// The CronJob controller (upstream pkg/controller/cronjob, v2): at the latest schedule time that
// has passed since the last one (within startingDeadlineSeconds), a Job
// `<name>-<scheduled minutes since the epoch>` from the jobTemplate, subject to the concurrency
// policy (Allow, Forbid: skip while one runs, Replace: delete the running ones); finished Jobs
// leave `active` (SawCompletedJob) and the oldest beyond the history limits are deleted; status
// and the cronjob-controller's Events. Times are the cluster's clock, in the CronJob's timeZone
// (UTC when unset).
import { nextScheduleTime, parseCronSchedule } from "../../api/cron.js";
import { rfc3339 } from "../../api/time.js";
import type { KubeObject } from "../../api/types.js";
import { prepareJob } from "../../api/workload-defaults.js";
import { uidFor } from "../../registry/random.js";
import type { ControllerContext } from "./context.js";

const COMPONENT = "cronjob-controller";
export const SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** Upstream gives up counting missed times past this many (TooManyMissedTimes). */
const MAX_MISSED = 100;

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate?: { metadata?: KubeObject["metadata"] | Record<string, unknown>; spec?: unknown };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

interface CronJobStatus {
  active?: { uid?: string }[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

/** The Job's finished condition (Complete or Failed), if it has one. */
function finishedAs(job: KubeObject): "Complete" | "Failed" | null {
  const conditions = ((job.status as { conditions?: { type: string; status: string }[] })
    ?.conditions ?? []) as { type: string; status: string }[];
  for (const type of ["Complete", "Failed"] as const) {
    if (conditions.some((c) => c.type === type && c.status === "True")) return type;
  }
  return null;
}

/** RFC 3339 in the zone, as Go's Time.In(tz).Format(time.RFC3339) prints it. */
function zonedRfc3339(ms: number, timeZone: string): string {
  if (timeZone === "UTC") return rfc3339(ms);
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(ms))
    .find((p) => p.type === "timeZoneName")?.value;
  const match = /GMT([+-])(\d\d):(\d\d)/.exec(parts ?? "");
  if (!match) return rfc3339(ms);
  const offsetMs =
    (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) * 60_000;
  return `${rfc3339(ms + offsetMs).slice(0, -1)}${match[1]}${match[2]}:${match[3]}`;
}

function reference(job: KubeObject) {
  return {
    kind: "Job",
    namespace: job.metadata.namespace,
    name: job.metadata.name,
    uid: job.metadata.uid,
    apiVersion: "batch/v1",
    resourceVersion: job.metadata.resourceVersion,
  };
}

/** The controller's pass over one CronJob; returns when it must look again (null: not by itself). */
export function reconcileCronJob(ctx: ControllerContext, cronJob: KubeObject): number | null {
  const spec = (cronJob.spec ?? {}) as CronJobSpec;
  const previous = (cronJob.status ?? {}) as CronJobStatus;
  const namespace = cronJob.metadata.namespace ?? "default";
  const uid = cronJob.metadata.uid;
  const jobs = ctx.store
    .list("Job", namespace)
    .filter((j) => j.metadata.ownerReferences?.some((r) => r.controller && r.uid === uid));
  const wasActive = new Set((previous.active ?? []).map((r) => r.uid));
  let lastSuccessfulTime = previous.lastSuccessfulTime;
  for (const job of jobs) {
    const finished = finishedAs(job);
    if (!finished || !wasActive.has(job.metadata.uid)) continue;
    ctx.event(
      cronJob,
      COMPONENT,
      "SawCompletedJob",
      `Saw completed job: ${job.metadata.name}, condition: ${finished}`,
    );
    const completed = (job.status as { completionTime?: string } | undefined)?.completionTime;
    if (
      finished === "Complete" &&
      completed &&
      (!lastSuccessfulTime || completed > lastSuccessfulTime)
    )
      lastSuccessfulTime = completed;
  }
  let running = jobs.filter((j) => finishedAs(j) === null && !j.metadata.deletionTimestamp);
  const deleteJob = (job: KubeObject) => {
    ctx.deleteAsClient(job);
    ctx.event(cronJob, COMPONENT, "SuccessfulDelete", `Deleted job ${job.metadata.name}`);
  };
  // History: the oldest finished Jobs beyond each limit go.
  for (const [kind, limit] of [
    ["Complete", spec.successfulJobsHistoryLimit],
    ["Failed", spec.failedJobsHistoryLimit],
  ] as const) {
    if (typeof limit !== "number") continue;
    const finished = jobs
      .filter((j) => finishedAs(j) === kind && !j.metadata.deletionTimestamp)
      .sort((a, b) =>
        (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""),
      );
    for (const job of finished.slice(0, Math.max(0, finished.length - limit))) deleteJob(job);
  }

  let lastScheduleTime = previous.lastScheduleTime;
  let wake: number | null = null;
  const parsed = parseCronSchedule(spec.schedule ?? "");
  if (parsed.ok && !cronJob.metadata.deletionTimestamp && spec.suspend !== true) {
    const timeZone = spec.timeZone ?? "UTC";
    const now = ctx.now;
    let earliest = Date.parse(lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? "");
    if (!Number.isFinite(earliest)) earliest = now;
    const deadline = spec.startingDeadlineSeconds;
    if (typeof deadline === "number") earliest = Math.max(earliest, now - deadline * 1000);
    // The latest schedule time that has passed since `earliest`; only it may start.
    let due: number | null = null;
    let next = nextScheduleTime(parsed.schedule, earliest, timeZone);
    for (let missed = 0; next !== null && next <= now; missed++) {
      due = next;
      if (missed === MAX_MISSED) {
        // Upstream's warning of a controller that was down for long; only the latest starts.
        next = nextScheduleTime(parsed.schedule, now, timeZone);
        break;
      }
      next = nextScheduleTime(parsed.schedule, next, timeZone);
    }
    wake = next;
    if (due !== null) {
      const scheduled = due;
      if (spec.concurrencyPolicy === "Forbid" && running.length > 0) {
        ctx.event(
          cronJob,
          COMPONENT,
          "JobAlreadyActive",
          "Not starting job because prior execution is running and concurrency policy is Forbid",
        );
      } else {
        if (spec.concurrencyPolicy === "Replace") {
          for (const job of running) deleteJob(job);
          running = [];
        }
        const name = `${cronJob.metadata.name}-${Math.floor(scheduled / 60_000)}`;
        if (!ctx.store.get("Job", namespace, name)) {
          const job = ctx.createAsClient(jobFrom(cronJob, spec, name, scheduled, ctx.now));
          ctx.event(cronJob, COMPONENT, "SuccessfulCreate", `Created job ${name}`);
          running.push(job);
        }
        lastScheduleTime = rfc3339(scheduled);
      }
    }
  }
  const status: Record<string, unknown> = {};
  if (running.length > 0) status.active = running.map(reference);
  if (lastScheduleTime) status.lastScheduleTime = lastScheduleTime;
  if (lastSuccessfulTime) status.lastSuccessfulTime = lastSuccessfulTime;
  ctx.writeStatus({ obj: cronJob }, status);
  return wake;
}

/** getJobFromTemplate2: the template's labels and annotations, the scheduled time, the owner. */
function jobFrom(
  cronJob: KubeObject,
  spec: CronJobSpec,
  name: string,
  scheduled: number,
  now: number,
): KubeObject {
  const template = spec.jobTemplate ?? {};
  const meta = (template.metadata ?? {}) as KubeObject["metadata"];
  const namespace = cronJob.metadata.namespace ?? "default";
  return prepareJob({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace,
      uid: uidFor(`${namespace}/Job/${name}@${now}`),
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      annotations: {
        ...(meta.annotations ?? {}),
        [SCHEDULED_TIMESTAMP_ANNOTATION]: zonedRfc3339(scheduled, spec.timeZone ?? "UTC"),
      },
      ownerReferences: [
        {
          apiVersion: "batch/v1",
          kind: "CronJob",
          name: cronJob.metadata.name,
          uid: cronJob.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
      ],
    },
    spec: template.spec ?? {},
  });
}
