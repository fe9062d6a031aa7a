// ControllerRevisions of DaemonSets and StatefulSets on the fake clock: one per distinct pod
// template, named `<owner>-<hash>` with the pods' controller-revision-hash, its `data` the patch
// `kubectl rollout undo` sends back; a template returned to is renumbered max + 1; old ones
// beyond revisionHistoryLimit are deleted (never one a pod still runs); the garbage collector
// deletes them with their owner.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { deleteFromStore } from "../../src/registry/delete.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, scenario, statefulSet, T0 } from "./builders.js";

type Json = Record<string, unknown>;

function newCluster(): EmbeddedCluster {
  return new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
}

function withImage(object: KubeObject, image: string, revisionHistoryLimit?: number): KubeObject {
  const spec = object.spec as { template: { spec: { containers: Json[] } } };
  return {
    ...object,
    spec: {
      ...spec,
      ...(revisionHistoryLimit !== undefined ? { revisionHistoryLimit } : {}),
      template: {
        ...spec.template,
        spec: {
          ...spec.template.spec,
          containers: [{ ...spec.template.spec.containers[0], image }],
        },
      },
    },
  };
}

function daemonSet(image = "fluentd:1.16"): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent", namespace: "default", annotations: { team: "ops" } },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "agent", image }] },
      },
    },
  };
}

/** Replaces the owner's spec as a client's update would. */
function update(c: EmbeddedCluster, next: KubeObject): void {
  const current = c.store.get(next.kind, "default", next.metadata.name)!;
  c.update({ ...next, metadata: { ...current.metadata, resourceVersion: undefined } });
}

/** Each revision: its name, revision number and the image in its data. */
function revisions(c: EmbeddedCluster): [string, number, unknown][] {
  return c.store
    .list("ControllerRevision", "default")
    .map((r) => {
      const template = (r.data as { spec: { template: { spec: { containers: Json[] } } } }).spec
        .template;
      return [r.metadata.name, r.revision as number, template.spec.containers[0]!.image] as [
        string,
        number,
        unknown,
      ];
    })
    .sort((a, b) => a[1] - b[1]);
}

const hashOf = (c: EmbeddedCluster, kind: string, name: string) => {
  const pods = c.store
    .list("Pod", "default")
    .filter((p) => p.metadata.ownerReferences?.[0]?.name === name && !p.metadata.deletionTimestamp);
  const label = pods[0]!.metadata.labels!["controller-revision-hash"]!;
  return kind === "StatefulSet" ? label.slice(name.length + 1) : label;
};

const CASES = [
  {
    kind: "DaemonSet",
    name: "agent",
    make: daemonSet,
    images: ["fluentd:1.16", "fluentd:1.17", "fluentd:1.18"],
  },
  {
    kind: "StatefulSet",
    name: "db",
    make: (image = "postgres:16") => withImage(statefulSet(), image),
    images: ["postgres:16", "postgres:17", "postgres:18"],
  },
] as const;

for (const { kind, name, make, images } of CASES) {
  describe(`${kind}: ControllerRevisions`, () => {
    it("one per template, named with the pods' hash, with upstream's data, labels and owner", () => {
      const c = newCluster();
      c.create(make(images[0]));
      const [revision, ...more] = c.store.list("ControllerRevision", "default");
      assert.ok(revision);
      assert.equal(more.length, 0);
      const hash = hashOf(c, kind, name);
      const owner = c.store.get(kind, "default", name)!;
      assert.equal(revision.metadata.name, `${name}-${hash}`);
      assert.equal(revision.revision, 1);
      assert.deepEqual(revision.metadata.labels, { app: name, "controller-revision-hash": hash });
      assert.deepEqual(revision.metadata.ownerReferences, [
        {
          apiVersion: "apps/v1",
          kind,
          name,
          uid: owner.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // The owner's annotations, as both controllers copy them.
      assert.deepEqual(revision.metadata.annotations, owner.metadata.annotations);
      const template = (owner.spec as { template: Json }).template as {
        metadata: Json;
        spec: Json;
      };
      const data = revision.data as { spec: { template: Json } };
      assert.deepEqual(Object.keys(data.spec.template), ["$patch", "metadata", "spec"]);
      assert.deepEqual(data, {
        spec: {
          template: {
            $patch: "replace",
            metadata: { creationTimestamp: null, ...template.metadata },
            spec: template.spec,
          },
        },
      });
      if (kind === "StatefulSet") {
        const status = owner.status as Json;
        assert.equal(status.currentRevision, revision.metadata.name);
        assert.equal(status.updateRevision, revision.metadata.name);
      }
    });

    it("a new template is max + 1; returning to an old one renumbers it max + 1", () => {
      const c = newCluster();
      c.create(make(images[0]));
      const first = `${name}-${hashOf(c, kind, name)}`;
      c.advanceTo(at(30));
      update(c, make(images[1]));
      c.advanceTo(at(60));
      const second = `${name}-${hashOf(c, kind, name)}`;
      assert.deepEqual(revisions(c), [
        [first, 1, images[0]],
        [second, 2, images[1]],
      ]);
      update(c, make(images[0]));
      c.advanceTo(at(90));
      assert.equal(`${name}-${hashOf(c, kind, name)}`, first);
      assert.deepEqual(revisions(c), [
        [second, 2, images[1]],
        [first, 3, images[0]],
      ]);
      // Sent again, the same template changes nothing.
      update(c, make(images[0]));
      assert.deepEqual(revisions(c), [
        [second, 2, images[1]],
        [first, 3, images[0]],
      ]);
    });

    it("old revisions beyond revisionHistoryLimit go, lowest first", () => {
      const c = newCluster();
      c.create(withImage(make(images[0]), images[0], 1));
      for (const [i, image] of images.slice(1).entries()) {
        c.advanceTo(at(30 * (i + 1)));
        update(c, withImage(make(image), image, 1));
      }
      c.advanceTo(at(120));
      // The pods run the newest template: one old revision is kept, the oldest went.
      assert.deepEqual(
        revisions(c).map(([, n, image]) => [n, image]),
        [
          [2, images[1]],
          [3, images[2]],
        ],
      );
      update(c, withImage(make(images[2]), images[2], 0));
      assert.deepEqual(
        revisions(c).map(([, n, image]) => [n, image]),
        [[3, images[2]]],
      );
    });

    it("the garbage collector deletes them with their owner", () => {
      const c = newCluster();
      c.create(make(images[0]));
      c.advanceTo(at(30));
      update(c, make(images[1]));
      c.advanceTo(at(60));
      assert.equal(c.store.list("ControllerRevision", "default").length, 2);
      const owner = c.store.get(kind, "default", name)!;
      deleteFromStore(
        c.store,
        owner,
        { propagationPolicy: "Background" },
        c.now,
        "DeleteDependents",
      );
      c.reconcile();
      c.advanceTo(at(120));
      assert.deepEqual(c.store.list("ControllerRevision", "default"), []);
    });
  });
}

describe("ControllerRevisions and live pods", () => {
  it("a DaemonSet keeps a revision a pod still runs (OnDelete), beyond the limit", () => {
    const c = newCluster();
    const onDelete = (image: string) => {
      const ds = withImage(daemonSet(image), image, 0);
      return { ...ds, spec: { ...(ds.spec as Json), updateStrategy: { type: "OnDelete" } } };
    };
    c.create(onDelete("fluentd:1.16"));
    const first = `agent-${hashOf(c, "DaemonSet", "agent")}`;
    c.advanceTo(at(30));
    update(c, onDelete("fluentd:1.17"));
    c.advanceTo(at(60));
    // The pod still runs the first template: its revision stays.
    assert.deepEqual(
      revisions(c).map(([n, r]) => [n, r]),
      [
        [first, 1],
        [revisions(c)[1]![0], 2],
      ],
    );
  });
});
