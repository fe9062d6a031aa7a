// What an unauthenticated client may read: kube-apiserver's anonymous user and the
// system:public-info-viewer role (GET /version, /healthz, /livez, /readyz); everything else,
// and any request with a bad token, gets 401.
import assert from "node:assert/strict";
import https from "node:https";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { startUp } from "../../src/up/up.js";
import { scenario, T0 } from "../cluster/builders.js";

const TOKEN = "s3cret";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster, token: TOKEN });
  return (method: string, url: string, headers: Record<string, string> = {}) => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers };
    return handler(req);
  };
}

function text(res: ApiResponse): string {
  if ("raw" in res) return res.raw.toString();
  if ("body" in res) return JSON.stringify(res.body);
  return "<stream>";
}

const UNAUTHORIZED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

describe("anonymous requests", () => {
  const cases: {
    name: string;
    method?: string;
    path: string;
    headers?: Record<string, string>;
    status: number;
    body?: RegExp;
  }[] = [
    { name: "GET /version", path: "/version", status: 200, body: /"minor":"37"/ },
    { name: "GET /healthz", path: "/healthz", status: 200, body: /^ok$/ },
    { name: "GET /livez", path: "/livez", status: 200, body: /^ok$/ },
    { name: "GET /readyz", path: "/readyz", status: 200, body: /^ok$/ },
    {
      name: "GET /readyz?verbose",
      path: "/readyz?verbose",
      status: 200,
      body: /^\[\+\]ping ok\n(\[\+\]\w+ ok\n)*readyz check passed\n$/,
    },
    { name: "a single check is not public", path: "/healthz/ping", status: 401 },
    { name: "discovery is not public", path: "/api", status: 401 },
    { name: "resources are not public", path: "/api/v1/namespaces", status: 401 },
    { name: "OpenAPI is not public", path: "/openapi/v2", status: 401 },
    { name: "only GET is public", method: "POST", path: "/version", status: 401 },
    {
      name: "a bad token on a public path is still rejected",
      path: "/healthz",
      headers: { authorization: "Bearer nope" },
      status: 401,
    },
    {
      name: "an empty Authorization header is a bad credential",
      path: "/version",
      headers: { authorization: "" },
      status: 401,
    },
    {
      name: "the right token reads health",
      path: "/livez",
      headers: { authorization: `Bearer ${TOKEN}` },
      status: 200,
      body: /^ok$/,
    },
    {
      name: "the right token reads a single check",
      path: "/healthz/etcd",
      headers: { authorization: `Bearer ${TOKEN}` },
      status: 200,
      body: /^ok$/,
    },
    {
      name: "the right token reads resources",
      path: "/api/v1/namespaces/default",
      headers: { authorization: `Bearer ${TOKEN}` },
      status: 200,
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const call = setup();
      const res = await call(tc.method ?? "GET", tc.path, tc.headers ?? {});
      assert.equal(res.status, tc.status, text(res));
      if (tc.status === 401) {
        assert.ok("body" in res);
        assert.deepEqual(res.body, UNAUTHORIZED);
      }
      if (tc.body) assert.match(text(res), tc.body);
    });
  }

  it("health answers are text/plain", async () => {
    const res = await setup()("GET", "/healthz");
    assert.equal(res.headers?.["content-type"], "text/plain; charset=utf-8");
  });
});

describe("over HTTPS (horizon up)", () => {
  it("serves /version and /healthz without a token, 401 elsewhere", async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    try {
      const get = (path: string, token?: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = https.get(
            `${up.url}${path}`,
            {
              ca: up.caCert ?? undefined,
              headers: token ? { authorization: `Bearer ${token}` } : {},
            },
            (res) => {
              let body = "";
              res.setEncoding("utf8").on("data", (c: string) => {
                body += c;
              });
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            },
          );
          req.on("error", reject);
        });
      const version = await get("/version");
      assert.equal(version.status, 200);
      // The default Kubernetes version (src/api/versions.ts).
      assert.equal(JSON.parse(version.body).minor, "37");
      assert.deepEqual(await get("/healthz"), { status: 200, body: "ok" });
      assert.equal((await get("/api/v1/pods")).status, 401);
      assert.equal((await get("/api/v1/pods", up.token ?? "")).status, 200);
    } finally {
      await up.close();
    }
  });
});
