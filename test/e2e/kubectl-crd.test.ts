// End-to-end: CustomResourceDefinitions with the REAL kubectl (the PATH dispatcher, kubectl.1.27,
// kubectl.1.33) against `horizon up` in-process: a CRD applied and established, its resources
// in discovery (`api-resources`, short names, categories), applied, listed, patched, and gone
// with the CRD. Without kubectl the kubectl cases skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { withdraw } from "../../src/kinds/custom.js";
import {
  findKubectls,
  type KubectlBinary,
  type KubectlContext,
  type KubectlResult,
  kubectl,
  kubectlRequired,
  pollUntil,
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

for (const binary of search.binaries) {
  describeCrd(binary);
  describeScale(binary);
}

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
          replicas: {type: integer, minimum: 0, default: 1, description: How many crons run at once.}
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

    it("kubectl explain reads the CRD's schema, descriptions included", async () => {
      const out = ok(await run(["explain", "crontabs.spec.replicas"]), "explain");
      assert.match(out, /^GROUP:\s+\S+\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
      assert.match(out, /FIELD: replicas <integer>/);
      assert.match(out, /How many crons run at once\./);
      const spec = ok(await run(["explain", "ct.spec"]), "explain spec");
      assert.match(spec, /cronSpec\s+<string>/);
      assert.match(spec, /image\s+<string>/);
      const meta = ok(await run(["explain", "ct.metadata.labels"]), "explain metadata");
      assert.match(meta, /labels\s+<map\[string\]string>|FIELD: labels <map\[string\]string>/);
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

/** A CRD with the status and scale subresources and printer columns (group per kubectl). */
function shardCrd(group: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: shards.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: shards, singular: shard, kind: Shard}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 0}
              engine: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    additionalPrinterColumns:
    - {name: Engine, type: string, jsonPath: .spec.engine}
    - {name: Desired, type: integer, jsonPath: .spec.replicas}
    - {name: Current, type: integer, jsonPath: .status.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;
}

/** The pods of a shard: the test plays the shard's operator and keeps this Deployment in step. */
const SHARD_PODS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: shard-pods}
spec:
  replicas: 4
  selector: {matchLabels: {app: shard}}
  template:
    metadata: {labels: {app: shard}}
    spec:
      containers:
      - name: db
        image: registry.k8s.io/hpa-example
        resources: {requests: {cpu: 100m}}
`;

function describeScale(binary: KubectlBinary): void {
  describe(`${binary.name}: a custom resource's scale subresource and an HPA on it`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const group = `${binary.name.replace(/[^a-z0-9]/g, "")}.shards.example.com`;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });
    const shard = () => server.up.cluster.store.get("Shard", "default", "main");
    const shardReplicas = () => (shard()?.spec as { replicas?: number } | undefined)?.replicas;

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
      ok(await run(["apply", "-f", "-"], shardCrd(group)), "apply crd");
      ok(await run(["wait", "--for=condition=Established", `crd/shards.${group}`]), "wait");
      const cr = `apiVersion: ${group}/v1\nkind: Shard\nmetadata: {name: main}\nspec: {replicas: 4, engine: rocks}\n`;
      ok(await run(["apply", "-f", "-"], cr), "apply shard");
      ok(await run(["apply", "-f", "-"], SHARD_PODS), "apply pods");
      // The operator's status: what the scale subresource reports and the HPA selects pods by.
      ok(
        await run([
          "patch",
          `shards.${group}`,
          "main",
          "--subresource=status",
          "--type=merge",
          "-p",
          '{"status":{"replicas":4,"selector":"app=shard"}}',
        ]),
        "patch status",
      );
    });
    after(async () => {
      await run(["delete", "crd", `shards.${group}`]).catch(() => undefined);
      await server?.up.close();
    });

    it("kubectl get prints the CRD's columns", async () => {
      const table = ok(await run(["get", `shards.${group}`]), "get");
      assert.match(
        table,
        /^NAME\s+ENGINE\s+DESIRED\s+CURRENT\s+AGE\nmain\s+rocks\s+4\s+4\s+\d+s\n$/,
      );
    });

    it("kubectl scale writes the CRD's replicas path through the scale subresource", async () => {
      assert.match(
        ok(await run(["scale", `shards.${group}`, "main", "--replicas=3"]), "scale"),
        /shard\.\S+\/main scaled/,
      );
      assert.equal(shardReplicas(), 3);
      const scale = JSON.parse(
        ok(
          await run(["get", "--raw", `/apis/${group}/v1/namespaces/default/shards/main/scale`]),
          "raw",
        ),
      );
      assert.deepEqual(scale.status, { replicas: 4, selector: "app=shard" });
      ok(await run(["scale", `shards.${group}`, "main", "--replicas=4"]), "scale back");
    });

    it("an HPA scales the shard by its pods' CPU (idle: down to minReplicas)", async () => {
      const hpa = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: shard}
spec:
  scaleTargetRef: {apiVersion: ${group}/v1, kind: Shard, name: main}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 0}
`;
      ok(await run(["apply", "-f", "-"], hpa), "apply hpa");
      // The operator: the pods follow the shard's replicas, its status follows the pods.
      let operating = true;
      const operator = (async () => {
        while (operating) {
          const desired = shardReplicas();
          const pods = server.up.cluster.store.get("Deployment", "default", "shard-pods");
          const podReplicas = (pods?.spec as { replicas?: number } | undefined)?.replicas;
          if (desired !== undefined && desired !== podReplicas) {
            await run(["scale", "deployment", "shard-pods", `--replicas=${desired}`]);
            await run([
              "patch",
              `shards.${group}`,
              "main",
              "--subresource=status",
              "--type=merge",
              "-p",
              JSON.stringify({ status: { replicas: desired } }),
            ]);
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      try {
        await pollUntil(
          "the HPA scaling the shard down to 2",
          () => (shardReplicas() === 2 ? true : undefined),
          {
            timeoutMs: 60_000,
          },
        );
        const status = JSON.parse(
          ok(await run(["get", "hpa", "shard", "-o", "json"]), "get hpa"),
        ).status;
        assert.equal(status.desiredReplicas, 2);
        const able = status.conditions.find((c: { type: string }) => c.type === "ScalingActive");
        assert.equal(able?.reason, "ValidMetricFound", JSON.stringify(status.conditions));
        const described = ok(await run(["describe", "hpa", "shard"]), "describe");
        assert.match(described, /Reference:\s+Shard\/main/);
        // The operator is still running: it may not have seen the shard's new size yet.
        await pollUntil("the pods following the shard", () => {
          const pods = server.up.cluster.store.get("Deployment", "default", "shard-pods");
          const replicas = (pods?.spec as { replicas?: number } | undefined)?.replicas;
          return replicas === 2 ? true : undefined;
        });
      } finally {
        operating = false;
        await operator;
      }
    });
  });
}
