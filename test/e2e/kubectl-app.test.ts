// End-to-end, issue #13's proof: a realistic application (test/fixtures/app/shop.yaml: a
// namespace, ConfigMap, Secret, ServiceAccount, Role and RoleBinding, a Deployment with probes
// and resources, Service, Ingress, PodDisruptionBudget, an HPA, and a CRD with the scale
// subresource, one custom resource and an HPA scaling it) applied with the REAL kubectl 1.27 and
// 1.33 against `horizon up`: `kubectl apply -f` as against kube-apiserver, `wait
// --for=condition=Available`, `diff` exits 0, a re-apply changes nothing,
// `explain` knows every kind, the custom resource's replicas follow its HPA, and a rollout
// started while the HPA scales up ends with the HPA's count and the new template on every pod.
// Short periods (1 s HPA sync and metrics); every wait polls with a deadline. Without kubectl the
// tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { LOAD_ANNOTATION } from "../../src/cluster/load.js";
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

const MANIFEST = fileURLToPath(new URL("../fixtures/app/shop.yaml", import.meta.url));
const CRD = "workerpools.shop.example.com";

/** Every object of the manifest as `kubectl apply` names it, in the manifest's order. */
const OBJECTS = [
  "namespace/shop",
  "configmap/shop-config",
  "secret/shop-db",
  "secret/shop-api",
  "serviceaccount/shop",
  "role.rbac.authorization.k8s.io/shop-config-reader",
  "rolebinding.rbac.authorization.k8s.io/shop-config-reader",
  "deployment.apps/shop",
  "service/shop",
  "ingress.networking.k8s.io/shop",
  "poddisruptionbudget.policy/shop",
  "horizontalpodautoscaler.autoscaling/shop",
  `customresourcedefinition.apiextensions.k8s.io/${CRD}`,
  "workerpool.shop.example.com/orders",
  "deployment.apps/orders-worker",
  "horizontalpodautoscaler.autoscaling/orders",
];

/**
 * What `kubectl apply` prints for an object already applied. The PDB and the Secret written with
 * `stringData` are `configured` on every apply, as against kube-apiserver: kubectl's three-way
 * patch always carries the PDB's selector (patch strategy `replace`) and the write-only
 * `stringData`, and the server finds nothing to change.
 */
const ALWAYS_CONFIGURED = new Set(["poddisruptionbudget.policy/shop", "secret/shop-api"]);
const reapplied = (object: string) =>
  `${object} ${ALWAYS_CONFIGURED.has(object) ? "configured" : "unchanged"}`;

/** The resources `kubectl explain` is asked about: every kind of the manifest. */
const EXPLAINED: [resource: string, kind: string][] = [
  ["namespaces", "Namespace"],
  ["configmaps", "ConfigMap"],
  ["secrets", "Secret"],
  ["serviceaccounts", "ServiceAccount"],
  ["roles", "Role"],
  ["rolebindings", "RoleBinding"],
  ["deployments", "Deployment"],
  ["services", "Service"],
  ["ingresses", "Ingress"],
  ["poddisruptionbudgets", "PodDisruptionBudget"],
  ["horizontalpodautoscalers", "HorizontalPodAutoscaler"],
  ["customresourcedefinitions", "CustomResourceDefinition"],
  ["workerpools", "WorkerPool"],
];

for (const binary of kubectlsUnderTest("kubectl-app", { versionedOnly: true })) describeApp(binary);

function describeApp(binary: KubectlBinary): void {
  describe(`${binary.name}: a realistic app applied to horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], timeoutMs?: number) =>
      kubectl(ctx, args, timeoutMs === undefined ? {} : { timeoutMs });
    const getJson = async (args: string[]): Promise<Json> =>
      JSON.parse(
        kubectlOk(await run(["get", "-n", "shop", ...args, "-o", "json"]), args.join(" ")),
      );

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      // Custom kinds are process-wide: the next binary's server starts without this one.
      if (server) await run(["delete", "crd", CRD]).catch(() => undefined);
      await server?.up.close();
    });

    it("kubectl apply -f creates every object; the custom resource, as against kube-apiserver, once its CRD is served", async () => {
      // kubectl maps every document to a resource before it sends any, so on a cluster that
      // does not serve the CRD yet the custom resource fails client-side (exit 1) and the
      // rest is applied: upstream's "ensure CRDs are installed first".
      const first = await run(["apply", "-f", MANIFEST]);
      assert.equal(first.code, 1, `${first.stdout}\n${first.stderr}`);
      assert.equal(
        first.stderr,
        `error: resource mapping not found for name: "orders" namespace: "shop" from "${MANIFEST}": no matches for kind "WorkerPool" in version "shop.example.com/v1"\nensure CRDs are installed first\n`,
      );
      assert.deepEqual(
        first.stdout.trim().split("\n"),
        OBJECTS.filter((o) => !o.startsWith("workerpool")).map((o) => `${o} created`),
      );
      kubectlOk(
        await run(["wait", "--for=condition=Established", `crd/${CRD}`, "--timeout=30s"]),
        "wait Established",
      );
      // The same command again: the custom resource is created, nothing else changes.
      const second = kubectlOk(await run(["apply", "-f", MANIFEST]), "second apply");
      assert.deepEqual(
        second.trim().split("\n"),
        OBJECTS.map((o) => (o.startsWith("workerpool") ? `${o} created` : reapplied(o))),
      );
      const pool = await getJson(["workerpool", "orders"]);
      assert.deepEqual(pool.spec, { queue: "orders", replicas: 3 });
    });

    it("kubectl wait --for=condition=Available: the Deployment's pods pass their readiness probe", async () => {
      const out = kubectlOk(
        await run(
          ["wait", "-n", "shop", "--for=condition=Available", "deploy/shop", "--timeout=60s"],
          70_000,
        ),
        "wait Available",
      );
      assert.equal(out, "deployment.apps/shop condition met\n");
      // The HPA's minReplicas (2) over the Deployment's default of 1.
      const deployment = await pollUntil(
        "the shop at the HPA's minReplicas, both Ready",
        async () => {
          const d = await getJson(["deployment", "shop"]);
          return d.spec.replicas === 2 && d.status.readyReplicas === 2 ? d : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      // Created (1), scaled once by the HPA (2); the controller's revision annotation went
      // through the status subresource, which adds no generation.
      assert.equal(deployment.metadata.generation, 2);
      assert.equal(deployment.metadata.annotations["deployment.kubernetes.io/revision"], "1");
      const container = deployment.spec.template.spec.containers[0];
      assert.deepEqual(container.resources, {
        requests: { cpu: "100m", memory: "64Mi" },
        limits: { cpu: "500m", memory: "128Mi" },
      });
      assert.equal(container.readinessProbe.httpGet.scheme, "HTTP");
    });

    it("kubectl diff -f exits 0 with no output, and a re-apply changes nothing (unchanged; the PDB and a stringData Secret configured, as upstream)", async () => {
      const diff = await run(["diff", "-f", MANIFEST]);
      assert.equal(diff.code, 0, `diff:\n${diff.stdout}\n${diff.stderr}`);
      assert.equal(diff.stdout, "");
      const pdbBefore = await getJson(["pdb", "shop"]);
      const secretBefore = await getJson(["secret", "shop-api"]);
      const again = kubectlOk(await run(["apply", "-f", MANIFEST]), "re-apply");
      assert.deepEqual(again.trim().split("\n"), OBJECTS.map(reapplied));
      // Their patches changed nothing: no new resourceVersion (nor generation); stringData is
      // kept only as data.
      const pdb = await getJson(["pdb", "shop"]);
      assert.equal(pdb.metadata.resourceVersion, pdbBefore.metadata.resourceVersion);
      assert.equal(pdb.metadata.generation, pdbBefore.metadata.generation);
      const secret = await getJson(["secret", "shop-api"]);
      assert.equal(secret.metadata.resourceVersion, secretBefore.metadata.resourceVersion);
      assert.equal(secret.metadata.generation, undefined, "a Secret's strategy keeps none");
      assert.deepEqual(secret.data, { token: Buffer.from("not-a-real-token").toString("base64") });
      assert.equal(secret.stringData, undefined);
    });

    it("kubectl explain knows every kind of the manifest, the custom one included", async () => {
      for (const [resource, kind] of EXPLAINED) {
        const out = kubectlOk(await run(["explain", resource]), `explain ${resource}`);
        assert.match(out, new RegExp(`^KIND:\\s+${kind}$`, "m"), `explain ${resource}`);
        assert.match(out, /^FIELDS:$/m, `explain ${resource}`);
      }
      const replicas = kubectlOk(
        await run(["explain", "workerpools.spec.replicas"]),
        "explain workerpools.spec.replicas",
      );
      assert.match(replicas, /How many workers run\./);
      const behavior = kubectlOk(
        await run(["explain", "hpa.spec.behavior.scaleUp", "--recursive"]),
        "explain hpa behavior",
      );
      assert.match(behavior, /stabilizationWindowSeconds/);
    });

    it("the custom resource's replicas follow its HPA (the test plays the WorkerPool operator)", async () => {
      const stop = operateWorkerPool(run);
      try {
        // Idle workers: the HPA (scaleDown stabilization 0) takes the pool from 3 to minReplicas 1.
        await pollUntil(
          "the WorkerPool at its HPA's minReplicas",
          async () => {
            const pool = await getJson(["workerpool", "orders"]);
            return pool.spec.replicas === 1 ? true : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        const hpa = await getJson(["hpa", "orders"]);
        assert.equal(hpa.status.desiredReplicas, 1);
        assert.deepEqual(hpa.spec.scaleTargetRef, {
          apiVersion: "shop.example.com/v1",
          kind: "WorkerPool",
          name: "orders",
        });
        const active = hpa.status.conditions.find((c: Json) => c.type === "ScalingActive");
        assert.equal(active?.reason, "ValidMetricFound", JSON.stringify(hpa.status.conditions));
        // `kubectl get` prints the CRD's columns (no AGE: the CRD lists its own); the
        // operator has caught up.
        await pollUntil(
          "the pool's status and pods following it",
          async () => {
            const table = kubectlOk(await run(["get", "wp", "-n", "shop"]), "get wp");
            return /^orders\s+orders\s+1\s+1$/m.test(table) ? true : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 500 },
        );
      } finally {
        await stop();
      }
    });

    it("a rollout started while the HPA scales up ends with the HPA's count and the new template everywhere", async () => {
      // Load on the Service (as `horizon load` without pod listeners): 150 requests/s on 2 pods
      // of 100m is ~80% of their CPU request; the HPA (target 50%) wants 4.
      kubectlOk(
        await run([
          "annotate",
          "-n",
          "shop",
          "service/shop",
          `${LOAD_ANNOTATION}=${JSON.stringify({ rps: 150 })}`,
        ]),
        "annotate load",
      );
      await pollUntil(
        "the HPA scaling the shop up",
        async () => {
          const d = await getJson(["deployment", "shop"]);
          return d.spec.replicas > 2 ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      kubectlOk(
        await run(["set", "image", "-n", "shop", "deployment/shop", "web=nginx:1.28"]),
        "set image",
      );
      kubectlOk(
        await run(
          ["rollout", "status", "-n", "shop", "deployment/shop", "--timeout=120s"],
          130_000,
        ),
        "rollout status",
      );
      const settled = await pollUntil(
        "the HPA's count, all pods of the new template and Ready",
        async () => {
          const hpa = await getJson(["hpa", "shop"]);
          const d = await getJson(["deployment", "shop"]);
          const pods = (await getJson(["pods", "-l", "app=shop"])).items as Json[];
          const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
          const done =
            d.spec.replicas === hpa.status.desiredReplicas &&
            d.status.replicas === d.spec.replicas &&
            d.status.updatedReplicas === d.spec.replicas &&
            d.status.readyReplicas === d.spec.replicas &&
            live.length === d.spec.replicas &&
            live.every((p) => p.spec.containers[0].image === "nginx:1.28");
          return done ? { hpa, d } : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      assert.equal(settled.hpa.status.desiredReplicas, 4);
      assert.equal(settled.d.metadata.annotations["deployment.kubernetes.io/revision"], "2");
      const sets = (await getJson(["rs", "-l", "app=shop"])).items as Json[];
      const byRevision = Object.fromEntries(
        sets.map((rs) => [
          rs.metadata.annotations["deployment.kubernetes.io/revision"],
          [rs.spec.replicas, rs.spec.template.spec.containers[0].image],
        ]),
      );
      assert.deepEqual(byRevision, { "1": [0, "nginx:1.27"], "2": [4, "nginx:1.28"] });
    });
  });
}

/**
 * The WorkerPool's operator, as a team would write it: the workers' Deployment follows the
 * pool's spec.replicas, and the pool's status reports them and the selector its HPA reads pods
 * by. Returns a function that stops it.
 */
function operateWorkerPool(
  run: (args: string[]) => ReturnType<typeof kubectl>,
): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const got = await run(["get", "-n", "shop", "workerpool", "orders", "-o", "json"]);
      const desired = got.code === 0 ? JSON.parse(got.stdout).spec.replicas : undefined;
      if (typeof desired === "number") {
        await run(["scale", "-n", "shop", "deployment/orders-worker", `--replicas=${desired}`]);
        await run([
          "patch",
          "-n",
          "shop",
          "workerpool",
          "orders",
          "--subresource=status",
          "--type=merge",
          "-p",
          JSON.stringify({ status: { replicas: desired, selector: "app=orders-worker" } }),
        ]);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
