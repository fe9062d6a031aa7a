import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../../src/api/types.js";
import { ObjectStore, StoreError, type WatchEvent } from "../../src/registry/store.js";
import { T0 } from "./builders.js";

function deploy(name: string, replicas = 1): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: { replicas },
  };
}

function endpointSlice(): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "web-abc", namespace: "default" },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.0.0.1"] }],
  } as KubeObject;
}

const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

function daemonSet(templateGeneration?: string): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: {
      name: "logs",
      namespace: "default",
      ...(templateGeneration ? { annotations: { [TEMPLATE_GENERATION]: templateGeneration } } : {}),
    },
    spec: { template: { spec: { image: "a" } } },
  };
}

function storeAt(now = T0) {
  return new ObjectStore({ now: () => now });
}

describe("ObjectStore", () => {
  test("create assigns uid, resourceVersion, creationTimestamp (second precision) and generation 1", () => {
    const store = storeAt(T0 + 1500);
    const created = store.create(deploy("web"));
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.metadata.creationTimestamp, "2026-01-01T12:00:01Z");
    assert.match(
      created.metadata.uid ?? "",
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(created.metadata.resourceVersion, store.resourceVersion());
    assert.equal(store.get("Deployment", "default", "web"), created);
  });

  test("each creation of a name gets its own uid, the same in every store making the same writes", () => {
    const uidsOf = (store: ObjectStore) => {
      const uids: string[] = [];
      for (let i = 0; i < 3; i++) {
        uids.push(store.create(deploy("web")).metadata.uid ?? "");
        // An update in between does not count as a creation.
        store.update(deploy("web", 2));
        store.delete("Deployment", "default", "web");
      }
      uids.push(store.create(deploy("other")).metadata.uid ?? "");
      return uids;
    };
    const first = uidsOf(storeAt());
    assert.equal(new Set(first).size, 4);
    assert.deepEqual(uidsOf(storeAt()), first);
    // A store loaded with the counts goes on from them, for a loaded name deleted later too.
    const loaded = new ObjectStore({
      now: () => T0,
      initial: {
        resourceVersion: 10,
        objects: [{ ...deploy("web"), metadata: { ...deploy("web").metadata, uid: first[1] } }],
        incarnations: [["Deployment/default/web", 2]],
      },
    });
    loaded.delete("Deployment", "default", "web");
    assert.equal(loaded.create(deploy("web")).metadata.uid, first[2]);
  });

  test("a second create of the same name is AlreadyExists with the API server's message", () => {
    const store = storeAt();
    store.create(deploy("web"));
    assert.throws(
      () => store.create(deploy("web")),
      (error: unknown) =>
        error instanceof StoreError &&
        error.reason === "AlreadyExists" &&
        error.code === 409 &&
        error.message === 'deployments.apps "web" already exists',
    );
  });

  test("resourceVersions increase with every write, across kinds", () => {
    const store = storeAt();
    const versions: number[] = [];
    versions.push(Number(store.create(deploy("a")).metadata.resourceVersion));
    versions.push(
      Number(
        store.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }).metadata
          .resourceVersion,
      ),
    );
    versions.push(Number(store.update(deploy("a", 2)).metadata.resourceVersion));
    versions.push(
      Number(
        store.updateStatus("Deployment", "default", "a", { replicas: 2 }).metadata.resourceVersion,
      ),
    );
    versions.push(Number(store.delete("Pod", "default", "p")!.metadata.resourceVersion));
    for (let i = 1; i < versions.length; i++)
      assert.ok(versions[i]! > versions[i - 1]!, `${versions}`);
  });

  test("update with a stale resourceVersion is a Conflict; without one it replaces", () => {
    const store = storeAt();
    const first = store.create(deploy("web"));
    store.update({ ...deploy("web", 2) });
    assert.throws(
      () => store.update({ ...deploy("web", 3), metadata: { ...first.metadata } }),
      (error: unknown) =>
        error instanceof StoreError &&
        error.reason === "Conflict" &&
        error.message ===
          'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.equal(
      (store.get("Deployment", "default", "web")!.spec as { replicas: number }).replicas,
      2,
    );
  });

  // Each kind keeps metadata.generation by its own upstream strategy (v1.34).
  const generationCases: {
    name: string;
    object: KubeObject;
    edit: (stored: KubeObject) => KubeObject;
    options?: { bumpGeneration?: boolean; throughStatus?: boolean };
    created: number | undefined;
    updated: number | undefined;
    /** A DaemonSet's annotation after create and after update. */
    templateGeneration?: [string, string];
  }[] = [
    {
      name: "Deployment: spec changed",
      object: deploy("web"),
      edit: (o) => ({ ...o, spec: { replicas: 5 } }),
      created: 1,
      updated: 2,
    },
    {
      name: "Deployment: only labels changed",
      object: deploy("web"),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: "b" } } }),
      created: 1,
      updated: 1,
    },
    {
      name: "Deployment: an equal spec in a new object",
      object: deploy("web"),
      edit: (o) => ({ ...o, spec: { replicas: 1 } }),
      created: 1,
      updated: 1,
    },
    {
      name: "Deployment: annotations changed (they are copied to its ReplicaSets)",
      object: deploy("web"),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: "b" } } }),
      created: 1,
      updated: 2,
    },
    {
      name: "Deployment: annotations changed through the status subresource",
      object: deploy("web"),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: "b" } } }),
      options: { throughStatus: true },
      created: 1,
      updated: 1,
    },
    {
      name: "Deployment: a deletion mark",
      object: deploy("web"),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, finalizers: ["f"] } }),
      options: { bumpGeneration: true },
      created: 1,
      updated: 2,
    },
    {
      name: "ReplicaSet: annotations changed",
      object: { ...deploy("rs"), kind: "ReplicaSet" },
      edit: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: "b" } } }),
      created: 1,
      updated: 1,
    },
    {
      name: "HorizontalPodAutoscaler: none in 1.34, even when its spec changes",
      object: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web", namespace: "default" },
        spec: { maxReplicas: 3 },
      },
      edit: (o) => ({ ...o, spec: { maxReplicas: 4 } }),
      created: undefined,
      updated: undefined,
    },
    {
      name: "ConfigMap: none, and a deletion mark adds none",
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c", namespace: "default" },
      },
      edit: (o) => ({ ...o, data: { a: "b" } }),
      options: { bumpGeneration: true },
      created: undefined,
      updated: undefined,
    },
    {
      name: "ConfigMap: created with one, it is kept; a deletion mark adds 1",
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c", namespace: "default", generation: 3 },
      },
      edit: (o) => ({ ...o, data: { a: "b" } }),
      options: { bumpGeneration: true },
      created: 3,
      updated: 4,
    },
    {
      name: "ConfigMap: created with one, an update keeps it",
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c", namespace: "default", generation: 3 },
      },
      edit: (o) => ({ ...o, data: { a: "b" } }),
      created: 3,
      updated: 3,
    },
    {
      name: "EndpointSlice: endpoints changed",
      object: endpointSlice(),
      edit: (o) => ({ ...o, endpoints: [{ addresses: ["10.0.0.2"] }] }),
      created: 1,
      updated: 2,
    },
    {
      name: "EndpointSlice: labels changed",
      object: endpointSlice(),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: "b" } } }),
      created: 1,
      updated: 2,
    },
    {
      name: "EndpointSlice: annotations changed",
      object: endpointSlice(),
      edit: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: "b" } } }),
      created: 1,
      updated: 1,
    },
    {
      name: "PriorityClass: set on create, never bumped",
      object: {
        apiVersion: "scheduling.k8s.io/v1",
        kind: "PriorityClass",
        metadata: { name: "high" },
        value: 10,
      },
      edit: (o) => ({ ...o, description: "changed" }),
      created: 1,
      updated: 1,
    },
    {
      name: "DaemonSet: the template changed (its template generation too)",
      object: daemonSet(),
      edit: (o) => ({ ...o, spec: { template: { spec: { image: "b" } } } }),
      created: 1,
      updated: 2,
      templateGeneration: ["1", "2"],
    },
    {
      name: "DaemonSet: another spec field changed (not its template generation)",
      object: daemonSet(),
      edit: (o) => ({ ...o, spec: { ...(o.spec as object), minReadySeconds: 5 } }),
      created: 1,
      updated: 2,
      templateGeneration: ["1", "1"],
    },
    {
      name: "DaemonSet: a client's template generation is taken on create, ignored on update",
      object: daemonSet("4"),
      edit: (o) => ({
        ...o,
        metadata: { ...o.metadata, annotations: { [TEMPLATE_GENERATION]: "9" } },
      }),
      created: 1,
      updated: 1,
      templateGeneration: ["4", "4"],
    },
    {
      name: "DaemonSet: a template change through the status subresource",
      object: daemonSet(),
      edit: (o) => ({ ...o, spec: { template: { spec: { image: "b" } } } }),
      options: { throughStatus: true },
      created: 1,
      updated: 1,
      templateGeneration: ["1", "1"],
    },
    {
      name: "ServiceMonitor (a custom resource): a top-level field changed",
      object: {
        apiVersion: "monitoring.coreos.com/v1",
        kind: "ServiceMonitor",
        metadata: { name: "m", namespace: "default" },
        spec: { endpoints: [] },
      },
      edit: (o) => ({ ...o, extra: 1 }) as KubeObject,
      created: 1,
      updated: 2,
    },
  ];
  for (const c of generationCases) {
    test(`generation: ${c.name}`, () => {
      const store = storeAt();
      const created = store.create(c.object);
      assert.equal(created.metadata.generation, c.created, "after create");
      const updated = store.update(c.edit(created), c.options);
      assert.equal(updated.metadata.generation, c.updated, "after update");
      assert.deepEqual(
        [created, updated].map((o) => o.metadata.annotations?.[TEMPLATE_GENERATION]),
        c.templateGeneration ?? [undefined, undefined],
      );
      assert.equal(updated.metadata.uid, created.metadata.uid);
      assert.equal(updated.metadata.creationTimestamp, created.metadata.creationTimestamp);
    });
  }

  test("updateStatus keeps spec and generation; NotFound for a missing object", () => {
    const store = storeAt();
    store.create(deploy("web", 3));
    const updated = store.updateStatus("Deployment", "default", "web", { replicas: 3 });
    assert.deepEqual(updated.spec, { replicas: 3 });
    assert.deepEqual(updated.status, { replicas: 3 });
    assert.equal(updated.metadata.generation, 1);
    assert.throws(
      () => store.updateStatus("HorizontalPodAutoscaler", "default", "nope", {}),
      (error: unknown) =>
        error instanceof StoreError &&
        error.code === 404 &&
        error.message === 'horizontalpodautoscalers.autoscaling "nope" not found',
    );
  });

  test("watchers see ADDED, MODIFIED and DELETED (with the final object) synchronously", () => {
    const store = storeAt();
    const seen: WatchEvent[] = [];
    const stop = store.watch((event) => seen.push(event));
    store.create(deploy("web"));
    store.updateStatus("Deployment", "default", "web", { replicas: 1 });
    const deleted = store.delete("Deployment", "default", "web");
    stop();
    store.create(deploy("other"));
    assert.deepEqual(
      seen.map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
    assert.deepEqual(seen[2]!.object.status, { replicas: 1 });
    assert.equal(seen[2]!.object, deleted);
    assert.equal(
      seen[2]!.object.metadata.resourceVersion,
      String(Number(seen[1]!.object.metadata.resourceVersion) + 1),
    );
    assert.equal(store.get("Deployment", "default", "web"), undefined);
  });

  test("list is sorted by namespace and name, and the same array until the kind changes", () => {
    const store = storeAt();
    store.create({ ...deploy("b"), metadata: { name: "b", namespace: "z" } });
    store.create(deploy("c"));
    store.create(deploy("a"));
    const all = store.list("Deployment");
    assert.deepEqual(
      all.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ["default/a", "default/c", "z/b"],
    );
    assert.equal(store.list("Deployment"), all);
    assert.deepEqual(
      store.list("Deployment", "default").map((o) => o.metadata.name),
      ["a", "c"],
    );
    store.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } });
    assert.equal(store.list("Deployment"), all, "another kind's write keeps the cache");
    store.delete("Deployment", "default", "a");
    assert.deepEqual(
      store.list("Deployment").map((o) => o.metadata.name),
      ["c", "b"],
    );
  });

  test("count is the number of a kind's stored objects over all namespaces", () => {
    const store = storeAt();
    assert.equal(store.count("Deployment"), 0);
    store.create(deploy("web"));
    store.create({ ...deploy("api"), metadata: { name: "api", namespace: "other" } });
    assert.equal(store.count("Deployment"), 2);
    store.delete("Deployment", "default", "web");
    assert.equal(store.count("Deployment"), 1);
    assert.equal(store.count("Pod"), 0);
  });

  test("changesSince replays the events after a resourceVersion", () => {
    const store = storeAt();
    const start = store.resourceVersion();
    store.create(deploy("a"));
    const middle = store.resourceVersion();
    store.create(deploy("b"));
    assert.deepEqual(
      (store.changesSince(start) as WatchEvent[]).map((e) => e.object.metadata.name),
      ["a", "b"],
    );
    assert.deepEqual(
      (store.changesSince(middle) as WatchEvent[]).map((e) => e.object.metadata.name),
      ["b"],
    );
    assert.equal(store.changesSince("x"), "Expired");
  });

  test("a store that keeps no history still notifies watchers, and expires every older resourceVersion", () => {
    const store = new ObjectStore({ now: () => T0, history: 0 });
    const events: string[] = [];
    store.watch((e) => events.push(`${e.type} ${e.object.metadata.name}`));
    const start = store.resourceVersion();
    store.create(deploy("a"));
    store.create(deploy("b"));
    assert.deepEqual(events, ["ADDED a", "ADDED b"]);
    assert.equal(store.changesSince(start), "Expired");
    assert.deepEqual(store.changesSince(store.resourceVersion()), []);
  });

  test("a store keeps the given number of changes, read back as equal objects", () => {
    const store = new ObjectStore({ now: () => T0, history: 2 });
    const start = store.resourceVersion();
    const a = store.create(deploy("a"));
    store.create(deploy("b"));
    const kept = store.changesSince(start) as WatchEvent[];
    assert.deepEqual(
      kept.map((e) => e.object.metadata.name),
      ["a", "b"],
    );
    assert.deepEqual(kept[0]!.object, a);
    store.create(deploy("c"));
    assert.equal(store.changesSince(start), "Expired");
    assert.deepEqual(
      (store.changesSince(a.metadata.resourceVersion!) as WatchEvent[]).map(
        (e) => e.object.metadata.name,
      ),
      ["b", "c"],
    );
  });

  test("kept changes are bounded in bytes too: a bigger object makes fewer changes kept", () => {
    const store = new ObjectStore({ now: () => T0, history: 100, historyBytes: 2000 });
    const start = store.resourceVersion();
    store.create(deploy("a"));
    store.create(deploy("b"));
    assert.equal((store.changesSince(start) as WatchEvent[]).length, 2);
    const big = { ...deploy("c"), spec: { replicas: 1, note: "x".repeat(1500) } };
    store.create(big);
    assert.equal(store.changesSince(start), "Expired");
    assert.equal((store.changesSince(String(Number(start) + 2)) as WatchEvent[]).length, 1);
  });

  test("an update or status write that changes nothing is not stored: old resourceVersion, no event, no journal", () => {
    const journaled: string[] = [];
    const store = new ObjectStore({
      now: () => T0,
      journal: (change) => journaled.push(`${change.type} ${change.rv}`),
    });
    const created = store.create({ ...deploy("web"), status: { replicas: 1 } });
    const events: WatchEvent[] = [];
    store.watch((event) => events.push(event));
    const rv = store.resourceVersion();
    // The object as read (with its resourceVersion), and as a client without one sends it.
    const same = store.update(created);
    assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(same, created);
    const again = store.update({
      ...created,
      metadata: { ...created.metadata, resourceVersion: undefined },
    });
    assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
    const status = store.updateStatus("Deployment", "default", "web", { replicas: 1 });
    assert.equal(status.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(store.resourceVersion(), rv);
    assert.equal(events.length, 0);
    assert.deepEqual(journaled, [`ADDED ${rv}`]);
    assert.deepEqual(store.changesSince(rv), []);
    // A real change is stored as before.
    const changed = store.update({
      ...created,
      metadata: { ...created.metadata, labels: { a: "b" } },
    });
    assert.equal(changed.metadata.resourceVersion, String(Number(rv) + 1));
    assert.equal(changed.metadata.generation, 1, "metadata only: same generation");
    assert.deepEqual(
      events.map((e) => e.type),
      ["MODIFIED"],
    );
    const bumped = store.updateStatus("Deployment", "default", "web", { replicas: 2 });
    assert.equal(bumped.metadata.resourceVersion, String(Number(rv) + 2));
  });

  test("property: every write's resourceVersion is larger than all before it", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom("create", "update", "status", "delete"),
            name: fc.constantFrom("a", "b", "c"),
          }),
          {
            maxLength: 40,
          },
        ),
        (ops) => {
          const store = storeAt();
          let last = Number(store.resourceVersion());
          for (const { op, name } of ops) {
            const before = store.get("Deployment", "default", name);
            const exists = before !== undefined;
            let written: KubeObject | undefined;
            if (op === "create" && !exists) written = store.create(deploy(name));
            else if (op === "update" && exists) written = store.update(deploy(name, 2));
            else if (op === "status" && exists)
              written = store.updateStatus("Deployment", "default", name, {});
            else if (op === "delete") written = store.delete("Deployment", "default", name);
            if (!written) continue;
            // An update or status write that changes nothing is not stored (no new version).
            if (written === before) continue;
            const rv = Number(written.metadata.resourceVersion);
            if (!(rv > last)) return false;
            last = rv;
          }
          return Number(store.resourceVersion()) === last;
        },
      ),
    );
  });
});

describe("listeners that throw", () => {
  const service = (name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
  });

  test("with an error handler: the write stands, every listener runs, the error is reported", () => {
    const store = new ObjectStore({ now: () => 0 });
    const seen: string[] = [];
    const reported: string[] = [];
    store.watch(() => {
      throw new Error("cannot handle it");
    });
    store.watch((event) => seen.push(event.object.metadata.name));
    store.onListenerError((error, event) =>
      reported.push(`${event.type} ${event.object.metadata.name}: ${(error as Error).message}`),
    );
    const created = store.create(service("a"));
    assert.equal(store.get("Service", "default", "a"), created);
    assert.deepEqual(seen, ["a"]);
    assert.deepEqual(reported, ["ADDED a: cannot handle it"]);
  });

  test("without one: the write throws after every listener ran", () => {
    const store = new ObjectStore({ now: () => 0 });
    const seen: string[] = [];
    store.watch(() => {
      throw new Error("cannot handle it");
    });
    store.watch((event) => seen.push(event.object.metadata.name));
    assert.throws(() => store.create(service("a")), /cannot handle it/);
    assert.deepEqual(seen, ["a"]);
  });
});
