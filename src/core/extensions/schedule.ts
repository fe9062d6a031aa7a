// Scheduled floors (`horizon.dev/schedule`, `horizon.dev/time-zone`): during each window, from a
// cron time for its duration, the HPA's minReplicas is raised to the window's; its metrics are
// still free to go higher. Cron patterns are standard 5-field ones read by croner, in the time
// zone of the annotation (UTC by default), evaluated at the sync's `now` (no clock, no timers).
import { Cron } from "croner";
import { z } from "zod";
import { formatDuration, parseDuration } from "../../api/duration.js";

export interface ScheduleWindow {
  cron: string;
  durationMs: number;
  minReplicas: number;
  /** The parsed pattern (croner; never started). */
  pattern: Cron;
}

export interface Schedule {
  timeZone: string;
  windows: ScheduleWindow[];
}

const ENTRY = z.strictObject({
  cron: z.string(),
  duration: z.string(),
  minReplicas: z.number().int().min(0).max(2_147_483_647),
});

/**
 * Reads the schedule annotation; errors are messages about it (and the time zone's), every
 * entry's, as upstream's validation lists every cause. `maxReplicas`: the HPA's, when known.
 */
export function parseSchedule(
  raw: string,
  timeZone: string | undefined,
  maxReplicas?: number,
): { ok: true; schedule: Schedule } | { ok: false; errors: { time?: true; message: string }[] } {
  const errors: { time?: true; message: string }[] = [];
  const zone = timeZone ?? "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    errors.push({
      time: true,
      message: `unknown time zone "${zone}" (an IANA name, e.g. "Europe/Paris")`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, errors: [...errors, { message: `not JSON: ${(error as Error).message}` }] };
  }
  const list = z.array(z.unknown()).min(1).safeParse(json);
  if (!list.success) {
    for (const issue of list.error.issues) errors.push({ message: issueText(issue) });
    return { ok: false, errors };
  }
  const windows: ScheduleWindow[] = [];
  list.data.forEach((item, index) => {
    const entry = ENTRY.safeParse(item);
    if (!entry.success) {
      for (const issue of entry.error.issues) {
        errors.push({ message: issueText(issue, `[${index}]`) });
      }
      return;
    }
    const { cron, minReplicas } = entry.data;
    const duration = parseDuration(entry.data.duration);
    if (!duration.ok || duration.ms <= 0) {
      errors.push({
        message: `[${index}].duration: invalid value "${entry.data.duration}": ${duration.ok ? "must be greater than 0" : duration.error}`,
      });
    }
    let pattern: Cron | null = null;
    try {
      pattern = new Cron(cron, { mode: "5-part", timezone: zone, paused: true });
    } catch (error) {
      errors.push({
        message: `[${index}].cron: invalid value "${cron}": ${(error as Error).message}`,
      });
    }
    if (maxReplicas !== undefined && minReplicas > maxReplicas) {
      errors.push({
        message: `[${index}].minReplicas: ${minReplicas} is above spec.maxReplicas ${maxReplicas}`,
      });
    }
    if (pattern && duration.ok && duration.ms > 0) {
      windows.push({ cron, durationMs: duration.ms, minReplicas, pattern });
    }
  });
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, schedule: { timeZone: zone, windows } };
}

/** A zod issue as `PATH: message`, the path after `prefix` (`the value` when both are empty). */
function issueText(issue: z.core.$ZodIssue, prefix = ""): string {
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`));
  return `${prefix + path.join("") || "the value"}: ${issue.message}`;
}

export interface WindowState {
  window: ScheduleWindow;
  /** Active: the cron time that opened it and when it closes (epoch ms). */
  openedAt?: number;
  closesAt?: number;
  /** The next opening after now (null: none). */
  nextAt: number | null;
}

// A window longer than its cron's interval is opened again before it closes: at most this many
// openings are walked through to find the latest (a per-minute cron over 7 days).
const MAX_OPENINGS = 10_080;

/** Each window at `now`: open (since when, until when) or not, and its next opening. */
export function windowsAt(schedule: Schedule, now: number): WindowState[] {
  return schedule.windows.map((window) => {
    // Openings in (now − duration, now] hold the window open; the latest decides when it closes.
    let opened: number | null = null;
    let next = window.pattern.nextRun(new Date(now - window.durationMs));
    for (let i = 0; next && next.getTime() <= now && i < MAX_OPENINGS; i++) {
      opened = next.getTime();
      next = window.pattern.nextRun(next);
    }
    const nextAt = next ? next.getTime() : null;
    return opened !== null
      ? { window, openedAt: opened, closesAt: opened + window.durationMs, nextAt }
      : { window, nextAt };
  });
}

export interface ScheduledFloor {
  /** The largest floor of the open windows; 0 when none is open. */
  floor: number;
  states: WindowState[];
  text: string;
}

// Windows change only when one opens or closes: a result holds until the earliest such time,
// so the cron patterns are walked once per change, not once per sync.
const cached = new WeakMap<Schedule, { from: number; until: number; result: ScheduledFloor }>();

/** The floor in force at `now` (0: no window open) and a description of every window. */
export function scheduledFloor(schedule: Schedule, now: number): ScheduledFloor {
  const hit = cached.get(schedule);
  if (hit && hit.from <= now && now < hit.until) return hit.result;
  const states = windowsAt(schedule, now);
  let floor = 0;
  let until = Number.POSITIVE_INFINITY;
  const parts: string[] = [];
  for (const s of states) {
    const label = `"${s.window.cron}" for ${formatDuration(s.window.durationMs)} (minReplicas ${s.window.minReplicas})`;
    if (s.nextAt !== null) until = Math.min(until, s.nextAt);
    if (s.openedAt !== undefined) {
      floor = Math.max(floor, s.window.minReplicas);
      until = Math.min(until, s.closesAt!);
      parts.push(`${label} open since ${iso(s.openedAt)} until ${iso(s.closesAt!)}`);
    } else {
      parts.push(`${label} closed${s.nextAt !== null ? `, next at ${iso(s.nextAt)}` : ""}`);
    }
  }
  const result = { floor, states, text: `${parts.join("; ")} (${schedule.timeZone})` };
  cached.set(schedule, { from: now, until, result });
  return result;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
