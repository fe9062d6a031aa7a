// Custom resources served from their CustomResourceDefinition, in process: the CRD's status,
// discovery, every verb at both scopes, the patch types, and the CRD's deletion. Custom kinds
// are process-wide (src/kinds/custom.ts): each test uses its own group and kinds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { ObjectStore } from "../../src/registry/store.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

function setup(store?: ObjectStore) {
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: T0,
    ...(store ? { store } : {}),
  });
  const handler = createApiHandler({ cluster });
  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Json; headers: Record<string, string> }> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined)
      req.body = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    const res: ApiResponse = await handler(req);
    return {
      status: res.status,
      body: "body" in res ? res.body : undefined,
      headers: (res.headers ?? {}) as Record<string, string>,
    };
  };
  return { cluster, call, handler };
}

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function crd(
  plural: string,
  kind: string,
  scope: "Namespaced" | "Cluster" = "Namespaced",
  group = "example.com",
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        shortNames: [`${plural.slice(0, 2)}x`],
        categories: ["all"],
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
          ...extra,
        },
      ],
    },
  };
}

describe("a CustomResourceDefinition", () => {
  it("is established: NamesAccepted and Established True, acceptedNames and storedVersions", async () => {
    const { call } = setup();
    const created = await call(
      "POST",
      CRDS,
      crd("gadgets", "Gadget", "Namespaced", "gadgets.example.com"),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const status = created.body.status;
    assert.deepEqual(
      status.conditions.map((c: Json) => [c.type, c.status, c.reason]),
      [
        ["NamesAccepted", "True", "NoConflicts"],
        ["Established", "True", "InitialNamesAccepted"],
      ],
    );
    assert.equal(status.conditions[0].lastTransitionTime, "2026-01-01T12:00:00Z");
    assert.equal(status.acceptedNames.kind, "Gadget");
    assert.equal(status.acceptedNames.listKind, "GadgetList");
    assert.deepEqual(status.storedVersions, ["v1"]);
    assert.equal(created.headers.warning, undefined, "no warning: the resources are served");
  });

  it("whose kind is already served is not established (KindConflict)", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      CRDS,
      crd("deployments", "Deployment", "Namespaced", "apps.example.com"),
    );
    assert.equal(res.status, 201);
    const [names, established] = res.body.status.conditions;
    assert.deepEqual(
      [names.type, names.status, names.reason],
      ["NamesAccepted", "False", "KindConflict"],
    );
    assert.equal(names.message, '"Deployment" is already in use');
    assert.deepEqual([established.status, established.reason], ["False", "NotAccepted"]);
    const list = await call("GET", "/apis/apps.example.com/v1/namespaces/default/deployments");
    assert.equal(list.status, 404);
  });
});

describe("custom resources", () => {
  const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";
  const widget = (name: string, size: number) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name },
    spec: { size, tags: ["a", "b"] },
  });

  it("are served in discovery: legacy, per group-version and aggregated", async () => {
    const { call } = setup();
    assert.equal((await call("POST", CRDS, crd("widgets", "Widget"))).status, 201);
    const groups = await call("GET", "/apis");
    const group = groups.body.groups.find((g: Json) => g.name === "example.com");
    assert.deepEqual(group.preferredVersion, { groupVersion: "example.com/v1", version: "v1" });
    const resources = await call("GET", "/apis/example.com/v1");
    assert.equal(resources.status, 200);
    assert.deepEqual(resources.body.resources, [
      {
        name: "widgets",
        singularName: "widget",
        namespaced: true,
        kind: "Widget",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        shortNames: ["wix"],
        categories: ["all"],
      },
    ]);
    const aggregated = await call("GET", "/apis", undefined, {
      accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
    const item = aggregated.body.items.find((i: Json) => i.metadata.name === "example.com");
    assert.equal(item.versions[0].resources[0].resource, "widgets");
    assert.equal(item.versions[0].resources[0].scope, "Namespaced");
  });

  it("take every verb: create, get, list, update, merge and JSON patch, delete, deletecollection", async () => {
    const { call } = setup();
    await call("POST", CRDS, crd("widgets", "Widget"));
    const created = await call("POST", WIDGETS, widget("w1", 1));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.metadata.namespace, "default");
    assert.equal(created.body.metadata.generation, 1);
    assert.deepEqual(created.body.spec, { size: 1, tags: ["a", "b"] });
    assert.equal((await call("POST", WIDGETS, widget("w2", 2))).status, 201);
    assert.equal((await call("POST", WIDGETS, widget("w1", 1))).status, 409);

    const got = await call("GET", `${WIDGETS}/w1`);
    assert.equal(got.body.apiVersion, "example.com/v1");
    assert.equal(got.body.kind, "Widget");
    const list = await call("GET", WIDGETS);
    assert.equal(list.body.kind, "WidgetList");
    assert.deepEqual(
      list.body.items.map((i: Json) => i.metadata.name),
      ["w1", "w2"],
    );
    const everywhere = await call("GET", "/apis/example.com/v1/widgets");
    assert.equal(everywhere.body.items.length, 2);

    const updated = await call("PUT", `${WIDGETS}/w1`, { ...got.body, spec: { size: 5 } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.metadata.generation, 2);

    const merged = await call(
      "PATCH",
      `${WIDGETS}/w1`,
      { spec: { color: "red" } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    assert.deepEqual(merged.body.spec, { size: 5, color: "red" });
    const patched = await call(
      "PATCH",
      `${WIDGETS}/w1`,
      [{ op: "replace", path: "/spec/size", value: 7 }],
      { "content-type": "application/json-patch+json" },
    );
    assert.equal(patched.body.spec.size, 7);
    const strategic = await call(
      "PATCH",
      `${WIDGETS}/w1`,
      { spec: { size: 8 } },
      {
        "content-type": "application/strategic-merge-patch+json",
      },
    );
    assert.equal(strategic.status, 415);
    assert.equal(strategic.body.reason, "UnsupportedMediaType");
    assert.match(
      strategic.body.message,
      /application\/merge-patch\+json, application\/apply-patch\+yaml$/,
    );
    const applied = await call(
      "PATCH",
      `${WIDGETS}/w3?fieldManager=test`,
      { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w3" }, spec: { size: 3 } },
      { "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(applied.body.metadata.managedFields[0].manager, "test");

    const deleted = await call("DELETE", `${WIDGETS}/w1`);
    assert.equal(deleted.status, 200);
    assert.equal((await call("GET", `${WIDGETS}/w1`)).status, 404);
    const missing = await call("GET", `${WIDGETS}/nosuch`);
    assert.equal(missing.body.message, 'widgets.example.com "nosuch" not found');
    assert.equal((await call("DELETE", WIDGETS)).status, 200);
    assert.equal((await call("GET", WIDGETS)).body.items.length, 0);
  });

  it("of a cluster-scoped CRD have no namespace", async () => {
    const { call, cluster } = setup();
    await call("POST", CRDS, crd("realms", "Realm", "Cluster", "realms.example.com"));
    const created = await call("POST", "/apis/realms.example.com/v1/realms", {
      apiVersion: "realms.example.com/v1",
      kind: "Realm",
      metadata: { name: "r1" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.metadata.namespace, undefined);
    assert.equal((await call("GET", "/apis/realms.example.com/v1/realms/r1")).status, 200);
    assert.equal(
      (await call("GET", "/apis/realms.example.com/v1/namespaces/default/realms")).status,
      404,
    );
    // A restart loads the CRD first, so the realm is kept cluster-wide again.
    const reloaded = new ObjectStore({
      initial: {
        resourceVersion: Number(cluster.store.resourceVersion()),
        objects: [...cluster.store.objects()].reverse(),
      },
    });
    assert.equal(reloaded.get("Realm", "", "r1")?.metadata.name, "r1");
  });

  it("are watched", async () => {
    const { call, handler } = setup();
    await call("POST", CRDS, crd("widgets", "Widget"));
    const res = await handler({
      method: "GET",
      path: WIDGETS,
      query: new URLSearchParams("watch=true&timeoutSeconds=2"),
      headers: {},
    });
    assert.ok("stream" in res, "expected a watch stream");
    const iterator = res.stream[Symbol.asyncIterator]();
    await call("POST", WIDGETS, widget("w1", 1));
    const first = JSON.parse((await iterator.next()).value);
    assert.equal(first.type, "ADDED");
    assert.equal(first.object.kind, "Widget");
    assert.equal(first.object.apiVersion, "example.com/v1");
    await iterator.return?.();
  });

  it("go with their CRD, which then stops serving them", async () => {
    const { call } = setup();
    await call("POST", CRDS, crd("widgets", "Widget"));
    await call("POST", WIDGETS, widget("w1", 1));
    const gone = await call("DELETE", `${CRDS}/widgets.example.com`);
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal((await call("GET", WIDGETS)).status, 404);
    assert.equal((await call("GET", "/apis/example.com/v1")).status, 404);
    const groups = await call("GET", "/apis");
    assert.equal(
      groups.body.groups.some((g: Json) => g.name === "example.com"),
      false,
    );
    // Created again, it serves an empty collection: the old objects went with the CRD.
    await call("POST", CRDS, crd("widgets", "Widget"));
    assert.deepEqual((await call("GET", WIDGETS)).body.items, []);
  });
});

describe("the structural schema", () => {
  const group = "schema.example.com";
  const URL_ = `/apis/${group}/v1/namespaces/default/apps`;
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        required: ["image"],
        properties: {
          image: { type: "string", minLength: 2, maxLength: 20, pattern: "^[a-z0-9/:.-]+$" },
          replicas: { type: "integer", minimum: 1, maximum: 10, default: 1 },
          mode: { type: "string", enum: ["fast", "safe"], default: "safe" },
          ratio: { type: "number", exclusiveMaximum: true, maximum: 1 },
          port: { "x-kubernetes-int-or-string": true },
          note: { type: "string", nullable: true },
          since: { type: "string", format: "date-time" },
          tags: { type: "array", maxItems: 2, minItems: 1, items: { type: "string" } },
          labels: { type: "object", additionalProperties: { type: "string" } },
          extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          template: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
          },
          limits: {
            type: "object",
            default: {},
            properties: { cpu: { type: "string", default: "100m" } },
          },
        },
      },
      status: { type: "object", properties: { ready: { type: "boolean" } } },
    },
  };
  const app = (spec: Record<string, unknown>) => ({
    apiVersion: `${group}/v1`,
    kind: "App",
    metadata: { name: "a" },
    spec,
  });
  async function withCrd() {
    const s = setup();
    const res = await s.call(
      "POST",
      CRDS,
      crd("apps", "App", "Namespaced", group, { schema: { openAPIV3Schema: schema } }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return s;
  }

  it("applies defaults on create (nested, and a defaulted object's own defaults)", async () => {
    const { call } = await withCrd();
    const res = await call("POST", URL_, app({ image: "nginx" }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.spec, {
      image: "nginx",
      replicas: 1,
      mode: "safe",
      limits: { cpu: "100m" },
    });
  });

  const cases: { name: string; spec: Record<string, unknown>; messages: string[] }[] = [
    {
      name: "a string where an integer belongs",
      spec: { image: "nginx", replicas: "three" },
      messages: [
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ],
    },
    {
      name: "a missing required field",
      spec: { replicas: 2 },
      messages: ["spec.image: Required value"],
    },
    {
      name: "a value outside enum, minimum and maximum",
      spec: { image: "nginx", mode: "slow", replicas: 11 },
      messages: [
        'spec.mode: Unsupported value: "slow": supported values: "fast", "safe"',
        "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
      ],
    },
    {
      name: "an exclusive maximum, lengths and a pattern",
      spec: { image: "X", ratio: 1 },
      messages: [
        'spec.image: Invalid value: "X": spec.image in body should be at least 2 chars long',
        "spec.image: Invalid value: \"X\": spec.image in body should match '^[a-z0-9/:.-]+$'",
        "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1",
      ],
    },
    {
      name: "too long a string, too many and too few items",
      spec: { image: "a".repeat(21), tags: ["a", "b", "c"] },
      messages: [
        "spec.image: Too long: may not be more than 20 bytes",
        "spec.tags: Too many: 3: must have at most 2 items",
      ],
    },
    {
      name: "int-or-string, nullable, format, map values, embedded resources",
      spec: {
        image: "nginx",
        port: true,
        note: null,
        since: "yesterday",
        labels: { a: 1 },
        template: { metadata: {} },
        tags: [],
      },
      messages: [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        'spec.since: Invalid value: "yesterday": spec.since in body must be of type date-time: "yesterday"',
        "spec.tags: Invalid value: []: spec.tags in body should have at least 1 items",
        'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
        "spec.template.apiVersion: Required value: must not be empty",
        "spec.template.kind: Required value: must not be empty",
      ],
    },
  ];
  cases.push({
    name: "a scalar where an object or a list belongs (no decoding error: the schema's 422)",
    spec: { image: "nginx", limits: "big", tags: "a" },
    messages: [
      'spec.limits: Invalid value: "string": spec.limits in body must be of type object: "string"',
      'spec.tags: Invalid value: "string": spec.tags in body must be of type array: "string"',
    ],
  });
  for (const c of cases) {
    it(`refuses ${c.name}: 422 naming the field, nothing stored`, async () => {
      const { call, cluster } = await withCrd();
      const res = await call("POST", URL_, app(c.spec));
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.reason, "Invalid");
      assert.deepEqual(
        [...res.body.details.causes.map((x: Json) => `${x.field}: ${x.message}`)].sort(),
        [...c.messages].sort(),
      );
      assert.equal(
        res.body.message.startsWith(`App.${group} "a" is invalid: `),
        true,
        res.body.message,
      );
      assert.equal(cluster.store.list("App").length, 0);
    });
  }

  it("prunes unknown fields with warnings (Strict: 400), keeps preserved ones", async () => {
    const { call } = await withCrd();
    const res = await call(
      "POST",
      URL_,
      { ...app({ image: "nginx", bogus: 1, extra: { anything: { deep: true } } }), top: 1 },
      {},
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.spec.bogus, undefined);
    assert.equal(res.body.top, undefined);
    assert.deepEqual(res.body.spec.extra, { anything: { deep: true } });
    assert.match(res.headers.warning ?? "", /unknown field \\"spec.bogus\\"/);
    const strict = await call("POST", `${URL_}?fieldValidation=Strict`, {
      ...app({ image: "nginx", bogus: 1 }),
      metadata: { name: "b" },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec.bogus"/);
  });

  it("applies defaults on read to objects stored before the default", async () => {
    const { call, cluster } = await withCrd();
    assert.equal((await call("POST", URL_, app({ image: "nginx" }))).status, 201);
    // As if stored before `mode` had its default: the store's copy lacks it.
    const stored = cluster.store.get("App", "default", "a")!;
    const spec = { ...(stored.spec as Record<string, unknown>) };
    delete spec.mode;
    cluster.store.update({ ...stored, spec });
    const got = await call("GET", `${URL_}/a`);
    assert.equal(got.body.spec.mode, "safe");
  });

  it("refuses a non-structural schema at CRD create", async () => {
    const { call } = setup();
    const bad = crd("things", "Thing", "Namespaced", "bad.example.com", {
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: { properties: { a: { type: "string" } } },
            list: { type: "array" },
            both: {
              type: "object",
              properties: { x: { type: "string" } },
              additionalProperties: { type: "string" },
            },
          },
        },
      },
    });
    const res = await call("POST", CRDS, bad);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    const at = "spec.versions[0].schema.openAPIV3Schema";
    assert.deepEqual(
      res.body.details.causes.map((x: Json) => `${x.field}: ${x.message}`),
      [
        `${at}.properties[spec].type: Required value: must not be empty for specified object fields`,
        `${at}.properties[list].items: Required value: must be specified`,
        `${at}.properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      ],
    );
    const none = crd("things", "Thing", "Namespaced", "bad.example.com");
    (none.spec.versions[0] as Record<string, unknown>).schema = undefined;
    const missing = await call("POST", CRDS, JSON.parse(JSON.stringify(none)));
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /openAPIV3Schema: Required value: schemas are required/);
  });
});

describe("subresources and printer columns", () => {
  const group = "sub.example.com";
  const URL_ = `/apis/${group}/v1/namespaces/default/shards`;
  const version = {
    schema: {
      openAPIV3Schema: {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: { replicas: { type: "integer", minimum: 0 }, engine: { type: "string" } },
          },
          status: {
            type: "object",
            properties: { replicas: { type: "integer" }, selector: { type: "string" } },
          },
        },
      },
    },
    subresources: {
      status: {},
      scale: {
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.selector",
      },
    },
    additionalPrinterColumns: [
      { name: "Engine", type: "string", jsonPath: ".spec.engine" },
      { name: "Desired", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Current", type: "integer", jsonPath: ".status.replicas", priority: 1 },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  };
  async function withCrd() {
    const s = setup();
    const res = await s.call("POST", CRDS, crd("shards", "Shard", "Namespaced", group, version));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const created = await s.call("POST", URL_, {
      apiVersion: `${group}/v1`,
      kind: "Shard",
      metadata: { name: "s1" },
      spec: { replicas: 2, engine: "rocks" },
      status: { replicas: 9 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return { ...s, created: created.body };
  }

  it("status: dropped on create, ignored by the main endpoint, the only change through /status", async () => {
    const { call, created } = await withCrd();
    assert.equal(created.status, undefined);
    const main = await call("PUT", `${URL_}/s1`, {
      ...created,
      spec: { replicas: 3, engine: "rocks" },
      status: { replicas: 5 },
    });
    assert.equal(main.status, 200, JSON.stringify(main.body));
    assert.equal(main.body.status, undefined);
    assert.equal(main.body.spec.replicas, 3);
    const status = await call("PUT", `${URL_}/s1/status`, {
      ...main.body,
      spec: { replicas: 7, engine: "x" },
      status: { replicas: 3, selector: "app=shard" },
    });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(status.body.status, { replicas: 3, selector: "app=shard" });
    assert.deepEqual(status.body.spec, { replicas: 3, engine: "rocks" });
    const bad = await call("PUT", `${URL_}/s1/status`, {
      ...status.body,
      status: { replicas: "three" },
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /status\.replicas in body must be of type integer/);
  });

  it("scale: GET, PUT and PATCH an autoscaling/v1 Scale at the CRD's paths", async () => {
    const { call } = await withCrd();
    await call(
      "PATCH",
      `${URL_}/s1/status`,
      { status: { replicas: 2, selector: "app=shard" } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    const scale = await call("GET", `${URL_}/s1/scale`);
    assert.equal(scale.status, 200, JSON.stringify(scale.body));
    assert.equal(scale.body.kind, "Scale");
    assert.equal(scale.body.apiVersion, "autoscaling/v1");
    assert.deepEqual(scale.body.spec, { replicas: 2 });
    assert.deepEqual(scale.body.status, { replicas: 2, selector: "app=shard" });
    const put = await call("PUT", `${URL_}/s1/scale`, { ...scale.body, spec: { replicas: 4 } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.spec.replicas, 4);
    const patched = await call(
      "PATCH",
      `${URL_}/s1/scale`,
      { spec: { replicas: 5 } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    assert.equal(patched.body.spec.replicas, 5);
    const got = await call("GET", `${URL_}/s1`);
    assert.equal(got.body.spec.replicas, 5);
    assert.equal(got.body.spec.engine, "rocks");
    const discovery = await call("GET", `/apis/${group}/v1`);
    assert.deepEqual(
      discovery.body.resources.map((r: Json) => r.name),
      ["shards", "shards/status", "shards/scale"],
    );
  });

  it("prints the CRD's columns in a Table (null for a missing value)", async () => {
    const { call } = await withCrd();
    const table = await call("GET", URL_, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(table.body.kind, "Table");
    assert.deepEqual(
      table.body.columnDefinitions.map((c: Json) => [c.name, c.type, c.priority]),
      [
        ["Name", "string", 0],
        ["Engine", "string", 0],
        ["Desired", "integer", 0],
        ["Current", "integer", 1],
        ["Age", "date", 0],
      ],
    );
    const [name, engine, desired, current, age] = table.body.rows[0].cells;
    assert.deepEqual([name, engine, desired, current], ["s1", "rocks", 2, null]);
    assert.match(age, /^\d+[smhd]/);
  });

  it("refuses a CRD with a bad column path or scale path", async () => {
    const { call } = setup();
    const bad = crd("bads", "Bad", "Namespaced", "badcols.example.com", {
      ...version,
      subresources: { scale: { specReplicasPath: "spec.replicas" } },
      additionalPrinterColumns: [{ name: "X", type: "text", jsonPath: "{range .items[*]}" }],
    });
    const res = await call("POST", CRDS, bad);
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`),
      [
        'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: "spec.replicas": should be a json path under either `.spec` or `.status`',
        "spec.versions[0].subresources.scale.statusReplicasPath: Required value",
        'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "text": supported values: "integer", "number", "string", "boolean", "date"',
        'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "{range .items[*]}": must be a simple json path',
      ],
    );
  });
});

describe("versions", () => {
  it("are served by priority (v1 before v1beta1 before v1alpha1); every version reads the one object", async () => {
    const { call } = setup();
    const group = "versions.example.com";
    const schema = {
      openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    };
    const body = crd("tools", "Tool", "Namespaced", group);
    body.spec.versions = [
      { name: "v1alpha1", served: true, storage: false, schema },
      { name: "v1beta1", served: true, storage: true, schema },
      { name: "v1", served: true, storage: false, schema },
      { name: "v2", served: false, storage: false, schema },
    ];
    const created = await call("POST", CRDS, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.status.storedVersions, ["v1beta1"]);
    const groupInfo = await call("GET", `/apis/${group}`);
    assert.deepEqual(
      groupInfo.body.versions.map((v: Json) => v.version),
      ["v1", "v1beta1", "v1alpha1"],
    );
    assert.equal(groupInfo.body.preferredVersion.version, "v1");
    const tool = {
      apiVersion: `${group}/v1beta1`,
      kind: "Tool",
      metadata: { name: "t" },
      spec: { a: 1 },
    };
    assert.equal(
      (await call("POST", `/apis/${group}/v1beta1/namespaces/default/tools`, tool)).status,
      201,
    );
    const v1 = await call("GET", `/apis/${group}/v1/namespaces/default/tools/t`);
    assert.equal(v1.body.apiVersion, `${group}/v1`);
    assert.deepEqual(v1.body.spec, { a: 1 });
    assert.equal((await call("GET", `/apis/${group}/v2/namespaces/default/tools/t`)).status, 404);
  });
});
