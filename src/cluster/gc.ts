// Deletion as kube-apiserver and kube-controller-manager do it, over the embedded cluster's
// store: the generic registry's delete (graceful pod deletion, finalizers, deletionTimestamp,
// the `orphan` / `foregroundDeletion` finalizers of a propagation policy), updates that empty
// the finalizers of a terminating object, the garbage collector (ownerReferences: Background,
// Foreground, Orphan) and the namespace controller's cascade. The cluster's own controllers
// (kubelet, GC) delete through these as the registry store does; the request side (decoding
// DeleteOptions, the namespace strategy, update rules) is src/apiserver/registry/.
// The decisions are pure functions; `GarbageCollector` applies them to the store, driven by the
// cluster's clock (it never reads the wall clock).

import { rfc3339 } from "../api/time.js";
import type { KubeObject, OwnerReference } from "../api/types.js";
import { NAMESPACE_FINALIZER } from "../apiserver/kinds/namespace.js";
import type { DefaultGcPolicy } from "../apiserver/kinds/types.js";
import { jsonEqual } from "../core/json.js";
import { isClusterScoped, KNOWN_KINDS, knownGcPolicy, knownPluralOf } from "./kinds.js";
import type { ObjectStore, WatchEvent } from "./store.js";

/** metav1.FinalizerOrphanDependents. */
export const ORPHAN_FINALIZER = "orphan";
/** metav1.FinalizerDeleteDependents. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";
/** What the API server defaults a pod's spec.terminationGracePeriodSeconds to. */
export const DEFAULT_POD_GRACE_SECONDS = 30;

export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

/** metav1.DeleteOptions as a DELETE carries it (body, or query parameters when the body is empty). */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  /** Deprecated upstream; still honoured (and, set to false, it makes an unfinished delete 202). */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

// -----------------------------------------------------------------------------------------
// The registry's delete, as decisions

/** What a kind does with dependents when no policy is given (rest.GarbageCollectionPolicy). */
export type { DefaultGcPolicy };

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

function storeNamespace(object: KubeObject): string {
  return isClusterScoped(object.kind) ? "" : (object.metadata.namespace ?? "default");
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
  const ns = storeNamespace(current);
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
    store.delete(current.kind, storeNamespace(current), current.metadata.name);
  } else {
    store.update({
      ...next,
      metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion },
    });
  }
}

// -----------------------------------------------------------------------------------------
// NamespaceLifecycle

/** The namespace the object lives in is being deleted (NamespaceLifecycle forbids creates). */
export function namespaceTerminating(store: ObjectStore, namespace: string): boolean {
  const ns = store.get("Namespace", "", namespace);
  return ns !== undefined && (ns.status as { phase?: string } | undefined)?.phase === "Terminating";
}

// -----------------------------------------------------------------------------------------
// The namespace controller's status conditions

interface NamespaceCondition {
  type: string;
  status: "True" | "False";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const CONDITION_TYPES = [
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionGroupVersionParsingFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
] as const;

const OK_CONDITIONS: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> =
  {
    NamespaceDeletionDiscoveryFailure: {
      reason: "ResourcesDiscovered",
      message: "All resources successfully discovered",
    },
    NamespaceDeletionGroupVersionParsingFailure: {
      reason: "ParsedGroupVersions",
      message: "All legacy kube types successfully parsed",
    },
    NamespaceDeletionContentFailure: {
      reason: "ContentDeleted",
      message: "All content successfully deleted, may be waiting on finalization",
    },
    NamespaceContentRemaining: {
      reason: "ContentRemoved",
      message: "All content successfully removed",
    },
    NamespaceFinalizersRemaining: {
      reason: "ContentRemoved",
      message: "All content successfully removed",
    },
  };

/** What is left in a terminating namespace: objects per resource, objects per finalizer. */
export interface RemainingContent {
  /** `pods.` / `deployments.apps` → count (the resource and group, as upstream prints them). */
  byResource: Map<string, number>;
  byFinalizer: Map<string, number>;
}

/**
 * The namespace deleter's conditions for what remains (sorted messages, as upstream sorts
 * them); a condition keeps its lastTransitionTime while its status stays.
 */
export function namespaceConditions(
  previous: readonly NamespaceCondition[],
  remaining: RemainingContent,
  now: number,
): NamespaceCondition[] {
  const out: NamespaceCondition[] = previous.filter(
    (c) => !(CONDITION_TYPES as readonly string[]).includes(c.type),
  );
  const wanted = new Map<string, { status: "True" | "False"; reason: string; message: string }>();
  for (const type of CONDITION_TYPES) wanted.set(type, { status: "False", ...OK_CONDITIONS[type] });
  const resources = [...remaining.byResource]
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${r} has ${n} resource instances`)
    .sort();
  if (resources.length > 0) {
    wanted.set("NamespaceContentRemaining", {
      status: "True",
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${resources.join(", ")}`,
    });
  }
  const finalizers = [...remaining.byFinalizer]
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f} in ${n} resource instances`)
    .sort();
  if (finalizers.length > 0) {
    wanted.set("NamespaceFinalizersRemaining", {
      status: "True",
      reason: "SomeFinalizerRemain",
      message: `Some finalizers are remaining: ${finalizers.join(", ")}`,
    });
  }
  const conditions: NamespaceCondition[] = [];
  for (const type of CONDITION_TYPES) {
    const want = wanted.get(type)!;
    const old = previous.find((c) => c.type === type);
    const lastTransitionTime =
      old && old.status === want.status ? old.lastTransitionTime : rfc3339(now);
    conditions.push({
      type,
      status: want.status,
      lastTransitionTime,
      reason: want.reason,
      message: want.message,
    });
  }
  // Upstream appends its conditions after any others the namespace carries.
  return [...out, ...conditions];
}

// -----------------------------------------------------------------------------------------
// The garbage collector and the namespace controller

/** `pods.`, `deployments.apps`: a remaining object's resource as the namespace deleter names it. */
function resourceAndGroup(object: KubeObject): string {
  const apiVersion = object.apiVersion ?? "v1";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${knownPluralOf(object.kind) ?? `${object.kind.toLowerCase()}s`}.${group}`;
}

type Ref = OwnerReference;

function refsOf(object: KubeObject): readonly Ref[] {
  return (object.metadata.ownerReferences as Ref[] | undefined) ?? [];
}

function keyOf(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function objectKey(object: KubeObject): string {
  return keyOf(object.kind, storeNamespace(object), object.metadata.name);
}

function sameRefs(a: readonly Ref[] | undefined, b: readonly Ref[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every(
    (r, i) =>
      r.uid === b[i]!.uid &&
      r.kind === b[i]!.kind &&
      r.name === b[i]!.name &&
      Boolean(r.blockOwnerDeletion) === Boolean(b[i]!.blockOwnerDeletion),
  );
}

function deletingDependents(object: KubeObject): boolean {
  return (
    object.metadata.deletionTimestamp !== undefined &&
    finalizersOf(object).includes(FOREGROUND_FINALIZER)
  );
}

export interface GarbageCollectorOptions {
  store: ObjectStore;
  /** The cluster's clock (epoch ms). */
  now: () => number;
}

/**
 * kube-controller-manager's garbage collector and namespace controller over the store. Store
 * events only queue work (writing inside a watch callback would reorder other watchers'
 * events); `process()` does it, called by the cluster's reconcile loop after each change.
 */
export class GarbageCollector {
  readonly #store: ObjectStore;
  readonly #now: () => number;
  /** Objects to look at (owners gone, deletion finalizers to act on). */
  readonly #queue = new Set<string>();
  readonly #namespaces = new Set<string>();
  /** Owner uid → keys of the objects that reference it. */
  readonly #dependents = new Map<string, Set<string>>();
  /** Dependent key → the references indexed for it. */
  readonly #indexed = new Map<string, readonly Ref[]>();
  readonly #terminating = new Set<string>();
  #processing = false;

  constructor(options: GarbageCollectorOptions) {
    this.#store = options.store;
    this.#now = options.now;
    // A restart resyncs everything, as the collector's graph builder does on start.
    for (const object of [...this.#store.objects()]) this.#observe({ type: "ADDED", object });
    this.#store.watch((event) => this.#observe(event));
  }

  /** Work is queued. */
  get pending(): boolean {
    return this.#queue.size > 0 || this.#namespaces.size > 0;
  }

  /** Does the queued work (and the work it causes) until none is left. */
  process(): void {
    if (this.#processing) return;
    this.#processing = true;
    try {
      for (let round = 0; round < 1000 && this.pending; round++) {
        const keys = [...this.#queue];
        this.#queue.clear();
        for (const key of keys) this.#attempt(key);
        const namespaces = [...this.#namespaces];
        this.#namespaces.clear();
        for (const name of namespaces) this.#syncNamespace(name);
      }
    } finally {
      this.#processing = false;
    }
  }

  /** Live objects that name `owner` (by uid) in their ownerReferences. */
  dependentsOf(owner: KubeObject): KubeObject[] {
    const uid = owner.metadata.uid;
    const out: KubeObject[] = [];
    if (!uid) return out;
    for (const key of this.#dependents.get(uid) ?? []) {
      const dep = this.#get(key);
      if (dep && refsOf(dep).some((r) => r.uid === uid)) out.push(dep);
    }
    return out;
  }

  #get(key: string): KubeObject | undefined {
    const [kind, namespace, name] = key.split("/") as [string, string, string];
    return this.#store.get(kind, namespace, name);
  }

  #observe(event: WatchEvent): void {
    const object = event.object;
    const key = objectKey(object);
    const namespace = isClusterScoped(object.kind) ? "" : storeNamespace(object);
    if (event.type === "DELETED") {
      this.#unindex(key);
      // Dependents of the deleted object lost an owner.
      const uid = object.metadata.uid;
      for (const dep of (uid && this.#dependents.get(uid)) || []) this.#queue.add(dep);
      // An owner waiting for this dependent may be done.
      this.#queueWaitingOwners(object, refsOf(object));
      if (object.kind === "Namespace") this.#terminating.delete(object.metadata.name);
    } else {
      const refs = refsOf(object);
      const before = this.#indexed.get(key);
      if (!sameRefs(before, refs.length > 0 ? refs : undefined)) {
        // New or changed references: check the owners exist; released owners may be done.
        if (before) this.#queueWaitingOwners(object, before);
        this.#unindex(key);
        if (refs.length > 0) {
          this.#indexed.set(key, refs);
          for (const ref of refs) {
            let set = this.#dependents.get(ref.uid);
            if (!set) {
              set = new Set();
              this.#dependents.set(ref.uid, set);
            }
            set.add(key);
          }
          this.#queue.add(key);
        }
      }
      if (object.metadata.deletionTimestamp) {
        const finalizers = finalizersOf(object);
        if (finalizers.includes(ORPHAN_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER))
          this.#queue.add(key);
        if (object.kind === "Namespace") {
          this.#terminating.add(object.metadata.name);
          this.#namespaces.add(object.metadata.name);
        }
      }
    }
    if (namespace !== "" && this.#terminating.has(namespace)) this.#namespaces.add(namespace);
  }

  #unindex(key: string): void {
    const refs = this.#indexed.get(key);
    if (!refs) return;
    this.#indexed.delete(key);
    for (const ref of refs) {
      const set = this.#dependents.get(ref.uid);
      set?.delete(key);
      if (set && set.size === 0) this.#dependents.delete(ref.uid);
    }
  }

  #queueWaitingOwners(dependent: KubeObject, refs: readonly Ref[]): void {
    for (const ref of refs) {
      const owner = this.#resolve(ref, dependent);
      if (owner && owner !== "unknown" && deletingDependents(owner))
        this.#queue.add(objectKey(owner));
    }
  }

  /** The owner a reference names (same uid), null when gone, "unknown" for an unknown kind. */
  #resolve(ref: Ref, dependent: KubeObject): KubeObject | null | "unknown" {
    if (!KNOWN_KINDS.has(ref.kind)) return "unknown";
    // A cluster-scoped dependent cannot have a namespaced owner (upstream treats it as absent).
    if (!isClusterScoped(ref.kind) && isClusterScoped(dependent.kind)) return null;
    const namespace = isClusterScoped(ref.kind) ? "" : storeNamespace(dependent);
    const owner = this.#store.get(ref.kind, namespace, ref.name);
    return owner && owner.metadata.uid === ref.uid ? owner : null;
  }

  #delete(object: KubeObject, policy: PropagationPolicy): void {
    deleteFromStore(
      this.#store,
      object,
      { propagationPolicy: policy },
      this.#now(),
      defaultGcPolicy(object.kind, object.apiVersion),
    );
  }

  /** Removes one finalizer (an update that deletes the object when it was the last one). */
  #removeFinalizer(object: KubeObject, finalizer: string): void {
    const finalizers = finalizersOf(object).filter((f) => f !== finalizer);
    updateInStore(
      this.#store,
      { ...object, metadata: withFinalizers(object.metadata, finalizers) },
      object,
    );
  }

  #withoutRefs(object: KubeObject, uids: ReadonlySet<string>): void {
    const refs = refsOf(object).filter((r) => !uids.has(r.uid));
    const metadata = { ...object.metadata };
    if (refs.length > 0)
      metadata.ownerReferences = refs as KubeObject["metadata"]["ownerReferences"];
    else delete metadata.ownerReferences;
    updateInStore(this.#store, { ...object, metadata }, object);
  }

  /** attemptToDeleteItem, plus the orphan and foreground finalizers of an object being deleted. */
  #attempt(key: string): void {
    const object = this.#get(key);
    if (!object) return;
    if (object.metadata.deletionTimestamp) {
      const finalizers = finalizersOf(object);
      if (finalizers.includes(ORPHAN_FINALIZER)) this.#orphanDependents(object);
      else if (finalizers.includes(FOREGROUND_FINALIZER)) this.#deleteDependents(object);
      return;
    }
    const refs = refsOf(object);
    if (refs.length === 0) return;
    const solid: Ref[] = [];
    const dangling: Ref[] = [];
    const waiting: Ref[] = [];
    for (const ref of refs) {
      const owner = this.#resolve(ref, object);
      if (owner === "unknown") solid.push(ref);
      else if (owner === null) dangling.push(ref);
      else if (deletingDependents(owner)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      // A live owner keeps it; references to gone or foreground-deleting owners are dropped.
      if (dangling.length + waiting.length > 0) {
        this.#withoutRefs(object, new Set([...dangling, ...waiting].map((r) => r.uid)));
      }
      return;
    }
    if (waiting.length > 0 && this.dependentsOf(object).length > 0) {
      this.#delete(object, "Foreground");
      return;
    }
    const finalizers = finalizersOf(object);
    const policy: PropagationPolicy = finalizers.includes(ORPHAN_FINALIZER)
      ? "Orphan"
      : finalizers.includes(FOREGROUND_FINALIZER)
        ? "Foreground"
        : "Background";
    this.#delete(object, policy);
  }

  /** The `orphan` finalizer: dependents lose their reference to the owner, then it goes. */
  #orphanDependents(owner: KubeObject): void {
    const uid = new Set([owner.metadata.uid ?? ""]);
    for (const dep of this.dependentsOf(owner)) this.#withoutRefs(dep, uid);
    const latest = this.#store.get(owner.kind, storeNamespace(owner), owner.metadata.name);
    if (latest && latest.metadata.uid === owner.metadata.uid)
      this.#removeFinalizer(latest, ORPHAN_FINALIZER);
  }

  /**
   * The `foregroundDeletion` finalizer: every dependent is deleted; the owner goes once no
   * dependent that blocks owner deletion is left.
   */
  #deleteDependents(owner: KubeObject): void {
    for (const dep of this.dependentsOf(owner)) {
      if (!dep.metadata.deletionTimestamp || deletingDependents(dep)) this.#attempt(objectKey(dep));
    }
    const uid = owner.metadata.uid;
    const blocking = this.dependentsOf(owner).some((dep) =>
      refsOf(dep).some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    if (blocking) return;
    const latest = this.#store.get(owner.kind, storeNamespace(owner), owner.metadata.name);
    if (latest && latest.metadata.uid === uid) this.#removeFinalizer(latest, FOREGROUND_FINALIZER);
  }

  /**
   * The namespace controller: delete every object in a terminating namespace (background
   * propagation), record what remains in status.conditions, and once nothing is left remove
   * the `kubernetes` finalizer, which deletes the namespace.
   */
  #syncNamespace(name: string): void {
    const ns = this.#store.get("Namespace", "", name);
    if (!ns?.metadata.deletionTimestamp) {
      this.#terminating.delete(name);
      return;
    }
    const spec = (ns.spec ?? {}) as { finalizers?: string[] };
    const specFinalizers = spec.finalizers ?? [];
    if (!specFinalizers.includes(NAMESPACE_FINALIZER)) return;
    const now = this.#now();
    const content = () => {
      const out: KubeObject[] = [];
      for (const object of this.#store.objects()) {
        if (!isClusterScoped(object.kind) && storeNamespace(object) === name) out.push(object);
      }
      return out;
    };
    for (const object of content()) {
      if (object.metadata.deletionTimestamp) continue;
      this.#delete(object, "Background");
    }
    // Dependents the deletes above released are collected before counting what remains.
    const remaining: RemainingContent = { byResource: new Map(), byFinalizer: new Map() };
    const left = content();
    for (const object of left) {
      const resource = resourceAndGroup(object);
      remaining.byResource.set(resource, (remaining.byResource.get(resource) ?? 0) + 1);
      for (const f of finalizersOf(object))
        remaining.byFinalizer.set(f, (remaining.byFinalizer.get(f) ?? 0) + 1);
    }
    const status = (ns.status ?? {}) as { conditions?: NamespaceCondition[] };
    const conditions = namespaceConditions(status.conditions ?? [], remaining, now);
    const latest = this.#store.get("Namespace", "", name)!;
    if (JSON.stringify(conditions) !== JSON.stringify(status.conditions ?? [])) {
      this.#store.updateStatus("Namespace", "", name, { ...status, conditions });
    }
    if (left.length > 0) return;
    // finalize: spec.finalizers without "kubernetes" (deletes the namespace when nothing else holds it).
    const current = this.#store.get("Namespace", "", name) ?? latest;
    const next: KubeObject = {
      ...current,
      spec: { ...spec, finalizers: specFinalizers.filter((f) => f !== NAMESPACE_FINALIZER) },
    };
    updateInStore(this.#store, next, current);
  }
}
