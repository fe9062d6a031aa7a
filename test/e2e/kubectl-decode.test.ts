// End-to-end: bodies the REAL kubectl sends to `horizon up` decoded as kube-apiserver does:
// wrong JSON types refused (400, encoding/json's message) with nothing stored; unknown fields
// deep in an object refused under --validate=strict and dropped with a warning under
// --validate=warn. Without kubectl the tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  findKubectls,
  type KubectlContext,
  kubectl,
  kubectlRequired,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const search = findKubectls([]);
const binary = search.binaries[0];

const hpa = (name: string, maxReplicas: string, averageValue = "100m", labels = "{app: web}") => `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ${name}, labels: ${labels}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: ${maxReplicas}
  metrics:
  - type: Pods
    pods:
      metric: {name: rps}
      target: {type: AverageValue, averageValue: ${averageValue}}
`;

describe("kubectl: wrong JSON types are refused with the decoder's errors", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string) =>
    kubectl(ctx, args, stdin === undefined ? {} : { stdin });

  before(async () => {
    if (!binary) {
      const reason = search.missing.join("; ");
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${reason}`);
      console.log(`# skipping kubectl decode tests: ${reason}`);
      return;
    }
    server = await startTestServer();
    ctx = server.context(binary);
  });
  after(async () => {
    await server?.up.close();
  });
  const skip = () => binary === undefined;
  const stored = (name: string) =>
    server.up.cluster.store.get("HorizontalPodAutoscaler", "default", name);

  it("a string in spec.maxReplicas, a number in a label, a bad quantity: 400", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    const prefix =
      'Error from server (BadRequest): error when creating "STDIN": HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: ';
    const cases: [string, string][] = [
      [
        hpa("a", '"5"'),
        "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
      ],
      [
        hpa("b", "99999999999"),
        "json: cannot unmarshal number 99999999999 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
      ],
      [
        hpa("d", "5", "abc"),
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ],
    ];
    for (const [yaml, message] of cases) {
      const result = await run(["create", "-f", "-"], yaml);
      assert.equal(result.code, 1, result.stdout);
      assert.equal(result.stderr.trim(), prefix + message);
    }
    // kubectl decodes metadata itself (the same encoding/json message, before sending): a label
    // that is a number reaches the server only raw.
    const local = await run(["create", "-f", "-"], hpa("c", "5", "100m", "{app: 1}"));
    assert.equal(
      local.stderr.trim(),
      'error: unable to decode "STDIN": json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    const raw = await run(
      [
        "create",
        "--raw",
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        "-f",
        "-",
      ],
      JSON.stringify({
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "c", labels: { app: 1 } },
        spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, maxReplicas: 5 },
      }),
    );
    assert.equal(raw.code, 1, raw.stdout);
    assert.equal(
      raw.stderr.trim(),
      'Error from server (BadRequest): HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    for (const name of ["a", "b", "c", "d"]) assert.equal(stored(name), undefined, name);
    const good = await run(["create", "-f", "-"], hpa("e", "5"));
    assert.equal(good.code, 0, good.stderr);
  });

  it("a container's unknown field: refused by --validate=strict, dropped with a warning by warn", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    const deployment = (name: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: app
        image: nginx
        x: 1
        livenessProbe: {httpGet: {path: /, port: 80, z: 2}}
`;
    const strict = await run(["create", "--validate=strict", "-f", "-"], deployment("strict"));
    assert.equal(strict.code, 1, strict.stdout);
    assert.equal(
      strict.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].livenessProbe.httpGet.z", unknown field "spec.template.spec.containers[0].x"',
    );
    assert.equal(server.up.cluster.store.get("Deployment", "default", "strict"), undefined);
    const warn = await run(["create", "--validate=warn", "-f", "-"], deployment("warn"));
    assert.equal(warn.code, 0, warn.stderr);
    assert.deepEqual(warn.stderr.trim().split("\n"), [
      'Warning: unknown field "spec.template.spec.containers[0].livenessProbe.httpGet.z"',
      'Warning: unknown field "spec.template.spec.containers[0].x"',
    ]);
    const stored = server.up.cluster.store.get("Deployment", "default", "warn");
    const container = (stored?.spec as { template: { spec: { containers: object[] } } } | undefined)
      ?.template.spec.containers[0] as Record<string, unknown>;
    assert.equal("x" in container, false);
    // The unknown field is gone; the rest is stored with upstream's probe defaults.
    assert.deepEqual(container.livenessProbe, {
      httpGet: { path: "/", port: 80, scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });
});
