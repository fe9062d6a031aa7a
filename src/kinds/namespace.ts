// core/v1 Namespace.

import type { KubeObject } from "../api/types.js";
import { condition, conditions, root } from "./meta.js";
import { AGE, asRecord, col, NAME, since, text } from "./printing.js";
import { atomicOf, str, struct } from "./schema.js";
import type { KindDefinition, KindStrategy } from "./types.js";

/** The namespace controller's finalizer in spec.finalizers. */
export const NAMESPACE_FINALIZER = "kubernetes";

/**
 * The namespace strategy: a create gets phase Active, the `kubernetes` finalizer and the
 * `kubernetes.io/metadata.name` label (which defaulting sets); spec.finalizers change only
 * through `finalize`, never through an update.
 */
const NAMESPACE_STRATEGY: KindStrategy = {
  prepareForCreate(namespace) {
    const spec = { ...((namespace.spec as { finalizers?: string[] } | undefined) ?? {}) };
    const finalizers = spec.finalizers ?? [];
    spec.finalizers = finalizers.includes(NAMESPACE_FINALIZER)
      ? finalizers
      : [...finalizers, NAMESPACE_FINALIZER];
    const value: KubeObject = {
      ...namespace,
      metadata: { ...namespace.metadata, labels: nameLabel(namespace) },
      spec,
      status: { phase: "Active" },
    };
    return { ok: true, value };
  },
  prepareForUpdate(next, current) {
    const finalizers = (current.spec as { finalizers?: string[] } | undefined)?.finalizers;
    const spec: Record<string, unknown> = { ...((next.spec as object | undefined) ?? {}) };
    if (finalizers) spec.finalizers = finalizers;
    else delete spec.finalizers;
    return {
      ok: true,
      value: { ...next, metadata: { ...next.metadata, labels: nameLabel(next) }, spec },
    };
  },
};

function nameLabel(namespace: KubeObject): Record<string, string> {
  return {
    ...(namespace.metadata.labels ?? {}),
    "kubernetes.io/metadata.name": namespace.metadata.name,
  };
}

export const namespace: KindDefinition<"Namespace"> = {
  kind: "Namespace",
  resource: "namespaces",
  singular: "namespace",
  description:
    "A Namespace is a scope for names: most objects live in one. Deleting it deletes everything in it.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root(
        "v1.Namespace",
        struct(
          { finalizers: atomicOf(str(undefined, { go: "v1.FinalizerName" }), 1) },
          { go: "v1.NamespaceSpec", zero: true, proto: 2 },
        ),
        struct(
          {
            phase: str(1, { go: "v1.NamespacePhase" }),
            conditions: conditions(condition("v1.NamespaceCondition")),
          },
          { go: "v1.NamespaceStatus", zero: true, proto: 3 },
        ),
      ),
    },
  ],
  namespaced: false,
  // No deletecollection upstream: each namespace is deleted through its own REST.
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: ["status"],
  shortNames: ["ns"],
  returnsDeletedObject: true,
  gcPolicy: "None",
  fieldSelectors: ["status.phase"],
  strategy: NAMESPACE_STRATEGY,
  printer: {
    columns: [NAME, col("Status", "string", "The status of the namespace"), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      text(asRecord(obj.status).phase),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
