// deploy/: `kubectl kustomize deploy/` renders (real kubectl) with least-privilege RBAC.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import type { PolicyRule } from "../../src/apiserver/auth/rbac.js";
import { kubectlRequired, whichKubectl } from "../e2e/helpers.js";

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: {
    replicas: number;
    template: { spec: { containers: { image: string; args: string[] }[] } };
  };
  subjects?: unknown[];
  rules?: PolicyRule[];
}

describe("deploy/ renders with kubectl kustomize", () => {
  const kubectl = whichKubectl();
  it("has the controller's objects, least-privilege RBAC and leader election", (t) => {
    if (!kubectl) {
      if (kubectlRequired()) assert.fail("CI=true: kubectl is required on PATH");
      t.skip("kubectl not on PATH");
      return;
    }
    const run = spawnSync(kubectl, ["kustomize", "deploy"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const docs = parseAllDocuments(run.stdout).map((d) => d.toJS() as Manifest);
    const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
    assert.deepEqual(kinds, [
      "ClusterRole/horizon-controller",
      "ClusterRoleBinding/horizon-controller",
      "Deployment/horizon-controller",
      "Namespace/horizon-system",
      "PodDisruptionBudget/horizon-controller",
      "Role/horizon-controller-leader-election",
      "RoleBinding/horizon-controller-leader-election",
      "Service/horizon-controller-metrics",
      "ServiceAccount/horizon-controller",
    ]);
    const deployment = docs.find((d) => d.kind === "Deployment")!;
    assert.equal(deployment.metadata.namespace, "horizon-system");
    assert.equal(deployment.spec.replicas, 2);
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container, "the Deployment has a container");
    assert.equal(container.image, "ghcr.io/horizon-autoscaler/horizon:0.1.0");
    assert.ok(container.args.includes("--leader-elect"));
    const binding = docs.find((d) => d.kind === "ClusterRoleBinding")!;
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: "horizon-controller", namespace: "horizon-system" },
    ]);
    // Nothing in the ClusterRole may write workloads or read secrets.
    const role = docs.find((d) => d.kind === "ClusterRole")!;
    for (const rule of role.rules ?? []) {
      assert.ok(!(rule.resources ?? []).includes("secrets"), JSON.stringify(rule));
      assert.ok(!rule.verbs.includes("*") && !rule.verbs.includes("delete"), JSON.stringify(rule));
    }
  });
});
