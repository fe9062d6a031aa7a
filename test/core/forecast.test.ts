// The seasonal forecaster of horizon.dev/predictive on synthetic series, stepped by a fake clock:
// each case names the series, how long it is learned, and what the forecast must come close to.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DAY_MS,
  type ForecastSettings,
  HoltWinters,
  SeasonalForecaster,
} from "../../src/core/forecast.js";

const STEP = 15_000;
const HOUR = 3_600_000;
/** A Monday, 00:00 UTC (1995-07-03), so that day 5 and 6 of a week are the weekend. */
const START = Date.UTC(1995, 6, 3);

/** A seeded uniform random in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A daily ramp: 100 at night, 1,000 at 14:00 UTC. */
function daily(t: number): number {
  const hour = ((t - START) % DAY_MS) / HOUR;
  return 550 - 450 * Math.cos(((hour - 2) / 24) * 2 * Math.PI);
}

const weekday = (t: number) => Math.floor((t - START) / DAY_MS) % 7;

interface Case {
  name: string;
  series: (t: number, rnd: () => number) => number | null;
  learnMs: number;
  leadMs: number;
  settings?: Partial<ForecastSettings>;
  /** Relative tolerance of the forecast at now + lead against the series without noise. */
  within?: number;
  truth?: (t: number) => number;
  ready?: boolean | string;
  maxError?: number;
  /** Bounds of the measured relative error. */
  errorBetween?: [number, number];
}

const cases: Case[] = [
  {
    name: "a daily ramp, learned for two days, forecast 90 s ahead",
    series: daily,
    learnMs: 2 * DAY_MS + 7 * HOUR,
    leadMs: 90_000,
    within: 0.03,
    ready: true,
    errorBetween: [0, 0.03],
  },
  {
    name: "too little history: half a day",
    series: daily,
    learnMs: 12 * HOUR,
    leadMs: 90_000,
    ready: "InsufficientHistory",
  },
  {
    name: "a level shift: the load doubles on day 4 at 06:00, forecast at 08:00",
    series: (t) => daily(t) * (t >= START + 3 * DAY_MS + 6 * HOUR ? 2 : 1),
    truth: (t) => daily(t) * 2,
    learnMs: 3 * DAY_MS + 8 * HOUR,
    leadMs: 90_000,
    within: 0.1,
    ready: true,
  },
  {
    name: "a trend: 10% more every day, forecast on day 6",
    series: (t) => daily(t) * 1.1 ** ((t - START) / DAY_MS),
    learnMs: 5 * DAY_MS + 9 * HOUR,
    leadMs: 120_000,
    within: 0.05,
    ready: true,
  },
  {
    name: "missing samples: no data 10:00-12:00 on days 1 and 2, forecast at 11:00 on day 3",
    series: (t) => {
      const hour = ((t - START) % DAY_MS) / HOUR;
      return t < START + 2 * DAY_MS && hour >= 10 && hour < 12 ? null : daily(t);
    },
    learnMs: 2 * DAY_MS + 10 * HOUR + 58 * 60_000,
    leadMs: 120_000,
    within: 0.05,
    ready: true,
  },
  {
    name: "a weekly season: weekends at half, forecast Saturday 00:05 for 09:00 with 1d,7d",
    series: (t) => daily(t) * (weekday(t) >= 5 ? 0.5 : 1),
    learnMs: 12 * DAY_MS + 5 * 60_000,
    leadMs: 9 * HOUR - 5 * 60_000,
    settings: { seasonsMs: [DAY_MS, 7 * DAY_MS], historyMs: 14 * DAY_MS },
    within: 0.08,
    ready: true,
  },
  {
    name: "noise of ±20% around the ramp: forecast close to the mean, error measured near 10%",
    series: (t, rnd) => daily(t) * (0.8 + 0.4 * rnd()),
    truth: daily,
    learnMs: 4 * DAY_MS + 8 * HOUR,
    leadMs: 90_000,
    within: 0.06,
    ready: true,
    errorBetween: [0.06, 0.16],
  },
  {
    name: "no season at all (bursts at random): the error is too large to act on",
    series: (_t, rnd) => (rnd() < 0.05 ? 2000 : 10),
    learnMs: 2 * DAY_MS + 5 * HOUR,
    leadMs: 90_000,
    ready: "ForecastErrorTooHigh",
    maxError: 0.5,
  },
];

describe("SeasonalForecaster", () => {
  for (const c of cases) {
    it(c.name, () => {
      const forecaster = new SeasonalForecaster({
        seasonsMs: [DAY_MS],
        bins: 288,
        historyMs: 7 * DAY_MS,
        levelMs: 20 * 60_000,
        errorMs: 2 * HOUR,
        ...c.settings,
      });
      const rnd = random(7);
      const end = START + c.learnMs;
      for (let t = START; t <= end; t += STEP) {
        const value = c.series(t, rnd);
        if (value !== null) forecaster.observe(t, value, c.leadMs);
      }
      const readiness = forecaster.readiness(end, c.maxError ?? 0.5);
      if (c.ready === true) assert.deepEqual(readiness, { ready: true });
      else if (typeof c.ready === "string") {
        assert.equal(readiness.ready, false);
        assert.equal(!readiness.ready && readiness.reason, c.ready);
      }
      if (c.within !== undefined) {
        const at = end + c.leadMs;
        const forecast = forecaster.forecast(end, at);
        assert.ok(forecast, "a forecast");
        const truth = (c.truth ?? ((t: number) => c.series(t, () => 0.5)!))(at);
        const off = Math.abs(forecast.value - truth) / truth;
        assert.ok(
          off <= c.within,
          `forecast ${forecast.value.toFixed(1)} vs ${truth.toFixed(1)}: ${(off * 100).toFixed(1)}% off`,
        );
      }
      if (c.errorBetween) {
        const error = forecaster.relativeError();
        assert.ok(error !== null, "an error estimate");
        assert.ok(
          error >= c.errorBetween[0] && error <= c.errorBetween[1],
          `relative error ${error.toFixed(3)} outside ${c.errorBetween.join("..")}`,
        );
      }
    });
  }

  it("without the weekly season the weekend forecast is the weekday's (what 7d adds)", () => {
    const plain = new SeasonalForecaster({
      seasonsMs: [DAY_MS],
      bins: 288,
      historyMs: 14 * DAY_MS,
      levelMs: 20 * 60_000,
      errorMs: 2 * HOUR,
    });
    const series = (t: number) => daily(t) * (weekday(t) >= 5 ? 0.5 : 1);
    const end = START + 12 * DAY_MS + 5 * 60_000;
    for (let t = START; t <= end; t += STEP) plain.observe(t, series(t));
    const at = end + 9 * HOUR - 5 * 60_000;
    const off = plain.forecast(end, at)!.value / series(at) - 1;
    assert.ok(off > 0.3, `a daily-only forecast is ${(off * 100).toFixed(0)}% above`);
  });

  it("rejects seasons that do not nest", () => {
    assert.throws(
      () =>
        new SeasonalForecaster({
          seasonsMs: [DAY_MS, 1.5 * DAY_MS],
          bins: 288,
          historyMs: DAY_MS,
          levelMs: 1,
          errorMs: 1,
        }),
      /not a multiple/,
    );
  });
});

describe("HoltWinters (PHPA's model over the replica count)", () => {
  const season = [2, 2, 3, 5, 8, 8, 5, 3];
  it("forecasts nothing before two full seasons, then the next value of a repeating season", () => {
    const model = new HoltWinters(0.9, 0.9, 0.9, season.length);
    for (let i = 0; i < 2 * season.length - 1; i++) {
      model.observe(season[i % season.length]!);
      assert.equal(model.forecast(), null);
      assert.equal(model.ready(), false);
    }
    model.observe(season.at(-1)!);
    for (let i = 0; i < 3 * season.length; i++) {
      const next = season[i % season.length]!;
      assert.ok(
        Math.abs(model.forecast()! - next) < 1e-6,
        `step ${i}: ${model.forecast()} vs ${next}`,
      );
      model.observe(next);
    }
  });

  it("with alpha = beta = 0.9 its trend follows one jump far beyond it (PHPA's thrashing)", () => {
    const model = new HoltWinters(0.9, 0.9, 0.9, season.length);
    for (let i = 0; i < 4 * season.length; i++) model.observe(season[i % season.length]!);
    model.observe(season[0]! + 10);
    assert.ok(model.forecast()! > season[1]! + 15, `after a jump of 10: ${model.forecast()}`);
  });
});
