// Custom resources in process, the structural schema's remaining value validations and the
// CRD lifecycle, as apiextensions-apiserver: allOf/anyOf/oneOf/not (kube-openapi's composite
// messages), minProperties/maxProperties, x-kubernetes-list-type set and map uniqueness (422
// Duplicate value), pruning inside additionalProperties, names clashing with another CRD of the
// group (NamesAccepted False: ListKindConflict, KindConflict; accepted once the other goes),
// and a CRD delete ending the open watches on its resources. Custom kinds are process-wide:
// each test uses its own group and kinds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, url: string, body?: unknown) => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: {},
    };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    const res = await handler(req);
    // The controllers woken by the write run after it (a microtask).
    await new Promise((resolve) => setImmediate(resolve));
    return {
      status: res.status,
      body: ("body" in res ? JSON.parse(JSON.stringify(res.body)) : null) as Json,
      headers: (res.headers ?? {}) as Record<string, string>,
    };
  };
  return { cluster, call, handler };
}

function crd(group: string, kind: string, plural: string, spec: Json, names: Json = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, ...names },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

async function withKind(group: string, kind: string, plural: string, spec: Json) {
  const s = setup();
  const created = await s.call("POST", CRDS, crd(group, kind, plural, spec));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const url = `/apis/${group}/v1/namespaces/default/${plural}`;
  const create = (name: string, body: Json, query = "") =>
    s.call("POST", `${url}${query}`, {
      apiVersion: `${group}/v1`,
      kind,
      metadata: { name },
      spec: body,
    });
  return { ...s, url, create };
}

describe("value validations of the structural schema", () => {
  it("oneOf, anyOf, allOf and not: kube-openapi's composite errors with the closest failure's", async () => {
    const k = await withKind("compose.example.com", "Source", "sources", {
      type: "object",
      properties: {
        uri: { type: "string" },
        file: { type: "string" },
        port: { type: "integer" },
        mode: { type: "string" },
      },
      oneOf: [{ required: ["uri"] }, { required: ["file"] }],
      anyOf: [{ properties: { port: { minimum: 1 } } }, { required: ["mode"] }],
      not: { required: ["mode", "port"] },
    });
    const kindName = "Source.compose.example.com";
    const cases = [
      {
        spec: { port: 80 },
        message: `${kindName} "x" is invalid: [: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid, spec.uri: Required value]`,
      },
      {
        spec: { uri: "a", file: "b", port: 80 },
        message: `${kindName} "x" is invalid: : Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
      },
      {
        spec: { uri: "a", port: 0 },
        message: `${kindName} "x" is invalid: [: Invalid value: "": "spec" must validate at least one schema (anyOf), spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1]`,
      },
      {
        spec: { uri: "a", port: 80, mode: "fast" },
        message: `${kindName} "x" is invalid: : Invalid value: "": "spec" must not validate the schema (not)`,
      },
    ];
    for (const c of cases) {
      const res = await k.create("x", c.spec);
      assert.equal(res.status, 422, JSON.stringify(c.spec));
      assert.equal(res.body.message, c.message);
      assert.equal(k.cluster.store.list("Source").length, 0);
    }
    assert.equal((await k.create("ok", { uri: "a", port: 80 })).status, 201);
  });

  it("anyOf and oneOf report the alternative kube-openapi ran the most checks on, not the one with the fewest errors", async () => {
    const k = await withKind("closest.example.com", "Shape", "shapes", {
      type: "object",
      properties: { size: { type: "string" }, count: { type: "integer" } },
      anyOf: [
        { required: ["kind"] },
        { properties: { size: { maxLength: 2 }, count: { minimum: 5 } } },
      ],
      oneOf: [
        { properties: { size: { maxLength: 3 } }, required: ["a", "b"] },
        { required: ["shape"] },
      ],
    });
    const res = await k.create("x", { size: "long", count: 1 });
    assert.equal(res.status, 422);
    // anyOf: the second alternative (two errors) looked at both fields; the first (one error)
    // at none. oneOf: the first (three errors) checked size deeper than the second (one).
    const body = res.body.message as string;
    const causes = (res.body.details.causes as Json[]).map((c) => `${c.field}: ${c.message}`);
    assert.match(body, /^Shape\.closest\.example\.com "x" is invalid: \[/);
    assert.deepEqual(
      new Set(causes),
      new Set([
        ': Invalid value: "": "spec" must validate at least one schema (anyOf)',
        "spec.size: Too long: may not be more than 2 bytes",
        "spec.count: Invalid value: 1: spec.count in body should be greater than or equal to 5",
        ': Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid',
        "spec.size: Too long: may not be more than 3 bytes",
        "spec.a: Required value",
        "spec.b: Required value",
      ]),
    );
  });

  it("allOf: every subschema's errors, then the composite one", async () => {
    const k = await withKind("allof.example.com", "Limit", "limits", {
      type: "object",
      properties: { low: { type: "integer" }, high: { type: "integer" } },
      allOf: [{ required: ["low"] }, { required: ["high"] }],
    });
    const res = await k.create("x", {});
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'Limit.allof.example.com "x" is invalid: [spec.low: Required value, spec.high: Required value, : Invalid value: "": "spec" must validate all the schemas (allOf). None validated]',
    );
  });

  it("minProperties and maxProperties", async () => {
    const k = await withKind("props.example.com", "Bag", "bags", {
      type: "object",
      minProperties: 1,
      properties: {
        tags: { type: "object", maxProperties: 2, additionalProperties: { type: "string" } },
      },
    });
    const empty = await k.create("x", {});
    assert.equal(empty.status, 422);
    assert.equal(
      empty.body.message,
      'Bag.props.example.com "x" is invalid: spec: Invalid value: 1: spec in body should have at least 1 properties',
    );
    const many = await k.create("x", { tags: { a: "1", b: "2", c: "3" } });
    assert.equal(many.status, 422);
    assert.equal(
      many.body.message,
      'Bag.props.example.com "x" is invalid: spec.tags: Too many: must have at most 2 items',
    );
    assert.equal((await k.create("ok", { tags: { a: "1" } })).status, 201);
  });

  it("x-kubernetes-list-type set and map: a repeated item or key is a Duplicate value", async () => {
    const k = await withKind("lists.example.com", "Route", "routes", {
      type: "object",
      properties: {
        hosts: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "port"],
          items: {
            type: "object",
            required: ["name", "port"],
            properties: { name: { type: "string" }, port: { type: "integer" } },
          },
        },
      },
    });
    const res = await k.create("x", {
      hosts: ["a", "b", "a"],
      ports: [
        { name: "http", port: 80 },
        { name: "http", port: 81 },
        { name: "http", port: 80 },
      ],
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'Route.lists.example.com "x" is invalid: [spec.hosts[2]: Duplicate value: "a", spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http", "port":80}]',
    );
    assert.equal(
      (await k.create("ok", { hosts: ["a", "b"], ports: [{ name: "http", port: 80 }] })).status,
      201,
    );
  });
});

describe("x-kubernetes-list-type in a CRD's schema and its custom resources", () => {
  const portsCrd = (group: string, ports: Json) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gates.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "gates", singular: "gate", kind: "Gate" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { ports } } },
            },
          },
        },
      ],
    },
  });
  const at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[ports]";
  const mapOf = (items: Json, keys: Json = ["name", "port"], extra: Json = {}) => ({
    type: "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": keys,
    items,
    ...extra,
  });
  const NAME_PORT = { name: { type: "string" }, port: { type: "integer" } };

  it("a list-map key neither required nor defaulted, or nullable, refuses the CRD (422, upstream's messages)", async () => {
    const cases = [
      {
        ports: mapOf({ type: "object", properties: NAME_PORT }),
        causes: [
          `${at}.items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
          `${at}.items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
        ],
      },
      {
        ports: mapOf({
          type: "object",
          required: ["name"],
          properties: { ...NAME_PORT, port: { type: "integer", default: 80, nullable: true } },
        }),
        causes: [
          `${at}.items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
        ],
      },
      {
        ports: mapOf({ type: "object", required: ["name"], properties: NAME_PORT }, [
          "name",
          "proto",
        ]),
        causes: [
          `${at}.x-kubernetes-list-map-keys: Invalid value: ["name","proto"]: entries must all be names of item properties`,
        ],
      },
      {
        ports: {
          type: "array",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", required: ["name"], properties: NAME_PORT },
        },
        causes: [
          `${at}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
        ],
      },
      {
        ports: mapOf({ type: "string" }, ["name"]),
        causes: [
          `${at}.items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
        ],
      },
    ];
    for (const [i, c] of cases.entries()) {
      const s = setup();
      const res = await s.call("POST", CRDS, portsCrd(`keys${i}.example.com`, c.ports));
      assert.equal(res.status, 422, JSON.stringify(res.body));
      const message = c.causes.length === 1 ? c.causes[0] : `[${c.causes.join(", ")}]`;
      assert.equal(
        res.body.message,
        `CustomResourceDefinition.apiextensions.k8s.io "gates.keys${i}.example.com" is invalid: ${message}`,
      );
      assert.equal(s.cluster.store.list("CustomResourceDefinition").length, 0);
    }
  });

  it("an update keeps a stored CRD that predates the key rules (ratcheting); a valid one must stay valid", async () => {
    const s = setup();
    const loose = portsCrd("ratchet.example.com", mapOf({ type: "object", properties: NAME_PORT }));
    // As stored by an older server (or data directory) that did not check the keys.
    s.cluster.store.create(loose as never);
    const stored = s.cluster.store.get("CustomResourceDefinition", "", "gates.ratchet.example.com");
    const relabelled = { ...loose, metadata: { ...stored?.metadata, labels: { team: "a" } } };
    const res = await s.call("PUT", `${CRDS}/gates.ratchet.example.com`, relabelled);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const strict = portsCrd(
      "strict.example.com",
      mapOf({ type: "object", required: ["name", "port"], properties: NAME_PORT }),
    );
    assert.equal((await s.call("POST", CRDS, strict)).status, 201);
    const current = s.cluster.store.get("CustomResourceDefinition", "", "gates.strict.example.com");
    const loosened = {
      ...portsCrd("strict.example.com", mapOf({ type: "object", properties: NAME_PORT })),
      metadata: current?.metadata,
    };
    const refused = await s.call("PUT", `${CRDS}/gates.strict.example.com`, loosened);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.match(refused.body.message, /so it must have a default or be a required property/);
  });

  it("custom resources: a missing key is Required (and unspecified for uniqueness), only a key's second appearance is a Duplicate, a non-object item is Invalid", async () => {
    const k = await withKind("items.example.com", "Door", "doors", {
      type: "object",
      properties: {
        ports: mapOf({ type: "object", required: ["name"], properties: NAME_PORT }, ["name"]),
        pairs: mapOf({ type: "object", required: ["name", "port"], properties: NAME_PORT }),
        tags: {
          type: "array",
          "x-kubernetes-list-type": "set",
          items: { type: "object", "x-kubernetes-map-type": "atomic", properties: NAME_PORT },
        },
      },
    });
    const kind = 'Door.items.example.com "x" is invalid';
    const cases = [
      {
        spec: { ports: [{ port: 1 }, { port: 2 }] },
        message: `${kind}: [spec.ports[0].name: Required value, spec.ports[1].name: Required value, spec.ports[1]: Duplicate value: map[string]interface {}{}]`,
      },
      {
        spec: { ports: [{ name: "a" }, { name: "a" }, { name: "a" }] },
        message: `${kind}: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}`,
      },
      {
        spec: { pairs: [{ name: "a" }, { name: "a" }] },
        message: `${kind}: [spec.pairs[0].port: Required value, spec.pairs[1].port: Required value, spec.pairs[1]: Duplicate value: map[string]interface {}{"name":"a"}]`,
      },
      {
        spec: { ports: [{ name: "a" }, 5] },
        message: `${kind}: [spec.ports[1]: Invalid value: "integer": spec.ports[1] in body must be of type object: "integer", spec.ports[1]: Invalid value: 5: must be an object for an array of list-type map]`,
      },
      {
        // A set's object items are compared as Go's json.Marshal writes them: keys sorted.
        spec: {
          tags: [
            { name: "a", port: 1 },
            { port: 1, name: "a" },
          ],
        },
        message: `${kind}: spec.tags[1]: Duplicate value: {"name":"a","port":1}`,
      },
    ];
    for (const c of cases) {
      const res = await k.create("x", c.spec);
      assert.equal(res.status, 422, JSON.stringify(c.spec));
      assert.equal(res.body.message, c.message);
      assert.equal(k.cluster.store.list("Door").length, 0);
    }
  });
});

describe("pruning", () => {
  it("reaches inside additionalProperties: a map value's unknown fields are dropped (Strict: 400)", async () => {
    const k = await withKind("prune.example.com", "Team", "teams", {
      type: "object",
      properties: {
        members: {
          type: "object",
          additionalProperties: { type: "object", properties: { role: { type: "string" } } },
        },
      },
    });
    const res = await k.create("x", { members: { ann: { role: "lead", shoe: 38 } } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.spec.members, { ann: { role: "lead" } });
    assert.match(res.headers.warning ?? "", /unknown field \\"spec.members.ann.shoe\\"/);
    const strict = await k.create(
      "y",
      { members: { bo: { shoe: 41 } } },
      "?fieldValidation=Strict",
    );
    assert.equal(strict.status, 400);
    assert.match(
      strict.body.message,
      /strict decoding error: unknown field "spec.members.bo.shoe"/,
    );
  });
});

describe("names another CRD of the group holds", () => {
  it("ListKindConflict / KindConflict, the free names accepted; accepted and served once the other goes", async () => {
    const s = setup();
    const group = "names.example.com";
    const object = { type: "object" };
    assert.equal((await s.call("POST", CRDS, crd(group, "Widget", "widgets", object))).status, 201);
    const second = await s.call(
      "POST",
      CRDS,
      crd(group, "Gadget", "gadgets", object, { listKind: "WidgetList" }),
    );
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const conditions = (body: Json) =>
      body.status.conditions.map((c: Json) => [c.type, c.status, c.reason, c.message]);
    assert.deepEqual(conditions(second.body), [
      ["NamesAccepted", "False", "ListKindConflict", '"WidgetList" is already in use'],
      ["Established", "False", "NotAccepted", "not all names are accepted"],
    ]);
    assert.deepEqual(second.body.status.acceptedNames, {
      plural: "gadgets",
      singular: "gadget",
      kind: "Gadget",
    });
    assert.equal((await s.call("GET", `/apis/${group}/v1/namespaces/default/gadgets`)).status, 404);
    // Its kind alone is taken (the default list kind WidgetList would be too: the last wins).
    const third = await s.call(
      "POST",
      CRDS,
      crd(group, "Widget", "things", object, { singular: "thing", listKind: "ThingList" }),
    );
    assert.deepEqual(conditions(third.body)[0], [
      "NamesAccepted",
      "False",
      "KindConflict",
      '"Widget" is already in use',
    ]);
    assert.deepEqual(third.body.status.acceptedNames, {
      plural: "things",
      singular: "thing",
      kind: "",
      listKind: "ThingList",
    });
    assert.equal((await s.call("DELETE", `${CRDS}/widgets.${group}`)).status, 200);
    const gadgets = await s.call("GET", `${CRDS}/gadgets.${group}`);
    assert.deepEqual(
      conditions(gadgets.body).map((c: string[]) => c.slice(0, 3)),
      [
        ["NamesAccepted", "True", "NoConflicts"],
        ["Established", "True", "InitialNamesAccepted"],
      ],
    );
    assert.equal((await s.call("GET", `/apis/${group}/v1/namespaces/default/gadgets`)).status, 200);
  });
});

describe("deleting a CRD", () => {
  it("ends the open watches on its resources after their DELETED events", async () => {
    const s = setup();
    const group = "watchend.example.com";
    await s.call("POST", CRDS, crd(group, "Probe", "probes", { type: "object" }));
    const url = `/apis/${group}/v1/namespaces/default/probes`;
    await s.call("POST", url, {
      apiVersion: `${group}/v1`,
      kind: "Probe",
      metadata: { name: "p1" },
    });
    const res: ApiResponse = await s.handler({
      method: "GET",
      path: url,
      query: new URLSearchParams("watch=true&timeoutSeconds=30&resourceVersion=0"),
      headers: {},
    });
    assert.ok("stream" in res);
    const events: string[] = [];
    const ended = (async () => {
      for await (const line of res.stream) {
        const event = JSON.parse(String(line));
        events.push(`${event.type} ${event.object.metadata.name}`);
      }
    })();
    await s.call("DELETE", `${CRDS}/probes.${group}`);
    const timeout = new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`still open after ${events.join(", ")}`)), 5000).unref(),
    );
    await Promise.race([ended, timeout]);
    assert.deepEqual(events, ["ADDED p1", "DELETED p1"]);
  });
});
