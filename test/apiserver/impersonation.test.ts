// Impersonation in process (src/apiserver/auth/impersonation.ts), as kube-apiserver's
// WithImpersonation: the Impersonate-User/Group/Uid/Extra-* headers, the `impersonate` verb
// each needs (403 with upstream's message otherwise), the user the request then runs as (RBAC,
// SelfSubjectReview, SelfSubjectAccessReview), and a group without a user (500, as upstream).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const ADMIN = "admin-token";
const BOT = "system:serviceaccount:team:bot";

interface Call {
  token?: string;
  method?: string;
  url: string;
  body?: unknown;
  /** Header values; a list is a header sent once per value. */
  headers?: Record<string, string | string[]>;
}

async function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster, token: ADMIN });
  const call = async (c: Call): Promise<{ status: number; body: Json; text: string }> => {
    const parsed = new URL(c.url, "http://x");
    const headers: Record<string, string> = {
      authorization: `Bearer ${c.token ?? ADMIN}`,
      "user-agent": "kubectl/v1.33.0 (linux/amd64) kubernetes/abc",
    };
    const headerValues: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(c.headers ?? {})) {
      const values = Array.isArray(value) ? value : [value];
      headers[name] = values.join(", ");
      headerValues[name] = values;
    }
    const req: ApiRequest = {
      method: c.method ?? "GET",
      path: parsed.pathname,
      query: parsed.searchParams,
      headers,
    };
    if (headers["impersonate-user"] !== undefined) req.headerValues = headerValues;
    if (c.body !== undefined) {
      req.body = Buffer.from(JSON.stringify(c.body));
      headers["content-type"] = "application/json";
    }
    const res = await handler(req);
    if ("stream" in res) throw new Error("unexpected stream");
    if ("raw" in res) return { status: res.status, body: null, text: res.raw.toString() };
    const body = JSON.parse(JSON.stringify(res.body));
    return { status: res.status, body, text: "" };
  };
  const ok = async (c: Call) => {
    const res = await call(c);
    assert.ok(res.status < 300, `${c.method ?? "GET"} ${c.url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok({
    method: "POST",
    url: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } },
  });
  await ok({
    method: "POST",
    url: "/api/v1/namespaces/team/serviceaccounts",
    body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "bot" } },
  });
  const token = (
    await ok({
      method: "POST",
      url: "/api/v1/namespaces/team/serviceaccounts/bot/token",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
    })
  ).status.token as string;
  const whoami = async (headers: Record<string, string | string[]>, as = ADMIN) =>
    (
      await ok({
        token: as,
        method: "POST",
        url: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        headers,
      })
    ).status.userInfo;
  /** A ClusterRole of `rules` bound to the bot. */
  const grantBot = async (name: string, rules: unknown[]) => {
    await ok({
      method: "POST",
      url: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name },
        rules,
      },
    });
    await ok({
      method: "POST",
      url: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
        subjects: [{ kind: "ServiceAccount", name: "bot", namespace: "team" }],
      },
    });
  };
  return { cluster, call, ok, whoami, grantBot, token };
}

describe("impersonation: the user a request runs as", () => {
  it("a user alone is in system:authenticated; given groups are added to it", async () => {
    const s = await setup();
    assert.deepEqual(await s.whoami({ "impersonate-user": "jane" }), {
      username: "jane",
      groups: ["system:authenticated"],
    });
    assert.deepEqual(
      await s.whoami({ "impersonate-user": "jane", "impersonate-group": ["devs", "ops, sre"] }),
      { username: "jane", groups: ["devs", "ops, sre", "system:authenticated"] },
      "each Impersonate-Group header is one group, commas and all",
    );
    // In system:unauthenticated only, the user is not system:basic-user (bound to
    // system:authenticated): even whoami is refused, as upstream; the anonymous user likewise.
    const review = {
      method: "POST",
      url: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    };
    const unauthenticated = await s.call({
      ...review,
      headers: { "impersonate-user": "jane", "impersonate-group": "system:unauthenticated" },
    });
    assert.equal(unauthenticated.status, 403);
    assert.match(
      unauthenticated.body.message,
      /User "jane" cannot create resource "selfsubjectreviews"/,
    );
    const anonymous = await s.call({
      ...review,
      headers: { "impersonate-user": "system:anonymous" },
    });
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.body.message, /User "system:anonymous" cannot create/);
    // Once system:unauthenticated may, whoami shows the groups: no system:authenticated added.
    await s.ok({
      method: "POST",
      url: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "unauthenticated-basic-user" },
        roleRef: {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "ClusterRole",
          name: "system:basic-user",
        },
        subjects: [
          { kind: "Group", name: "system:unauthenticated", apiGroup: "rbac.authorization.k8s.io" },
        ],
      },
    });
    assert.deepEqual(
      await s.whoami({ "impersonate-user": "jane", "impersonate-group": "system:unauthenticated" }),
      { username: "jane", groups: ["system:unauthenticated"] },
    );
    assert.deepEqual(await s.whoami({ "impersonate-user": "system:anonymous" }), {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
  });

  it("a service account's user gets its groups unless groups are given", async () => {
    const s = await setup();
    assert.deepEqual(await s.whoami({ "impersonate-user": BOT }), {
      username: BOT,
      groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    });
    assert.deepEqual(await s.whoami({ "impersonate-user": BOT, "impersonate-group": "g" }), {
      username: BOT,
      groups: ["g", "system:authenticated"],
    });
  });

  it("uid and extras (the key lower-cased and unescaped) are carried", async () => {
    const s = await setup();
    assert.deepEqual(
      await s.whoami({
        "impersonate-user": "jane",
        "impersonate-uid": "1234",
        "impersonate-extra-scopes": ["view", "edit"],
        "impersonate-extra-example.com%2fteam": "blue",
      }),
      {
        username: "jane",
        uid: "1234",
        groups: ["system:authenticated"],
        extra: { scopes: ["view", "edit"], "example.com/team": ["blue"] },
      },
    );
  });

  it("RBAC and access reviews judge the impersonated user, not the admin", async () => {
    const s = await setup();
    const denied = await s.call({
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "jane" },
    });
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team"',
    );
    await s.ok({
      method: "POST",
      url: "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "jane-edit" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
        subjects: [{ kind: "User", name: "jane", apiGroup: "rbac.authorization.k8s.io" }],
      },
    });
    const created = await s.ok({
      method: "POST",
      url: "/api/v1/namespaces/team/configmaps?fieldManager=",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } },
      headers: { "impersonate-user": "jane" },
    });
    assert.equal(
      created.metadata.managedFields[0].manager,
      "kubectl",
      "the manager is the client's",
    );
    const canI = async (verb: string, resource: string, group = "") =>
      (
        await s.ok({
          method: "POST",
          url: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SelfSubjectAccessReview",
            spec: { resourceAttributes: { namespace: "team", verb, resource, group } },
          },
          headers: { "impersonate-user": "jane" },
        })
      ).status.allowed;
    assert.equal(await canI("delete", "configmaps"), true);
    assert.equal(
      await canI("create", "roles", "rbac.authorization.k8s.io"),
      false,
      "edit is not admin",
    );
  });
});

describe("impersonation: who may impersonate what", () => {
  it("the admin (system:masters) may impersonate anyone; others need the impersonate verb", async () => {
    const s = await setup();
    const res = await s.call({
      token: s.token,
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "jane" },
    });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `users "jane" is forbidden: User "${BOT}" cannot impersonate resource "users" in API group "" at the cluster scope`,
      reason: "Forbidden",
      details: { name: "jane", kind: "users" },
      code: 403,
    });
  });

  it("each group, extra, uid and service account needs its own grant; the first refused is named", async () => {
    const s = await setup();
    await s.grantBot("impersonate-jane", [
      { apiGroups: [""], resources: ["users"], verbs: ["impersonate"], resourceNames: ["jane"] },
    ]);
    assert.deepEqual(await s.whoami({ "impersonate-user": "jane" }, s.token), {
      username: "jane",
      groups: ["system:authenticated"],
    });
    const other = await s.call({
      token: s.token,
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "joe" },
    });
    assert.equal(other.status, 403);
    const cases: { headers: Record<string, string[]>; message: string; details: unknown }[] = [
      {
        headers: { "impersonate-group": ["devs"] },
        message: `groups "devs" is forbidden: User "${BOT}" cannot impersonate resource "groups" in API group "" at the cluster scope`,
        details: { name: "devs", kind: "groups" },
      },
      {
        headers: { "impersonate-extra-scopes": ["view"] },
        message: `userextras.authentication.k8s.io "view" is forbidden: User "${BOT}" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`,
        details: { name: "view", group: "authentication.k8s.io", kind: "userextras" },
      },
      {
        headers: { "impersonate-uid": ["42"] },
        message: `uids.authentication.k8s.io "42" is forbidden: User "${BOT}" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`,
        details: { name: "42", group: "authentication.k8s.io", kind: "uids" },
      },
    ];
    for (const c of cases) {
      const res = await s.call({
        token: s.token,
        url: "/api/v1/namespaces/team/pods",
        headers: { "impersonate-user": "jane", ...c.headers },
      });
      assert.equal(res.status, 403, JSON.stringify(c.headers));
      assert.equal(res.body.message, c.message);
      assert.deepEqual(res.body.details, c.details);
    }
    await s.grantBot("impersonate-more", [
      { apiGroups: [""], resources: ["groups"], verbs: ["impersonate"] },
      {
        apiGroups: ["authentication.k8s.io"],
        resources: ["userextras/scopes", "uids"],
        verbs: ["impersonate"],
      },
    ]);
    assert.deepEqual(
      await s.whoami(
        {
          "impersonate-user": "jane",
          "impersonate-group": "devs",
          "impersonate-extra-scopes": "view",
          "impersonate-uid": "42",
        },
        s.token,
      ),
      {
        username: "jane",
        uid: "42",
        groups: ["devs", "system:authenticated"],
        extra: { scopes: ["view"] },
      },
    );
  });

  it("a service account is impersonated through serviceaccounts in its namespace (edit grants it)", async () => {
    const s = await setup();
    const refused = await s.call({
      token: s.token,
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "system:serviceaccount:team:default" },
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      `serviceaccounts "default" is forbidden: User "${BOT}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"`,
    );
    await s.ok({
      method: "POST",
      url: "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "bot-edit" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
        subjects: [{ kind: "ServiceAccount", name: "bot" }],
      },
    });
    assert.equal(
      (await s.whoami({ "impersonate-user": "system:serviceaccount:team:default" }, s.token))
        .username,
      "system:serviceaccount:team:default",
    );
    const elsewhere = await s.call({
      token: s.token,
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "system:serviceaccount:default:default" },
    });
    assert.equal(elsewhere.status, 403);
    // Not an account's name (three parts): a plain user, which edit does not grant.
    const odd = await s.call({
      token: s.token,
      url: "/api/v1/namespaces/team/pods",
      headers: { "impersonate-user": "system:serviceaccount:team:a:b" },
    });
    assert.equal(odd.status, 403);
    assert.match(odd.body.message, /cannot impersonate resource "users"/);
  });

  it("groups, extras or a uid without a user: 500 as upstream, nothing done", async () => {
    const s = await setup();
    const res = await s.call({
      method: "POST",
      url: "/api/v1/namespaces/team/configmaps?dryRun=All",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } },
      headers: { "impersonate-group": ["devs"], "impersonate-uid": "7" },
    });
    assert.equal(res.status, 500);
    assert.equal(
      res.text,
      'Internal Server Error: "/api/v1/namespaces/team/configmaps?dryRun=All": requested [{Group  devs    } {UID  7  authentication.k8s.io/v1  }] without impersonating a user\n',
    );
    assert.equal(s.cluster.store.get("ConfigMap", "team", "x"), undefined);
  });
});
