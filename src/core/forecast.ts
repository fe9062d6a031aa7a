// A seasonal forecaster of one metric's total demand (horizon.dev/predictive, docs/extensions.md).
// Pure: every call takes `now`. The model: a profile of the shortest season in bins (the mean of
// each bin, averaged across seasons, exponentially once the history is long enough), a factor per
// shortest season within each longer one (weekdays of a week), and a level ratio that follows
// recent observations against the profile (trends, level shifts, a busier day than usual). Its
// own error is measured: each forecast is kept until its time comes and compared with what came.
// The learned state is mutated in place (one per HPA metric, replaced by nothing else) and bounded:
// `bins` + longer/shortest season factors + the forecasts waiting for their time.

export interface ForecastSettings {
  /** Season lengths in ms, shortest first; each longer one a whole multiple of the first. */
  seasonsMs: readonly number[];
  /** Bins per shortest season (288: 5 min bins over a day). */
  bins: number;
  /** How far back the profile effectively remembers (exponential averaging across seasons). */
  historyMs: number;
  /** Time constant of the level ratio. */
  levelMs: number;
  /** Time constant of the error estimate. */
  errorMs: number;
  /** The quantile of the relative error tracked for headroom (0.9: nine forecasts in ten). */
  quantile?: number;
}

export const DAY_MS = 86_400_000;

export const DEFAULT_FORECAST_SETTINGS: ForecastSettings = Object.freeze({
  seasonsMs: Object.freeze([DAY_MS]),
  bins: 288,
  historyMs: 7 * DAY_MS,
  levelMs: 20 * 60_000,
  errorMs: 2 * 3_600_000,
});

export interface Forecast {
  /** Epoch ms the forecast is for. */
  at: number;
  /** The expected total demand then. */
  value: number;
  /** The seasonal profile alone (before the level ratio). */
  seasonal: number;
  /** The level ratio applied to it. */
  level: number;
}

/** Whether the forecaster can forecast yet, and why not. */
export type Readiness =
  | { ready: true }
  | { ready: false; reason: "InsufficientHistory"; message: string }
  | { ready: false; reason: "ForecastErrorTooHigh"; message: string };

const MAX_PENDING = 256;
const LEVEL_MIN = 0.2;
const LEVEL_MAX = 5;

export class SeasonalForecaster {
  readonly settings: ForecastSettings;
  readonly #binMs: number;
  /** Mean per bin of the shortest season, and how many seasons of it were seen. */
  readonly #profile: Float64Array;
  readonly #seen: Uint32Array;
  /** Per longer season: a factor per shortest season within it (1 until seen). */
  readonly #factors: Float64Array[];
  readonly #factorSeen: Uint32Array[];
  #first: number | null = null;
  #last: number | null = null;
  /** The open bin: absolute index, sum and count of its values (deseasoned by the factors). */
  #bin = -1;
  /** Sum of the profile over seen bins, and how many were seen. */
  #profileSum = 0;
  #seenBinCount = 0;
  #binSum = 0;
  #binCount = 0;
  /** The open shortest season: absolute index, sum of values and of the profile at their times. */
  #season = -1;
  #seasonSum = 0;
  #seasonProfileSum = 0;
  #level = 1;
  /** Forecasts waiting for their time: [at, value] pairs in time order. */
  #pending: [number, number][] = [];
  #absError: number | null = null;
  #squaredError: number | null = null;
  #lastError: number | null = null;
  #upper = 0;

  constructor(settings: ForecastSettings = DEFAULT_FORECAST_SETTINGS) {
    const shortest = settings.seasonsMs[0];
    if (shortest === undefined || shortest <= 0) throw new Error("a season is required");
    for (const season of settings.seasonsMs.slice(1)) {
      if (season % shortest !== 0 || season <= shortest) {
        throw new Error(`season ${season} ms is not a multiple of ${shortest} ms`);
      }
    }
    this.settings = settings;
    this.#binMs = shortest / settings.bins;
    this.#profile = new Float64Array(settings.bins);
    this.#seen = new Uint32Array(settings.bins);
    this.#factors = settings.seasonsMs.slice(1).map((s) => new Float64Array(s / shortest).fill(1));
    this.#factorSeen = settings.seasonsMs.slice(1).map((s) => new Uint32Array(s / shortest));
  }

  /** The span of observations so far, in ms. */
  historyMs(): number {
    return this.#first === null || this.#last === null ? 0 : this.#last - this.#first;
  }

  /** Mean absolute error of past forecasts, relative to the demand forecast (null: none yet). */
  relativeError(): number | null {
    return this.#absError;
  }

  /** Root mean squared relative error of past forecasts (the headroom's unit). */
  relativeSpread(): number | null {
    return this.#squaredError === null ? null : Math.sqrt(this.#squaredError);
  }

  /**
   * The tracked quantile of the relative error (settings.quantile): demand came in at most
   * this much above the forecast that often, lately.
   */
  upperError(): number {
    return this.#upper;
  }

  /** The relative error of the latest forecast whose time came. */
  lastError(): number | null {
    return this.#lastError;
  }

  readiness(now: number, maxRelativeError: number): Readiness {
    const shortest = this.settings.seasonsMs[0]!;
    const span = this.#first === null ? 0 : now - this.#first;
    if (span < shortest || this.#seenBins() < this.settings.bins / 2) {
      return {
        ready: false,
        reason: "InsufficientHistory",
        message: `${formatSpan(span)} of history, the model needs one full season (${formatSpan(shortest)})`,
      };
    }
    const error = this.#absError;
    if (error !== null && error > maxRelativeError) {
      return {
        ready: false,
        reason: "ForecastErrorTooHigh",
        message: `recent forecast error ${Math.round(error * 100)}% is above ${Math.round(maxRelativeError * 100)}%`,
      };
    }
    return { ready: true };
  }

  /**
   * Learns one observation of the total demand at `now` (times must not go back) and, with
   * `leadMs`, records the forecast for now + lead to measure its error when that time comes.
   */
  observe(now: number, value: number, leadMs?: number): void {
    if (!Number.isFinite(value) || value < 0) return;
    if (this.#last !== null && now < this.#last) return;
    this.#resolve(now, value);
    const shortest = this.settings.seasonsMs[0]!;
    const bin = Math.floor(now / this.#binMs);
    const season = Math.floor(now / shortest);
    if (bin !== this.#bin) this.#closeBin();
    if (season !== this.#season) this.#closeSeason();
    this.#bin = bin;
    this.#season = season;
    const factor = this.#factorAt(now);
    this.#binSum += value / factor;
    this.#binCount++;
    const profile = this.#profileAt(now);
    if (profile !== null) {
      this.#seasonSum += value;
      this.#seasonProfileSum += profile;
      // The level ratio, against a floor so that a quiet night's tiny profile does not swing it.
      const expected = profile * factor;
      const floor = this.#meanProfile() * 0.25;
      const ratio = Math.min(LEVEL_MAX, Math.max(LEVEL_MIN, (value + floor) / (expected + floor)));
      const dt = this.#last === null ? 0 : now - this.#last;
      const weight = 1 - Math.exp(-dt / this.settings.levelMs);
      this.#level += weight * (ratio - this.#level);
    }
    if (this.#first === null) this.#first = now;
    this.#last = now;
    if (leadMs !== undefined && leadMs > 0) {
      const forecast = this.forecast(now, now + leadMs);
      if (forecast !== null) {
        if (this.#pending.length >= MAX_PENDING) this.#pending.shift();
        this.#pending.push([forecast.at, forecast.value]);
      }
    }
  }

  /** The total demand expected at `at` (null: the season's bins around it were never seen). */
  forecast(_now: number, at: number): Forecast | null {
    const profile = this.#profileAt(at);
    if (profile === null) return null;
    const seasonal = profile * this.#factorAt(at);
    return { at, value: seasonal * this.#level, seasonal, level: this.#level };
  }

  /** Compares forecasts whose time came with the observation now. */
  #resolve(now: number, value: number): void {
    let resolved: number | null = null;
    while (this.#pending.length > 0 && this.#pending[0]![0] <= now) {
      resolved = this.#pending.shift()![1];
    }
    if (resolved === null) return;
    const floor = this.#meanProfile() * 0.25;
    const error = (value - resolved) / Math.max(resolved, floor, Number.MIN_VALUE);
    this.#lastError = error;
    // A stochastic quantile estimate: up by q·step when above, down by (1 − q)·step when not.
    const q = this.settings.quantile ?? 0.9;
    const step = 0.01;
    this.#upper += error > this.#upper ? q * step : -(1 - q) * step;
    const dt = this.settings.errorMs;
    // Weighted per forecast, not per ms: one forecast per sync.
    const weight = this.#absError === null ? 1 : Math.min(1, 15_000 / dt);
    this.#absError =
      this.#absError === null
        ? Math.abs(error)
        : this.#absError + weight * (Math.abs(error) - this.#absError);
    this.#squaredError =
      this.#squaredError === null
        ? error * error
        : this.#squaredError + weight * (error * error - this.#squaredError);
  }

  #closeBin(): void {
    if (this.#bin < 0 || this.#binCount === 0) return;
    const index = this.#bin % this.settings.bins;
    const mean = this.#binSum / this.#binCount;
    const seen = this.#seen[index]!;
    const gamma = Math.max(1 / (seen + 1), this.#gamma(this.settings.seasonsMs[0]!));
    const before = this.#profile[index]!;
    const after = seen === 0 ? mean : before + gamma * (mean - before);
    this.#profile[index] = after;
    this.#profileSum += after - (seen === 0 ? 0 : before);
    if (seen === 0) this.#seenBinCount++;
    this.#seen[index] = seen + 1;
    this.#binSum = 0;
    this.#binCount = 0;
  }

  #closeSeason(): void {
    if (this.#season >= 0 && this.#seasonProfileSum > 0) {
      const ratio = this.#seasonSum / this.#seasonProfileSum;
      for (let k = 0; k < this.#factors.length; k++) {
        const factors = this.#factors[k]!;
        const seen = this.#factorSeen[k]!;
        const slot = this.#season % factors.length;
        const gamma = Math.max(1 / (seen[slot]! + 1), this.#gamma(this.settings.seasonsMs[k + 1]!));
        factors[slot] = factors[slot]! + gamma * (ratio - factors[slot]!);
        seen[slot] = seen[slot]! + 1;
      }
    }
    this.#seasonSum = 0;
    this.#seasonProfileSum = 0;
  }

  /** The weight of a new season's value: its share of the remembered history. */
  #gamma(seasonMs: number): number {
    return Math.min(1, 1 - Math.exp(-seasonMs / this.settings.historyMs));
  }

  #factorAt(t: number): number {
    const shortest = this.settings.seasonsMs[0]!;
    const season = Math.floor(t / shortest);
    let factor = 1;
    for (const factors of this.#factors) factor *= factors[season % factors.length]!;
    return factor;
  }

  /**
   * The profile at `t`, linear between the centres of the nearest seen bins (a gap in the data
   * is bridged by its neighbours); null when no bin was seen.
   */
  #profileAt(t: number): number | null {
    const bins = this.settings.bins;
    if (this.#seenBinCount === 0) return null;
    const position = t / this.#binMs - 0.5;
    const lower = Math.floor(position);
    let before = lower;
    while (this.#seen[((before % bins) + bins) % bins] === 0) before--;
    let after = lower + 1;
    while (this.#seen[((after % bins) + bins) % bins] === 0) after++;
    const a = this.#profile[((before % bins) + bins) % bins]!;
    const b = this.#profile[((after % bins) + bins) % bins]!;
    const fraction = (position - before) / (after - before);
    return a * (1 - fraction) + b * fraction;
  }

  #seenBins(): number {
    return this.#seenBinCount;
  }

  #meanProfile(): number {
    return this.#seenBinCount === 0 ? 0 : this.#profileSum / this.#seenBinCount;
  }
}

function formatSpan(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)}h`;
  if (ms >= 60_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 1000)}s`;
}

/**
 * Additive Holt-Winters over one value per interval, with fixed smoothing: the model
 * jthomperoo's predictive-horizontal-pod-autoscaler runs over the replica count (its documented
 * settings: alpha = beta = gamma = 0.9). It forecasts nothing before two full seasons (its
 * initialisation needs them), then one interval ahead. Online: the first two seasons are kept
 * for the initialisation, then only the level, the trend and one season of components.
 */
export class HoltWinters {
  readonly #alpha: number;
  readonly #beta: number;
  readonly #gamma: number;
  readonly #period: number;
  #warmup: number[] | null = [];
  #level = 0;
  #trend = 0;
  #seasonal: Float64Array;
  #index = 0;

  constructor(alpha: number, beta: number, gamma: number, period: number) {
    if (!(period >= 2)) throw new Error("a season of at least 2 intervals is required");
    this.#alpha = alpha;
    this.#beta = beta;
    this.#gamma = gamma;
    this.#period = period;
    this.#seasonal = new Float64Array(period);
  }

  /** Values seen so far, up to the two seasons the model needs. */
  seen(): number {
    return this.#warmup === null ? 2 * this.#period : this.#warmup.length;
  }

  ready(): boolean {
    return this.#warmup === null;
  }

  observe(value: number): void {
    if (this.#warmup !== null) {
      this.#warmup.push(value);
      if (this.#warmup.length < 2 * this.#period) return;
      const values = this.#warmup;
      const p = this.#period;
      let first = 0;
      let second = 0;
      for (let i = 0; i < p; i++) {
        first += values[i]!;
        second += values[p + i]!;
      }
      first /= p;
      second /= p;
      for (let i = 0; i < p; i++) {
        this.#seasonal[i] = (values[i]! - first + (values[p + i]! - second)) / 2;
      }
      this.#level = first;
      this.#trend = (second - first) / p;
      this.#warmup = null;
      this.#index = 0;
      for (const v of values) this.#update(v);
      return;
    }
    this.#update(value);
  }

  #update(value: number): void {
    const slot = this.#index % this.#period;
    const season = this.#seasonal[slot]!;
    const level = this.#alpha * (value - season) + (1 - this.#alpha) * (this.#level + this.#trend);
    this.#trend = this.#beta * (level - this.#level) + (1 - this.#beta) * this.#trend;
    this.#seasonal[slot] = this.#gamma * (value - level) + (1 - this.#gamma) * season;
    this.#level = level;
    this.#index++;
  }

  /** The value `steps` intervals after the last one observed (null before two seasons). */
  forecast(steps = 1): number | null {
    if (this.#warmup !== null) return null;
    const slot = (this.#index + steps - 1) % this.#period;
    return this.#level + steps * this.#trend + this.#seasonal[slot]!;
  }
}
