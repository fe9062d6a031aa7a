// In-process tests of the API server handler core: verbs, Status errors, HPA v1⇄v2, watch,
// selectors, pagination, patches, the scale subresource, auth.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { deployment, hpa, scenario, T0 } from "../cluster/builders.js";

function setup(options: { token?: string } = {}) {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({
    cluster,
    ...options,
    bookmarkIntervalMs: 5,
    extensions: {
      handleDiscovery: (req) =>
        req.path === "/version" ? { status: 200, body: { minor: "34" } } : null,
      isTableRequest: (accept) => accept.includes("as=Table"),
      toTable: (kind, objects) => ({
        kind: "Table",
        of: kind,
        rows: objects.map((o) => o.metadata.name),
      }),
      handleMetricsApi: () => null,
    },
  });
  const call = (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined)
      req.body = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    return handler(req);
  };
  return { cluster, call };
}

function json(res: ApiResponse): Json {
  assert.ok("body" in res, "expected a JSON body");
  return res.body;
}

/** Response JSON, read loosely (what JSON.parse returns). */
type Json = ReturnType<typeof JSON.parse>;

const HPA_V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const HPA_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

async function readLines(res: ApiResponse, count: number, deadlineMs = 1000): Promise<Json[]> {
  assert.ok("stream" in res, "expected a watch stream");
  const out: Json[] = [];
  const iterator = res.stream[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), deadlineMs);
  });
  try {
    while (out.length < count) {
      const next = await Promise.race([iterator.next(), deadline]);
      if (next === "timeout" || next.done) break;
      out.push(JSON.parse(String(next.value)));
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

describe("Status errors", () => {
  const cases = [
    {
      name: "get of a missing HPA is NotFound",
      run: (c: ReturnType<typeof setup>["call"]) => c("GET", `${HPA_V2}/nosuch`),
      status: 404,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'horizontalpodautoscalers.autoscaling "nosuch" not found',
        reason: "NotFound",
        details: { name: "nosuch", group: "autoscaling", kind: "horizontalpodautoscalers" },
        code: 404,
      },
    },
    {
      name: "core resources have no group in details",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c("DELETE", "/api/v1/namespaces/default/pods/p"),
      status: 404,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods "p" not found',
        reason: "NotFound",
        details: { name: "p", kind: "pods" },
        code: 404,
      },
    },
    {
      name: "malformed JSON body is BadRequest",
      run: (c: ReturnType<typeof setup>["call"]) => c("POST", HPA_V2, "{not json"),
      status: 400,
      reason: "BadRequest",
    },
    {
      name: "truncated protobuf body is BadRequest",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c("POST", HPA_V2, "k8s\0", { "content-type": "application/vnd.kubernetes.protobuf" }),
      status: 400,
      reason: "BadRequest",
    },
    {
      name: "an unknown media type is UnsupportedMediaType",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c("POST", HPA_V2, "<hpa/>", { "content-type": "application/xml" }),
      status: 415,
      reason: "UnsupportedMediaType",
    },
    {
      name: "writing a Node is MethodNotAllowed",
      run: (c: ReturnType<typeof setup>["call"]) => c("DELETE", "/api/v1/nodes/horizon-node"),
      status: 405,
      reason: "MethodNotAllowed",
    },
    {
      name: "unknown resource is NotFound",
      run: (c: ReturnType<typeof setup>["call"]) =>
        c("GET", "/apis/apps/v1/namespaces/default/widgets"),
      status: 404,
      reason: "NotFound",
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const { call } = setup();
      const res = await tc.run(call);
      assert.equal(res.status, tc.status);
      if (tc.body) assert.deepEqual(json(res), tc.body);
      else assert.equal(json(res).reason, tc.reason);
    });
  }
});

describe("auth", () => {
  const cases = [
    { name: "missing token", headers: {} as Record<string, string>, status: 401 },
    { name: "wrong token", headers: { authorization: "Bearer nope" }, status: 401 },
    { name: "right token", headers: { authorization: "Bearer s3cret" }, status: 200 },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const { call } = setup({ token: "s3cret" });
      const res = await call("GET", "/api/v1/namespaces", undefined, tc.headers);
      assert.equal(res.status, tc.status);
      if (tc.status === 401) {
        assert.deepEqual(json(res), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          code: 401,
        });
      }
    });
  }
});

describe("HPA create/get across versions", () => {
  it("creates in v2, defaults, reads in v1 with v2-only fields in annotations", async () => {
    const { call } = setup();
    const body = hpa();
    (body.spec as Json).metrics.push({
      type: "Pods",
      pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "10" } },
    });
    const created = await call("POST", HPA_V2, body);
    assert.equal(created.status, 201);
    const obj = json(created);
    assert.equal(obj.apiVersion, "autoscaling/v2");
    assert.ok(obj.metadata.uid);
    assert.ok(obj.metadata.resourceVersion);
    assert.deepEqual(obj.status, { desiredReplicas: 0 });
    const v1 = json(await call("GET", `${HPA_V1}/web`));
    assert.equal(v1.apiVersion, "autoscaling/v1");
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
    assert.match(v1.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"], /rps/);
  });

  it("creates in v1 and reads in v2 with the CPU metric", async () => {
    const { call } = setup();
    const res = await call("POST", HPA_V1, {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "old" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 70,
      },
    });
    assert.equal(res.status, 201);
    assert.equal(json(res).apiVersion, "autoscaling/v1");
    const v2 = json(await call("GET", `${HPA_V2}/old`));
    assert.deepEqual(v2.spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
      },
    ]);
    assert.equal(v2.spec.minReplicas, 1);
  });

  it("generateName gives a name with the prefix", async () => {
    const { call } = setup();
    const body = hpa();
    body.metadata = { generateName: "web-", namespace: "default" } as Json;
    const obj = json(await call("POST", HPA_V2, body));
    assert.match(obj.metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("generateName: a prefix longer than 58 characters is cut, so the name stays a valid 63", async () => {
    const { call } = setup();
    const body = hpa();
    const prefix = `${"a".repeat(61)}-`;
    body.metadata = { generateName: prefix, namespace: "default" } as Json;
    const res = await call("POST", HPA_V2, body);
    assert.equal(res.status, 201);
    const name: string = json(res).metadata.name;
    assert.equal(name.length, 63);
    assert.ok(name.startsWith("a".repeat(58)), name);
  });

  it("AlreadyExists is 409", async () => {
    const { call } = setup();
    await call("POST", HPA_V2, hpa());
    const res = await call("POST", HPA_V2, hpa());
    assert.equal(res.status, 409);
    assert.deepEqual(json(res), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'horizontalpodautoscalers.autoscaling "web" already exists',
      reason: "AlreadyExists",
      details: { name: "web", group: "autoscaling", kind: "horizontalpodautoscalers" },
      code: 409,
    });
  });

  it("invalid HPA is 422 with causes", async () => {
    const { call } = setup();
    const body = hpa({ name: "bad2", maxReplicas: 0 });
    const res = await call("POST", HPA_V2, body);
    assert.equal(res.status, 422);
    const status = json(res);
    assert.equal(status.reason, "Invalid");
    assert.equal(
      status.message,
      'HorizontalPodAutoscaler.autoscaling "bad2" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]',
    );
    assert.deepEqual(status.details, {
      name: "bad2",
      group: "autoscaling",
      kind: "HorizontalPodAutoscaler",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 0: must be greater than 0",
          field: "spec.maxReplicas",
        },
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 0: must be greater than or equal to `minReplicas`",
          field: "spec.maxReplicas",
        },
      ],
    });
  });

  it("create in a missing namespace is NotFound", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      "/apis/autoscaling/v2/namespaces/nope/horizontalpodautoscalers",
      hpa(),
    );
    assert.equal(res.status, 400); // body says default, URL says nope
    const res2 = await call(
      "POST",
      "/apis/autoscaling/v2/namespaces/nope/horizontalpodautoscalers",
      {
        ...hpa(),
        metadata: { name: "x" },
      },
    );
    assert.equal(res2.status, 404);
    assert.equal(json(res2).message, 'namespaces "nope" not found');
  });
});

describe("fieldValidation", () => {
  const cases = [
    { name: "Strict rejects unknown spec field", mode: "Strict", status: 400, warning: undefined },
    {
      name: "Warn accepts with a 299 warning",
      mode: "Warn",
      status: 201,
      warning: '299 - "unknown field \\"spec.bogusField\\""',
    },
    { name: "Ignore accepts silently", mode: "Ignore", status: 201, warning: undefined },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const { call } = setup();
      const body = hpa();
      (body.spec as Json).bogusField = 1;
      const res = await call("POST", `${HPA_V2}?fieldValidation=${tc.mode}`, body);
      assert.equal(res.status, tc.status);
      assert.equal(res.headers?.warning, tc.warning);
      if (tc.status === 400) {
        assert.equal(
          json(res).message,
          'HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.bogusField"',
        );
      } else assert.equal(json(res).spec.bogusField, undefined);
    });
  }
});

describe("horizon.dev annotations on HPAs (docs/extensions.md)", () => {
  const annotated = (annotations: Record<string, string>, name = "web") => {
    const body = hpa();
    return { ...body, metadata: { ...body.metadata, name, annotations } };
  };

  it("an unknown horizon.dev key is accepted with a warning naming it", async () => {
    const { call } = setup();
    const res = await call("POST", HPA_V2, annotated({ "horizon.dev/pause": "true" }));
    assert.equal(res.status, 201);
    assert.equal(
      res.headers?.warning,
      '299 - "metadata.annotations[horizon.dev/pause]: unknown annotation: Horizon ignores it (see docs/extensions.md)"',
    );
  });

  it("a malformed value is a 422 naming the annotation, on create and on update", async () => {
    const { call } = setup();
    const bad = await call("POST", HPA_V2, annotated({ "horizon.dev/paused": "yes" }));
    assert.equal(bad.status, 422);
    const status = json(bad);
    assert.equal(status.reason, "Invalid");
    assert.deepEqual(status.details.causes, [
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "yes": invalid value "yes": must be "true" or "false"',
        field: "metadata.annotations[horizon.dev/paused]",
      },
    ]);
    const created = await call("POST", HPA_V2, annotated({ "horizon.dev/paused": "true" }));
    assert.equal(created.status, 201);
    assert.equal(created.headers?.warning, undefined);
    const stored = json(created);
    const update = {
      ...stored,
      metadata: {
        ...stored.metadata,
        annotations: { "horizon.dev/paused": "true", "horizon.dev/dry-run": "true" },
      },
    };
    const rejected = await call("PUT", `${HPA_V2}/web`, update);
    assert.equal(rejected.status, 422);
    assert.match(
      json(rejected).message,
      /metadata\.annotations\[horizon\.dev\/dry-run\]: Invalid value: "true": contradicts horizon\.dev\/paused/,
    );
    // The stored object is untouched.
    const read = json(await call("GET", `${HPA_V2}/web`));
    assert.deepEqual(read.metadata.annotations, { "horizon.dev/paused": "true" });
  });
});

describe("update, conflicts, dry run, delete", () => {
  it("stale resourceVersion is a 409 Conflict", async () => {
    const { call } = setup();
    const created = json(await call("POST", HPA_V2, hpa()));
    const first = await call("PUT", `${HPA_V2}/web`, {
      ...created,
      spec: { ...created.spec, maxReplicas: 7 },
    });
    assert.equal(first.status, 200);
    assert.equal(json(first).metadata.generation, undefined, "1.34 keeps no generation on HPAs");
    const stale = await call("PUT", `${HPA_V2}/web`, {
      ...created,
      spec: { ...created.spec, maxReplicas: 8 },
    });
    assert.equal(stale.status, 409);
    assert.equal(
      json(stale).message,
      'Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling "web": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("a spec update cannot change status, a status update cannot change spec", async () => {
    const { call } = setup();
    const created = json(await call("POST", HPA_V2, hpa()));
    const spec = json(
      await call("PUT", `${HPA_V2}/web`, {
        ...created,
        status: { currentReplicas: 5, desiredReplicas: 5 },
      }),
    );
    assert.deepEqual(spec.status, { desiredReplicas: 0 });
    const status = json(
      await call("PUT", `${HPA_V2}/web/status`, {
        ...spec,
        spec: { ...spec.spec, maxReplicas: 99 },
        status: { currentReplicas: 3, desiredReplicas: 4 },
      }),
    );
    assert.deepEqual(status.status, { currentReplicas: 3, desiredReplicas: 4 });
    assert.equal(status.spec.maxReplicas, 10);
  });

  it("dryRun=All stores nothing", async () => {
    const { call, cluster } = setup();
    const res = await call("POST", `${HPA_V2}?dryRun=All`, hpa());
    assert.equal(res.status, 201);
    assert.equal(cluster.store.get("HorizontalPodAutoscaler", "default", "web"), undefined);
  });

  it("delete returns a Success Status for HPAs and the object for pods-like kinds", async () => {
    const { call } = setup();
    const created = json(await call("POST", HPA_V2, hpa()));
    const res = await call("DELETE", `${HPA_V2}/web`);
    assert.equal(res.status, 200);
    assert.deepEqual(json(res), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: {
        name: "web",
        group: "autoscaling",
        kind: "horizontalpodautoscalers",
        uid: created.metadata.uid,
      },
    });
    const svc = await call("POST", "/api/v1/namespaces/default/services", {
      metadata: { name: "s" },
      spec: { ports: [{ port: 80 }] },
    });
    assert.equal(svc.status, 201);
    const del = json(await call("DELETE", "/api/v1/namespaces/default/services/s"));
    assert.equal(del.kind, "Service");
  });
});

describe("list: selectors and pagination", () => {
  it("label and field selectors, Json term order", async () => {
    const { call } = setup();
    for (const [name, tier] of [
      ["a", "web"],
      ["b", "db"],
      ["c", "web"],
    ]) {
      await call("POST", HPA_V2, { ...hpa({ name }), metadata: { name, labels: { tier } } });
    }
    const cases = [
      { name: "label", query: "labelSelector=tier%3Dweb", want: ["a", "c"] },
      { name: "label !=", query: "labelSelector=tier!%3Dweb", want: ["b"] },
      { name: "field name", query: "fieldSelector=metadata.name%3Dc", want: ["c"] },
      {
        name: "both orders",
        query: "fieldSelector=metadata.namespace%3Ddefault,metadata.name!%3Da",
        want: ["b", "c"],
      },
    ];
    for (const tc of cases) {
      const items = json(await call("GET", `${HPA_V2}?${tc.query}`)).items.map(
        (i: Json) => i.metadata.name,
      );
      assert.deepEqual(items, tc.want, tc.name);
    }
    const bad = await call("GET", `${HPA_V2}?fieldSelector=spec.foo%3D1`);
    assert.equal(bad.status, 400);
    assert.equal(json(bad).message, "field label not supported: spec.foo");
  });

  it("event field selectors on involvedObject", async () => {
    const { call } = setup();
    const ev = (name: string, obj: string) => ({
      metadata: { name },
      involvedObject: {
        kind: "HorizontalPodAutoscaler",
        name: obj,
        namespace: "default",
        uid: `u-${obj}`,
      },
      reason: "SuccessfulRescale",
    });
    await call("POST", "/api/v1/namespaces/default/events", ev("e1", "web"));
    await call("POST", "/api/v1/namespaces/default/events", ev("e2", "api"));
    const res = json(
      await call(
        "GET",
        "/api/v1/namespaces/default/events?fieldSelector=involvedObject.uid%3Du-web,involvedObject.kind%3DHorizontalPodAutoscaler,involvedObject.name%3Dweb&limit=500",
      ),
    );
    assert.deepEqual(
      res.items.map((i: Json) => i.metadata.name),
      ["e1"],
    );
    assert.equal(res.metadata.continue, undefined);
  });

  it("limit/continue pages through everything once", async () => {
    const { call } = setup();
    const names = ["a", "b", "c", "d", "e"];
    for (const name of names) await call("POST", HPA_V2, hpa({ name }));
    const seen: string[] = [];
    let token = "";
    for (let page = 0; page < 10; page++) {
      const res = json(await call("GET", `${HPA_V2}?limit=2${token ? `&continue=${token}` : ""}`));
      seen.push(...res.items.map((i: Json) => i.metadata.name));
      if (!res.metadata.continue) break;
      token = res.metadata.continue;
    }
    assert.deepEqual(seen, names);
    const bad = await call("GET", `${HPA_V2}?limit=2&continue=garbage`);
    assert.equal(bad.status, 400);
  });

  it("all-namespaces list and Table requests", async () => {
    const { call } = setup();
    await call("POST", "/api/v1/namespaces", { metadata: { name: "other" } });
    await call("POST", HPA_V2, hpa());
    await call("POST", "/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", {
      ...hpa(),
      metadata: { name: "x" },
    });
    const all = json(await call("GET", "/apis/autoscaling/v2/horizontalpodautoscalers"));
    assert.deepEqual(
      all.items.map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`),
      ["default/web", "other/x"],
    );
    const table = json(
      await call("GET", HPA_V2, undefined, {
        accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
      }),
    );
    assert.deepEqual(table, { kind: "Table", of: "HorizontalPodAutoscaler", rows: ["web"] });
  });
});

describe("patch", () => {
  const cases = [
    {
      name: "merge patch",
      type: "application/merge-patch+json",
      body: { spec: { maxReplicas: 4 } },
      max: 4,
    },
    {
      name: "json patch",
      type: "application/json-patch+json",
      body: [{ op: "replace", path: "/spec/maxReplicas", value: 6 }],
      max: 6,
    },
    {
      name: "strategic merge patch",
      type: "application/strategic-merge-patch+json",
      body: { spec: { maxReplicas: 3 } },
      max: 3,
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const { call } = setup();
      await call("POST", HPA_V2, hpa());
      const res = await call("PATCH", `${HPA_V2}/web`, tc.body, { "content-type": tc.type });
      assert.equal(res.status, 200);
      assert.equal(json(res).spec.maxReplicas, tc.max);
    });
  }

  it("json patch test failure is 422, unsupported patch type 415", async () => {
    const { call } = setup();
    await call("POST", HPA_V2, hpa());
    const res = await call(
      "PATCH",
      `${HPA_V2}/web`,
      [{ op: "test", path: "/spec/maxReplicas", value: 1 }],
      {
        "content-type": "application/json-patch+json",
      },
    );
    assert.equal(res.status, 422);
    const res2 = await call("PATCH", `${HPA_V2}/web`, {}, { "content-type": "text/plain" });
    assert.equal(res2.status, 415);
  });

  it("merge patch through v1 keeps v2-only metrics", async () => {
    const { call } = setup();
    const body = hpa();
    (body.spec as Json).metrics.push({
      type: "Pods",
      pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "10" } },
    });
    await call("POST", HPA_V2, body);
    const res = await call(
      "PATCH",
      `${HPA_V1}/web`,
      { spec: { maxReplicas: 9 } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(res.status, 200);
    const v2 = json(await call("GET", `${HPA_V2}/web`));
    assert.equal(v2.spec.maxReplicas, 9);
    assert.equal(v2.spec.metrics.length, 2);
  });

  it("strategic merge patch merges containers by name and deletes with $patch", async () => {
    const { call } = setup();
    const d = deployment();
    const created = await call("POST", DEPLOYMENTS, d);
    assert.equal(created.status, 201);
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: json(created).spec.template.spec.containers[0].name, image: "nginx:2" },
              { name: "sidecar", image: "busybox" },
            ],
          },
        },
      },
    };
    const res = json(
      await call("PATCH", `${DEPLOYMENTS}/web`, patch, {
        "content-type": "application/strategic-merge-patch+json",
      }),
    );
    const containers = res.spec.template.spec.containers;
    assert.equal(containers.length, 2);
    assert.equal(containers[0].image, "nginx:2");
    assert.ok(containers[0].resources, "merged, not replaced");
    const del = json(
      await call(
        "PATCH",
        `${DEPLOYMENTS}/web`,
        { spec: { template: { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } } } },
        {
          "content-type": "application/strategic-merge-patch+json",
        },
      ),
    );
    assert.equal(del.spec.template.spec.containers.length, 1);
  });

  it("apply patch creates when missing (201) and needs a fieldManager", async () => {
    const { call } = setup();
    const noManager = await call("PATCH", `${HPA_V2}/web`, hpa(), {
      "content-type": "application/apply-patch+yaml",
    });
    assert.equal(noManager.status, 422);
    const created = await call("PATCH", `${HPA_V2}/web?fieldManager=kubectl`, hpa(), {
      "content-type": "application/apply-patch+yaml",
    });
    assert.equal(created.status, 201);
    const again = await call(
      "PATCH",
      `${HPA_V2}/web?fieldManager=kubectl`,
      { ...hpa({ maxReplicas: 12 }) },
      {
        "content-type": "application/apply-patch+yaml",
      },
    );
    assert.equal(again.status, 200);
    assert.equal(json(again).spec.maxReplicas, 12);
  });
});

describe("scale subresource", () => {
  it("GET and merge-PATCH change the Deployment", async () => {
    const { call, cluster } = setup();
    await call("POST", DEPLOYMENTS, deployment({ replicas: 2 }));
    const scale = json(await call("GET", `${DEPLOYMENTS}/web/scale`));
    assert.equal(scale.kind, "Scale");
    assert.equal(scale.apiVersion, "autoscaling/v1");
    assert.equal(scale.spec.replicas, 2);
    assert.equal(typeof scale.status.selector, "string");
    const res = json(
      await call(
        "PATCH",
        `${DEPLOYMENTS}/web/scale`,
        { spec: { replicas: 5 } },
        { "content-type": "application/merge-patch+json" },
      ),
    );
    assert.equal(res.spec.replicas, 5);
    assert.equal((cluster.store.get("Deployment", "default", "web")!.spec as Json).replicas, 5);
    const neg = await call("PUT", `${DEPLOYMENTS}/web/scale`, { spec: { replicas: -1 } });
    assert.equal(neg.status, 422);
    assert.equal(
      json(neg).message,
      'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });
});

describe("watch", () => {
  it("from 0: ADDED for existing objects, then live events; DELETED carries the final version", async () => {
    const { call } = setup();
    await call("POST", HPA_V2, hpa({ name: "a" }));
    const res = await call("GET", `${HPA_V1}?watch=true&resourceVersion=0`);
    await call("POST", HPA_V2, hpa({ name: "b" }));
    await call("DELETE", `${HPA_V2}/a`);
    const events = await readLines(res, 3);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.apiVersion}`),
      ["ADDED a autoscaling/v1", "ADDED b autoscaling/v1", "DELETED a autoscaling/v1"],
    );
    if ("close" in res) res.close();
  });

  it("from a resourceVersion replays what came after it", async () => {
    const { call } = setup();
    const a = json(await call("POST", HPA_V2, hpa({ name: "a" })));
    await call(
      "PATCH",
      `${HPA_V2}/a`,
      { spec: { maxReplicas: 3 } },
      { "content-type": "application/merge-patch+json" },
    );
    const res = await call(
      "GET",
      `/apis/autoscaling/v2/watch/namespaces/default/horizontalpodautoscalers?resourceVersion=${a.metadata.resourceVersion}`,
    );
    const events = await readLines(res, 1);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.spec.maxReplicas]),
      [["MODIFIED", 3]],
    );
    if ("close" in res) res.close();
  });

  it("a too-old resourceVersion gets an ERROR event with 410 Expired", async () => {
    const { call } = setup();
    for (let i = 0; i < 8200; i++)
      await call("POST", "/api/v1/namespaces/default/events", { metadata: { name: `e${i}` } });
    const res = await call("GET", `${HPA_V2}?watch=true&resourceVersion=2`);
    const events = await readLines(res, 2);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, "ERROR");
    assert.equal(events[0].object.code, 410);
    assert.equal(events[0].object.reason, "Expired");
    assert.match(events[0].object.message, /^too old resource version: 2 \(\d+\)$/);
  });

  it("selectors filter and an object leaving the selector is DELETED", async () => {
    const { call } = setup();
    await call("POST", HPA_V2, {
      ...hpa({ name: "a" }),
      metadata: { name: "a", labels: { tier: "web" } },
    });
    await call("POST", HPA_V2, {
      ...hpa({ name: "b" }),
      metadata: { name: "b", labels: { tier: "db" } },
    });
    const res = await call("GET", `${HPA_V2}?watch=true&labelSelector=tier%3Dweb`);
    await call(
      "PATCH",
      `${HPA_V2}/a`,
      { metadata: { labels: { tier: "db" } } },
      { "content-type": "application/merge-patch+json" },
    );
    const events = await readLines(res, 2);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ["ADDED a", "DELETED a"],
    );
    if ("close" in res) res.close();
  });

  it("bookmarks and timeoutSeconds", async () => {
    const { call } = setup();
    const res = await call("GET", `${HPA_V2}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1`);
    const events = await readLines(res, 1);
    assert.equal(events[0].type, "BOOKMARK");
    assert.ok(events[0].object.metadata.resourceVersion);
    // timeoutSeconds=1 ends the stream well before the 3 s deadline.
    const started = Date.now();
    const rest = await readLines(res, 1_000_000, 3000);
    assert.ok(Date.now() - started < 2500, "the stream ended at its timeout");
    assert.ok(rest.every((e) => e.type === "BOOKMARK"));
  });
});
