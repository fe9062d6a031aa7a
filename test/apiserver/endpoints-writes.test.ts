// Endpoints and EndpointSlices written by clients, in process over the embedded cluster with its
// network (fake clock): upstream's validation messages and defaults, a selectorless Service's
// Endpoints kept as written, and the controllers putting back what a client changes in theirs
// (a deleted Endpoints made again, an edited managed slice restored) while a client's own
// slice is left alone.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { parseLoopbackCidr } from "../../src/cluster/ipam.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const ENDPOINTS = "/api/v1/namespaces/default/endpoints";
const SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";

function cidr(text: string) {
  const parsed = parseLoopbackCidr(text, "--pod-cidr");
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cidr;
}

function setup() {
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: T0,
    network: { podCidr: cidr("127.64.0.0/16"), serviceCidr: cidr("127.65.0.0/16") },
  });
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
    if ("stream" in res) res.close();
    return {
      status: res.status,
      body: ("body" in res ? JSON.parse(JSON.stringify(res.body)) : null) as Json,
      warning: res.headers?.warning,
    };
  };
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await call(method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { cluster, call, ok };
}

function endpointsOf(name: string, subsets: unknown[]) {
  return { apiVersion: "v1", kind: "Endpoints", metadata: { name }, subsets };
}

function slice(name: string, extra: Record<string, unknown>) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.1.2.3"] }],
    ports: [{ name: "http", port: 80 }],
    ...extra,
  };
}

describe("a client's Endpoints", () => {
  it("is validated as kube-apiserver does (422, nothing stored)", async () => {
    const s = setup();
    const cases = [
      {
        subsets: [{ ports: [{ port: 80 }] }],
        message:
          'Endpoints "db" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
      },
      {
        subsets: [{ addresses: [{ ip: "127.0.0.5" }] }],
        message:
          'Endpoints "db" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.5": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      },
      {
        subsets: [{ addresses: [{ ip: "db.example.com" }] }],
        message:
          'Endpoints "db" is invalid: [subsets[0].addresses[0].ip: Invalid value: "db.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].addresses[0].ip: Invalid value: "db.example.com": must be a valid IP address]',
      },
      {
        subsets: [
          {
            addresses: [{ ip: "10.0.0.5" }],
            ports: [{ port: 5432 }, { name: "Metrics", port: 70000, protocol: "HTTP" }],
          },
        ],
        message:
          'Endpoints "db" is invalid: [subsets[0].ports[0].name: Required value, subsets[0].ports[1].name: Invalid value: "Metrics": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive, subsets[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"]',
      },
    ];
    for (const c of cases) {
      const res = await s.call("POST", ENDPOINTS, endpointsOf("db", c.subsets));
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.message, c.message);
      assert.equal(s.cluster.store.get("Endpoints", "default", "db"), undefined);
    }
  });

  it("of a Service without selector is kept as written (protocol defaulted to TCP)", async () => {
    const s = setup();
    await s.ok("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "db" },
      spec: { ports: [{ port: 5432 }] },
    });
    const created = await s.ok(
      "POST",
      ENDPOINTS,
      endpointsOf("db", [{ addresses: [{ ip: "10.0.0.5" }], ports: [{ port: 5432 }] }]),
    );
    assert.deepEqual(created.subsets, [
      { addresses: [{ ip: "10.0.0.5" }], ports: [{ port: 5432, protocol: "TCP" }] },
    ]);
    s.cluster.advanceTo(at(30));
    const kept = await s.ok("GET", `${ENDPOINTS}/db`);
    assert.deepEqual(kept.subsets, created.subsets);
    const updated = await s.ok("PUT", `${ENDPOINTS}/db`, {
      ...kept,
      subsets: [{ addresses: [{ ip: "10.0.0.6" }], ports: [{ port: 5432 }] }],
    });
    s.cluster.advanceTo(at(60));
    assert.deepEqual((await s.ok("GET", `${ENDPOINTS}/db`)).subsets, updated.subsets);
  });

  it("of a Service with a selector: a deleted one is made again by the endpoints controller", async () => {
    const s = setup();
    s.cluster.create(deployment({ replicas: 1 }));
    await s.ok("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
    });
    s.cluster.advanceTo(at(10));
    const before = await s.ok("GET", `${ENDPOINTS}/web`);
    assert.ok(before.subsets?.length > 0, JSON.stringify(before));
    await s.ok("DELETE", `${ENDPOINTS}/web`);
    // As `horizon up`'s driver does after clients' writes.
    s.cluster.reconcile();
    const again = await s.ok("GET", `${ENDPOINTS}/web`);
    assert.deepEqual(again.subsets, before.subsets);
    assert.notEqual(again.metadata.uid, before.metadata.uid);
  });
});

describe("v1 Endpoints is deprecated (since 1.33)", () => {
  it("every request on Endpoints gets upstream's warning; EndpointSlices and Services none", async () => {
    const { call } = setup();
    const warning =
      '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
    const service = { metadata: { name: "db" }, spec: { ports: [{ port: 5432 }] } };
    const created = await call("POST", "/api/v1/namespaces/default/services", service);
    assert.equal(created.warning, undefined, "a Service");
    const endpoints = {
      metadata: { name: "db" },
      subsets: [{ addresses: [{ ip: "10.20.0.5" }], ports: [{ port: 5432 }] }],
    };
    for (const [method, url, body] of [
      ["POST", ENDPOINTS, endpoints],
      ["GET", `${ENDPOINTS}/db`],
      ["GET", ENDPOINTS],
      ["GET", `${ENDPOINTS}?watch=1`],
      ["GET", "/api/v1/endpoints"],
      ["GET", `${ENDPOINTS}/missing`],
    ] as const) {
      const res = await call(method, url, body);
      assert.equal(res.warning, warning, `${method} ${url} (${res.status})`);
    }
    assert.equal((await call("GET", SLICES)).warning, undefined, "EndpointSlices");
  });
});

describe("a client's EndpointSlice", () => {
  it("is validated and defaulted as kube-apiserver does", async () => {
    const s = setup();
    const cases = [
      {
        body: slice("a", { addressType: "IPX" }),
        message:
          'EndpointSlice.discovery.k8s.io "a" is invalid: addressType: Unsupported value: "IPX": supported values: "FQDN", "IPv4", "IPv6"',
      },
      {
        body: slice("a", { endpoints: [{ addresses: [] }, { addresses: ["2001:db8::1"] }] }),
        message:
          'EndpointSlice.discovery.k8s.io "a" is invalid: [endpoints[0].addresses: Required value: must contain at least 1 address, endpoints[1].addresses: Invalid value: "2001:db8::1": must be an IPv4 address]',
      },
      {
        body: slice("a", {
          ports: [
            { name: "http", port: 80 },
            { name: "http", port: 81, protocol: "ICMP" },
          ],
        }),
        message:
          'EndpointSlice.discovery.k8s.io "a" is invalid: [ports[1].name: Duplicate value: "http", ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"]',
      },
    ];
    for (const c of cases) {
      const res = await s.call("POST", SLICES, c.body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.message, c.message);
    }
    const created = await s.ok("POST", SLICES, slice("mine", { ports: [{ port: 80 }] }));
    assert.deepEqual(created.ports, [{ name: "", protocol: "TCP", port: 80 }]);
    const changed = await s.call("PUT", `${SLICES}/mine`, { ...created, addressType: "IPv6" });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /addressType: Invalid value: "IPv6": field is immutable/);
  });

  it("a client's own slice stays; a managed one it edits is put back by the controller", async () => {
    const s = setup();
    s.cluster.create(deployment({ replicas: 1 }));
    await s.ok("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
    });
    await s.ok(
      "POST",
      SLICES,
      slice("web-extra", {
        metadata: { name: "web-extra", labels: { "kubernetes.io/service-name": "web" } },
      }),
    );
    s.cluster.advanceTo(at(10));
    const slices = (await s.ok("GET", SLICES)).items as KubeObject[];
    const managed = slices.find(
      (x) =>
        x.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] ===
        "endpointslice-controller.k8s.io",
    )!;
    assert.ok(managed, JSON.stringify(slices.map((x) => x.metadata)));
    const own = slices.find((x) => x.metadata.name === "web-extra")!;
    assert.deepEqual(own.endpoints, [{ addresses: ["10.1.2.3"], conditions: {} }]);
    await s.ok("PUT", `${SLICES}/${managed.metadata.name}`, {
      ...managed,
      endpoints: [{ addresses: ["10.9.9.9"] }],
    });
    s.cluster.reconcile();
    const restored = await s.ok("GET", `${SLICES}/${managed.metadata.name}`);
    assert.deepEqual(restored.endpoints, managed.endpoints);
    const kept = await s.ok("GET", `${SLICES}/web-extra`);
    assert.deepEqual(kept.endpoints, own.endpoints);
  });
});
