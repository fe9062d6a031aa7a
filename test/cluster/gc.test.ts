// The garbage collector and the namespace controller over a store: what survives a deletion is
// exactly what still has a live owner (a fast-check property). They delete through the
// registry's delete (test/apiserver/registry-delete.test.ts has its decision tables).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { GarbageCollector, namespaceConditions } from "../../src/cluster/gc.js";
import { deleteFromStore } from "../../src/registry/delete.js";
import { ObjectStore } from "../../src/registry/store.js";
import { at, object, T0 } from "./builders.js";

describe("namespaces", () => {
  test("namespaceConditions: remaining content and finalizers, sorted; times kept while the status stays", () => {
    const first = namespaceConditions(
      [],
      {
        byResource: new Map([
          ["pods.", 2],
          ["deployments.apps", 1],
        ]),
        byFinalizer: new Map([["example.com/x", 1]]),
      },
      at(1),
    );
    assert.deepEqual(
      first.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        [
          "NamespaceDeletionDiscoveryFailure",
          "False",
          "ResourcesDiscovered",
          "All resources successfully discovered",
        ],
        [
          "NamespaceDeletionGroupVersionParsingFailure",
          "False",
          "ParsedGroupVersions",
          "All legacy kube types successfully parsed",
        ],
        [
          "NamespaceDeletionContentFailure",
          "False",
          "ContentDeleted",
          "All content successfully deleted, may be waiting on finalization",
        ],
        [
          "NamespaceContentRemaining",
          "True",
          "SomeResourcesRemain",
          "Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances",
        ],
        [
          "NamespaceFinalizersRemaining",
          "True",
          "SomeFinalizerRemain",
          "Some finalizers are remaining: example.com/x in 1 resource instances",
        ],
      ],
    );
    const later = namespaceConditions(
      first,
      { byResource: new Map(), byFinalizer: new Map() },
      at(9),
    );
    assert.equal(
      later[0]!.lastTransitionTime,
      "2026-01-01T12:00:01Z",
      "unchanged status keeps its time",
    );
    assert.equal(later[3]!.status, "False");
    assert.equal(later[3]!.lastTransitionTime, "2026-01-01T12:00:09Z");
  });
});

describe("GarbageCollector over a store", () => {
  function gcStore() {
    let now = T0;
    const store = new ObjectStore({ now: () => now });
    const gc = new GarbageCollector({ store, now: () => now });
    return { store, gc, tick: (ms: number) => (now += ms) };
  }

  test("the orphan finalizer: dependents keep living without the reference, then the owner goes", () => {
    const { store, gc } = gcStore();
    const owner = store.create(object("Service", "owner", { uid: undefined }));
    store.create(
      object("Service", "dep", {
        uid: undefined,
        ownerReferences: [
          { apiVersion: "v1", kind: "Service", name: "owner", uid: owner.metadata.uid! },
        ],
      }),
    );
    gc.process();
    deleteFromStore(store, owner, { propagationPolicy: "Orphan" }, T0, "None");
    assert.ok(store.get("Service", "default", "owner")?.metadata.deletionTimestamp);
    gc.process();
    assert.equal(store.get("Service", "default", "owner"), undefined);
    assert.equal(store.get("Service", "default", "dep")?.metadata.ownerReferences, undefined);
  });

  test("a restarted store resumes the work of the marks it holds (a full resync at start)", () => {
    let now = T0;
    const before = new ObjectStore({ now: () => now });
    const owner = before.create(object("Service", "owner", { uid: undefined }));
    before.create(
      object("Service", "dep", {
        uid: undefined,
        ownerReferences: [
          { apiVersion: "v1", kind: "Service", name: "owner", uid: owner.metadata.uid! },
        ],
      }),
    );
    // Marked (orphan finalizer) with no collector running, as if the server stopped here.
    deleteFromStore(before, owner, { propagationPolicy: "Orphan" }, now, "None");
    const restarted = new ObjectStore({
      now: () => now,
      initial: { resourceVersion: Number(before.resourceVersion()), objects: before.objects() },
    });
    now += 1000;
    const gc = new GarbageCollector({ store: restarted, now: () => now });
    assert.equal(gc.pending, true);
    gc.process();
    assert.equal(restarted.get("Service", "default", "owner"), undefined);
    assert.equal(restarted.get("Service", "default", "dep")?.metadata.ownerReferences, undefined);
  });

  test("an owner of an unknown kind keeps its dependents (it cannot be looked up)", () => {
    const { store, gc } = gcStore();
    store.create(
      object("Service", "dep", {
        uid: undefined,
        ownerReferences: [{ apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "w1" }],
      }),
    );
    gc.process();
    assert.ok(store.get("Service", "default", "dep"));
  });

  // Objects 0..n-1; each may reference earlier ones (a DAG). A random subset is deleted in the
  // background; what remains is what keeps a live owner (or never had one), transitively.
  test("property: after a background delete, exactly the objects with a live owner remain", () => {
    const graph = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.record({
        owners: fc.tuple(
          ...Array.from({ length: n }, (_, i) =>
            fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, i - 1) }), {
              maxLength: i === 0 ? 0 : Math.min(i, 3),
            }),
          ),
        ),
        deleted: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1 }),
      }),
    );
    fc.assert(
      fc.property(graph, ({ owners, deleted }) => {
        const { store, gc } = gcStore();
        const uids: string[] = [];
        owners.forEach((refs, i) => {
          const created = store.create(
            object("Service", `s${i}`, {
              uid: undefined,
              ...(refs.length > 0
                ? {
                    ownerReferences: refs.map((j) => ({
                      apiVersion: "v1",
                      kind: "Service",
                      name: `s${j}`,
                      uid: uids[j]!,
                    })),
                  }
                : {}),
            }),
          );
          uids.push(created.metadata.uid!);
        });
        gc.process();
        for (const i of deleted) {
          const current = store.get("Service", "default", `s${i}`);
          if (current)
            deleteFromStore(store, current, { propagationPolicy: "Background" }, T0, "None");
        }
        gc.process();
        const alive: boolean[] = [];
        owners.forEach((refs, i) => {
          alive.push(!deleted.includes(i) && (refs.length === 0 || refs.some((j) => alive[j])));
        });
        owners.forEach((refs, i) => {
          const stored = store.get("Service", "default", `s${i}`);
          assert.equal(stored !== undefined, alive[i], `s${i}`);
          if (!stored) return;
          const kept = (stored.metadata.ownerReferences ?? []).map((r) => r.name).sort();
          assert.deepEqual(
            kept,
            refs
              .filter((j) => alive[j])
              .map((j) => `s${j}`)
              .sort(),
            `s${i} refs`,
          );
        });
      }),
      { numRuns: 200 },
    );
  });
});
