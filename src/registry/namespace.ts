// The namespace's registry rules beyond its strategy (kinds/namespace.ts): NamespaceLifecycle's
// immortal namespaces and the namespace REST's delete, which only marks the namespace for the
// namespace controller.

import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { FOREGROUND_FINALIZER, finalizersOf, ORPHAN_FINALIZER, withFinalizers } from "./delete.js";
import type { DeleteOptions } from "./deleteoptions.js";
import type { ObjectStore } from "./store.js";

/** The namespaces kube-apiserver's NamespaceLifecycle admission never lets go. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set([
  "default",
  "kube-system",
  "kube-public",
]);

/**
 * The first delete of a namespace only marks it: deletionTimestamp, phase Terminating, and
 * `orphan` / `foregroundDeletion` in metadata.finalizers as the options ask; the namespace
 * controller empties it. Null when the namespace is already terminating (then a delete with
 * spec.finalizers left answers with the namespace; without, it is a generic delete).
 */
export function markNamespace(
  namespace: KubeObject,
  options: DeleteOptions,
  now: number,
): KubeObject | null {
  if (namespace.metadata.deletionTimestamp) return null;
  const current = finalizersOf(namespace);
  const orphan =
    options.orphanDependents ??
    (options.propagationPolicy !== undefined
      ? options.propagationPolicy === "Orphan"
      : current.includes(ORPHAN_FINALIZER));
  const foreground =
    options.orphanDependents !== undefined
      ? false
      : options.propagationPolicy !== undefined
        ? options.propagationPolicy === "Foreground"
        : current.includes(FOREGROUND_FINALIZER);
  const finalizers = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) finalizers.push(ORPHAN_FINALIZER);
  if (foreground) finalizers.push(FOREGROUND_FINALIZER);
  const metadata = withFinalizers(
    { ...namespace.metadata, deletionTimestamp: rfc3339(now) },
    finalizers,
  );
  const status = { ...((namespace.status as object | undefined) ?? {}), phase: "Terminating" };
  return { ...namespace, metadata, status };
}

/** The namespace the object lives in is being deleted (NamespaceLifecycle forbids creates). */
export function namespaceTerminating(store: ObjectStore, namespace: string): boolean {
  const ns = store.get("Namespace", "", namespace);
  return ns !== undefined && (ns.status as { phase?: string } | undefined)?.phase === "Terminating";
}
