// batch/v1 validation (upstream pkg/apis/batch/validation): a Job's spec (counts, completion
// mode, the restart policy its pods need, the generated selector), a Job's update (what stays
// fixed), and a CronJob's spec (schedule, time zone, concurrency policy, history limits, its job
// template, whose selector is always generated).
import { isKnownTimeZone, parseCronSchedule } from "../api/cron.js";
import { jobRunOf } from "../api/job-run.js";
import { isRecord, semanticallyEqual } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { child, type FieldError, invalid, notSupported, required } from "../api/validation.js";
import { CONTROLLER_UID_LABEL } from "../api/workload-defaults.js";
import { validateTemplate, validateWorkload } from "./workloadvalidation.js";

type Json = Record<string, unknown>;

const IMMUTABLE = "field is immutable";

function nonNegative(spec: Json, name: string, path: string): FieldError[] {
  const value = spec[name];
  return typeof value === "number" && value < 0
    ? [invalid(child(path, name), value, "must be greater than or equal to 0")]
    : [];
}

/** Upstream's maxParallelismForIndexedJob. */
const MAX_PARALLELISM_INDEXED = 100_000;

/** validateJobSpec: what a Job's spec and a CronJob's job template share (not the selector). */
function validateJobSpecFields(spec: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
  ]) {
    errs.push(...nonNegative(spec, name, path));
  }
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== null) {
    if (mode !== "NonIndexed" && mode !== "Indexed") {
      errs.push(notSupported(child(path, "completionMode"), mode, ["NonIndexed", "Indexed"]));
    }
    if (mode === "Indexed") {
      if (typeof spec.completions !== "number") {
        errs.push(required(child(path, "completions"), "when completion mode is Indexed"));
      }
      if (typeof spec.parallelism === "number" && spec.parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(
          invalid(
            child(path, "parallelism"),
            spec.parallelism,
            `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
          ),
        );
      }
    }
  }
  const template = isRecord(spec.template) ? spec.template : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  // Horizon's annotations of how its pods run (api/job-run.ts).
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const run = jobRunOf(
    isRecord(metadata.annotations) ? (metadata.annotations as Record<string, string>) : undefined,
  );
  if (!run.ok) {
    for (const e of run.errors) {
      const at = child(path, `template.metadata.annotations[${e.annotation}]`);
      const value = (metadata.annotations as Record<string, string>)[e.annotation];
      errs.push(invalid(at, value, e.message));
    }
  }
  const restartPolicy = podSpec.restartPolicy;
  const at = child(path, "template.spec.restartPolicy");
  // Defaulting sets Always when the manifest names none: a Job's pods must not restart forever.
  if (restartPolicy === "Always" || restartPolicy === undefined || restartPolicy === "") {
    errs.push(required(at, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== "OnFailure" && restartPolicy !== "Never") {
    errs.push(notSupported(at, restartPolicy, ["OnFailure", "Never"]));
  } else if (isRecord(spec.podFailurePolicy) && restartPolicy !== "Never") {
    errs.push(
      invalid(at, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'),
    );
  }
  return errs;
}

/** validateGeneratedSelector: the template carries the labels the selector was generated from. */
function validateGeneratedSelector(job: KubeObject): FieldError[] {
  const spec = isRecord(job.spec) ? job.spec : {};
  if (spec.manualSelector === true) return [];
  const template = isRecord(spec.template) ? spec.template : {};
  const labels = (isRecord(template.metadata) ? template.metadata.labels : undefined) as
    | Record<string, string>
    | undefined;
  if (!labels) return [];
  const errs: FieldError[] = [];
  // ValidateHasLabel; generateSelector has added the labels that were missing.
  const expect = (key: string, value: string) => {
    const at = `spec.template.metadata.labels[${key}]`;
    if (labels[key] === undefined) errs.push(required(at, value));
    else if (labels[key] !== value) errs.push(invalid(at, labels, `must be '${value}'`));
  };
  expect("controller-uid", job.metadata.uid ?? "");
  expect("job-name", job.metadata.name);
  expect(CONTROLLER_UID_LABEL, job.metadata.uid ?? "");
  expect("batch.kubernetes.io/job-name", job.metadata.name);
  return errs;
}

/** ValidateJob (create) and ValidateJobUpdate (with `old`). */
export function validateJob(job: KubeObject, old?: KubeObject): FieldError[] {
  const spec = isRecord(job.spec) ? job.spec : {};
  const errs = [
    ...(old ? [] : validateGeneratedSelector(job)),
    // The selector (required, parses, selects the template; immutable) and the pod template.
    ...validateWorkload(job, old),
    ...validateJobSpecFields(spec, "spec"),
  ];
  if (old) {
    const before = isRecord(old.spec) ? old.spec : {};
    // A Job's pods are made from one template; it changes only while the Job is suspended.
    const suspended = before.suspend === true && spec.suspend === true;
    if (!suspended && !semanticallyEqual(spec.template, before.template)) {
      errs.push(invalid("spec.template", spec.template ?? null, IMMUTABLE, true));
    }
    for (const name of ["completions", "completionMode", "manualSelector"]) {
      if (!semanticallyEqual(spec[name], before[name])) {
        errs.push(invalid(child("spec", name), spec[name] ?? null, IMMUTABLE));
      }
    }
  }
  return errs;
}

/** Upstream's validTimeZoneCharacters, per `/`-separated part. */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(timeZone: unknown, path: string): FieldError[] {
  if (timeZone === undefined || timeZone === null) return [];
  const zone = String(timeZone);
  if (zone === "") return [invalid(path, zone, "timeZone must be nil or non-empty string")];
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === "local") {
    errs.push(
      invalid(
        path,
        zone,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
      ),
    );
  }
  for (const part of zone.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !TIME_ZONE_PART.test(part)) {
      return [...errs, invalid(path, zone, `unknown time zone ${zone}`)];
    }
  }
  // time.LoadLocation knows "Local" (the process's zone), in that spelling only.
  if (zone !== "Local" && !isKnownTimeZone(zone))
    errs.push(invalid(path, zone, `unknown time zone ${zone}`));
  return errs;
}

const CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"];

/** ValidateCronJobCreate / ValidateCronJobUpdate's spec checks. */
export function validateCronJob(cronJob: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = cronJob.metadata.name;
  // Its Jobs are named <name>-<minutes since epoch> (up to 11 digits) within 63 characters.
  if (!old && name.length > 52) {
    errs.push(invalid("metadata.name", name, "must be no more than 52 characters"));
  }
  const spec = isRecord(cronJob.spec) ? cronJob.spec : {};
  const schedule = typeof spec.schedule === "string" ? spec.schedule : "";
  if (schedule === "") errs.push(required("spec.schedule", ""));
  else {
    const oldSchedule = isRecord(old?.spec) ? old.spec.schedule : undefined;
    if (schedule.includes("TZ") && schedule !== oldSchedule) {
      errs.push(
        invalid(
          "spec.schedule",
          schedule,
          "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        ),
      );
    } else {
      const parsed = parseCronSchedule(schedule);
      if (!parsed.ok) errs.push(invalid("spec.schedule", schedule, parsed.error));
    }
  }
  errs.push(...validateTimeZone(spec.timeZone, "spec.timeZone"));
  errs.push(...nonNegative(spec, "startingDeadlineSeconds", "spec"));
  const policy = spec.concurrencyPolicy;
  if (policy === undefined || policy === null || policy === "") {
    errs.push(required("spec.concurrencyPolicy", ""));
  } else if (!CONCURRENCY_POLICIES.includes(String(policy))) {
    errs.push(notSupported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES));
  }
  const jobTemplate = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
  const jobSpec = isRecord(jobTemplate.spec) ? jobTemplate.spec : {};
  const at = "spec.jobTemplate.spec";
  errs.push(...validateJobSpecFields(jobSpec, at));
  errs.push(
    ...validateTemplate(isRecord(jobSpec.template) ? jobSpec.template : {}, `${at}.template`),
  );
  if (jobSpec.selector !== undefined && jobSpec.selector !== null) {
    errs.push(
      invalid(child(at, "selector"), jobSpec.selector, "`selector` will be auto-generated", true),
    );
  }
  if (jobSpec.manualSelector === true) {
    errs.push(notSupported(child(at, "manualSelector"), true, ["nil", "false"]));
  }
  errs.push(...nonNegative(spec, "successfulJobsHistoryLimit", "spec"));
  errs.push(...nonNegative(spec, "failedJobsHistoryLimit", "spec"));
  return errs;
}
