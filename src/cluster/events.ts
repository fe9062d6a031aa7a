// The events port bound in-process to the embedded cluster's store: the writes the shared
// correlator (controller/events/correlator.ts) decides, done at once — so `horizon simulate`
// stores the same Events (names, counts, "(combined from similar events)", spam filter) as
// `horizon controller` writes over the Kubernetes API.
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import {
  type CoreEvent,
  type Correlation,
  EventCorrelator,
  type EventCorrelatorOptions,
  type InvolvedObject,
} from "../controller/events/correlator.js";
import type { EventsPort } from "../controller/ports.js";
import type { SyncEvent } from "../core/sync.js";
import type { ObjectStore } from "../registry/store.js";

export class EventRecorder implements EventsPort {
  readonly #store: ObjectStore;
  readonly #correlator: EventCorrelator;

  constructor(store: ObjectStore, options: EventCorrelatorOptions = {}) {
    this.#store = store;
    this.#correlator = new EventCorrelator(options);
  }

  /** Events the spam filter kept from being written. */
  get filtered(): number {
    return this.#correlator.filtered;
  }

  record(hpa: HorizontalPodAutoscaler, event: SyncEvent, now: number): void {
    writeCorrelated(this.#store, this.#correlator, this.#correlator.correlate(hpa, event, now));
  }
}

/**
 * The Events of the cluster's own components (deployment-controller, replicaset-controller,
 * statefulset-controller, default-scheduler, the node's kubelet): one recorder, so one
 * correlator, per component and host, as each process of a real cluster has its own.
 */
export class ComponentEventRecorder {
  readonly #store: ObjectStore;
  readonly #correlators = new Map<string, EventCorrelator>();
  /**
   * Texts the stored Events share: a container's messages and field path repeat for every pod
   * of a template, and a cluster keeps hundreds of thousands of Events (4 per pod).
   */
  readonly #texts = new Map<string, string>();

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  record(
    source: { component: string; host?: string },
    ref: InvolvedObject,
    event: SyncEvent,
    now: number,
  ): void {
    const key = `${source.component}\u0000${source.host ?? ""}`;
    let correlator = this.#correlators.get(key);
    if (!correlator) {
      correlator = new EventCorrelator({
        component: source.component,
        ...(source.host ? { host: source.host } : {}),
      });
      this.#correlators.set(key, correlator);
    }
    const shared =
      ref.fieldPath === undefined ? ref : { ...ref, fieldPath: this.#intern(ref.fieldPath) };
    const message = this.#intern(event.message);
    writeCorrelated(
      this.#store,
      correlator,
      correlator.correlateFor(shared, { type: event.type, reason: event.reason, message }, now),
    );
  }

  /** The kept copy of a text; the table starts again when full (per-pod texts never repeat). */
  #intern(text: string): string {
    const kept = this.#texts.get(text);
    if (kept !== undefined) return kept;
    if (this.#texts.size >= TEXTS_KEPT) this.#texts.clear();
    this.#texts.set(text, text);
    return text;
  }
}

const TEXTS_KEPT = 1024;

/** Writes what the correlator decided: a new Event, or the patch of a repeat. */
function writeCorrelated(
  store: ObjectStore,
  correlator: EventCorrelator,
  correlation: Correlation,
): void {
  if (correlation.action === "skip") return;
  const { event: made } = correlation;
  const namespace = made.metadata.namespace;
  const patch = correlation.action === "patch" ? correlation.patch : undefined;
  const existing = patch ? store.get("Event", namespace, made.metadata.name) : undefined;
  let written: KubeObject;
  if (existing) {
    // The strategic merge patch of count, lastTimestamp and message.
    written = store.update({
      ...existing,
      ...patch,
      metadata: { ...existing.metadata, resourceVersion: undefined },
    } as KubeObject);
  } else {
    // A new event, or a repeat of one that has gone: create it (again).
    let name = made.metadata.name;
    // Another recorder on the same store (an earlier controller) may hold the name: take the
    // next free nanosecond, and remember the name written (updateState below).
    if (store.get("Event", namespace, name)) {
      const dot = name.lastIndexOf(".");
      const object = name.slice(0, dot);
      let nanos = BigInt(`0x${name.slice(dot + 1)}`);
      do {
        nanos++;
        name = `${object}.${nanos.toString(16)}`;
      } while (store.get("Event", namespace, name));
    }
    written = store.create({
      ...made,
      metadata: { name, namespace },
    } as unknown as KubeObject);
  }
  correlator.updateState(made, written as unknown as CoreEvent);
}
