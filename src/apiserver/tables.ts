// Server-side printing: the `meta.k8s.io/v1 Table` kube-apiserver returns when kubectl asks
// for `application/json;as=Table;v=v1;g=meta.k8s.io`. kubectl has no client-side columns for
// these kinds, so the column set, cell types and cell text (AGE, READY, TARGETS, ...) are the
// server's: they follow upstream `pkg/printers/internalversion/printers.go` (v1.34), and AGE
// follows apimachinery `duration.HumanDuration`.
import { Quantity } from "../api/quantity.js";
import type { KubeObject, LabelSelector, MetricSpec, MetricStatus } from "../api/types.js";
import { selectorFromLabelSelector } from "../core/selector.js";

export const TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export type IncludeObject = "None" | "Object" | "Metadata";

export interface TableOptions {
  /** What each row's `object` carries; upstream's default (no `includeObject`) is Metadata. */
  includeObject?: IncludeObject;
  /** Epoch ms that AGE is measured from (default: Date.now()). */
  now?: number;
  /** The list's metadata; without it a one-object table takes that object's resourceVersion. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

// ---------------------------------------------------------------------------------------------
// Accept negotiation

/** True when the Accept header asks for a meta.k8s.io/v1 Table (any parameter order). */
export function isTableRequest(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const mediaType of accept.split(",")) {
    const [type, ...rawParams] = mediaType.split(";").map((s) => s.trim());
    if (type !== "application/json") continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    if (
      params.get("as") === "Table" &&
      params.get("g") === "meta.k8s.io" &&
      params.get("v") === "v1"
    )
      return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Cell formatting shared by the printers

/** apimachinery duration.HumanDuration: `45s`, `5m12s`, `3h`, `2d`, ... (ms in). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    const years = Math.floor(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for a missing (zero) time. */
function since(timestamp: unknown, now: number): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

function hasTime(timestamp: unknown): boolean {
  return typeof timestamp === "string" && timestamp !== "" && !Number.isNaN(Date.parse(timestamp));
}

/** Quantity.String() of a serialized quantity; a nil *Quantity prints `<nil>` in Go. */
function quantityText(value: unknown): string {
  if (value === undefined || value === null) return "<nil>";
  const parsed = Quantity.tryParse(value);
  return parsed.ok ? parsed.quantity.toString() : String(value);
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${labels![k]}`).join(",");
}

/** metav1.LabelSelectorAsSelector(...).String(); undefined when the selector is invalid. */
function selectorString(selector: LabelSelector | null | undefined): string | undefined {
  const parsed = selectorFromLabelSelector(selector);
  return parsed.ok ? parsed.selector.text : undefined;
}

/** metav1.FormatLabelSelector: `<error>` when invalid, `<none>` when it selects everything. */
function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  const text = selectorString(selector);
  if (text === undefined) return "<error>";
  return text === "" ? "<none>" : text;
}

/** layoutContainerCells: container names and images, comma-joined. */
function containerCells(template: unknown): [string, string] {
  const containers = (asRecord(asRecord(template).spec).containers ?? []) as Record<
    string,
    unknown
  >[];
  return [
    containers.map((c) => String(c.name ?? "")).join(","),
    containers.map((c) => String(c.image ?? "")).join(","),
  ];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function int(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

// ---------------------------------------------------------------------------------------------
// HPA TARGETS

/**
 * formatHPAMetrics (v1.30+ wording, kubernetes#122804): each spec metric paired with the status
 * entry at the same index; Resource/ContainerResource prefixed with the resource name; `(avg)`
 * for AverageValue targets of Object/External; the first two, then `+ N more...`.
 */
export function formatHPAMetrics(
  specs: readonly MetricSpec[] | null | undefined,
  statuses: readonly MetricStatus[] | null | undefined,
): string {
  if (!specs || specs.length === 0) return "<none>";
  const status = (i: number): MetricStatus | undefined => statuses?.[i];
  const list: string[] = [];
  for (const [i, spec] of specs.entries()) {
    switch (spec.type) {
      case "External": {
        const target = spec.external?.target;
        const current = status(i)?.external?.current;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now =
            current?.averageValue !== undefined ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${now}/${quantityText(target.averageValue)} (avg)`);
        } else {
          const now = current ? quantityText(current.value) : "<unknown>";
          list.push(`${now}/${quantityText(target?.value)}`);
        }
        break;
      }
      case "Pods": {
        const current = status(i)?.pods?.current;
        const now = current ? quantityText(current.averageValue) : "<unknown>";
        list.push(`${now}/${quantityText(spec.pods?.target.averageValue)}`);
        break;
      }
      case "Object": {
        const target = spec.object?.target;
        const current = status(i)?.object?.current;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now =
            current?.averageValue !== undefined ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${now}/${quantityText(target.averageValue)} (avg)`);
        } else {
          const now = current ? quantityText(current.value) : "<unknown>";
          list.push(`${now}/${quantityText(target?.value)}`);
        }
        break;
      }
      case "Resource":
      case "ContainerResource": {
        const source = spec.type === "Resource" ? spec.resource : spec.containerResource;
        const current =
          spec.type === "Resource"
            ? status(i)?.resource?.current
            : status(i)?.containerResource?.current;
        const name = source?.name ?? "";
        const target = source?.target;
        if (target?.averageValue !== undefined && target.averageValue !== null) {
          const now = current ? quantityText(current.averageValue) : "<unknown>";
          list.push(`${name}: ${now}/${quantityText(target.averageValue)}`);
        } else {
          const now =
            current?.averageUtilization !== undefined && current.averageUtilization !== null
              ? `${current.averageUtilization}%`
              : "<unknown>";
          const goal =
            target?.averageUtilization !== undefined && target.averageUtilization !== null
              ? `${target.averageUtilization}%`
              : "<auto>";
          list.push(`${name}: ${now}/${goal}`);
        }
        break;
      }
      default:
        list.push("<unknown type>");
    }
  }
  const maximum = 2;
  if (list.length > maximum) {
    return `${list.slice(0, maximum).join(", ")} + ${list.length - maximum} more...`;
  }
  return list.join(", ");
}

// ---------------------------------------------------------------------------------------------
// Column definitions (names, types, formats, priorities as upstream registers them)

const DOC = {
  name: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  creationTimestamp:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  containers: "Names of each container in the template.",
  images: "Images referenced by each container in the template.",
};

function col(
  name: string,
  type: string,
  description: string,
  options: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return {
    name,
    type,
    format: options.format ?? "",
    description,
    priority: options.priority ?? 0,
  };
}

const NAME = col("Name", "string", DOC.name, { format: "name" });
const AGE = col("Age", "string", DOC.creationTimestamp);
const CONTAINERS = col("Containers", "string", DOC.containers, { priority: 1 });
const IMAGES = col("Images", "string", DOC.images, { priority: 1 });

type Cells = (obj: KubeObject, now: number) => unknown[];

interface Printer {
  columns: TableColumnDefinition[];
  cells: Cells;
  conditions?: (obj: KubeObject) => TableRowCondition[] | undefined;
}

const PRINTERS: Record<string, Printer> = {
  Pod: {
    columns: [
      NAME,
      col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
      col("Status", "string", "The aggregate status of the containers in this pod."),
      col(
        "Restarts",
        "string",
        "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
      ),
      AGE,
      col(
        "IP",
        "string",
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
        { priority: 1 },
      ),
      col("Node", "string", "NodeName indicates in which node this pod is scheduled.", {
        priority: 1,
      }),
      col(
        "Nominated Node",
        "string",
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.",
        { priority: 1 },
      ),
      col(
        "Readiness Gates",
        "string",
        "If specified, all readiness gates will be evaluated for pod readiness.",
        { priority: 1 },
      ),
    ],
    cells: podCells,
    conditions: (obj) => {
      const phase = asRecord(obj.status).phase;
      if (phase === "Succeeded") {
        return [
          {
            type: "Completed",
            status: "True",
            reason: "Succeeded",
            message: "The pod has completed successfully.",
          },
        ];
      }
      if (phase === "Failed") {
        return [
          { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
        ];
      }
      return undefined;
    },
  },
  Deployment: {
    columns: [
      NAME,
      col("Ready", "string", "Number of the pod with ready state"),
      col(
        "Up-to-date",
        "string",
        "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      ),
      col(
        "Available",
        "string",
        "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        `${int(status.readyReplicas)}/${int(spec.replicas)}`,
        int(status.updatedReplicas),
        int(status.availableReplicas),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        selectorString(spec.selector as LabelSelector | undefined) ?? "<invalid>",
      ];
    },
  },
  ReplicaSet: {
    columns: [
      NAME,
      col(
        "Desired",
        "integer",
        "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      ),
      col(
        "Current",
        "integer",
        "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      ),
      col(
        "Ready",
        "integer",
        "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
      ),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        int(spec.replicas),
        int(status.replicas),
        int(status.readyReplicas),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(spec.selector as LabelSelector | undefined),
      ];
    },
  },
  ReplicationController: {
    columns: [
      NAME,
      col(
        "Desired",
        "integer",
        "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
      ),
      col(
        "Current",
        "integer",
        "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
      ),
      col("Ready", "integer", "The number of ready replicas for this replication controller."),
      AGE,
      CONTAINERS,
      IMAGES,
      col(
        "Selector",
        "string",
        "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
        { priority: 1 },
      ),
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        int(spec.replicas),
        int(status.replicas),
        int(status.readyReplicas),
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
        formatLabels(spec.selector as Record<string, string> | undefined),
      ];
    },
  },
  StatefulSet: {
    columns: [
      NAME,
      col("Ready", "string", "Number of the pod with ready state"),
      AGE,
      CONTAINERS,
      IMAGES,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const [names, images] = containerCells(spec.template);
      return [
        obj.metadata.name,
        `${int(status.readyReplicas)}/${int(spec.replicas)}`,
        since(obj.metadata.creationTimestamp, now),
        names,
        images,
      ];
    },
  },
  HorizontalPodAutoscaler: {
    columns: [
      NAME,
      col(
        "Reference",
        "string",
        "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
      ),
      col(
        "Targets",
        "string",
        "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
      ),
      col(
        "MinPods",
        "string",
        "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
      ),
      col(
        "MaxPods",
        "string",
        "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
      ),
      col(
        "Replicas",
        "string",
        "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
      ),
      AGE,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const status = asRecord(obj.status);
      const ref = asRecord(spec.scaleTargetRef);
      const min = spec.minReplicas;
      return [
        obj.metadata.name,
        `${str(ref.kind)}/${str(ref.name)}`,
        formatHPAMetrics(
          spec.metrics as MetricSpec[] | undefined,
          status.currentMetrics as MetricStatus[] | undefined,
        ),
        typeof min === "number" ? String(min) : "<unset>",
        int(spec.maxReplicas),
        int(status.currentReplicas),
        since(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  Service: {
    columns: [
      NAME,
      col(
        "Type",
        "string",
        "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.",
      ),
      col(
        "Cluster-IP",
        "string",
        "clusterIP is the IP address of the service and is usually assigned randomly.",
      ),
      col(
        "External-IP",
        "string",
        "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
      ),
      col(
        "Port(s)",
        "string",
        "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
      ),
      AGE,
      col(
        "Selector",
        "string",
        "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
        { priority: 1 },
      ),
    ],
    cells: serviceCells,
  },
  Node: {
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
  Event: {
    columns: [
      col(
        "Last Seen",
        "string",
        "The time at which the most recent occurrence of this event was recorded.",
      ),
      col(
        "Type",
        "string",
        "Type of this event (Normal, Warning), new types could be added in the future",
      ),
      col(
        "Reason",
        "string",
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col("Object", "string", "The object that this event is about."),
      col(
        "Subobject",
        "string",
        "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
        { priority: 1 },
      ),
      col(
        "Source",
        "string",
        "The component reporting this event. Should be a short machine understandable string.",
        { priority: 1 },
      ),
      col("Message", "string", "A human-readable description of the status of this operation."),
      col(
        "First Seen",
        "string",
        "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
        { priority: 1 },
      ),
      col("Count", "string", "The number of times this event has occurred.", { priority: 1 }),
      col("Name", "string", DOC.name, { format: "name", priority: 1 }),
    ],
    cells: eventCells,
  },
  Namespace: {
    columns: [NAME, col("Status", "string", "The status of the namespace"), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      str(asRecord(obj.status).phase),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
  Lease: {
    columns: [
      NAME,
      col(
        "Holder",
        "string",
        "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
      ),
      AGE,
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      str(asRecord(obj.spec).holderIdentity),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};

/** rest.NewDefaultTableConvertor: what kinds without a printer (PodMetrics, ...) get. */
const DEFAULT_PRINTER: Printer = {
  columns: [NAME, col("Created At", "date", DOC.creationTimestamp)],
  // Time.UTC().Format(time.RFC3339); a missing time is Go's zero time.
  cells: (obj) => [
    obj.metadata.name,
    hasTime(obj.metadata.creationTimestamp)
      ? `${new Date(Date.parse(obj.metadata.creationTimestamp as string)).toISOString().slice(0, 19)}Z`
      : "0001-01-01T00:00:00Z",
  ],
};

/** The column definitions served for a kind (the default Name / Created At for others). */
export function columnsFor(kind: string): TableColumnDefinition[] {
  return (PRINTERS[kind] ?? DEFAULT_PRINTER).columns;
}

// ---------------------------------------------------------------------------------------------
// Per-kind cell builders too long to inline

function podCells(pod: KubeObject, now: number): unknown[] {
  const spec = asRecord(pod.spec);
  const status = asRecord(pod.status);
  const containers = (spec.containers ?? []) as Record<string, unknown>[];
  const initContainers = (spec.initContainers ?? []) as Record<string, unknown>[];
  const conditions = (status.conditions ?? []) as Record<string, unknown>[];
  const restartable = (name: unknown) =>
    initContainers.some((c) => c.name === name && c.restartPolicy === "Always");

  let restarts = 0;
  let restartableRestarts = 0;
  let totalContainers = containers.length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;

  for (const c of conditions) {
    if (c.type === "PodScheduled" && c.reason === "SchedulingGated") reason = "SchedulingGated";
  }
  for (const c of initContainers) if (c.restartPolicy === "Always") totalContainers++;

  const finishedAt = (cs: Record<string, unknown>): number => {
    const t = asRecord(asRecord(cs.lastState).terminated).finishedAt;
    return hasTime(t) ? Date.parse(t as string) : 0;
  };

  let initializing = false;
  const initStatuses = (status.initContainerStatuses ?? []) as Record<string, unknown>[];
  for (const [i, cs] of initStatuses.entries()) {
    restarts += int(cs.restartCount);
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    const isRestartable = restartable(cs.name);
    if (isRestartable) {
      restartableRestarts += int(cs.restartCount);
      lastRestartableRestart = Math.max(lastRestartableRestart, finishedAt(cs));
    }
    const state = asRecord(cs.state);
    const terminated = state.terminated ? asRecord(state.terminated) : undefined;
    const waiting = state.waiting ? asRecord(state.waiting) : undefined;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (isRestartable && cs.started === true) {
      if (cs.ready === true) readyContainers++;
      continue;
    }
    if (terminated) {
      if (str(terminated.reason) === "") {
        reason =
          int(terminated.signal) !== 0
            ? `Init:Signal:${int(terminated.signal)}`
            : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else reason = `Init:${str(terminated.reason)}`;
    } else if (waiting && str(waiting.reason) !== "" && waiting.reason !== "PodInitializing") {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  const initialized = conditions.some((c) => c.type === "Initialized" && c.status === "True");
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = (status.containerStatuses ?? []) as Record<string, unknown>[];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += int(cs.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const state = asRecord(cs.state);
      const terminated = state.terminated ? asRecord(state.terminated) : undefined;
      const waiting = state.waiting ? asRecord(state.waiting) : undefined;
      if (waiting && str(waiting.reason) !== "") reason = str(waiting.reason);
      else if (terminated && str(terminated.reason) !== "") reason = str(terminated.reason);
      else if (terminated) {
        reason =
          int(terminated.signal) !== 0
            ? `Signal:${int(terminated.signal)}`
            : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready === true && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose containers report Completed but one still runs is shown as running.
    if (reason === "Completed" && hasRunning) {
      reason = conditions.some((c) => c.type === "Ready" && c.status === "True")
        ? "Running"
        : "NotReady";
    }
  }

  const deleting = hasTime(pod.metadata.deletionTimestamp);
  if (deleting && status.reason === "NodeLost") reason = "Unknown";
  else if (deleting && phase !== "Failed" && phase !== "Succeeded") reason = "Terminating";

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== 0) {
    restartsText = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  }

  const podIPs = (status.podIPs ?? []) as Record<string, unknown>[];
  const podIP = str(podIPs[0]?.ip) || "<none>";
  const nodeName = str(spec.nodeName) || "<none>";
  const nominated = str(status.nominatedNodeName) || "<none>";
  const gates = (spec.readinessGates ?? []) as Record<string, unknown>[];
  let readinessGates = "<none>";
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c.type === gate.conditionType);
      if (condition?.status === "True") trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  return [
    pod.metadata.name,
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsText,
    since(pod.metadata.creationTimestamp, now),
    podIP,
    nodeName,
    nominated,
    readinessGates,
  ];
}

function serviceCells(svc: KubeObject, now: number): unknown[] {
  const spec = asRecord(svc.spec);
  // Upstream's defaulting always sets type and clusterIPs; a bare stored Service reads as ClusterIP.
  const type = str(spec.type) || "ClusterIP";
  const clusterIPs = (spec.clusterIPs ?? []) as string[];
  const internalIP = clusterIPs[0] ?? (str(spec.clusterIP) || "<none>");
  const externalIPs = (spec.externalIPs ?? []) as string[];
  let externalIP: string;
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      externalIP = externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
      break;
    case "LoadBalancer": {
      const ingress = (asRecord(asRecord(svc.status).loadBalancer).ingress ?? []) as Record<
        string,
        unknown
      >[];
      const lb = [...new Set(ingress.map((i) => str(i.ip) || str(i.hostname)).filter((s) => s))];
      const all = [...lb, ...externalIPs];
      externalIP = all.length > 0 ? all.join(",") : "<pending>";
      break;
    }
    case "ExternalName":
      externalIP = str(spec.externalName);
      break;
    default:
      externalIP = "<unknown>";
  }
  const ports = ((spec.ports ?? []) as Record<string, unknown>[]).map((p) => {
    const protocol = str(p.protocol) || "TCP";
    return int(p.nodePort) > 0
      ? `${int(p.port)}:${int(p.nodePort)}/${protocol}`
      : `${int(p.port)}/${protocol}`;
  });
  return [
    svc.metadata.name,
    type,
    internalIP,
    externalIP,
    ports.length > 0 ? ports.join(",") : "<none>",
    since(svc.metadata.creationTimestamp, now),
    formatLabels(spec.selector as Record<string, string> | undefined),
  ];
}

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
    str(addresses.find((a) => a.type === type)?.address) || "<none>";
  return [
    node.metadata.name,
    states.join(","),
    roles.size > 0 ? [...roles].sort().join(",") : "<none>",
    since(node.metadata.creationTimestamp, now),
    str(info.kubeletVersion),
    address("InternalIP"),
    address("ExternalIP"),
    str(info.osImage) || "<unknown>",
    str(info.kernelVersion) || "<unknown>",
    str(info.containerRuntimeVersion) || "<unknown>",
  ];
}

function eventCells(event: KubeObject, now: number): unknown[] {
  const e = event as unknown as Record<string, unknown>;
  let first = since(e.firstTimestamp, now);
  if (!hasTime(e.firstTimestamp)) first = since(e.eventTime, now);
  let last = since(e.lastTimestamp, now);
  if (!hasTime(e.lastTimestamp)) last = first;
  let count = int(e.count);
  const series = e.series ? asRecord(e.series) : undefined;
  if (series) {
    last = since(series.lastObservedTime, now);
    count = int(series.count);
  } else if (count === 0) {
    // Singleton events of the events.k8s.io API carry no count.
    count = 1;
  }
  const involved = asRecord(e.involvedObject);
  const kind = str(involved.kind).toLowerCase();
  const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
  const source = asRecord(e.source);
  const component = str(source.component) || str(e.reportingComponent);
  const instance = str(source.host) || str(e.reportingInstance);
  return [
    last,
    str(e.type),
    str(e.reason),
    target,
    str(involved.fieldPath),
    instance ? `${component}, ${instance}` : component,
    str(e.message).trim(),
    first,
    count,
    event.metadata.name,
  ];
}

// ---------------------------------------------------------------------------------------------
// The Table

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  switch (include) {
    case "None":
      return undefined;
    case "Object":
      return obj;
    default:
      return {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: obj.metadata,
      };
  }
}

/**
 * A meta.k8s.io/v1 Table of objects of one kind, with upstream's columns (all of them: kubectl
 * hides priority > 0 unless `-o wide`) and rows carrying the object as `includeObject` asks.
 */
export function toTable(
  kind: string,
  objects: readonly KubeObject[],
  options: TableOptions = {},
): Table {
  const printer = PRINTERS[kind] ?? DEFAULT_PRINTER;
  const now = options.now ?? Date.now();
  const include = options.includeObject ?? "Metadata";
  const rows: TableRow[] = [];
  for (const obj of objects) {
    const row: TableRow = { cells: printer.cells(obj, now) };
    const conditions = printer.conditions?.(obj);
    if (conditions) row.conditions = conditions;
    const object = rowObject(obj, include);
    if (object !== undefined) row.object = object;
    rows.push(row);
  }
  const metadata: Table["metadata"] = {};
  const listMeta = options.listMeta;
  if (listMeta) {
    if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
    if (listMeta.continue) metadata.continue = listMeta.continue;
    if (listMeta.remainingItemCount !== undefined)
      metadata.remainingItemCount = listMeta.remainingItemCount;
  } else if (objects.length === 1 && objects[0]!.metadata.resourceVersion) {
    metadata.resourceVersion = objects[0]!.metadata.resourceVersion;
  }
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: printer.columns,
    rows,
  };
}
