// The views derived from each kind's one schema tree equal the four trees each kind wrote by
// hand before (apply schema, protobuf message, Time fields), snapshot in
// test/fixtures/kind-trees.json when they were deleted: what SSA, patches and protobuf see is
// unchanged. Unknown fields are looked for deeper than the old known-field trees did.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { applySchemaOf } from "../../src/apiserver/fieldmanager/typed.js";
import { normalizeTimes, timeTreeOf } from "../../src/apiserver/microtime.js";
import { PROTOBUF_SCHEMAS, protoMessageOf } from "../../src/apiserver/protobuf.js";
import { knownFieldsOf } from "../../src/apiserver/unknownfields.js";
import { KIND_LIST } from "../../src/kinds/registry.js";

interface OldKind {
  times: unknown;
  versions: { version: string; apply: unknown; knownFields: unknown; protobuf: unknown }[];
}
const OLD = JSON.parse(
  readFileSync(new URL("../fixtures/kind-trees.json", import.meta.url), "utf8"),
) as Record<string, OldKind>;

/**
 * The one difference: the old Time trees skipped a workload's pod template metadata, which is
 * an ObjectMeta like any other (upstream decodes its times too).
 */
const WITH_TEMPLATE = new Set(["ReplicationController", "Deployment", "ReplicaSet", "StatefulSet"]);

/** Kinds written with a schema tree from the start: they have no hand-written trees. */
const ADDED_SINCE = new Set([
  "DaemonSet",
  "APIService",
  "Job",
  "CronJob",
  "ServiceMonitor",
  "CustomResourceDefinition",
  "Endpoints",
  "EndpointSlice",
  "ConfigMap",
  "Secret",
  "ServiceAccount",
  "Role",
  "ClusterRole",
  "RoleBinding",
  "ClusterRoleBinding",
  "PodDisruptionBudget",
  "LimitRange",
  "ResourceQuota",
  "PriorityClass",
  "Ingress",
  "IngressClass",
  "NetworkPolicy",
  "ControllerRevision",
]);

/** `known` checks at least what `old` checked: the same fields wherever `old` names them. */
function assertCovers(known: unknown, old: unknown, path: string): void {
  if (old === "any") return;
  if (Array.isArray(old)) {
    assert.ok(Array.isArray(known), `${path}: a list of checked items`);
    assertCovers(known[0], old[0], `${path}[]`);
    return;
  }
  assert.ok(known !== null && typeof known === "object", `${path}: checked`);
  const fields = old as Record<string, unknown>;
  assert.deepEqual(Object.keys(known).sort(), Object.keys(fields).sort(), `${path}: fields`);
  for (const [key, sub] of Object.entries(fields))
    assertCovers((known as Record<string, unknown>)[key], sub, `${path}.${key}`);
}

/** As the old trees were stored: JSON (no undefined members). */
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe("the views of each kind's schema tree equal the hand-written trees they replace", () => {
  test("the snapshot covers every served kind but those added after it", () => {
    assert.deepEqual(
      Object.keys(OLD).sort(),
      KIND_LIST.map((d) => d.kind)
        .filter((kind) => !ADDED_SINCE.has(kind))
        .sort(),
    );
  });
  for (const d of KIND_LIST) {
    const old = OLD[d.kind];
    if (!old) continue;
    test(d.kind, () => {
      assert.deepEqual(
        d.versions.map((v) => v.version),
        old.versions.map((v) => v.version),
      );
      for (const [i, v] of d.versions.entries()) {
        const before: OldKind["versions"][number] | undefined = old.versions[i];
        assert.ok(before);
        assert.deepEqual(json(applySchemaOf(v.schema)), before.apply, `${v.version}: apply schema`);
        // Unknown fields are now looked for deeper: everything the old tree checked still is.
        assertCovers(knownFieldsOf(v.schema), before.knownFields ?? "any", v.version);
        assert.deepEqual(
          v.protobuf ? json(protoMessageOf(v.schema)) : null,
          before.protobuf,
          `${v.version}: protobuf message`,
        );
        const apiVersion = d.group ? `${d.group}/${v.version}` : v.version;
        assert.equal(PROTOBUF_SCHEMAS[`${apiVersion}/${d.kind}`] !== undefined, !!v.protobuf);
      }
      const first = d.versions[0];
      assert.ok(first);
      const times = old.times as Record<string, unknown>;
      const expected = WITH_TEMPLATE.has(d.kind)
        ? { ...times, spec: { template: { metadata: times.metadata } } }
        : times;
      assert.deepEqual(json(timeTreeOf(first.schema)), expected, "Time fields");
    });
  }
});

test("a pod template's metadata times are decoded as ObjectMeta's (as upstream does)", () => {
  const deployment = {
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { template: { metadata: { creationTimestamp: "2024-01-02T03:04:05.5+01:00" } } },
  };
  const normalized = normalizeTimes("Deployment", deployment);
  assert.ok(normalized.ok);
  assert.deepEqual(normalized.value.spec.template.metadata, {
    creationTimestamp: "2024-01-02T02:04:05Z",
  });
  const bad = normalizeTimes("Deployment", {
    ...deployment,
    spec: { template: { metadata: { creationTimestamp: "yesterday" } } },
  });
  assert.equal(bad.ok, false);
});
