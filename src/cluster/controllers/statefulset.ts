// The StatefulSet controller (upstream pkg/controller/statefulset): pods `<name>-<ordinal>`,
// OrderedReady or Parallel pod management, rolling replacement of outdated pods from the
// highest ordinal, failed pods recreated, status.
import { namespaceTerminating } from "../../registry/namespace.js";
import type { PodOwner, PodRecord } from "../model.js";
import type { ControllerContext } from "./context.js";
import { syncRevisions, trimRevisions } from "./revisions.js";

/**
 * The StatefulSet controller: pods `name-0..N-1`; with OrderedReady, pod N is created only
 * once pods 0..N-1 are Running and Ready, and scale-down removes the highest ordinal first,
 * one at a time. A changed template replaces pods from the highest ordinal down.
 */
export function reconcileStatefulSet(ctx: ControllerContext, owner: PodOwner): void {
  const spec = owner.obj.spec as {
    replicas?: number;
    podManagementPolicy?: string;
    updateStrategy?: { type?: string };
  };
  const replicas = spec.replicas ?? 1;
  const parallel = spec.podManagementPolicy === "Parallel";
  // A StatefulSet being deleted manages no pods; a terminating namespace takes no new ones.
  const manage =
    owner.obj.metadata.deletionTimestamp === undefined &&
    !namespaceTerminating(ctx.store, owner.namespace);
  // The template's ControllerRevision first, as getStatefulSetRevisions does.
  const revisions = manage ? syncRevisions(ctx, owner) : undefined;
  const byOrdinal = new Map<number, PodRecord>();
  for (const pod of owner.pods) {
    if (pod.stage === "failed") {
      // A failed pod is deleted and recreated (upstream's StatefulSet does the same).
      ctx.removePod(pod);
      continue;
    }
    byOrdinal.set(pod.ordinal, pod);
  }
  let healthy = true;
  for (let ordinal = 0; ordinal < replicas; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (!pod) {
      if ((healthy || parallel) && manage) {
        const pod = ctx.createPod(owner, ordinal);
        if (pod) podEvent(ctx, owner, "create", pod);
      }
      healthy = false;
      if (!parallel) break;
      continue;
    }
    if (!pod.isReady) {
      healthy = false;
      if (!parallel) break;
    }
  }
  const condemned = [...byOrdinal.values()]
    .filter((p) => p.ordinal >= replicas)
    .sort((a, b) => b.ordinal - a.ordinal);
  if (!manage) {
    // Left to the garbage collector.
  } else if (parallel) {
    for (const pod of condemned) if (pod.active) deletePod(ctx, owner, pod);
  } else if (condemned.length > 0 && healthy) {
    const terminating = condemned.some((p) => p.stage === "terminating");
    if (!terminating) deletePod(ctx, owner, condemned[0]!);
  }
  if (manage && condemned.length === 0 && healthy && spec.updateStrategy?.type !== "OnDelete") {
    const outdated = [...byOrdinal.values()]
      .filter((p) => p.ordinal < replicas && p.revision !== owner.templateHash)
      .sort((a, b) => b.ordinal - a.ordinal);
    const busy = [...byOrdinal.values()].some((p) => p.stage === "terminating");
    if (outdated.length > 0 && !busy) deletePod(ctx, owner, outdated[0]!);
  }
  if (revisions) trimRevisions(ctx, owner, revisions, false);
  let ready = 0;
  let current = 0;
  let available = 0;
  for (const pod of owner.pods) {
    if (pod.isReady) ready++;
    if (pod.available && pod.isReady) available++;
    if (pod.revision === owner.templateHash) current++;
  }
  ctx.writeStatus(owner, {
    observedGeneration: owner.obj.metadata.generation ?? 1,
    replicas: owner.pods.size,
    readyReplicas: ready,
    currentReplicas: current,
    updatedReplicas: current,
    availableReplicas: available,
    currentRevision: `${owner.name}-${owner.templateHash}`,
    updateRevision: `${owner.name}-${owner.templateHash}`,
    collisionCount: 0,
  });
}

/** The StatefulSet controller's Event of a pod it created or deleted. */
function podEvent(
  ctx: ControllerContext,
  owner: PodOwner,
  verb: "create" | "delete",
  pod: PodRecord,
) {
  const reason = verb === "create" ? "SuccessfulCreate" : "SuccessfulDelete";
  const message = `${verb} Pod ${pod.name} in StatefulSet ${owner.name} successful`;
  ctx.event(owner.obj, "statefulset-controller", reason, message);
}

function deletePod(ctx: ControllerContext, owner: PodOwner, pod: PodRecord): void {
  ctx.deletePod(pod);
  podEvent(ctx, owner, "delete", pod);
}
