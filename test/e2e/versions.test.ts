// End-to-end: `horizon up` at a chosen Kubernetes version (--kubernetes-version), seen through
// the REAL kubectl: the server and the Node report that version, and the API server keeps or
// drops a per-direction tolerance as that version's kube-apiserver does (HPAConfigurableTolerance
// beta and on from v1.35, kubernetes/kubernetes#133128; alpha and off in v1.34).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  fastScenario,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const binary = kubectlsUnderTest("versions")[0];

const hpaWithTolerance = (name: string) =>
  JSON.stringify({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      maxReplicas: 5,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        },
      ],
      behavior: { scaleUp: { tolerance: "0.05" } },
    },
  });

for (const [version, gitVersion, keepsTolerance] of [
  ["1.35", "v1.35.2", true],
  ["1.34", "v1.34.0", false],
] as const) {
  describe(`horizon up --kubernetes-version ${gitVersion}`, { skip: !binary }, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    before(async () => {
      server = await startTestServer({ scenario: fastScenario(version), gitVersion });
      ctx = server.context(binary!);
    });
    after(async () => {
      await server?.up.close();
    });

    it("kubectl version shows it", async () => {
      const out = kubectlOk(await kubectl(ctx, ["version"]), "kubectl version");
      assert.match(out, new RegExp(`^Server Version: ${gitVersion.replaceAll(".", "\\.")}$`, "m"));
    });

    it("the Node's kubeletVersion is it", async () => {
      const out = kubectlOk(
        await kubectl(ctx, [
          "get",
          "nodes",
          "-o",
          "jsonpath={.items[*].status.nodeInfo.kubeletVersion}",
        ]),
        "kubectl get nodes",
      );
      assert.equal(out.trim(), gitVersion);
    });

    it(`a per-direction tolerance is ${keepsTolerance ? "kept" : "dropped"}`, async () => {
      kubectlOk(
        await kubectl(ctx, ["create", "-f", "-"], { stdin: hpaWithTolerance("tol") }),
        "create",
      );
      const out = kubectlOk(
        await kubectl(ctx, [
          "get",
          "hpa",
          "tol",
          "-o",
          "jsonpath={.spec.behavior.scaleUp.tolerance}",
        ]),
        "kubectl get hpa",
      );
      assert.equal(out.trim(), keepsTolerance ? "50m" : "");
    });
  });
}
