// End-to-end: `kubectl create service` with the REAL kubectl 1.27 (a JSON body) and 1.33 (a
// protobuf body, as every typed-client create from 1.32 on) against `horizon up`: both store the
// same defaulted Service. Without kubectl the tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  startTestServer,
  type TestServer,
} from "./helpers.js";

for (const binary of kubectlsUnderTest("kubectl-create-service", { versionedOnly: true }))
  describeCreateService(binary);

function describeCreateService(binary: KubectlBinary): void {
  describe(`${binary.name}: kubectl create service against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("create service clusterip NAME --tcp=80:8080 stores the Service, defaulted", async () => {
      const out = kubectlOk(
        await kubectl(ctx, ["create", "service", "clusterip", "my-svc", "--tcp=80:8080"]),
        "create service",
      );
      assert.equal(out, "service/my-svc created\n");
      const svc = JSON.parse(
        kubectlOk(await kubectl(ctx, ["get", "service", "my-svc", "-o", "json"]), "get"),
      );
      assert.deepEqual(svc.metadata.labels, { app: "my-svc" });
      const { clusterIP, clusterIPs, ...spec } = svc.spec;
      assert.match(clusterIP, /^127\.65\.\d+\.\d+$/);
      assert.deepEqual(clusterIPs, [clusterIP]);
      assert.deepEqual(spec, {
        ports: [{ name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 }],
        selector: { app: "my-svc" },
        type: "ClusterIP",
        sessionAffinity: "None",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        internalTrafficPolicy: "Cluster",
      });
    });

    it("create service nodeport and externalname: their types and fields are kept", async () => {
      kubectlOk(
        await kubectl(ctx, ["create", "service", "nodeport", "np", "--tcp=8080:80"]),
        "create nodeport",
      );
      const np = JSON.parse(
        kubectlOk(await kubectl(ctx, ["get", "service", "np", "-o", "json"]), "get np"),
      );
      assert.equal(np.spec.type, "NodePort");
      assert.equal(np.spec.ports[0].port, 8080);
      assert.equal(np.spec.ports[0].targetPort, 80);
      kubectlOk(
        await kubectl(ctx, [
          "create",
          "service",
          "externalname",
          "ext",
          "--external-name=db.example.com",
        ]),
        "create externalname",
      );
      const ext = JSON.parse(
        kubectlOk(await kubectl(ctx, ["get", "service", "ext", "-o", "json"]), "get ext"),
      );
      assert.equal(ext.spec.type, "ExternalName");
      assert.equal(ext.spec.externalName, "db.example.com");
    });
  });
}
