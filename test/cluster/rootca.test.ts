// kube-controller-manager's root CA publisher: `kube-root-ca.crt` in every namespace that is not
// terminating, with the CA bundle alone and upstream's description; made again when deleted and
// put back when changed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { ROOT_CA_CONFIGMAP, startRootCaPublisher } from "../../src/cluster/controllers/rootca.js";
import { ObjectStore } from "../../src/registry/store.js";
import { T0 } from "./builders.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const namespace = (name: string, status?: unknown): KubeObject =>
  ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, status }) as KubeObject;
const dataOf = (store: ObjectStore, ns: string) =>
  (store.get("ConfigMap", ns, ROOT_CA_CONFIGMAP) as { data?: unknown } | undefined)?.data;
/** The publisher runs after the write that woke it: let its microtask run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("root CA publisher", () => {
  it("publishes the bundle in each namespace, now and as namespaces appear", async () => {
    const store = new ObjectStore({ now: () => T0 });
    store.create(namespace("default"));
    store.create(namespace("leaving", { phase: "Terminating" }));
    const stop = startRootCaPublisher(store, CA);
    assert.deepEqual(dataOf(store, "default"), { "ca.crt": CA });
    const published = store.get("ConfigMap", "default", ROOT_CA_CONFIGMAP)!;
    assert.match(
      published.metadata.annotations?.["kubernetes.io/description"] ?? "",
      /^Contains a CA bundle that can be used to verify the kube-apiserver/,
    );
    assert.equal(dataOf(store, "leaving"), undefined, "not in a terminating namespace");
    store.create(namespace("shop"));
    await settle();
    assert.deepEqual(dataOf(store, "shop"), { "ca.crt": CA });
    stop();
  });

  it("makes it again when deleted, and puts its data back when changed", async () => {
    const store = new ObjectStore({ now: () => T0 });
    store.create(namespace("default"));
    const stop = startRootCaPublisher(store, CA);
    store.delete("ConfigMap", "default", ROOT_CA_CONFIGMAP);
    await settle();
    assert.deepEqual(dataOf(store, "default"), { "ca.crt": CA });
    const current = store.get("ConfigMap", "default", ROOT_CA_CONFIGMAP)!;
    store.update({ ...current, data: { "ca.crt": "forged", extra: "x" } } as KubeObject);
    await settle();
    assert.deepEqual(dataOf(store, "default"), { "ca.crt": CA }, "the whole data is replaced");
    stop();
  });
});
