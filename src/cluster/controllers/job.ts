// The Job controller (upstream pkg/controller/job), NonIndexed completion: up to `parallelism`
// pods at once until `completions` of them have succeeded (or, without completions, until one
// has and none runs), failed pods replaced after the back-off (10 s doubling, at most 6 min)
// until more than `backoffLimit` have failed, `activeDeadlineSeconds`, suspend and resume;
// status counts, startTime / completionTime and conditions with upstream's reasons, and the
// job-controller's Events.
import { rfc3339 } from "../../api/time.js";
import { namespaceTerminating } from "../../registry/namespace.js";
import type { PodOwner, PodRecord } from "../model.js";
import type { ControllerContext } from "./context.js";

const COMPONENT = "job-controller";

/** Upstream's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;

interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number | null;
  suspend?: boolean;
}

interface JobCondition {
  type: string;
  status: "True" | "False";
  lastProbeTime: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
}

const isTrue = (conditions: readonly JobCondition[], type: string) =>
  conditions.some((c) => c.type === type && c.status === "True");

/** The conditions with `type` set to `status` (its transition time kept when unchanged). */
function withCondition(
  conditions: readonly JobCondition[],
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  now: string,
): JobCondition[] {
  const current = conditions.find((c) => c.type === type);
  if (current && current.status === status && current.reason === reason) return [...conditions];
  const next: JobCondition = {
    type,
    status,
    lastProbeTime: now,
    lastTransitionTime: now,
    reason,
    message,
  };
  return current ? conditions.map((c) => (c === current ? next : c)) : [...conditions, next];
}

/** The Job controller's pass over one Job and its pods. */
export function reconcileJob(ctx: ControllerContext, owner: PodOwner): void {
  const job = owner.obj;
  const spec = (job.spec ?? {}) as JobSpec;
  const previous = (job.status ?? {}) as JobStatus;
  const now = rfc3339(ctx.now);
  let conditions = previous.conditions ?? [];
  let startTime = previous.startTime;
  let completionTime = previous.completionTime;
  const finished = isTrue(conditions, "Complete") || isTrue(conditions, "Failed");
  // A Job being deleted, or in a terminating namespace, starts nothing.
  const manage =
    !finished &&
    job.metadata.deletionTimestamp === undefined &&
    !namespaceTerminating(ctx.store, owner.namespace);
  const pods = [...owner.pods];
  const active = () => pods.filter((p) => p.active && p.stage !== "gone");
  const succeeded = pods.filter((p) => p.stage === "succeeded").length;
  const failedPods = pods.filter((p) => p.stage === "failed");
  const failed = failedPods.length;
  let wakeAt: number | null = null;

  const removeAll = () => {
    for (const pod of active()) deletePod(ctx, owner, pod);
  };
  const fail = (reason: string, message: string) => {
    removeAll();
    conditions = withCondition(conditions, "FailureTarget", "True", reason, message, now);
    conditions = withCondition(conditions, "Failed", "True", reason, message, now);
    ctx.event(job, COMPONENT, reason, message, "Warning");
  };

  if (manage && spec.suspend === true) {
    if (!isTrue(conditions, "Suspended")) {
      removeAll();
      conditions = withCondition(
        conditions,
        "Suspended",
        "True",
        "JobSuspended",
        "Job suspended",
        now,
      );
      // A suspended Job's clock stops; it starts again when resumed.
      startTime = undefined;
      ctx.event(job, COMPONENT, "Suspended", "Job suspended");
    }
  } else if (manage) {
    if (isTrue(conditions, "Suspended")) {
      conditions = withCondition(
        conditions,
        "Suspended",
        "False",
        "JobResumed",
        "Job resumed",
        now,
      );
      ctx.event(job, COMPONENT, "Resumed", "Job resumed");
    }
    startTime ??= now;
    const started = Date.parse(startTime);
    const deadline =
      typeof spec.activeDeadlineSeconds === "number"
        ? started + spec.activeDeadlineSeconds * 1000
        : null;
    const completions = typeof spec.completions === "number" ? spec.completions : null;
    const parallelism = spec.parallelism ?? 1;
    const running = active();
    const complete =
      completions !== null ? succeeded >= completions : succeeded > 0 && running.length === 0;
    if (complete) {
      removeAll();
      const message = "Reached expected number of succeeded pods";
      conditions = withCondition(
        conditions,
        "SuccessCriteriaMet",
        "True",
        "CompletionsReached",
        message,
        now,
      );
      conditions = withCondition(
        conditions,
        "Complete",
        "True",
        "CompletionsReached",
        message,
        now,
      );
      completionTime = now;
      ctx.event(job, COMPONENT, "Completed", "Job completed");
    } else if (failed > (spec.backoffLimit ?? 6)) {
      fail("BackoffLimitExceeded", "Job has reached the specified backoff limit");
    } else if (deadline !== null && ctx.now >= deadline) {
      fail("DeadlineExceeded", "Job was active longer than specified deadline");
    } else {
      const wanted =
        completions === null
          ? succeeded > 0
            ? 0
            : parallelism
          : Math.max(0, Math.min(parallelism, completions - succeeded));
      let create = wanted - running.length;
      // Failed pods are replaced only after the back-off since the latest failure.
      if (create > 0 && failed > 0) {
        const lastFailure = Math.max(...failedPods.map((p) => p.failedAt ?? 0));
        const backoff = Math.min(
          POD_FAILURE_BACKOFF_MS * 2 ** (failed - 1),
          MAX_POD_FAILURE_BACKOFF_MS,
        );
        if (ctx.now < lastFailure + backoff) {
          wakeAt = lastFailure + backoff;
          create = 0;
        }
      }
      for (let i = 0; i < create; i++) {
        const pod = ctx.createPod(owner, -1);
        if (!pod) break;
        ctx.event(job, COMPONENT, "SuccessfulCreate", `Created pod: ${pod.name}`);
      }
      if (running.length > wanted) {
        // Too many running (parallelism lowered): the newest go.
        const newestFirst = [...running].sort((a, b) => b.createdAt - a.createdAt);
        for (const pod of newestFirst.slice(0, running.length - wanted)) deletePod(ctx, owner, pod);
      }
      if (deadline !== null) wakeAt = wakeAt === null ? deadline : Math.min(wakeAt, deadline);
    }
  }
  ctx.progressCheck(owner.workload, wakeAt);

  const remaining = active();
  const status: Record<string, unknown> = {};
  if (conditions.length > 0) status.conditions = conditions;
  if (startTime !== undefined) status.startTime = startTime;
  if (completionTime !== undefined) status.completionTime = completionTime;
  if (remaining.length > 0) status.active = remaining.length;
  if (succeeded > 0) status.succeeded = succeeded;
  if (failed > 0) status.failed = failed;
  status.terminating = pods.filter((p) => p.stage === "terminating").length;
  status.uncountedTerminatedPods = {};
  status.ready = remaining.filter((p) => p.isReady).length;
  ctx.writeStatus(owner, status);
}

function deletePod(ctx: ControllerContext, owner: PodOwner, pod: PodRecord): void {
  ctx.deletePod(pod);
  ctx.event(owner.obj, COMPONENT, "SuccessfulDelete", `Deleted pod: ${pod.name}`);
}
