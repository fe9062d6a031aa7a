// Load driven at a Service at runtime (`horizon load`): the docs' walkthrough runs a
// load-generator pod that loops `wget http://php-apache`; here a client annotates the Service
// instead, through the Kubernetes API, and the embedded cluster adds that many requests per
// second to the traffic of every workload whose pods the Service's selector matches, until the
// annotation's expiry. Pure: the cluster feeds Service objects in and asks for traffic models.

import type { KubeObject } from "../api/types.js";
import type { TrafficModel } from "./cluster-model.js";

/** The annotation on a Service: `{"rps":50}` or `{"rps":50,"until":"2026-11-22T10:00:00.000Z"}`. */
export const LOAD_ANNOTATION = "horizon.dev/load";

export interface ServiceLoad {
  /** Requests per second offered to the Service (finite, > 0). */
  rps: number;
  /** Epoch ms at which the load ends, or null: until the annotation is removed. */
  untilMs: number | null;
}

export type ParsedLoad = { ok: true; load: ServiceLoad } | { ok: false; error: string };

// RFC 3339 with a zone, as metav1.Time is written (fractional seconds allowed).
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses the annotation's value; a malformed one is an error value (the cluster ignores it). */
export function parseLoadAnnotation(text: string): ParsedLoad {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `${LOAD_ANNOTATION}: not JSON: ${JSON.stringify(text)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `${LOAD_ANNOTATION}: must be a JSON object like {"rps":50}` };
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== "rps" && key !== "until") {
      return { ok: false, error: `${LOAD_ANNOTATION}: unknown field "${key}"` };
    }
  }
  const rps = record.rps;
  if (typeof rps !== "number" || !Number.isFinite(rps) || rps <= 0) {
    return { ok: false, error: `${LOAD_ANNOTATION}: rps must be a number > 0` };
  }
  const until = record.until;
  if (until === undefined || until === null) return { ok: true, load: { rps, untilMs: null } };
  if (typeof until !== "string" || !RFC3339.test(until) || Number.isNaN(Date.parse(until))) {
    return {
      ok: false,
      error: `${LOAD_ANNOTATION}: until must be an RFC 3339 time such as 2026-11-22T10:00:00Z`,
    };
  }
  return { ok: true, load: { rps, untilMs: Date.parse(until) } };
}

/** The annotation's value for a load (the inverse of parseLoadAnnotation). */
export function formatLoadAnnotation(load: ServiceLoad): string {
  return load.untilMs === null
    ? JSON.stringify({ rps: load.rps })
    : JSON.stringify({ rps: load.rps, until: new Date(load.untilMs).toISOString() });
}

/** Requests per second the load offers at `now` (epoch ms): zero from its expiry on. */
export function loadRpsAt(load: ServiceLoad, now: number): number {
  return load.untilMs !== null && now >= load.untilMs ? 0 : load.rps;
}

/**
 * The load as a traffic model on the cluster's scenario clock (ms since `startTime`): constant,
 * or a step down to zero at the expiry, so no timer has to remove it.
 */
export function loadTraffic(load: ServiceLoad, startTime: number): TrafficModel {
  if (load.untilMs === null) return { type: "constant", rps: load.rps };
  return { type: "step", initial: load.rps, steps: [{ atMs: load.untilMs - startTime, rps: 0 }] };
}

/**
 * Whether a Service's selector matches pod labels. As the endpoints controller: a Service
 * without a selector (or with an empty one) selects no pods.
 */
export function serviceSelects(
  selector: Readonly<Record<string, string>> | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (!selector) return false;
  const keys = Object.keys(selector);
  if (keys.length === 0) return false;
  for (const key of keys) if (labels[key] !== selector[key]) return false;
  return true;
}

interface LoadedService {
  selector: Record<string, string>;
  load: ServiceLoad;
  model: TrafficModel;
}

/**
 * The loads of the Services of a cluster, by namespace. `withLoads` adds the matching loads'
 * models to a workload's own traffic; the models it added are recognised (by identity) and
 * replaced the next time, so the workload's own models are never lost.
 */
export class ServiceLoads {
  readonly #byNamespace = new Map<string, Map<string, LoadedService>>();
  readonly #models = new WeakSet<TrafficModel>();
  readonly #startTime: number;
  #used = false;

  constructor(startTime: number) {
    this.#startTime = startTime;
  }

  /** Records a Service's current state; true when the loads changed. */
  update(type: "ADDED" | "MODIFIED" | "DELETED", service: KubeObject): boolean {
    const namespace = service.metadata.namespace ?? "default";
    const name = service.metadata.name;
    const byName = this.#byNamespace.get(namespace);
    const before = byName?.get(name);
    const text = type === "DELETED" ? undefined : service.metadata.annotations?.[LOAD_ANNOTATION];
    const parsed = text === undefined ? null : parseLoadAnnotation(text);
    if (!parsed?.ok) {
      if (!before) return false;
      byName!.delete(name);
      if (byName!.size === 0) this.#byNamespace.delete(namespace);
      return true;
    }
    const selector = {
      ...((service.spec as { selector?: Record<string, string> })?.selector ?? {}),
    };
    if (
      before &&
      before.load.rps === parsed.load.rps &&
      before.load.untilMs === parsed.load.untilMs &&
      sameSelector(before.selector, selector)
    ) {
      return false;
    }
    const model = loadTraffic(parsed.load, this.#startTime);
    this.#models.add(model);
    this.#used = true;
    const map = byName ?? new Map<string, LoadedService>();
    map.set(name, { selector, load: parsed.load, model });
    this.#byNamespace.set(namespace, map);
    return true;
  }

  /** The loads whose Service selects pods with these labels in the namespace. */
  loadsFor(namespace: string, podLabels: Readonly<Record<string, string>>): ServiceLoad[] {
    const out: ServiceLoad[] = [];
    for (const entry of this.#byNamespace.get(namespace)?.values() ?? []) {
      if (serviceSelects(entry.selector, podLabels)) out.push(entry.load);
    }
    return out;
  }

  /**
   * `traffic` without the load models added before, plus those of the Services that select
   * pods with these labels now. Returns `traffic` itself when nothing changes.
   */
  withLoads(
    traffic: TrafficModel[],
    namespace: string,
    podLabels: Readonly<Record<string, string>>,
  ): TrafficModel[] {
    // Nothing was ever loaded: the simulator's hot path allocates nothing.
    if (!this.#used) return traffic;
    const own = traffic.filter((m) => !this.#models.has(m));
    const added: TrafficModel[] = [];
    for (const entry of this.#byNamespace.get(namespace)?.values() ?? []) {
      if (serviceSelects(entry.selector, podLabels)) added.push(entry.model);
    }
    const next = [...own, ...added];
    if (next.length === traffic.length && next.every((m, i) => m === traffic[i])) return traffic;
    return next;
  }
}

function sameSelector(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}
