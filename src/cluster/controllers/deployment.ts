// The deployment controller (upstream pkg/controller/deployment): Deployment → ReplicaSet
// `<name>-<pod-template-hash>`; RollingUpdate within maxSurge / maxUnavailable, Recreate,
// proportional scaling of several active ReplicaSets, revisionHistoryLimit clean-up, adoption
// of an orphaned ReplicaSet of the same template, status. The arithmetic is rollout.ts's.

import { rfc3339, truncateToSecond } from "../../api/time.js";
import type { KubeObject, LabelSelector } from "../../api/types.js";
import { namespaceTerminating } from "../../registry/namespace.js";
import { hashString, safeEncode, stableStringify } from "../../registry/random.js";
import { PodOwner, parseTemplate, type Workload } from "../model.js";
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
const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
/** Deployment annotations a ReplicaSet does not inherit (annotationsToSkip). */
const NOT_COPIED = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  "deprecated.deployment.rollback.to",
]);

interface DeploymentSpec {
  replicas?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector?: LabelSelector;
  template?: unknown;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
  };
}

/**
 * The pod-template-hash: a hash of the template, in upstream's safe alphabet. Upstream hashes
 * the Go struct, where a JSON null and an empty value struct are the zero value: what kubectl
 * sends back in `rollout undo` (`creationTimestamp: null`, `resources: {}`) hashes as the
 * template it came from, so nulls and empty `resources` are left out.
 */
export function templateHash(template: unknown): string {
  // Stored objects are replaced, never changed in place: a template keeps its hash, and a
  // scale (a new spec around the same template) does not hash it again.
  if (template === null || typeof template !== "object") return hashTemplate(template);
  let hash = templateHashes.get(template);
  if (hash === undefined) {
    hash = hashTemplate(template);
    templateHashes.set(template, hash);
  }
  return hash;
}

const templateHashes = new WeakMap<object, string>();

function hashTemplate(template: unknown): string {
  return safeEncode(String(hashString(stableStringify(withoutNulls(template ?? {})))));
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    // A container's ResourceRequirements is a value struct: `{}` is its zero value.
    if (key === "resources" && isEmptyObject(item)) continue;
    out[key] = withoutNulls(item);
  }
  return out;
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
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
  const sync: StatusSync = { maxUnavailable, rollout: false, created: false };
  // A Deployment being deleted only has its status synced (syncStatusOnly); nothing new can
  // be created in a terminating namespace.
  if (
    workload.obj.metadata.deletionTimestamp ||
    namespaceTerminating(ctx.store, workload.namespace)
  ) {
    writeDeploymentStatus(ctx, workload, newRs, sync);
    return;
  }
  if (newRs) syncRevision(ctx, workload, newRs, olds);

  const scalingEvent = workload.owners.some((o) => {
    if (o.specReplicas === 0) return false;
    const desired = o.obj.metadata.annotations?.[DESIRED_REPLICAS];
    return desired !== undefined && Number(desired) !== replicas;
  });
  if (spec.paused || scalingEvent) {
    scaleDeployment(ctx, workload, newRs, olds, params, annotations);
  } else if (!rolling) {
    sync.rollout = true;
    // Recreate: old ReplicaSets to zero, and the new one only once no old pod is left.
    let oldPods = false;
    for (const old of olds) {
      if (old.specReplicas > 0) scaleReplicaSet(ctx, old, 0, annotations, false);
      for (const pod of old.pods) if (pod.stage !== "failed") oldPods = true;
    }
    if (!oldPods) {
      if (!newRs) {
        newRs = createReplicaSet(ctx, workload, replicas, annotations);
        sync.created = true;
      } else if (newRs.specReplicas !== replicas)
        scaleReplicaSet(ctx, newRs, replicas, annotations, false);
    }
  } else {
    sync.rollout = true;
    const allSpec = workload.owners.reduce((n, o) => n + o.specReplicas, 0);
    if (!newRs) {
      newRs = createReplicaSet(
        ctx,
        workload,
        newReplicaSetReplicas(params, allSpec, 0),
        annotations,
      );
      sync.created = true;
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
  writeDeploymentStatus(ctx, workload, newRs, sync);
}

/**
 * The new ReplicaSet carries the highest revision (SetNewReplicaSetAnnotations): one that was
 * old before (a rollback, `kubectl rollout undo`) gets the next number and remembers its former
 * ones in `revision-history`; the Deployment's own revision annotation follows.
 */
function syncRevision(
  ctx: ControllerContext,
  workload: Workload,
  newRs: PodOwner,
  olds: PodOwner[],
): void {
  const maxOld = Math.max(0, ...olds.map(revisionOf));
  const current = revisionOf(newRs);
  if (current <= maxOld) {
    const revision = maxOld + 1;
    workload.revision = Math.max(workload.revision, revision);
    const annotations = { ...(newRs.obj.metadata.annotations ?? {}) };
    if (current > 0) {
      const history = annotations[REVISION_HISTORY];
      annotations[REVISION_HISTORY] = history ? `${history},${current}` : String(current);
    }
    Object.assign(annotations, copiedAnnotations(workload.obj), { [REVISION]: String(revision) });
    const object = newRs.obj;
    newRs.obj = ctx.write(() =>
      ctx.store.update({
        ...object,
        metadata: { ...object.metadata, resourceVersion: undefined, annotations },
      }),
    );
    ctx.ownerChanged(newRs);
  }
  const revision = String(revisionOf(newRs));
  const stored = ctx.store.get("Deployment", workload.namespace, workload.name);
  if (stored && stored.metadata.annotations?.[REVISION] !== revision) {
    // Through the status subresource, as upstream's controller writes it: no new generation.
    workload.obj = ctx.write(() =>
      ctx.store.update(
        {
          ...stored,
          metadata: {
            ...stored.metadata,
            resourceVersion: undefined,
            annotations: { ...(stored.metadata.annotations ?? {}), [REVISION]: revision },
          },
        },
        { throughStatus: true },
      ),
    );
  }
}

/** The Deployment's annotations its ReplicaSets carry too (kubernetes.io/change-cause, …). */
function copiedAnnotations(deployment: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) {
    if (!NOT_COPIED.has(key)) out[key] = value;
  }
  return out;
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
        annotations: {
          ...copiedAnnotations(d),
          ...annotations,
          [REVISION]: String(workload.revision),
        },
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
    ctx.nameSeed(`names/${workload.namespace}/ReplicaSet/${name}`),
    Date.parse(object.metadata.creationTimestamp ?? "") || truncateToSecond(ctx.now),
  );
  workload.owners.push(owner);
  ctx.addOwner(owner);
  if (replicas > 0) {
    scalingEvent(ctx, owner, `Scaled up replica set ${name} from 0 to ${replicas}`);
  }
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
  const from = owner.specReplicas;
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
  if (from !== replicas) {
    const direction = replicas > from ? "up" : "down";
    scalingEvent(
      ctx,
      owner,
      `Scaled ${direction} replica set ${owner.name} from ${from} to ${replicas}`,
    );
  }
}

/** The deployment controller's ScalingReplicaSet Event, on the Deployment. */
function scalingEvent(ctx: ControllerContext, owner: PodOwner, message: string): void {
  ctx.event(owner.workload.obj, "deployment-controller", "ScalingReplicaSet", message);
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

interface StatusSync {
  /** MaxUnavailable(deployment): 0 for Recreate or no replicas. */
  maxUnavailable: number;
  /** A rollout step ran (syncRolloutStatus); else only the status is recalculated. */
  rollout: boolean;
  /** The new ReplicaSet was created in this sync. */
  created: boolean;
}

export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const PROGRESSING = "Progressing";
const AVAILABLE = "Available";
const NEW_RS_AVAILABLE = "NewReplicaSetAvailable";
const TIMED_OUT = "ProgressDeadlineExceeded";
const PAUSED = "DeploymentPaused";

/**
 * SetDeploymentCondition: a condition of the same status and reason stays as it is; one of the
 * same status keeps its lastTransitionTime; the new one goes last.
 */
function setCondition(
  conditions: DeploymentCondition[],
  condition: DeploymentCondition,
): DeploymentCondition[] {
  const current = conditions.find((c) => c.type === condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason)
    return conditions;
  const next =
    current && current.status === condition.status
      ? { ...condition, lastTransitionTime: current.lastTransitionTime }
      : condition;
  return [...conditions.filter((c) => c.type !== condition.type), next];
}

interface StoredStatus {
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: DeploymentCondition[];
}

/**
 * The Deployment's status as the controller writes it: the counts of its ReplicaSets' pods,
 * `Available` (calculateStatus), and `Progressing` (the new ReplicaSet's creation, pause and
 * resume, then syncRolloutStatus: progress, completion, the progress deadline).
 */
function writeDeploymentStatus(
  ctx: ControllerContext,
  workload: Workload,
  newRs: PodOwner | null,
  sync: StatusSync,
): void {
  const spec = workload.obj.spec as DeploymentSpec;
  const desired = spec.replicas ?? 1;
  const old = (workload.obj.status ?? {}) as StoredStatus;
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
  const generation = workload.obj.metadata.generation ?? 1;
  const status = {
    observedGeneration: generation,
    replicas,
    updatedReplicas: newRs?.active ?? 0,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specTotal - available),
  };

  const now = rfc3339(truncateToSecond(ctx.now));
  const condition = (
    type: string,
    value: string,
    reason: string,
    message: string,
  ): DeploymentCondition => ({
    type,
    status: value,
    lastUpdateTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  const deadline = spec.progressDeadlineSeconds;
  const hasDeadline = typeof deadline === "number" && deadline !== 2147483647;
  const subject = newRs ? `ReplicaSet "${newRs.name}"` : `Deployment "${workload.name}"`;
  let conditions = [...(old.conditions ?? [])];
  const progressing = () => conditions.find((c) => c.type === PROGRESSING);
  if (!hasDeadline) conditions = conditions.filter((c) => c.type !== PROGRESSING);
  else {
    // checkPausedConditions: a reported lack of progress is not overwritten.
    const current = progressing();
    if (current?.reason !== TIMED_OUT) {
      const pausedShown = current?.reason === PAUSED;
      if (spec.paused && !pausedShown)
        conditions = setCondition(
          conditions,
          condition(PROGRESSING, "Unknown", PAUSED, "Deployment is paused"),
        );
      else if (!spec.paused && pausedShown)
        conditions = setCondition(
          conditions,
          condition(PROGRESSING, "Unknown", "DeploymentResumed", "Deployment is resumed"),
        );
    }
    // getNewReplicaSet
    if (sync.created && newRs)
      conditions = setCondition(
        conditions,
        condition(
          PROGRESSING,
          "True",
          "NewReplicaSetCreated",
          `Created new replica set "${newRs.name}"`,
        ),
      );
    else if (newRs && !progressing())
      conditions = setCondition(
        conditions,
        condition(
          PROGRESSING,
          "True",
          "FoundNewReplicaSet",
          `Found new replica set "${newRs.name}"`,
        ),
      );
  }
  // calculateStatus
  conditions = setCondition(
    conditions,
    available >= desired - sync.maxUnavailable
      ? condition(
          AVAILABLE,
          "True",
          "MinimumReplicasAvailable",
          "Deployment has minimum availability.",
        )
      : condition(
          AVAILABLE,
          "False",
          "MinimumReplicasUnavailable",
          "Deployment does not have minimum availability.",
        ),
  );
  const complete =
    status.updatedReplicas === desired &&
    status.replicas === desired &&
    status.availableReplicas === desired &&
    status.observedGeneration >= generation;
  // syncRolloutStatus
  const current = progressing();
  if (
    sync.rollout &&
    hasDeadline &&
    !(replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE)
  ) {
    const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
    const moved =
      status.updatedReplicas > (old.updatedReplicas ?? 0) ||
      status.replicas - status.updatedReplicas < oldOld ||
      status.readyReplicas > (old.readyReplicas ?? 0) ||
      status.availableReplicas > (old.availableReplicas ?? 0);
    if (complete) {
      conditions = setCondition(
        conditions,
        condition(PROGRESSING, "True", NEW_RS_AVAILABLE, `${subject} has successfully progressed.`),
      );
    } else if (moved) {
      // Progress moves lastUpdateTime even when the reason stays ReplicaSetUpdated.
      const next = condition(
        PROGRESSING,
        "True",
        "ReplicaSetUpdated",
        `${subject} is progressing.`,
      );
      if (current?.status === "True") next.lastTransitionTime = current.lastTransitionTime;
      conditions = setCondition(
        conditions.filter((c) => c.type !== PROGRESSING),
        next,
      );
    } else if (
      current &&
      current.reason !== NEW_RS_AVAILABLE &&
      (current.reason === TIMED_OUT ||
        Date.parse(current.lastUpdateTime) + deadline * 1000 < ctx.now)
    ) {
      conditions = setCondition(
        conditions,
        condition(PROGRESSING, "False", TIMED_OUT, `${subject} has timed out progressing.`),
      );
    }
  }
  // requeueStuckDeployment: a rollout without progress is looked at again just past its
  // deadline; never at a time already past (upstream does not requeue then either).
  const last = progressing();
  const checkAt =
    hasDeadline &&
    last &&
    !complete &&
    last.reason !== TIMED_OUT &&
    last.reason !== NEW_RS_AVAILABLE &&
    !spec.paused
      ? Date.parse(last.lastUpdateTime) + deadline * 1000 + 1000
      : null;
  ctx.progressCheck(workload, checkAt !== null && checkAt > ctx.now ? checkAt : null);
  ctx.writeStatus(workload, { ...status, conditions });
}
