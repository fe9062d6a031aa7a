// deploy/adapter/: `kubectl kustomize deploy/adapter/` renders (real kubectl) the adapter as an
// aggregated API server: the three APIServices on its Service, the front-proxy CA reader in
// kube-system, list-only RBAC for the objects it matches metrics to, and the book's rules in a
// ConfigMap that the adapter reads.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { allows, type PolicyRule, requestAttributes } from "../../src/apiserver/auth/rbac.js";
import { readAdapterConfig } from "../../src/prometheus/adapter-config.js";
import { kubectlRequired, whichKubectl } from "../e2e/helpers.js";

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read loosely
type Manifest = any;

describe("deploy/adapter/ renders with kubectl kustomize", () => {
  const kubectl = whichKubectl();
  it("has the APIServices, the Service, least-privilege RBAC and a config the adapter reads", (t) => {
    if (!kubectl) {
      if (kubectlRequired()) assert.fail("CI=true: kubectl is required on PATH");
      t.skip("kubectl not on PATH");
      return;
    }
    const run = spawnSync(kubectl, ["kustomize", "deploy/adapter"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const docs: Manifest[] = parseAllDocuments(run.stdout).map((d) => d.toJS());
    const apiServices = docs.filter((d) => d.kind === "APIService");
    assert.deepEqual(apiServices.map((d) => `${d.spec.version}.${d.spec.group}`).sort(), [
      "v1beta1.custom.metrics.k8s.io",
      "v1beta1.external.metrics.k8s.io",
      "v1beta2.custom.metrics.k8s.io",
    ]);
    const service = docs.find((d) => d.kind === "Service");
    const deployment = docs.find((d) => d.kind === "Deployment");
    for (const api of apiServices) {
      assert.deepEqual(api.spec.service, {
        name: service.metadata.name,
        namespace: service.metadata.namespace,
      });
    }
    assert.deepEqual(service.spec.selector, deployment.spec.template.metadata.labels);
    const container = deployment.spec.template.spec.containers[0];
    assert.equal(container.args[0], "adapter");
    assert.equal(container.image, "ghcr.io/horizon-autoscaler/horizon:0.1.0");

    // The front proxy's CA is read with the built-in Role, bound in kube-system.
    const authReader = docs.find((d) => d.kind === "RoleBinding");
    assert.equal(authReader.metadata.namespace, "kube-system");
    assert.equal(authReader.roleRef.name, "extension-apiserver-authentication-reader");
    const account = docs.find((d) => d.kind === "ServiceAccount");
    assert.deepEqual(authReader.subjects, [
      {
        kind: "ServiceAccount",
        name: account.metadata.name,
        namespace: account.metadata.namespace,
      },
    ]);

    // The adapter lists pods (a `*` request) and nothing in its role writes or reads secrets.
    const reader = docs.find(
      (d) => d.kind === "ClusterRole" && d.metadata.name === "horizon-adapter-resource-reader",
    );
    const rules: PolicyRule[] = reader.rules;
    const attrs = requestAttributes(
      "GET",
      "/api/v1/namespaces/default/pods",
      new URLSearchParams("labelSelector=app%3Dweb"),
    );
    assert.ok(allows(rules, attrs), "list pods");
    assert.ok(
      !allows(
        rules,
        requestAttributes("GET", "/api/v1/namespaces/default/secrets", new URLSearchParams()),
      ),
    );
    for (const rule of rules) assert.deepEqual(rule.verbs, ["list"]);

    const config = docs.find((d) => d.kind === "ConfigMap");
    const read = readAdapterConfig(config.data["config.yaml"]);
    assert.ok(read.ok, read.ok ? "" : read.errors.join("\n"));
    assert.equal(read.config.rules.length, 1);
    assert.ok(container.args.includes("--config=/etc/adapter/config.yaml"));
  });
});
