// An open-loop HTTP load generator (`horizon load`, `npm run bench:traffic`, and a scenario's
// traffic sent for real under `horizon up`: traffic-http.ts): requests leave at the asked rate whether or not earlier ones were answered (as the docs' load-generator loop
// with many copies, or a real user population), at most `concurrency` in flight; each request
// on a new connection by default, as `wget` in a loop, so a ClusterIP's proxy balances every
// request. Counts what was sent, answered (by status code) and failed, and latency percentiles.
import { Agent, request } from "node:http";

export interface LoadTarget {
  host: string;
  port: number;
  path?: string;
}

export interface LoadGeneratorOptions {
  /** Where requests go; several: in turn (the benchmark's direct-to-pods baseline). */
  target: LoadTarget | readonly LoadTarget[];
  /**
   * Requests per second (> 0), or a rate read at every tick (>= 0; a scenario's traffic model
   * on the real clock): the requests due are its integral over time.
   */
  rps: number | (() => number);
  /** Most requests in flight; one due while this many are open is not sent (counted as an error). */
  concurrency: number;
  /** Reuse connections (a keep-alive agent with `concurrency` sockets) instead of one per request. */
  keepAlive?: boolean;
  /** A request unanswered after this long fails (default 10 s). */
  timeoutMs?: number;
  /** Keep each latency for `latencies` and `window()` (default true; a load without end keeps none). */
  keepLatencies?: boolean;
}

export interface LoadCounts {
  sent: number;
  answered: number;
  /** Connection errors, timeouts, and requests not sent because `concurrency` were in flight. */
  errors: number;
  /** Of the errors: due while `concurrency` requests were in flight. */
  overConcurrency: number;
  /** Answers by status code. */
  codes: Record<string, number>;
}

export interface LatencySummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(latencies: readonly number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

/** How many requests an open loop at `rps` has due `elapsedMs` after its start (the first at 0). */
export function dueCount(elapsedMs: number, rps: number): number {
  return elapsedMs < 0 ? 0 : Math.floor((elapsedMs * rps) / 1000) + 1;
}

const TICK_MS = 5;

export class LoadGenerator {
  readonly counts: LoadCounts = {
    sent: 0,
    answered: 0,
    errors: 0,
    overConcurrency: 0,
    codes: {},
  };
  /** Every latency (ms) since the start, and those since the last `window()`. */
  readonly latencies: number[] = [];
  #window: number[] = [];
  readonly #options: LoadGeneratorOptions;
  readonly #agent: Agent | false;
  #startedAt = 0;
  #scheduled = 0;
  #inFlight = 0;
  #targets: readonly LoadTarget[];
  /** A variable rate's requests due so far (fractional) and the time it was last read. */
  #credit = 0;
  #ratedAt = 0;
  #timer: NodeJS.Timeout | null = null;
  #idle: (() => void) | null = null;

  constructor(options: LoadGeneratorOptions) {
    this.#options = options;
    this.#targets = targetsOf(options.target);
    this.#agent = options.keepAlive
      ? new Agent({ keepAlive: true, maxSockets: options.concurrency })
      : false;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Sends the next requests elsewhere (a Service's address changed). */
  retarget(target: LoadTarget | readonly LoadTarget[]): void {
    this.#targets = targetsOf(target);
  }

  start(): void {
    this.#startedAt = performance.now();
    this.#ratedAt = this.#startedAt;
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
  }

  /** Latencies since the previous call. */
  window(): LatencySummary {
    const window = this.#window;
    this.#window = [];
    return summarize(window);
  }

  /** Stops sending; waits for the requests in flight (each ends by its timeout at the latest). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    if (this.#agent) this.#agent.destroy();
  }

  #tick(): void {
    const rps = this.#options.rps;
    let due: number;
    if (typeof rps === "number") due = dueCount(performance.now() - this.#startedAt, rps);
    else {
      const now = performance.now();
      this.#credit += (Math.max(0, rps()) * (now - this.#ratedAt)) / 1000;
      this.#ratedAt = now;
      due = this.#scheduled + Math.floor(this.#credit);
      this.#credit -= Math.floor(this.#credit);
    }
    while (this.#scheduled < due) {
      this.#scheduled++;
      if (this.#inFlight >= this.#options.concurrency) {
        this.counts.errors++;
        this.counts.overConcurrency++;
        continue;
      }
      this.#send();
    }
  }

  #send(): void {
    const target = this.#targets[this.counts.sent % this.#targets.length]!;
    const started = performance.now();
    this.#inFlight++;
    this.counts.sent++;
    let finished = false;
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      this.#inFlight--;
      if (code === null) this.counts.errors++;
      else {
        this.counts.answered++;
        this.counts.codes[code] = (this.counts.codes[code] ?? 0) + 1;
        if (this.#options.keepLatencies !== false) {
          const ms = performance.now() - started;
          this.latencies.push(ms);
          this.#window.push(ms);
        }
      }
      if (this.#inFlight === 0 && this.#idle) {
        const idle = this.#idle;
        this.#idle = null;
        idle();
      }
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: target.path ?? "/",
        agent: this.#agent,
        timeout: this.#options.timeoutMs ?? 10_000,
      },
      (res) => {
        res.resume();
        res.on("end", () => finish(res.statusCode ?? 0));
        res.on("error", () => finish(null));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => finish(null));
    req.end();
  }
}

function targetsOf(target: LoadTarget | readonly LoadTarget[]): readonly LoadTarget[] {
  return "host" in target ? [target] : target;
}

/** `sent 30, answered 30 (200: 30), errors 0, p50 1.2ms, p99 3.4ms` */
export function formatCounts(counts: LoadCounts, latency: LatencySummary): string {
  const codes = Object.entries(counts.codes)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, n]) => `${code}: ${n}`)
    .join(", ");
  const ms = (v: number | null) => (v === null ? "-" : `${v.toFixed(1)}ms`);
  const over = counts.overConcurrency > 0 ? ` (${counts.overConcurrency} over --concurrency)` : "";
  return `sent ${counts.sent}, answered ${counts.answered}${codes ? ` (${codes})` : ""}, errors ${counts.errors}${over}, p50 ${ms(latency.p50Ms)}, p99 ${ms(latency.p99Ms)}`;
}
