// The OpenAPI v3 schemas derived from the kinds' schema trees (src/apiserver/openapi.ts): names
// as upstream's, $refs that resolve, Go scalars as OpenAPI types, the list/patch extensions.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openapiSchemas } from "../../src/apiserver/openapi.js";
import { KIND_LIST } from "../../src/kinds/registry.js";

type Schema = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const core = openapiSchemas("", "v1").schemas;
const apps = openapiSchemas("apps", "v1").schemas;
const hpa = openapiSchemas("autoscaling", "v2").schemas;

function def(schemas: Record<string, Schema>, name: string): Schema {
  const d = schemas[name];
  assert.ok(d, `no definition ${name}`);
  return d;
}
function prop(schema: Schema, ...path: string[]): Schema {
  let at = schema;
  for (const p of path) {
    const next = (at.properties as Record<string, Schema> | undefined)?.[p];
    assert.ok(next, `no property ${p}`);
    at = next;
  }
  return at;
}
const ref = (name: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });

function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

describe("OpenAPI v3 schemas from the kinds' trees", () => {
  test("each served kind version has one definition carrying its group-version-kind and description", () => {
    for (const d of KIND_LIST) {
      for (const v of d.versions) {
        const { schemas, kinds } = openapiSchemas(d.group, v.version);
        const withGvk = Object.entries(schemas).filter(([, s]) =>
          JSON.stringify(s["x-kubernetes-group-version-kind"])?.includes(`"kind":"${d.kind}"`),
        );
        assert.equal(withGvk.length, 1, `${d.kind} ${v.version}`);
        const [name, schema] = withGvk[0]!;
        assert.equal(kinds.get(d.kind), name);
        assert.deepEqual(schema["x-kubernetes-group-version-kind"], [
          { group: d.group, kind: d.kind, version: v.version },
        ]);
        assert.ok(d.description, `${d.kind} has no description`);
        assert.equal(schema.description, d.description);
      }
    }
  });

  test("every $ref of every document resolves within that document", () => {
    for (const d of KIND_LIST) {
      for (const v of d.versions) {
        const { schemas } = openapiSchemas(d.group, v.version);
        for (const r of refsOf(schemas)) {
          const name = r.replace("#/components/schemas/", "");
          assert.ok(schemas[name], `${d.group}/${v.version}: ${r} does not resolve`);
        }
      }
    }
  });

  test("definitions are named by their Go package, as upstream's", () => {
    const deployment = def(apps, "io.k8s.api.apps.v1.Deployment");
    assert.deepEqual(prop(deployment, "metadata").allOf, ref(`${META}.ObjectMeta`).allOf);
    assert.deepEqual(
      prop(deployment, "spec").allOf,
      ref("io.k8s.api.apps.v1.DeploymentSpec").allOf,
    );
    const spec = def(apps, "io.k8s.api.apps.v1.DeploymentSpec");
    assert.deepEqual(prop(spec, "template").allOf, ref("io.k8s.api.core.v1.PodTemplateSpec").allOf);
    assert.deepEqual(prop(spec, "selector").allOf, ref(`${META}.LabelSelector`).allOf);
    assert.equal(def(apps, `${META}.LabelSelector`)["x-kubernetes-map-type"], "atomic");
    def(hpa, "io.k8s.api.autoscaling.v2.HPAScalingRules");
    def(core, "io.k8s.api.core.v1.Container");
    const rbac = openapiSchemas("rbac.authorization.k8s.io", "v1").schemas;
    def(rbac, "io.k8s.api.rbac.v1.ClusterRole");
    def(openapiSchemas("discovery.k8s.io", "v1").schemas, "io.k8s.api.discovery.v1.EndpointSlice");
    def(openapiSchemas("coordination.k8s.io", "v1").schemas, "io.k8s.api.coordination.v1.Lease");
  });

  test("Go scalars: int32/int64 with their format, Quantity, IntOrString and Time by reference", () => {
    const spec = def(apps, "io.k8s.api.apps.v1.DeploymentSpec");
    assert.deepEqual(prop(spec, "replicas"), { type: "integer", format: "int32" });
    assert.deepEqual(prop(spec, "paused"), { type: "boolean" });
    const status = def(apps, "io.k8s.api.apps.v1.DeploymentStatus");
    assert.deepEqual(prop(status, "observedGeneration"), { type: "integer", format: "int64" });
    const rolling = def(apps, "io.k8s.api.apps.v1.RollingUpdateDeployment");
    assert.deepEqual(
      prop(rolling, "maxSurge"),
      ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString"),
    );
    assert.equal(
      def(apps, "io.k8s.apimachinery.pkg.util.intstr.IntOrString").format,
      "int-or-string",
    );
    const resources = def(apps, "io.k8s.api.core.v1.ResourceRequirements");
    assert.deepEqual(
      prop(resources, "limits").additionalProperties,
      ref("io.k8s.apimachinery.pkg.api.resource.Quantity"),
    );
    const meta = def(apps, `${META}.ObjectMeta`);
    assert.deepEqual(prop(meta, "creationTimestamp"), ref(`${META}.Time`));
    assert.deepEqual(
      { type: def(apps, `${META}.Time`).type, format: def(apps, `${META}.Time`).format },
      { type: "string", format: "date-time" },
    );
    assert.deepEqual(prop(meta, "labels"), {
      type: "object",
      additionalProperties: { type: "string" },
    });
  });

  test("list types, map keys and patch merge keys from the tree", () => {
    const podSpec = def(core, "io.k8s.api.core.v1.PodSpec");
    const containers = prop(podSpec, "containers");
    assert.equal(containers.type, "array");
    assert.deepEqual(containers.items, ref("io.k8s.api.core.v1.Container"));
    assert.equal(containers["x-kubernetes-list-type"], "map");
    assert.deepEqual(containers["x-kubernetes-list-map-keys"], ["name"]);
    assert.equal(containers["x-kubernetes-patch-merge-key"], "name");
    assert.equal(containers["x-kubernetes-patch-strategy"], "merge");
    const ports = prop(def(core, "io.k8s.api.core.v1.Container"), "ports");
    assert.deepEqual(ports["x-kubernetes-list-map-keys"], ["containerPort", "protocol"]);
    assert.equal(ports["x-kubernetes-patch-merge-key"], "containerPort");
    const finalizers = prop(def(core, `${META}.ObjectMeta`), "finalizers");
    assert.equal(finalizers["x-kubernetes-list-type"], "set");
    assert.equal(finalizers["x-kubernetes-patch-strategy"], "merge");
    assert.equal(finalizers["x-kubernetes-patch-merge-key"], undefined);
  });

  test("parts not typed yet are objects that keep unknown fields", () => {
    const podSpec = def(core, "io.k8s.api.core.v1.PodSpec");
    assert.deepEqual(prop(podSpec, "affinity"), {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  test("fields without omitempty are required", () => {
    const container = def(core, "io.k8s.api.core.v1.Container");
    assert.deepEqual(container.required, ["name"]);
  });

  test("every field of the HPA's own structs, v2 and v1, has a description for kubectl explain", () => {
    const v1 = openapiSchemas("autoscaling", "v1").schemas;
    const missing: string[] = [];
    let fields = 0;
    for (const [schemas, pkg] of [
      [hpa, "io.k8s.api.autoscaling.v2."],
      [v1, "io.k8s.api.autoscaling.v1."],
    ] as const) {
      for (const [name, schema] of Object.entries(schemas)) {
        if (!name.startsWith(pkg)) continue;
        for (const [field, p] of Object.entries(
          (schema.properties ?? {}) as Record<string, Schema>,
        )) {
          fields++;
          if (typeof p.description !== "string" || p.description === "") {
            missing.push(`${name}.${field}`);
          }
        }
      }
    }
    assert.ok(fields > 80, `only ${fields} fields seen`);
    assert.deepEqual(missing, []);
    assert.match(
      String(
        prop(def(hpa, "io.k8s.api.autoscaling.v2.HPAScalingRules"), "selectPolicy").description,
      ),
      /`Max`.*`Min`.*`Disabled`/,
    );
  });
});
