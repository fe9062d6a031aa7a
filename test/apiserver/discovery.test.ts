import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  aggregatedDiscoveryVersion,
  findResource,
  handleDiscovery,
  OPENAPI_V2_PROTOBUF,
  RESOURCES,
  versionInfo,
} from "../../src/apiserver/discovery.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";

function get(url: string, accept?: string): ApiResponse | null {
  const parsed = new URL(url, "http://127.0.0.1:18080");
  const req: ApiRequest = {
    method: "GET",
    path: parsed.pathname,
    query: parsed.searchParams,
    headers: { host: "127.0.0.1:18080", ...(accept ? { accept } : {}) },
  };
  return handleDiscovery(req);
}

function json(res: ApiResponse | null): Record<string, unknown> {
  assert.ok(res && "body" in res, "expected a JSON answer");
  assert.equal(res.status, 200);
  return res.body as Record<string, unknown>;
}

const ACCEPT_133 =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const ACCEPT_127 =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

describe("the resource catalogue", () => {
  const expected = [
    { name: "pods", group: "", version: "v1", kind: "Pod", namespaced: true, shortNames: ["po"] },
    {
      name: "namespaces",
      group: "",
      version: "v1",
      kind: "Namespace",
      namespaced: false,
      shortNames: ["ns"],
    },
    {
      name: "nodes",
      group: "",
      version: "v1",
      kind: "Node",
      namespaced: false,
      shortNames: ["no"],
    },
    {
      name: "replicationcontrollers",
      group: "",
      version: "v1",
      kind: "ReplicationController",
      namespaced: true,
      shortNames: ["rc"],
    },
    {
      name: "deployments",
      group: "apps",
      version: "v1",
      kind: "Deployment",
      namespaced: true,
      shortNames: ["deploy"],
    },
    {
      name: "statefulsets",
      group: "apps",
      version: "v1",
      kind: "StatefulSet",
      namespaced: true,
      shortNames: ["sts"],
    },
    {
      name: "horizontalpodautoscalers",
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      shortNames: ["hpa"],
    },
    {
      name: "horizontalpodautoscalers",
      group: "autoscaling",
      version: "v1",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      shortNames: ["hpa"],
    },
    {
      name: "leases",
      group: "coordination.k8s.io",
      version: "v1",
      kind: "Lease",
      namespaced: true,
      shortNames: undefined,
    },
    {
      name: "pods",
      group: "metrics.k8s.io",
      version: "v1beta1",
      kind: "PodMetrics",
      namespaced: true,
      shortNames: undefined,
    },
    {
      name: "nodes",
      group: "metrics.k8s.io",
      version: "v1beta1",
      kind: "NodeMetrics",
      namespaced: false,
      shortNames: undefined,
    },
  ];
  for (const e of expected) {
    test(`${e.group || "core"}/${e.version} ${e.name}`, () => {
      const r = findResource(e.group, e.version, e.name);
      assert.ok(r);
      assert.equal(r.kind, e.kind);
      assert.equal(r.namespaced, e.namespaced);
      assert.deepEqual(r.shortNames, e.shortNames);
    });
  }

  test("scale and status subresources where upstream serves them", () => {
    assert.deepEqual(findResource("apps", "v1", "deployments")?.subresources, ["scale", "status"]);
    assert.deepEqual(findResource("", "v1", "replicationcontrollers")?.subresources, [
      "scale",
      "status",
    ]);
    assert.deepEqual(findResource("autoscaling", "v2", "horizontalpodautoscalers")?.subresources, [
      "status",
    ]);
  });

  test("verbs are sorted as the apiserver lists them", () => {
    for (const r of RESOURCES) assert.deepEqual(r.verbs, [...r.verbs].sort(), r.resource);
  });
});

describe("/version", () => {
  test("reports the default version, v1.37", () => {
    const b = json(get("/version?timeout=5s"));
    assert.equal(b.major, "1");
    assert.equal(b.minor, "37");
    assert.equal(b.gitVersion, "v1.37.0");
    assert.equal(b.platform, "linux/amd64");
  });

  test("reports the version chosen, patch included", () => {
    const info = versionInfo("v1.35.2");
    assert.deepEqual(
      [info.major, info.minor, info.emulationMinor, info.minCompatibilityMinor, info.gitVersion],
      ["1", "35", "35", "34", "v1.35.2"],
    );
    const req: ApiRequest = {
      method: "GET",
      path: "/version",
      query: new URLSearchParams(),
      headers: {},
    };
    assert.equal(json(handleDiscovery(req, info)).gitVersion, "v1.35.2");
  });
});

describe("legacy discovery", () => {
  test("/api: APIVersions with the server address from Host", () => {
    const res = get("/api?timeout=32s", "application/json, */*");
    assert.equal(res?.headers?.["content-type"], "application/json");
    assert.deepEqual(json(res), {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:18080" }],
    });
  });

  test("/apis: every group with the preferred version first", () => {
    const b = json(get("/apis", "application/json"));
    assert.equal(b.kind, "APIGroupList");
    assert.equal(b.apiVersion, "v1");
    const groups = b.groups as {
      name: string;
      versions: { groupVersion: string; version: string }[];
      preferredVersion: unknown;
    }[];
    assert.deepEqual(
      groups.map((g) => g.name),
      [
        "apiregistration.k8s.io",
        "apps",
        "autoscaling",
        "batch",
        "networking.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
        "scheduling.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "apiextensions.k8s.io",
        "monitoring.coreos.com",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "metrics.k8s.io",
        "custom.metrics.k8s.io",
        "external.metrics.k8s.io",
      ],
    );
    const autoscaling = groups.find((g) => g.name === "autoscaling")!;
    assert.deepEqual(autoscaling, {
      name: "autoscaling",
      versions: [
        { groupVersion: "autoscaling/v2", version: "v2" },
        { groupVersion: "autoscaling/v1", version: "v1" },
      ],
      preferredVersion: { groupVersion: "autoscaling/v2", version: "v2" },
    });
    const custom = groups.find((g) => g.name === "custom.metrics.k8s.io")!;
    assert.deepEqual(custom.preferredVersion, {
      groupVersion: "custom.metrics.k8s.io/v1beta2",
      version: "v1beta2",
    });
  });

  test("/apis/autoscaling/v2: the HPA and its status subresource", () => {
    assert.deepEqual(json(get("/apis/autoscaling/v2")), {
      kind: "APIResourceList",
      apiVersion: "v1",
      // Only the verbs the handler serves are advertised (deletecollection included).
      groupVersion: "autoscaling/v2",
      resources: [
        {
          name: "horizontalpodautoscalers",
          singularName: "horizontalpodautoscaler",
          namespaced: true,
          kind: "HorizontalPodAutoscaler",
          verbs: [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
          ],
          shortNames: ["hpa"],
          categories: ["all"],
        },
        {
          name: "horizontalpodautoscalers/status",
          singularName: "",
          namespaced: true,
          kind: "HorizontalPodAutoscaler",
          verbs: ["get", "patch", "update"],
        },
      ],
    });
  });

  test("/apis/apps/v1: scale is an autoscaling/v1 Scale", () => {
    const resources = json(get("/apis/apps/v1")).resources as Record<string, unknown>[];
    assert.deepEqual(
      resources.find((r) => r.name === "deployments/scale"),
      {
        name: "deployments/scale",
        singularName: "",
        namespaced: true,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      },
    );
  });

  test("/api/v1 lists core resources, without apiVersion like kube-apiserver", () => {
    const b = json(get("/api/v1"));
    assert.equal(b.kind, "APIResourceList");
    assert.equal(b.apiVersion, undefined);
    assert.equal(b.groupVersion, "v1");
    const names = (b.resources as { name: string }[]).map((r) => r.name);
    for (const n of [
      "namespaces",
      "pods",
      "services",
      "events",
      "nodes",
      "replicationcontrollers",
      "replicationcontrollers/scale",
    ]) {
      assert.ok(names.includes(n), n);
    }
  });

  test("/apis/metrics.k8s.io/v1beta1: PodMetrics and NodeMetrics, get and list", () => {
    const resources = json(get("/apis/metrics.k8s.io/v1beta1")).resources;
    assert.deepEqual(resources, [
      {
        name: "nodes",
        singularName: "",
        namespaced: false,
        kind: "NodeMetrics",
        verbs: ["get", "list"],
      },
      {
        name: "pods",
        singularName: "",
        namespaced: true,
        kind: "PodMetrics",
        verbs: ["get", "list"],
      },
    ]);
  });

  test("/apis/G: one APIGroup", () => {
    const b = json(get("/apis/custom.metrics.k8s.io"));
    assert.equal(b.kind, "APIGroup");
    assert.equal(b.name, "custom.metrics.k8s.io");
  });

  const notMine = [
    {
      name: "custom metrics resource list (the metrics API's)",
      path: "/apis/custom.metrics.k8s.io/v1beta1",
    },
    { name: "external metrics resource list", path: "/apis/external.metrics.k8s.io/v1beta1" },
    { name: "unknown group", path: "/apis/storage.k8s.io/v1" },
    { name: "unknown version", path: "/apis/apps/v2" },
    { name: "a resource path", path: "/apis/apps/v1/deployments" },
    { name: "core resource path", path: "/api/v1/pods" },
  ];
  for (const n of notMine) {
    test(`null for ${n.name}`, () => assert.equal(get(n.path), null));
  }
});

describe("aggregated discovery", () => {
  const negotiation = [
    { name: "kubectl 1.30–1.33", accept: ACCEPT_133, version: "v2" },
    { name: "kubectl 1.27–1.29", accept: ACCEPT_127, version: "v2beta1" },
    { name: "plain JSON", accept: "application/json, */*", version: null },
    { name: "no Accept", accept: undefined, version: null },
    { name: "JSON before aggregated", accept: `application/json,${ACCEPT_133}`, version: null },
    {
      name: "protobuf aggregated first",
      accept: `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${ACCEPT_133}`,
      version: "v2",
    },
  ];
  for (const n of negotiation) {
    test(`negotiation: ${n.name}`, () =>
      assert.equal(aggregatedDiscoveryVersion(n.accept), n.version));
  }

  test("/apis v2: Content-Type names the format; every resource has responseKind", () => {
    const res = get("/apis", ACCEPT_133);
    assert.equal(
      res?.headers?.["content-type"],
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
    const b = json(res);
    assert.equal(b.kind, "APIGroupDiscoveryList");
    assert.equal(b.apiVersion, "apidiscovery.k8s.io/v2");
    assert.deepEqual(b.metadata, {});
    const items = b.items as {
      metadata: { name: string };
      versions: { version: string; resources: Record<string, unknown>[] }[];
    }[];
    for (const item of items) {
      for (const v of item.versions) {
        for (const r of v.resources)
          assert.ok(r.responseKind, `${item.metadata.name}/${v.version} ${r.resource}`);
      }
    }
    const autoscaling = items.find((i) => i.metadata.name === "autoscaling")!;
    assert.deepEqual(
      autoscaling.versions.map((v) => v.version),
      ["v2", "v1"],
    );
    assert.deepEqual(autoscaling.versions[0], {
      version: "v2",
      resources: [
        {
          resource: "horizontalpodautoscalers",
          responseKind: { group: "", version: "", kind: "HorizontalPodAutoscaler" },
          scope: "Namespaced",
          singularResource: "horizontalpodautoscaler",
          verbs: [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
          ],
          shortNames: ["hpa"],
          categories: ["all"],
          subresources: [
            {
              subresource: "status",
              responseKind: { group: "", version: "", kind: "HorizontalPodAutoscaler" },
              verbs: ["get", "patch", "update"],
            },
          ],
        },
      ],
      freshness: "Current",
    });
    const apps = items.find((i) => i.metadata.name === "apps")!;
    const deployments = apps.versions[0]!.resources.find((r) => r.resource === "deployments")!;
    assert.deepEqual((deployments.subresources as Record<string, unknown>[])[0], {
      subresource: "scale",
      responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
      verbs: ["get", "patch", "update"],
    });
  });

  test("/api v2beta1: one core group whose metadata has no name", () => {
    const res = get("/api", ACCEPT_127);
    assert.equal(
      res?.headers?.["content-type"],
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    );
    const b = json(res);
    assert.equal(b.apiVersion, "apidiscovery.k8s.io/v2beta1");
    const items = b.items as {
      metadata: Record<string, unknown>;
      versions: { version: string; resources: { resource: string; scope: string }[] }[];
    }[];
    assert.equal(items.length, 1);
    assert.deepEqual(items[0]!.metadata, { creationTimestamp: null });
    assert.equal(items[0]!.versions[0]!.version, "v1");
    const namespaces = items[0]!.versions[0]!.resources.find((r) => r.resource === "namespaces");
    assert.equal(namespaces?.scope, "Cluster");
  });
});

describe("OpenAPI", () => {
  test("/openapi/v2 protobuf: empty body with the spelling kubectl 1.27 accepts", () => {
    const res = get("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf");
    assert.ok(res && "raw" in res);
    assert.equal(res.headers?.["content-type"], OPENAPI_V2_PROTOBUF);
    assert.equal(OPENAPI_V2_PROTOBUF, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    assert.equal(res.raw.length, 0);
  });

  test("/openapi/v2 as JSON for a JSON client", () => {
    const b = json(get("/openapi/v2", "application/json"));
    assert.equal(b.swagger, "2.0");
  });

  test("/openapi/v3 lists each group-version with a hashed URL that serves its document", () => {
    const root = json(get("/openapi/v3", "application/json, */*"));
    const paths = root.paths as Record<string, { serverRelativeURL: string }>;
    assert.deepEqual(Object.keys(paths).sort(), [
      "api/v1",
      "apis/apiextensions.k8s.io/v1",
      "apis/apiregistration.k8s.io/v1",
      "apis/apps/v1",
      "apis/autoscaling/v1",
      "apis/autoscaling/v2",
      "apis/batch/v1",
      "apis/coordination.k8s.io/v1",
      "apis/discovery.k8s.io/v1",
      "apis/monitoring.coreos.com/v1",
      "apis/networking.k8s.io/v1",
      "apis/policy/v1",
      "apis/rbac.authorization.k8s.io/v1",
      "apis/scheduling.k8s.io/v1",
    ]);
    const url = paths["apis/autoscaling/v2"]!.serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/autoscaling\/v2\?hash=[0-9A-F]+$/);
    const res = get(url, "application/json");
    assert.equal(res?.headers?.["cache-control"], "public, immutable");
    const doc = json(res);
    assert.equal(doc.openapi, "3.0.0");
    const op = (doc.paths as Record<string, { patch: Record<string, unknown> }>)[
      "/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers/{name}"
    ]!.patch;
    assert.equal(op["x-kubernetes-action"], "patch");
    assert.deepEqual(op["x-kubernetes-group-version-kind"], {
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
    });
    assert.ok((op.parameters as { name: string }[]).some((p) => p.name === "fieldValidation"));
  });

  test("cluster-scoped resources have no namespace in their OpenAPI path", () => {
    const root = json(get("/openapi/v3")).paths as Record<string, { serverRelativeURL: string }>;
    const doc = json(get(root["api/v1"]!.serverRelativeURL));
    const paths = Object.keys(doc.paths as object);
    assert.ok(paths.includes("/api/v1/namespaces/{name}"));
    assert.ok(paths.includes("/api/v1/namespaces/{namespace}/pods/{name}"));
    // Nodes are read-only: a GET (kubectl explain finds the kind by it), no PATCH.
    const node = (doc.paths as Record<string, Record<string, unknown>>)["/api/v1/nodes/{name}"];
    assert.deepEqual(Object.keys(node ?? {}), ["get"]);
  });

  test("each document carries its kinds' schemas, found from the item path's GET", () => {
    const root = json(get("/openapi/v3")).paths as Record<string, { serverRelativeURL: string }>;
    const doc = json(get(root["apis/apps/v1"]!.serverRelativeURL));
    const getOp = (doc.paths as Record<string, { get: Record<string, unknown> }>)[
      "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
    ]!.get;
    assert.equal(getOp["x-kubernetes-action"], "get");
    assert.deepEqual(getOp.responses, {
      "200": {
        description: "OK",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/io.k8s.api.apps.v1.Deployment" },
          },
        },
      },
    });
    const schemas = (doc.components as { schemas: Record<string, Record<string, unknown>> })
      .schemas;
    assert.deepEqual(
      schemas["io.k8s.api.apps.v1.Deployment"]?.["x-kubernetes-group-version-kind"],
      [{ group: "apps", kind: "Deployment", version: "v1" }],
    );
  });

  test("an unknown OpenAPI v3 group-version is not discovery's", () => {
    assert.equal(get("/openapi/v3/apis/storage.k8s.io/v1"), null);
  });
});
