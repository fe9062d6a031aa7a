// The shape of one served kind's definition (its schema tree is written with ./schema.ts).
// Everything the API server and the cluster know about a kind is read from one
// KindDefinition (registry.ts); other modules hold only the machinery that walks them.

import type { FeatureGates } from "../api/featuregates.js";
import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import type { StructNode } from "./schema.js";

/** The kinds the API server serves; registry.ts must list a definition for each. */
export type ServedKind =
  | "Namespace"
  | "Pod"
  | "Service"
  | "Endpoints"
  | "EndpointSlice"
  | "Event"
  | "Node"
  | "ReplicationController"
  | "Deployment"
  | "ReplicaSet"
  | "StatefulSet"
  | "DaemonSet"
  | "ControllerRevision"
  | "Job"
  | "CronJob"
  | "HorizontalPodAutoscaler"
  | "Lease"
  | "ServiceMonitor"
  | "CustomResourceDefinition"
  | "ConfigMap"
  | "Secret"
  | "ServiceAccount"
  | "Role"
  | "ClusterRole"
  | "RoleBinding"
  | "ClusterRoleBinding"
  | "PodDisruptionBudget"
  | "Ingress"
  | "IngressClass"
  | "NetworkPolicy"
  | "LimitRange"
  | "ResourceQuota"
  | "PriorityClass"
  | "APIService";

export type Subresource = "status" | "scale" | "log" | "token";

export type Verb =
  | "create"
  | "delete"
  | "deletecollection"
  | "get"
  | "list"
  | "patch"
  | "update"
  | "watch";

/** Every verb of a writable resource, sorted as discovery lists them. */
export const READ_WRITE: readonly Verb[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/**
 * How a kind's strategy keeps metadata.generation (upstream's PrepareForCreate/PrepareForUpdate,
 * per kind): each rule sets 1 on create; an update adds 1 when `spec` changes ("spec"), also
 * when the annotations do ("specOrAnnotations": a Deployment's annotations are copied to its
 * ReplicaSets), when any top-level field but metadata does ("content": custom resources), also
 * when the labels do ("contentOrLabels": EndpointSlice), or never ("create": PriorityClass).
 * "specAndTemplate" (DaemonSet) is "spec" plus a count of template changes alone, which apps/v1
 * carries in the `deprecated.daemonset.template.generation` annotation (the internal
 * spec.templateGeneration; its pods' `pod-template-generation` label).
 */
export type GenerationRule =
  | "spec"
  | "specOrAnnotations"
  | "content"
  | "contentOrLabels"
  | "create"
  | "specAndTemplate";

/** The annotation a DaemonSet's template generation is kept in (see GenerationRule). */
export const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

/** What a kind does with its dependents when a delete names no policy (rest.GarbageCollectionPolicy). */
export type DefaultGcPolicy = "DeleteDependents" | "OrphanDependents" | "None";

// ---------------------------------------------------------------------------------------------
// Server-side printing (meta.k8s.io/v1 Table columns, as upstream registers them)

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface Printer {
  columns: TableColumnDefinition[];
  cells: (obj: KubeObject, now: number) => unknown[];
  conditions?: (obj: KubeObject) => TableRowCondition[] | undefined;
}

// ---------------------------------------------------------------------------------------------
// Strategy: the kind's own create and update rules (upstream's per-kind RESTCreateStrategy /
// RESTUpdateStrategy: PrepareForCreate/Update, defaulting, Validate). The registry store runs
// the steps every kind shares around them.

export interface StrategyContext {
  featureGates: FeatureGates;
  /** The cluster's clock (ms), for the times a strategy writes (condition transitions). */
  now?: number;
}

/** The object to store (with `Warning:` header texts), or the field errors of a 422 Invalid. */
export type Prepared =
  | { ok: true; value: KubeObject; warnings?: string[] }
  | { ok: false; errors: FieldError[] };

export interface KindStrategy {
  /** The kind's validation covers ObjectMeta (create and update), so the store's generic checks are skipped. */
  validatesMetadata?: boolean;
  prepareForCreate(object: KubeObject, context: StrategyContext): Prepared;
  /** `next` already carries the stored status (the status subresource owns it). */
  prepareForUpdate(next: KubeObject, current: KubeObject, context: StrategyContext): Prepared;
  /** Checks of a write through the status subresource; none by default. */
  validateStatusUpdate?(next: KubeObject, current: KubeObject): FieldError[];
}

/** The object to store, or its field errors (a 422) when there are any. */
export function checked(value: KubeObject, errors: readonly FieldError[]): Prepared {
  return errors.length > 0 ? { ok: false, errors: [...errors] } : { ok: true, value };
}

/** No rules of its own: the object is stored as sent. */
export const PLAIN_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => ({ ok: true, value: object }),
  prepareForUpdate: (next) => ({ ok: true, value: next }),
};

// ---------------------------------------------------------------------------------------------
// The definition

/** One served version of a kind. */
export interface KindVersion {
  /** `v1`, `v2`. */
  version: string;
  /** The object's schema tree: apply, patch, Time, unknown-field and protobuf views derive from it. */
  schema: StructNode;
  /** kubectl sends it as protobuf: its message is the tree's numbered fields. */
  protobuf?: boolean;
  /**
   * Deprecated upstream since this Kubernetes minor (`1.33`), in favour of `replacement`
   * (`discovery.k8s.io/v1 EndpointSlice`): every request in this version gets upstream's warning.
   */
  deprecated?: { since: string; replacement: string };
}

export interface KindDefinition<K extends ServedKind = ServedKind> {
  kind: K;
  /** Plural resource name, as in URLs. */
  resource: string;
  singular: string;
  /** What an object of this kind is, in Horizon's words (OpenAPI, `kubectl explain`). */
  description?: string;
  /** "" for the core group. */
  group: string;
  /** Versions served, preferred first. */
  versions: readonly KindVersion[];
  namespaced: boolean;
  verbs: readonly Verb[];
  subresources: readonly Subresource[];
  shortNames?: readonly string[];
  /** Discovery categories; "all" is what `kubectl get all` expands. */
  categories?: readonly string[];
  /** Node: a view of the simulated capacity, not writable. */
  readOnly?: boolean;
  /** Upstream returns the deleted object (ReturnDeletedObject) instead of a Success Status. */
  returnsDeletedObject?: boolean;
  /** The default in the served (preferred) version; older versions of a group orphan. */
  gcPolicy: DefaultGcPolicy;
  /**
   * How metadata.generation is kept. None (Events, ConfigMaps, Services, HPAs in 1.34, ...): the
   * server never sets it; it stays what the object was created with (usually unset), and only a
   * deletion mark adds 1 to one above 0.
   */
  generation?: GenerationRule;
  /**
   * Fields a field selector may name besides metadata.name and metadata.namespace (upstream's
   * per-kind field label conversion).
   */
  fieldSelectors: readonly string[];
  /** Table columns and cells (`kubectl get`). */
  printer: Printer;
  /** Defaults, validation and the create/update rules of this kind. */
  strategy: KindStrategy;
  /**
   * How metadata.name is validated: a DNS subdomain (most kinds), or a path segment (RBAC
   * kinds: `system:aggregate-to-view`).
   */
  nameRule?: "dnsSubdomain" | "pathSegment";
}
