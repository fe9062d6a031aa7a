// End-to-end: bodies of the wrong JSON types sent by the REAL kubectl to `horizon up` are
// refused with kube-apiserver's decode errors (400, encoding/json's message), and nothing is
// stored. Without kubectl the tests skip with the reason, except under CI=true.
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
});
