// deploy/'s least-privilege RBAC tested against Horizon itself, with the REAL kubectl (1.27,
// 1.33): `horizon up` (HTTPS, RBAC enforced), deploy/'s Namespace, ServiceAccount and RBAC
// applied, a token from `kubectl create token`, and `horizon controller` run with deploy/'s
// Deployment args and a kubeconfig holding that token. It scales the HPA with no 403 in its
// log; with the `horizontalpodautoscalers/status` rule removed its status write fails with
// upstream's 403 (the controller's FailedUpdateStatus event and its log say so).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments, stringify } from "yaml";
import { renderKubeconfig, writeKubeconfig } from "../../src/apiserver/kubeconfig.js";
import {
  type ControllerProcess,
  killAll,
  ROOT,
  spawnController,
  webScenario,
} from "./controller-helpers.js";
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

const ACCOUNT = "system:serviceaccount:horizon-system:horizon-controller";
const RBAC_KINDS = new Set([
  "Namespace",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
]);

interface Manifest {
  kind: string;
  metadata: { name: string };
  rules?: { resources?: string[] }[];
  spec?: { template: { spec: { containers: { args: string[] }[] } } };
}

for (const binary of kubectlsUnderTest("deploy-rbac", { versionedOnly: true })) {
  describeDeployRbac(binary);
}

function describeDeployRbac(binary: KubectlBinary): void {
  describe(`${binary.name}: deploy/'s RBAC against horizon up`, () => {
    let server: TestServer;
    let admin: KubectlContext;
    let manifests: Manifest[];
    const processes: ControllerProcess[] = [];

    before(async () => {
      // Pods use 300m of a 200m request: 150% against a 50% target, so the HPA scales to its max.
      const scenario = webScenario({ name: "deploy-rbac", maxReplicas: 3, cpu: "300m" });
      server = await startTestServer({ scenario, controller: false });
      admin = server.context(binary);
      const rendered = kubectlOk(
        await kubectl(admin, ["kustomize", join(ROOT, "deploy")]),
        "kustomize deploy",
      );
      manifests = parseAllDocuments(rendered).map((d) => d.toJS() as Manifest);
    });
    after(async () => {
      await killAll(processes);
      await server?.up.close();
    });

    const logOf = (p: ControllerProcess) => p.logs.map((l) => JSON.stringify(l)).join("\n");

    it("the controller, with deploy/'s account and args, scales the HPA and is never denied", async () => {
      const rbac = manifests.filter((m) => RBAC_KINDS.has(m.kind));
      assert.equal(rbac.length, 6, rbac.map((m) => m.kind).join(" "));
      kubectlOk(
        await kubectl(admin, ["apply", "-f", "-"], {
          stdin: rbac.map((m) => stringify(m)).join("---\n"),
        }),
        "apply deploy/ RBAC",
      );
      const token = kubectlOk(
        await kubectl(admin, ["create", "token", "horizon-controller", "-n", "horizon-system"]),
        "create token",
      ).trim();
      const kubeconfig = join(server.dir, `controller-${binary.name}.kubeconfig`);
      await writeKubeconfig(
        kubeconfig,
        renderKubeconfig({ server: server.up.url, token, caCert: server.up.caCert! }),
      );
      // deploy/'s args, as its pod runs them, with loopback ports of this machine's choosing.
      const deployment = manifests.find((m) => m.kind === "Deployment")!;
      const args = deployment
        .spec!.template.spec.containers[0]!.args.slice(1)
        .map((arg) => arg.replace("$(POD_NAMESPACE)", "horizon-system"))
        .map((arg) => arg.replace(/^(--(metrics|debug)-bind-address=).*$/, "$1127.0.0.1:0"));
      assert.ok(args.includes("--leader-elect"), args.join(" "));
      const controller = spawnController(`deploy-${binary.name}`, [
        ...args,
        "--kubeconfig",
        kubeconfig,
        "--horizontal-pod-autoscaler-sync-period",
        "1s",
        "--dashboard-bind-address",
        "127.0.0.1:0",
      ]);
      processes.push(controller);
      const store = server.up.cluster.store;
      await pollUntil(
        "the HPA scaled web to its max of 3",
        () => {
          if (controller.hasExited()) throw new Error(`controller exited:\n${logOf(controller)}`);
          const web = store.get("Deployment", "default", "web");
          const hpa = store.get("HorizontalPodAutoscaler", "default", "web");
          const replicas = (web?.spec as { replicas?: number } | undefined)?.replicas;
          const desired = (hpa?.status as { desiredReplicas?: number } | undefined)
            ?.desiredReplicas;
          return replicas === 3 && desired === 3 ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      // It holds the Lease deploy/'s Role lets it write, in its own namespace.
      const lease = store.get("Lease", "horizon-system", "horizon-controller");
      assert.ok(lease, "the leader-election Lease in horizon-system");
      const log = logOf(controller);
      assert.doesNotMatch(log, /forbidden/i, log);
    });

    it("without the horizontalpodautoscalers/status rule its status write fails with upstream's 403", async () => {
      const controller = processes.at(-1)!;
      const role = manifests.find((m) => m.kind === "ClusterRole")!;
      const rules = (role.rules ?? []).filter(
        (r) => !(r.resources ?? []).includes("horizontalpodautoscalers/status"),
      );
      assert.equal(rules.length, (role.rules ?? []).length - 1);
      kubectlOk(
        await kubectl(admin, ["apply", "-f", "-"], { stdin: stringify({ ...role, rules }) }),
        "apply the narrowed ClusterRole",
      );
      // A new max: the controller scales again and has a new status to write.
      kubectlOk(
        await kubectl(admin, [
          "patch",
          "hpa",
          "web",
          "--type=merge",
          "-p",
          '{"spec":{"maxReplicas":4}}',
        ]),
        "patch hpa",
      );
      const message = `horizontalpodautoscalers.autoscaling "web" is forbidden: User "${ACCOUNT}" cannot update resource "horizontalpodautoscalers/status" in API group "autoscaling" in the namespace "default"`;
      const events = await pollUntil(
        "the FailedUpdateStatus event",
        async () => {
          const got = await kubectl(admin, [
            "get",
            "events",
            "--field-selector=reason=FailedUpdateStatus",
            "-o",
            "jsonpath={.items[*].message}",
          ]);
          return got.stdout.includes(message) ? got.stdout : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      assert.ok(events.includes(message), events);
      // The scale write is still allowed (*/scale): web goes to 4.
      await pollUntil(
        "web scaled to 4",
        () => {
          const web = server.up.cluster.store.get("Deployment", "default", "web");
          return (web?.spec as { replicas?: number } | undefined)?.replicas === 4
            ? true
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.match(logOf(controller), /is forbidden: User/);
    });
  });
}
