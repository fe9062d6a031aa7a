// The endpoints and EndpointSlice controllers (upstream pkg/controller/endpoint and
// endpointslice): for every Service with a selector, the pods it selects that have an IP are
// written as an `Endpoints` object (Ready pods in `addresses`, the others in
// `notReadyAddresses`, terminating pods left out) and `EndpointSlice`s of at most 100
// endpoints each (every such pod, terminating ones included, with ready / serving /
// terminating conditions). They read the
// stored Pod objects, as upstream's controllers read the informer's, and write only what
// changed. The routing they compute (each Service port's Ready backends) goes to the pod
// network, which proxies the ClusterIP.
import type { KubeObject } from "../../api/types.js";
import { jsonEqual } from "../../core/json.js";
import { Random, randomSuffix } from "../../registry/random.js";
import type { ObjectStore, WatchEvent } from "../../registry/store.js";
import { ipToNumber } from "../ipam.js";
import { NODE_NAME } from "../kubelet.js";
import { serviceSelects } from "../load.js";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const MANAGED_BY = "endpointslice-controller.k8s.io";
/** kube-controller-manager's --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const HEADLESS_LABEL = "service.kubernetes.io/headless";

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
}

interface PodStatusView {
  podIP?: string;
  phase?: string;
  conditions?: { type?: string; status?: string }[];
}

interface ContainerPortView {
  name?: string;
  containerPort?: number;
  protocol?: string;
}

/** One address of a Service port: where the proxy sends a connection. */
export interface Backend {
  ip: string;
  port: number;
  /** namespace/name of the pod. */
  pod: string;
}

/** What the pod network needs to proxy a Service: its ClusterIP and each port's Ready backends. */
export interface ServiceRouting {
  namespace: string;
  name: string;
  clusterIP: string;
  ports: { name: string; port: number; protocol: string; backends: Backend[] }[];
}

interface Address {
  ip: string;
  nodeName: string;
  targetRef: { kind: "Pod"; namespace: string; name: string; uid: string };
}

/** A selected pod with an IP, as both controllers see it. */
interface Member {
  pod: KubeObject;
  ip: string;
  ready: boolean;
  terminating: boolean;
  /** Each Service port's target port on this pod, or null when a named port is not declared. */
  ports: (number | null)[];
}

function isReady(pod: KubeObject): boolean {
  const status = (pod.status ?? {}) as PodStatusView;
  return status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** The container port a Service port targets: a number as is, a name looked up in the pod. */
function targetPortOf(pod: KubeObject, port: ServicePort): number | null {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return target;
  if (/^\d+$/.test(target)) return Number(target);
  const containers = ((pod.spec as { containers?: { ports?: ContainerPortView[] }[] })
    ?.containers ?? []) as { ports?: ContainerPortView[] }[];
  for (const container of containers) {
    for (const p of container.ports ?? []) {
      if (p.name === target && (p.protocol ?? "TCP") === (port.protocol ?? "TCP"))
        return p.containerPort ?? null;
    }
  }
  return null;
}

function servicePorts(service: KubeObject): ServicePort[] {
  return ((service.spec as { ports?: ServicePort[] })?.ports ?? []) as ServicePort[];
}

function selectorOf(service: KubeObject): Record<string, string> | undefined {
  return (service.spec as { selector?: Record<string, string> })?.selector;
}

/** Whether the controllers manage this Service's endpoints (a selector, not ExternalName). */
export function managesEndpoints(service: KubeObject): boolean {
  const spec = (service.spec ?? {}) as { selector?: Record<string, string>; type?: string };
  return spec.type !== "ExternalName" && Object.keys(spec.selector ?? {}).length > 0;
}

/** The pods of the namespace the Service selects and that have an IP (upstream's ShouldPodBeInEndpoints). */
function membersOf(service: KubeObject, pods: readonly KubeObject[]): Member[] {
  const selector = selectorOf(service);
  const ports = servicePorts(service);
  const out: Member[] = [];
  for (const pod of pods) {
    if (!serviceSelects(selector, pod.metadata.labels ?? {})) continue;
    const status = (pod.status ?? {}) as PodStatusView;
    if (!status.podIP || status.phase === "Failed" || status.phase === "Succeeded") continue;
    out.push({
      pod,
      ip: status.podIP,
      ready: isReady(pod),
      terminating: pod.metadata.deletionTimestamp !== undefined,
      ports: ports.map((p) => targetPortOf(pod, p)),
    });
  }
  return out;
}

/** Addresses in numeric order (127.64.0.2 before 127.64.0.10). */
function byIp(a: { ip: string }, b: { ip: string }): number {
  return (ipToNumber(a.ip) ?? 0) - (ipToNumber(b.ip) ?? 0);
}

function addressOf(member: Member): Address {
  const { pod } = member;
  return {
    ip: member.ip,
    nodeName: NODE_NAME,
    targetRef: {
      kind: "Pod",
      namespace: pod.metadata.namespace ?? "default",
      name: pod.metadata.name,
      uid: pod.metadata.uid ?? "",
    },
  };
}

function portEntry(port: ServicePort, number: number): Record<string, unknown> {
  return {
    ...(port.name ? { name: port.name } : {}),
    port: number,
    protocol: port.protocol ?? "TCP",
  };
}

/**
 * The subsets of a Service's Endpoints: pods grouped by the ports they resolve to (upstream
 * repacks subsets the same way), Ready ones in `addresses`, the others in `notReadyAddresses`
 * (all in `addresses` with publishNotReadyAddresses); terminating pods are left out.
 */
export function endpointsSubsets(
  service: KubeObject,
  pods: readonly KubeObject[],
): Record<string, unknown>[] {
  const publishNotReady =
    (service.spec as { publishNotReadyAddresses?: boolean })?.publishNotReadyAddresses === true;
  const ports = servicePorts(service);
  const groups = new Map<
    string,
    { ports: Record<string, unknown>[]; addresses: Address[]; notReady: Address[] }
  >();
  for (const member of membersOf(service, pods)) {
    if (member.terminating && !publishNotReady) continue;
    const resolved: Record<string, unknown>[] = [];
    member.ports.forEach((number, i) => {
      if (number !== null) resolved.push(portEntry(ports[i]!, number));
    });
    if (ports.length > 0 && resolved.length === 0) continue;
    const key = JSON.stringify(resolved);
    let group = groups.get(key);
    if (!group) {
      group = { ports: resolved, addresses: [], notReady: [] };
      groups.set(key, group);
    }
    if (member.ready || publishNotReady) group.addresses.push(addressOf(member));
    else group.notReady.push(addressOf(member));
  }
  return [...groups.values()].map((g) => ({
    ...(g.addresses.length > 0 ? { addresses: g.addresses.sort(byIp) } : {}),
    ...(g.notReady.length > 0 ? { notReadyAddresses: g.notReady.sort(byIp) } : {}),
    ...(g.ports.length > 0 ? { ports: g.ports } : {}),
  }));
}

/**
 * The endpoints and ports of a Service's EndpointSlice: every selected pod with an IP,
 * terminating ones too, with upstream's conditions (ready: Ready and not terminating;
 * serving: Ready; terminating). The ports are those every pod resolves the same way
 * (upstream puts pods that resolve them differently in slices of their own; not done here).
 */
export function endpointSliceContent(
  service: KubeObject,
  pods: readonly KubeObject[],
): { endpoints: Record<string, unknown>[]; ports: Record<string, unknown>[] } {
  const ports = servicePorts(service);
  const members = membersOf(service, pods).sort(byIp);
  const publishNotReady =
    (service.spec as { publishNotReadyAddresses?: boolean })?.publishNotReadyAddresses === true;
  const endpoints = members.map((m) => {
    const address = addressOf(m);
    return {
      addresses: [m.ip],
      conditions: {
        ready: (m.ready || publishNotReady) && !m.terminating,
        serving: m.ready || publishNotReady,
        terminating: m.terminating,
      },
      nodeName: address.nodeName,
      targetRef: address.targetRef,
    };
  });
  const slicePorts: Record<string, unknown>[] = [];
  ports.forEach((port, i) => {
    const numbers = new Set(members.map((m) => m.ports[i]));
    const first = members[0]?.ports[i];
    const number =
      numbers.size === 1 && first !== null && first !== undefined
        ? first
        : typeof port.targetPort === "number"
          ? port.targetPort
          : typeof port.targetPort === "string"
            ? null
            : port.port;
    slicePorts.push({
      name: port.name ?? "",
      ...(number !== null ? { port: number } : {}),
      protocol: port.protocol ?? "TCP",
    });
  });
  return { endpoints, ports: slicePorts };
}

/** Each Service port's Ready, non-terminating backends (what kube-proxy programs). */
export function routingOf(service: KubeObject, pods: readonly KubeObject[]): ServiceRouting {
  const spec = (service.spec ?? {}) as { clusterIP?: string };
  const members = membersOf(service, pods)
    .filter((m) => m.ready && !m.terminating)
    .sort(byIp);
  return {
    namespace: service.metadata.namespace ?? "default",
    name: service.metadata.name,
    clusterIP: spec.clusterIP ?? "",
    ports: servicePorts(service).map((port, i) => ({
      name: port.name ?? "",
      port: port.port,
      protocol: port.protocol ?? "TCP",
      backends: members.flatMap((m) => {
        const number = m.ports[i];
        return number === null || number === undefined
          ? []
          : [
              {
                ip: m.ip,
                port: number,
                pod: `${m.pod.metadata.namespace ?? "default"}/${m.pod.metadata.name}`,
              },
            ];
      }),
    })),
  };
}

export interface EndpointsControllerOptions {
  store: ObjectStore;
  /** A write by the cluster itself (its store listener does not react to it). */
  write<T>(action: () => T): T;
  /** The seed of a generated-name stream (ClusterOptions.nameSeed). */
  nameSeed(identity: string): number;
  /** A Service's routing changed (null: the Service is gone or proxies nothing). */
  onRouting?: (key: string, routing: ServiceRouting | null) => void;
}

/**
 * Keeps Endpoints and EndpointSlices current. Store events mark Services dirty (a pod event:
 * every Service of its namespace); `sync` writes what changed. It never writes from a store
 * listener: the cluster calls `sync` from its reconcile loop.
 */
export class EndpointsController {
  readonly #options: EndpointsControllerOptions;
  readonly #dirtyNamespaces = new Set<string>();
  readonly #dirtyServices = new Set<string>();
  readonly #routing = new Map<string, string>();
  /** Inside one of this controller's own writes (their events make no work). */
  #writing = false;

  constructor(options: EndpointsControllerOptions) {
    this.#options = options;
    for (const service of options.store.list("Service")) {
      this.#dirtyServices.add(keyOf(service));
    }
  }

  get pending(): boolean {
    return this.#dirtyNamespaces.size > 0 || this.#dirtyServices.size > 0;
  }

  /**
   * Every store event: Pods and Services make work; so do, as upstream's controllers watch
   * them, a client's delete of Endpoints and any client write of a slice this controller manages
   * (it is put back as the Service's pods say).
   */
  observe(event: WatchEvent): void {
    const object = event.object;
    if (object.kind === "Pod") this.#dirtyNamespaces.add(object.metadata.namespace ?? "default");
    else if (object.kind === "Service") this.#dirtyServices.add(keyOf(object));
    else if (this.#writing) return;
    else if (object.kind === "Endpoints" && event.type === "DELETED") {
      this.#dirtyServices.add(keyOf(object));
    } else if (
      object.kind === "EndpointSlice" &&
      object.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY
    ) {
      const service = object.metadata.labels[SERVICE_NAME_LABEL];
      if (service) this.#dirtyServices.add(`${object.metadata.namespace ?? "default"}/${service}`);
    }
  }

  /** A write of this controller's, through the cluster's. */
  #write<T>(action: () => T): T {
    this.#writing = true;
    try {
      return this.#options.write(action);
    } finally {
      this.#writing = false;
    }
  }

  /** Writes the Endpoints and EndpointSlices of every dirty Service. */
  sync(): void {
    if (!this.pending) return;
    const store = this.#options.store;
    const keys = new Set(this.#dirtyServices);
    for (const namespace of this.#dirtyNamespaces) {
      for (const service of store.list("Service", namespace)) keys.add(keyOf(service));
    }
    this.#dirtyNamespaces.clear();
    this.#dirtyServices.clear();
    for (const key of [...keys].sort()) {
      const slash = key.indexOf("/");
      this.#syncService(key.slice(0, slash), key.slice(slash + 1));
    }
  }

  #syncService(namespace: string, name: string): void {
    const { store } = this.#options;
    const write = <T>(action: () => T) => this.#write(action);
    const service = store.get("Service", namespace, name);
    const slices = store
      .list("EndpointSlice", namespace)
      .filter(
        (s) =>
          s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
          s.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY,
      );
    if (!service || !managesEndpoints(service)) {
      // Upstream leaves the Endpoints of a selectorless Service to whoever writes them.
      if (!service && store.get("Endpoints", namespace, name))
        write(() => store.delete("Endpoints", namespace, name));
      for (const slice of slices)
        write(() => store.delete("EndpointSlice", namespace, slice.metadata.name));
      this.#setRouting(`${namespace}/${name}`, null);
      return;
    }
    const pods = store.list("Pod", namespace);
    this.#writeEndpoints(service, pods);
    this.#writeSlices(service, pods, slices);
    const routing = routingOf(service, pods);
    const proxied = routing.clusterIP !== "" && routing.clusterIP !== "None";
    this.#setRouting(`${namespace}/${name}`, proxied ? routing : null);
  }

  #setRouting(key: string, routing: ServiceRouting | null): void {
    const text = routing === null ? "" : JSON.stringify(routing);
    if ((this.#routing.get(key) ?? "") === text) return;
    if (routing === null) this.#routing.delete(key);
    else this.#routing.set(key, text);
    this.#options.onRouting?.(key, routing);
  }

  #labels(service: KubeObject, extra: Record<string, string>): Record<string, string> {
    const labels = { ...(service.metadata.labels ?? {}), ...extra };
    if ((service.spec as { clusterIP?: string })?.clusterIP === "None") labels[HEADLESS_LABEL] = "";
    return labels;
  }

  #writeEndpoints(service: KubeObject, pods: readonly KubeObject[]): void {
    const { store } = this.#options;
    const write = <T>(action: () => T) => this.#write(action);
    const namespace = service.metadata.namespace ?? "default";
    const name = service.metadata.name;
    const subsets = endpointsSubsets(service, pods);
    const labels = this.#labels(service, {});
    const current = store.get("Endpoints", namespace, name);
    const body: KubeObject = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: {
        name,
        namespace,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
      },
      ...(subsets.length > 0 ? { subsets } : {}),
    };
    if (!current) {
      write(() => store.create(body));
      return;
    }
    if (
      jsonEqual(current.subsets, body.subsets) &&
      jsonEqual(current.metadata.labels, body.metadata.labels)
    )
      return;
    write(() =>
      store.update({
        ...body,
        metadata: { ...current.metadata, resourceVersion: undefined, labels: body.metadata.labels },
      }),
    );
  }

  /**
   * The Service's EndpointSlices: its endpoints in IP order, at most MAX_ENDPOINTS_PER_SLICE
   * to a slice (one empty slice when there are none, as upstream keeps a placeholder). The
   * existing slices, by name, take the chunks in order; surplus ones are deleted.
   */
  #writeSlices(service: KubeObject, pods: readonly KubeObject[], slices: KubeObject[]): void {
    const { store } = this.#options;
    const write = <T>(action: () => T) => this.#write(action);
    const namespace = service.metadata.namespace ?? "default";
    const { endpoints, ports } = endpointSliceContent(service, pods);
    const chunks: Record<string, unknown>[][] = [];
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE) {
      chunks.push(endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE));
    }
    if (chunks.length === 0) chunks.push([]);
    const existing = [...slices].sort((x, y) => x.metadata.name.localeCompare(y.metadata.name));
    for (const slice of existing.slice(chunks.length))
      write(() => store.delete("EndpointSlice", namespace, slice.metadata.name));
    chunks.forEach((chunk, i) => {
      this.#writeSlice(service, existing[i], chunk, ports);
    });
  }

  #writeSlice(
    service: KubeObject,
    current: KubeObject | undefined,
    endpoints: Record<string, unknown>[],
    ports: Record<string, unknown>[],
  ): void {
    const { store } = this.#options;
    const write = <T>(action: () => T) => this.#write(action);
    const namespace = service.metadata.namespace ?? "default";
    const name = service.metadata.name;
    const labels = this.#labels(service, {
      [SERVICE_NAME_LABEL]: name,
      [MANAGED_BY_LABEL]: MANAGED_BY,
    });
    const content = { addressType: "IPv4", endpoints, ports };
    if (current) {
      const owned = current.metadata.ownerReferences?.[0]?.uid === service.metadata.uid;
      if (
        owned &&
        jsonEqual(current.endpoints, endpoints) &&
        jsonEqual(current.ports, ports) &&
        jsonEqual(current.metadata.labels, labels)
      )
        return;
      write(() =>
        store.update({
          ...current,
          ...content,
          metadata: {
            ...current.metadata,
            resourceVersion: undefined,
            labels,
            ownerReferences: [ownerRef(service)],
          },
        }),
      );
      return;
    }
    // generateName `<service>-`: a suffix from the cluster's name streams.
    const random = new Random(this.#options.nameSeed(`endpointslice/${namespace}/${name}`));
    let sliceName: string;
    do sliceName = `${name}-${randomSuffix(random)}`;
    while (store.get("EndpointSlice", namespace, sliceName));
    write(() =>
      store.create({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: sliceName,
          generateName: `${name}-`,
          namespace,
          labels,
          ownerReferences: [ownerRef(service)],
        },
        ...content,
      }),
    );
  }
}

function ownerRef(service: KubeObject) {
  return {
    apiVersion: "v1",
    kind: "Service",
    name: service.metadata.name,
    uid: service.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? "default"}/${object.metadata.name}`;
}
