// The embedded cluster's network: pod IPs and Service ClusterIPs from their loopback ranges
// (ipam.ts), the endpoints controllers, and the `PodNetwork` port that `horizon up` binds to
// real sockets (network-http.ts: a listener per running pod, a proxy per ClusterIP). The
// model itself opens nothing: a test gives a fake port, or none, and steps a fake clock.

import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import type { ObjectStore, WatchEvent } from "../registry/store.js";
import { EndpointsController, type ServiceRouting } from "./controllers/endpoints.js";
import { type Cidr, IpAllocator } from "./ipam.js";
import { NODE_NAME } from "./kubelet.js";
import type { PodRecord } from "./model.js";

/** A running pod as the network serves it. */
export interface NetworkPod {
  /** namespace/name */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  ip: string;
  /** The containers' declared TCP ports. */
  ports: { container: string; name?: string; port: number }[];
  /** Requests/s one pod serves before it queues (the usage model's capacityRps); null: unlimited. */
  capacityRps: number | null;
}

/** What serves the cluster's traffic (sockets in `horizon up`; a fake in tests). */
export interface PodNetwork {
  /** The pod's containers started: serve its ports on its IP. */
  podStarted(pod: NetworkPod): void;
  /** The pod's containers stopped (it failed or left the store). */
  podStopped(key: string): void;
  /** A Service's ClusterIP routing changed; null: nothing to proxy any more. */
  serviceRouting(key: string, routing: ServiceRouting | null): void;
}

export interface NetworkOptions {
  podCidr: Cidr;
  serviceCidr: Cidr;
  /** Where traffic is served; none: addresses and Endpoints only. */
  pods?: PodNetwork;
}

interface ServiceSpecView {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
}

interface ContainerView {
  name?: string;
  ports?: { name?: string; containerPort?: number; protocol?: string }[];
}

export class ClusterNetwork {
  readonly podIps: IpAllocator;
  readonly serviceIps: IpAllocator;
  readonly endpoints: EndpointsController;
  readonly #store: ObjectStore;
  readonly #pods: PodNetwork | undefined;
  readonly #write: <T>(action: () => T) => T;
  readonly #now: () => number;
  readonly #started = new Set<string>();
  /** Warnings to write as Events at the next sync (a store listener must not write). */
  readonly #pendingEvents: { pod: string; message: string }[] = [];

  constructor(
    options: NetworkOptions,
    cluster: {
      store: ObjectStore;
      nameSeed(identity: string): number;
      now: () => number;
      write: <T>(action: () => T) => T;
    },
  ) {
    this.podIps = new IpAllocator(options.podCidr);
    this.serviceIps = new IpAllocator(options.serviceCidr, { keepFirst: true });
    this.#store = cluster.store;
    this.#pods = options.pods;
    this.#write = cluster.write;
    this.#now = cluster.now;
    // Addresses stored objects hold stay theirs (a restored cluster).
    for (const service of cluster.store.list("Service")) {
      for (const ip of clusterIPsOf(service)) this.serviceIps.reserve(ip);
    }
    this.endpoints = new EndpointsController({
      store: cluster.store,
      write: cluster.write,
      nameSeed: cluster.nameSeed,
      onRouting: (key, routing) => this.#pods?.serviceRouting(key, routing),
    });
  }

  /**
   * Routes a Service whose endpoints are not its pods' (the `kubernetes` Service, which the
   * API server keeps): its ClusterIP ports proxy to the given backends; null stops that.
   */
  routeService(key: string, routing: ServiceRouting | null): void {
    this.#pods?.serviceRouting(key, routing);
  }

  /** A pod bound to the node gets its address (the sandbox's IP). */
  assignPodIp(pod: PodRecord): void {
    if (pod.ip !== null) return;
    pod.ip = this.podIps.allocate();
  }

  /** A restored pod keeps the address its stored status shows. */
  restorePodIp(pod: PodRecord, object: KubeObject): void {
    const ip = (object.status as { podIP?: string } | undefined)?.podIP;
    if (ip && this.podIps.reserve(ip)) pod.ip = ip;
  }

  /** Every store event: the controllers' work, and the pods the network serves. */
  observe(event: WatchEvent): void {
    this.endpoints.observe(event);
    const object = event.object;
    if (object.kind === "Service" && event.type === "DELETED") {
      for (const ip of clusterIPsOf(object)) this.serviceIps.release(ip);
    }
  }

  /** Pod records the cluster changed: start or stop serving, free the address of a gone pod. */
  podChanged(pod: PodRecord): void {
    const serving =
      pod.ip !== null &&
      pod.runningAt !== null &&
      pod.stage !== "failed" &&
      pod.stage !== "succeeded" &&
      (pod.crashLoop === null || pod.crashLoop.backOffMs === null);
    const gone = pod.stage === "gone";
    if (serving && !gone && !this.#started.has(pod.key)) {
      this.#started.add(pod.key);
      this.#pods?.podStarted(networkPod(pod));
    } else if ((!serving || gone) && this.#started.delete(pod.key)) {
      this.#pods?.podStopped(pod.key);
    }
    if (gone && pod.ip !== null) {
      this.podIps.release(pod.ip);
      pod.ip = null;
    }
  }

  /** A pod's port could not be served (address in use): a Warning Event on the pod, as the kubelet's. */
  podFailed(podKey: string, message: string): void {
    this.#pendingEvents.push({ pod: podKey, message });
  }

  /** The controllers' writes (from the cluster's reconcile, never from a store listener). */
  sync(): void {
    this.endpoints.sync();
    for (const { pod, message } of this.#pendingEvents.splice(0)) this.#podEvent(pod, message);
  }

  get pending(): boolean {
    return this.endpoints.pending || this.#pendingEvents.length > 0;
  }

  #podEvent(podKey: string, message: string): void {
    const slash = podKey.indexOf("/");
    const namespace = podKey.slice(0, slash);
    const name = podKey.slice(slash + 1);
    const pod = this.#store.get("Pod", namespace, name);
    if (!pod) return;
    const now = this.#now();
    const time = rfc3339(now);
    let nanos = BigInt(now) * 1_000_000n;
    while (this.#store.get("Event", namespace, `${name}.${nanos.toString(16)}`)) nanos++;
    const container = (pod.spec as { containers?: ContainerView[] })?.containers?.[0]?.name;
    this.#write(() =>
      this.#store.create({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
        involvedObject: {
          kind: "Pod",
          namespace,
          name,
          uid: pod.metadata.uid,
          apiVersion: "v1",
          ...(container ? { fieldPath: `spec.containers{${container}}` } : {}),
        },
        reason: "Failed",
        message,
        source: { component: "kubelet", host: NODE_NAME },
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
        type: "Warning",
        eventTime: null,
        reportingComponent: "kubelet",
        reportingInstance: NODE_NAME,
      }),
    );
  }

  /**
   * The API server's part of a Service write (upstream's ClusterIP allocator in the service
   * REST storage): a ClusterIP-type Service without an address gets the lowest free one; an
   * asked-for address must be in the range and free; an update keeps the allocated address
   * when the client left it out, and may not change it.
   */
  prepareService(
    object: KubeObject,
    current: KubeObject | undefined,
  ): { ok: true; value: KubeObject } | { ok: false; errors: FieldError[] } {
    const spec = { ...((object.spec ?? {}) as ServiceSpecView) };
    const type = spec.type ?? "ClusterIP";
    if (type === "ExternalName") return { ok: true, value: object };
    const old = current ? ((current.spec ?? {}) as ServiceSpecView) : undefined;
    if (old?.clusterIP && !spec.clusterIP && !spec.clusterIPs?.length) {
      spec.clusterIP = old.clusterIP;
      spec.clusterIPs = old.clusterIPs ?? [old.clusterIP];
    }
    const asked = spec.clusterIP || spec.clusterIPs?.[0] || "";
    if (old?.clusterIP && asked !== old.clusterIP) {
      return {
        ok: false,
        errors: [
          {
            type: "FieldValueInvalid",
            field: "spec.clusterIPs[0]",
            badValue: asked,
            detail: "may not change once set",
          },
        ],
      };
    }
    if (!old?.clusterIP) {
      if (asked === "None") {
        spec.clusterIP = "None";
        spec.clusterIPs = ["None"];
      } else if (asked === "") {
        const ip = this.serviceIps.allocate();
        if (ip === null) {
          return {
            ok: false,
            errors: [
              {
                type: "FieldValueInvalid",
                field: "spec.clusterIPs",
                badValue: [],
                detail: `failed to allocate IP: range is full (--service-cidr ${this.serviceIps.cidr.text})`,
              },
            ],
          };
        }
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
      } else if (!this.serviceIps.reserve(asked)) {
        const detail = this.serviceIps.contains(asked)
          ? `failed to allocate IP ${asked}: provided IP is already allocated`
          : `failed to allocate IP ${asked}: the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${this.serviceIps.cidr.text}`;
        return {
          ok: false,
          errors: [
            { type: "FieldValueInvalid", field: "spec.clusterIPs", badValue: [asked], detail },
          ],
        };
      } else {
        spec.clusterIP = asked;
        spec.clusterIPs = [asked];
      }
    }
    spec.type = type;
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
    return { ok: true, value: { ...object, spec } };
  }

  /** An allocated address whose create did not happen (dry run, a later failure) is given back. */
  releaseServiceIp(object: KubeObject): void {
    for (const ip of clusterIPsOf(object)) this.serviceIps.release(ip);
  }
}

function clusterIPsOf(service: KubeObject): string[] {
  const spec = (service.spec ?? {}) as ServiceSpecView;
  const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
  return ips.filter((ip) => ip !== "None" && ip !== "");
}

function networkPod(pod: PodRecord): NetworkPod {
  const containers = ((pod.obj.spec as { containers?: ContainerView[] })?.containers ??
    []) as ContainerView[];
  const ports: NetworkPod["ports"] = [];
  for (const container of containers) {
    for (const p of container.ports ?? []) {
      if ((p.protocol ?? "TCP") !== "TCP" || typeof p.containerPort !== "number") continue;
      ports.push({
        container: container.name ?? "",
        ...(p.name ? { name: p.name } : {}),
        port: p.containerPort,
      });
    }
  }
  return {
    key: pod.key,
    namespace: pod.namespace,
    name: pod.name,
    uid: pod.obj.metadata.uid ?? "",
    ip: pod.ip!,
    ports,
    capacityRps: pod.usage.capacityRps,
  };
}
