// The registry store (upstream: k8s.io/apiserver's generic registry Store with a strategy per
// kind): what happens to an object between the decoded request and the cluster's store.
// BeforeCreate / BeforeUpdate (system fields, generated names, defaults, validation, status
// and spec resets), NamespaceLifecycle admission, managedFields tracking, the delete's
// preconditions and planning (./delete.ts), and writes through the scale subresource.

import { randomUUID } from "node:crypto";
import { readHorizontalPodAutoscaler, writeHorizontalPodAutoscaler } from "../api/conversion.js";
import type { FeatureGates } from "../api/featuregates.js";
import { createdPodStatus } from "../api/pod-qos.js";
import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import {
  type FieldError,
  invalid as invalidField,
  isValidPathSegmentName,
  validateObjectMeta,
} from "../api/validation.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { hostSystemInfo, nodeObject } from "../cluster/node-status.js";
import { customKindOfCrd } from "../kinds/custom.js";
import { SYSTEM_PRIORITY_CLASSES } from "../kinds/priorityclass.js";
import { kindDefinition } from "../kinds/registry.js";
import { type KindStrategy, PLAIN_STRATEGY } from "../kinds/types.js";
import { admitPod } from "../registry/admission.js";
import { defaultGcPolicy, deleteFromStore, shouldDeleteDuringUpdate } from "../registry/delete.js";
import type { DeleteOptions } from "../registry/deleteoptions.js";
import { carryDeletionFields, deletionUpdateErrors } from "../registry/metadata.js";
import { IMMORTAL_NAMESPACES, markNamespace, namespaceTerminating } from "../registry/namespace.js";
import { randomSuffix, UNSEEDED } from "../registry/random.js";
import { StoreError } from "../registry/store.js";
import { bootstrapPolicy } from "./auth/bootstrap.js";
import { escalationError } from "./auth/escalation.js";
import {
  type ApiError,
  alreadyExists,
  conflict,
  deleteSuccess,
  invalid,
  notFound,
} from "./errors.js";
import {
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  type ManagedFieldsEntry,
  schemaFor as managedSchemaFor,
  setOf,
  trackScale,
  trackUpdate,
  type Versions,
} from "./fieldmanager/index.js";
import { storageError } from "./limits.js";
import { fail, managerName, ok, present, type RequestScope, type Result } from "./request.js";
import { type ResourceInfo, resourceOfKind } from "./resources.js";

/** Namespaces kube-apiserver creates at startup (the system namespaces controller). */
/** Upstream names.MaxGeneratedNameLength: 63 less the 5 random characters. */
const MAX_GENERATED_NAME_PREFIX = 58;
const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

export interface RegistryStoreOptions {
  cluster: EmbeddedCluster;
  featureGates: FeatureGates;
}

/** The generic registry store over the embedded cluster's object store, with each kind's strategy. */
export class RegistryStore {
  readonly cluster: EmbeddedCluster;
  readonly gates: FeatureGates;

  constructor(options: RegistryStoreOptions) {
    this.cluster = options.cluster;
    this.gates = options.featureGates;
    const store = this.cluster.store;
    for (const name of SYSTEM_NAMESPACES) {
      if (!store.get("Namespace", "", name)) {
        store.create({
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name, labels: { "kubernetes.io/metadata.name": name } },
          spec: { finalizers: ["kubernetes"] },
          status: { phase: "Active" },
        });
      }
    }
    for (const priorityClass of SYSTEM_PRIORITY_CLASSES) {
      if (!store.get("PriorityClass", "", priorityClass.metadata.name)) store.create(priorityClass);
    }
    // The RBAC bootstrap policy: what is missing is created, what a user changed is kept.
    for (const object of bootstrapPolicy()) {
      const { namespace = "", name } = object.metadata;
      if (!store.get(object.kind, namespace, name)) store.create(object);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  /** Stored objects of the resource in the request's namespace (all namespaces when none). */
  objects(ctx: RequestScope): readonly KubeObject[] {
    if (ctx.info.kind === "Node") return this.nodes();
    const ns = ctx.info.namespaced ? ctx.target.namespace : undefined;
    return this.cluster.store.list(ctx.info.kind, ns);
  }

  lookup(ctx: RequestScope, name: string): KubeObject | undefined {
    if (ctx.info.kind === "Node") return this.nodes().find((n) => n.metadata.name === name);
    return this.cluster.store.get(ctx.info.kind, ctx.namespace, name);
  }

  /**
   * The Node list: stored Nodes (`horizon up`'s kubelet registers one), or the node the kubelet
   * would register, carrying the simulated cluster's capacity.
   */
  nodes(): readonly KubeObject[] {
    const stored = this.cluster.store.list("Node");
    if (stored.length > 0) return stored;
    const model = {
      capacityPods: this.cluster.model.capacityPods ?? 110,
      ...(this.cluster.network ? { podCidr: this.cluster.network.podIps.cidr.text } : {}),
      info: hostSystemInfo(),
    };
    const node = nodeObject(model, this.cluster.startTime);
    node.metadata = {
      ...node.metadata,
      uid: "00000000-0000-0000-0000-000000000001",
      resourceVersion: "1",
      creationTimestamp: rfc3339(this.cluster.startTime),
    };
    return [node];
  }

  // -------------------------------------------------------------------------------------------
  // Writing

  /**
   * The registry's Create: NamespaceLifecycle admission, BeforeCreate (system fields, a
   * generated name, the kind's strategy), managedFields, then the store (nothing in a dry run).
   */
  create(ctx: RequestScope, placed: KubeObject): Result<KubeObject> {
    let object = placed;
    if (ctx.info.namespaced && !this.cluster.store.get("Namespace", "", ctx.namespace)) {
      const namespaces = resourceOfKind("Namespace")!;
      return fail(notFound(namespaces, ctx.namespace));
    }
    if (ctx.info.namespaced && namespaceTerminating(this.cluster.store, ctx.namespace)) {
      // NamespaceLifecycle admission: named by the object's name, else its generateName.
      const given = object.metadata.name || (object.metadata.generateName as string) || "Unknown";
      const why = `unable to create new content in namespace ${ctx.namespace} because it is being terminated`;
      const cause = {
        reason: "NamespaceTerminating",
        message: `namespace ${ctx.namespace} is being terminated`,
        field: "metadata.namespace",
      };
      return fail(forbidden(ctx.info, given, why, [cause]));
    }
    // The name is generated before validation, as the registry's BeforeCreate does; a deletion
    // mark never comes with a new object.
    const metadata = { ...object.metadata };
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    // rest.FillObjectMetaSystemFields: the server sets uid and creationTimestamp on every
    // create, whatever the client sent (the store assigns them).
    delete metadata.uid;
    delete metadata.creationTimestamp;
    if (!metadata.name && typeof metadata.generateName === "string" && metadata.generateName) {
      metadata.name = this.generateName(ctx, metadata.generateName);
    }
    object = { ...object, metadata };
    const prepared = this.prepareCreate(ctx, object);
    if (!prepared.ok) return prepared;
    object = prepared.value;
    const name = object.metadata.name ?? "";
    if (ctx.info.kind === "Pod") {
      // LimitRanger, Priority and ResourceQuota admission.
      const admitted = admitPod(this.cluster.store, object, this.cluster.admission);
      if (!admitted.ok) return fail(forbidden(ctx.info, name, admitted.reason));
      // The strategy's PrepareForCreate, on the admitted spec (LimitRanger's defaults count).
      object = { ...admitted.pod, status: createdPodStatus(admitted.pod.spec) };
    }
    const existing = this.lookup(ctx, name);
    if (existing) {
      const error = alreadyExists(ctx.info, name);
      // The generic registry's create says why the name is still taken.
      if (existing.metadata.deletionTimestamp)
        error.status.message = `object is being deleted: ${error.status.message}`;
      return fail(error);
    }
    // The Service REST storage allocates the ClusterIP (given back after a dry run or a failure).
    const network = ctx.info.kind === "Service" ? this.cluster.network : null;
    if (network) {
      const allocated = network.prepareService(object, undefined);
      if (!allocated.ok) return fail(invalid(ctx.info, name, allocated.errors));
      object = allocated.value;
    }
    object = this.withManagedFields(ctx, undefined, object);
    if (ctx.dryRun) {
      network?.releaseServiceIp(object);
      return ok({
        ...object,
        metadata: {
          ...object.metadata,
          uid: randomUUID(),
          creationTimestamp: rfc3339(this.cluster.now),
        },
      });
    }
    const unstorable = storageError(object, { kind: ctx.info.kind, version: ctx.target.version });
    if (unstorable) return fail(unstorable);
    try {
      const created = this.cluster.store.create(object);
      return ok(created);
    } catch (err) {
      network?.releaseServiceIp(object);
      return fail(this.storeError(ctx, err, name));
    }
  }

  generateName(ctx: RequestScope, prefix: string): string {
    // Upstream's SimpleNameGenerator: the prefix cut to 58 characters, 5 random safe characters.
    const base = prefix.slice(0, MAX_GENERATED_NAME_PREFIX);
    for (;;) {
      const name = base + randomSuffix(UNSEEDED);
      if (!this.lookup(ctx, name)) return name;
    }
  }

  /** The kind's strategy of a create (defaults, its rules, validation: 422), after ObjectMeta checks. */
  prepareCreate(ctx: RequestScope, object: KubeObject): Result<KubeObject> {
    const name = object.metadata.name ?? "";
    const strategy = strategyOf(ctx);
    if (!strategy.validatesMetadata) {
      const errors = metaErrors(ctx, object);
      if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
    }
    const prepared = strategy.prepareForCreate(object, {
      featureGates: this.gates,
      now: this.cluster.now,
    });
    if (!prepared.ok) return fail(invalid(ctx.info, name, prepared.errors));
    const escalation = escalationError(this.cluster.store, ctx.req.user, prepared.value);
    if (escalation) return fail(escalation);
    if (prepared.warnings) ctx.warnings.push(...prepared.warnings);
    return ok(prepared.value);
  }

  /**
   * The registry's Update: preconditions, BeforeUpdate (system and deletion fields, the kind's
   * strategy, metadata rules), managedFields, then the store; an update that empties the
   * finalizers of a terminating object deletes it.
   */
  update(ctx: RequestScope, object: KubeObject): Result<KubeObject> {
    const name = ctx.target.name!;
    const current = this.lookup(ctx, name);
    if (!current) return fail(notFound(ctx.info, name));
    const expected = object.metadata.resourceVersion;
    if (expected && expected !== current.metadata.resourceVersion) {
      return fail(conflict(ctx.info, name));
    }
    // rest.BeforeUpdate: an update never removes or changes a deletion mark.
    const carried = carrySystemFields(carryDeletionFields(object, current), current);
    const first =
      ctx.target.subresource === "status"
        ? this.prepareStatusUpdate(ctx, carried, current)
        : this.prepareUpdate(ctx, carried, current);
    if (!first.ok) return first;
    let prepared = first;
    const network = ctx.info.kind === "Service" ? this.cluster.network : null;
    if (network && ctx.target.subresource !== "status") {
      // An update keeps the allocated ClusterIP when the client left it out (patchAllocatedValues).
      const allocated = network.prepareService(prepared.value, current);
      if (!allocated.ok) return fail(invalid(ctx.info, name, allocated.errors));
      prepared = { ok: true, value: allocated.value };
    }
    if (ctx.target.subresource !== "status" && !strategyOf(ctx).validatesMetadata) {
      const errors = deletionUpdateErrors(prepared.value, current);
      // ValidateObjectMetaUpdate: a uid other than the stored one is refused (after the
      // finalizer rule, before the deletion fields).
      const uid = prepared.value.metadata.uid ?? "";
      if (uid !== (current.metadata.uid ?? "")) {
        const at = errors.findIndex((e) => e.field !== "metadata.finalizers");
        errors.splice(at < 0 ? errors.length : at, 0, {
          type: "FieldValueInvalid",
          field: "metadata.uid",
          badValue: uid,
          // types.UID is not a plain string: json.Marshal quotes it.
          badValueJSON: true,
          detail: "field is immutable",
        });
      }
      if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
    }
    const next = this.withManagedFields(ctx, current, prepared.value);
    if (ctx.target.subresource !== "status" && shouldDeleteDuringUpdate(next, current)) {
      // The update emptied the finalizers of a terminating object: it is deleted, and the
      // answer is the object as the request left it.
      if (!ctx.dryRun) {
        if (ctx.info.kind === "CustomResourceDefinition") this.deleteCustomResources(current);
        this.cluster.store.delete(ctx.info.kind, ctx.namespace, name);
      }
      return ok(next);
    }
    if (ctx.dryRun) return ok(next);
    const unstorable = storageError(next, { kind: ctx.info.kind, version: ctx.target.version });
    if (unstorable) return fail(unstorable);
    // A status write that changes managedFields stores the metadata too.
    const statusOnly =
      ctx.target.subresource === "status" &&
      JSON.stringify(next.metadata.managedFields) ===
        JSON.stringify(current.metadata.managedFields);
    try {
      const written = statusOnly
        ? this.cluster.store.updateStatus(ctx.info.kind, ctx.namespace, name, next.status)
        : this.cluster.store.update(next);
      return ok(written);
    } catch (err) {
      return fail(this.storeError(ctx, err, name));
    }
  }

  /** Strategy of a spec update: the status subresource's fields stay as stored; then the kind's. */
  prepareUpdate(ctx: RequestScope, object: KubeObject, current: KubeObject): Result<KubeObject> {
    let next: KubeObject = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion },
    };
    if (ctx.info.subresources.includes("status")) {
      next = { ...next, status: current.status };
      if (current.status === undefined) delete next.status;
    }
    const prepared = strategyOf(ctx).prepareForUpdate(next, current, {
      featureGates: this.gates,
      now: this.cluster.now,
    });
    if (!prepared.ok) return fail(invalid(ctx.info, current.metadata.name, prepared.errors));
    const escalation = escalationError(this.cluster.store, ctx.req.user, prepared.value, current);
    if (escalation) return fail(escalation);
    if (prepared.warnings) ctx.warnings.push(...prepared.warnings);
    return ok(prepared.value);
  }

  /** Strategy of a status update: only status changes, with the kind's checks. */
  prepareStatusUpdate(
    ctx: RequestScope,
    object: KubeObject,
    current: KubeObject,
  ): Result<KubeObject> {
    const next: KubeObject = { ...current, status: object.status };
    const errors = strategyOf(ctx).validateStatusUpdate?.(next, current) ?? [];
    if (errors.length > 0) return fail(invalid(ctx.info, current.metadata.name, errors));
    return ok(next);
  }

  storeError(ctx: RequestScope, err: unknown, name: string): ApiError {
    if (err instanceof StoreError) {
      if (err.reason === "AlreadyExists") return alreadyExists(ctx.info, name);
      if (err.reason === "NotFound") return notFound(ctx.info, name);
      return conflict(ctx.info, name);
    }
    throw err;
  }

  /** spec.replicas written through the scale subresource: the request's manager owns it after. */
  scale(ctx: RequestScope, current: KubeObject, replicas: number): KubeObject | undefined {
    const managedFields = scaleManagedFields(managerName(ctx))(current, replicas, this.cluster.now);
    const name = current.metadata.name;
    return this.cluster.scaleWorkload(ctx.namespace, ctx.info.kind, name, replicas, {
      managedFields,
    });
  }

  /**
   * The registry's delete (./delete.ts): 200 with the object while it is only marked
   * (finalizers, a pod's grace period, a namespace being emptied), else 200 with the deleted
   * object or a Success Status per kind; 202 only for an unfinished delete that set the legacy
   * `orphanDependents: false`, as the delete handler does.
   */
  delete(
    ctx: RequestScope,
    current: KubeObject,
    options: DeleteOptions,
  ): Result<{ status: number; body: unknown }> {
    const name = current.metadata.name;
    const kind = ctx.info.kind;
    const pre = options.preconditions ?? {};
    const now = this.cluster.now;
    if (kind === "Namespace") {
      // NamespaceLifecycle admission, then the namespace REST's own preconditions and mark.
      if (IMMORTAL_NAMESPACES.has(name)) {
        return fail(forbidden(ctx.info, name, "this namespace may not be deleted"));
      }
      const uid = current.metadata.uid ?? "";
      if (pre.uid !== undefined && pre.uid !== uid) {
        const why = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`;
        return fail(conflict(ctx.info, name, why));
      }
      const rv = current.metadata.resourceVersion ?? "";
      if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) {
        const why = `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`;
        return fail(conflict(ctx.info, name, why));
      }
      const marked = markNamespace(current, options, now);
      if (marked) {
        const stored = ctx.dryRun
          ? marked
          : this.cluster.store.update({
              ...marked,
              metadata: { ...marked.metadata, resourceVersion: rv },
            });
        return ok({ status: 200, body: present(ctx, stored) });
      }
      const specFinalizers = (current.spec as { finalizers?: string[] } | undefined)?.finalizers;
      if ((specFinalizers ?? []).length > 0) {
        return ok({ status: 200, body: present(ctx, current) });
      }
    } else {
      // rest.BeforeDelete's preconditions (the conflict names the Kind, not the resource).
      const byKind = { resource: kind, group: ctx.info.group, kind };
      const uid = current.metadata.uid ?? "";
      if (pre.uid !== undefined && pre.uid !== uid) {
        const why = `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`;
        return fail(conflict(byKind, name, why));
      }
      const rv = current.metadata.resourceVersion ?? "";
      if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) {
        const why = `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${rv}). The object might have been modified`;
        return fail(conflict(byKind, name, why));
      }
    }
    const finalizers = current.metadata.finalizers;
    const unfinalized = !Array.isArray(finalizers) || finalizers.length === 0;
    if (kind === "CustomResourceDefinition" && !ctx.dryRun && unfinalized) {
      this.deleteCustomResources(current);
    }
    const outcome = deleteFromStore(
      this.cluster.store,
      current,
      options,
      now,
      defaultGcPolicy(kind, ctx.apiVersion),
      ctx.dryRun,
    );
    const finished = outcome.deleted || outcome.pending;
    const body =
      !finished || ctx.info.returnsDeletedObject
        ? present(ctx, outcome.object)
        : deleteSuccess(ctx.info, name, outcome.object.metadata.uid);
    const status = !outcome.deleted && options.orphanDependents === false ? 202 : 200;
    return ok({ status, body });
  }

  /** A CRD goes: its custom resources go first, as apiextensions' finalizer controller does. */
  deleteCustomResources(crd: KubeObject): void {
    const kind = customKindOfCrd(crd.metadata.name);
    if (kind === undefined) return;
    for (const object of this.cluster.store.list(kind)) {
      this.cluster.store.delete(kind, object.metadata.namespace ?? "", object.metadata.name);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Field ownership (metadata.managedFields; the model is src/apiserver/fieldmanager/)

  /** An object of the request's version seen in another served version (the HPA's v1⇄v2). */
  versions(ctx: RequestScope): Versions {
    const kind = ctx.info.kind;
    return (apiVersion) => {
      const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
      if (group !== ctx.info.group) return undefined;
      const schema = managedSchemaFor(kind, apiVersion);
      if (apiVersion === ctx.apiVersion) return { schema, view: (o) => o };
      if (kind !== "HorizontalPodAutoscaler") return undefined;
      return {
        schema,
        view: (o) => {
          const read = readHorizontalPodAutoscaler(o);
          if (!read.ok) return o;
          return writeHorizontalPodAutoscaler(
            read.value.hpa,
            apiVersion as "autoscaling/v1" | "autoscaling/v2",
          );
        },
      };
    };
  }

  /** Fields the endpoint's strategy resets: status on the main resource, spec on status. */
  ignoredFields(ctx: RequestScope) {
    if (!ctx.info.subresources.includes("status")) return undefined;
    return setOf([[ctx.target.subresource === "status" ? "f:spec" : "f:status"]]);
  }

  /**
   * `next` with the managedFields of an Update by this request: from the request's own
   * managedFields when it sets them (`[]` or `[{}]` resets), else from the live object's.
   */
  withManagedFields(ctx: RequestScope, live: KubeObject | undefined, next: KubeObject): KubeObject {
    let entries: ManagedFieldsEntry[];
    if (ctx.managed) {
      entries = ctx.managed;
    } else {
      const requested = next.metadata.managedFields;
      const fromLive = () => {
        const decoded = decodeManagedFields(live?.metadata.managedFields);
        return decoded.ok ? decoded.value : [];
      };
      let managed: ReturnType<typeof fromLive>;
      if (ctx.target.subresource !== undefined) managed = fromLive();
      else if (isResetManagedFields(requested)) managed = [];
      else {
        const decoded = decodeManagedFields(requested);
        managed = decoded.ok && decoded.value.length > 0 ? decoded.value : fromLive();
      }
      const tracked = trackUpdate(
        live ? present(ctx, live) : undefined,
        present(ctx, next),
        managed,
        {
          manager: managerName(ctx),
          apiVersion: ctx.apiVersion,
          subresource: ctx.target.subresource ?? "",
          now: rfc3339(this.cluster.now),
          versions: this.versions(ctx),
          ignored: this.ignoredFields(ctx),
        },
      );
      entries = encodeManagedFields(tracked);
    }
    const metadata = { ...next.metadata };
    if (entries.length > 0) metadata.managedFields = entries;
    else delete metadata.managedFields;
    return { ...next, metadata };
  }
}

/**
 * managedFields after spec.replicas is written through scale by `manager` (upstream's
 * ScaleHandler); the embedded cluster takes it for its in-process writes (kube-controller-manager).
 */
export function scaleManagedFields(
  manager: string,
): (current: KubeObject, replicas: number, now: number) => unknown {
  return (current, replicas, now) => {
    const decoded = decodeManagedFields(current.metadata.managedFields);
    if (!decoded.ok || decoded.value.length === 0) return current.metadata.managedFields;
    const spec = current.spec as { replicas?: number } | undefined;
    const tracked = trackScale(decoded.value, (spec?.replicas ?? 1) !== replicas, {
      manager,
      apiVersion: current.apiVersion,
      now: rfc3339(now),
    });
    return encodeManagedFields(tracked);
  };
}

/**
 * rest.BeforeUpdate: generation and creationTimestamp always come from the stored object, and
 * so does the uid when the client sent none (a different uid is then refused as immutable).
 */
function carrySystemFields(next: KubeObject, current: KubeObject): KubeObject {
  const metadata = { ...next.metadata };
  if (current.metadata.generation !== undefined) metadata.generation = current.metadata.generation;
  else delete metadata.generation;
  if (current.metadata.creationTimestamp)
    metadata.creationTimestamp = current.metadata.creationTimestamp;
  if (!metadata.uid && current.metadata.uid) metadata.uid = current.metadata.uid;
  return { ...next, metadata };
}

/** NewForbidden: `pods "x" is forbidden: <why>` (403), with optional causes. */
function forbidden(
  r: ResourceInfo,
  name: string,
  why: string,
  causes?: { reason: string; message: string; field: string }[],
): ApiError {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  const details: Record<string, unknown> = {};
  if (name) details.name = name;
  if (r.group) details.group = r.group;
  details.kind = r.resource;
  if (causes) details.causes = causes;
  return {
    status: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: name
        ? `${resource} "${name}" is forbidden: ${why}`
        : `${resource} is forbidden: ${why}`,
      reason: "Forbidden",
      details,
      code: 403,
    },
  };
}

/** Metadata validation of kinds other than the HPA (name required, DNS subdomain names). */
/** The served kind's strategy (every resource the store serves has a definition). */
function strategyOf(ctx: RequestScope): KindStrategy {
  return kindDefinition(ctx.info.kind)?.strategy ?? PLAIN_STRATEGY;
}

function metaErrors(ctx: RequestScope, object: KubeObject): FieldError[] {
  let errors = validateObjectMeta(object.metadata as never);
  // Cluster-scoped objects have no namespace to require.
  if (!ctx.info.namespaced) errors = errors.filter((e) => e.field !== "metadata.namespace");
  if (kindDefinition(ctx.info.kind)?.nameRule === "pathSegment") {
    // The name need only be a path segment: its DNS-subdomain errors give way to those.
    const name = object.metadata.name ?? "";
    const invalidName = (e: FieldError) =>
      e.field === "metadata.name" && e.type === "FieldValueInvalid";
    errors = [
      ...errors.filter((e) => !invalidName(e)),
      ...isValidPathSegmentName(name).map((msg) => invalidField("metadata.name", name, msg)),
    ];
  }
  return errors;
}
