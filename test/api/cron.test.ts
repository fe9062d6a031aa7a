// CronJob schedules as robfig/cron's ParseStandard reads them (kube-apiserver's validation
// messages), and the times they fire (croner) in UTC and in a time zone, DST included.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nextScheduleTime, parseCronSchedule } from "../../src/api/cron.js";

describe("parseCronSchedule", () => {
  const cases: { name: string; spec: string; error?: string }[] = [
    { name: "every minute", spec: "* * * * *" },
    { name: "steps, ranges and lists", spec: "*/15 9-17 1,15 * MON-FRI" },
    { name: "names in any case and ?", spec: "0 0 ? jan sun" },
    { name: "@hourly", spec: "@hourly" },
    { name: "@every", spec: "@every 1h30m" },
    { name: "empty", spec: "  ", error: "empty spec string" },
    { name: "too few fields", spec: "* * *", error: "expected exactly 5 fields, found 3: [* * *]" },
    {
      name: "six fields (seconds are not standard)",
      spec: "0 * * * * *",
      error: "expected exactly 5 fields, found 6: [0 * * * * *]",
    },
    {
      name: "unknown descriptor",
      spec: "@fortnightly",
      error: "unrecognized descriptor: @fortnightly",
    },
    {
      name: "not a number",
      spec: "x * * * *",
      error: 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
    },
    { name: "minute 60", spec: "60 * * * *", error: "end of range (60) above maximum (59): 60" },
    { name: "day 0", spec: "0 0 0 * *", error: "beginning of range (0) below minimum (1): 0" },
    { name: "weekday 7", spec: "0 0 * * 7", error: "end of range (7) above maximum (6): 7" },
    {
      name: "backwards range",
      spec: "0 5-2 * * *",
      error: "beginning of range (5) beyond end of range (2): 5-2",
    },
    {
      name: "step 0",
      spec: "*/0 * * * *",
      error: "step of range should be a positive number: */0",
    },
    { name: "two hyphens", spec: "1-2-3 * * * *", error: "too many hyphens: 1-2-3" },
    { name: "two slashes", spec: "*/2/3 * * * *", error: "too many slashes: */2/3" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parseCronSchedule(c.spec);
      if (c.error === undefined) assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      else assert.deepEqual(parsed, { ok: false, error: c.error });
    });
  }
});

describe("nextScheduleTime", () => {
  const utc = (text: string) => Date.parse(text);
  const next = (spec: string, after: string, timeZone = "UTC") => {
    const parsed = parseCronSchedule(spec);
    assert.ok(parsed.ok);
    const t = nextScheduleTime(parsed.schedule, utc(after), timeZone);
    return t === null ? null : new Date(t).toISOString();
  };
  const cases: {
    name: string;
    spec: string;
    after: string;
    timeZone?: string;
    expected: string;
  }[] = [
    {
      name: "strictly after: a schedule time itself is not next",
      spec: "*/5 * * * *",
      after: "2026-01-01T12:05:00Z",
      expected: "2026-01-01T12:10:00.000Z",
    },
    {
      name: "@daily is midnight",
      spec: "@daily",
      after: "2026-01-01T12:00:00Z",
      expected: "2026-01-02T00:00:00.000Z",
    },
    {
      name: "@weekly is Sunday midnight",
      spec: "@weekly",
      after: "2026-01-01T12:00:00Z",
      expected: "2026-01-04T00:00:00.000Z",
    },
    {
      name: "day of month and day of week both restricted: either (the 3rd is a Saturday)",
      spec: "0 0 3 * MON",
      after: "2026-01-01T12:00:00Z",
      expected: "2026-01-03T00:00:00.000Z",
    },
    {
      name: "day of week restricted, day of month *: only that weekday",
      spec: "0 0 * * MON",
      after: "2026-01-01T12:00:00Z",
      expected: "2026-01-05T00:00:00.000Z",
    },
    {
      name: "in a time zone",
      spec: "30 8 * * *",
      after: "2026-01-01T12:00:00Z",
      timeZone: "America/New_York",
      expected: "2026-01-01T13:30:00.000Z",
    },
    {
      name: "across a DST change (New York springs forward on 8 March 2026)",
      spec: "30 8 * * *",
      after: "2026-03-07T14:00:00Z",
      timeZone: "America/New_York",
      expected: "2026-03-08T12:30:00.000Z",
    },
    {
      name: "@every counts from the given time",
      spec: "@every 90s",
      after: "2026-01-01T12:00:00.400Z",
      expected: "2026-01-01T12:01:30.000Z",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(next(c.spec, c.after, c.timeZone), c.expected);
    });
  }
});
