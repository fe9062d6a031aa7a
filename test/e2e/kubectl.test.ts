// End-to-end: the REAL kubectl (gcloud's dispatcher on PATH, and the versioned kubectl.1.27 and
// kubectl.1.33 beside it) against `horizon up` started in-process on an ephemeral 127.0.0.1
// port. Expected outputs are what upstream kubectl prints against kube-apiserver
// (../shared/reference/kubectl-protocol.md). Without kubectl the tests skip with the reason,
// except under CI=true, where that fails.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import { pathToFileURL } from "node:url";
import { parse as parseYaml } from "yaml";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../../src/api/types.js";
import { DEFAULT_KUBERNETES_VERSION } from "../../src/api/versions.js";
import {
  kubeconfigObject,
  renderKubeconfig,
  writeKubeconfig,
} from "../../src/apiserver/kubeconfig.js";
import { certificateHosts, generateServingCertificate } from "../../src/apiserver/tls.js";
import { parseUpOptions, type UpCommandOptions } from "../../src/cli/up.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { RealtimeDriver } from "../../src/cluster/realtime.js";
import type { SyncReport } from "../../src/controller/controller.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import type { ScenarioEvent } from "../../src/sim/scenario-types.js";
import { describeSync, startUp } from "../../src/up/up.js";
import {
  fastScenario,
  findKubectls,
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlRequired,
  kubectlWatch,
  pollUntil,
  spawnHorizon,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

// The server speaks the default Kubernetes version unless told otherwise (--kubernetes-version).
const MAJOR_MINOR = DEFAULT_KUBERNETES_VERSION.replace(".", "\\.");

const DEPLOYMENTS = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/hpa-example
        resources:
          requests: {cpu: 200m, memory: 64Mi}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/hpa-example
        resources:
          requests: {cpu: 100m}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  replicas: 2
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/hpa-example
        resources:
          requests: {cpu: 100m}
`;

/** v2-only content (a memory AverageValue metric, behavior) that v1 must keep in annotations. */
const HPA_WEB = `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 50}
  - type: Resource
    resource:
      name: memory
      target: {type: AverageValue, averageValue: 100Mi}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 0
`;

/** Created while `get hpa -w -l test=watch` runs; the controller then writes its status. */
const HPA_WATCHED = `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: watched
  labels: {test: watch}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 50}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 0
`;

const INVALID_HPAS = [
  {
    name: "maxReplicas below minReplicas: one cause, printed on one line",
    manifest: { name: "bad-range", minReplicas: 3, maxReplicas: 2 },
    expected: [
      'The HorizontalPodAutoscaler "bad-range" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    ],
  },
  {
    name: "minReplicas 0 without HPAScaleToZero and maxReplicas 0: one line per cause",
    manifest: { name: "bad-zero", minReplicas: 0, maxReplicas: 0 },
    expected: [
      'The HorizontalPodAutoscaler "bad-zero" is invalid:',
      "* spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
      "* spec.maxReplicas: Invalid value: 0: must be greater than 0",
      "* spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
    ],
  },
];

function invalidHpa(m: { name: string; minReplicas: number; maxReplicas: number }): string {
  return JSON.stringify({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: m.name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: m.minReplicas,
      maxReplicas: m.maxReplicas,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        },
      ],
    },
  });
}

/** Lines of a kubectl table, split on its column gaps (two or more spaces). */

const search = findKubectls();
const missingReason =
  search.binaries.length === 0
    ? search.missing.join("; ")
    : search.missing.length > 0
      ? search.missing.join("; ")
      : null;

describe("kubectl binaries", () => {
  it("finds kubectl on PATH and kubectl.1.27 / kubectl.1.33 beside its real path", (t) => {
    if (missingReason !== null) {
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${missingReason}`);
      t.skip(`kubectl missing: ${missingReason}`);
      console.log(`# skipping real-kubectl tests: ${missingReason}`);
      return;
    }
    assert.deepEqual(
      search.binaries.map((b) => b.name),
      ["kubectl", "kubectl.1.27", "kubectl.1.33"],
    );
  });
});

for (const binary of search.binaries) describeKubectl(binary);

function describeKubectl(binary: KubectlBinary): void {
  describe(`${binary.name} against horizon up (HTTPS + bearer token)`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      // Pinned at v1.34: the expected outputs were recorded against a v1.34 kube-apiserver
      // (minReplicas 0 refused by its own rule; test/e2e/versions.test.ts covers the others).
      server = await startTestServer({ scenario: fastScenario("1.34") });
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("version: the server reports v1.34 (this suite's server is pinned there)", async () => {
      const out = kubectlOk(await run(["version"]), "kubectl version");
      // kubectl ≤ 1.27 prints the whole version.Info struct, later ones the short form.
      assert.match(
        out,
        /^Server Version: (v1\.34\.\d+$|version\.Info\{Major:"1", Minor:"34", GitVersion:"v1\.34\.\d+")/m,
      );
    });

    it("apply -f creates Deployments and an autoscaling/v2 HPA", async () => {
      const deployments = kubectlOk(
        await run(["apply", "-f", "-"], DEPLOYMENTS),
        "apply deployments",
      );
      assert.deepEqual(deployments.trim().split("\n"), [
        "deployment.apps/web created",
        "deployment.apps/api created",
        "deployment.apps/worker created",
      ]);
      const hpa = kubectlOk(await run(["apply", "-f", "-"], HPA_WEB), "apply hpa");
      assert.equal(hpa.trim(), "horizontalpodautoscaler.autoscaling/web created");
      // Applying the same manifest again changes nothing.
      const again = kubectlOk(await run(["apply", "-f", "-"], HPA_WEB), "apply hpa again");
      assert.equal(again.trim(), "horizontalpodautoscaler.autoscaling/web unchanged");
    });

    it("get hpa: a server-side Table with upstream's columns", async () => {
      const rows = tableRows(kubectlOk(await run(["get", "hpa"]), "get hpa"));
      assert.deepEqual(rows[0], [
        "NAME",
        "REFERENCE",
        "TARGETS",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "AGE",
      ]);
      assert.equal(rows.length, 2, `one HPA expected:\n${rows.join("\n")}`);
      const [name, reference, targets, min, max, replicas, age] = rows[1]!;
      assert.equal(name, "web");
      assert.equal(reference, "Deployment/web");
      // Before the first sync the controller has no metrics: <unknown>; after it, a value.
      assert.match(targets!, /^cpu: (<unknown>|\d+%)\/50%, memory: (<unknown>|\S+)\/100Mi$/);
      assert.equal(min, "1");
      assert.equal(max, "5");
      assert.match(replicas!, /^\d+$/);
      assert.match(age!, /^\d+s$/);
    });

    it("get hpa -o yaml: the stored autoscaling/v2 object", async () => {
      const list = parseYaml(kubectlOk(await run(["get", "hpa", "-o", "yaml"]), "get -o yaml"));
      assert.equal(list.kind, "List");
      assert.equal(list.items.length, 1);
      const hpa = list.items[0];
      assert.equal(hpa.apiVersion, "autoscaling/v2");
      assert.equal(hpa.kind, "HorizontalPodAutoscaler");
      assert.equal(hpa.metadata.name, "web");
      assert.equal(hpa.metadata.namespace, "default");
      assert.match(hpa.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(hpa.spec.metrics[1], {
        type: "Resource",
        resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
      });
      assert.equal(hpa.spec.behavior.scaleDown.stabilizationWindowSeconds, 0);
      // Defaulting as kube-apiserver: the scale-up rules nobody wrote.
      assert.equal(hpa.spec.behavior.scaleUp.selectPolicy, "Max");
    });

    it("get horizontalpodautoscalers.v1.autoscaling -o yaml: v2-only fields in annotations", async () => {
      const out = kubectlOk(
        await run(["get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "yaml"]),
        "get v1",
      );
      const hpa = parseYaml(out);
      assert.equal(hpa.apiVersion, "autoscaling/v1");
      assert.equal(hpa.spec.targetCPUUtilizationPercentage, 50);
      assert.equal(hpa.spec.metrics, undefined);
      const annotations = hpa.metadata.annotations ?? {};
      const metrics = JSON.parse(annotations["autoscaling.alpha.kubernetes.io/metrics"]);
      assert.deepEqual(metrics, [
        { type: "Resource", resource: { name: "memory", targetAverageValue: "100Mi" } },
      ]);
      const behavior = JSON.parse(annotations["autoscaling.alpha.kubernetes.io/behavior"]);
      assert.equal(behavior.ScaleDown.StabilizationWindowSeconds, 0);
    });

    it("describe hpa: reference, metrics, limits and behavior as upstream prints them", async () => {
      const out = kubectlOk(await run(["describe", "hpa", "web"]), "describe hpa");
      const field = (label: string) => {
        const line = out.split("\n").find((l) => l.startsWith(`${label}:`));
        return line?.slice(label.length + 1).trim();
      };
      assert.equal(field("Name"), "web");
      assert.equal(field("Namespace"), "default");
      assert.equal(field("Reference"), "Deployment/web");
      assert.equal(field("Min replicas"), "1");
      assert.equal(field("Max replicas"), "5");
      assert.match(out, /^Metrics:\s+\( current \/ target \)$/m);
      assert.match(
        out,
        /^ {2}resource cpu on pods {2}\(as a percentage of request\):\s+(<unknown>|\d+% \(\S+\)) \/ 50%$/m,
      );
      assert.match(out, /^ {2}resource memory on pods:\s+(<unknown>|\S+) \/ 100Mi$/m);
      assert.match(out, /^Behavior:$/m);
      assert.match(out, /^ {4}Stabilization Window: 0 seconds$/m);
      assert.match(out, /^Deployment pods:\s+\d+ current \/ \d+ desired$/m);
      assert.match(out, /^Events:/m);
    });

    it("scale deployment: the scale subresource, and the Deployment's pods follow", async () => {
      const out = kubectlOk(await run(["scale", "deployment", "api", "--replicas=3"]), "scale");
      assert.equal(out.trim(), "deployment.apps/api scaled");
      const replicas = await pollUntil("3 ready replicas of deployment api", async () => {
        const r = await run(["get", "deployment", "api", "-o", "jsonpath={.status.readyReplicas}"]);
        return r.code === 0 && r.stdout.trim() === "3" ? r.stdout.trim() : undefined;
      });
      assert.equal(replicas, "3");
      const spec = server.up.cluster.store.get("Deployment", "default", "api")?.spec as {
        replicas: number;
      };
      assert.equal(spec.replicas, 3);
    });

    it("get hpa -w shows the status the controller writes", async () => {
      // -v=6 logs each response, so the test knows when the watch stream is open.
      const watch = kubectlWatch(ctx, ["get", "hpa", "-w", "-l", "test=watch", "-v=6"]);
      try {
        // kubectl lists (nothing yet), then watches from the list's resourceVersion.
        await watch.waitFor(
          (_, stderr) => /watch=true\S*"? (status=")?200 OK/.test(stderr),
          10_000,
        );
        kubectlOk(await run(["apply", "-f", "-"], HPA_WATCHED), "apply watched hpa");
        // ADDED prints the fresh object (<unknown>, 0 replicas); the controller's status write
        // (MODIFIED) prints the metric it read and the replicas it saw.
        const output = await watch.waitFor(
          (text) =>
            /^watched\s+Deployment\/worker\s+cpu: \d+%\/50%\s+1\s+4\s+[1-9]\d*\s+\S+$/m.test(text),
          30_000,
        );
        assert.match(output, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
        assert.match(
          output,
          /^watched\s+Deployment\/worker\s+cpu: <unknown>\/50%\s+1\s+4\s+0\s+\S+$/m,
        );
      } finally {
        await watch.stop();
      }
    });

    for (const c of INVALID_HPAS) {
      it(`invalid HPA → 422 with field paths: ${c.name}`, async () => {
        const result = await run(["create", "-f", "-"], invalidHpa(c.manifest));
        assert.equal(result.code, 1, result.stdout + result.stderr);
        const lines = result.stderr
          .trimEnd()
          .split("\n")
          .map((l) => l.trimEnd());
        assert.deepEqual(lines.slice(-c.expected.length), c.expected);
        assert.equal(
          server.up.cluster.store.get("HorizontalPodAutoscaler", "default", c.manifest.name),
          undefined,
        );
      });
    }

    it("a wrong bearer token → 401 Unauthorized", async () => {
      const config = parseYaml(readFileSync(ctx.kubeconfig, "utf8"));
      config.users[0].user.token = "not-the-token";
      const path = join(server.dir, `wrong-token-${binary.name}`);
      await writeKubeconfig(path, JSON.stringify(config));
      const result = await kubectl(server.context(binary, path), ["get", "hpa"]);
      assert.equal(result.code, 1);
      // kube-apiserver's 401 Status fails discovery first; kubectl (1.26+) then words it so.
      assert.equal(
        result.stderr.trimEnd().split("\n").at(-1),
        "error: You must be logged in to the server (the server has asked for the client to provide credentials)",
      );
    });

    it("delete hpa: deleted, then NotFound", async () => {
      const out = kubectlOk(await run(["delete", "hpa", "web"]), "delete hpa");
      assert.equal(out.trim(), 'horizontalpodautoscaler.autoscaling "web" deleted');
      const result = await run(["get", "hpa", "web"]);
      assert.equal(result.code, 1);
      assert.equal(
        result.stderr.trim(),
        'Error from server (NotFound): horizontalpodautoscalers.autoscaling "web" not found',
      );
    });
  });
}

describe("kubectl autoscale (protobuf request bodies, kubectl ≥ 1.32)", () => {
  const binary = search.binaries.find((b) => b.name === "kubectl.1.33");
  let server: TestServer;
  let ctx: KubectlContext;
  before(async () => {
    server = await startTestServer({ insecureHttp: true });
    if (binary) ctx = server.context(binary);
  });
  after(async () => {
    await server?.up.close();
  });
  const need = (t: { skip(message: string): void }): boolean => {
    if (binary) return true;
    if (kubectlRequired()) assert.fail(`CI=true and kubectl.1.33 is missing: ${missingReason}`);
    t.skip(`kubectl.1.33 missing: ${missingReason}`);
    return false;
  };

  it("create namespace and create deployment POST protobuf and succeed", async (t) => {
    if (!need(t)) return;
    assert.equal(
      kubectlOk(await kubectl(ctx, ["create", "namespace", "team-a"]), "create namespace").trim(),
      "namespace/team-a created",
    );
    const created = await kubectl(ctx, [
      "create",
      "deployment",
      "web",
      "--image=nginx",
      "--replicas=2",
      "-n",
      "team-a",
    ]);
    assert.equal(kubectlOk(created, "create deployment").trim(), "deployment.apps/web created");
    const image = await kubectl(ctx, [
      "get",
      "deployment",
      "web",
      "-n",
      "team-a",
      "-o",
      "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}",
    ]);
    assert.equal(kubectlOk(image, "get deployment"), "2 nginx");
  });

  it("autoscale deployment (autoscaling/v2 in protobuf), then get hpa shows it", async (t) => {
    if (!need(t)) return;
    const out = await kubectl(ctx, [
      "autoscale",
      "deployment",
      "web",
      "-n",
      "team-a",
      "--cpu-percent=80",
      "--min=2",
      "--max=5",
    ]);
    assert.equal(
      kubectlOk(out, "autoscale").trim(),
      "horizontalpodautoscaler.autoscaling/web autoscaled",
    );
    const rows = tableRows(
      kubectlOk(await kubectl(ctx, ["get", "hpa", "-n", "team-a"]), "get hpa"),
    );
    assert.deepEqual(rows[0], [
      "NAME",
      "REFERENCE",
      "TARGETS",
      "MINPODS",
      "MAXPODS",
      "REPLICAS",
      "AGE",
    ]);
    assert.deepEqual(rows[1]?.slice(0, 5), ["web", "Deployment/web", rows[1]?.[2], "2", "5"]);
    assert.match(rows[1]?.[2] ?? "", /^cpu: .*\/80%$/);
  });
});

describe("horizon up --insecure-http", () => {
  const binary = search.binaries.find((b) => b.name === "kubectl.1.33") ?? search.binaries[0];
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ insecureHttp: true });
  });
  after(async () => {
    await server?.up.close();
  });

  it("writes an http:// kubeconfig with insecure-skip-tls-verify, no token, mode 0600", () => {
    const path = server.up.kubeconfigPath!;
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const config = parseYaml(readFileSync(path, "utf8"));
    assert.equal(config.clusters[0].cluster.server, `http://127.0.0.1:${server.up.port}`);
    assert.equal(config.clusters[0].cluster["insecure-skip-tls-verify"], true);
    assert.equal(config.clusters[0].cluster["certificate-authority-data"], undefined);
    // kubectl sends no credentials over plain HTTP (kubernetes/kubectl#744): none to write.
    assert.equal(server.up.token, null);
    assert.deepEqual(config.users[0].user, {});
  });

  it("kubectl version, apply and get hpa work over plain HTTP", async (t) => {
    if (!binary) {
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${missingReason}`);
      t.skip(`kubectl missing: ${missingReason}`);
      return;
    }
    const ctx = server.context(binary);
    assert.match(
      kubectlOk(await kubectl(ctx, ["version"]), "version"),
      new RegExp(`^Server Version: v${MAJOR_MINOR}\\.`, "m"),
    );
    kubectlOk(await kubectl(ctx, ["apply", "-f", "-"], { stdin: DEPLOYMENTS }), "apply");
    kubectlOk(await kubectl(ctx, ["apply", "-f", "-"], { stdin: HPA_WEB }), "apply hpa");
    const rows = tableRows(kubectlOk(await kubectl(ctx, ["get", "hpa"]), "get hpa"));
    assert.deepEqual(
      rows.map((r) => r[0]),
      ["NAME", "web"],
    );
  });

  it("serves without authentication, as kube-apiserver's old insecure port", async () => {
    const response = await fetch(`${server.up.url}/apis/autoscaling/v2/horizontalpodautoscalers`);
    assert.equal(response.status, 200);
  });
});

describe("horizon up over HTTPS (no kubectl needed)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ controller: false });
  });
  after(async () => {
    await server?.up.close();
  });

  function get(path: string, token?: string | null): Promise<{ status: number; body: string }> {
    const config = parseYaml(server.up.kubeconfig);
    const ca = Buffer.from(config.clusters[0].cluster["certificate-authority-data"], "base64");
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        `${server.up.url}${path}`,
        { ca, headers: token ? { authorization: `Bearer ${token}` } : {} },
        (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  it("the kubeconfig's CA verifies the server certificate, and the token is required", async () => {
    const path = server.up.kubeconfigPath!;
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(server.up.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const authorized = await get("/apis/autoscaling/v2/horizontalpodautoscalers", server.up.token);
    assert.equal(authorized.status, 200, authorized.body);
    const anonymous = await get("/apis/autoscaling/v2/horizontalpodautoscalers");
    assert.equal(anonymous.status, 401);
    assert.equal(JSON.parse(anonymous.body).reason, "Unauthorized");
  });

  it("without --no-controller nothing writes HPA status; the driver has no controller", () => {
    assert.equal(server.up.driver.controller, null);
    assert.equal(server.up.controllerConfig, null);
  });
});

describe("serving certificate and kubeconfig", () => {
  it("a CA-signed server certificate for loopback names and the bound address", async () => {
    const generated = await generateServingCertificate({ hosts: certificateHosts("10.1.2.3") });
    assert.ok(generated.ok, generated.ok ? "" : generated.error);
    const ca = new X509Certificate(generated.value.caCert);
    const cert = new X509Certificate(generated.value.cert);
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.verify(ca.publicKey));
    assert.ok(ca.ca);
    assert.ok(!cert.ca);
    assert.equal(
      cert.subjectAltName,
      "IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, IP Address:10.1.2.3",
    );
    assert.ok(
      cert.checkPrivateKey(
        await import("node:crypto").then((c) => c.createPrivateKey(generated.value.key)),
      ),
    );
  });

  it("horizon up serves TLS with no openssl on PATH: the kubeconfig's CA verifies its certificate", async () => {
    // An empty PATH while it starts: nothing it runs may need a binary (the certificates are
    // made in-process).
    const path = process.env.PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), "horizon-no-openssl-"));
    let started: Awaited<ReturnType<typeof startUp>>;
    try {
      started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    } finally {
      process.env.PATH = path;
    }
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    try {
      const ca = parseYaml(up.kubeconfig).clusters[0].cluster["certificate-authority-data"];
      assert.equal(Buffer.from(ca, "base64").toString(), up.caCert);
      const version = await new Promise<{ status: number; peer: X509Certificate }>(
        (resolve, reject) => {
          const req = httpsRequest(`${up.url}/version`, { ca: up.caCert! }, (res) => {
            const peer = new X509Certificate(
              (res.socket as TLSSocket).getPeerX509Certificate()!.raw,
            );
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, peer }));
          });
          req.on("error", reject);
          req.end();
        },
      );
      assert.equal(version.status, 200);
      assert.ok(version.peer.verify(new X509Certificate(up.caCert!).publicKey));
    } finally {
      await up.close();
    }
  });

  const kubeconfigCases = [
    {
      name: "https: CA data, token, no skip-verify",
      options: { server: "https://127.0.0.1:6443", caCert: "PEM", token: "t0k" },
      cluster: {
        server: "https://127.0.0.1:6443",
        "certificate-authority-data": Buffer.from("PEM").toString("base64"),
      },
      user: { token: "t0k" },
    },
    {
      name: "the controller's /debug address of `horizon up`: a cluster extension",
      options: {
        server: "https://127.0.0.1:6443",
        token: "t0k",
        insecureSkipTlsVerify: true,
        controllerDebugAddress: "http://127.0.0.1:8085",
      },
      cluster: {
        server: "https://127.0.0.1:6443",
        "insecure-skip-tls-verify": true,
        extensions: [
          {
            name: "horizon.dev/controller",
            extension: { "debug-address": "http://127.0.0.1:8085" },
          },
        ],
      },
      user: { token: "t0k" },
    },
    {
      name: "http: insecure-skip-tls-verify even when not asked (client-node needs it)",
      options: { server: "http://127.0.0.1:8080", token: "t0k" },
      cluster: { server: "http://127.0.0.1:8080", "insecure-skip-tls-verify": true },
      user: { token: "t0k" },
    },
  ];
  for (const c of kubeconfigCases) {
    it(`kubeconfig: ${c.name}`, () => {
      const config = kubeconfigObject(c.options) as {
        clusters: { cluster: unknown }[];
        users: { user: unknown }[];
        "current-context": string;
      };
      assert.deepEqual(config.clusters[0]!.cluster, c.cluster);
      assert.deepEqual(config.users[0]!.user, c.user);
      assert.equal(config["current-context"], "horizon");
      assert.deepEqual(parseYaml(renderKubeconfig(c.options)), config);
    });
  }
});

describe("horizon up flags", () => {
  const base: UpCommandOptions = { port: "6443", address: "127.0.0.1", controller: true };
  const cases = [
    {
      name: "--data-dir and --in-memory together",
      flags: { dataDir: "/tmp/x", inMemory: true },
      error: /^--data-dir and --in-memory cannot be used together$/,
    },
    { name: "--port must be a port number", flags: { port: "70000" }, error: /^--port: / },
    { name: "--port rejects words", flags: { port: "http" }, error: /^--port: / },
    {
      name: "--sync-period takes a Go duration",
      flags: { syncPeriod: "fast" },
      error: /^--sync-period: time: invalid duration "fast"/,
    },
    {
      name: "--sync-period must be positive",
      flags: { syncPeriod: "0" },
      error: /must be positive/,
    },
    {
      name: "--sync-period needs the controller",
      flags: { syncPeriod: "1s", controller: false },
      error: /--no-controller/,
    },
    {
      name: "--dashboard-bind-address needs the controller",
      flags: { dashboardBindAddress: "127.0.0.1:8086", controller: false },
      error: /^--dashboard-bind-address: the dashboard shows the controller's history/,
    },
    {
      name: "--dashboard-bind-address takes HOST:PORT",
      flags: { dashboardBindAddress: "8086" },
      error: /^--dashboard-bind-address: must be HOST:PORT/,
    },
    {
      name: "--metrics-bind-address takes HOST:PORT (the controller's parser)",
      flags: { metricsBindAddress: "8085" },
      error: /^--metrics-bind-address: must be HOST:PORT \(or 0 to disable\), got "8085"$/,
    },
    {
      name: "--metrics-bind-address needs the controller",
      flags: { metricsBindAddress: "127.0.0.1:9100", controller: false },
      error:
        /^--metrics-bind-address: the controller serves it; there is none with --no-controller$/,
    },
    {
      name: "--pod-cidr must be loopback",
      flags: { podCidr: "10.244.0.0/16" },
      error: /^--pod-cidr: "10\.244\.0\.0\/16" is not inside the loopback range/,
    },
    {
      name: "--service-cidr must hold 14 addresses",
      flags: { serviceCidr: "127.65.0.0/30" },
      error: /^--service-cidr: .* is too small/,
    },
    {
      name: "the ranges may not overlap",
      flags: { podCidr: "127.64.0.0/16", serviceCidr: "127.64.128.0/24" },
      error: /^--service-cidr: 127\.64\.128\.0\/24 overlaps --pod-cidr 127\.64\.0\.0\/16$/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parsed = parseUpOptions({ ...base, ...c.flags });
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.error, c.error);
    });
  }
  it("valid flags become start options", () => {
    const parsed = parseUpOptions({ ...base, port: "0", syncPeriod: "1m30s", insecureHttp: true });
    assert.deepEqual(parsed, {
      ok: true,
      value: {
        port: 0,
        address: "127.0.0.1",
        insecureHttp: true,
        controller: true,
        listeners: true,
        syncPeriodMs: 90_000,
        // The dashboard on a free loopback port unless told otherwise.
        dashboardAddress: { host: "127.0.0.1", port: 0 },
        // Metrics and decisions where `horizon explain` looks, else on a free port.
        metricsBindAddress: { host: "127.0.0.1", port: 8085 },
        debugBindAddress: { host: "127.0.0.1", port: 8085 },
        metricsBindFallback: true,
      },
    });
  });
  const metricsCases = [
    {
      name: "--metrics-bind-address given: that address, no fallback",
      flags: { metricsBindAddress: "127.0.0.1:9100" },
      expected: {
        metricsBindAddress: { host: "127.0.0.1", port: 9100 },
        debugBindAddress: { host: "127.0.0.1", port: 9100 },
        metricsBindFallback: false,
      },
    },
    {
      name: "--metrics-bind-address beyond loopback: no decisions there (as `horizon controller`)",
      flags: { metricsBindAddress: "0.0.0.0:9100" },
      expected: {
        metricsBindAddress: { host: "0.0.0.0", port: 9100 },
        debugBindAddress: null,
        metricsBindFallback: false,
      },
    },
    { name: "--metrics-bind-address 0: none", flags: { metricsBindAddress: "0" }, expected: {} },
    { name: "--no-controller: none", flags: { controller: false }, expected: {} },
    {
      name: "--no-controller with --metrics-bind-address 0",
      flags: { controller: false, metricsBindAddress: "0" },
      expected: {},
    },
  ];
  for (const c of metricsCases) {
    it(c.name, () => {
      const parsed = parseUpOptions({ ...base, ...c.flags });
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      const { metricsBindAddress, debugBindAddress, metricsBindFallback } = parsed.value;
      assert.deepEqual(
        JSON.parse(JSON.stringify({ metricsBindAddress, debugBindAddress, metricsBindFallback })),
        c.expected,
      );
    });
  }
});

describe("RealtimeDriver: the cluster and the controller on the real clock", () => {
  const deployment = (replicas: number): KubeObject =>
    parseYaml(DEPLOYMENTS.split("---")[2]!.replace("replicas: 2", `replicas: ${replicas}`));
  const workerReplicas = (cluster: EmbeddedCluster) =>
    (
      cluster.store.get("Deployment", "default", "worker")?.spec as
        | { replicas?: number }
        | undefined
    )?.replicas;

  it("syncs an HPA at its sync period: status written, Deployment scaled down", async () => {
    const cluster = new EmbeddedCluster({
      model: clusterModelOf(fastScenario().spec),
      startTime: Date.now(),
    });
    const syncs: string[] = [];
    const driver = new RealtimeDriver({
      cluster,
      controllerConfig: { ...defaultControllerConfig(), syncPeriodMs: 200 },
      onSync: (report) => syncs.push(report.key),
    });
    driver.start();
    try {
      cluster.create(deployment(3));
      cluster.create(
        setDefaultsHorizontalPodAutoscaler(parseYaml(HPA_WATCHED)) as unknown as KubeObject,
      );
      const hpa = () =>
        cluster.store.get("HorizontalPodAutoscaler", "default", "watched") as unknown as
          | HorizontalPodAutoscaler
          | undefined;
      // Zero CPU use against a 50% target, no scale-down window: straight to minReplicas.
      // Pods start in 4 s, then metrics come: deadlines with room for a loaded machine.
      await pollUntil(
        "the scale-down to 1",
        () => (workerReplicas(cluster) === 1 ? true : undefined),
        { timeoutMs: 30_000 },
      );
      await pollUntil(
        "a status with the CPU metric",
        () =>
          hpa()?.status?.currentMetrics?.[0]?.resource?.current.averageUtilization !== undefined
            ? true
            : undefined,
        { timeoutMs: 30_000 },
      );
      assert.equal(hpa()?.status?.desiredReplicas, 1);
      assert.ok(syncs.every((key) => key === "default/watched"));
      assert.ok(syncs.length >= 1);
    } finally {
      await driver.stop();
    }
  });

  it("applies the scenario's events when they fall due, not before", async () => {
    const cluster = new EmbeddedCluster({
      model: clusterModelOf(fastScenario().spec),
      startTime: Date.now(),
    });
    cluster.create(deployment(2));
    const applied: string[] = [];
    const driver = new RealtimeDriver<ScenarioEvent>({
      cluster,
      controllerConfig: null,
      applyEvent: (event, running, now) =>
        applyScenarioEvent(event, { cluster, controller: running.controller, now }),
      events: [
        {
          atMs: 300,
          type: "scale",
          workload: { namespace: "default", kind: "Deployment", name: "worker" },
          replicas: 4,
        },
      ],
      onEvent: (event) => applied.push(event.type),
    });
    driver.start();
    try {
      assert.equal(workerReplicas(cluster), 2);
      await pollUntil("the scale event", () => (workerReplicas(cluster) === 4 ? true : undefined));
      assert.ok(Date.now() - cluster.startTime >= 300);
      assert.deepEqual(applied, ["scale"]);
      assert.equal(driver.controller, null);
    } finally {
      await driver.stop();
    }
  });
});

describe("horizon up as a process", () => {
  const root = join(import.meta.dirname, "..", "..");
  const dir = mkdtempSync(join(tmpdir(), "horizon-up-cli-"));
  const script = join(dir, "horizon.mts");
  const commander = pathToFileURL(createRequire(join(root, "package.json")).resolve("commander"));
  writeFileSync(
    script,
    [
      `const { Command } = await import(${JSON.stringify(commander.href)});`,
      `const { registerUpCommand } = await import(${JSON.stringify(pathToFileURL(join(root, "src", "cli", "up.ts")).href)});`,
      `const program = new Command().name("horizon");`,
      "registerUpCommand(program);",
      "await program.parseAsync(process.argv);",
      "",
    ].join("\n"),
  );

  const horizon = (args: string[]) => spawnHorizon(["up", ...args]);

  it("prints how to point kubectl at it, serves, and stops cleanly on SIGINT", async () => {
    const kubeconfig = join(dir, "kubeconfig");
    const up = horizon(["--port", "0", "--kubeconfig-out", kubeconfig, "--sync-period", "2s"]);
    try {
      await pollUntil("the banner", () => (/^Press Ctrl-C/m.test(up.stdout()) ? true : undefined), {
        timeoutMs: 15_000,
      });
      const out = up.stdout();
      assert.match(
        out,
        new RegExp(
          `^Horizon API server \\(Kubernetes v${MAJOR_MINOR}\\.0 API\\) listening on https://127\\.0\\.0\\.1:\\d+$`,
          "m",
        ),
      );
      assert.match(out, /sync period 2s$/m);
      assert.ok(out.includes(`  export KUBECONFIG=${kubeconfig}\n`), out);
      assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
      const config = parseYaml(readFileSync(kubeconfig, "utf8"));
      const cluster = config.clusters[0].cluster;
      const ca = Buffer.from(cluster["certificate-authority-data"], "base64");
      const version = await new Promise<string>((resolve, reject) => {
        httpsRequest(
          `${cluster.server}/version`,
          { ca, headers: { authorization: `Bearer ${config.users[0].user.token}` } },
          (res) => {
            let body = "";
            res.setEncoding("utf8").on("data", (c: string) => {
              body += c;
            });
            res.on("end", () => resolve(body));
          },
        )
          .on("error", reject)
          .end();
      });
      assert.equal(
        JSON.parse(version).gitVersion.startsWith(`v${DEFAULT_KUBERNETES_VERSION}.`),
        true,
      );
    } finally {
      up.child.kill("SIGINT");
    }
    assert.equal(await up.exited, 0);
    assert.match(
      up.stderr(),
      /^SIGINT: stopping the controller and the API server\.\.\.\nstopped$/m,
    );
  });

  const refusals = [
    {
      name: "--data-dir with --in-memory: exit 2",
      args: ["--data-dir", join(dir, "data"), "--in-memory"],
      stderr: /^error: --data-dir and --in-memory cannot be used together$/m,
    },
    {
      name: "a scenario file that does not exist: exit 2",
      args: [join(dir, "missing.yaml")],
      stderr: /^error: .*missing\.yaml: cannot read the scenario/m,
    },
  ];
  for (const c of refusals) {
    it(c.name, async () => {
      const up = horizon(["--port", "0", "--kubeconfig-out", join(dir, "never"), ...c.args]);
      assert.equal(await up.exited, 2);
      assert.match(up.stderr(), c.stderr);
      assert.equal(up.stdout(), "");
    });
  }
});

describe("horizon up's controller log", () => {
  const warning = (message: string) => ({
    type: "Warning",
    reason: "FailedGetResourceMetric",
    message,
  });
  const rescale = { type: "Normal", reason: "SuccessfulRescale", message: "New size: 2" };
  const cases = [
    {
      name: "a warning repeated by the next sync is printed once",
      syncs: [[warning("no metrics")], [warning("no metrics")]],
      lines: ["00:00:00 hpa default/web: Warning FailedGetResourceMetric: no metrics"],
    },
    {
      name: "a warning that stops and comes back is printed again",
      syncs: [[warning("no metrics")], [], [warning("no metrics")]],
      lines: [
        "00:00:00 hpa default/web: Warning FailedGetResourceMetric: no metrics",
        "00:00:00 hpa default/web: Warning FailedGetResourceMetric: no metrics",
      ],
    },
    {
      name: "every rescale is printed",
      syncs: [[rescale], [rescale]],
      lines: [
        "00:00:00 hpa default/web: Normal SuccessfulRescale: New size: 2",
        "00:00:00 hpa default/web: Normal SuccessfulRescale: New size: 2",
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const previous = new Map<string, Set<string>>();
      const lines = c.syncs.flatMap((events) =>
        describeSync(
          { key: "default/web", result: { events } } as unknown as SyncReport,
          previous,
          "00:00:00",
        ),
      );
      assert.deepEqual(lines, c.lines);
    });
  }
});
