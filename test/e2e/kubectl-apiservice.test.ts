// End to end with the REAL kubectl (1.27, 1.33): APIServices against `horizon up`. `kubectl get
// apiservices` lists the Local ones of the served groups with upstream's columns, `kubectl wait
// --for=condition=Available` succeeds on one, deploy/adapter's APIServices apply (Available
// False until their Service exists, as upstream's availability check says), and a wrong one is
// refused with kube-aggregator's message. Without kubectl the cases skip with the reason,
// except under CI=true.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

for (const binary of kubectlsUnderTest("kubectl-apiservice", { versionedOnly: true })) {
  describeApiServices(binary);
}

function describeApiServices(binary: KubectlBinary): void {
  describe(`${binary.name}: APIServices`, () => {
    let server: TestServer;
    let ctx: KubectlContext;

    before(async () => {
      server = await startTestServer({ controller: false });
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("kubectl get apiservices: the Local ones, NAME SERVICE AVAILABLE AGE", async () => {
      const rows = tableRows(kubectlOk(await kubectl(ctx, ["get", "apiservices"]), "get"));
      assert.deepEqual(rows[0], ["NAME", "SERVICE", "AVAILABLE", "AGE"]);
      const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
      for (const name of ["v1.", "v1.apps", "v2.autoscaling", "v1beta1.metrics.k8s.io"]) {
        assert.deepEqual(byName.get(name)?.slice(1, 3), ["Local", "True"], name);
      }
      kubectlOk(
        await kubectl(ctx, [
          "wait",
          "--for=condition=Available",
          "apiservice/v2.autoscaling",
          "--timeout=10s",
        ]),
        "wait Available",
      );
    });

    it("deploy/adapter's APIServices apply; Available False (ServiceNotFound) without the Service", async () => {
      const file = join(ROOT, "deploy", "adapter", "apiservice.yaml");
      const applied = kubectlOk(await kubectl(ctx, ["apply", "-f", file]), "apply");
      assert.match(
        applied,
        /apiservice\.apiregistration\.k8s\.io\/v1beta1\.custom\.metrics\.k8s\.io configured/,
      );
      const row = await pollUntil("the availability check", async () => {
        const out = kubectlOk(
          await kubectl(ctx, ["get", "apiservice", "v1beta1.custom.metrics.k8s.io"]),
          "get",
        );
        const cells = tableRows(out)[1];
        return cells?.[2] === "False (ServiceNotFound)" ? cells : undefined;
      });
      assert.equal(row[1], "custom-metrics/horizon-adapter");
      const again = kubectlOk(await kubectl(ctx, ["apply", "-f", file]), "apply again");
      assert.match(again, /v1beta1\.custom\.metrics\.k8s\.io unchanged/);
    });

    it("a name that is not version.group is refused with upstream's message", async () => {
      const bad = JSON.stringify({
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: "v1.wrong.example.com" },
        spec: {
          group: "example.com",
          version: "v1",
          groupPriorityMinimum: 1000,
          versionPriority: 15,
        },
      });
      const res = await kubectl(ctx, ["create", "-f", "-"], { stdin: bad });
      assert.equal(res.code, 1);
      assert.match(
        res.stderr,
        /The APIService "v1\.wrong\.example\.com" is invalid: metadata\.name: Invalid value: "v1\.wrong\.example\.com": must be `spec\.version\+"\."\+spec\.group`: "v1\.example\.com"/,
      );
    });
  });
}
