// A controller's pod from its template (upstream controller.GetPodFromTemplate): the
// template's labels and annotations, a controller ownerReference, generateName for
// ReplicaSets, ReplicationControllers and DaemonSets; a StatefulSet's pods carry their
// identity labels, a DaemonSet's its revision, its node's affinity and the daemon tolerations.

import type { KubeObject } from "../../api/types.js";
import { TEMPLATE_GENERATION_ANNOTATION } from "../../kinds/types.js";
import { NODE_NAME } from "../kubelet.js";
import type { PodOwner } from "../model.js";
import { CONTROLLER_REVISION_HASH } from "./revisions.js";

const API_VERSIONS: Record<PodOwner["kind"], string> = {
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  ReplicationController: "v1",
  Job: "batch/v1",
};

/** The tolerations every daemon pod gets (upstream's util.AddOrUpdateDaemonPodTolerations). */
const DAEMON_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

/** A daemon pod's spec: bound to its node by affinity, tolerating the node conditions. */
function daemonPodSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
  for (const t of DAEMON_TOLERATIONS) {
    if (!tolerations.some((o) => o?.key === t.key && o?.effect === t.effect)) tolerations.push(t);
  }
  const affinity = (spec.affinity ?? {}) as Record<string, unknown>;
  const nodeAffinity = {
    ...((affinity.nodeAffinity ?? {}) as Record<string, unknown>),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        { matchFields: [{ key: "metadata.name", operator: "In", values: [NODE_NAME] }] },
      ],
    },
  };
  return { ...spec, affinity: { ...affinity, nodeAffinity }, tolerations };
}

/** The Pod `name` the owner creates (StatefulSet: at `ordinal`), before it is stored. */
export function podFromTemplate(owner: PodOwner, name: string, ordinal: number): KubeObject {
  const namespace = owner.namespace;
  const template = owner.template;
  const labels: Record<string, string> = { ...template.metadata.labels };
  if (owner.kind === "StatefulSet") {
    labels[CONTROLLER_REVISION_HASH] = `${owner.name}-${owner.templateHash}`;
    labels["statefulset.kubernetes.io/pod-name"] = name;
    labels["apps.kubernetes.io/pod-index"] = String(ordinal);
  } else if (owner.kind === "DaemonSet") {
    labels[CONTROLLER_REVISION_HASH] = owner.templateHash;
    const templateGeneration = owner.obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    if (templateGeneration !== undefined) labels["pod-template-generation"] = templateGeneration;
  }
  const metadata: KubeObject["metadata"] = {
    name,
    namespace,
    labels,
    ownerReferences: [
      {
        apiVersion: API_VERSIONS[owner.kind],
        kind: owner.kind,
        name: owner.name,
        uid: owner.obj.metadata.uid ?? "",
        controller: true,
        blockOwnerDeletion: true,
      } as NonNullable<KubeObject["metadata"]["ownerReferences"]>[number],
    ],
  };
  if (owner.kind !== "StatefulSet") metadata.generateName = `${owner.name}-`;
  if (template.metadata.annotations) metadata.annotations = template.metadata.annotations;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata,
    spec: owner.kind === "DaemonSet" ? daemonPodSpec(template.spec) : template.spec,
    status: { phase: "Pending" },
  };
}
