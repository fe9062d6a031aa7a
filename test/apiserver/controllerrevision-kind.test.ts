// apps/v1 ControllerRevision through the API handler: upstream's ValidateControllerRevision
// (data is mandatory, revision not negative; nothing stored on a 422), data immutable on update
// while the revision may change (a rollback renumbers it), and the Table cells of `kubectl get`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { controllerRevision } from "../../src/kinds/controllerrevision.js";
import { at, T0 } from "../cluster/builders.js";
import { handlerOverCluster } from "./handler-call.js";

const setup = handlerOverCluster;

const REVISIONS = "/apis/apps/v1/namespaces/default/controllerrevisions";
const revision = (fields: Record<string, unknown>) => ({
  apiVersion: "apps/v1",
  kind: "ControllerRevision",
  metadata: { name: "agent-abc" },
  ...fields,
});

const REFUSED = [
  {
    name: "no data",
    body: revision({ revision: 1 }),
    message: "data: Required value: data is mandatory",
  },
  {
    name: "a negative revision",
    body: revision({ data: {}, revision: -1 }),
    message: "revision: Invalid value: -1: must be greater than or equal to 0",
  },
];

describe("ControllerRevision", () => {
  for (const { name, body, message } of REFUSED) {
    it(`refuses ${name}`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", REVISIONS, body);
      assert.equal(res.status, 422);
      assert.ok(String(res.body.message).includes(message), res.body.message);
      assert.deepEqual(cluster.store.list("ControllerRevision", "default"), []);
    });
  }

  it("keeps its data; the revision may change", async () => {
    const { call } = setup();
    const created = await call("POST", REVISIONS, revision({ data: { a: 1 }, revision: 1 }));
    assert.equal(created.status, 201);
    const renumbered = await call("PUT", `${REVISIONS}/agent-abc`, {
      ...created.body,
      revision: 3,
    });
    assert.equal(renumbered.status, 200);
    assert.equal(renumbered.body.revision, 3);
    const changed = await call("PUT", `${REVISIONS}/agent-abc`, {
      ...renumbered.body,
      data: { a: 2 },
    });
    assert.equal(changed.status, 422);
    assert.ok(String(changed.body.message).includes("data: Invalid value"), changed.body.message);
    assert.ok(String(changed.body.message).includes("field is immutable"), changed.body.message);
  });

  it("prints NAME, CONTROLLER (kind.group/name of the controller), REVISION, AGE", () => {
    const printer = controllerRevision.printer;
    assert.deepEqual(
      printer.columns.map((c) => c.name),
      ["Name", "Controller", "Revision", "Age"],
    );
    const owned = {
      ...revision({ data: {}, revision: 2 }),
      metadata: {
        name: "agent-abc",
        creationTimestamp: new Date(T0).toISOString(),
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "DaemonSet", name: "agent", uid: "u", controller: true },
        ],
      },
    };
    assert.deepEqual(printer.cells(owned, at(90)), ["agent-abc", "daemonset.apps/agent", 2, "90s"]);
    const orphan = { ...owned, metadata: { ...owned.metadata, ownerReferences: [] } };
    assert.deepEqual(printer.cells(orphan, at(90))[1], "<none>");
  });
});
