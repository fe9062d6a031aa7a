// kube-apiserver's `kubernetes` Service bootstrap on a fake clock: the Service, its Endpoints
// and EndpointSlice as upstream makes them, made again after a delete, its address never given
// to another Service, and its ClusterIP routed to the API server.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { KubernetesServiceController } from "../../src/apiserver/kubernetes-service.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type { ServiceRouting } from "../../src/cluster/controllers/endpoints.js";
import { parseLoopbackCidr } from "../../src/cluster/ipam.js";
import type { PodNetwork } from "../../src/cluster/network.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

function cidr(text: string) {
  const parsed = parseLoopbackCidr(text, "--service-cidr");
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cidr;
}

class FakeNetwork implements PodNetwork {
  routing = new Map<string, ServiceRouting>();
  podStarted(): void {}
  podStopped(): void {}
  serviceRouting(key: string, routing: ServiceRouting | null): void {
    if (routing) this.routing.set(key, routing);
    else this.routing.delete(key);
  }
}

function setup() {
  const fake = new FakeNetwork();
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: T0,
    network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.66.0.0/24"), pods: fake },
  });
  const errors: string[] = [];
  const controller = new KubernetesServiceController({
    cluster,
    publicIP: "127.0.0.1",
    port: 6443,
    onError: (message) => errors.push(message),
  });
  const get = (kind: string) => cluster.store.get(kind, "default", "kubernetes");
  return { cluster, controller, fake, errors, get };
}

describe("the kubernetes Service", () => {
  test("made at start as kube-apiserver makes it", () => {
    const { controller, fake, errors, get } = setup();
    controller.reconcile();
    assert.deepEqual(errors, []);
    const service = get("Service")!;
    assert.deepEqual(service.metadata.labels, { component: "apiserver", provider: "kubernetes" });
    const spec = service.spec as Record<string, unknown>;
    assert.equal(spec.clusterIP, "127.66.0.1", "the first address of --service-cidr");
    assert.deepEqual(spec.clusterIPs, ["127.66.0.1"]);
    assert.equal(spec.type, "ClusterIP");
    assert.equal(spec.selector, undefined);
    assert.equal(spec.sessionAffinity, "None");
    assert.equal(spec.ipFamilyPolicy, "SingleStack");
    assert.deepEqual(spec.ipFamilies, ["IPv4"]);
    assert.deepEqual(spec.ports, [{ name: "https", protocol: "TCP", port: 443, targetPort: 6443 }]);

    const endpoints = get("Endpoints")!;
    assert.deepEqual(endpoints.metadata.labels, {
      "endpointslice.kubernetes.io/skip-mirror": "true",
    });
    assert.deepEqual(endpoints.subsets, [
      { addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: 6443, protocol: "TCP" }] },
    ]);

    const slice = get("EndpointSlice")!;
    assert.deepEqual(slice.metadata.labels, { "kubernetes.io/service-name": "kubernetes" });
    assert.equal(slice.addressType, "IPv4");
    assert.deepEqual(slice.endpoints, [{ addresses: ["127.0.0.1"], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: "https", port: 6443, protocol: "TCP" }]);

    const route = fake.routing.get("default/kubernetes")!;
    assert.equal(route.clusterIP, "127.66.0.1");
    assert.deepEqual(
      route.ports.map((p) => [p.port, p.backends.map((b) => `${b.ip}:${b.port}`)]),
      [[443, ["127.0.0.1:6443"]]],
    );
  });

  test("a second pass writes nothing", () => {
    const { cluster, controller } = setup();
    controller.reconcile();
    const rv = cluster.store.resourceVersion();
    controller.reconcile();
    assert.equal(cluster.store.resourceVersion(), rv);
  });

  test("made again after a delete, on the same address", () => {
    const { cluster, controller, get } = setup();
    controller.reconcile();
    const uid = get("Service")!.metadata.uid;
    cluster.store.delete("Service", "default", "kubernetes");
    cluster.store.delete("EndpointSlice", "default", "kubernetes");
    cluster.reconcile();
    assert.equal(get("Service"), undefined);
    assert.equal(get("Endpoints"), undefined, "the endpoints controller removed them");
    controller.reconcile();
    assert.notEqual(get("Service")!.metadata.uid, uid);
    assert.equal((get("Service")!.spec as { clusterIP: string }).clusterIP, "127.66.0.1");
    assert.ok(get("Endpoints"));
    assert.ok(get("EndpointSlice"));
  });

  test("a changed Endpoints or slice is put back", () => {
    const { cluster, controller, get } = setup();
    controller.reconcile();
    const endpoints = get("Endpoints")!;
    cluster.store.update({ ...endpoints, subsets: [] } as KubeObject);
    const slice = get("EndpointSlice")!;
    cluster.store.update({ ...slice, metadata: { ...slice.metadata, labels: {} } } as KubeObject);
    controller.reconcile();
    assert.equal((get("Endpoints")!.subsets as unknown[]).length, 1);
    assert.deepEqual(get("EndpointSlice")!.metadata.labels, {
      "kubernetes.io/service-name": "kubernetes",
    });
  });

  test("a restarted server on another port: the targetPort and endpoints follow it", () => {
    const { cluster, controller } = setup();
    controller.reconcile();
    const again = new KubernetesServiceController({ cluster, publicIP: "127.0.0.1", port: 7443 });
    again.reconcile();
    const spec = cluster.store.get("Service", "default", "kubernetes")!.spec as {
      ports: { targetPort: number }[];
    };
    assert.equal(spec.ports[0]!.targetPort, 7443);
    const slice = cluster.store.get("EndpointSlice", "default", "kubernetes")!;
    assert.deepEqual(slice.ports, [{ name: "https", port: 7443, protocol: "TCP" }]);
  });

  test("other Services never get the first address, before or after it exists", () => {
    const { cluster, controller } = setup();
    const make = (name: string) => {
      cluster.create({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "default" },
        spec: { selector: { app: name }, ports: [{ port: 80 }] },
      });
      return (cluster.store.get("Service", "default", name)!.spec as { clusterIP: string })
        .clusterIP;
    };
    assert.equal(make("early"), "127.66.0.2");
    controller.reconcile();
    assert.equal(make("late"), "127.66.0.3");
    cluster.store.delete("Service", "default", "kubernetes");
    assert.equal(make("meanwhile"), "127.66.0.4", "a freed first address is not handed out");
    controller.reconcile();
    assert.equal(
      (cluster.store.get("Service", "default", "kubernetes")!.spec as { clusterIP: string })
        .clusterIP,
      "127.66.0.1",
    );
  });
});
