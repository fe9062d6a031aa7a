// End to end with the REAL kubectl (1.27, 1.33): Endpoints and EndpointSlices written by a user,
// as on kube-apiserver. A Service without selector with hand-written Endpoints (an external
// database) applies, lists its address and applies again unchanged; a user's EndpointSlice
// applies with upstream's defaults; a bad address is refused with upstream's message; a deleted
// Endpoints of a selector Service is made again by the endpoints controller; kubectl prints
// upstream's deprecation warning for v1 Endpoints (1.33+). Without kubectl
// the cases skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
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

// The lists are atomic (no merge keys): fields the server defaults (protocol, conditions) are
// written out, or client-side apply sends the list again and prints "configured", as upstream.
const EXTERNAL_DB = [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "db" },
    spec: { ports: [{ name: "pg", port: 5432 }] },
  },
  {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: "db" },
    subsets: [
      { addresses: [{ ip: "10.20.0.5" }], ports: [{ name: "pg", port: 5432, protocol: "TCP" }] },
    ],
  },
  {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "db-1", labels: { "kubernetes.io/service-name": "db" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.20.0.5"], conditions: {} }],
    ports: [{ name: "pg", port: 5432, protocol: "TCP" }],
  },
];

const manifest = (objects: unknown[]) => objects.map((o) => stringify(o)).join("---\n");

for (const binary of kubectlsUnderTest("kubectl-endpoints", { versionedOnly: true })) {
  describeEndpoints(binary);
}

function describeEndpoints(binary: KubectlBinary): void {
  describe(`${binary.name}: user-written Endpoints and EndpointSlices`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      server = await startTestServer({ controller: false });
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("a selectorless Service's Endpoints and EndpointSlice apply, stay, and re-apply unchanged", async () => {
      const first = kubectlOk(await run(["apply", "-f", "-"], manifest(EXTERNAL_DB)), "apply");
      assert.match(first, /endpoints\/db created/);
      assert.match(first, /endpointslice\.discovery\.k8s\.io\/db-1 created/);
      const got = await run(["get", "endpoints", "db"]);
      const rows = tableRows(kubectlOk(got, "get endpoints"));
      assert.deepEqual(rows[1]?.slice(0, 2), ["db", "10.20.0.5:5432"]);
      // v1 Endpoints is deprecated since 1.33: kubectl prints the server's warning.
      assert.match(
        got.stderr,
        /Warning: v1 Endpoints is deprecated in v1\.33\+; use discovery\.k8s\.io\/v1 EndpointSlice/,
      );
      const slices = await run(["get", "endpointslices"]);
      assert.doesNotMatch(slices.stderr, /deprecated/, "EndpointSlices are not");
      const slice = JSON.parse(
        kubectlOk(await run(["get", "endpointslice", "db-1", "-o", "json"]), "get"),
      );
      assert.deepEqual(slice.ports, [{ name: "pg", port: 5432, protocol: "TCP" }]);
      assert.deepEqual(slice.endpoints, [{ addresses: ["10.20.0.5"], conditions: {} }]);
      const again = kubectlOk(
        await run(["apply", "-f", "-"], manifest(EXTERNAL_DB)),
        "apply again",
      );
      assert.match(again, /endpoints\/db unchanged/);
      assert.match(again, /endpointslice\.discovery\.k8s\.io\/db-1 unchanged/);
    });

    it("a loopback address is refused with upstream's message", async () => {
      const bad = manifest([
        {
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name: "bad" },
          subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ port: 80 }] }],
        },
      ]);
      const res = await run(["create", "-f", "-"], bad);
      assert.equal(res.code, 1);
      assert.match(
        res.stderr,
        /The Endpoints "bad" is invalid: subsets\[0\]\.addresses\[0\]\.ip: Invalid value: "127\.0\.0\.1": may not be in the loopback range \(127\.0\.0\.0\/8, ::1\/128\)/,
      );
    });

    it("a selector Service's deleted Endpoints is made again by the endpoints controller", async () => {
      const web = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web" },
        spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
      };
      kubectlOk(await run(["apply", "-f", "-"], manifest([web])), "service");
      await pollUntil("the controller's Endpoints", async () => {
        const res = await run(["get", "endpoints", "web", "-o", "name"]);
        return res.code === 0 ? true : undefined;
      });
      kubectlOk(await run(["delete", "endpoints", "web"]), "delete endpoints");
      await pollUntil("Endpoints made again", async () => {
        const res = await run(["get", "endpoints", "web", "-o", "name"]);
        return res.code === 0 ? true : undefined;
      });
    });
  });
}
