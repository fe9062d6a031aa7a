// The RBAC authorizer (src/apiserver/auth/rbac.ts): request attributes as kube-apiserver's
// RequestInfoFactory derives them, rule matching, bindings and their subjects, the reasons and
// the Forbidden message; the bootstrap roles and the clusterrole aggregation and service
// account controllers that keep them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { bootstrapPolicy, SYSTEM_DISCOVERY } from "../../src/apiserver/auth/bootstrap.js";
import {
  allows,
  authorize,
  forbiddenMessage,
  type PolicyRule,
  requestAttributes,
  rulesFor,
} from "../../src/apiserver/auth/rbac.js";
import { ADMIN_USER, serviceAccountGroups, type UserInfo } from "../../src/apiserver/auth/user.js";
import { aggregateClusterRoles } from "../../src/cluster/controllers/clusterroleaggregation.js";
import { startServiceAccountsController } from "../../src/cluster/controllers/serviceaccounts.js";
import { ObjectStore } from "../../src/registry/store.js";

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
      name: "watch=1 is watch too",
      method: "GET",
      path: "/api/v1/namespaces/d/pods",
      query: "watch=1",
      want: { verb: "watch", apiGroup: "", resource: "pods", namespace: "d" },
    },
    {
      name: "a /watch/ path is watch, its name no subresource",
      method: "GET",
      path: "/api/v1/watch/namespaces/d/pods/p",
      query: "",
      want: { verb: "watch", apiGroup: "", resource: "pods", namespace: "d", name: "p" },
    },
    {
      name: "a list with a metadata.name field selector names the object",
      method: "GET",
      path: "/api/v1/namespaces/d/configmaps",
      query: "fieldSelector=metadata.name%3Dcfg",
      want: { verb: "list", apiGroup: "", resource: "configmaps", namespace: "d", name: "cfg" },
    },
    {
      name: "a scale subresource",
      method: "PUT",
      path: "/apis/apps/v1/namespaces/default/deployments/web/scale",
      query: "",
      want: {
        verb: "update",
        apiGroup: "apps",
        resource: "deployments",
        subresource: "scale",
        namespace: "default",
        name: "web",
      },
    },
    {
      name: "pods/log",
      method: "GET",
      path: "/api/v1/namespaces/d/pods/p/log",
      query: "follow=true",
      want: { verb: "get", resource: "pods", subresource: "log", namespace: "d", name: "p" },
    },
    {
      name: "a DELETE of a collection is deletecollection",
      method: "DELETE",
      path: "/api/v1/namespaces/d/pods",
      query: "",
      want: { verb: "deletecollection", resource: "pods", namespace: "d" },
    },
    {
      name: "a Namespace is in itself",
      method: "GET",
      path: "/api/v1/namespaces/team",
      query: "",
      want: { verb: "get", resource: "namespaces", namespace: "team", name: "team" },
    },
    {
      name: "a Namespace's finalize subresource",
      method: "PUT",
      path: "/api/v1/namespaces/team/finalize",
      query: "",
      want: {
        verb: "update",
        resource: "namespaces",
        subresource: "finalize",
        namespace: "team",
        name: "team",
      },
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
        namespace: "default",
        name: "*",
      },
    },
    {
      name: "an external metric is a list",
      method: "GET",
      path: "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_length",
      query: "",
      want: {
        verb: "list",
        apiGroup: "external.metrics.k8s.io",
        resource: "queue_length",
        namespace: "default",
      },
    },
    {
      name: "a TokenRequest",
      method: "POST",
      path: "/api/v1/namespaces/d/serviceaccounts/bot/token",
      query: "",
      want: {
        verb: "create",
        resource: "serviceaccounts",
        subresource: "token",
        namespace: "d",
        name: "bot",
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const attrs = requestAttributes(c.method, c.path, new URLSearchParams(c.query));
      assert.equal(attrs.resourceRequest, true);
      assert.deepEqual(
        {
          verb: attrs.verb,
          apiGroup: attrs.apiGroup,
          resource: attrs.resource,
          subresource: attrs.subresource,
          namespace: attrs.namespace,
          name: attrs.name,
        },
        { apiGroup: "", subresource: "", namespace: "", name: "", ...c.want },
      );
    });
  }

  const nonResource = [
    { name: "/apis/apps/v1 (a group-version) is a path", method: "GET", path: "/apis/apps/v1" },
    { name: "/api/v1 is a path", method: "GET", path: "/api/v1" },
    { name: "/healthz is a path", method: "GET", path: "/healthz" },
    {
      name: "a path's verb is its method, lower-case",
      method: "POST",
      path: "/metrics",
      verb: "post",
    },
  ];
  for (const c of nonResource) {
    it(c.name, () => {
      const attrs = requestAttributes(c.method, c.path, new URLSearchParams());
      assert.equal(attrs.resourceRequest, false);
      assert.equal(attrs.path, c.path);
      assert.equal(attrs.verb, c.verb ?? "get");
    });
  }

  it("discovery is allowed by system:discovery", () => {
    const attrs = requestAttributes("GET", "/apis/apps/v1", new URLSearchParams());
    assert.equal(allows([SYSTEM_DISCOVERY], attrs), true);
    const metrics = requestAttributes("GET", "/metrics", new URLSearchParams());
    assert.equal(allows([SYSTEM_DISCOVERY], metrics), false);
  });
});

describe("RBAC rule matching", () => {
  const rules: PolicyRule[] = [
    { apiGroups: ["*"], resources: ["*/scale"], verbs: ["get", "update"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"] },
    { apiGroups: ["custom.metrics.k8s.io"], resources: ["*"], verbs: ["get"] },
    { apiGroups: [""], resources: ["configmaps"], resourceNames: ["cfg"], verbs: ["*"] },
    { nonResourceURLs: ["/logs/*", "/metrics"], verbs: ["get"] },
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
      name: "pods does not cover pods/log",
      method: "GET",
      path: "/api/v1/namespaces/d/pods/p/log",
      allowed: false,
    },
    {
      name: "* covers subresources",
      method: "GET",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/d/pods/*/rps",
      allowed: true,
    },
    {
      name: "resourceNames: the named object, any verb",
      method: "DELETE",
      path: "/api/v1/namespaces/d/configmaps/cfg",
      allowed: true,
    },
    {
      name: "resourceNames: another object",
      method: "GET",
      path: "/api/v1/namespaces/d/configmaps/other",
      allowed: false,
    },
    {
      name: "resourceNames: a list names no object",
      method: "GET",
      path: "/api/v1/namespaces/d/configmaps",
      allowed: false,
    },
    {
      name: "resourceNames: a list selecting the one name by field",
      method: "GET",
      path: "/api/v1/namespaces/d/configmaps?fieldSelector=metadata.name%3Dcfg",
      allowed: true,
    },
    { name: "a non-resource URL", method: "GET", path: "/metrics", allowed: true },
    { name: "a non-resource prefix", method: "GET", path: "/logs/kubelet.log", allowed: true },
    { name: "a non-resource URL not listed", method: "GET", path: "/debug", allowed: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const url = new URL(c.path, "http://x");
      assert.equal(
        allows(rules, requestAttributes(c.method, url.pathname, url.searchParams)),
        c.allowed,
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------

const RBAC = "rbac.authorization.k8s.io";
const sa = (namespace: string, name: string): UserInfo => ({
  name: `system:serviceaccount:${namespace}:${name}`,
  groups: serviceAccountGroups(namespace),
});
const alice: UserInfo = { name: "alice", groups: ["dev", "system:authenticated"] };

function storeWith(objects: KubeObject[]): ObjectStore {
  const store = new ObjectStore();
  for (const object of [...bootstrapPolicy(), ...objects]) store.create(object);
  aggregateClusterRoles(store);
  return store;
}

const role = (namespace: string, name: string, rules: PolicyRule[]): KubeObject => ({
  apiVersion: `${RBAC}/v1`,
  kind: "Role",
  metadata: { name, namespace },
  rules,
});
const binding = (
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  namespace: string | undefined,
  roleRef: { kind: string; name: string },
  subjects: Record<string, string>[],
): KubeObject => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
  roleRef: { apiGroup: RBAC, ...roleRef },
  subjects,
});

describe("RBAC authorizer: bindings, subjects, reasons", () => {
  const store = storeWith([
    role("team", "pod-reader", [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }]),
    // A subject ServiceAccount without a namespace is in the RoleBinding's.
    binding("RoleBinding", "bot-reads", "team", { kind: "Role", name: "pod-reader" }, [
      { kind: "ServiceAccount", name: "bot" },
    ]),
    // A RoleBinding of a ClusterRole grants it in its namespace only.
    binding("RoleBinding", "dev-edit", "team", { kind: "ClusterRole", name: "edit" }, [
      { kind: "Group", apiGroup: RBAC, name: "dev" },
    ]),
    binding("ClusterRoleBinding", "carol-view", undefined, { kind: "ClusterRole", name: "view" }, [
      { kind: "User", apiGroup: RBAC, name: "carol" },
    ]),
    binding("RoleBinding", "dangling", "broken", { kind: "Role", name: "gone" }, [
      { kind: "User", apiGroup: RBAC, name: "alice" },
    ]),
  ]);
  const cases: {
    name: string;
    user: UserInfo;
    method: string;
    path: string;
    allowed: boolean;
    reason: string;
  }[] = [
    {
      name: "a service account through a RoleBinding of a Role",
      user: sa("team", "bot"),
      method: "GET",
      path: "/api/v1/namespaces/team/pods",
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "bot-reads/team" of Role "pod-reader" to ServiceAccount "bot/team"',
    },
    {
      name: "the same account in another namespace",
      user: sa("team", "bot"),
      method: "GET",
      path: "/api/v1/namespaces/default/pods",
      allowed: false,
      reason: "",
    },
    {
      name: "a same-named account of another namespace",
      user: sa("other", "bot"),
      method: "GET",
      path: "/api/v1/namespaces/team/pods",
      allowed: false,
      reason: "",
    },
    {
      name: "a verb the Role does not give",
      user: sa("team", "bot"),
      method: "DELETE",
      path: "/api/v1/namespaces/team/pods/p",
      allowed: false,
      reason: "",
    },
    {
      name: "a group through a RoleBinding of the aggregated edit ClusterRole",
      user: alice,
      method: "PUT",
      path: "/apis/apps/v1/namespaces/team/deployments/web/scale",
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "dev-edit/team" of ClusterRole "edit" to Group "dev"',
    },
    {
      name: "edit includes view's rules (aggregated)",
      user: alice,
      method: "GET",
      path: "/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers",
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "dev-edit/team" of ClusterRole "edit" to Group "dev"',
    },
    {
      name: "edit does not grant roles",
      user: alice,
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles",
      allowed: false,
      reason: "",
    },
    {
      name: "a binding whose role is missing says so when nothing allows",
      user: alice,
      method: "GET",
      path: "/api/v1/namespaces/broken/pods",
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    },
    {
      name: "a user through a ClusterRoleBinding, in every namespace",
      user: { name: "carol", groups: ["system:authenticated"] },
      method: "GET",
      path: "/api/v1/namespaces/anywhere/configmaps/c",
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "carol-view" of ClusterRole "view" to User "carol"',
    },
    {
      name: "view does not read secrets",
      user: { name: "carol", groups: ["system:authenticated"] },
      method: "GET",
      path: "/api/v1/namespaces/anywhere/secrets/s",
      allowed: false,
      reason: "",
    },
    {
      name: "every authenticated user: discovery",
      user: sa("team", "nobody"),
      method: "GET",
      path: "/apis/apps/v1",
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    },
    {
      name: "every authenticated user: access reviews",
      user: sa("team", "nobody"),
      method: "POST",
      path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
    },
    {
      name: "the admin's group through cluster-admin",
      user: ADMIN_USER,
      method: "DELETE",
      path: "/api/v1/nodes",
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const url = new URL(c.path, "http://x");
      const decision = authorize(
        store,
        c.user,
        requestAttributes(c.method, url.pathname, url.searchParams),
      );
      assert.deepEqual(decision, { allowed: c.allowed, reason: c.reason });
    });
  }

  it("rulesFor: the cluster-wide rules, then the namespace's", () => {
    const { rules, evaluationError } = rulesFor(store, sa("team", "bot"), "team");
    assert.equal(evaluationError, "");
    assert.deepEqual(rules.at(-1), {
      apiGroups: [""],
      resources: ["pods"],
      verbs: ["get", "list"],
    });
    assert.ok(rules.some((r) => r.nonResourceURLs?.includes("/apis")));
    assert.equal(rulesFor(store, sa("team", "bot"), "default").rules.length, rules.length - 1);
    assert.equal(
      rulesFor(store, alice, "broken").evaluationError,
      'role.rbac.authorization.k8s.io "gone" not found',
    );
  });
});

describe("the Forbidden message", () => {
  const user = sa("ns", "sa");
  const cases = [
    {
      name: "a namespaced list",
      method: "GET",
      path: "/api/v1/namespaces/ns/pods",
      message:
        'User "system:serviceaccount:ns:sa" cannot list resource "pods" in API group "" in the namespace "ns"',
    },
    {
      name: "a subresource",
      method: "PUT",
      path: "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/web/status",
      message:
        'User "system:serviceaccount:ns:sa" cannot update resource "horizontalpodautoscalers/status" in API group "autoscaling" in the namespace "ns"',
    },
    {
      name: "cluster scope",
      method: "GET",
      path: "/api/v1/nodes",
      message:
        'User "system:serviceaccount:ns:sa" cannot list resource "nodes" in API group "" at the cluster scope',
    },
    {
      name: "a path",
      method: "GET",
      path: "/metrics",
      message: 'User "system:serviceaccount:ns:sa" cannot get path "/metrics"',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(
        forbiddenMessage(user, requestAttributes(c.method, c.path, new URLSearchParams())),
        c.message,
      );
    });
  }
});

describe("bootstrap policy and its controllers", () => {
  it("admin aggregates edit, which aggregates view", () => {
    const store = storeWith([]);
    const rules = (name: string) =>
      store.get("ClusterRole", "", name)?.rules as PolicyRule[] | undefined;
    const view = rules("view")!;
    const edit = rules("edit")!;
    const admin = rules("admin")!;
    assert.deepEqual(view, rules("system:aggregate-to-view"));
    for (const rule of view)
      assert.ok(edit.some((r) => JSON.stringify(r) === JSON.stringify(rule)));
    for (const rule of edit)
      assert.ok(admin.some((r) => JSON.stringify(r) === JSON.stringify(rule)));
    assert.ok(admin.some((r) => r.resources?.includes("rolebindings")));
    assert.ok(!edit.some((r) => r.resources?.includes("rolebindings")));
  });

  it("a new labelled ClusterRole joins the aggregate; no rule twice", () => {
    const store = storeWith([
      {
        apiVersion: `${RBAC}/v1`,
        kind: "ClusterRole",
        metadata: { name: "widgets-view", labels: { [`${RBAC}/aggregate-to-view`]: "true" } },
        rules: [
          { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
          // Already in system:aggregate-to-view.
          { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] },
        ],
      },
    ]);
    const view = store.get("ClusterRole", "", "view")!.rules as PolicyRule[];
    assert.equal(view.filter((r) => r.resources?.includes("widgets")).length, 1);
    assert.equal(view.filter((r) => JSON.stringify(r.resources) === '["namespaces"]').length, 1);
    const admin = store.get("ClusterRole", "", "admin")!.rules as PolicyRule[];
    assert.ok(admin.some((r) => r.resources?.includes("widgets")));
  });

  it("every namespace gets a default ServiceAccount, again if it is deleted", async () => {
    const store = new ObjectStore();
    const namespace = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
      ...extra,
    });
    store.create(namespace("default"));
    const stop = startServiceAccountsController(store);
    assert.ok(store.get("ServiceAccount", "default", "default"), "made at start");
    store.create(namespace("team"));
    store.create(namespace("leaving", { status: { phase: "Terminating" } }));
    await Promise.resolve();
    assert.ok(store.get("ServiceAccount", "team", "default"), "made for a new namespace");
    assert.equal(store.get("ServiceAccount", "leaving", "default"), undefined);
    const uid = store.get("ServiceAccount", "team", "default")!.metadata.uid;
    store.delete("ServiceAccount", "team", "default");
    await Promise.resolve();
    const again = store.get("ServiceAccount", "team", "default");
    assert.ok(again, "made again");
    assert.notEqual(again.metadata.uid, uid);
    stop();
  });
});
