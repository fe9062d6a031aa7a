// The ReplicaSet and ReplicationController controllers (upstream pkg/controller/replicaset):
// create or delete pods to match spec.replicas, scale-down victims in ActivePodsWithRanks
// order (rollout.ts), status.
import { namespaceTerminating } from "../../registry/namespace.js";
import { podPhase } from "../kubelet.js";
import type { PodOwner, PodRecord } from "../model.js";
import { compareVictims, deletionCostOf, type VictimInfo } from "../rollout.js";
import type { ControllerContext } from "./context.js";

function victimInfo(pod: PodRecord): VictimInfo {
  return {
    uid: pod.obj.metadata.uid ?? "",
    assigned: pod.bound,
    phase: podPhase(pod),
    ready: pod.isReady,
    deletionCost: deletionCostOf(pod.obj.metadata.annotations),
    readySince: pod.readyCondition?.status === "True" ? pod.readyCondition.time : null,
    restarts: 0,
    created: pod.createdAt,
  };
}

/**
 * Upstream's burstReplicas: a sync creates or deletes at most this many pods and the rest wait
 * for later syncs. Here the budget is per owner and advance of the cluster's time (the owner's
 * pods changing state within one advance must not renew it), so a ReplicaSet of 2^31 replicas
 * fills the cluster gradually instead of at once.
 */
export const BURST_REPLICAS = 500;

const budgets = new WeakMap<PodOwner, { advance: number; left: number }>();

/** How many pods the owner may still create or delete in this advance (at most `want`). */
function burst(ctx: ControllerContext, owner: PodOwner, want: number): number {
  let budget = budgets.get(owner);
  if (!budget || budget.advance !== ctx.advance) {
    budget = { advance: ctx.advance, left: BURST_REPLICAS };
    budgets.set(owner, budget);
  }
  const granted = Math.min(want, budget.left);
  budget.left -= granted;
  if (granted < want) ctx.ownerDeferred(owner);
  return granted;
}

/** The controller's name in its Events. */
const componentOf = (owner: PodOwner) =>
  owner.kind === "ReplicationController" ? "replication-controller" : "replicaset-controller";

/** The ReplicaSet / ReplicationController controller: create or delete pods to match spec.replicas. */
export function reconcileReplicaSet(ctx: ControllerContext, owner: PodOwner): void {
  const desired = owner.specReplicas;
  // One being deleted manages no replicas; a terminating namespace takes no new pods.
  const deleting = owner.obj.metadata.deletionTimestamp !== undefined;
  const wanted = deleting ? 0 : owner.active - desired;
  const diff = Math.sign(wanted) * burst(ctx, owner, Math.abs(wanted));
  if (diff < 0) {
    if (!namespaceTerminating(ctx.store, owner.namespace))
      for (let i = 0; i < -diff; i++) {
        const pod = ctx.createPod(owner, -1);
        if (!pod) break;
        ctx.event(owner.obj, componentOf(owner), "SuccessfulCreate", `Created pod: ${pod.name}`);
      }
  } else if (diff > 0) {
    const now = ctx.now;
    // Pushed, not `filter` and `map`: run by optimized code, map makes a holey array (the
    // interpreter a packed one), and the sort below deoptimized on it.
    const ranked: { pod: PodRecord; info: VictimInfo }[] = [];
    for (const pod of owner.pods) if (pod.active) ranked.push({ pod, info: victimInfo(pod) });
    ranked.sort((a, b) => compareVictims(a.info, b.info, now));
    for (let i = 0; i < diff; i++) {
      const pod = ranked[i]!.pod;
      ctx.deletePod(pod);
      ctx.event(owner.obj, componentOf(owner), "SuccessfulDelete", `Deleted pod: ${pod.name}`);
    }
  }
  const before = owner.obj.status as { availableReplicas?: number; replicas?: number } | undefined;
  ctx.writeStatus(owner, {
    replicas: owner.active,
    fullyLabeledReplicas: owner.active,
    readyReplicas: owner.ready,
    availableReplicas: owner.available,
    observedGeneration: owner.obj.metadata.generation ?? 1,
  });
  const after = owner.obj.status;
  if (owner.workload.kind === "Deployment" && before !== after) {
    ctx.workloadChanged(owner.workload);
  }
}
