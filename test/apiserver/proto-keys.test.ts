// Members named "__proto__" (a valid ConfigMap data key, Secret key, or any key below a custom
// resource's preserved unknown fields) are data like any other on every write path: JSON and
// YAML bodies, update, the three patch types and server-side apply. An assignment
// `object["__proto__"] = value` sets the object's prototype instead, losing the member.
// Bodies are written as JSON text: a `{ "__proto__": … }` literal would not make the member.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = Record<string, unknown>;

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const SECRETS = "/api/v1/namespaces/default/secrets";
const WIDGETS = "/apis/proto.example.com/v1/namespaces/default/widgets";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, url: string, body: string, contentType: string) => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": contentType },
      body: Buffer.from(body),
    };
    const res = await handler(req);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res)}`);
  };
  const stored = (kind: string, name: string): Json => {
    const object = cluster.store.get(kind, "default", name);
    assert.ok(object, `${kind} ${name} stored`);
    return object as unknown as Json;
  };
  return { cluster, call, stored };
}

const JSON_TYPE = "application/json";
const MERGE = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY = "application/apply-patch+yaml";

function configMap(name: string, data: string): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${data}}`;
}

/** Creates the Widget custom resource definition with the given schema. */
async function createWidgets(s: ReturnType<typeof setup>, openAPIV3Schema: Json): Promise<void> {
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.proto.example.com" },
    spec: {
      group: "proto.example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
  await s.call(
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    JSON.stringify(crd),
    JSON_TYPE,
  );
}

/** Asserts `value` has an own member "__proto__" equal to `expected` and a plain prototype. */
function assertProtoMember(value: unknown, expected: unknown, what: string): void {
  const record = value as Json;
  assert.equal(Object.getPrototypeOf(record), Object.prototype, `${what}: prototype unchanged`);
  assert.ok(
    Object.hasOwn(record, "__proto__"),
    `${what}: has "__proto__": ${JSON.stringify(record)}`,
  );
  assert.deepEqual(Object.getOwnPropertyDescriptor(record, "__proto__")?.value, expected, what);
}

describe('a member named "__proto__"', () => {
  const cases: { name: string; write: (s: ReturnType<typeof setup>) => Promise<void> }[] = [
    {
      name: "create (JSON)",
      write: (s) =>
        s.call("POST", CONFIGMAPS, configMap("cm", '{"__proto__":"v","k":"1"}'), JSON_TYPE),
    },
    {
      name: "create (YAML)",
      write: (s) =>
        s.call(
          "POST",
          CONFIGMAPS,
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  __proto__: v\n  k: "1"\n',
          "application/yaml",
        ),
    },
    {
      name: "update adding it",
      write: async (s) => {
        await s.call("POST", CONFIGMAPS, configMap("cm", '{"k":"1"}'), JSON_TYPE);
        await s.call(
          "PUT",
          `${CONFIGMAPS}/cm`,
          configMap("cm", '{"k":"1","__proto__":"v"}'),
          JSON_TYPE,
        );
      },
    },
    ...[MERGE, STRATEGIC].map((type) => ({
      name: `${type} adding it`,
      write: async (s: ReturnType<typeof setup>) => {
        await s.call("POST", CONFIGMAPS, configMap("cm", '{"k":"1"}'), JSON_TYPE);
        await s.call("PATCH", `${CONFIGMAPS}/cm`, '{"data":{"__proto__":"v"}}', type);
      },
    })),
    {
      name: "JSON patch adding it",
      write: async (s) => {
        await s.call("POST", CONFIGMAPS, configMap("cm", '{"k":"1"}'), JSON_TYPE);
        const op = '[{"op":"add","path":"/data/__proto__","value":"v"}]';
        await s.call("PATCH", `${CONFIGMAPS}/cm`, op, JSON_PATCH);
      },
    },
    {
      name: "server-side apply creating the object",
      write: (s) =>
        s.call(
          "PATCH",
          `${CONFIGMAPS}/cm?fieldManager=m`,
          configMap("cm", '{"__proto__":"v","k":"1"}'),
          APPLY,
        ),
    },
    {
      name: "server-side apply adding it",
      write: async (s) => {
        await s.call(
          "PATCH",
          `${CONFIGMAPS}/cm?fieldManager=m`,
          configMap("cm", '{"k":"1"}'),
          APPLY,
        );
        await s.call(
          "PATCH",
          `${CONFIGMAPS}/cm?fieldManager=m`,
          configMap("cm", '{"k":"1","__proto__":"v"}'),
          APPLY,
        );
      },
    },
    {
      name: "server-side apply by a second manager",
      write: async (s) => {
        await s.call("POST", CONFIGMAPS, configMap("cm", '{"k":"1"}'), JSON_TYPE);
        await s.call(
          "PATCH",
          `${CONFIGMAPS}/cm?fieldManager=other`,
          configMap("cm", '{"__proto__":"v"}'),
          APPLY,
        );
      },
    },
  ];
  for (const c of cases) {
    it(`is a ConfigMap data key after ${c.name}`, async () => {
      const s = setup();
      await c.write(s);
      const data = s.stored("ConfigMap", "cm").data;
      assertProtoMember(data, "v", "data");
      assert.equal((data as Json).k, "1");
    });
  }

  it("is kept through a Secret's stringData", async () => {
    const s = setup();
    const body =
      '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"__proto__":"x"}}';
    await s.call("POST", SECRETS, body, JSON_TYPE);
    assertProtoMember(s.stored("Secret", "s").data, Buffer.from("x").toString("base64"), "data");
  });

  it("is kept below a custom resource's preserved unknown fields on every write path", async () => {
    const s = setup();
    await createWidgets(s, {
      type: "object",
      properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    });
    const widget = (name: string, spec: string) =>
      `{"apiVersion":"proto.example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":${spec}}`;
    await s.call(
      "POST",
      WIDGETS,
      widget("a", '{"__proto__":{"n":1},"x":{"__proto__":[1]}}'),
      JSON_TYPE,
    );
    await s.call("POST", WIDGETS, widget("b", '{"x":{}}'), JSON_TYPE);
    await s.call(
      "PATCH",
      `${WIDGETS}/b`,
      '{"spec":{"__proto__":{"n":1},"x":{"__proto__":[1]}}}',
      MERGE,
    );
    await s.call(
      "PATCH",
      `${WIDGETS}/c?fieldManager=m`,
      widget("c", '{"__proto__":{"n":1},"x":{"__proto__":[1]}}'),
      APPLY,
    );
    for (const name of ["a", "b", "c"]) {
      const spec = s.stored("Widget", name).spec as Json;
      assertProtoMember(spec, { n: 1 }, `${name}: spec`);
      assertProtoMember(spec.x, [1], `${name}: spec.x`);
    }
  });

  it("is kept at the root of a custom resource whose schema preserves unknown fields there", async () => {
    const s = setup();
    await createWidgets(s, { type: "object", "x-kubernetes-preserve-unknown-fields": true });
    const widget = (name: string, members: string) =>
      `{"apiVersion":"proto.example.com/v1","kind":"Widget","metadata":{"name":"${name}"}${members}}`;
    await s.call("POST", WIDGETS, widget("a", ',"__proto__":{"n":1}'), JSON_TYPE);
    await s.call("POST", WIDGETS, widget("b", ',"k":1'), JSON_TYPE);
    await s.call("PUT", `${WIDGETS}/b`, widget("b", ',"__proto__":{"n":1}'), JSON_TYPE);
    await s.call("POST", WIDGETS, widget("c", ',"k":1'), JSON_TYPE);
    await s.call("PATCH", `${WIDGETS}/c`, '{"__proto__":{"n":1}}', MERGE);
    await s.call(
      "PATCH",
      `${WIDGETS}/d?fieldManager=m`,
      widget("d", ',"__proto__":{"n":1}'),
      APPLY,
    );
    for (const name of ["a", "b", "c", "d"]) {
      assertProtoMember(s.stored("Widget", name), { n: 1 }, `${name}: the object`);
    }
  });
});
