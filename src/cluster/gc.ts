// kube-controller-manager's garbage collector (ownerReferences: Background, Foreground, Orphan)
// and the namespace controller's cascade and status conditions, over the embedded cluster's
// store. They delete and update through the registry's delete (src/registry/delete.ts)
// as upstream's controllers go through the API server. The conditions are a pure function;
// `GarbageCollector` is driven by the cluster's clock (it never reads the wall clock).

import { rfc3339 } from "../api/time.js";
import type { KubeObject, OwnerReference } from "../api/types.js";
import { isClusterScoped, KNOWN_KINDS, knownPluralOf } from "../kinds/catalog.js";
import { NAMESPACE_FINALIZER } from "../kinds/namespace.js";
import {
  defaultGcPolicy,
  deleteFromStore,
  FOREGROUND_FINALIZER,
  finalizersOf,
  ORPHAN_FINALIZER,
  updateInStore,
  withFinalizers,
} from "../registry/delete.js";
import type { PropagationPolicy } from "../registry/deleteoptions.js";
import { type ObjectStore, storeNamespaceOf, type WatchEvent } from "../registry/store.js";

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
  return keyOf(object.kind, storeNamespaceOf(object), object.metadata.name);
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
  /**
   * How many keys in #indexed have each name: an object without references whose name has none
   * (every HPA status write) was not indexed, which needs no key built and looked up.
   */
  readonly #indexedNames = new Map<string, number>();
  /** The same by kind: a kind none of whose objects has references (HPAs) has none, in a map of a few. */
  readonly #indexedKinds = new Map<string, number>();
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
    const metadata = object.metadata;
    if (
      event.type !== "DELETED" &&
      metadata.deletionTimestamp === undefined &&
      this.#terminating.size === 0 &&
      refsOf(object).length === 0 &&
      (!this.#indexedKinds.has(object.kind) || !this.#indexedNames.has(metadata.name))
    ) {
      // Not indexed before, no references now, not being deleted, no namespace terminating:
      // nothing below would change.
      return;
    }
    const key = objectKey(object);
    const namespace = isClusterScoped(object.kind) ? "" : storeNamespaceOf(object);
    if (event.type === "DELETED") {
      this.#unindex(key, object.kind, metadata.name);
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
        this.#unindex(key, object.kind, metadata.name);
        if (refs.length > 0) {
          this.#indexed.set(key, refs);
          const name = metadata.name;
          this.#indexedNames.set(name, (this.#indexedNames.get(name) ?? 0) + 1);
          const kind = object.kind;
          this.#indexedKinds.set(kind, (this.#indexedKinds.get(kind) ?? 0) + 1);
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

  #unindex(key: string, kind: string, name: string): void {
    const refs = this.#indexed.get(key);
    if (!refs) return;
    this.#indexed.delete(key);
    const count = this.#indexedNames.get(name)!;
    if (count > 1) this.#indexedNames.set(name, count - 1);
    else this.#indexedNames.delete(name);
    const kindCount = this.#indexedKinds.get(kind)!;
    if (kindCount > 1) this.#indexedKinds.set(kind, kindCount - 1);
    else this.#indexedKinds.delete(kind);
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
    const namespace = isClusterScoped(ref.kind) ? "" : storeNamespaceOf(dependent);
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
    const latest = this.#store.get(owner.kind, storeNamespaceOf(owner), owner.metadata.name);
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
    const latest = this.#store.get(owner.kind, storeNamespaceOf(owner), owner.metadata.name);
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
        if (!isClusterScoped(object.kind) && storeNamespaceOf(object) === name) out.push(object);
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
