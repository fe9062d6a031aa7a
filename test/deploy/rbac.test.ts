// deploy/: `kubectl kustomize deploy/` renders (real kubectl), and the RBAC matcher the coverage
// test relies on reads requests and rules as kube-apiserver does.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { kubectlRequired, whichKubectl } from "../e2e/helpers.js";
import { allows, type PolicyRule, requestAttributes, SYSTEM_DISCOVERY } from "./rbac.js";

describe("request attributes as kube-apiserver derives them", () => {
  const cases = [
    {
      name: "a collection GET is list",
      method: "GET",
      path: "/apis/autoscaling/v2/horizontalpodautoscalers",
      query: "limit=500",
      want: { verb: "list", apiGroup: "autoscaling", resource: "horizontalpodautoscalers" },
    },
    {
      name: "watch=true is watch",
      method: "GET",
      path: "/api/v1/pods",
      query: "watch=true&resourceVersion=5",
      want: { verb: "watch", apiGroup: "", resource: "pods" },
    },
    {
      name: "a scale subresource",
      method: "PUT",
      path: "/apis/apps/v1/namespaces/default/deployments/web/scale",
      query: "",
      want: { verb: "update", apiGroup: "apps", resource: "deployments", subresource: "scale" },
    },
    {
      name: "a custom metric of pods",
      method: "GET",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps",
      query: "labelSelector=app%3Dweb",
      want: {
        verb: "get",
        apiGroup: "custom.metrics.k8s.io",
        resource: "pods",
        subresource: "rps",
      },
    },
    {
      name: "an external metric is a list",
      method: "GET",
      path: "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_length",
      query: "",
      want: { verb: "list", apiGroup: "external.metrics.k8s.io", resource: "queue_length" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const attrs = requestAttributes(c.method, c.path, new URLSearchParams(c.query));
      assert.equal(attrs.resourceRequest, true);
      assert.deepEqual(
        { verb: attrs.verb, apiGroup: attrs.apiGroup, resource: attrs.resource },
        { verb: c.want.verb, apiGroup: c.want.apiGroup, resource: c.want.resource },
      );
      assert.equal(attrs.subresource, c.want.subresource ?? "");
    });
  }

  it("discovery is a non-resource request allowed by system:discovery", () => {
    const attrs = requestAttributes("GET", "/apis/apps/v1", new URLSearchParams());
    assert.equal(attrs.resourceRequest, false);
    assert.equal(allows([SYSTEM_DISCOVERY], attrs), true);
  });
});

describe("RBAC rule matching", () => {
  const rules: PolicyRule[] = [
    { apiGroups: ["*"], resources: ["*/scale"], verbs: ["get", "update"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"] },
    { apiGroups: ["custom.metrics.k8s.io"], resources: ["*"], verbs: ["get"] },
  ];
  const cases = [
    {
      name: "*/scale allows any kind's scale",
      method: "GET",
      path: "/apis/example.com/v1/namespaces/d/widgets/w/scale",
      allowed: true,
    },
    {
      name: "*/scale does not allow the object itself",
      method: "GET",
      path: "/apis/apps/v1/namespaces/d/deployments/w",
      allowed: false,
    },
    {
      name: "a verb not granted",
      method: "PATCH",
      path: "/apis/apps/v1/namespaces/d/deployments/w/scale",
      allowed: false,
    },
    { name: "pods list", method: "GET", path: "/api/v1/pods", allowed: true },
    {
      name: "pods get is not list",
      method: "GET",
      path: "/api/v1/namespaces/d/pods/p",
      allowed: false,
    },
    {
      name: "* covers subresources",
      method: "GET",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/d/pods/*/rps",
      allowed: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(
        allows(rules, requestAttributes(c.method, c.path, new URLSearchParams())),
        c.allowed,
      );
    });
  }
});

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
