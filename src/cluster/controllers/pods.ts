// A controller's pod from its template (upstream controller.GetPodFromTemplate): the
// template's labels and annotations, a controller ownerReference, generateName for
// ReplicaSets and ReplicationControllers; a StatefulSet's pods carry their identity labels.
import type { KubeObject } from "../../api/types.js";
import type { PodOwner } from "../model.js";
import { CONTROLLER_REVISION_HASH } from "./statefulset.js";

/** The Pod `name` the owner creates (StatefulSet: at `ordinal`), before it is stored. */
export function podFromTemplate(owner: PodOwner, name: string, ordinal: number): KubeObject {
  const namespace = owner.namespace;
  const template = owner.template;
  const labels: Record<string, string> = { ...template.metadata.labels };
  if (owner.kind === "StatefulSet") {
    labels[CONTROLLER_REVISION_HASH] = `${owner.name}-${owner.templateHash}`;
    labels["statefulset.kubernetes.io/pod-name"] = name;
    labels["apps.kubernetes.io/pod-index"] = String(ordinal);
  }
  const metadata: KubeObject["metadata"] = {
    name,
    namespace,
    labels,
    ownerReferences: [
      {
        apiVersion: owner.kind === "ReplicationController" ? "v1" : "apps/v1",
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
    spec: template.spec,
    status: { phase: "Pending" },
  };
}
