// A CronJob's schedule as kube-controller-manager reads it (robfig/cron's ParseStandard): five
// fields (minute hour day-of-month month day-of-week, names and `?` allowed), the descriptors
// @yearly @annually @monthly @weekly @daily @midnight @hourly, and `@every <duration>`; a bad
// schedule gets robfig's error text, as kube-apiserver's validation prints it. The times a
// schedule fires are croner's (time zones and DST), after this check.
import { Cron } from "croner";
import { parseDuration } from "./duration.js";

export type CronSchedule =
  | { kind: "cron"; expression: string }
  /** `@every D`: every D after the previous time (whole seconds, at least 1 s). */
  | { kind: "every"; delayMs: number };

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DAYS_OF_WEEK: Bounds = {
  min: 0,
  max: 6,
  names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
};
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  MONTHS,
  DAYS_OF_WEEK,
];

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** strconv.Atoi as robfig's mustParseInt uses it, with its errors. */
function atoi(text: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(text)) {
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`;
  }
  if (n < 0) return `negative number (${n}) not allowed: ${text}`;
  return n;
}

function parseIntOrName(text: string, bounds: Bounds): number | string {
  const named = bounds.names?.[text.toLowerCase()];
  return named ?? atoi(text);
}

/** robfig's getRange: `*`, `?`, `a`, `a-b`, each with an optional `/step`; an error or null. */
function checkRange(expr: string, bounds: Bounds): string | null {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = rangeAndStep[0]!.split("-");
  let start: number;
  let end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    start = bounds.min;
    end = bounds.max;
  } else {
    const low = parseIntOrName(lowAndHigh[0]!, bounds);
    if (typeof low === "string") return low;
    start = low;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = parseIntOrName(lowAndHigh[1]!, bounds);
      if (typeof high === "string") return high;
      end = high;
    } else return `too many hyphens: ${expr}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = atoi(rangeAndStep[1]!);
    if (typeof parsed === "string") return parsed;
    step = parsed;
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
  if (start < bounds.min)
    return `beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
  if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return null;
}

/** Parses a schedule as cron.ParseStandard does: the schedule, or robfig's error message. */
export function parseCronSchedule(
  spec: string,
): { ok: true; schedule: CronSchedule } | { ok: false; error: string } {
  const text = spec.trim();
  if (text === "") return { ok: false, error: "empty spec string" };
  if (text.startsWith("@")) {
    if (text.startsWith("@every ")) {
      const duration = parseDuration(text.slice("@every ".length));
      if (!duration.ok) {
        return {
          ok: false,
          error: `failed to parse duration ${text}: time: invalid duration ${JSON.stringify(text.slice(7))}`,
        };
      }
      // robfig: at least one second, rounded down to whole seconds.
      const delayMs = Math.max(1000, Math.floor(duration.ms / 1000) * 1000);
      return { ok: true, schedule: { kind: "every", delayMs } };
    }
    const expanded = DESCRIPTORS[text];
    if (!expanded) return { ok: false, error: `unrecognized descriptor: ${text}` };
    return { ok: true, schedule: { kind: "cron", expression: expanded } };
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    return {
      ok: false,
      error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`,
    };
  }
  for (const [i, field] of fields.entries()) {
    for (const expr of field.split(",")) {
      const error = checkRange(expr, FIELDS[i]!);
      if (error) return { ok: false, error };
    }
  }
  return { ok: true, schedule: { kind: "cron", expression: fields.join(" ") } };
}

const patterns = new Map<string, Cron>();

/** The first time the schedule fires strictly after `after` (epoch ms) in `timeZone`, or null. */
export function nextScheduleTime(
  schedule: CronSchedule,
  after: number,
  timeZone: string,
): number | null {
  if (schedule.kind === "every") return Math.floor(after / 1000) * 1000 + schedule.delayMs;
  const key = `${timeZone}\n${schedule.expression}`;
  let pattern = patterns.get(key);
  if (!pattern) {
    // Day of month and day of week: either matches when both are restricted, as robfig/cron.
    pattern = new Cron(schedule.expression, { mode: "5-part", timezone: timeZone, paused: true });
    patterns.set(key, pattern);
  }
  return pattern.nextRun(new Date(after))?.getTime() ?? null;
}

/** time.LoadLocation succeeds (an IANA zone name the runtime knows). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
