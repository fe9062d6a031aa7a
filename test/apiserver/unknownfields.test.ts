// Unknown fields at full depth: each served kind's schema tree lists its Go fields deep enough
// that a field no Go type has is found (in a container, its probes, resources, securityContext,
// the common volume sources, every workload spec, Service, HPA, Pod status), dropped with a
// warning under fieldValidation=Warn and refused under Strict.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { knownFieldsOf, unknownFields } from "../../src/apiserver/unknownfields.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { KIND_LIST } from "../../src/kinds/registry.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

const CONTAINER = {
  name: "app",
  image: "nginx",
  ports: [{ containerPort: 80, protocol: "TCP" }],
  env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "c", key: "k" } } }],
  envFrom: [{ secretRef: { name: "s" } }],
  resources: { requests: { cpu: "100m" }, limits: { memory: "1Gi" } },
  livenessProbe: { httpGet: { path: "/", port: 80 }, periodSeconds: 5 },
  readinessProbe: { exec: { command: ["true"] } },
  lifecycle: { preStop: { sleep: { seconds: 1 } } },
  securityContext: { runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
  volumeMounts: [{ name: "data", mountPath: "/data" }],
};
const POD_SPEC = {
  containers: [CONTAINER],
  volumes: [
    { name: "data", emptyDir: {} },
    { name: "cfg", configMap: { name: "c", items: [{ key: "k", path: "p" }] } },
    { name: "tok", secret: { secretName: "s" } },
    { name: "pvc", persistentVolumeClaim: { claimName: "c" } },
  ],
  securityContext: { fsGroup: 2000 },
  tolerations: [{ key: "k", operator: "Exists" }],
  os: { name: "linux" },
};
const TEMPLATE = { metadata: { labels: { app: "web" } }, spec: POD_SPEC };
const SELECTOR = { matchLabels: { app: "web" } };

const OBJECTS: Record<string, Record<string, unknown>> = {
  Deployment: {
    metadata: { name: "web" },
    spec: { replicas: 1, selector: SELECTOR, template: TEMPLATE, strategy: { type: "Recreate" } },
  },
  StatefulSet: {
    metadata: { name: "web" },
    spec: { serviceName: "web", selector: SELECTOR, template: TEMPLATE },
  },
  ReplicaSet: { metadata: { name: "web" }, spec: { selector: SELECTOR, template: TEMPLATE } },
  Pod: { metadata: { name: "web" }, spec: POD_SPEC, status: { phase: "Running" } },
  Service: { metadata: { name: "web" }, spec: { ports: [{ port: 80 }], selector: { app: "web" } } },
  HorizontalPodAutoscaler: {
    metadata: { name: "web" },
    spec: {
      scaleTargetRef: { kind: "Deployment", name: "web" },
      maxReplicas: 3,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization" } } }],
    },
    status: { desiredReplicas: 1 },
  },
};

/** The object with an extra field `x` in the object at `path` (dotted; numbers index lists). */
function withUnknown(object: Record<string, unknown>, path: string): Record<string, unknown> {
  const copy = structuredClone(object);
  let cur: Record<string, unknown> = copy;
  for (const part of path.split(".")) {
    cur[part] ??= {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur.x = 1;
  return copy;
}

const display = (path: string) => `${path.replace(/\.(\d+)(?=\.|$)/g, "[$1]")}.x`;

describe("unknownFields: at full depth", () => {
  it("the typed objects here have none", () => {
    for (const [kind, object] of Object.entries(OBJECTS)) {
      const version = kind === "HorizontalPodAutoscaler" ? "v2" : "v1";
      assert.deepEqual(unknownFields(kind, version, object), [], kind);
    }
  });
  const C = "spec.template.spec.containers.0";
  const cases: [string, string][] = [
    ["Deployment", C],
    ["Deployment", `${C}.livenessProbe`],
    ["Deployment", `${C}.livenessProbe.httpGet`],
    ["Deployment", `${C}.readinessProbe.exec`],
    ["Deployment", `${C}.resources`],
    ["Deployment", `${C}.securityContext`],
    ["Deployment", `${C}.securityContext.capabilities`],
    ["Deployment", `${C}.env.0.valueFrom.configMapKeyRef`],
    ["Deployment", `${C}.envFrom.0`],
    ["Deployment", `${C}.lifecycle.preStop`],
    ["Deployment", `${C}.volumeMounts.0`],
    ["Deployment", `${C}.ports.0`],
    ["Deployment", "spec.template.spec.volumes.0.emptyDir"],
    ["Deployment", "spec.template.spec.volumes.1.configMap.items.0"],
    ["Deployment", "spec.template.spec.volumes.2"],
    ["Deployment", "spec.template.spec.securityContext"],
    ["Deployment", "spec.template.spec"],
    ["Deployment", "spec.template.metadata"],
    ["Deployment", "spec"],
    ["Deployment", "spec.strategy"],
    ["Deployment", "spec.selector"],
    ["StatefulSet", "spec"],
    ["StatefulSet", "spec.template.spec.containers.0"],
    ["ReplicaSet", "spec"],
    ["Pod", "spec.containers.0.resources"],
    ["Pod", "status"],
    ["Service", "spec"],
    ["Service", "spec.ports.0"],
    ["HorizontalPodAutoscaler", "spec.metrics.0.resource.target"],
    ["HorizontalPodAutoscaler", "status"],
  ];
  for (const [kind, path] of cases) {
    it(`${kind}: ${display(path)}`, () => {
      const version = kind === "HorizontalPodAutoscaler" ? "v2" : "v1";
      const object = OBJECTS[kind];
      assert.ok(object);
      const found = unknownFields(kind, version, withUnknown(object, path)).map((f) => f.name);
      assert.deepEqual(found, [display(path)]);
    });
  }
  it("deduced parts are not checked (listed in kinds/README.md)", () => {
    const deployment = OBJECTS.Deployment;
    assert.ok(deployment);
    const affinity = withUnknown(deployment, "spec.template.spec.affinity");
    assert.deepEqual(unknownFields("Deployment", "v1", affinity), []);
  });
  it("every writable kind checks its top level and metadata", () => {
    for (const d of KIND_LIST) {
      if (d.readOnly) continue;
      for (const v of d.versions) assert.notEqual(knownFieldsOf(v.schema), "any", d.kind);
    }
  });
});

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (method: string, url: string, body: unknown): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify(body)),
    };
    return handler(req);
  };
  return { cluster, call };
}

describe("a container's unknown field through the API", () => {
  const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
  const body = () => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    ...withUnknown(OBJECTS.Deployment ?? {}, "spec.template.spec.containers.0"),
  });
  it("Warn (the default): stored without it, with a warning", async () => {
    const { cluster, call } = setup();
    const res = await call("POST", DEPLOYMENTS, body());
    assert.equal(res.status, 201);
    assert.equal(
      res.headers?.warning,
      '299 - "unknown field \\"spec.template.spec.containers[0].x\\""',
    );
    const stored = cluster.store.get("Deployment", "default", "web");
    const container = (stored?.spec as { template: { spec: { containers: object[] } } } | undefined)
      ?.template.spec.containers[0];
    assert.ok(container && !("x" in container));
  });
  // Keys are data: an empty key, or one with dots or brackets, names no other field.
  for (const key of ["", ".", "a.b", "[0]", "constructor", "__proto__"]) {
    it(`an unknown key ${JSON.stringify(key)} is dropped alone, wherever it is`, async () => {
      const { cluster, call } = setup();
      const pod = JSON.parse(
        JSON.stringify({ apiVersion: "v1", kind: "Pod", ...OBJECTS.Pod, status: undefined }),
      ) as Record<string, Record<string, unknown>>;
      const inject = (o: Record<string, unknown>) =>
        Object.defineProperty(o, key, { value: 1, enumerable: true, writable: true });
      inject(pod);
      const { metadata, spec: sent } = pod;
      assert.ok(metadata && sent);
      inject(metadata);
      inject(sent);
      inject((sent.containers as Record<string, unknown>[])[0] ?? {});
      const res = await call("POST", "/api/v1/namespaces/default/pods", pod);
      assert.equal(res.status, 201, JSON.stringify("body" in res ? res.body : res));
      const stored = cluster.store.get("Pod", "default", "web");
      assert.ok(stored);
      const spec = stored.spec as { containers: Record<string, unknown>[] };
      assert.equal(spec.containers[0]?.image, "nginx");
      for (const o of [stored, stored.metadata, spec, spec.containers[0]]) {
        assert.equal(Object.hasOwn(o ?? {}, key), false, `${key} kept`);
      }
      assert.equal(
        res.headers?.warning?.split(", ").length,
        4,
        `one warning per unknown field: ${res.headers?.warning}`,
      );
    });
  }
  it("Strict: 400, nothing stored", async () => {
    const { cluster, call } = setup();
    const res = await call("POST", `${DEPLOYMENTS}?fieldValidation=Strict`, body());
    assert.equal(res.status, 400);
    assert.ok("body" in res);
    assert.equal(
      (res.body as { message: string }).message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].x"',
    );
    assert.equal(cluster.store.get("Deployment", "default", "web"), undefined);
  });
});
