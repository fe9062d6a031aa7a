// How long a Job's pods run in Horizon's cluster and how they end, read from the pod template's
// annotations (Horizon's own: a real cluster runs the container's command instead):
// `horizon.dev/run-duration` (a Go duration, 5s when absent) and `horizon.dev/exit-code` (0-255,
// 0 when absent; any other code fails the pod, as a container exiting with it does).
import { parseDuration } from "./duration.js";

export const RUN_DURATION_ANNOTATION = "horizon.dev/run-duration";
export const EXIT_CODE_ANNOTATION = "horizon.dev/exit-code";
export const DEFAULT_RUN_DURATION_MS = 5000;

export interface JobRun {
  runDurationMs: number;
  exitCode: number;
}

/** The run a template's annotations describe, or an error per bad annotation (by key). */
export function jobRunOf(
  annotations: Record<string, string> | undefined,
): { ok: true; run: JobRun } | { ok: false; errors: { annotation: string; message: string }[] } {
  const errors: { annotation: string; message: string }[] = [];
  let runDurationMs = DEFAULT_RUN_DURATION_MS;
  const duration = annotations?.[RUN_DURATION_ANNOTATION];
  if (duration !== undefined) {
    const parsed = parseDuration(duration);
    if (!parsed.ok) errors.push({ annotation: RUN_DURATION_ANNOTATION, message: parsed.error });
    else if (parsed.ms < 0)
      errors.push({ annotation: RUN_DURATION_ANNOTATION, message: "must not be negative" });
    else runDurationMs = parsed.ms;
  }
  let exitCode = 0;
  const code = annotations?.[EXIT_CODE_ANNOTATION];
  if (code !== undefined) {
    if (!/^[0-9]{1,3}$/.test(code) || Number(code) > 255) {
      errors.push({
        annotation: EXIT_CODE_ANNOTATION,
        message: "must be an exit code from 0 to 255",
      });
    } else exitCode = Number(code);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, run: { runDurationMs, exitCode } };
}
