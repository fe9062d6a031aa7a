// The deployment controller (upstream pkg/controller/deployment): Deployment → ReplicaSet
// `<name>-<pod-template-hash>`; RollingUpdate within maxSurge / maxUnavailable, Recreate,
// proportional scaling of several active ReplicaSets, revisionHistoryLimit clean-up, adoption
// of an orphaned ReplicaSet of the same template, status. The arithmetic is rollout.ts's.

import { truncateToSecond } from "../../api/time.js";
import type { KubeObject, LabelSelector } from "../../api/types.js";
import { namespaceTerminating } from "../../apiserver/registry/namespace.js";
import { PodOwner, parseTemplate, type Workload } from "../model.js";
import { hashString, safeEncode, stableStringify, streamSeed } from "../random.js";
import {
  byCreation,
  newReplicaSetReplicas,
  proportionalSizes,
  type ReplicaSetInfo,
  resolveFenceposts,
  scaleDownOld,
} from "../rollout.js";
import type { ControllerContext } from "./context.js";

export const POD_TEMPLATE_HASH = "pod-template-hash";
const REVISION = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

interface DeploymentSpec {
  replicas?: number;
  paused?: boolean;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector?: LabelSelector;
  template?: unknown;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
  };
}

/** The pod-template-hash: a hash of the template, in upstream's safe alphabet. */
export function templateHash(template: unknown): string {
  return safeEncode(String(hashString(stableStringify(template ?? {}))));
}

/** A ReplicaSet's `deployment.kubernetes.io/revision` (0 when none). */
export function revisionOf(owner: PodOwner): number {
  const value = Number(owner.obj.metadata.annotations?.[REVISION]);
  return Number.isFinite(value) ? value : 0;
}

function rsInfo(owner: PodOwner | null): ReplicaSetInfo | null {
  if (!owner) return null;
  const annotation = Number(owner.obj.metadata.annotations?.[MAX_REPLICAS]);
  return {
    name: owner.name,
    created: owner.created,
    specReplicas: owner.specReplicas,
    availableReplicas: owner.available,
    maxReplicasAnnotation: Number.isInteger(annotation) ? annotation : null,
  };
}

/** The deployment controller's sync: scaling event → proportional scale, else a rollout step. */
export function reconcileDeployment(ctx: ControllerContext, workload: Workload): void {
  const spec = workload.obj.spec as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const rolling = spec.strategy?.type !== "Recreate";
  const fence = resolveFenceposts(
    spec.strategy?.rollingUpdate?.maxSurge,
    spec.strategy?.rollingUpdate?.maxUnavailable,
    replicas,
  );
  const maxSurge = rolling ? fence.surge : 0;
  const maxUnavailable = rolling && replicas > 0 ? Math.min(fence.unavailable, replicas) : 0;
  const params = { replicas, maxSurge, maxUnavailable };
  const annotations = {
    [DESIRED_REPLICAS]: String(replicas),
    [MAX_REPLICAS]: String(replicas + maxSurge),
  };

  // FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's.
  let newRs = workload.owners.find((o) => o.templateHash === workload.templateHash) ?? null;
  const olds = workload.owners.filter((o) => o !== newRs);
  // A Deployment being deleted only has its status synced (syncStatusOnly); nothing new can
  // be created in a terminating namespace.
  if (
    workload.obj.metadata.deletionTimestamp ||
    namespaceTerminating(ctx.store, workload.namespace)
  ) {
    writeDeploymentStatus(ctx, workload, newRs);
    return;
  }

  const scalingEvent = workload.owners.some((o) => {
    if (o.specReplicas === 0) return false;
    const desired = o.obj.metadata.annotations?.[DESIRED_REPLICAS];
    return desired !== undefined && Number(desired) !== replicas;
  });
  if (spec.paused || scalingEvent) {
    scaleDeployment(ctx, workload, newRs, olds, params, annotations);
  } else if (!rolling) {
    // Recreate: old ReplicaSets to zero, and the new one only once no old pod is left.
    let oldPods = false;
    for (const old of olds) {
      if (old.specReplicas > 0) scaleReplicaSet(ctx, old, 0, annotations, false);
      for (const pod of old.pods) if (pod.stage !== "failed") oldPods = true;
    }
    if (!oldPods) {
      if (!newRs) newRs = createReplicaSet(ctx, workload, replicas, annotations);
      else if (newRs.specReplicas !== replicas)
        scaleReplicaSet(ctx, newRs, replicas, annotations, false);
    }
  } else {
    const allSpec = workload.owners.reduce((n, o) => n + o.specReplicas, 0);
    if (!newRs) {
      newRs = createReplicaSet(
        ctx,
        workload,
        newReplicaSetReplicas(params, allSpec, 0),
        annotations,
      );
    } else if (newRs.specReplicas > replicas) {
      scaleReplicaSet(ctx, newRs, replicas, annotations, false);
    } else if (newRs.specReplicas < replicas) {
      const size = newReplicaSetReplicas(params, allSpec, newRs.specReplicas);
      if (size !== newRs.specReplicas) scaleReplicaSet(ctx, newRs, size, annotations, false);
    }
    const sizes = scaleDownOld(
      params,
      rsInfo(newRs),
      olds.map((o) => rsInfo(o)!),
    );
    for (const old of olds) {
      const size = sizes.get(old.name)!;
      if (size !== old.specReplicas) scaleReplicaSet(ctx, old, size, annotations, false);
    }
  }
  cleanupDeployment(ctx, workload, spec.revisionHistoryLimit ?? 10, newRs);
  writeDeploymentStatus(ctx, workload, newRs);
}

/** The deployment controller's `scale`: resize the active ReplicaSets proportionally. */
function scaleDeployment(
  ctx: ControllerContext,
  workload: Workload,
  newRs: PodOwner | null,
  olds: PodOwner[],
  params: { replicas: number; maxSurge: number },
  annotations: Record<string, string>,
): void {
  const all = newRs ? [...olds, newRs] : [...olds];
  const active = all.filter((o) => o.specReplicas > 0);
  if (active.length <= 1) {
    // FindActiveOrLatest: the only active one, else the new one, else the newest old one.
    const newestOld = [...olds].sort((a, b) => byCreation(rsInfo(b)!, rsInfo(a)!))[0];
    const target = active[0] ?? newRs ?? newestOld;
    if (target && target.specReplicas !== params.replicas) {
      scaleReplicaSet(ctx, target, params.replicas, annotations, false);
    }
    return;
  }
  const saturated =
    newRs !== null &&
    newRs.obj.metadata.annotations?.[DESIRED_REPLICAS] === String(params.replicas) &&
    newRs.available === params.replicas &&
    newRs.specReplicas === params.replicas;
  if (saturated) {
    for (const old of olds)
      if (old.specReplicas > 0) scaleReplicaSet(ctx, old, 0, annotations, false);
    return;
  }
  if ((workload.obj.spec as DeploymentSpec).strategy?.type === "Recreate") return;
  const status = workload.obj.status as { replicas?: number } | undefined;
  const sizes = proportionalSizes({
    replicas: params.replicas,
    maxSurge: params.maxSurge,
    statusReplicas: status?.replicas ?? 0,
    active: active.map((o) => rsInfo(o)!),
  });
  for (const owner of active)
    scaleReplicaSet(ctx, owner, sizes.get(owner.name)!, annotations, true);
}

function createReplicaSet(
  ctx: ControllerContext,
  workload: Workload,
  replicas: number,
  annotations: Record<string, string>,
): PodOwner {
  const d = workload.obj;
  const spec = d.spec as DeploymentSpec;
  const template = (spec.template ?? {}) as { metadata?: KubeObject["metadata"]; spec?: unknown };
  const hash = workload.templateHash;
  const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
  const selector: LabelSelector = {
    ...(spec.selector ?? {}),
    matchLabels: { ...(spec.selector?.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash },
  };
  const rsTemplate = { ...template, metadata: { ...(template.metadata ?? {}), labels } };
  const name = `${workload.name}-${hash}`;
  const adopted = adoptReplicaSet(ctx, workload, name);
  if (adopted) return adopted;
  workload.revision = Math.max(workload.revision, ...workload.owners.map(revisionOf)) + 1;
  const object = ctx.write(() =>
    ctx.store.create({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name,
        namespace: workload.namespace,
        labels,
        annotations: { ...annotations, [REVISION]: String(workload.revision) },
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            name: workload.name,
            uid: d.metadata.uid ?? "",
            controller: true,
            blockOwnerDeletion: true,
          } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
        ],
      },
      spec: {
        replicas,
        minReadySeconds: spec.minReadySeconds ?? 0,
        selector,
        template: rsTemplate,
      },
    }),
  );
  const owner = new PodOwner(
    "ReplicaSet",
    workload.namespace,
    name,
    object,
    workload,
    parseTemplate(rsTemplate),
    hash,
    streamSeed(ctx.seed, `names/${workload.namespace}/ReplicaSet/${name}`),
    Date.parse(object.metadata.creationTimestamp ?? "") || truncateToSecond(ctx.now),
  );
  workload.owners.push(owner);
  ctx.addOwner(owner);
  return owner;
}

/**
 * A ReplicaSet of this template left by an orphaning delete joins the re-created Deployment
 * (the ControllerRefManager's adoption) instead of a second one being created.
 */
function adoptReplicaSet(
  ctx: ControllerContext,
  workload: Workload,
  name: string,
): PodOwner | null {
  const key = `${workload.namespace}/ReplicaSet/${name}`;
  const owner = ctx.ownerByKey(key);
  const stored = ctx.store.get("ReplicaSet", workload.namespace, name);
  if (!owner || !stored || stored.metadata.deletionTimestamp) return null;
  ctx.dropStandalone(key, workload);
  const ref = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: workload.name,
    uid: workload.obj.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number];
  owner.obj = ctx.write(() =>
    ctx.store.update({
      ...stored,
      metadata: { ...stored.metadata, resourceVersion: undefined, ownerReferences: [ref] },
    }),
  );
  if (!workload.owners.includes(owner)) workload.owners.push(owner);
  ctx.ownerChanged(owner);
  return owner;
}

function scaleReplicaSet(
  ctx: ControllerContext,
  owner: PodOwner,
  replicas: number,
  annotations: Record<string, string>,
  updateAnnotations: boolean,
): void {
  const current = owner.obj.metadata.annotations ?? {};
  const annotate =
    current[DESIRED_REPLICAS] !== annotations[DESIRED_REPLICAS] ||
    current[MAX_REPLICAS] !== annotations[MAX_REPLICAS];
  if (owner.specReplicas === replicas && !(updateAnnotations && annotate)) return;
  const object = owner.obj;
  owner.obj = ctx.write(() =>
    ctx.store.update({
      ...object,
      metadata: {
        ...object.metadata,
        resourceVersion: undefined,
        annotations: { ...current, ...annotations },
      },
      spec: { ...(object.spec as object), replicas },
    }),
  );
  ctx.ownerChanged(owner);
}

/** Old ReplicaSets beyond revisionHistoryLimit go once they are empty. */
function cleanupDeployment(
  ctx: ControllerContext,
  workload: Workload,
  limit: number,
  newRs: PodOwner | null,
): void {
  const olds = workload.owners.filter((o) => o !== newRs);
  const excess = olds.length - limit;
  if (excess <= 0) return;
  olds.sort((a, b) => byCreation(rsInfo(a)!, rsInfo(b)!));
  let removed = 0;
  for (const old of olds) {
    if (removed >= excess) break;
    if (old.specReplicas !== 0 || old.pods.size !== 0) continue;
    ctx.write(() => ctx.store.delete("ReplicaSet", old.namespace, old.name));
    ctx.removeOwner(old);
    workload.owners.splice(workload.owners.indexOf(old), 1);
    removed++;
  }
}

function writeDeploymentStatus(
  ctx: ControllerContext,
  workload: Workload,
  newRs: PodOwner | null,
): void {
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let specTotal = 0;
  for (const owner of workload.owners) {
    replicas += owner.active;
    ready += owner.ready;
    available += owner.available;
    specTotal += owner.specReplicas;
  }
  const status = {
    observedGeneration: workload.obj.metadata.generation ?? 1,
    replicas,
    updatedReplicas: newRs?.active ?? 0,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specTotal - available),
  };
  ctx.writeStatus(workload, status);
}
