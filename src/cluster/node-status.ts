// The node as a v1.34 kubelet reports it (upstream pkg/kubelet/nodestatus setters and
// kubelet_node_status.go; the node lease controller of component-helpers/apimachinery/lease):
// the Node object it registers (addresses, nodeInfo, capacity, the pressure conditions beside
// Ready, the kubelet endpoint), the status heartbeat every nodeStatusReportFrequency, and the
// Lease `kube-node-lease/<node>` renewed every quarter of its duration. `horizon up` runs it on
// the real clock; `horizon simulate` never does (no writes in virtual time).

import { readFileSync } from "node:fs";
import { release } from "node:os";
import { rfc3339, rfc3339Micro } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import type { ObjectStore } from "../registry/store.js";
import { NODE_INTERNAL_IP, NODE_LABELS, NODE_NAME } from "./kubelet.js";

/** The version the node's kubelet reports (the API server's /version says the same). */
export const KUBELET_VERSION = "v1.34.0";
/** Horizon's version: the container runtime is Horizon itself (`horizon://VERSION`). */
export const HORIZON_VERSION = "0.1.0";
/** kubelet's --port. */
export const KUBELET_PORT = 10250;
export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** kubelet's nodeStatusReportFrequency default. */
export const DEFAULT_NODE_STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;
/** kubelet's nodeLeaseDurationSeconds default (renewed every quarter of it: 10 s). */
export const DEFAULT_NODE_LEASE_DURATION_SECONDS = 40;

/** v1.NodeSystemInfo, in its Go field order. */
export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  /** Deprecated (KEP-4004): kubelet 1.33+ leaves it empty. */
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

/** PRETTY_NAME of os-release(5), as cAdvisor reads it for osImage. */
function osImage(): string {
  for (const path of ["/etc/os-release", "/usr/lib/os-release"]) {
    const text = readTrimmed(path);
    const match = /^PRETTY_NAME=(.*)$/m.exec(text);
    if (match) return match[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  return "Unknown";
}

let hostInfo: NodeSystemInfo | null = null;

/**
 * This machine as cAdvisor and the kubelet see it: os-release's PRETTY_NAME, `uname -r`, the
 * machine-id, the DMI product UUID (root only; else the machine-id as a UUID), the boot id. The
 * architecture is the node's `kubernetes.io/arch` label, so the two never disagree.
 */
export function hostSystemInfo(): NodeSystemInfo {
  if (hostInfo) return hostInfo;
  const machineID = readTrimmed("/etc/machine-id") || readTrimmed("/var/lib/dbus/machine-id");
  const uuidOf = (hex: string) =>
    /^[0-9a-f]{32}$/.test(hex)
      ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
      : "";
  hostInfo = {
    machineID,
    systemUUID: readTrimmed("/sys/class/dmi/id/product_uuid").toLowerCase() || uuidOf(machineID),
    bootID: readTrimmed("/proc/sys/kernel/random/boot_id"),
    kernelVersion: release(),
    osImage: osImage(),
    containerRuntimeVersion: `horizon://${HORIZON_VERSION}`,
    kubeletVersion: KUBELET_VERSION,
    kubeProxyVersion: "",
    operatingSystem: process.platform === "win32" ? "windows" : "linux",
    architecture: NODE_LABELS["kubernetes.io/arch"] ?? "amd64",
  };
  return hostInfo;
}

export interface NodeModel {
  /** Pods the node takes (the cluster model's capacityPods; kubelet's maxPods 110). */
  capacityPods: number;
  /** The node's pod range (`--pod-cidr`), when the cluster has a network. */
  podCidr?: string;
  info: NodeSystemInfo;
}

/** The kubelet's conditions, all healthy, heartbeat at `heartbeat`, unchanged since `since`. */
function conditions(heartbeat: string, since: string): Record<string, string>[] {
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: since,
    reason,
    message,
  });
  return [
    condition(
      "MemoryPressure",
      "False",
      "KubeletHasSufficientMemory",
      "kubelet has sufficient memory available",
    ),
    condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    condition(
      "PIDPressure",
      "False",
      "KubeletHasSufficientPID",
      "kubelet has sufficient PID available",
    ),
    condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
}

/** The Node's status at a heartbeat (`since`: when its conditions last changed). */
export function nodeStatus(model: NodeModel, heartbeatMs: number, sinceMs: number): unknown {
  const capacity = { cpu: "64", memory: "256Gi", pods: String(model.capacityPods) };
  return {
    capacity,
    allocatable: capacity,
    conditions: conditions(rfc3339(heartbeatMs), rfc3339(sinceMs)),
    addresses: [
      { type: "InternalIP", address: NODE_INTERNAL_IP },
      { type: "Hostname", address: NODE_NAME },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
    nodeInfo: { ...model.info },
  };
}

/** The Node the kubelet registers (metadata and spec; the store assigns uid and times). */
export function nodeObject(model: NodeModel, nowMs: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: NODE_NAME,
      labels: { ...NODE_LABELS },
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    },
    spec: model.podCidr ? { podCIDR: model.podCidr, podCIDRs: [model.podCidr] } : {},
    status: nodeStatus(model, nowMs, nowMs),
  };
}

export interface NodeStatusOptions {
  store: ObjectStore;
  model: NodeModel;
  /** Epoch ms (the real clock in `horizon up`; a fake in tests). */
  now: () => number;
  /** kubelet's nodeStatusReportFrequency: the heartbeat when nothing changed (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  /** kubelet's nodeLeaseDurationSeconds (default 40; renewed every quarter of it). */
  nodeLeaseDurationSeconds?: number;
  /** Runs before each pass (`horizon up`: brings the cluster to the real clock). */
  beforePass?: () => void;
  onError?: (message: string) => void;
}

/** The kubelet's node status manager and node lease controller, for the cluster's one node. */
export class NodeStatusReporter {
  readonly #options: NodeStatusOptions;
  readonly #reportMs: number;
  readonly #leaseSeconds: number;
  /** When the status was last written (null: not since start, so the first pass writes it). */
  #heartbeatAt: number | null = null;
  #renewedAt: number | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: NodeStatusOptions) {
    this.#options = options;
    this.#reportMs = options.nodeStatusReportFrequencyMs ?? DEFAULT_NODE_STATUS_REPORT_FREQUENCY_MS;
    this.#leaseSeconds = options.nodeLeaseDurationSeconds ?? DEFAULT_NODE_LEASE_DURATION_SECONDS;
  }

  /** The lease's renew interval: a quarter of its duration (upstream's 0.25 fraction). */
  get renewIntervalMs(): number {
    return this.#leaseSeconds * 250;
  }

  /** When the next write is due (epoch ms). */
  nextDue(): number {
    if (this.#heartbeatAt === null || this.#renewedAt === null) return this.#options.now();
    return Math.min(this.#heartbeatAt + this.#reportMs, this.#renewedAt + this.renewIntervalMs);
  }

  /** Registers the node and writes what is due: the status heartbeat, the lease renewal. */
  sync(): void {
    try {
      this.#options.beforePass?.();
      const now = this.#options.now();
      if (this.#heartbeatAt === null || now - this.#heartbeatAt >= this.#reportMs) {
        this.#heartbeat(now);
      }
      if (this.#renewedAt === null || now - this.#renewedAt >= this.renewIntervalMs) {
        this.#renew(now);
      }
    } catch (error) {
      this.#options.onError?.(`node status: ${(error as Error).message ?? String(error)}`);
    }
  }

  /** Syncs now and whenever the next write is due, on the real clock. */
  start(): void {
    if (this.#timer) return;
    const loop = () => {
      this.sync();
      this.#timer = setTimeout(loop, Math.max(0, this.nextDue() - this.#options.now()));
      this.#timer.unref();
    };
    loop();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #heartbeat(now: number): void {
    const { store, model } = this.#options;
    const current = store.get("Node", "", NODE_NAME);
    if (!current) {
      store.create(nodeObject(model, now));
    } else {
      // The conditions are as healthy as before: their transition time stays.
      const old = (current.status as { conditions?: { lastTransitionTime?: string }[] })
        ?.conditions?.[0]?.lastTransitionTime;
      const since = old ? Date.parse(old) : now;
      store.updateStatus("Node", "", NODE_NAME, nodeStatus(model, now, since));
    }
    this.#heartbeatAt = now;
  }

  #renew(now: number): void {
    const { store } = this.#options;
    const node = store.get("Node", "", NODE_NAME);
    if (!node) return;
    const spec = {
      holderIdentity: NODE_NAME,
      leaseDurationSeconds: this.#leaseSeconds,
      renewTime: rfc3339Micro(now),
    };
    // The kubelet makes its Node the owner, so the Lease goes with the Node.
    const ownerReferences = [
      { apiVersion: "v1", kind: "Node", name: NODE_NAME, uid: node.metadata.uid ?? "" },
    ];
    const current = store.get("Lease", NODE_LEASE_NAMESPACE, NODE_NAME);
    if (!current) {
      if (!store.get("Namespace", "", NODE_LEASE_NAMESPACE)) return;
      store.create({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: NODE_NAME, namespace: NODE_LEASE_NAMESPACE, ownerReferences },
        spec,
      });
    } else {
      store.update({
        ...current,
        metadata: { ...current.metadata, ownerReferences },
        spec: { ...(current.spec as object), ...spec },
      });
    }
    this.#renewedAt = now;
  }
}
