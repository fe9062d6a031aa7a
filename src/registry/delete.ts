// The registry's delete (k8s.io/apiserver's generic Store.Delete with rest.BeforeDelete and the
// kinds' graceful-delete strategies) as pure decisions, and their application to the object
// store: graceful pod deletion, finalizers, deletionTimestamp, the `orphan` / `foregroundDeletion`
// finalizers of a propagation policy, and updates that empty the finalizers of a terminating
// object. The API server's delete and update endpoints and the cluster's own controllers (kubelet,
// garbage collector) all delete through these, as every client goes through the registry upstream.

import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { jsonEqual } from "../core/json.js";
import { knownGcPolicy } from "../kinds/catalog.js";
import type { DefaultGcPolicy } from "../kinds/types.js";
import type { DeleteOptions } from "./deleteoptions.js";
import { type ObjectStore, storeNamespaceOf } from "./store.js";

/** metav1.FinalizerOrphanDependents. */
export const ORPHAN_FINALIZER = "orphan";
/** metav1.FinalizerDeleteDependents. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";
/** What the API server defaults a pod's spec.terminationGracePeriodSeconds to. */
export const DEFAULT_POD_GRACE_SECONDS = 30;

// -----------------------------------------------------------------------------------------
// The registry's delete, as decisions

/**
 * apps/v1 workloads delete their dependents; v1 ReplicationControllers and the old apps /
 * extensions versions orphan them, as before server-side garbage collection existed; other
 * kinds have no default (background).
 */
export function defaultGcPolicy(kind: string, apiVersion?: string): DefaultGcPolicy {
  const current = knownGcPolicy(kind);
  if (
    current.policy === "DeleteDependents" &&
    apiVersion !== undefined &&
    apiVersion !== current.apiVersion
  ) {
    return "OrphanDependents";
  }
  return current.policy;
}

/** shouldOrphanDependents: options first, then the object's finalizers, then the kind's default. */
function shouldOrphan(
  finalizers: readonly string[],
  o: DeleteOptions,
  d: DefaultGcPolicy,
): boolean {
  if (o.orphanDependents !== undefined) return o.orphanDependents;
  if (o.propagationPolicy === "Orphan") return true;
  if (o.propagationPolicy === "Background" || o.propagationPolicy === "Foreground") return false;
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return d === "OrphanDependents";
}

function shouldForeground(finalizers: readonly string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return false;
  if (o.propagationPolicy === "Foreground") return true;
  if (o.propagationPolicy === "Background" || o.propagationPolicy === "Orphan") return false;
  for (const f of finalizers) {
    if (f === FOREGROUND_FINALIZER) return true;
    if (f === ORPHAN_FINALIZER) return false;
  }
  return false;
}

/**
 * deletionFinalizersForGarbageCollection: the finalizers a delete leaves on the object (the
 * policy's `orphan` / `foregroundDeletion` in place of any earlier one), or null when the set
 * does not change.
 */
export function gcFinalizers(
  finalizers: readonly string[],
  options: DeleteOptions,
  policy: DefaultGcPolicy,
): string[] | null {
  const next = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(finalizers, options, policy)) next.push(ORPHAN_FINALIZER);
  if (shouldForeground(finalizers, options)) next.push(FOREGROUND_FINALIZER);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return null;
  return next;
}

/**
 * The pod strategy's CheckGracefulDelete: the requested period, else the pod's
 * terminationGracePeriodSeconds (the API server defaults it to 30); 0 for a pod never
 * scheduled or already terminated; negative periods become 1.
 */
export function podGracePeriodSeconds(pod: KubeObject, options: DeleteOptions): number {
  const spec = (pod.spec ?? {}) as { terminationGracePeriodSeconds?: number; nodeName?: string };
  let period =
    options.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? DEFAULT_POD_GRACE_SECONDS;
  if (!spec.nodeName) period = 0;
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === "Failed" || phase === "Succeeded") period = 0;
  return period < 0 ? 1 : period;
}

/** What a delete of one object comes to. */
export type DeletePlan =
  /** Already terminating sooner than asked: nothing changes. */
  | { type: "pending" }
  /** Removed now; `write` is the zero-grace mark a graceful kind stores first. */
  | { type: "deleteNow"; write?: KubeObject["metadata"] }
  /** Stored with this metadata (deletionTimestamp set); gone once finalizers and grace allow. */
  | { type: "mark"; metadata: KubeObject["metadata"]; bumpGeneration: boolean };

export function finalizersOf(object: KubeObject): string[] {
  return (object.metadata.finalizers as string[] | undefined) ?? [];
}

function graceOf(object: KubeObject): number | undefined {
  const grace = object.metadata.deletionGracePeriodSeconds;
  return typeof grace === "number" ? grace : undefined;
}

export function withFinalizers(
  meta: KubeObject["metadata"],
  finalizers: string[],
): KubeObject["metadata"] {
  const out = { ...meta };
  if (finalizers.length > 0) out.finalizers = finalizers;
  else delete out.finalizers;
  return out;
}

/**
 * The generic registry's Delete (rest.BeforeDelete, then the update for graceful deletion and
 * finalizers): graceful kinds (pods) get deletionTimestamp = now + grace and may only shorten
 * it later; an object with finalizers is only marked (markAsDeleting: deletionTimestamp now,
 * grace 0); everything else goes at once.
 */
export function planDelete(
  current: KubeObject,
  options: DeleteOptions,
  now: number,
  policy: DefaultGcPolicy,
): DeletePlan {
  let meta: KubeObject["metadata"] = { ...current.metadata };
  let graceful = false;
  let grace = 0;
  let bumpGeneration = false;
  const requested =
    options.gracePeriodSeconds === undefined
      ? undefined
      : options.gracePeriodSeconds < 0
        ? 1
        : options.gracePeriodSeconds;
  if (current.kind === "Pod") {
    if (meta.deletionTimestamp) {
      const existing = graceOf(current);
      if (existing !== undefined && existing !== 0) {
        if (requested === undefined || requested >= existing) return { type: "pending" };
        // Only a shorter grace period may be given: the deadline moves earlier.
        const start = Date.parse(meta.deletionTimestamp) - existing * 1000;
        meta.deletionTimestamp = rfc3339(start + requested * 1000);
        meta.deletionGracePeriodSeconds = requested;
        graceful = true;
        grace = requested;
      }
    } else {
      grace = podGracePeriodSeconds(current, { ...options, gracePeriodSeconds: requested });
      meta.deletionTimestamp = rfc3339(now + grace * 1000);
      meta.deletionGracePeriodSeconds = grace;
      bumpGeneration = true;
      graceful = true;
    }
  }
  const existing = finalizersOf(current);
  const updated = gcFinalizers(existing, options, policy);
  if (!graceful && existing.length === 0 && updated === null) return { type: "deleteNow" };
  const finalizers = updated ?? existing;
  if (updated !== null) meta = withFinalizers(meta, finalizers);
  if (!graceful) {
    if (finalizers.length === 0) return { type: "deleteNow" };
    // markAsDeleting: the first mark bumps generation; the deadline never moves later.
    if (!current.metadata.deletionTimestamp) bumpGeneration = true;
    const stamp = current.metadata.deletionTimestamp;
    if (!stamp || Date.parse(stamp) > now) meta.deletionTimestamp = rfc3339(now);
    meta.deletionGracePeriodSeconds = 0;
    return { type: "mark", metadata: meta, bumpGeneration };
  }
  if (finalizers.length > 0 || grace > 0) return { type: "mark", metadata: meta, bumpGeneration };
  return { type: "deleteNow", write: meta };
}

/**
 * ShouldDeleteDuringUpdate: an update leaving no finalizers on an object whose deletion was
 * requested with no (or a zero) grace period deletes it instead; a namespace also needs its
 * spec.finalizers empty.
 */
export function shouldDeleteDuringUpdate(next: KubeObject, current: KubeObject): boolean {
  if (finalizersOf(next).length > 0) return false;
  if (!current.metadata.deletionTimestamp) return false;
  const grace = graceOf(current);
  if (grace !== undefined && grace !== 0) return false;
  if (next.kind === "Namespace") {
    const spec = next.spec as { finalizers?: string[] } | undefined;
    return (spec?.finalizers ?? []).length === 0;
  }
  return true;
}

/** Where a delete left the object. */
export interface DeleteOutcome {
  /** Gone from the store (or would be, in a dry run). */
  deleted: boolean;
  /** Already terminating; nothing was written. */
  pending: boolean;
  /** The final object (deleted), the marked object, or the unchanged one (pending). */
  object: KubeObject;
}

/** Applies planDelete to the store (nothing is written in a dry run). */
export function deleteFromStore(
  store: ObjectStore,
  current: KubeObject,
  options: DeleteOptions,
  now: number,
  policy: DefaultGcPolicy,
  dryRun = false,
): DeleteOutcome {
  const plan = planDelete(current, options, now, policy);
  const ns = storeNamespaceOf(current);
  const name = current.metadata.name;
  if (plan.type === "pending") return { deleted: false, pending: true, object: current };
  if (plan.type === "mark") {
    if (dryRun)
      return { deleted: false, pending: false, object: { ...current, metadata: plan.metadata } };
    // An update that changes nothing is no write (GuaranteedUpdate skips it).
    if (!plan.bumpGeneration && jsonEqual(plan.metadata, current.metadata))
      return { deleted: false, pending: false, object: current };
    const stored = store.update(
      {
        ...current,
        metadata: { ...plan.metadata, resourceVersion: current.metadata.resourceVersion },
      },
      { bumpGeneration: plan.bumpGeneration },
    );
    return { deleted: false, pending: false, object: stored };
  }
  if (dryRun) {
    const object = plan.write ? { ...current, metadata: plan.write } : current;
    return { deleted: true, pending: false, object };
  }
  if (plan.write) {
    store.update(
      {
        ...current,
        metadata: { ...plan.write, resourceVersion: current.metadata.resourceVersion },
      },
      { bumpGeneration: !current.metadata.deletionTimestamp },
    );
  }
  const final = store.delete(current.kind, ns, name) ?? current;
  return { deleted: true, pending: false, object: final };
}

/**
 * An update through the registry: stores `next`, or deletes the object when the update empties
 * the finalizers of a terminating object (the DELETED event then carries the stored object).
 */
export function updateInStore(store: ObjectStore, next: KubeObject, current: KubeObject): void {
  if (shouldDeleteDuringUpdate(next, current)) {
    store.delete(current.kind, storeNamespaceOf(current), current.metadata.name);
  } else {
    store.update({
      ...next,
      metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion },
    });
  }
}
