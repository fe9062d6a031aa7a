// Pod and workload validation through the API handler: a body missing what upstream requires
// (a pod's containers, a container's name and image, a workload's selector matching its template)
// is refused with upstream's 422 message and nothing is stored; pod updates change only what
// upstream lets them; a body without a spec decodes as the zero struct, not a 500.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, path: string, body: unknown, contentType?: string) => {
    const req: ApiRequest = {
      method,
      path,
      query: new URLSearchParams(),
      headers: { "content-type": contentType ?? "application/json" },
      body: Buffer.from(JSON.stringify(body)),
    };
    const res = await handler(req);
    const text = "body" in res ? (res.body as { message?: string }) : {};
    return { status: res.status, message: text.message ?? "" };
  };
  return { cluster, call };
}

const PODS = "/api/v1/namespaces/default/pods";
const container = { name: "app", image: "nginx:1.27" };
const pod = (spec: unknown) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec });

describe("pod validation", () => {
  const cases: { name: string; spec: unknown; message: string }[] = [
    { name: "no spec", spec: undefined, message: "spec.containers: Required value" },
    { name: "no containers", spec: { containers: [] }, message: "spec.containers: Required value" },
    {
      name: "a container without a name",
      spec: { containers: [{ image: "nginx" }] },
      message: "spec.containers[0].name: Required value",
    },
    {
      name: "a container without an image",
      spec: { containers: [{ name: "app" }] },
      message: "spec.containers[0].image: Required value",
    },
    {
      name: "a name that is not a DNS label",
      spec: { containers: [{ name: "App_1", image: "nginx" }] },
      message: `spec.containers[0].name: Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    },
    {
      name: "a name too long",
      spec: { containers: [{ name: "a".repeat(64), image: "nginx" }] },
      message: `spec.containers[0].name: Invalid value: "${"a".repeat(64)}": must be no more than 63 characters`,
    },
    {
      name: "two containers of one name",
      spec: { containers: [container, container] },
      message: `spec.containers[1].name: Duplicate value: "app"`,
    },
    {
      name: "a port out of range",
      spec: { containers: [{ ...container, ports: [{ containerPort: 70000 }] }] },
      message:
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    },
    {
      name: "a port without a number",
      spec: { containers: [{ ...container, ports: [{ name: "http" }] }] },
      message: "spec.containers[0].ports[0].containerPort: Required value",
    },
    {
      name: "a negative request",
      spec: { containers: [{ ...container, resources: { requests: { cpu: -1 } } }] },
      message: `spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
    },
    {
      name: "a request above its limit",
      spec: {
        containers: [
          { ...container, resources: { requests: { cpu: 0.5 }, limits: { cpu: "200m" } } },
        ],
      },
      message: `spec.containers[0].resources.requests: Invalid value: "500m": must be less than or equal to cpu limit of 200m`,
    },
    {
      name: "a port name with two hyphens",
      spec: { containers: [{ ...container, ports: [{ name: "a--b", containerPort: 80 }] }] },
      message: `spec.containers[0].ports[0].name: Invalid value: "a--b": must not contain consecutive hyphens`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: 422 and nothing stored`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", PODS, pod(c.spec));
      assert.equal(res.status, 422);
      assert.equal(res.message, `Pod "p" is invalid: ${c.message}`);
      assert.equal(cluster.store.get("Pod", "default", "p"), undefined);
    });
  }

  it("an update may change an image, not the containers", async () => {
    const { cluster, call } = setup();
    assert.equal((await call("POST", PODS, pod({ containers: [container] }))).status, 201);
    const image = await call(
      "PATCH",
      `${PODS}/p`,
      { spec: { containers: [{ name: "app", image: "nginx:1.28" }] } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(image.status, 200);
    const more = await call(
      "PATCH",
      `${PODS}/p`,
      { spec: { containers: [{ name: "app", command: ["sh"] }] } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(more.status, 422);
    assert.match(more.message, /^Pod "p" is invalid: spec: Forbidden: pod updates may not change/);
    const removed = await call(
      "PATCH",
      `${PODS}/p`,
      { spec: null },
      "application/merge-patch+json",
    );
    assert.equal(removed.status, 422);
    const stored = cluster.store.get("Pod", "default", "p");
    assert.ok(stored);
    // As stored: the new image, with what the create gave it: the container defaults and
    // ServiceAccount admission's mount of the API token volume.
    const spec = stored.spec as { containers: unknown[]; volumes: { name: string }[] };
    const volume = spec.volumes[0]!.name;
    assert.match(volume, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(spec.containers, [
      {
        name: "app",
        image: "nginx:1.28",
        imagePullPolicy: "IfNotPresent",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        volumeMounts: [
          {
            name: volume,
            readOnly: true,
            mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
          },
        ],
      },
    ]);
  });
});

describe("workload validation", () => {
  const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
  const template = { metadata: { labels: { app: "web" } }, spec: { containers: [container] } };
  const deployment = (spec: unknown) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec,
  });
  const cases: { name: string; spec: unknown; message: string }[] = [
    {
      name: "no spec",
      spec: undefined,
      message: "[spec.selector: Required value, spec.template.spec.containers: Required value]",
    },
    {
      name: "a selector that does not select the template",
      spec: { selector: { matchLabels: { app: "api" } }, template },
      message:
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    },
    {
      name: "an empty selector",
      spec: { selector: {}, template },
      message: "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
    },
    // As upstream, a selector that does not parse is also "invalid label selector", and the
    // template is then not matched against it.
    {
      name: "a selector key that is not a label name",
      spec: { selector: { matchLabels: { " a]": "web" } }, template },
      message: `[spec.selector.matchLabels: Invalid value: " a]": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.selector: Invalid value: {"matchLabels":{" a]":"web"}}: invalid label selector]`,
    },
    {
      name: "an expression with a bad operator",
      spec: {
        selector: { matchExpressions: [{ key: "app", operator: "Near", values: ["web"] }] },
        template,
      },
      message: `[spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator, spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near","values":["web"]}]}: invalid label selector]`,
    },
    {
      name: "negative replicas",
      spec: { replicas: -1, selector: { matchLabels: { app: "web" } }, template },
      message: "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    },
  ];
  for (const c of cases) {
    it(`${c.name}: 422 and nothing stored`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", DEPLOYMENTS, deployment(c.spec));
      assert.equal(res.status, 422, res.message);
      assert.equal(res.message, `Deployment.apps "web" is invalid: ${c.message}`);
      assert.equal(cluster.store.get("Deployment", "default", "web"), undefined);
    });
  }

  it("the selector of an apps/v1 workload is immutable", async () => {
    const { call } = setup();
    const valid = { selector: { matchLabels: { app: "web" } }, template };
    assert.equal((await call("POST", DEPLOYMENTS, deployment(valid))).status, 201);
    const res = await call(
      "PATCH",
      `${DEPLOYMENTS}/web`,
      { spec: { selector: { matchLabels: { app: "web", tier: "a" } } } },
      "application/merge-patch+json",
    );
    assert.equal(res.status, 422);
    assert.match(res.message, /spec\.selector: Invalid value: .*: field is immutable/);
  });

  it("a ReplicationController's selector must select its template", async () => {
    const { call } = setup();
    const res = await call("POST", "/api/v1/namespaces/default/replicationcontrollers", {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "rc" },
      spec: { selector: { " S]": "x", app: "web" }, template },
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.message,
      'ReplicationController "rc" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    );
  });
});

describe("an HPA without a spec", () => {
  it("is a 422 naming the required fields, not a 500", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
      {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "h" },
      },
    );
    assert.equal(res.status, 422);
    assert.match(res.message, /spec\.scaleTargetRef\.name: Required value/);
  });
});
