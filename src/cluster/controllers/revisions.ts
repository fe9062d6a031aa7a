// ControllerRevisions of DaemonSets and StatefulSets (upstream pkg/controller/history and the
// two controllers' use of it): one apps/v1 ControllerRevision per distinct pod template, named
// `<owner>-<hash>` with the hash the pods' controller-revision-hash label carries, whose `data`
// is the patch `kubectl rollout undo` sends back to the owner. A template returned to (an undo)
// takes the next revision number; old revisions beyond spec.revisionHistoryLimit go, oldest
// first, except those live pods still run.
import { withSortedKeys } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import type { PodOwner } from "../model.js";
import type { ControllerContext } from "./context.js";

/** The label of a revision and of its pods (a StatefulSet's pods: the revision's name). */
export const CONTROLLER_REVISION_HASH = "controller-revision-hash";

type Revision = KubeObject & { revision?: number };

/** The owner's revisions, as its controller's sync reads them, and the current one. */
export interface OwnedRevisions {
  current: Revision;
  /** Every other revision of the owner. */
  old: Revision[];
}

/**
 * getPatch: the owner's spec.template with `"$patch": "replace"`, as Go marshals the typed
 * template (an unset creationTimestamp is null) through a map.
 */
export function revisionData(owner: KubeObject): unknown {
  const template = { ...((owner.spec as { template?: object } | undefined)?.template ?? {}) } as {
    metadata?: Record<string, unknown>;
  };
  template.metadata = { creationTimestamp: null, ...(template.metadata ?? {}) };
  return { spec: { template: withSortedKeys({ ...template, $patch: "replace" }) } };
}

function revisionNumber(revision: Revision): number {
  return typeof revision.revision === "number" ? revision.revision : 0;
}

/**
 * The start of a sync (DaemonSet constructHistory, StatefulSet getStatefulSetRevisions): the
 * owner's revisions, the current template's created (max + 1) or, when an older one holds it,
 * renumbered to max + 1.
 */
export function syncRevisions(ctx: ControllerContext, owner: PodOwner): OwnedRevisions {
  const obj = owner.obj;
  const uid = obj.metadata.uid;
  const name = `${owner.name}-${owner.templateHash}`;
  const owned: Revision[] = [];
  for (const revision of ctx.store.list("ControllerRevision", owner.namespace)) {
    const ref = revision.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref !== undefined && ref.uid === uid) owned.push(revision as Revision);
  }
  const old = owned.filter((r) => r.metadata.name !== name);
  const next = old.reduce((max, r) => Math.max(max, revisionNumber(r)), 0) + 1;
  let current = owned.find((r) => r.metadata.name === name);
  if (current === undefined) {
    const annotations = obj.metadata.annotations;
    current = ctx.write(() =>
      ctx.store.create({
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: {
          name,
          namespace: owner.namespace,
          labels: {
            ...(owner.template.metadata.labels ?? {}),
            [CONTROLLER_REVISION_HASH]: owner.templateHash,
          },
          ...(annotations && Object.keys(annotations).length > 0
            ? { annotations: { ...annotations } }
            : {}),
          ownerReferences: [
            {
              apiVersion: "apps/v1",
              kind: owner.kind,
              name: owner.name,
              uid: uid ?? "",
              controller: true,
              blockOwnerDeletion: true,
            } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
          ],
        },
        data: revisionData(obj),
        revision: next,
      }),
    ) as Revision;
  } else if (revisionNumber(current) < next) {
    const stored = current;
    current = ctx.write(() =>
      ctx.store.update({
        ...stored,
        metadata: { ...stored.metadata, resourceVersion: undefined },
        revision: next,
      }),
    ) as Revision;
  }
  return { current, old };
}

/**
 * The end of a sync: old revisions beyond spec.revisionHistoryLimit (default 10) are deleted,
 * lowest revision first, never one a pod of the owner still runs. DaemonSet cleanupHistory
 * counts the live ones against the limit, StatefulSet truncateHistory does not.
 */
export function trimRevisions(
  ctx: ControllerContext,
  owner: PodOwner,
  revisions: OwnedRevisions,
  liveCount: boolean,
): void {
  const limit =
    (owner.obj.spec as { revisionHistoryLimit?: number } | undefined)?.revisionHistoryLimit ?? 10;
  const live = new Set<string>();
  for (const pod of owner.pods) live.add(`${owner.name}-${pod.revision}`);
  const candidates = liveCount
    ? revisions.old
    : revisions.old.filter((r) => !live.has(r.metadata.name));
  let toKill = candidates.length - limit;
  if (toKill <= 0) return;
  const sorted = [...candidates].sort((a, b) => revisionNumber(a) - revisionNumber(b));
  for (const revision of sorted) {
    if (toKill <= 0) break;
    if (live.has(revision.metadata.name)) continue;
    ctx.write(() =>
      ctx.store.delete("ControllerRevision", owner.namespace, revision.metadata.name),
    );
    toKill--;
  }
}
