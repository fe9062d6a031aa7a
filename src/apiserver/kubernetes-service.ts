// kube-apiserver's bootstrap controller for the `kubernetes` Service (upstream
// pkg/controlplane/controller/kubernetesservice and the endpoint reconciler of
// pkg/controlplane/reconcilers): the Service `default/kubernetes` on the first address of the
// Service range, its Endpoints and its EndpointSlice naming the API server's address and port.
// Made at start, made again when deleted (every `intervalMs`, upstream's 10 s
// --endpoint-reconciler interval), and its ClusterIP proxied to the API server.

import type { KubeObject } from "../api/types.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { firstAddress } from "../cluster/ipam.js";

export const KUBERNETES_SERVICE_NAME = "kubernetes";
export const KUBERNETES_SERVICE_NAMESPACE = "default";
const SERVICE_PORT = 443;
const PORT_NAME = "https";

/** Upstream's default --endpoint-reconciler interval (EndpointInterval). */
export const DEFAULT_ENDPOINT_INTERVAL_MS = 10_000;

export interface KubernetesServiceOptions {
  cluster: EmbeddedCluster;
  /** The address pods (and the host) reach the API server at (upstream --advertise-address). */
  publicIP: string;
  /** The API server's secure port: the Service's targetPort and the endpoints' port. */
  port: number;
  /** How often the objects are checked and made again (default 10 s). */
  intervalMs?: number;
  /** Runs before each pass (`horizon up`: brings the cluster to the real clock). */
  beforePass?: () => void;
  /** A reconcile that failed (the Service's address is held by another, say). */
  onError?: (message: string) => void;
}

export class KubernetesServiceController {
  readonly #options: KubernetesServiceOptions;
  #timer: NodeJS.Timeout | null = null;
  /** Ports and type are put right once, at start, as upstream (not at every interval). */
  #started = false;
  #routed = "";

  constructor(options: KubernetesServiceOptions) {
    this.#options = options;
  }

  /** The Service's ClusterIP: the first address of --service-cidr, or null without a network. */
  get serviceIP(): string | null {
    const network = this.#options.cluster.network;
    return network ? firstAddress(network.serviceIps.cidr) : null;
  }

  /** Reconciles now, then every interval on the real clock. */
  start(): void {
    if (this.#timer) return;
    this.reconcile();
    this.#timer = setInterval(
      () => this.reconcile(),
      this.#options.intervalMs ?? DEFAULT_ENDPOINT_INTERVAL_MS,
    );
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One pass: the Service, then its Endpoints and EndpointSlice, then its route. */
  reconcile(): void {
    const serviceIP = this.serviceIP;
    if (serviceIP === null) return;
    try {
      this.#options.beforePass?.();
      const service = this.#reconcileService(serviceIP, !this.#started);
      this.#started = true;
      this.#reconcileEndpoints();
      this.#reconcileSlice();
      this.#route(service);
    } catch (error) {
      this.#options.onError?.(
        `unable to sync kubernetes service: ${(error as Error).message ?? String(error)}`,
      );
    }
  }

  #servicePorts(): Record<string, unknown>[] {
    return [
      { name: PORT_NAME, protocol: "TCP", port: SERVICE_PORT, targetPort: this.#options.port },
    ];
  }

  #reconcileService(serviceIP: string, atStart: boolean): KubeObject {
    const { cluster } = this.#options;
    const current = cluster.store.get(
      "Service",
      KUBERNETES_SERVICE_NAMESPACE,
      KUBERNETES_SERVICE_NAME,
    );
    if (current) {
      const spec = (current.spec ?? {}) as { type?: string; ports?: Record<string, unknown>[] };
      const ports = this.#servicePorts();
      const same =
        spec.type === "ClusterIP" &&
        spec.ports?.length === ports.length &&
        ports.every((want, i) =>
          ["name", "protocol", "port", "targetPort"].every((f) => spec.ports![i]![f] === want[f]),
        );
      // A restarted server on another port: the targetPort follows it.
      if (!atStart || same) return current;
      return cluster.update({ ...current, spec: { ...spec, type: "ClusterIP", ports } });
    }
    cluster.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: KUBERNETES_SERVICE_NAME,
        namespace: KUBERNETES_SERVICE_NAMESPACE,
        labels: { component: "apiserver", provider: "kubernetes" },
      },
      spec: {
        ports: this.#servicePorts(),
        clusterIP: serviceIP,
        ipFamilyPolicy: "SingleStack",
        sessionAffinity: "None",
        type: "ClusterIP",
      },
    });
    return cluster.store.get("Service", KUBERNETES_SERVICE_NAMESPACE, KUBERNETES_SERVICE_NAME)!;
  }

  /** Endpoints: one subset, this server's address; labelled so no slice mirrors it. */
  #reconcileEndpoints(): void {
    const { cluster, publicIP, port } = this.#options;
    const store = cluster.store;
    const labels = { "endpointslice.kubernetes.io/skip-mirror": "true" };
    const subsets = [
      {
        addresses: [{ ip: publicIP }],
        ports: [{ name: PORT_NAME, port, protocol: "TCP" }],
      },
    ];
    const current = store.get("Endpoints", KUBERNETES_SERVICE_NAMESPACE, KUBERNETES_SERVICE_NAME);
    if (!current) {
      store.create({
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: {
          name: KUBERNETES_SERVICE_NAME,
          namespace: KUBERNETES_SERVICE_NAMESPACE,
          labels,
        },
        subsets,
      });
    } else if (!sameJson(current.metadata.labels, labels) || !sameJson(current.subsets, subsets)) {
      store.update({ ...current, metadata: { ...current.metadata, labels }, subsets });
    }
  }

  /** The EndpointSlice `kubernetes`: labelled with the service name only (no managed-by). */
  #reconcileSlice(): void {
    const { cluster, publicIP, port } = this.#options;
    const store = cluster.store;
    const labels = { "kubernetes.io/service-name": KUBERNETES_SERVICE_NAME };
    const endpoints = [{ addresses: [publicIP], conditions: { ready: true } }];
    const ports = [{ name: PORT_NAME, port, protocol: "TCP" }];
    // Other slices naming this Service are not this server's: upstream deletes them.
    for (const slice of store.list("EndpointSlice", KUBERNETES_SERVICE_NAMESPACE)) {
      if (
        slice.metadata.labels?.["kubernetes.io/service-name"] === KUBERNETES_SERVICE_NAME &&
        (slice.metadata.name !== KUBERNETES_SERVICE_NAME ||
          (slice as { addressType?: string }).addressType !== "IPv4")
      ) {
        store.delete("EndpointSlice", KUBERNETES_SERVICE_NAMESPACE, slice.metadata.name);
      }
    }
    const current = store.get(
      "EndpointSlice",
      KUBERNETES_SERVICE_NAMESPACE,
      KUBERNETES_SERVICE_NAME,
    );
    if (!current) {
      store.create({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: KUBERNETES_SERVICE_NAME,
          namespace: KUBERNETES_SERVICE_NAMESPACE,
          labels,
        },
        addressType: "IPv4",
        endpoints,
        ports,
      });
    } else if (
      !sameJson(current.metadata.labels, labels) ||
      !sameJson(current.endpoints, endpoints) ||
      !sameJson(current.ports, ports)
    ) {
      store.update({
        ...current,
        metadata: { ...current.metadata, labels },
        addressType: "IPv4",
        endpoints,
        ports,
      });
    }
  }

  /** kube-proxy's part: the ClusterIP's https port forwards to the API server. */
  #route(service: KubeObject): void {
    const { cluster, publicIP, port } = this.#options;
    const clusterIP = (service.spec as { clusterIP?: string } | undefined)?.clusterIP ?? "";
    const key = `${KUBERNETES_SERVICE_NAMESPACE}/${KUBERNETES_SERVICE_NAME}`;
    const text = `${clusterIP}→${publicIP}:${port}`;
    if (clusterIP === "" || text === this.#routed) return;
    this.#routed = text;
    cluster.network?.routeService(key, {
      namespace: KUBERNETES_SERVICE_NAMESPACE,
      name: KUBERNETES_SERVICE_NAME,
      clusterIP,
      ports: [
        {
          name: PORT_NAME,
          port: SERVICE_PORT,
          protocol: "TCP",
          backends: [{ ip: publicIP, port, pod: "" }],
        },
      ],
    });
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
