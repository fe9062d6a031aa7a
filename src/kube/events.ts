// core/v1 Events for HPAs over the Kubernetes API: the writes of client-go's
// record.EventRecorder, after the shared correlator (controller/events/correlator.ts) has
// decided them — a create POSTs the event, a repeat PATCHes the first one (a strategic merge
// patch of count, lastTimestamp and message), and a patch of an event that has gone (TTL)
// creates it again.
// record() is synchronous and never blocks a sync: correlation runs at once (in memory) and the
// writes go to a bounded queue, drained by a few writers that keep the order of writes to the
// same event; when the queue is full new writes are dropped and counted, as upstream's
// broadcaster drops when its channel is full. flush() waits for the queue to drain.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import {
  type CoreEvent,
  type Correlation,
  EventCorrelator,
  type EventPatch,
  type InvolvedObject,
  type SpamFilterOptions,
} from "../controller/events/correlator.js";
import type { EventsPort } from "../controller/ports.js";
import type { SyncEvent } from "../core/sync.js";
import { requestWithDeadline } from "./api-errors.js";
import type { KubeClient } from "./types.js";

export { HPA_COMPONENT } from "../controller/events/correlator.js";

/** Upstream's broadcaster queue length (watch.NewLongQueueBroadcaster(1000, DropIfChannelFull)). */
const MAX_QUEUED = 1000;
const MAX_TRIES = 12;
const RETRY_SLEEP_MS = 10_000;

export type KubeEvent = CoreEvent;

export interface KubeEventsOptions {
  client: KubeClient;
  /** The event source's component (default `horizontal-pod-autoscaler`). */
  component?: string;
  /** The source's host / reportingInstance (default "", as kube-controller-manager's HPA recorder). */
  host?: string;
  /** client-go's EventSourceObjectSpamFilter (default on). */
  spamFilter?: boolean | SpamFilterOptions;
  /** Queued writes before new ones are dropped (default 1000). */
  maxQueued?: number;
  /** Writers draining the queue (default 4); writes to one event stay in order. */
  concurrency?: number;
  /** Attempts for a write that failed in transport (default 12, as client-go). */
  maxTries?: number;
  /** Sleep between attempts (default 10s; the first is randomized, as client-go). */
  retrySleepMs?: number;
  /** Deadline of each write (default 30s). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Errors of writes given up on (upstream logs them). */
  onError?: (error: string, event: KubeEvent) => void;
  /**
   * Asked right before each attempt: false drops the write (a leader whose lease renewal is
   * overdue sends nothing more, not even what it queued before). Default: always.
   */
  mayWrite?: () => boolean;
}

interface Write {
  event: KubeEvent;
  /** The strategic merge patch of a repeat (count > 1). */
  patch?: EventPatch;
}

// Unref: a retry pending at exit must not keep the process alive.
const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class KubeEventRecorder implements EventsPort {
  readonly #client: KubeClient;
  readonly #correlator: EventCorrelator;
  readonly #maxQueued: number;
  readonly #concurrency: number;
  readonly #maxTries: number;
  readonly #retrySleepMs: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #onError: ((error: string, event: KubeEvent) => void) | undefined;
  readonly #mayWrite: () => boolean;

  readonly #queue: Write[] = [];
  readonly #inFlight = new Set<string>();
  #active = 0;
  #idle: (() => void)[] = [];
  /** Aborted by flush({ finalMs }): no more retries, and retry sleeps end at once. */
  readonly #final = new AbortController();

  /** Writes dropped because the queue was full. */
  dropped = 0;
  /** Writes given up on (rejected by the server, or out of attempts). */
  failed = 0;

  constructor(options: KubeEventsOptions) {
    this.#client = options.client;
    this.#correlator = new EventCorrelator({
      ...(options.component !== undefined ? { component: options.component } : {}),
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.spamFilter !== undefined ? { spamFilter: options.spamFilter } : {}),
    });
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.#concurrency = Math.max(1, options.concurrency ?? 4);
    this.#maxTries = Math.max(1, options.maxTries ?? MAX_TRIES);
    this.#retrySleepMs = options.retrySleepMs ?? RETRY_SLEEP_MS;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#sleep = options.sleep ?? sleepMs;
    this.#random = options.random ?? Math.random;
    this.#onError = options.onError;
    this.#mayWrite = options.mayWrite ?? (() => true);
  }

  /** Events the spam filter kept from being written. */
  get filtered(): number {
    return this.#correlator.filtered;
  }

  /** Writes queued or in flight. */
  get pending(): number {
    return this.#queue.length + this.#active;
  }

  record(hpa: HorizontalPodAutoscaler, event: SyncEvent, now: number): void {
    this.#write(this.#correlator.correlate(hpa, event, now));
  }

  /** An event on another object (the leader-election Lease), correlated the same way. */
  recordFor(ref: InvolvedObject, event: SyncEvent, now: number): void {
    this.#write(this.#correlator.correlateFor(ref, event, now));
  }

  #write(correlation: Correlation): void {
    if (correlation.action === "skip") return;
    this.#enqueue(
      correlation.action === "patch"
        ? { event: correlation.event, patch: correlation.patch }
        : { event: correlation.event },
    );
  }

  #enqueue(write: Write): void {
    if (this.#queue.length >= this.#maxQueued) {
      this.dropped++;
      return;
    }
    this.#queue.push(write);
    this.#pump();
  }

  #pump(): void {
    while (this.#active < this.#concurrency) {
      const index = this.#queue.findIndex((w) => !this.#inFlight.has(w.event.metadata.name));
      if (index < 0) break;
      const [write] = this.#queue.splice(index, 1) as [Write];
      const key = write.event.metadata.name;
      this.#inFlight.add(key);
      this.#active++;
      void this.#deliver(write).finally(() => {
        this.#inFlight.delete(key);
        this.#active--;
        this.#pump();
        if (this.#active === 0 && this.#queue.length === 0) {
          const waiters = this.#idle;
          this.#idle = [];
          for (const resolve of waiters) resolve();
        }
      });
    }
  }

  /**
   * Resolves once every queued write has been delivered or given up on. With `finalMs` (the
   * process is stopping): one attempt each, no retries, and after `finalMs` what is still queued
   * or in flight is given up on (counted as failed), as a process exiting drops its
   * broadcaster's queue.
   */
  flush(options: { finalMs?: number } = {}): Promise<void> {
    if (options.finalMs !== undefined) this.#final.abort();
    const idle =
      this.#active === 0 && this.#queue.length === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#idle.push(resolve));
    if (options.finalMs === undefined) return idle;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.discard();
        resolve();
      }, options.finalMs);
    });
    return Promise.race([idle, late]).finally(() => clearTimeout(timer));
  }

  /** Drops the queued writes (counted as failed); those in flight finish. */
  discard(): void {
    this.failed += this.#queue.length;
    this.#queue.length = 0;
  }

  async #deliver(write: Write): Promise<void> {
    for (let tries = 1; ; tries++) {
      const outcome = await this.#attempt(write);
      if (outcome === "done") return;
      if (tries >= this.#maxTries || this.#final.signal.aborted) {
        this.failed++;
        this.#onError?.(`Unable to write event (retry limit exceeded!): ${outcome}`, write.event);
        return;
      }
      // client-go randomizes the first sleep so that clients do not retry in step.
      const delay = tries === 1 ? this.#retrySleepMs * this.#random() : this.#retrySleepMs;
      await this.#sleepUnlessFinal(delay);
    }
  }

  #sleepUnlessFinal(ms: number): Promise<void> {
    const final = this.#final.signal;
    if (final.aborted) return Promise.resolve();
    return Promise.race([
      this.#sleep(ms),
      new Promise<void>((resolve) =>
        final.addEventListener("abort", () => resolve(), { once: true }),
      ),
    ]);
  }

  /** recordEvent: "done" (written or rejected for good), or the transport error to retry on. */
  async #attempt(write: Write): Promise<"done" | string> {
    const { event } = write;
    if (!this.#mayWrite()) {
      this.failed++;
      return "done";
    }
    const namespace = encodeURIComponent(event.metadata.namespace);
    const deadline = { timeoutMs: this.#timeoutMs };
    let answer: Awaited<ReturnType<typeof requestWithDeadline<KubeEvent>>> | undefined;
    if (write.patch) {
      answer = await requestWithDeadline<KubeEvent>(
        this.#client,
        {
          method: "PATCH",
          path: `/api/v1/namespaces/${namespace}/events/${encodeURIComponent(event.metadata.name)}`,
          body: write.patch,
          contentType: "application/strategic-merge-patch+json",
        },
        deadline,
      );
    }
    // The event may have expired since: create it again, with no resourceVersion.
    if (!answer || (answer.ok && answer.response.status === 404)) {
      const { resourceVersion: _rv, ...metadata } = event.metadata;
      answer = await requestWithDeadline<KubeEvent>(
        this.#client,
        {
          method: "POST",
          path: `/api/v1/namespaces/${namespace}/events`,
          body: { ...event, metadata },
        },
        deadline,
      );
    }
    if (!answer.ok) return answer.error;
    const { response } = answer;
    if (response.status >= 200 && response.status < 300) {
      const written = response.body;
      if (written && typeof written === "object" && written.metadata) {
        this.#correlator.updateState(event, written);
      }
      return "done";
    }
    // A Status answer is final (client-go does not retry a StatusError); AlreadyExists is quiet.
    if (response.status !== 409) {
      this.failed++;
      const body = response.body as { message?: string } | string;
      const message = typeof body === "object" && body ? (body.message ?? "") : String(body);
      this.#onError?.(`Server rejected event (will not retry!): ${message}`, event);
    }
    return "done";
  }
}
