import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { FeatureGates } from "../../src/api/featuregates.js";
import type { KubeObject } from "../../src/api/types.js";
import { handleDiscovery } from "../../src/apiserver/discovery.js";
import { schemaFor } from "../../src/apiserver/fieldmanager/index.js";
import { applySchemaOf } from "../../src/apiserver/fieldmanager/typed.js";
import { parseFieldSelector } from "../../src/apiserver/fieldselectors.js";
import { normalizeTimes, timeTreeOf } from "../../src/apiserver/microtime.js";
import { PROTOBUF_SCHEMAS, protoMessageOf } from "../../src/apiserver/protobuf.js";
import { findResource, RESOURCES, resourceOfKind } from "../../src/apiserver/resources.js";
import { columnsFor, toTable } from "../../src/apiserver/tables.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { knownFieldsOf, unknownFields } from "../../src/apiserver/unknownfields.js";
import { isClusterScoped, KNOWN_KINDS, resourceOf } from "../../src/kinds/catalog.js";
import { KIND_LIST, KINDS } from "../../src/kinds/registry.js";
import { defaultGcPolicy } from "../../src/registry/delete.js";

function openapiV3(group: string, version: string): Record<string, unknown> | null {
  const key = group === "" ? `api/${version}` : `apis/${group}/${version}`;
  const req: ApiRequest = {
    method: "GET",
    path: `/openapi/v3/${key}`,
    query: new URLSearchParams(),
    headers: { host: "127.0.0.1" },
  };
  const res = handleDiscovery(req);
  return res && "body" in res ? (res.body as Record<string, unknown>) : null;
}

describe("every registered kind is complete", () => {
  for (const [name, d] of Object.entries(KINDS)) {
    test(name, () => {
      assert.equal(d.kind, name, "listed under its own kind");
      assert.match(d.resource, /^[a-z]+$/);
      assert.equal(d.singular, d.kind.toLowerCase());
      assert.ok(d.versions.length > 0, "serves a version");
      assert.deepEqual(d.verbs, [...d.verbs].sort(), "verbs sorted as discovery lists them");
      if (d.readOnly) assert.ok(!d.verbs.some((v) => ["create", "update", "patch"].includes(v)));
      for (const v of d.versions) {
        assert.equal(v.schema.kind, "struct", `${v.version}: schema tree is a struct`);
        for (const field of ["apiVersion", "kind", "metadata"]) {
          assert.ok(v.schema.fields[field], `${v.version}: schema tree has ${field}`);
        }
      }
      const times = d.versions[0] && timeTreeOf(d.versions[0].schema);
      assert.ok(times && typeof times === "object" && !Array.isArray(times));
      assert.ok(times.metadata, "metadata times (creationTimestamp, managedFields)");
      assert.ok(d.printer.columns.length > 0, "Table columns");
      for (const v of d.versions) {
        if (v.protobuf)
          assert.ok(
            protoMessageOf(v.schema)[1]?.name === "metadata",
            "protobuf field 1 is metadata",
          );
      }
    });
  }
  test("no kind, resource or short name is registered twice", () => {
    const names = KIND_LIST.flatMap((d) => [d.kind, `${d.resource}.${d.group}`]);
    assert.equal(new Set(names).size, names.length);
    const shortNames = KIND_LIST.flatMap((d) => d.shortNames ?? []);
    assert.equal(new Set(shortNames).size, shortNames.length);
  });
});

describe("the derived views agree with the registry", () => {
  for (const d of KIND_LIST) {
    test(d.kind, () => {
      const info = resourceOfKind(d.kind);
      assert.ok(info, "in the resource catalogue");
      assert.equal(info.namespaced, d.namespaced);
      assert.deepEqual(
        info.versions,
        d.versions.map((v) => v.version),
      );
      for (const v of d.versions) {
        const apiVersion = d.group ? `${d.group}/${v.version}` : v.version;
        assert.equal(findResource(d.group, v.version, d.resource), info, `served at ${apiVersion}`);
        assert.equal(
          schemaFor(d.kind, apiVersion),
          applySchemaOf(v.schema),
          `apply schema of ${apiVersion}`,
        );
        if (d.verbs.includes("patch")) {
          const doc = openapiV3(d.group, v.version);
          assert.ok(doc, `OpenAPI v3 document for ${apiVersion}`);
          const paths = Object.values(doc.paths as Record<string, { patch?: unknown }>);
          assert.ok(
            paths.some((p) => {
              const gvk = (p.patch as Record<string, unknown> | undefined)?.[
                "x-kubernetes-group-version-kind"
              ];
              return (
                JSON.stringify(gvk) ===
                JSON.stringify({ group: d.group, version: v.version, kind: d.kind })
              );
            }),
            `OpenAPI v3 PATCH of ${d.kind} in ${apiVersion}`,
          );
        }
      }
      assert.equal(resourceOf(d.kind), d.group ? `${d.resource}.${d.group}` : d.resource);
      assert.equal(isClusterScoped(d.kind), !d.namespaced);
      assert.ok(KNOWN_KINDS.has(d.kind));
      assert.equal(defaultGcPolicy(d.kind), d.gcPolicy);
      assert.equal(columnsFor(d.kind), d.printer.columns);
      for (const field of ["metadata.name", ...d.fieldSelectors]) {
        assert.ok(parseFieldSelector(d.kind, `${field}=x`).ok, `field selector ${field}`);
      }
      assert.ok(!parseFieldSelector(d.kind, "spec.nothing=x").ok);
      for (const v of d.versions) {
        const unknown = unknownFields(d.kind, v.version, { bogus: 1, metadata: { bogus: 1 } }).map(
          (f) => f.name,
        );
        const checked = knownFieldsOf(v.schema) !== "any";
        assert.deepEqual(unknown, checked ? ["bogus", "metadata.bogus"] : []);
      }
      // A bare object prints one cell per column.
      const table = toTable(d.kind, [{ apiVersion: "v1", kind: d.kind, metadata: { name: "x" } }], {
        now: 0,
      });
      assert.equal(table.rows[0]?.cells.length, d.printer.columns.length);
      for (const v of d.versions) {
        const apiVersion = d.group ? `${d.group}/${v.version}` : v.version;
        assert.equal(
          PROTOBUF_SCHEMAS[`${apiVersion}/${d.kind}`],
          v.protobuf ? protoMessageOf(v.schema) : undefined,
        );
      }
      // Every kind's metadata times are normalized (Go's time.Time writes UTC seconds).
      const object = {
        kind: d.kind,
        metadata: { creationTimestamp: "2024-01-02T03:04:05.5+01:00" },
      };
      const normalized = normalizeTimes(d.kind, object);
      assert.ok(normalized.ok);
      assert.equal(normalized.value.metadata.creationTimestamp, "2024-01-02T02:04:05Z");
    });
  }
  test("protobuf bodies are decoded for the kinds kubectl sends as protobuf", () => {
    assert.deepEqual(Object.keys(PROTOBUF_SCHEMAS).sort(), [
      "apps/v1/Deployment",
      "autoscaling/v1/HorizontalPodAutoscaler",
      "autoscaling/v2/HorizontalPodAutoscaler",
      "batch/v1/CronJob",
      "batch/v1/Job",
      "networking.k8s.io/v1/Ingress",
      "networking.k8s.io/v1/IngressClass",
      "networking.k8s.io/v1/NetworkPolicy",
      "policy/v1/PodDisruptionBudget",
      "rbac.authorization.k8s.io/v1/ClusterRole",
      "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
      "rbac.authorization.k8s.io/v1/Role",
      "rbac.authorization.k8s.io/v1/RoleBinding",
      "scheduling.k8s.io/v1/PriorityClass",
      "v1/ConfigMap",
      "v1/LimitRange",
      "v1/Namespace",
      "v1/ResourceQuota",
      "v1/Secret",
      "v1/Service",
      "v1/ServiceAccount",
    ]);
  });
  test("the catalogue lists exactly the registered kinds, in registry order", () => {
    assert.deepEqual(
      RESOURCES.map((r) => r.kind),
      KIND_LIST.map((d) => d.kind),
    );
  });
  test("kinds the cluster knows without serving them keep their names", () => {
    assert.equal(resourceOf("DaemonSet"), "daemonsets.apps");
    assert.equal(resourceOf("Ingress"), "ingresses.networking.k8s.io");
    assert.equal(resourceOf("ConfigMap"), "configmaps");
    assert.equal(defaultGcPolicy("DaemonSet", "apps/v1"), "DeleteDependents");
    assert.equal(defaultGcPolicy("DaemonSet", "extensions/v1beta1"), "OrphanDependents");
    assert.ok(KNOWN_KINDS.has("ControllerRevision"));
    assert.ok(!KNOWN_KINDS.has("Widget"));
    assert.equal(resourceOf("Widget", "example.com/v1"), "widgets.example.com");
  });
});

describe("kind modules stay low in the graph", () => {
  // The registry and the cluster read the kinds too: they import only from src/api, src/core and ./.
  const dir = new URL("../../src/kinds/", import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    test(file, () => {
      const text = readFileSync(new URL(file, dir), "utf8");
      for (const match of text.matchAll(/from "([^"]+)"/g)) {
        const spec = match[1] ?? "";
        assert.ok(
          spec.startsWith("./") || spec.startsWith("../api/") || spec.startsWith("../core/"),
          `${file} imports ${spec}`,
        );
      }
    });
  }
});

describe("each kind's strategy: defaults, validation and create/update rules", () => {
  const context = { featureGates: FeatureGates.defaults() };
  const meta = { name: "x", namespace: "default" };

  test("workloads are defaulted and a create drops the status", () => {
    const created = KINDS.Deployment.strategy.prepareForCreate(
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: meta,
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: {
            metadata: { labels: { a: "b" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
        status: { replicas: 3 },
      },
      context,
    );
    assert.ok(created.ok);
    assert.equal(created.value.status, undefined);
    assert.equal((created.value.spec as { replicas?: number }).replicas, 1);
  });

  test("a namespace gets its finalizer and name label; an update cannot change spec.finalizers", () => {
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } };
    const created = KINDS.Namespace.strategy.prepareForCreate(ns, context);
    assert.ok(created.ok);
    assert.deepEqual(created.value.spec, { finalizers: ["kubernetes"] });
    assert.equal(created.value.metadata.labels?.["kubernetes.io/metadata.name"], "team");
    const updated = KINDS.Namespace.strategy.prepareForUpdate(
      { ...created.value, spec: { finalizers: [] } },
      created.value,
      context,
    );
    assert.ok(updated.ok);
    assert.deepEqual(updated.value.spec, { finalizers: ["kubernetes"] });
  });

  test("the HPA is defaulted and validated with its metadata, and its status reset on create", () => {
    assert.equal(KINDS.HorizontalPodAutoscaler.strategy.validatesMetadata, true);
    const hpa = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: meta,
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
      },
      status: { currentReplicas: 9 },
    };
    const created = KINDS.HorizontalPodAutoscaler.strategy.prepareForCreate(hpa, context);
    assert.ok(created.ok);
    assert.equal((created.value.spec as { minReplicas?: number }).minReplicas, 1);
    assert.deepEqual(created.value.status, { desiredReplicas: 0 });
    const invalid = KINDS.HorizontalPodAutoscaler.strategy.prepareForCreate(
      { ...hpa, spec: { ...hpa.spec, maxReplicas: 0 } },
      context,
    );
    assert.equal(invalid.ok, false);
    assert.ok(!invalid.ok && invalid.errors.some((e) => e.field === "spec.maxReplicas"));
  });

  test("Pod and Service writes are defaulted (SetDefaults_Pod, SetDefaults_Service)", () => {
    for (const prepare of [
      KINDS.Pod.strategy.prepareForCreate,
      // An update is compared with the stored (defaulted) Pod.
      (o: KubeObject, c: typeof context) => {
        const stored = KINDS.Pod.strategy.prepareForCreate(o, c);
        assert.ok(stored.ok);
        return KINDS.Pod.strategy.prepareForUpdate(o, stored.value, c);
      },
    ]) {
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: meta,
        spec: { containers: [{ name: "a", image: "nginx" }] },
      };
      const created = prepare(pod, context);
      assert.ok(created.ok);
      const spec = created.value.spec as {
        restartPolicy: string;
        enableServiceLinks: boolean;
        containers: { imagePullPolicy: string }[];
      };
      assert.equal(spec.restartPolicy, "Always");
      assert.equal(spec.enableServiceLinks, true);
      assert.equal(spec.containers[0]!.imagePullPolicy, "Always");
    }
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta,
      spec: { ports: [{ port: 80 }] },
    };
    const created = KINDS.Service.strategy.prepareForCreate(service, context);
    assert.ok(created.ok);
    assert.deepEqual(created.value.spec, {
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      sessionAffinity: "None",
      type: "ClusterIP",
      internalTrafficPolicy: "Cluster",
    });
  });

  test("kinds without rules of their own store what is sent", () => {
    for (const kind of ["Event", "Lease", "Node"] as const) {
      const object = { apiVersion: "v1", kind, metadata: meta, spec: { a: 1 } };
      assert.deepEqual(KINDS[kind].strategy.prepareForCreate(object, context), {
        ok: true,
        value: object,
      });
    }
  });
});
