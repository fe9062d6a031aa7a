// The DaemonSet controller (upstream pkg/controller/daemon): one pod per node that the pod
// template's nodeSelector selects (the cluster has one node, untainted, so tolerations never
// keep a pod off it), failed pods replaced, surplus and misscheduled pods deleted, a changed
// template rolled out within maxUnavailable / maxSurge (RollingUpdate) or left to the user
// (OnDelete), status.
import { namespaceTerminating } from "../../registry/namespace.js";
import { NODE_LABELS } from "../kubelet.js";
import type { PodOwner, PodRecord } from "../model.js";
import type { ControllerContext } from "./context.js";
import { syncRevisions, trimRevisions } from "./revisions.js";

const COMPONENT = "daemonset-controller";

interface DaemonSetSpec {
  template?: { spec?: { nodeSelector?: Record<string, string> } };
  updateStrategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string } };
}

/** The template's nodeSelector selects the node (every key equal; an empty one selects all). */
export function nodeSelected(
  nodeSelector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  return Object.entries(nodeSelector ?? {}).every(([key, value]) => labels[key] === value);
}

/**
 * maxSurge scaled to desiredNumberScheduled, a percentage rounded up (upstream's
 * GetScaledValueFromIntOrPercent(..., true)).
 */
function surgeOf(value: number | string | undefined, desired: number): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.endsWith("%")) {
    return Math.ceil((Number(value.slice(0, -1)) * desired) / 100);
  }
  return 0;
}

/** The DaemonSet controller's pass over one DaemonSet and its pods on the node. */
export function reconcileDaemonSet(ctx: ControllerContext, owner: PodOwner): void {
  const spec = (owner.obj.spec ?? {}) as DaemonSetSpec;
  const shouldRun = nodeSelected(spec.template?.spec?.nodeSelector, NODE_LABELS);
  const desired = shouldRun ? 1 : 0;
  const hash = owner.templateHash;
  // A DaemonSet being deleted manages no pods; a terminating namespace takes no new ones.
  const manage =
    owner.obj.metadata.deletionTimestamp === undefined &&
    !namespaceTerminating(ctx.store, owner.namespace);
  const live = () =>
    [...owner.pods].filter((p) => p.active).sort((a, b) => a.createdAt - b.createdAt);
  // The template's ControllerRevision first, as constructHistory does.
  const revisions = manage ? syncRevisions(ctx, owner) : undefined;
  if (manage) {
    for (const pod of owner.pods) {
      // A failed daemon pod is deleted, and a new one created in its place.
      if (pod.stage === "failed") deletePod(ctx, owner, pod);
    }
    if (!shouldRun) {
      for (const pod of live()) deletePod(ctx, owner, pod);
    } else if (spec.updateStrategy?.type === "RollingUpdate") {
      rollingUpdate(ctx, owner, surgeOf(spec.updateStrategy.rollingUpdate?.maxSurge, desired));
    }
    const pods = live();
    if (shouldRun && pods.length === 0) {
      const pod = ctx.createPod(owner, -1);
      if (pod) ctx.event(owner.obj, COMPONENT, "SuccessfulCreate", `Created pod: ${pod.name}`);
    } else if (shouldRun) {
      // More than one pod of a revision on the node: all but the oldest go.
      const seen = new Set<string>();
      for (const pod of pods) {
        if (seen.has(pod.revision)) deletePod(ctx, owner, pod);
        seen.add(pod.revision);
      }
    }
  }
  if (revisions) trimRevisions(ctx, owner, revisions, true);
  const pods = live();
  // The node's daemon pod is its oldest, as upstream reads it.
  const pod = pods[0];
  const scheduled = shouldRun && pod !== undefined;
  const available = scheduled && pods.some((p) => p.isReady && p.available) ? 1 : 0;
  const status: Record<string, number> = {
    currentNumberScheduled: scheduled ? 1 : 0,
    numberMisscheduled: !shouldRun && pod !== undefined ? 1 : 0,
    desiredNumberScheduled: desired,
    numberReady: scheduled && pods.some((p) => p.isReady) ? 1 : 0,
    observedGeneration: owner.obj.metadata.generation ?? 1,
  };
  // omitempty: zero counts are left out, as upstream's JSON does.
  if (scheduled && pod.revision === hash) status.updatedNumberScheduled = 1;
  if (available > 0) status.numberAvailable = available;
  if (desired - available > 0) status.numberUnavailable = desired - available;
  ctx.writeStatus(owner, status);
}

/**
 * RollingUpdate on the one node: without surge the outdated pod goes at once (one node is within
 * any maxUnavailable, which validation keeps at least 1); with surge a new pod starts beside an
 * available outdated one, which goes once the new pod is available (or at once if it is not
 * available itself).
 */
function rollingUpdate(ctx: ControllerContext, owner: PodOwner, surge: number): void {
  const pods = [...owner.pods].filter((p) => p.active);
  const outdated = pods.filter((p) => p.revision !== owner.templateHash);
  if (outdated.length === 0) return;
  const updated = pods.filter((p) => p.revision === owner.templateHash);
  const availableOld = outdated.some((p) => p.isReady && p.available);
  if (surge > 0 && availableOld && !updated.some((p) => p.isReady && p.available)) {
    if (updated.length === 0) {
      const pod = ctx.createPod(owner, -1);
      if (pod) ctx.event(owner.obj, COMPONENT, "SuccessfulCreate", `Created pod: ${pod.name}`);
    }
    return;
  }
  for (const pod of outdated) deletePod(ctx, owner, pod);
}

function deletePod(ctx: ControllerContext, owner: PodOwner, pod: PodRecord): void {
  ctx.deletePod(pod);
  ctx.event(owner.obj, COMPONENT, "SuccessfulDelete", `Deleted pod: ${pod.name}`);
}
