// The default app model of a pod in `horizon up` (the book's sample app): `/` answers a small
// body once the pod has capacity for it, `/metrics` serves Prometheus text, and every other
// request is counted in `http_requests_total{method,code}` (scrapes of /metrics are not, so the
// rate is the traffic's own). A pod with a `capacityRps` serves at most that many requests per
// second: later ones queue, and past a second of queued work it answers 503.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, Registry } from "prom-client";

/** Queued work a pod holds before it refuses (ms). */
export const MAX_QUEUE_MS = 1000;

/**
 * When a pod with `capacityRps` can start the next request: one every 1/capacity seconds.
 * Pure (the caller passes `now`), so it is tested on a fake clock.
 */
export class AdmissionQueue {
  readonly #intervalMs: number;
  #nextFreeAt = Number.NEGATIVE_INFINITY;

  constructor(capacityRps: number | null) {
    this.#intervalMs = capacityRps !== null && capacityRps > 0 ? 1000 / capacityRps : 0;
  }

  /** The delay (ms) before a request arriving at `now` is served, or null: refuse it (503). */
  admit(now: number): number | null {
    if (this.#intervalMs === 0) return 0;
    const start = Math.max(now, this.#nextFreeAt);
    const wait = start - now;
    if (wait > MAX_QUEUE_MS) return null;
    this.#nextFreeAt = start + this.#intervalMs;
    return wait;
  }
}

export interface PodAppOptions {
  podName: string;
  capacityRps: number | null;
  /** A request answered 200 on `/`. */
  onServed?: () => void;
  /** The app's access log line of a request it answered (scrapes of /metrics are not logged). */
  onAccess?: (line: string, request: IncomingMessage) => void;
  now?: () => number;
}

export class PodApp {
  readonly registry = new Registry();
  readonly requests: Counter<"method" | "code">;
  readonly #queue: AdmissionQueue;
  readonly #options: PodAppOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(options: PodAppOptions) {
    this.#options = options;
    this.#queue = new AdmissionQueue(options.capacityRps);
    this.requests = new Counter({
      name: "http_requests_total",
      help: "The amount of requests served by the server in total",
      labelNames: ["method", "code"],
      registers: [this.registry],
    });
  }

  handle(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? "/").split("?")[0];
    const method = request.method ?? "GET";
    if (path === "/metrics") {
      this.registry.metrics().then(
        (text) => {
          response.writeHead(200, { "Content-Type": this.registry.contentType });
          response.end(text);
        },
        (error: Error) => {
          response.writeHead(500, { "Content-Type": "text/plain" });
          response.end(`${error.message}\n`);
        },
      );
      return;
    }
    if (path !== "/") {
      this.#answer(response, method, 404, "404 page not found\n", request);
      return;
    }
    const delay = this.#queue.admit((this.#options.now ?? Date.now)());
    if (delay === null) {
      this.#answer(response, method, 503, "overloaded: request queue is full\n", request);
      return;
    }
    const serve = () => {
      const body = `Hello! My name is ${this.#options.podName}.\n`;
      this.#answer(response, method, 200, body, request);
      this.#options.onServed?.();
    };
    if (delay <= 0) {
      serve();
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      serve();
    }, delay);
    this.#timers.add(timer);
  }

  #answer(
    response: ServerResponse,
    method: string,
    code: number,
    body: string,
    request: IncomingMessage,
  ): void {
    this.requests.inc({ method: method.toLowerCase(), code: String(code) });
    this.#options.onAccess?.(
      accessLine(request, code, Buffer.byteLength(body), (this.#options.now ?? Date.now)()),
      request,
    );
    if (this.#stopped || response.destroyed) return;
    response.writeHead(code, { "Content-Type": "text/plain; charset=utf-8" });
    response.end(body);
  }

  /** The pod's containers stopped: queued requests are dropped. */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A Common Log Format line: `10.0.0.1 - - [24/Nov/2026:23:40:00 +0000] "GET / HTTP/1.1" 200 31`. */
export function accessLine(
  request: IncomingMessage,
  code: number,
  bytes: number,
  now: number,
): string {
  const d = new Date(now);
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
  const remote = request.socket?.remoteAddress ?? "-";
  return `${remote} - - [${time}] "${request.method ?? "GET"} ${request.url ?? "/"} HTTP/${request.httpVersion}" ${code} ${bytes}`;
}
