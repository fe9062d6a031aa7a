// Typed decoding: a body's JSON types against its kind's Go types, with encoding/json's errors
// (UnmarshalTypeError: "json: cannot unmarshal <value> into Go struct field <Struct>.<path> of
// type <type>"), and the Status each verb answers with.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QuantityErrorReason } from "../../src/api/quantity.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { decodeTyped } from "../../src/apiserver/typeddecode.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { KIND_LIST } from "../../src/kinds/registry.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

const HPA = {
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "AverageValue", averageValue: "100m" } },
      },
    ],
  },
};
const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx",
            livenessProbe: { httpGet: { path: "/", port: 8080 } },
            resources: { requests: { cpu: "100m" } },
          },
        ],
      },
    },
  },
};

/** The object with `path` (dotted; numbers index lists) set to `value`. */
function withValue<T>(object: T, path: string, value: unknown): T {
  const copy = structuredClone(object) as Record<string, unknown>;
  const parts = path.split(".");
  let cur: Record<string, unknown> = copy;
  for (const part of parts.slice(0, -1)) {
    cur[part] ??= {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
  return copy as T;
}

const error = (kind: string, version: string, object: Record<string, unknown>) => {
  const decoded = decodeTyped(kind, version, object);
  assert.equal(decoded.ok, false, "expected a decode error");
  return decoded.ok ? "" : decoded.error;
};
const hpaError = (path: string, value: unknown) =>
  error("HorizontalPodAutoscaler", "v2", withValue(HPA, path, value));
const deploymentError = (path: string, value: unknown) =>
  error("Deployment", "v1", withValue(DEPLOYMENT, path, value));

describe("decodeTyped: encoding/json's errors", () => {
  it("a string where an int32 is expected", () => {
    assert.equal(
      hpaError("spec.maxReplicas", "5"),
      "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
    );
  });
  it("a number out of int32's range, and a non-integer", () => {
    assert.equal(
      hpaError("spec.maxReplicas", 99999999999),
      "json: cannot unmarshal number 99999999999 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
    );
    assert.equal(
      hpaError("spec.minReplicas", 1.5),
      "json: cannot unmarshal number 1.5 into Go struct field HorizontalPodAutoscalerSpec.spec.minReplicas of type int32",
    );
  });
  it("label and annotation values that are not strings", () => {
    for (const [value, what] of [
      [1, "number"],
      [["a"], "array"],
      [{ a: "b" }, "object"],
      [true, "bool"],
    ] as const) {
      assert.equal(
        hpaError("metadata.labels", { app: value }),
        `json: cannot unmarshal ${what} into Go struct field ObjectMeta.metadata.labels of type string`,
      );
      assert.equal(
        deploymentError("metadata.annotations", { note: value }),
        `json: cannot unmarshal ${what} into Go struct field ObjectMeta.metadata.annotations of type string`,
      );
    }
    assert.equal(
      hpaError("metadata.labels", ["app"]),
      "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    );
  });
  it("every served kind decodes its metadata", () => {
    for (const d of KIND_LIST) {
      for (const v of d.versions) {
        const object = { metadata: { name: "x", labels: { a: 1 } } };
        assert.equal(
          error(d.kind, v.version, object),
          "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
          `${d.kind} ${v.version}`,
        );
      }
    }
  });
  it("deep fields name their innermost struct, the JSON path and the named Go type", () => {
    const containers = DEPLOYMENT.spec.template.spec.containers;
    const container = (patch: Record<string, unknown>) =>
      error(
        "Deployment",
        "v1",
        withValue(DEPLOYMENT, "spec.template.spec.containers", [{ ...containers[0], ...patch }]),
      );
    assert.equal(
      container({ image: 7 }),
      "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string",
    );
    assert.equal(
      container({ imagePullPolicy: 7 }),
      "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.imagePullPolicy of type v1.PullPolicy",
    );
    assert.equal(
      container({ ports: { containerPort: 80 } }),
      "json: cannot unmarshal object into Go struct field Container.spec.template.spec.containers.ports of type []v1.ContainerPort",
    );
    assert.equal(
      deploymentError("spec.template.spec.containers", "app"),
      "json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
    );
    assert.equal(
      hpaError("spec", []),
      "json: cannot unmarshal array into Go struct field HorizontalPodAutoscaler.spec of type v2.HorizontalPodAutoscalerSpec",
    );
    assert.equal(
      hpaError("spec.metrics", [{ type: 1 }]),
      "json: cannot unmarshal number into Go struct field MetricSpec.spec.metrics.type of type v2.MetricSourceType",
    );
    // Embedded ProbeHandler: its fields belong to Probe.
    assert.equal(
      container({ livenessProbe: { httpGet: "/" } }),
      "json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.livenessProbe.httpGet of type v1.HTTPGetAction",
    );
  });
  it("IntOrString and Quantity fail in their own UnmarshalJSON, which stops the decode", () => {
    const probe = (port: unknown) =>
      withValue(DEPLOYMENT, "spec.template.spec.containers", [
        { name: "app", image: 7, livenessProbe: { httpGet: { path: "/", port } } },
      ]);
    assert.equal(
      error("Deployment", "v1", probe(1.5)),
      "json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32",
    );
    assert.equal(decodeTyped("Deployment", "v1", probe("http")).ok, false, "image: 7 still fails");
    const target = "spec.metrics";
    const metric = (averageValue: unknown) => [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "AverageValue", averageValue } },
      },
    ];
    assert.equal(hpaError(target, metric("abc")), QuantityErrorReason.formatWrong);
    assert.equal(hpaError(target, metric(true)), QuantityErrorReason.formatWrong);
    assert.ok(decodeTyped("HorizontalPodAutoscaler", "v2", withValue(HPA, target, metric(5))).ok);
    // The first type error is kept while decoding goes on; an UnmarshalJSON error ends it.
    const both = withValue(withValue(HPA, "spec.minReplicas", "1"), target, metric("abc"));
    assert.equal(error("HorizontalPodAutoscaler", "v2", both), QuantityErrorReason.formatWrong);
    const two = withValue(withValue(HPA, "spec.minReplicas", "1"), "spec.maxReplicas", "5");
    assert.match(error("HorizontalPodAutoscaler", "v2", two), /spec\.minReplicas of type int32$/);
  });
  it("autoscaling/v1 has its own Go types", () => {
    const v1 = { ...HPA, apiVersion: "autoscaling/v1", spec: { ...HPA.spec, metrics: undefined } };
    assert.equal(
      error(
        "HorizontalPodAutoscaler",
        "v1",
        withValue(v1, "spec.targetCPUUtilizationPercentage", "50"),
      ),
      "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.targetCPUUtilizationPercentage of type int32",
    );
  });
  it("a null is Go's zero: a field stays unset, a label value is empty", () => {
    const decoded = decodeTyped(
      "HorizontalPodAutoscaler",
      "v2",
      withValue(withValue(HPA, "spec.minReplicas", null), "metadata.labels", { app: null }),
    );
    assert.ok(decoded.ok);
    const value = decoded.value as typeof HPA & { metadata: { labels: Record<string, string> } };
    assert.equal("minReplicas" in value.spec, false);
    assert.deepEqual(value.metadata.labels, { app: "" });
  });
  it("valid objects pass unchanged", () => {
    for (const [kind, version, object] of [
      ["HorizontalPodAutoscaler", "v2", HPA],
      ["Deployment", "v1", DEPLOYMENT],
    ] as const) {
      const decoded = decodeTyped(kind, version, object);
      assert.ok(decoded.ok);
      assert.equal(decoded.value, object);
    }
  });
});

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (method: string, url: string, body: unknown, contentType = "application/json") => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": contentType },
      body: Buffer.from(JSON.stringify(body)),
    };
    return handler(req);
  };
  return { cluster, call };
}

type Status = { code: number; reason: string; message: string };
const status = (res: ApiResponse): Status => {
  assert.ok("body" in res);
  return res.body as Status;
};

describe("decodeTyped: where the failing value is (for locating it in a file)", () => {
  const cases = [
    {
      name: "a list item's field",
      object: withValue(HPA, "spec.metrics", [
        HPA.spec.metrics[0],
        { type: "Resource", resource: { name: "cpu", target: { averageUtilization: "60%" } } },
      ]),
      path: ["spec", "metrics", 1, "resource", "target", "averageUtilization"],
    },
    {
      name: "a map value",
      object: withValue(HPA, "metadata.labels", { app: 1 }),
      path: ["metadata", "labels", "app"],
    },
    {
      name: "a Quantity's own UnmarshalJSON (the decode stops)",
      object: withValue(HPA, "spec.metrics", [
        { type: "Resource", resource: { name: "cpu", target: { averageValue: "1x" } } },
      ]),
      path: ["spec", "metrics", 0, "resource", "target", "averageValue"],
    },
    {
      name: "the first of two errors",
      object: withValue(withValue(HPA, "spec.maxReplicas", "5"), "spec.minReplicas", true),
      path: ["spec", "minReplicas"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const decoded = decodeTyped("HorizontalPodAutoscaler", "v2", c.object);
      assert.ok(!decoded.ok);
      assert.deepEqual(decoded.path, c.path);
    });
  }
});

describe("a body of the wrong JSON types is refused before anything is stored", () => {
  const HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
  const MESSAGE =
    "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32";
  const PREFIX =
    'HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: ';
  const bad = withValue(HPA, "spec.maxReplicas", "5");

  it("create and update: 400 BadRequest", async () => {
    const { cluster, call } = setup();
    const created = await call("POST", HPAS, bad);
    assert.equal(created.status, 400);
    assert.deepEqual(
      [status(created).reason, status(created).message],
      ["BadRequest", PREFIX + MESSAGE],
    );
    assert.equal(cluster.store.get("HorizontalPodAutoscaler", "default", "web"), undefined);
    assert.equal((await call("POST", HPAS, HPA)).status, 201);
    const updated = await call("PUT", `${HPAS}/web`, bad);
    assert.equal(updated.status, 400);
    assert.equal(status(updated).message, PREFIX + MESSAGE);
    const stored = cluster.store.get("HorizontalPodAutoscaler", "default", "web");
    assert.equal((stored?.spec as { maxReplicas: number } | undefined)?.maxReplicas, 5);
  });
  it("labels of the wrong type: 400, not 500", async () => {
    const { call } = setup();
    for (const value of [1, ["a"], true]) {
      const res = await call("POST", HPAS, withValue(HPA, "metadata.labels", { app: value }));
      assert.equal(res.status, 400, JSON.stringify(value));
      assert.match(
        status(res).message,
        /into Go struct field ObjectMeta\.metadata\.labels of type string$/,
      );
    }
  });
  it("a quantity that does not parse: 400 from the decoder, not 422", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      HPAS,
      withValue(HPA, "spec.metrics", [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "AverageValue", averageValue: "abc" } },
        },
      ]),
    );
    assert.equal(res.status, 400);
    assert.equal(status(res).message, PREFIX + QuantityErrorReason.formatWrong);
  });
  it("a quantity is stored in its canonical form, as MarshalJSON writes it back", async () => {
    const { cluster, call } = setup();
    const cases: [unknown, string][] = [
      [0.5, "500m"],
      ["1000m", "1"],
      [" 2", "2"],
      ["1e3", "1e3"],
      ["1.5Gi", "1536Mi"],
    ];
    for (const [i, [sent, stored]] of cases.entries()) {
      const res = await call("POST", "/api/v1/namespaces/default/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `p${i}` },
        spec: {
          containers: [{ name: "c", image: "nginx", resources: { requests: { cpu: sent } } }],
        },
      });
      assert.equal(res.status, 201, JSON.stringify(sent));
      const pod = cluster.store.get("Pod", "default", `p${i}`);
      const spec = pod?.spec as { containers: { resources: { requests: { cpu: unknown } } }[] };
      assert.equal(spec.containers[0]?.resources.requests.cpu, stored, JSON.stringify(sent));
    }
  });
  it("patches: 422 on `patch` (JSON and merge patch: the patched object; strategic: the patch map); apply: 400", async () => {
    const { cluster, call } = setup();
    assert.equal((await call("POST", HPAS, HPA)).status, 201);
    const before = cluster.store.get("HorizontalPodAutoscaler", "default", "web")?.metadata
      .resourceVersion;
    const merge = await call(
      "PATCH",
      `${HPAS}/web`,
      { spec: { maxReplicas: "5" } },
      "application/merge-patch+json",
    );
    const json = await call(
      "PATCH",
      `${HPAS}/web`,
      [{ op: "replace", path: "/spec/maxReplicas", value: "5" }],
      "application/json-patch+json",
    );
    const smp = await call(
      "PATCH",
      `${HPAS}/web`,
      { spec: { maxReplicas: "5" } },
      "application/strategic-merge-patch+json",
    );
    for (const res of [merge, json, smp]) {
      assert.equal(res.status, 422);
      const s = status(res) as Status & {
        details: { causes: { field: string; message: string }[] };
      };
      assert.equal(s.reason, "Invalid");
      assert.equal(s.details.causes[0]?.field, "patch");
      assert.match(s.details.causes[0]?.message ?? "", new RegExp(`${MESSAGE}$`));
    }
    const apply = await call(
      "PATCH",
      `${HPAS}/web?fieldManager=test&force=true`,
      {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web" },
        spec: { maxReplicas: "5" },
      },
      "application/apply-patch+yaml",
    );
    assert.equal(apply.status, 400);
    assert.equal(status(apply).message, PREFIX + MESSAGE);
    const after = cluster.store.get("HorizontalPodAutoscaler", "default", "web");
    assert.equal(after?.metadata.resourceVersion, before, "nothing stored");
  });
});
