// `kubectl exec`, `attach` and `port-forward` against `horizon up`: its containers are models,
// not processes, so the streaming subresources (a WebSocket or SPDY upgrade, or any other
// request) are answered with a Status that says so, and kubectl prints that message instead of
// "the server could not find the requested resource".
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  requestUp,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const NOT_PROCESSES = "is not supported by horizon up: its containers are models, not processes";

for (const binary of kubectlsUnderTest("kubectl-exec")) describeStreams(binary);

function describeStreams(binary: KubectlBinary): void {
  describe(`${binary.name}: exec, attach and port-forward against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    let podIP = "";
    before(async () => {
      server = await startTestServer({ controller: false });
      ctx = server.context(binary);
      kubectlOk(await kubectl(ctx, ["run", "p", "--image=nginx", "--port=80"]), "run");
      kubectlOk(await kubectl(ctx, ["expose", "pod", "p", "--port=80"]), "expose");
      podIP = await pollUntil("the pod's IP", async () => {
        const got = await kubectl(ctx, ["get", "pod", "p", "-o", "jsonpath={.status.podIP}"]);
        return got.stdout !== "" ? got.stdout : undefined;
      });
    });
    after(async () => {
      await server?.up.close();
    });

    it("kubectl exec prints that there is no process to run a command in", async () => {
      const result = await kubectl(ctx, ["exec", "p", "--", "ls"]);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(
        result.stderr.trim(),
        `Error from server (NotImplemented): pods "p": exec ${NOT_PROCESSES}`,
      );
    });

    it("kubectl attach prints the same for attach", async () => {
      const result = await kubectl(ctx, ["attach", "p"]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `^Error from server \\(NotImplemented\\): pods "p": attach ${NOT_PROCESSES}$`,
          "m",
        ),
      );
    });

    it("kubectl port-forward prints where the pod's ports are reachable instead", async () => {
      const result = await kubectl(ctx, ["port-forward", "svc/p", ":80"]);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(
        result.stderr.trim(),
        `error: error upgrading connection: pods "p": port-forward ${NOT_PROCESSES}; their ports listen on the pod's IP ${podIP} (and a Service's on its ClusterIP), reachable from this machine`,
      );
    });

    it("a missing pod is NotFound, as for any subresource", async () => {
      const result = await kubectl(ctx, ["exec", "nope", "--", "ls"]);
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim(), 'Error from server (NotFound): pods "nope" not found');
    });

    it("any method without an upgrade gets the Status too (501)", async () => {
      for (const method of ["GET", "POST", "PUT"]) {
        const res = await requestUp(
          server.up,
          method,
          "/api/v1/namespaces/default/pods/p/exec?command=ls",
        );
        assert.equal(res.status, 501, method);
        assert.deepEqual(JSON.parse(res.body), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `pods "p": exec ${NOT_PROCESSES}`,
          reason: "NotImplemented",
          details: { name: "p", kind: "pods" },
          code: 501,
        });
      }
    });
  });
}
