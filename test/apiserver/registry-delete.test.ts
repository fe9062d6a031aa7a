// The registry's delete as decision tables (src/registry/: DeleteOptions, the delete
// planning and the namespace REST's delete); the garbage collector that deletes through them is
// test/cluster/gc.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import type { DefaultGcPolicy } from "../../src/kinds/types.js";
import {
  defaultGcPolicy,
  gcFinalizers,
  planDelete,
  podGracePeriodSeconds,
  shouldDeleteDuringUpdate,
} from "../../src/registry/delete.js";
import { type DeleteOptions, parseDeleteOptions } from "../../src/registry/deleteoptions.js";
import { carryDeletionFields, deletionUpdateErrors } from "../../src/registry/metadata.js";
import { markNamespace } from "../../src/registry/namespace.js";
import { at, object } from "../cluster/builders.js";

const runningPod = (meta: Partial<KubeObject["metadata"]> = {}, spec: object = {}) =>
  object("Pod", "p", meta, {
    spec: { nodeName: "horizon-node", ...spec },
    status: { phase: "Running" },
  });

describe("parseDeleteOptions", () => {
  const cases = [
    { name: "empty body, no query", body: "", query: "", want: {} },
    {
      name: "kubectl's body",
      body: '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground","gracePeriodSeconds":5}',
      query: "propagationPolicy=Orphan",
      want: { gracePeriodSeconds: 5, propagationPolicy: "Foreground" },
    },
    {
      name: "query parameters when the body is empty",
      body: "",
      query: "gracePeriodSeconds=0&propagationPolicy=Orphan&dryRun=All",
      want: { gracePeriodSeconds: 0, propagationPolicy: "Orphan", dryRun: ["All"] },
    },
    {
      name: "preconditions",
      body: '{"preconditions":{"uid":"u","resourceVersion":"7"}}',
      query: "",
      want: { preconditions: { uid: "u", resourceVersion: "7" } },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parseDeleteOptions(c.body, new URLSearchParams(c.query));
      assert.deepEqual(parsed, { ok: true, value: c.want });
    });
  }

  const errors = [
    {
      name: "a string grace period in the body",
      body: '{"gracePeriodSeconds":"5"}',
      query: "",
      reason: "BadRequest",
      text: "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64",
    },
    {
      name: "a bad grace period in the query",
      body: "",
      query: "gracePeriodSeconds=soon",
      reason: "BadRequest",
      text: 'strconv.ParseInt: parsing "soon": invalid syntax',
    },
    {
      name: "an unknown policy",
      body: "",
      query: "propagationPolicy=All",
      reason: "Invalid",
      text: 'propagationPolicy: Unsupported value: "All": supported values: "Foreground", "Background", "Orphan", "nil"',
    },
    {
      name: "an unknown dry-run mode",
      body: '{"dryRun":["Some"]}',
      query: "",
      reason: "Invalid",
      text: 'dryRun: Unsupported value: ["Some"]: supported values: "All"',
    },
  ];
  for (const c of errors) {
    test(`error: ${c.name}`, async () => {
      const { fieldErrorMessage } = await import("../../src/api/validation.js");
      const parsed = parseDeleteOptions(c.body, new URLSearchParams(c.query));
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.error.reason, c.reason);
      const text =
        parsed.error.reason === "BadRequest"
          ? parsed.error.message
          : parsed.error.errors.map(fieldErrorMessage).join("; ");
      assert.equal(text, c.text);
    });
  }
});

describe("defaultGcPolicy and gcFinalizers", () => {
  const policies = [
    {
      name: "apps/v1 Deployment",
      kind: "Deployment",
      apiVersion: "apps/v1",
      want: "DeleteDependents",
    },
    {
      name: "apps/v1beta2 ReplicaSet",
      kind: "ReplicaSet",
      apiVersion: "apps/v1beta2",
      want: "OrphanDependents",
    },
    {
      name: "v1 ReplicationController",
      kind: "ReplicationController",
      apiVersion: "v1",
      want: "OrphanDependents",
    },
    { name: "Pod", kind: "Pod", apiVersion: "v1", want: "None" },
  ];
  for (const c of policies) {
    test(`default policy: ${c.name}`, () => {
      assert.equal(defaultGcPolicy(c.kind, c.apiVersion), c.want);
    });
  }

  const cases: {
    name: string;
    finalizers: string[];
    options: DeleteOptions;
    policy: DefaultGcPolicy;
    want: string[] | null;
  }[] = [
    {
      name: "Background adds nothing",
      finalizers: [],
      options: { propagationPolicy: "Background" },
      policy: "None",
      want: null,
    },
    {
      name: "Orphan adds orphan",
      finalizers: ["a/b"],
      options: { propagationPolicy: "Orphan" },
      policy: "None",
      want: ["a/b", "orphan"],
    },
    {
      name: "Foreground replaces orphan",
      finalizers: ["orphan"],
      options: { propagationPolicy: "Foreground" },
      policy: "None",
      want: ["foregroundDeletion"],
    },
    {
      name: "Background removes orphan",
      finalizers: ["orphan", "x/y"],
      options: { propagationPolicy: "Background" },
      policy: "OrphanDependents",
      want: ["x/y"],
    },
    {
      name: "no policy: the kind's orphan default",
      finalizers: [],
      options: {},
      policy: "OrphanDependents",
      want: ["orphan"],
    },
    {
      name: "no policy: an existing finalizer wins over the default",
      finalizers: ["foregroundDeletion"],
      options: {},
      policy: "OrphanDependents",
      want: null,
    },
    {
      name: "orphanDependents: false removes orphan",
      finalizers: ["orphan"],
      options: { orphanDependents: false },
      policy: "None",
      want: [],
    },
  ];
  for (const c of cases) {
    test(`finalizers: ${c.name}`, () => {
      assert.deepEqual(gcFinalizers(c.finalizers, c.options, c.policy), c.want);
    });
  }
});

describe("podGracePeriodSeconds (the pod strategy's CheckGracefulDelete)", () => {
  const cases = [
    {
      name: "the pod's own period",
      pod: runningPod({}, { terminationGracePeriodSeconds: 7 }),
      options: {},
      want: 7,
    },
    { name: "30 s by default", pod: runningPod(), options: {}, want: 30 },
    {
      name: "the request's period wins",
      pod: runningPod({}, { terminationGracePeriodSeconds: 7 }),
      options: { gracePeriodSeconds: 2 },
      want: 2,
    },
    {
      name: "unscheduled: 0",
      pod: object("Pod", "p", {}, { spec: {} }),
      options: { gracePeriodSeconds: 9 },
      want: 0,
    },
    {
      name: "terminated: 0",
      pod: object("Pod", "p", {}, { spec: { nodeName: "n" }, status: { phase: "Succeeded" } }),
      options: {},
      want: 0,
    },
    { name: "negative: 1", pod: runningPod(), options: { gracePeriodSeconds: -5 }, want: 1 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(podGracePeriodSeconds(c.pod, c.options), c.want);
    });
  }
});

describe("planDelete (rest.BeforeDelete and the registry's delete)", () => {
  const now = at(10);
  const cases = [
    {
      name: "no finalizers, not graceful: deleted now",
      current: object("Service", "s"),
      options: {},
      want: { type: "deleteNow" },
    },
    {
      name: "a finalizer: marked now with grace 0, generation bumped",
      current: object("Service", "s", { finalizers: ["x/y"] }),
      options: {},
      want: {
        type: "mark",
        bumpGeneration: true,
        metadata: {
          deletionTimestamp: "2026-01-01T12:00:10Z",
          deletionGracePeriodSeconds: 0,
          finalizers: ["x/y"],
        },
      },
    },
    {
      name: "Orphan: the orphan finalizer holds it",
      current: object("Deployment", "d"),
      options: { propagationPolicy: "Orphan" },
      want: {
        type: "mark",
        bumpGeneration: true,
        metadata: {
          deletionTimestamp: "2026-01-01T12:00:10Z",
          deletionGracePeriodSeconds: 0,
          finalizers: ["orphan"],
        },
      },
    },
    {
      name: "already marked earlier: the timestamp stays",
      current: object("Service", "s", {
        finalizers: ["x/y"],
        deletionTimestamp: "2026-01-01T12:00:01Z",
        deletionGracePeriodSeconds: 0,
      }),
      options: {},
      want: {
        type: "mark",
        bumpGeneration: false,
        metadata: {
          deletionTimestamp: "2026-01-01T12:00:01Z",
          deletionGracePeriodSeconds: 0,
          finalizers: ["x/y"],
        },
      },
    },
    {
      name: "a running pod: deletionTimestamp = now + grace",
      current: runningPod(),
      options: { gracePeriodSeconds: 15 },
      want: {
        type: "mark",
        bumpGeneration: true,
        metadata: { deletionTimestamp: "2026-01-01T12:00:25Z", deletionGracePeriodSeconds: 15 },
      },
    },
    {
      name: "a running pod with grace 0: the zero mark is written, then the pod deleted",
      current: runningPod(),
      options: { gracePeriodSeconds: 0 },
      want: {
        type: "deleteNow",
        write: { deletionTimestamp: "2026-01-01T12:00:10Z", deletionGracePeriodSeconds: 0 },
      },
    },
    {
      name: "a terminating pod asked for a longer grace: pending",
      current: runningPod({
        deletionTimestamp: "2026-01-01T12:00:30Z",
        deletionGracePeriodSeconds: 30,
      }),
      options: { gracePeriodSeconds: 40 },
      want: { type: "pending" },
    },
    {
      name: "a terminating pod asked for no grace: pending",
      current: runningPod({
        deletionTimestamp: "2026-01-01T12:00:30Z",
        deletionGracePeriodSeconds: 30,
      }),
      options: {},
      want: { type: "pending" },
    },
    {
      name: "a terminating pod asked for a shorter grace: the deadline moves earlier",
      current: runningPod({
        deletionTimestamp: "2026-01-01T12:00:30Z",
        deletionGracePeriodSeconds: 30,
      }),
      options: { gracePeriodSeconds: 5 },
      want: {
        type: "mark",
        bumpGeneration: false,
        metadata: { deletionTimestamp: "2026-01-01T12:00:05Z", deletionGracePeriodSeconds: 5 },
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const plan = planDelete(
        c.current,
        c.options,
        now,
        defaultGcPolicy(c.current.kind, c.current.apiVersion),
      );
      const base = {
        name: c.current.metadata.name,
        namespace: "default",
        uid: c.current.metadata.uid,
        generation: 1,
      };
      const want = JSON.parse(JSON.stringify(c.want));
      if (want.metadata) want.metadata = { ...base, ...want.metadata };
      if (want.write) want.write = { ...base, ...want.write };
      assert.deepEqual(JSON.parse(JSON.stringify(plan)), want);
    });
  }
});

describe("updates of terminating objects", () => {
  const marked = object("Service", "s", {
    finalizers: ["x/y"],
    deletionTimestamp: "2026-01-01T12:00:01Z",
    deletionGracePeriodSeconds: 0,
  });
  const cases = [
    {
      name: "the last finalizer removed: deleted",
      next: object("Service", "s", {}),
      current: marked,
      want: true,
    },
    {
      name: "a finalizer left: kept",
      next: object("Service", "s", { finalizers: ["x/z"] }),
      current: marked,
      want: false,
    },
    {
      name: "not terminating: kept",
      next: object("Service", "s"),
      current: object("Service", "s", { finalizers: ["x/y"] }),
      want: false,
    },
    {
      name: "a pod in its grace period: kept (the kubelet's final delete removes it)",
      next: object("Pod", "p"),
      current: object("Pod", "p", {
        finalizers: ["x/y"],
        deletionTimestamp: "2026-01-01T12:00:31Z",
        deletionGracePeriodSeconds: 30,
      }),
      want: false,
    },
    {
      name: "a namespace with spec.finalizers left: kept",
      next: object("Namespace", "n", {}, { spec: { finalizers: ["kubernetes"] } }),
      current: object(
        "Namespace",
        "n",
        { deletionTimestamp: "2026-01-01T12:00:01Z" },
        { spec: { finalizers: ["kubernetes"] } },
      ),
      want: false,
    },
    {
      name: "a namespace finalized: deleted",
      next: object("Namespace", "n", {}, { spec: { finalizers: [] } }),
      current: object(
        "Namespace",
        "n",
        { deletionTimestamp: "2026-01-01T12:00:01Z" },
        { spec: { finalizers: ["kubernetes"] } },
      ),
      want: true,
    },
  ];
  for (const c of cases) {
    test(`shouldDeleteDuringUpdate: ${c.name}`, () => {
      assert.equal(shouldDeleteDuringUpdate(c.next, c.current), c.want);
    });
  }

  test("the deletion mark is carried over; new finalizers are forbidden", () => {
    const next = carryDeletionFields(
      object("Service", "s", { finalizers: ["x/y", "a/b"] }),
      marked,
    );
    assert.equal(next.metadata.deletionTimestamp, "2026-01-01T12:00:01Z");
    assert.equal(next.metadata.deletionGracePeriodSeconds, 0);
    assert.deepEqual(
      deletionUpdateErrors(next, marked).map((e) => `${e.field}: ${e.detail}`),
      [
        'metadata.finalizers: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a/b"}',
      ],
    );
  });

  test("a client cannot set a deletionTimestamp by update", () => {
    const next = object("Service", "s", { deletionTimestamp: "2026-01-01T12:00:01Z" });
    assert.deepEqual(
      deletionUpdateErrors(next, object("Service", "s")).map((e) => e.field),
      ["metadata.deletionTimestamp"],
    );
  });
});

describe("namespaces (the namespace REST's delete)", () => {
  test("markNamespace: Terminating, with the policy's finalizer", () => {
    const ns = object(
      "Namespace",
      "team",
      {},
      { spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
    );
    const marked = markNamespace(ns, { propagationPolicy: "Foreground" }, at(3));
    assert.equal(marked?.metadata.deletionTimestamp, "2026-01-01T12:00:03Z");
    assert.deepEqual(marked?.metadata.finalizers, ["foregroundDeletion"]);
    assert.deepEqual(marked?.status, { phase: "Terminating" });
    assert.equal(markNamespace(marked, {}, at(4)), null, "already terminating");
  });
});
