// core/v1 Node: a read-only view of the simulated capacity.

import type { KubeObject } from "../api/types.js";
import { condition, conditions, root } from "./meta.js";
import { AGE, asRecord, col, NAME, since, text } from "./printing.js";
import { DEDUCED, deduced, struct, time } from "./schema.js";
import { type KindDefinition, PLAIN_STRATEGY } from "./types.js";

export const node: KindDefinition<"Node"> = {
  kind: "Node",
  resource: "nodes",
  singular: "node",
  description:
    "A Node is a machine the pods run on. Horizon's nodes are simulated: their capacity comes from the cluster model and they cannot be written.",
  group: "",
  // Never written through the API: deduced but for the Time fields of its conditions.
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.Node",
        DEDUCED,
        deduced(
          struct(
            {
              conditions: conditions(condition("v1.NodeCondition", { lastHeartbeatTime: time() })),
            },
            { go: "v1.NodeStatus", preserveUnknownFields: true },
          ),
        ),
      ),
    },
  ],
  namespaced: false,
  verbs: ["get", "list", "watch"],
  subresources: ["status"],
  shortNames: ["no"],
  readOnly: true,
  gcPolicy: "None",
  fieldSelectors: ["spec.unschedulable"],
  strategy: PLAIN_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Status", "string", "The status of the node"),
      col("Roles", "string", "The roles of the node"),
      AGE,
      col("Version", "string", "Kubelet Version reported by the node."),
      col("Internal-IP", "string", "List of addresses reachable to the node.", { priority: 1 }),
      col("External-IP", "string", "List of addresses reachable to the node.", { priority: 1 }),
      col(
        "OS-Image",
        "string",
        "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
        { priority: 1 },
      ),
      col(
        "Kernel-Version",
        "string",
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
        { priority: 1 },
      ),
      col(
        "Container-Runtime",
        "string",
        "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
        { priority: 1 },
      ),
    ],
    cells: nodeCells,
  },
};

function nodeCells(node: KubeObject, now: number): unknown[] {
  const spec = asRecord(node.spec);
  const status = asRecord(node.status);
  const conditions = (status.conditions ?? []) as Record<string, unknown>[];
  const states: string[] = [];
  const ready = conditions.find((c) => c.type === "Ready");
  if (ready) states.push(ready.status === "True" ? "Ready" : "NotReady");
  if (states.length === 0) states.push("Unknown");
  if (spec.unschedulable === true) states.push("SchedulingDisabled");
  // Roles: node-role.kubernetes.io/<role> keys and the kubernetes.io/role value (sorted here;
  // upstream's set order is unspecified).
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
  }
  const info = asRecord(status.nodeInfo);
  const addresses = (status.addresses ?? []) as Record<string, unknown>[];
  const address = (type: string) =>
    text(addresses.find((a) => a.type === type)?.address) || "<none>";
  return [
    node.metadata.name,
    states.join(","),
    roles.size > 0 ? [...roles].sort().join(",") : "<none>",
    since(node.metadata.creationTimestamp, now),
    text(info.kubeletVersion),
    address("InternalIP"),
    address("ExternalIP"),
    text(info.osImage) || "<unknown>",
    text(info.kernelVersion) || "<unknown>",
    text(info.containerRuntimeVersion) || "<unknown>",
  ];
}
