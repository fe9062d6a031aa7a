// APIService (apiregistration.k8s.io/v1) in process: the Local APIServices registered for every
// served group-version (kube-apiserver's priorities, the CRDs' kept in step), validation with
// kube-aggregator's messages, the service port default, the Available condition (Local, the
// Service and endpoint checks, a group Horizon serves or not), `kubectl get apiservice`'s table.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Json }> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    const res = await handler(req);
    // Let the controllers woken by a write run (they work after it, a microtask).
    await new Promise((resolve) => setImmediate(resolve));
    return {
      status: res.status,
      body: "body" in res ? JSON.parse(JSON.stringify(res.body)) : null,
    };
  };
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await call(method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const row = async (name: string) => {
    const table = await call("GET", `${APISERVICES}/${name}`, undefined, { accept: TABLE });
    assert.equal(table.status, 200, JSON.stringify(table.body));
    return table.body.rows[0].cells.slice(0, 3);
  };
  return { cluster, call, ok, row };
}

function apiService(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec };
}

const ADAPTER = {
  group: "custom.metrics.k8s.io",
  version: "v1beta1",
  service: { name: "adapter", namespace: "default" },
  insecureSkipTLSVerify: true,
  groupPriorityMinimum: 100,
  versionPriority: 100,
};

describe("Local APIServices, as kube-apiserver's autoregistration", () => {
  it("one per served group-version, with upstream's priorities, Available as Local", async () => {
    const s = setup();
    const list = await s.ok("GET", APISERVICES);
    const byName = new Map<string, Json>(list.items.map((i: Json) => [i.metadata.name, i]));
    for (const name of [
      "v1.",
      "v1.apps",
      "v2.autoscaling",
      "v1.autoscaling",
      "v1.batch",
      "v1.rbac.authorization.k8s.io",
      "v1.apiextensions.k8s.io",
      "v1.authentication.k8s.io",
      "v1beta1.metrics.k8s.io",
      "v1beta2.custom.metrics.k8s.io",
    ]) {
      assert.ok(byName.has(name), `${name} in ${[...byName.keys()].join(" ")}`);
    }
    assert.equal(byName.has("v1.apiregistration.k8s.io"), false, "the aggregator's own group");
    const core = byName.get("v1.");
    assert.deepEqual(core.spec, {
      group: "",
      version: "v1",
      groupPriorityMinimum: 18000,
      versionPriority: 1,
    });
    assert.deepEqual(core.metadata.labels, {
      "kube-aggregator.kubernetes.io/automanaged": "onstart",
    });
    assert.deepEqual(byName.get("v2.autoscaling").spec, {
      group: "autoscaling",
      version: "v2",
      groupPriorityMinimum: 17500,
      versionPriority: 30,
    });
    const [condition] = byName.get("v1.apps").status.conditions;
    assert.deepEqual(
      { ...condition, lastTransitionTime: typeof condition.lastTransitionTime },
      {
        type: "Available",
        status: "True",
        reason: "Local",
        message: "Local APIServices are always available",
        lastTransitionTime: "string",
      },
    );
    assert.deepEqual(await s.row("v1.apps"), ["v1.apps", "Local", "True"]);
    const table = await s.call("GET", APISERVICES, undefined, { accept: TABLE });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: Json) => c.name),
      ["Name", "Service", "Available", "Age"],
    );
  });

  it("a user's change to a built-in one is kept", async () => {
    const s = setup();
    const apps = await s.ok("GET", `${APISERVICES}/v1.apps`);
    await s.ok("PUT", `${APISERVICES}/v1.apps`, {
      ...apps,
      spec: { ...apps.spec, versionPriority: 20 },
    });
    assert.equal((await s.ok("GET", `${APISERVICES}/v1.apps`)).spec.versionPriority, 20);
  });

  it("a CRD's group-version is registered (1000/100, managed) while the CRD serves it", async () => {
    const s = setup();
    await s.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gadgets.apisvc.example.com" },
      spec: {
        group: "apisvc.example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object" } },
          },
        ],
      },
    });
    const registered = await s.ok("GET", `${APISERVICES}/v1.apisvc.example.com`);
    assert.deepEqual(registered.spec, {
      group: "apisvc.example.com",
      version: "v1",
      groupPriorityMinimum: 1000,
      versionPriority: 100,
    });
    assert.equal(registered.metadata.labels["kube-aggregator.kubernetes.io/automanaged"], "true");
    assert.deepEqual(await s.row("v1.apisvc.example.com"), [
      "v1.apisvc.example.com",
      "Local",
      "True",
    ]);
    await s.ok(
      "DELETE",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.apisvc.example.com",
    );
    assert.equal((await s.call("GET", `${APISERVICES}/v1.apisvc.example.com`)).status, 404);
  });
});

describe("a user's APIService", () => {
  it("is validated as kube-aggregator validates it (422, nothing stored)", async () => {
    const s = setup();
    const cases = [
      {
        name: "v1beta1.wrong.example.com",
        spec: { ...ADAPTER },
        message:
          'APIService.apiregistration.k8s.io "v1beta1.wrong.example.com" is invalid: metadata.name: Invalid value: "v1beta1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1beta1.custom.metrics.k8s.io"',
      },
      {
        name: "v2.",
        spec: { version: "v2", groupPriorityMinimum: 1, versionPriority: 1 },
        message:
          'APIService.apiregistration.k8s.io "v2." is invalid: spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
      },
      {
        name: "V1.example.com",
        spec: { group: "example.com", version: "V1", groupPriorityMinimum: 1, versionPriority: 1 },
        message:
          "APIService.apiregistration.k8s.io \"V1.example.com\" is invalid: spec.version: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      },
      {
        name: "v1.example.com",
        spec: {
          group: "example.com",
          version: "v1",
          groupPriorityMinimum: 20001,
          versionPriority: 0,
        },
        message:
          'APIService.apiregistration.k8s.io "v1.example.com" is invalid: [spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000, spec.versionPriority: Invalid value: 0: must be positive and less than 1000]',
      },
      {
        name: "v1.example.com",
        spec: {
          group: "example.com",
          version: "v1",
          groupPriorityMinimum: 1,
          versionPriority: 1,
          caBundle: Buffer.from("pem").toString("base64"),
        },
        message:
          'APIService.apiregistration.k8s.io "v1.example.com" is invalid: spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
      },
      {
        name: "v1beta1.custom.metrics.k8s.io",
        spec: { ...ADAPTER, service: { port: 70000 } },
        message:
          'APIService.apiregistration.k8s.io "v1beta1.custom.metrics.k8s.io" is invalid: [spec.service.namespace: Required value, spec.service.name: Required value, spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive]',
      },
      {
        name: "v1beta1.custom.metrics.k8s.io",
        spec: { ...ADAPTER, caBundle: Buffer.from("pem").toString("base64") },
        message:
          'APIService.apiregistration.k8s.io "v1beta1.custom.metrics.k8s.io" is invalid: spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
      },
    ];
    for (const c of cases) {
      const res = await s.call("POST", APISERVICES, apiService(c.name, c.spec));
      assert.equal(res.status, 422, `${c.name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.message, c.message);
    }
    // The built-in v1beta1.custom.metrics.k8s.io is the only one of those names stored.
    const stored = (await s.ok("GET", APISERVICES)).items.map((i: Json) => i.metadata.name);
    for (const name of ["v1beta1.wrong.example.com", "v2.", "V1.example.com", "v1.example.com"]) {
      assert.equal(stored.includes(name), false, name);
    }
  });

  it("defaults the service port to 443; Available follows the Service and its endpoints", async () => {
    const s = setup();
    await s.ok("DELETE", `${APISERVICES}/v1beta1.custom.metrics.k8s.io`);
    const created = await s.ok(
      "POST",
      APISERVICES,
      apiService("v1beta1.custom.metrics.k8s.io", ADAPTER),
    );
    assert.deepEqual(created.spec.service, { name: "adapter", namespace: "default", port: 443 });
    assert.equal(created.status, undefined, "the create's status is the controller's to write");
    assert.deepEqual(await s.row("v1beta1.custom.metrics.k8s.io"), [
      "v1beta1.custom.metrics.k8s.io",
      "default/adapter",
      "False (ServiceNotFound)",
    ]);
    const condition = async () =>
      (await s.ok("GET", `${APISERVICES}/v1beta1.custom.metrics.k8s.io`)).status.conditions[0];
    assert.equal((await condition()).message, 'service/adapter in "default" is not present');
    await s.ok("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "adapter" },
      spec: { ports: [{ name: "https", port: 8443, targetPort: 6443 }] },
    });
    assert.deepEqual(
      [(await condition()).reason, (await condition()).message],
      ["ServicePortError", 'service/adapter in "default" is not listening on port 443'],
    );
    const service = await s.ok("GET", "/api/v1/namespaces/default/services/adapter");
    await s.ok("PUT", "/api/v1/namespaces/default/services/adapter", {
      ...service,
      spec: { ...service.spec, ports: [{ name: "https", port: 443, targetPort: 6443 }] },
    });
    const missing = await condition();
    assert.ok(
      ["EndpointsNotFound", "MissingEndpoints"].includes(missing.reason),
      JSON.stringify(missing),
    );
    const endpoints = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "adapter" },
      subsets: [
        {
          addresses: [{ ip: "10.0.0.9" }],
          ports: [{ name: "https", port: 6443, protocol: "TCP" }],
        },
      ],
    };
    s.cluster.store.list("Endpoints", "default").some((e) => e.metadata.name === "adapter")
      ? s.cluster.store.update({
          ...s.cluster.store.get("Endpoints", "default", "adapter")!,
          subsets: endpoints.subsets,
        })
      : s.cluster.store.create({
          ...endpoints,
          metadata: { ...endpoints.metadata, namespace: "default" },
        });
    await new Promise((resolve) => setImmediate(resolve));
    const passed = await condition();
    assert.deepEqual(
      [passed.status, passed.reason, passed.message],
      ["True", "Passed", "all checks passed"],
    );
  });

  it("a group Horizon does not serve: FailedDiscoveryCheck (it proxies to no service)", async () => {
    const s = setup();
    await s.ok("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "ext" },
      spec: { type: "ExternalName", externalName: "ext.example.com" },
    });
    await s.ok(
      "POST",
      APISERVICES,
      apiService("v1.ext.example.com", {
        ...ADAPTER,
        group: "ext.example.com",
        version: "v1",
        service: { name: "ext", namespace: "default" },
      }),
    );
    assert.deepEqual(await s.row("v1.ext.example.com"), [
      "v1.ext.example.com",
      "default/ext",
      "False (FailedDiscoveryCheck)",
    ]);
  });

  it("a status write with a condition status other than True/False/Unknown is refused", async () => {
    const s = setup();
    const apps = await s.ok("GET", `${APISERVICES}/v1.apps`);
    const res = await s.call("PUT", `${APISERVICES}/v1.apps/status`, {
      ...apps,
      status: { conditions: [{ type: "Available", status: "Maybe" }] },
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      'APIService.apiregistration.k8s.io "v1.apps" is invalid: status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
    );
  });
});
