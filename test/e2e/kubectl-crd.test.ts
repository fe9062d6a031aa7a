// End-to-end: CustomResourceDefinitions with the REAL kubectl (the PATH dispatcher, kubectl.1.27,
// kubectl.1.33) against `horizon up` in-process: a CRD applied and established, its resources
// in discovery (`api-resources`, short names, categories), applied, listed, patched, and gone
// with the CRD. Without kubectl the kubectl cases skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { withdraw } from "../../src/apiserver/kinds/custom.js";
import {
  findKubectls,
  type KubectlBinary,
  type KubectlContext,
  type KubectlResult,
  kubectl,
  kubectlRequired,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const search = findKubectls();
const missingReason = search.missing.length > 0 ? search.missing.join("; ") : null;

describe("kubectl binaries (kubectl-crd)", () => {
  it("the PATH kubectl and kubectl.1.27 / kubectl.1.33 are there", (t) => {
    if (missingReason !== null) {
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${missingReason}`);
      t.skip(`kubectl missing: ${missingReason}`);
      return;
    }
    assert.equal(search.binaries.length, 3);
  });
});

for (const binary of search.binaries) describeCrd(binary);

describe("custom resources with --data-dir", () => {
  it("survive a restart: the CRD is loaded first, a cluster-scoped resource stays cluster-wide", async (t) => {
    const binary = search.binaries[0];
    if (!binary) {
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${missingReason}`);
      t.skip(`kubectl missing: ${missingReason}`);
      return;
    }
    const group = "restart.example.com";
    const first = await startTestServer();
    const dataDir = join(first.dir, "data");
    await first.up.close();
    const crd = crdManifest(group, PRESERVE).replace("scope: Namespaced", "scope: Cluster");
    const cr = `apiVersion: ${group}/v1\nkind: CronTab\nmetadata: {name: kept}\nspec: {image: one}\n`;
    const before = await startTestServer({ dataDir });
    try {
      const ctx = before.context(binary);
      ok(await kubectl(ctx, ["apply", "-f", "-"], { stdin: crd }), "apply crd");
      ok(await kubectl(ctx, ["apply", "-f", "-"], { stdin: cr }), "apply cr");
    } finally {
      await before.up.close();
    }
    // A new process knows no custom kind until it loads the CRD from the data directory.
    withdraw(`crontabs.${group}`);
    const after = await startTestServer({ dataDir });
    try {
      const ctx = after.context(binary);
      const got = ok(
        await kubectl(ctx, ["get", `crontabs.${group}`, "kept", "-o", "jsonpath={.spec.image}"]),
        "get after restart",
      );
      assert.equal(got, "one");
      ok(await kubectl(ctx, ["delete", "crd", `crontabs.${group}`]), "delete crd");
    } finally {
      await after.up.close();
    }
  });
});

/** A CRD of group `group` with the given version fields (schema, subresources, columns). */
export function crdManifest(group: string, version: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
${version
  .split("\n")
  .map((l) => (l ? `    ${l}` : l))
  .join("\n")}
`;
}

const SCHEMA = `schema:
  openAPIV3Schema:
    type: object
    properties:
      spec:
        type: object
        properties:
          cronSpec: {type: string, pattern: '^(\\S+ ){4}\\S+$'}
          image: {type: string}
          replicas: {type: integer, minimum: 0, default: 1}
      status:
        type: object
        properties:
          replicas: {type: integer}`;

const PRESERVE = `schema:
  openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}`;

function ok(result: KubectlResult, what: string): string {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  return result.stdout;
}

function describeCrd(binary: KubectlBinary): void {
  describe(`${binary.name}: custom resources against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    // Each binary has its own server but custom kinds are process-wide: a group per binary.
    const group = `${binary.name.replace(/[^a-z0-9]/g, "")}.stable.example.com`;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("a CRD applies, is Established, and its resource is in api-resources", async () => {
      const applied = ok(await run(["apply", "-f", "-"], crdManifest(group, SCHEMA)), "apply");
      assert.match(applied, new RegExp(`crontabs.${group.replaceAll(".", "\\.")} created`));
      ok(
        await run([
          "wait",
          "--for=condition=Established",
          `crd/crontabs.${group}`,
          "--timeout=10s",
        ]),
        "wait",
      );
      const resources = ok(await run(["api-resources", `--api-group=${group}`]), "api-resources");
      assert.match(
        resources,
        new RegExp(`^crontabs\\s+ct\\s+${group}/v1\\s+true\\s+CronTab$`, "m"),
      );
    });

    it("a custom resource applies (twice: unchanged), lists by short name, patches, deletes", async () => {
      const cr = `apiVersion: ${group}/v1
kind: CronTab
metadata: {name: nightly}
spec: {cronSpec: "* * * * */5", image: my-cron-image}
`;
      assert.match(
        ok(await run(["apply", "-f", "-"], cr), "apply"),
        /crontab\.\S+\/nightly created/,
      );
      assert.match(
        ok(await run(["apply", "-f", "-"], cr), "apply"),
        /crontab\.\S+\/nightly unchanged/,
      );
      const listed = ok(await run(["get", "ct"]), "get ct");
      assert.match(listed, /^NAME\s+AGE\nnightly\s+\d+s\n$/);
      const replicas = ok(
        await run(["get", "ct", "nightly", "-o", "jsonpath={.spec.replicas}"]),
        "get",
      );
      assert.equal(replicas, "1", "the schema's default");
      const yaml = ok(
        await run(["get", `crontabs.${group}`, "nightly", "-o", "jsonpath={.spec.image}"]),
        "get",
      );
      assert.equal(yaml, "my-cron-image");
      ok(
        await run(["patch", "ct", "nightly", "--type=merge", "-p", '{"spec":{"image":"v2"}}']),
        "patch",
      );
      const patched = ok(
        await run(["get", "ct", "nightly", "-o", "jsonpath={.spec.image}"]),
        "get",
      );
      assert.equal(patched, "v2");
      const strategic = await run(["patch", "ct", "nightly", "-p", '{"spec":{"image":"v3"}}']);
      assert.notEqual(strategic.code, 0);
      assert.match(strategic.stderr, /application\/merge-patch\+json/);
      const all = ok(await run(["get", "all"]), "get all");
      assert.match(all, /crontab\.\S+\/nightly/);
      ok(await run(["delete", "ct", "nightly"]), "delete");
      assert.equal(ok(await run(["get", "ct", "-o", "name"]), "get"), "");
    });

    it("a custom resource the schema refuses: the error names the field, nothing is stored", async () => {
      const bad = `apiVersion: ${group}/v1
kind: CronTab
metadata: {name: bad}
spec: {cronSpec: "* * * *", image: x, replicas: "three"}
`;
      const refused = await run(["apply", "-f", "-"], bad);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/,
      );
      assert.match(
        refused.stderr,
        /spec\.cronSpec: Invalid value: "\* \* \* \*": spec\.cronSpec in body should match/,
      );
      assert.equal(server.up.cluster.store.get("CronTab", "default", "bad"), undefined);
    });

    it("deleting the CRD deletes its resources and stops serving them", async () => {
      ok(
        await run(
          ["apply", "-f", "-"],
          `apiVersion: ${group}/v1\nkind: CronTab\nmetadata: {name: hourly}\n`,
        ),
        "apply",
      );
      ok(await run(["delete", "crd", `crontabs.${group}`]), "delete crd");
      assert.equal(server.up.cluster.store.list("CronTab").length, 0);
      const gone = await run(["get", `crontabs.${group}`]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /the server doesn't have a resource type/);
    });
  });
}
