// Authentication and authorization in process: TokenRequest (`kubectl create token`) and the
// service account tokens it issues (what authenticates, what is 401), RBAC enforced on every
// kind of endpoint with upstream's 403 Status, the admin token's full access, and the access,
// rules and self reviews (`kubectl auth can-i`, `can-i --list`, `whoami`).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, it } from "node:test";
import { decodeJwt } from "jose";
import {
  DEFAULT_ISSUER,
  persistentServiceAccountTokens,
  SERVICE_ACCOUNT_KEY_FILE,
  ServiceAccountTokens,
} from "../../src/apiserver/auth/tokens.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;
const ADMIN = "admin-token";
const RBAC = "rbac.authorization.k8s.io";
const BOT = "system:serviceaccount:team:bot";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster, token: ADMIN });
  const call = async (
    token: string | null,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> => {
    const parsed = new URL(url, "http://x");
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    if (body !== undefined) {
      req.body = Buffer.from(JSON.stringify(body));
      headers["content-type"] = "application/json";
    }
    const res: ApiResponse = await handler(req);
    if ("stream" in res) {
      res.close();
      return { status: res.status, body: null };
    }
    if ("raw" in res) return { status: res.status, body: res.raw.toString() };
    return { status: res.status, body: JSON.parse(JSON.stringify(res.body)) };
  };
  const admin = (method: string, url: string, body?: unknown) => call(ADMIN, method, url, body);
  const issue = async (account: string, spec: Record<string, unknown> = {}) => {
    const res = await admin("POST", `/api/v1/namespaces/team/serviceaccounts/${account}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.status.token as string;
  };
  return { cluster, call, admin, issue };
}

type Setup = ReturnType<typeof setup>;

async function withTeam(): Promise<Setup> {
  const s = setup();
  const ns = await s.admin("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team" },
  });
  assert.equal(ns.status, 201);
  const sa = await s.admin("POST", "/api/v1/namespaces/team/serviceaccounts", {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "bot" },
  });
  assert.equal(sa.status, 201);
  return s;
}

describe("TokenRequest", () => {
  it("issues a signed JWT with upstream's claims and the defaults filled in", async () => {
    const s = await withTeam();
    const res = await s.admin("POST", "/api/v1/namespaces/team/serviceaccounts/bot/token", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    });
    assert.equal(res.status, 201);
    const uid = s.cluster.store.get("ServiceAccount", "team", "bot")!.metadata.uid;
    const now = Math.floor(s.cluster.now / 1000);
    assert.deepEqual(
      { ...res.body, status: { ...res.body.status, token: "…" } },
      {
        kind: "TokenRequest",
        apiVersion: "authentication.k8s.io/v1",
        metadata: { name: "bot", namespace: "team", creationTimestamp: null },
        spec: { audiences: [DEFAULT_ISSUER], expirationSeconds: 3600, boundObjectRef: null },
        status: {
          token: "…",
          expirationTimestamp: new Date((now + 3600) * 1000).toISOString().replace(".000", ""),
        },
      },
    );
    const claims = decodeJwt(res.body.status.token);
    assert.deepEqual(
      { ...claims, jti: typeof claims.jti },
      {
        aud: [DEFAULT_ISSUER],
        exp: now + 3600,
        iat: now,
        nbf: now,
        iss: DEFAULT_ISSUER,
        jti: "string",
        sub: BOT,
        "kubernetes.io": { namespace: "team", serviceaccount: { name: "bot", uid } },
      },
    );
  });

  it("the default ServiceAccount of a new namespace can have tokens", async () => {
    const s = await withTeam();
    const token = await s.issue("default", { expirationSeconds: 600 });
    const who = await s.call(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    assert.equal(who.status, 201);
    assert.equal(who.body.status.userInfo.username, "system:serviceaccount:team:default");
  });

  const errors: {
    name: string;
    method?: string;
    account?: string;
    spec?: Record<string, unknown>;
    status: number;
    message: string;
  }[] = [
    {
      name: "an account that does not exist",
      account: "nope",
      status: 404,
      message: 'serviceaccounts "nope" not found',
    },
    {
      name: "less than ten minutes",
      spec: { expirationSeconds: 60 },
      status: 422,
      message:
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    },
    {
      name: "more than 2^32 seconds",
      spec: { expirationSeconds: 2 ** 32 + 1 },
      status: 422,
      message:
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    },
    {
      name: "bound to a kind tokens cannot be bound to",
      spec: { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "c" } },
      status: 400,
      message: "cannot bind token to object of type /v1, Kind=ConfigMap",
    },
    {
      name: "bound to a pod that does not exist",
      spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p" } },
      status: 404,
      message: 'pods "p" not found',
    },
    {
      name: "GET is not served",
      method: "GET",
      status: 405,
      message: "the server does not allow this method on the requested resource",
    },
  ];
  for (const c of errors) {
    it(`refuses: ${c.name}`, async () => {
      const s = await withTeam();
      const res = await s.admin(
        c.method ?? "POST",
        `/api/v1/namespaces/team/serviceaccounts/${c.account ?? "bot"}/token`,
        c.method === "GET" ? undefined : { spec: c.spec ?? {} },
      );
      assert.equal(res.status, c.status);
      assert.equal(res.body.kind, "Status");
      assert.equal(res.body.message, c.message);
    });
  }
});

describe("service account tokens authenticate while they are valid", () => {
  const whoami = (s: Setup, token: string) =>
    s.call(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {});

  it("as the account, in its groups", async () => {
    const s = await withTeam();
    const res = await whoami(s, await s.issue("bot"));
    assert.equal(res.status, 201);
    const uid = s.cluster.store.get("ServiceAccount", "team", "bot")!.metadata.uid;
    assert.deepEqual(
      { ...res.body.status.userInfo, extra: Object.keys(res.body.status.userInfo.extra) },
      {
        username: BOT,
        uid,
        groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
        extra: ["authentication.kubernetes.io/credential-id"],
      },
    );
  });

  const unauthorized: { name: string; token: (s: Setup) => Promise<string> }[] = [
    {
      name: "expired",
      async token(s) {
        const token = await s.issue("bot", { expirationSeconds: 600 });
        s.cluster.now += 601_000;
        return token;
      },
    },
    {
      name: "signed by another key",
      async token(s) {
        const uid = s.cluster.store.get("ServiceAccount", "team", "bot")!.metadata.uid ?? "";
        const other = ServiceAccountTokens.generate();
        const forged = await other.issue({
          namespace: "team",
          serviceAccount: { name: "bot", uid },
          audiences: [DEFAULT_ISSUER],
          expirationSeconds: 3600,
          now: s.cluster.now,
        });
        return forged.token;
      },
    },
    {
      name: "a claim changed after signing",
      async token(s) {
        const [header, payload, signature] = (await s.issue("bot")).split(".");
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
        claims.sub = "system:serviceaccount:kube-system:default";
        const changed = Buffer.from(JSON.stringify(claims)).toString("base64url");
        return `${header}.${changed}.${signature}`;
      },
    },
    {
      name: "for another audience",
      token: (s) => s.issue("bot", { audiences: ["vault"] }),
    },
    {
      name: "its account deleted",
      async token(s) {
        const token = await s.issue("bot");
        const res = await s.admin("DELETE", "/api/v1/namespaces/team/serviceaccounts/bot");
        assert.equal(res.status, 200);
        return token;
      },
    },
    {
      name: "its account deleted and made again (another uid)",
      async token(s) {
        const token = await s.issue("bot");
        await s.admin("DELETE", "/api/v1/namespaces/team/serviceaccounts/bot");
        const again = await s.admin("POST", "/api/v1/namespaces/team/serviceaccounts", {
          metadata: { name: "bot" },
        });
        assert.equal(again.status, 201);
        return token;
      },
    },
    {
      name: "its bound Secret deleted",
      async token(s) {
        const secret = await s.admin("POST", "/api/v1/namespaces/team/secrets", {
          metadata: { name: "holder" },
        });
        assert.equal(secret.status, 201);
        const token = await s.issue("bot", {
          boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "holder" },
        });
        assert.equal((await whoami(s, token)).status, 201, "valid while the Secret exists");
        await s.admin("DELETE", "/api/v1/namespaces/team/secrets/holder");
        return token;
      },
    },
    { name: "not a JWT", token: async () => "not-a-token" },
  ];
  for (const c of unauthorized) {
    it(`401: ${c.name}`, async () => {
      const s = await withTeam();
      const res = await whoami(s, await c.token(s));
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    });
  }
});

describe("RBAC on every endpoint for a service account's token", () => {
  let s: Setup;
  let token: string;
  beforeEach(async () => {
    s = await withTeam();
    token = await s.issue("bot");
  });

  const denied: {
    name: string;
    method: string;
    path: string;
    message: string;
    details: Record<string, string>;
  }[] = [
    {
      name: "list",
      method: "GET",
      path: "/api/v1/namespaces/team/pods",
      message: `pods is forbidden: User "${BOT}" cannot list resource "pods" in API group "" in the namespace "team"`,
      details: { kind: "pods" },
    },
    {
      name: "watch",
      method: "GET",
      path: "/apis/apps/v1/namespaces/team/deployments?watch=1",
      message: `deployments.apps is forbidden: User "${BOT}" cannot watch resource "deployments" in API group "apps" in the namespace "team"`,
      details: { group: "apps", kind: "deployments" },
    },
    {
      name: "get of one object",
      method: "GET",
      path: "/api/v1/namespaces/team/serviceaccounts/bot",
      message: `serviceaccounts "bot" is forbidden: User "${BOT}" cannot get resource "serviceaccounts" in API group "" in the namespace "team"`,
      details: { name: "bot", kind: "serviceaccounts" },
    },
    {
      name: "a scale subresource",
      method: "PUT",
      path: "/apis/apps/v1/namespaces/team/deployments/web/scale",
      message: `deployments.apps "web" is forbidden: User "${BOT}" cannot update resource "deployments/scale" in API group "apps" in the namespace "team"`,
      details: { name: "web", group: "apps", kind: "deployments" },
    },
    {
      name: "pods/log",
      method: "GET",
      path: "/api/v1/namespaces/team/pods/p/log",
      message: `pods "p" is forbidden: User "${BOT}" cannot get resource "pods/log" in API group "" in the namespace "team"`,
      details: { name: "p", kind: "pods" },
    },
    {
      name: "deletecollection",
      method: "DELETE",
      path: "/api/v1/namespaces/team/configmaps",
      message: `configmaps is forbidden: User "${BOT}" cannot deletecollection resource "configmaps" in API group "" in the namespace "team"`,
      details: { kind: "configmaps" },
    },
    {
      name: "cluster-scoped create",
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      message: `clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "${BOT}" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope`,
      details: { group: RBAC, kind: "clusterrolebindings" },
    },
    {
      name: "a TokenRequest for another account",
      method: "POST",
      path: "/api/v1/namespaces/team/serviceaccounts/default/token",
      message: `serviceaccounts "default" is forbidden: User "${BOT}" cannot create resource "serviceaccounts/token" in API group "" in the namespace "team"`,
      details: { name: "default", kind: "serviceaccounts" },
    },
    {
      name: "the resource metrics API",
      method: "GET",
      path: "/apis/metrics.k8s.io/v1beta1/namespaces/team/pods",
      message: `pods.metrics.k8s.io is forbidden: User "${BOT}" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "team"`,
      details: { group: "metrics.k8s.io", kind: "pods" },
    },
    {
      name: "the custom metrics API",
      method: "GET",
      path: "/apis/custom.metrics.k8s.io/v1beta2/namespaces/team/pods/*/rps",
      message: `pods.custom.metrics.k8s.io "*" is forbidden: User "${BOT}" cannot get resource "pods/rps" in API group "custom.metrics.k8s.io" in the namespace "team"`,
      details: { name: "*", group: "custom.metrics.k8s.io", kind: "pods" },
    },
    {
      name: "a custom resource",
      method: "GET",
      path: "/apis/example.com/v1/namespaces/team/widgets",
      message: `widgets.example.com is forbidden: User "${BOT}" cannot list resource "widgets" in API group "example.com" in the namespace "team"`,
      details: { group: "example.com", kind: "widgets" },
    },
    {
      name: "a non-resource path",
      method: "GET",
      path: "/prometheus/sd/endpoints",
      message: `forbidden: User "${BOT}" cannot get path "/prometheus/sd/endpoints"`,
      details: {},
    },
  ];
  for (const c of denied) {
    it(`403: ${c.name}`, async () => {
      const res = await s.call(token, c.method, c.path, c.method === "GET" ? undefined : {});
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: c.message,
        reason: "Forbidden",
        details: c.details,
        code: 403,
      });
    });
  }

  it("discovery is every authenticated user's, until its binding goes", async () => {
    assert.equal((await s.call(token, "GET", "/apis")).status, 200);
    assert.equal((await s.call(token, "GET", "/version")).status, 200);
    const removed = await s.admin(
      "DELETE",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:discovery",
    );
    assert.equal(removed.status, 200);
    const res = await s.call(token, "GET", "/apis");
    assert.equal(res.status, 403);
    assert.equal(res.body.message, `forbidden: User "${BOT}" cannot get path "/apis"`);
    // system:public-info-viewer still has /version.
    assert.equal((await s.call(token, "GET", "/version")).status, 200);
  });

  it("a RoleBinding of view allows reads in its namespace only", async () => {
    const bound = await s.admin(
      "POST",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
      {
        metadata: { name: "bot-view" },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "ServiceAccount", name: "bot", namespace: "team" }],
      },
    );
    assert.equal(bound.status, 201);
    assert.equal((await s.call(token, "GET", "/api/v1/namespaces/team/pods")).status, 200);
    assert.equal(
      (await s.call(token, "GET", "/api/v1/namespaces/team/pods?watch=true")).status,
      200,
    );
    assert.equal((await s.call(token, "GET", "/api/v1/namespaces/default/pods")).status, 403);
    assert.equal((await s.call(token, "GET", "/api/v1/namespaces/team/secrets")).status, 403);
    const write = await s.call(token, "POST", "/api/v1/namespaces/team/configmaps", {
      metadata: { name: "c" },
    });
    assert.equal(write.status, 403);
  });

  it("the admin token keeps full access", async () => {
    assert.equal((await s.admin("GET", "/api/v1/pods")).status, 200);
    assert.equal((await s.admin("GET", "/prometheus/sd/endpoints")).status, 200);
    // Even with the bootstrap bindings gone (system:masters is not asked of RBAC).
    await s.admin("DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin");
    assert.equal((await s.admin("GET", "/api/v1/namespaces/team/secrets")).status, 200);
  });
});

describe("access and rules reviews", () => {
  const access = (s: Setup, token: string, spec: unknown) =>
    s.call(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec,
    });

  it("answers for the token's user: allowed with the binding as reason, or not", async () => {
    const s = await withTeam();
    const token = await s.issue("bot");
    await s.admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "bot-edit" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    });
    const cases = [
      {
        name: "a resource allowed",
        spec: {
          resourceAttributes: {
            namespace: "team",
            verb: "update",
            group: "apps",
            resource: "deployments",
            subresource: "scale",
          },
        },
        status: {
          allowed: true,
          reason:
            'RBAC: allowed by RoleBinding "bot-edit/team" of ClusterRole "edit" to ServiceAccount "bot/team"',
        },
      },
      {
        name: "another namespace",
        spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "pods" } },
        status: { allowed: false },
      },
      {
        name: "a path allowed",
        spec: { nonResourceAttributes: { path: "/apis", verb: "get" } },
        status: {
          allowed: true,
          reason:
            'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
        },
      },
    ];
    for (const c of cases) {
      const res = await access(s, token, c.spec);
      assert.equal(res.status, 201, c.name);
      assert.deepEqual(
        res.body,
        {
          kind: "SelfSubjectAccessReview",
          apiVersion: "authorization.k8s.io/v1",
          metadata: { creationTimestamp: null },
          spec: c.spec,
          status: c.status,
        },
        c.name,
      );
    }
    const admin = await access(s, ADMIN, {
      resourceAttributes: { verb: "delete", resource: "nodes" },
    });
    assert.deepEqual(admin.body.status, { allowed: true });
  });

  it("a review with neither or both kinds of attributes is invalid", async () => {
    const s = await withTeam();
    const neither = await access(s, ADMIN, {});
    assert.equal(neither.status, 422);
    assert.equal(
      neither.body.message,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const both = await access(s, ADMIN, {
      resourceAttributes: { verb: "get", resource: "pods" },
      nonResourceAttributes: { verb: "get", path: "/api" },
    });
    assert.equal(both.status, 422);
    assert.match(
      both.body.message,
      /spec\.nonResourceAttributes: Invalid value: .*cannot be specified in combination with resourceAttributes/,
    );
  });

  it("the rules review lists the user's rules in the namespace", async () => {
    const s = await withTeam();
    const token = await s.issue("bot");
    await s.admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", {
      metadata: { name: "cm" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["c"], verbs: ["get"] }],
    });
    await s.admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
      metadata: { name: "cm" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "cm" },
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    });
    const review = (namespace: string) =>
      s.call(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
        spec: { namespace },
      });
    const team = await review("team");
    assert.equal(team.status, 201);
    assert.equal(team.body.kind, "SelfSubjectRulesReview");
    assert.equal(team.body.status.incomplete, false);
    assert.deepEqual(team.body.status.resourceRules.at(-1), {
      verbs: ["get"],
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["c"],
    });
    assert.ok(
      team.body.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) =>
        r.nonResourceURLs.includes("/apis/*"),
      ),
    );
    const other = await review("default");
    assert.equal(other.body.status.resourceRules.length, team.body.status.resourceRules.length - 1);
  });
});

describe("the signing key in a data directory", () => {
  it("is made once (0600) and read back: tokens outlive a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-sa-key-"));
    try {
      const first = await persistentServiceAccountTokens(dir);
      assert.ok(first.ok);
      const file = join(dir, SERVICE_ACCOUNT_KEY_FILE);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const issued = await first.value.issue({
        namespace: "team",
        serviceAccount: { name: "bot", uid: "u-1" },
        audiences: [DEFAULT_ISSUER],
        expirationSeconds: 600,
        now: T0,
      });
      const second = await persistentServiceAccountTokens(dir);
      assert.ok(second.ok);
      const account = {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "bot", namespace: "team", uid: "u-1" },
      };
      const lookup = (kind: string, ns: string, name: string) =>
        kind === "ServiceAccount" && ns === "team" && name === "bot" ? account : undefined;
      const user = await second.value.authenticate(issued.token, T0 + 1000, lookup);
      assert.equal(user?.name, BOT);
      const other = await ServiceAccountTokens.generate().authenticate(issued.token, T0, lookup);
      assert.equal(other, null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("privilege escalation prevention", () => {
  const GROUPS = '["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]';
  async function writer(extra: Record<string, unknown>[] = []) {
    const s = await withTeam();
    const token = await s.issue("bot");
    const role = await s.admin("POST", `/apis/${RBAC}/v1/namespaces/team/roles`, {
      metadata: { name: "rbac-writer" },
      rules: [
        {
          apiGroups: [RBAC],
          resources: ["roles", "rolebindings"],
          verbs: ["create", "update", "get"],
        },
        { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
        ...extra,
      ],
    });
    assert.equal(role.status, 201, JSON.stringify(role.body));
    const bound = await s.admin("POST", `/apis/${RBAC}/v1/namespaces/team/rolebindings`, {
      metadata: { name: "rbac-writer" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "rbac-writer" },
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    });
    assert.equal(bound.status, 201);
    const post = (resource: string, body: unknown) =>
      s.call(token, "POST", `/apis/${RBAC}/v1/namespaces/team/${resource}`, body);
    return { s, token, post };
  }

  it("a Role with rules the user holds is created", async () => {
    const { post } = await writer();
    const res = await post("roles", {
      metadata: { name: "pod-reader" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });

  it("a Role with rules the user does not hold is 403, listing them as upstream", async () => {
    const { s, post } = await writer();
    const res = await post("roles", {
      metadata: { name: "grab" },
      rules: [
        { apiGroups: [""], resources: ["secrets", "pods"], verbs: ["get", "list"] },
        { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["update"] },
      ],
    });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `roles.rbac.authorization.k8s.io "grab" is forbidden: user "${BOT}" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}\n{APIGroups:["apps"], Resources:["deployments/scale"], Verbs:["update"]}`,
      reason: "Forbidden",
      details: { name: "grab", group: RBAC, kind: "roles" },
      code: 403,
    });
    assert.equal(s.cluster.store.get("Role", "team", "grab"), undefined, "nothing stored");
  });

  it("a binding to a role whose rules the user does not hold is 403; to one they hold, 201", async () => {
    const { post } = await writer();
    const edit = await post("rolebindings", {
      metadata: { name: "self-edit" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    });
    assert.equal(edit.status, 403);
    assert.match(
      edit.body.message,
      /^rolebindings\.rbac\.authorization\.k8s\.io "self-edit" is forbidden: user "system:serviceaccount:team:bot" \(groups=.*\) is attempting to grant RBAC permissions not currently held:\n(.*\n)*\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\[.*"create".*\]\}/,
    );
    assert.doesNotMatch(edit.body.message, /Resources:\["pods"\], Verbs:\["get" "list"/);
    const reader = await post("roles", {
      metadata: { name: "pod-reader" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }],
    });
    assert.equal(reader.status, 201);
    const ok = await post("rolebindings", {
      metadata: { name: "default-reads" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "ServiceAccount", name: "default" }],
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  it("the bind and escalate verbs let the user grant more than they hold", async () => {
    const { post } = await writer([
      { apiGroups: [RBAC], resources: ["clusterroles"], resourceNames: ["edit"], verbs: ["bind"] },
      { apiGroups: [RBAC], resources: ["roles"], verbs: ["escalate"] },
    ]);
    const bound = await post("rolebindings", {
      metadata: { name: "default-edit" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "ServiceAccount", name: "default" }],
    });
    assert.equal(bound.status, 201, JSON.stringify(bound.body));
    const viewBinding = await post("rolebindings", {
      metadata: { name: "default-admin" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "admin" },
      subjects: [{ kind: "ServiceAccount", name: "default" }],
    });
    assert.equal(viewBinding.status, 403, "bind names edit only");
    const escalated = await post("roles", {
      metadata: { name: "secrets" },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
    });
    assert.equal(escalated.status, 201, JSON.stringify(escalated.body));
  });

  it("an update that grants nothing new (a label) needs no more than update", async () => {
    const { s, token } = await writer();
    await s.admin("POST", `/apis/${RBAC}/v1/namespaces/team/roles`, {
      metadata: { name: "secrets" },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
    });
    const current = s.cluster.store.get("Role", "team", "secrets")!;
    const path = `/apis/${RBAC}/v1/namespaces/team/roles/secrets`;
    const labelled = await s.call(token, "PUT", path, {
      ...current,
      metadata: { ...current.metadata, labels: { team: "a" } },
    });
    assert.equal(labelled.status, 200, JSON.stringify(labelled.body));
    const latest = s.cluster.store.get("Role", "team", "secrets")!;
    const widened = await s.call(token, "PUT", path, {
      ...latest,
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list"] }],
    });
    assert.equal(widened.status, 403);
  });
});

describe("discovery of the auth APIs", () => {
  it("lists the review resources and serviceaccounts/token (TokenRequest)", async () => {
    const s = setup();
    const authz = await s.admin("GET", "/apis/authorization.k8s.io/v1");
    assert.equal(authz.status, 200);
    assert.deepEqual(authz.body.resources, [
      {
        name: "selfsubjectaccessreviews",
        singularName: "selfsubjectaccessreview",
        namespaced: false,
        kind: "SelfSubjectAccessReview",
        verbs: ["create"],
      },
      {
        name: "selfsubjectrulesreviews",
        singularName: "selfsubjectrulesreview",
        namespaced: false,
        kind: "SelfSubjectRulesReview",
        verbs: ["create"],
      },
    ]);
    const authn = await s.admin("GET", "/apis/authentication.k8s.io");
    assert.deepEqual(
      authn.body.versions.map((v: { version: string }) => v.version),
      ["v1", "v1beta1"],
    );
    const core = await s.admin("GET", "/api/v1");
    const token = core.body.resources.find(
      (r: { name: string }) => r.name === "serviceaccounts/token",
    );
    assert.deepEqual(token, {
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
  });

  it("the bootstrap policy is there from the start, with its aggregated roles filled in", () => {
    const { cluster } = setup();
    const names = cluster.store.list("ClusterRole").map((r) => r.metadata.name);
    for (const name of [
      "cluster-admin",
      "admin",
      "edit",
      "view",
      "system:discovery",
      "system:basic-user",
      "system:public-info-viewer",
    ]) {
      assert.ok(names.includes(name), name);
    }
    const view = cluster.store.get("ClusterRole", "", "view")!;
    assert.ok(Array.isArray(view.rules) && view.rules.length > 0, "view aggregated");
    assert.ok(
      cluster.store.get("Role", "kube-system", "extension-apiserver-authentication-reader"),
    );
    const bindings = cluster.store.list("ClusterRoleBinding").map((b) => b.metadata.name);
    assert.deepEqual(bindings.sort(), [
      "cluster-admin",
      "system:basic-user",
      "system:discovery",
      "system:public-info-viewer",
    ]);
  });
});
