// core/v1 Events for HPAs over the Kubernetes API, as client-go's record.EventRecorder with its
// EventCorrelator writes them for kube-controller-manager's HPA controller (source component
// `horizontal-pod-autoscaler`):
// - each event is named `<object>.<unix nanoseconds in hex>` and carries the involved object
//   (kind, namespace, name, uid, apiVersion, resourceVersion), reason, message, type,
//   firstTimestamp = lastTimestamp, count 1, reportingComponent;
// - aggregation: when one object has 10 distinct messages for the same reason within 10
//   minutes, further ones become a single "(combined from similar events): ..." event;
// - de-duplication: a repeat of the same (source, object, type, reason, message) PATCHes the
//   first event with count + 1, lastTimestamp and message (a strategic merge patch); a patch of
//   an event that has gone (TTL) creates it again;
// - spam filter (on by default, as upstream): a token bucket per source + object, burst 25,
//   refilled one event per 5 minutes; a filtered event is not written.
// record() is synchronous and never blocks a sync: correlation runs at once (in memory) and the
// writes go to a bounded queue, drained by a few writers that keep the order of writes to the
// same event; when the queue is full new writes are dropped and counted, as upstream's
// broadcaster drops when its channel is full. flush() waits for the queue to drain.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { EventsPort } from "../controller/ports.js";
import type { SyncEvent } from "../core/sync.js";
import { requestWithDeadline } from "./api-errors.js";
import type { KubeClient } from "./types.js";

export const HPA_COMPONENT = "horizontal-pod-autoscaler";

const LRU_SIZE = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
/** Upstream's broadcaster queue length (watch.NewLongQueueBroadcaster(1000, DropIfChannelFull)). */
const MAX_QUEUED = 1000;
const MAX_TRIES = 12;
const RETRY_SLEEP_MS = 10_000;

export interface KubeEvent {
  apiVersion: "v1";
  kind: "Event";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: Record<string, string>;
  reason: string;
  message: string;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  eventTime: null;
  reportingComponent: string;
  reportingInstance: string;
}

export interface KubeEventsOptions {
  client: KubeClient;
  /** The event source's component (default `horizontal-pod-autoscaler`). */
  component?: string;
  /** The source's host / reportingInstance (default "", as kube-controller-manager's HPA recorder). */
  host?: string;
  /** client-go's EventSourceObjectSpamFilter (default on). */
  spamFilter?: boolean | { burst: number; qps: number };
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
}

/** A small LRU (groupcache/lru's behaviour: a get refreshes, an add evicts the oldest). */
class Lru<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly size: number) {}
  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.size) {
      const oldest = this.#map.keys().next().value;
      if (oldest !== undefined) this.#map.delete(oldest);
    }
  }
}

/** metav1.Time on the wire: RFC 3339, whole seconds. */
export function wireTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function eventKey(e: KubeEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? "",
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ].join("\u0000");
}

function spamKey(e: KubeEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? "",
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
  ].join("\u0000");
}

function aggregateKey(e: KubeEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? "",
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ].join("\u0000");
}

interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
}

interface Write {
  event: KubeEvent;
  /** The strategic merge patch of a repeat (count > 1). */
  patch?: { count: number; lastTimestamp: string; message: string };
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class KubeEventRecorder implements EventsPort {
  readonly #client: KubeClient;
  readonly #component: string;
  readonly #host: string;
  readonly #spam: { burst: number; qps: number } | null;
  readonly #maxQueued: number;
  readonly #concurrency: number;
  readonly #maxTries: number;
  readonly #retrySleepMs: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #onError: ((error: string, event: KubeEvent) => void) | undefined;

  readonly #aggregates = new Lru<{ localKeys: Set<string>; last: number }>(LRU_SIZE);
  readonly #observations = new Lru<Observation>(LRU_SIZE);
  readonly #buckets = new Lru<{ tokens: number; last: number }>(LRU_SIZE);
  #lastNanos = 0n;

  readonly #queue: Write[] = [];
  readonly #inFlight = new Set<string>();
  #active = 0;
  #idle: (() => void)[] = [];

  /** Writes dropped because the queue was full. */
  dropped = 0;
  /** Events the spam filter kept from being written. */
  filtered = 0;
  /** Writes given up on (rejected by the server, or out of attempts). */
  failed = 0;

  constructor(options: KubeEventsOptions) {
    this.#client = options.client;
    this.#component = options.component ?? HPA_COMPONENT;
    this.#host = options.host ?? "";
    const spam = options.spamFilter ?? true;
    this.#spam =
      spam === false ? null : spam === true ? { burst: SPAM_BURST, qps: SPAM_QPS } : spam;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.#concurrency = Math.max(1, options.concurrency ?? 4);
    this.#maxTries = Math.max(1, options.maxTries ?? MAX_TRIES);
    this.#retrySleepMs = options.retrySleepMs ?? RETRY_SLEEP_MS;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#sleep = options.sleep ?? sleepMs;
    this.#random = options.random ?? Math.random;
    this.#onError = options.onError;
  }

  /** Writes queued or in flight. */
  get pending(): number {
    return this.#queue.length + this.#active;
  }

  /** `<name>.<hex nanoseconds>`; strictly increasing, so two events never share a name. */
  #name(objectName: string, now: number): string {
    let nanos = BigInt(Math.floor(now)) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return `${objectName}.${nanos.toString(16)}`;
  }

  record(hpa: HorizontalPodAutoscaler, event: SyncEvent, now: number): void {
    const namespace = hpa.metadata.namespace || "default";
    const name = hpa.metadata.name ?? "";
    // ref.GetReference: empty fields are left out (ObjectReference's omitempty).
    const involvedObject: Record<string, string> = { kind: "HorizontalPodAutoscaler" };
    if (hpa.metadata.namespace) involvedObject.namespace = hpa.metadata.namespace;
    if (name) involvedObject.name = name;
    if (hpa.metadata.uid) involvedObject.uid = hpa.metadata.uid;
    involvedObject.apiVersion = "autoscaling/v2";
    if (hpa.metadata.resourceVersion) involvedObject.resourceVersion = hpa.metadata.resourceVersion;
    const time = wireTime(now);
    const made: KubeEvent = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: this.#name(name, now), namespace },
      involvedObject,
      reason: event.reason,
      message: event.message,
      source: this.#host
        ? { component: this.#component, host: this.#host }
        : { component: this.#component },
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type: event.type,
      eventTime: null,
      reportingComponent: this.#component,
      reportingInstance: this.#host,
    };
    const { event: aggregated, key } = this.#aggregate(made, now);
    const write = this.#observe(aggregated, key);
    if (this.#spam && !this.#allow(spamKey(write.event), now)) {
      this.filtered++;
      return;
    }
    this.#enqueue(write);
  }

  /** EventAggregator: the 10th distinct message of a reason within 10 minutes is combined. */
  #aggregate(event: KubeEvent, now: number): { event: KubeEvent; key: string } {
    const full = eventKey(event);
    const aggKey = aggregateKey(event);
    let record = this.#aggregates.get(aggKey);
    if (!record || now - record.last > AGGREGATE_INTERVAL_MS) {
      record = { localKeys: new Set(), last: now };
    }
    record.localKeys.add(event.message);
    record.last = now;
    this.#aggregates.set(aggKey, record);
    if (record.localKeys.size < AGGREGATE_MAX_EVENTS) return { event, key: full };
    // Keep the set from growing past the maximum (PopAny).
    const any = record.localKeys.values().next().value;
    if (any !== undefined) record.localKeys.delete(any);
    const time = wireTime(now);
    const combined: KubeEvent = {
      ...event,
      metadata: {
        name: this.#name(event.involvedObject.name ?? "", now),
        namespace: event.metadata.namespace,
      },
      message: `(combined from similar events): ${event.message}`,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      // The aggregate copy carries no reporting fields upstream.
      reportingComponent: "",
      reportingInstance: "",
    };
    return { event: combined, key: aggKey };
  }

  /** eventLogger.eventObserve: a repeat takes the first event's name, count + 1, and a patch. */
  #observe(event: KubeEvent, key: string): Write {
    const last = this.#observations.get(key);
    let write: Write;
    if (last && last.count > 0) {
      const repeat: KubeEvent = {
        ...event,
        metadata: { name: last.name, namespace: event.metadata.namespace },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      write = {
        event: repeat,
        patch: {
          count: repeat.count,
          lastTimestamp: repeat.lastTimestamp,
          message: repeat.message,
        },
      };
    } else {
      write = { event };
    }
    this.#observations.set(key, {
      count: write.event.count,
      firstTimestamp: write.event.firstTimestamp,
      name: write.event.metadata.name,
    });
    return write;
  }

  /** A token bucket per source + object (golang.org/x/time/rate, starting full). */
  #allow(key: string, now: number): boolean {
    const spam = this.#spam!;
    let bucket = this.#buckets.get(key);
    if (!bucket) bucket = { tokens: spam.burst, last: now };
    const elapsed = Math.max(0, now - bucket.last) / 1000;
    bucket.tokens = Math.min(spam.burst, bucket.tokens + elapsed * spam.qps);
    bucket.last = Math.max(bucket.last, now);
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    return ok;
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

  /** Resolves once every queued write has been delivered or given up on. */
  flush(): Promise<void> {
    if (this.#active === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #deliver(write: Write): Promise<void> {
    for (let tries = 1; ; tries++) {
      const outcome = await this.#attempt(write);
      if (outcome === "done") return;
      if (tries >= this.#maxTries) {
        this.failed++;
        this.#onError?.(`Unable to write event (retry limit exceeded!): ${outcome}`, write.event);
        return;
      }
      // client-go randomizes the first sleep so that clients do not retry in step.
      const delay = tries === 1 ? this.#retrySleepMs * this.#random() : this.#retrySleepMs;
      await this.#sleep(delay);
    }
  }

  /** recordEvent: "done" (written or rejected for good), or the transport error to retry on. */
  async #attempt(write: Write): Promise<"done" | string> {
    const { event } = write;
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
      // UpdateState: remember the server's copy (name, count) under its own key. Upstream
      // correlates each event just before writing it; here correlation runs ahead of the
      // writes, so a late answer must not take back repeats observed since.
      const written = response.body;
      if (written && typeof written === "object" && written.metadata) {
        const key = eventKey({ ...event, ...written, source: written.source ?? event.source });
        const count = written.count ?? event.count;
        const current = this.#observations.get(key);
        if (!current || current.count <= count) {
          this.#observations.set(key, {
            count,
            firstTimestamp: written.firstTimestamp ?? event.firstTimestamp,
            name: written.metadata.name,
          });
        }
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
