// End-to-end: server-side apply with the REAL kubectl (kubectl.1.27 and kubectl.1.33) against
// `horizon up` in-process: managedFields, a conflict as kubectl prints it, --force-conflicts,
// removal of fields dropped from the manifest, a Deployment whose container list changes, the
// client-side → server-side apply migration, and the HPA docs' migration of spec.replicas to
// HPA control. Without kubectl the tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
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
} from "./helpers.js";

type Json = ReturnType<typeof JSON.parse>;

interface ManifestOptions {
  name: string;
  replicas?: number;
  image?: string;
  sidecar?: boolean;
  env?: Record<string, string>;
  labels?: Record<string, string>;
}

/** A Deployment manifest (YAML is JSON): the knobs the scenarios turn. */
function deployment(o: ManifestOptions): string {
  const app: Json = { name: "app", image: o.image ?? "registry.k8s.io/hpa-example" };
  if (o.env) app.env = Object.entries(o.env).map(([name, value]) => ({ name, value }));
  app.resources = { requests: { cpu: "200m" } };
  const containers = [app];
  if (o.sidecar) containers.push({ name: "sidecar", image: "busybox:1.36" });
  const spec: Json = {
    selector: { matchLabels: { app: o.name } },
    template: {
      metadata: { labels: { app: o.name, ...(o.labels ?? {}) } },
      spec: { containers },
    },
  };
  if (o.replicas !== undefined) spec.replicas = o.replicas;
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: o.name },
    spec,
  });
}

for (const binary of kubectlsUnderTest("kubectl-apply", { versionedOnly: true }))
  describeApply(binary);

function describeApply(binary: KubectlBinary): void {
  describe(`${binary.name}: server-side apply against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });
    const getJson = async (name: string): Promise<Json> =>
      JSON.parse(
        kubectlOk(
          await run(["get", "deployment", name, "-o", "json", "--show-managed-fields"]),
          `get ${name}`,
        ),
      );
    const managers = (object: Json): string[] =>
      (object.metadata.managedFields ?? []).map(
        (e: Json) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ""}`,
      );

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("apply --server-side creates the object with an Apply entry for manager kubectl", async () => {
      const out = kubectlOk(
        await run(["apply", "--server-side", "-f", "-"], deployment({ name: "web", replicas: 2 })),
        "apply --server-side",
      );
      assert.equal(out.trim(), "deployment.apps/web serverside-applied");
      const web = await getJson("web");
      const [entry] = web.metadata.managedFields;
      assert.equal(entry.manager, "kubectl");
      assert.equal(entry.operation, "Apply");
      assert.equal(entry.apiVersion, "apps/v1");
      assert.equal(entry.fieldsType, "FieldsV1");
      assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(entry.fieldsV1["f:spec"]["f:replicas"], {});
      assert.deepEqual(
        Object.keys(entry.fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]),
        ['k:{"name":"app"}'],
      );
    });

    it("get -o yaml hides managedFields unless --show-managed-fields", async () => {
      const plain = kubectlOk(await run(["get", "deployment", "web", "-o", "yaml"]), "get -o yaml");
      assert.doesNotMatch(plain, /managedFields/);
      const shown = kubectlOk(
        await run(["get", "deployment", "web", "-o", "yaml", "--show-managed-fields"]),
        "get --show-managed-fields",
      );
      assert.match(shown, /managedFields:\n {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1/);
      assert.match(shown, /manager: kubectl\n {4}operation: Apply/);
    });

    it("a field another manager changed is a conflict, printed as kubectl prints it", async () => {
      kubectlOk(
        await run([
          "patch",
          "deployment",
          "web",
          "--type=merge",
          "-p",
          '{"spec":{"replicas":4}}',
          "--field-manager=kubectl-patch",
        ]),
        "patch",
      );
      const result = await run(
        ["apply", "--server-side", "-f", "-"],
        deployment({ name: "web", replicas: 2 }),
      );
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^error: Apply failed with 1 conflict: conflict with "kubectl-patch" using apps\/v1: \.spec\.replicas\nPlease review the fields above--they currently have other managers\./,
      );
      assert.match(result.stderr, /--force-conflicts/);
      assert.equal((await getJson("web")).spec.replicas, 4);
    });

    it("--force-conflicts takes ownership of the field", async () => {
      kubectlOk(
        await run(
          ["apply", "--server-side", "--force-conflicts", "-f", "-"],
          deployment({ name: "web", replicas: 2 }),
        ),
        "apply --force-conflicts",
      );
      const web = await getJson("web");
      assert.equal(web.spec.replicas, 2);
      // kubectl-patch owned only spec.replicas: its entry is gone.
      assert.deepEqual(managers(web), ["kubectl/Apply"]);
    });

    it("a container, env var and label dropped from the manifest are removed", async () => {
      kubectlOk(
        await run(
          ["apply", "--server-side", "-f", "-"],
          deployment({
            name: "web",
            replicas: 2,
            sidecar: true,
            env: { MODE: "fast", DEBUG: "1" },
            labels: { tier: "frontend" },
          }),
        ),
        "apply with sidecar",
      );
      let web = await getJson("web");
      assert.deepEqual(
        web.spec.template.spec.containers.map((c: Json) => c.name),
        ["app", "sidecar"],
      );
      kubectlOk(
        await run(
          ["apply", "--server-side", "-f", "-"],
          deployment({ name: "web", replicas: 2, image: "nginx:1.27", env: { MODE: "fast" } }),
        ),
        "apply without sidecar",
      );
      web = await getJson("web");
      const containers = web.spec.template.spec.containers;
      assert.deepEqual(
        containers.map((c: Json) => c.name),
        ["app"],
      );
      assert.equal(containers[0].image, "nginx:1.27");
      assert.deepEqual(containers[0].env, [{ name: "MODE", value: "fast" }]);
      // Fields nobody applied (server defaults) stay.
      assert.equal(web.spec.progressDeadlineSeconds, 600);
      assert.deepEqual(web.spec.template.metadata.labels, { app: "web" });
    });

    it("client-side apply, then apply --server-side takes over its fields (CSA → SSA)", async () => {
      kubectlOk(
        await run(["apply", "-f", "-"], deployment({ name: "legacy", env: { A: "1", B: "2" } })),
        "client-side apply",
      );
      let legacy = await getJson("legacy");
      assert.deepEqual(managers(legacy), ["kubectl-client-side-apply/Update"]);
      // A changed image would conflict with kubectl-client-side-apply, but the live value is
      // what last-applied-configuration says, so kubectl's apply takes it over; B goes away once
      // kubectl has moved the client-side apply fields to its manager.
      kubectlOk(
        await run(
          ["apply", "--server-side", "-f", "-"],
          deployment({ name: "legacy", image: "nginx:1.27", env: { A: "1" } }),
        ),
        "apply --server-side after client-side apply",
      );
      legacy = await getJson("legacy");
      const [app] = legacy.spec.template.spec.containers;
      assert.equal(app.image, "nginx:1.27");
      assert.deepEqual(app.env, [{ name: "A", value: "1" }]);
      assert.ok(
        !managers(legacy).includes("kubectl-client-side-apply/Update"),
        managers(legacy).join(),
      );
      assert.ok(managers(legacy).includes("kubectl/Apply"));
    });

    it("HPA migration with server-side apply: dropping spec.replicas keeps the HPA's count", async () => {
      const name = "ssa-hpa";
      kubectlOk(
        await run(["apply", "--server-side", "-f", "-"], deployment({ name, replicas: 1 })),
        "apply",
      );
      kubectlOk(
        await run(["autoscale", "deployment", name, "--min=3", "--max=5", "--cpu-percent=50"]),
        "autoscale",
      );
      await pollUntil(
        "the HPA to scale to minReplicas",
        async () => ((await getJson(name)).spec.replicas === 3 ? true : undefined),
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      const owners = managers(await getJson(name));
      // `horizon up` runs Horizon's controller over HTTP: the manager is its user agent's
      // program name (the built-in controller shows as kube-controller-manager).
      assert.ok(owners.includes("horizon-controller/Update/scale"), owners.join());
      // Applying the old count now conflicts with the HPA's controller.
      const conflict = await run(
        ["apply", "--server-side", "-f", "-"],
        deployment({ name, replicas: 1 }),
      );
      assert.equal(conflict.code, 1);
      assert.match(
        conflict.stderr,
        /Apply failed with 1 conflict: conflict with "horizon-controller" with subresource "scale" using apps\/v1: \.spec\.replicas/,
      );
      // Without replicas in the manifest, apply leaves the HPA's count alone.
      const out = kubectlOk(
        await run(
          ["apply", "--server-side", "-f", "-", "-o", "jsonpath={.spec.replicas}"],
          deployment({ name, image: "nginx:1.27" }),
        ),
        "apply without replicas",
      );
      assert.equal(out.trim(), "3");
      assert.equal((await getJson(name)).spec.replicas, 3);
    });

    it("HPA migration with client-side apply: dropping spec.replicas resets it once", async () => {
      const name = "csa-hpa";
      kubectlOk(await run(["apply", "-f", "-"], deployment({ name, replicas: 1 })), "apply");
      kubectlOk(
        await run(["autoscale", "deployment", name, "--min=3", "--max=5", "--cpu-percent=50"]),
        "autoscale",
      );
      await pollUntil(
        "the HPA to scale to minReplicas",
        async () => ((await getJson(name)).spec.replicas === 3 ? true : undefined),
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      // last-applied-configuration still has replicas: 1, so the patch deletes the field and
      // the Deployment default (1) comes back, as the HPA docs warn.
      const first = kubectlOk(
        await run(
          ["apply", "-f", "-", "-o", "jsonpath={.spec.replicas}"],
          deployment({ name, image: "nginx:1.27" }),
        ),
        "first apply without replicas",
      );
      assert.equal(first.trim(), "1");
      await pollUntil(
        "the HPA to scale back up",
        async () => ((await getJson(name)).spec.replicas === 3 ? true : undefined),
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      const second = kubectlOk(
        await run(
          ["apply", "-f", "-", "-o", "jsonpath={.spec.replicas}"],
          deployment({ name, image: "nginx:1.28" }),
        ),
        "second apply without replicas",
      );
      assert.equal(second.trim(), "3");
    });
  });
}
