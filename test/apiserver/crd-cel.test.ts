// CEL validation rules (x-kubernetes-validations) of custom resources, in process, as
// apiextensions-apiserver runs them: `failed rule: RULE` or the rule's message at the rule's
// node (value: the schema type), reason and fieldPath, messageExpression, transition rules
// with oldSelf (updates only; through properties and list-map keys), evaluation errors, rules
// left unchecked when the object has type errors, and rules that do not compile refused with
// their CRD. Custom kinds are process-wide: each test uses its own group and kind.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

async function withKind(group: string, kind: string, spec: Json) {
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
    return {
      status: res.status,
      body: ("body" in res ? JSON.parse(JSON.stringify(res.body)) : null) as Json,
    };
  };
  const plural = `${kind.toLowerCase()}s`;
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind },
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
  const created = await call("POST", CRDS, crd);
  const url = `/apis/${group}/v1/namespaces/default/${plural}`;
  const body = (name: string, s: Json) => ({
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name },
    spec: s,
  });
  return { call, created, url, body, crd };
}

describe("x-kubernetes-validations", () => {
  it("a false rule: `failed rule`, or its message, reason and fieldPath; messageExpression", async () => {
    const k = await withKind("cel1.example.com", "Pool", {
      type: "object",
      properties: {
        minReplicas: { type: "integer" },
        maxReplicas: { type: "integer" },
        ratio: { type: "number" },
      },
      "x-kubernetes-validations": [
        { rule: " self.minReplicas <= self.maxReplicas " },
        {
          rule: "self.maxReplicas <= 100",
          messageExpression: "'maxReplicas ' + string(self.maxReplicas) + ' is over 100'",
          fieldPath: ".maxReplicas",
          reason: "FieldValueForbidden",
        },
        { rule: "!has(self.ratio) || self.ratio < 1.0", message: "ratio must be below 1" },
      ],
    });
    assert.equal(k.created.status, 201, JSON.stringify(k.created.body));
    const res = await k.call(
      "POST",
      k.url,
      k.body("x", { minReplicas: 250, maxReplicas: 200, ratio: 1.5 }),
    );
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'Pool.cel1.example.com "x" is invalid: [spec: Invalid value: "object": failed rule: self.minReplicas <= self.maxReplicas, spec.maxReplicas: Forbidden: maxReplicas 200 is over 100, spec: Invalid value: "object": ratio must be below 1]',
    );
    assert.equal(
      (await k.call("POST", k.url, k.body("ok", { minReplicas: 1, maxReplicas: 3, ratio: 0.5 })))
        .status,
      201,
    );
  });

  it("transition rules (oldSelf) hold on updates only, through properties and list-map keys", async () => {
    const k = await withKind("cel2.example.com", "Volume", {
      type: "object",
      properties: {
        size: {
          type: "integer",
          "x-kubernetes-validations": [{ rule: "self >= oldSelf", message: "may not shrink" }],
        },
        disks: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              class: {
                type: "string",
                "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "is immutable" }],
              },
            },
          },
        },
      },
    });
    const created = await k.call(
      "POST",
      k.url,
      k.body("v", { size: 10, disks: [{ name: "a", class: "ssd" }] }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const update = (spec: Json) => k.call("PUT", `${k.url}/v`, { ...created.body, spec });
    const bad = await update({
      size: 5,
      disks: [
        { name: "b", class: "hdd" },
        { name: "a", class: "hdd" },
      ],
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'Volume.cel2.example.com "v" is invalid: [spec.size: Invalid value: "integer": may not shrink, spec.disks[1].class: Invalid value: "string": is immutable]',
    );
    // A new disk has no old value: its class is free.
    const grown = await update({
      size: 20,
      disks: [
        { name: "b", class: "hdd" },
        { name: "a", class: "ssd" },
      ],
    });
    assert.equal(grown.status, 200, JSON.stringify(grown.body));
  });

  it("an evaluation error names the rule; type errors leave the rules unchecked", async () => {
    const k = await withKind("cel3.example.com", "Gate", {
      type: "object",
      properties: { open: { type: "boolean" }, limit: { type: "integer" } },
      "x-kubernetes-validations": [{ rule: "self.limit > 0" }],
    });
    const missing = await k.call("POST", k.url, k.body("x", { open: true }));
    assert.equal(missing.status, 422);
    assert.equal(
      missing.body.message,
      'Gate.cel3.example.com "x" is invalid: spec: Invalid value: "object": no such key: limit evaluating rule: self.limit > 0',
    );
    const typed = await k.call("POST", k.url, k.body("x", { open: "yes", limit: 0 }));
    assert.equal(typed.status, 422);
    assert.equal(
      typed.body.message,
      'Gate.cel3.example.com "x" is invalid: [spec.open: Invalid value: "string": spec.open in body must be of type boolean: "string", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it("a rule that does not compile is refused with its CRD", async () => {
    const k = await withKind("cel4.example.com", "Broken", {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self.a +" }],
    });
    assert.equal(k.created.status, 422);
    assert.match(
      k.created.body.message,
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "brokens\.cel4\.example\.com" is invalid: spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.a \+": compilation failed: /,
    );
  });
});
