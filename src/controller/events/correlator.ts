// One event correlator for every EventsPort adapter (the embedded cluster's store, the
// Kubernetes API): client-go's record.EventRecorder + EventCorrelator as kube-controller-manager's
// HPA controller uses them (source component `horizontal-pod-autoscaler`), as a pure value:
// no I/O, `now` passed in. The adapters only write what it decides.
// - each event is named `<object>.<unix nanoseconds in hex>` and carries the involved object
//   (kind, namespace, name, uid, apiVersion, resourceVersion; empty fields left out), reason,
//   message, type, firstTimestamp = lastTimestamp, count 1, reportingComponent;
// - aggregation: when one object has 10 distinct messages for the same reason within 10
//   minutes, further ones become a single "(combined from similar events): ..." event;
// - de-duplication: a repeat of the same (source, object, type, reason, message) becomes a patch
//   of the first event: count + 1, lastTimestamp and message;
// - spam filter (on by default, as upstream): a token bucket per source + object, burst 25,
//   refilled one event per 5 minutes; a filtered event is not written, but still counted.

import { rfc3339 } from "../../api/time.js";
import type { HorizontalPodAutoscaler } from "../../api/types.js";
import type { SyncEvent } from "../../core/sync.js";

export const HPA_COMPONENT = "horizontal-pod-autoscaler";

/** Upstream's maxLruCacheEntries. */
const LRU_SIZE = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;

/** A core/v1 Event as the recorder writes it. */
export interface CoreEvent {
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

/** The object an event is about (an ObjectReference; `fieldPath` names a container). */
export interface InvolvedObject {
  kind: string;
  apiVersion: string;
  namespace?: string | undefined;
  name: string;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  fieldPath?: string;
}

/** The strategic merge patch of a repeat. */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

/**
 * What to write: a new Event, a patch of an earlier one (`event` is the whole Event after the
 * patch, for an adapter that must create it again), or nothing (spam filter).
 */
export type Correlation =
  | { action: "create"; event: CoreEvent }
  | { action: "patch"; event: CoreEvent; patch: EventPatch }
  | { action: "skip"; event: CoreEvent };

export interface SpamFilterOptions {
  burst: number;
  /** Tokens per second. */
  qps: number;
}

export interface EventCorrelatorOptions {
  /** The event source's component (default `horizontal-pod-autoscaler`). */
  component?: string;
  /** The source's host / reportingInstance (default "", as kube-controller-manager's HPA recorder). */
  host?: string;
  /** client-go's EventSourceObjectSpamFilter (default on: burst 25, one per 5 minutes). */
  spamFilter?: boolean | SpamFilterOptions;
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

function eventKey(e: CoreEvent): string {
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

function spamKey(e: CoreEvent): string {
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

/** The spam key's fields plus what makes events "similar" (client-go's EventAggregatorByReasonFunc). */
function aggregateKey(e: CoreEvent): string {
  return [spamKey(e), e.type, e.reason, e.reportingComponent, e.reportingInstance].join("\u0000");
}

interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
}

export class EventCorrelator {
  readonly #component: string;
  readonly #host: string;
  /** One object for all of this recorder's events (stored objects are never changed in place). */
  readonly #source: CoreEvent["source"];
  readonly #spam: SpamFilterOptions | null;
  readonly #aggregates = new Lru<{ localKeys: Set<string>; last: number }>(LRU_SIZE);
  readonly #observations = new Lru<Observation>(LRU_SIZE);
  readonly #buckets = new Lru<{ tokens: number; last: number }>(LRU_SIZE);
  #lastNanos = 0n;

  /** Events the spam filter kept from being written. */
  filtered = 0;

  constructor(options: EventCorrelatorOptions = {}) {
    this.#component = options.component ?? HPA_COMPONENT;
    this.#host = options.host ?? "";
    this.#source = this.#host
      ? { component: this.#component, host: this.#host }
      : { component: this.#component };
    const spam = options.spamFilter ?? true;
    this.#spam =
      spam === false ? null : spam === true ? { burst: SPAM_BURST, qps: SPAM_QPS } : spam;
  }

  /** `<name>.<hex nanoseconds>`; strictly increasing, so two events never share a name. */
  #name(objectName: string, now: number): string {
    let nanos = BigInt(Math.floor(now)) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return `${objectName}.${nanos.toString(16)}`;
  }

  /** The Event the recorder makes for an object (before correlation). */
  #make(ref: InvolvedObject, event: SyncEvent, now: number): CoreEvent {
    const namespace = ref.namespace || "default";
    const name = ref.name;
    // ref.GetReference: empty fields are left out (ObjectReference's omitempty).
    const involvedObject: Record<string, string> = { kind: ref.kind };
    if (ref.namespace) involvedObject.namespace = ref.namespace;
    if (name) involvedObject.name = name;
    if (ref.uid) involvedObject.uid = ref.uid;
    involvedObject.apiVersion = ref.apiVersion;
    if (ref.resourceVersion) involvedObject.resourceVersion = ref.resourceVersion;
    if (ref.fieldPath) involvedObject.fieldPath = ref.fieldPath;
    const time = rfc3339(now);
    return {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: this.#name(name, now), namespace },
      involvedObject,
      reason: event.reason,
      message: event.message,
      source: this.#source,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type: event.type,
      eventTime: null,
      reportingComponent: this.#component,
      reportingInstance: this.#host,
    };
  }

  /** EventCorrelate of an HPA's event (the HPA controller works on autoscaling/v2 objects). */
  correlate(hpa: HorizontalPodAutoscaler, event: SyncEvent, now: number): Correlation {
    return this.correlateFor(
      {
        kind: "HorizontalPodAutoscaler",
        apiVersion: "autoscaling/v2",
        namespace: hpa.metadata.namespace,
        name: hpa.metadata.name ?? "",
        uid: hpa.metadata.uid,
        resourceVersion: hpa.metadata.resourceVersion,
      },
      event,
      now,
    );
  }

  /** EventCorrelate: aggregate, observe (de-duplicate), then filter. */
  correlateFor(ref: InvolvedObject, event: SyncEvent, now: number): Correlation {
    const { event: aggregated, key } = this.#aggregate(this.#make(ref, event, now), now);
    const correlation = this.#observe(aggregated, key);
    if (this.#spam && !this.#allow(spamKey(correlation.event), now)) {
      this.filtered++;
      return { action: "skip", event: correlation.event };
    }
    return correlation;
  }

  /** EventAggregator: the 10th distinct message of a reason within 10 minutes is combined. */
  #aggregate(event: CoreEvent, now: number): { event: CoreEvent; key: string } {
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
    const time = rfc3339(now);
    const combined: CoreEvent = {
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
  #observe(event: CoreEvent, key: string): Correlation {
    const last = this.#observations.get(key);
    let correlation: Correlation;
    if (last && last.count > 0) {
      const repeat: CoreEvent = {
        ...event,
        metadata: { name: last.name, namespace: event.metadata.namespace },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      correlation = {
        action: "patch",
        event: repeat,
        patch: {
          count: repeat.count,
          lastTimestamp: repeat.lastTimestamp,
          message: repeat.message,
        },
      };
    } else {
      correlation = { action: "create", event };
    }
    this.#observations.set(key, {
      count: correlation.event.count,
      firstTimestamp: correlation.event.firstTimestamp,
      name: correlation.event.metadata.name,
    });
    return correlation;
  }

  /** A token bucket per source + object (golang.org/x/time/rate, starting full). */
  #allow(key: string, now: number): boolean {
    const spam = this.#spam;
    if (!spam) return true;
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

  /**
   * UpdateState: remember the server's copy of a written event (its name, count) under its own
   * key. Upstream correlates each event just before writing it; adapters that write later must
   * not take back repeats observed since, so a lower count than the one observed is ignored.
   */
  updateState(
    sent: CoreEvent,
    written: Partial<Omit<CoreEvent, "metadata">> & { metadata: { name: string } },
  ): void {
    const key = eventKey({
      ...sent,
      ...written,
      source: written.source ?? sent.source,
    } as CoreEvent);
    const count = written.count ?? sent.count;
    const current = this.#observations.get(key);
    if (!current || current.count <= count) {
      this.#observations.set(key, {
        count,
        firstTimestamp: written.firstTimestamp ?? sent.firstTimestamp,
        name: written.metadata.name,
      });
    }
  }
}
