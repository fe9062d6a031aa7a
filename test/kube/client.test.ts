// The HTTP KubeClient over real sockets: horizon up over HTTPS and plain HTTP, and a scripted
// node:http server for 429/Retry-After, 5xx, resets, refused connections, timeouts and watch
// streams cut into odd chunks.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import type * as http from "node:http";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  createKubeClient,
  describeRequest,
  type KubeClientOptions,
  type KubeTransportError,
  type RequestRecord,
  retryAfterMs,
  TokenBucket,
} from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/config.js";
import { apiErrorOf, type KubeMethod, type WatchEvent } from "../../src/kube/types.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import { json, plainConnection, tempDir, tinyServer } from "./net-helpers.js";

const FAST: KubeClientOptions = {
  qps: -1,
  retry: { maxRetries: 3, initialBackoffMs: 1, maxBackoffMs: 5 },
};

async function withServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void,
  test: (url: string, seen: string[]) => Promise<void>,
): Promise<void> {
  let n = 0;
  const server = await tinyServer((req, res) => handler(req, res, n++));
  try {
    await test(server.url, server.seen);
  } finally {
    await server.close();
  }
}

async function upClient(options: { insecureHttp?: boolean }) {
  const started = await startUp({ port: 0, controller: false, kubeconfigOut: null, ...options });
  assert.ok(started.ok, started.ok ? "" : started.error);
  const up: RunningUp = started.value;
  const file = join(tempDir(), "kubeconfig");
  writeFileSync(file, up.kubeconfig);
  const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
  assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
  const records: RequestRecord[] = [];
  const client = createKubeClient(loaded.value, { onRequest: (r) => records.push(r) });
  return {
    up,
    client,
    records,
    close: async () => {
      client.close();
      await up.close();
    },
  };
}

const HPA = {
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", namespace: "default" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      },
    ],
  },
};

describe("KubeClient against horizon up", () => {
  for (const transport of [
    { name: "HTTPS with its CA and token", insecureHttp: false },
    { name: "plain HTTP (insecure-skip-tls-verify)", insecureHttp: true },
  ]) {
    it(`${transport.name}: raw JSON create/get, errors as answers, requests counted`, async () => {
      const { client, records, close } = await upClient({ insecureHttp: transport.insecureHttp });
      try {
        const created = await client.request<typeof HPA>({
          method: "POST",
          path: "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
          body: HPA,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const got = await client.request<typeof HPA>({
          method: "GET",
          path: "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web",
        });
        assert.equal(got.status, 200);
        assert.deepEqual(got.body.spec.metrics, HPA.spec.metrics);
        assert.match(got.headers["content-type"] ?? "", /application\/json/);
        const missing = await client.request({
          method: "GET",
          path: "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/nope",
        });
        assert.equal(missing.status, 404);
        assert.equal(apiErrorOf(missing).reason, "NotFound");
        const listed = await client.request<{ items: unknown[] }>({
          method: "GET",
          path: "/apis/autoscaling/v2/horizontalpodautoscalers",
          query: { limit: 500, labelSelector: undefined },
        });
        assert.equal(listed.body.items.length, 1);
        assert.deepEqual(client.stats().byVerbResource, {
          "create horizontalpodautoscalers.autoscaling": 1,
          "get horizontalpodautoscalers.autoscaling": 2,
          "list horizontalpodautoscalers.autoscaling": 1,
        });
        assert.equal(records.length, 4);
        assert.deepEqual(
          records.map((r) => r.status),
          [201, 200, 404, 200],
        );
      } finally {
        await close();
      }
    });
  }

  it("watches a collection over HTTPS until aborted", async () => {
    const { client, close } = await upClient({});
    try {
      const abort = new AbortController();
      const seen: string[] = [];
      const watching = client.watch(
        {
          // Not default: it holds the kubernetes Service of the API server.
          path: "/api/v1/namespaces/kube-public/services",
          query: { resourceVersion: "0" },
          signal: abort.signal,
        },
        (event) => {
          seen.push(
            `${event.type} ${(event.object as { metadata: { name: string } }).metadata.name}`,
          );
          if (seen.length === 1) abort.abort();
        },
      );
      const created = await client.request({
        method: "POST",
        path: "/api/v1/namespaces/kube-public/services",
        body: { apiVersion: "v1", kind: "Service", metadata: { name: "settings" }, spec: {} },
      });
      assert.equal(created.status, 201);
      await watching;
      assert.deepEqual(seen, ["ADDED settings"]);
    } finally {
      await close();
    }
  });
});

describe("retries", () => {
  const cases: {
    name: string;
    method: KubeMethod;
    /** The server's answers in order: a status (with headers) or "reset". */
    answers: ({ status: number; headers?: Record<string, string> } | "reset")[];
    expect: { status?: number; errorCode?: string; requests: number };
  }[] = [
    {
      name: "GET: 503 without Retry-After is an answer at once (client-go's checkWait)",
      method: "GET",
      answers: [{ status: 503 }, { status: 200 }],
      expect: { status: 503, requests: 1 },
    },
    {
      name: "GET: 500, 502, 504 with Retry-After are retried",
      method: "GET",
      answers: [
        { status: 500, headers: { "retry-after": "0" } },
        { status: 502, headers: { "retry-after": "0" } },
        { status: 504, headers: { "retry-after": "0" } },
        { status: 200 },
      ],
      expect: { status: 200, requests: 4 },
    },
    {
      name: "GET: the last answer comes out after maxRetries",
      method: "GET",
      answers: [
        { status: 503, headers: { "retry-after": "0" } },
        { status: 503, headers: { "retry-after": "0" } },
        { status: 503, headers: { "retry-after": "0" } },
        { status: 503, headers: { "retry-after": "0" } },
        { status: 200 },
      ],
      expect: { status: 503, requests: 4 },
    },
    {
      name: "GET: 429 without Retry-After is an answer (client-go retries only when told when)",
      method: "GET",
      answers: [{ status: 429 }, { status: 200 }],
      expect: { status: 429, requests: 1 },
    },
    {
      name: "POST: 503 without Retry-After is not retried (the write may have happened)",
      method: "POST",
      answers: [{ status: 503 }, { status: 201 }],
      expect: { status: 503, requests: 1 },
    },
    {
      name: "POST: 503 with Retry-After is retried (the server asked, as client-go)",
      method: "POST",
      answers: [{ status: 503, headers: { "retry-after": "0" } }, { status: 201 }],
      expect: { status: 201, requests: 2 },
    },
    {
      name: "PUT: 429 is retried",
      method: "PUT",
      answers: [{ status: 429, headers: { "retry-after": "0" } }, { status: 200 }],
      expect: { status: 200, requests: 2 },
    },
    {
      name: "GET: 404 and 409 are answers, not retried",
      method: "GET",
      answers: [{ status: 404 }, { status: 200 }],
      expect: { status: 404, requests: 1 },
    },
    {
      name: "GET: a connection reset is retried",
      method: "GET",
      answers: ["reset", { status: 200 }],
      expect: { status: 200, requests: 2 },
    },
    {
      name: "PATCH: a connection reset is not retried (it may have been applied)",
      method: "PATCH",
      answers: ["reset", { status: 200 }],
      expect: { errorCode: "ECONNRESET", requests: 1 },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await withServer(
        (req, res, n) => {
          const answer = c.answers[Math.min(n, c.answers.length - 1)]!;
          req.resume();
          if (answer === "reset") {
            req.socket.destroy();
            return;
          }
          json(res, answer.status, { kind: "Status", code: answer.status }, answer.headers ?? {});
        },
        async (url, seen) => {
          const client = createKubeClient(plainConnection(url), FAST);
          try {
            const request = client.request({
              method: c.method,
              path: "/api/v1/namespaces/default/configmaps/x",
              ...(c.method === "GET" ? {} : { body: { kind: "ConfigMap" } }),
            });
            if (c.expect.errorCode) {
              await assert.rejects(request, (error: KubeTransportError) => {
                assert.equal(error.code, c.expect.errorCode);
                return true;
              });
            } else assert.equal((await request).status, c.expect.status);
            assert.equal(seen.length, c.expect.requests);
            assert.equal(client.stats().requests, c.expect.requests);
          } finally {
            client.close();
          }
        },
      );
    });
  }

  it("429 waits what Retry-After says", async () => {
    await withServer(
      (_req, res, n) =>
        n === 0 ? json(res, 429, { kind: "Status" }, { "retry-after": "1" }) : json(res, 200, {}),
      async (url) => {
        const client = createKubeClient(plainConnection(url), FAST);
        try {
          const started = performance.now();
          assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
          const elapsed = performance.now() - started;
          assert.ok(elapsed >= 950, `waited only ${elapsed} ms`);
          assert.equal(client.stats().retries, 1);
        } finally {
          client.close();
        }
      },
    );
  });

  it("a refused connection is retried for any method (nothing was sent), then fails", async () => {
    const server = await tinyServer(() => {});
    const url = server.url;
    await server.close();
    const records: RequestRecord[] = [];
    const client = createKubeClient(plainConnection(url), {
      ...FAST,
      onRequest: (r) => records.push(r),
    });
    try {
      await assert.rejects(
        client.request({ method: "POST", path: "/api/v1/namespaces/default/events", body: {} }),
        (error: KubeTransportError) => error.code === "ECONNREFUSED",
      );
      assert.deepEqual(
        records.map((r) => [r.verb, r.resource, r.status, r.attempt]),
        [
          ["create", "events", null, 0],
          ["create", "events", null, 1],
          ["create", "events", null, 2],
          ["create", "events", null, 3],
        ],
      );
    } finally {
      client.close();
    }
  });

  it("a request with no answer times out, and a GET is tried again", async () => {
    await withServer(
      (_req, res, n) => {
        if (n > 0) json(res, 200, { ok: true });
      },
      async (url, seen) => {
        const client = createKubeClient(plainConnection(url), { ...FAST, timeoutMs: 100 });
        try {
          assert.equal((await client.request({ method: "GET", path: "/api" })).status, 200);
          assert.equal(seen.length, 2);
        } finally {
          client.close();
        }
      },
    );
  });

  it("an abort ends a request without a retry", async () => {
    await withServer(
      () => {},
      async (url, seen) => {
        const client = createKubeClient(plainConnection(url), FAST);
        const abort = new AbortController();
        try {
          const request = client.request({ method: "GET", path: "/api", signal: abort.signal });
          const { pollUntil } = await import("./net-helpers.js");
          await pollUntil("the request to arrive", () => (seen.length === 1 ? true : undefined));
          abort.abort();
          await assert.rejects(request, { name: "AbortError" });
          assert.equal(seen.length, 1);
        } finally {
          client.close();
        }
      },
    );
  });
});

describe("TokenBucket (client-go's flowcontrol token bucket)", () => {
  const cases: {
    name: string;
    qps: number;
    burst: number;
    /** Reservations as [time ms, expected wait ms]. */
    steps: { at: number; wait: number }[];
  }[] = [
    {
      name: "a full bucket serves a burst at once, then one token per 1/qps",
      qps: 10,
      burst: 3,
      steps: [
        { at: 0, wait: 0 },
        { at: 0, wait: 0 },
        { at: 0, wait: 0 },
        { at: 0, wait: 100 },
        { at: 0, wait: 200 },
      ],
    },
    {
      name: "tokens refill with time, up to the burst",
      qps: 20,
      burst: 2,
      steps: [
        { at: 0, wait: 0 },
        { at: 0, wait: 0 },
        { at: 50, wait: 0 },
        { at: 50, wait: 50 },
        { at: 10_000, wait: 0 },
        { at: 10_000, wait: 0 },
        { at: 10_000, wait: 50 },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let now = 0;
      const bucket = new TokenBucket(c.qps, c.burst, () => now);
      for (const step of c.steps) {
        now = step.at;
        assert.ok(Math.abs(bucket.reserve() - step.wait) < 1e-6, `at ${step.at}`);
      }
    });
  }

  it("the client waits for tokens rather than failing", async () => {
    await withServer(
      (_req, res) => json(res, 200, {}),
      async (url) => {
        const client = createKubeClient(plainConnection(url), { qps: 50, burst: 2 });
        try {
          const started = performance.now();
          const answers = await Promise.all(
            Array.from({ length: 6 }, () => client.request({ method: "GET", path: "/api" })),
          );
          assert.deepEqual(
            answers.map((a) => a.status),
            [200, 200, 200, 200, 200, 200],
          );
          // 2 at once, then 4 more at 50/s: at least 80 ms in all.
          assert.ok(performance.now() - started >= 75);
          assert.ok(client.stats().throttledMs >= 75 + 60 + 40 + 20 - 5);
        } finally {
          client.close();
        }
      },
    );
  });
});

describe("watch streams", () => {
  const event = (type: string, name: string, rv: string) =>
    JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } });

  it("events split across chunks are put back together; the end of the stream resolves", async () => {
    const text = `${event("ADDED", "a", "1")}\n${event("MODIFIED", "a", "2")}\n${event("DELETED", "a", "3")}\n`;
    await withServer(
      (req, res) => {
        assert.match(req.url ?? "", /watch=true/);
        res.writeHead(200, { "content-type": "application/json" });
        // Odd cuts: mid-line, mid-escape, several lines in one chunk.
        const cuts = [7, 8, 40, 41, 90, text.length - 1];
        let from = 0;
        const next = () => {
          const to = cuts.shift() ?? text.length;
          res.write(text.slice(from, to));
          from = to;
          if (from < text.length) setImmediate(next);
          else res.end();
        };
        next();
      },
      async (url) => {
        const client = createKubeClient(plainConnection(url), FAST);
        const seen: string[] = [];
        try {
          await client.watch(
            { path: "/api/v1/pods", query: { resourceVersion: "0" } },
            (e: WatchEvent) =>
              seen.push(
                `${e.type} ${(e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`,
              ),
          );
          assert.deepEqual(seen, ["ADDED 1", "MODIFIED 2", "DELETED 3"]);
          assert.deepEqual(client.stats().byVerbResource, { "watch pods": 1 });
        } finally {
          client.close();
        }
      },
    );
  });

  it("a non-200 answer rejects with its status", async () => {
    await withServer(
      (_req, res) =>
        json(res, 410, {
          kind: "Status",
          code: 410,
          reason: "Expired",
          message: "too old resource version: 1 (5)",
        }),
      async (url) => {
        const client = createKubeClient(plainConnection(url), FAST);
        try {
          await assert.rejects(
            client.watch({ path: "/api/v1/pods" }, () => {}),
            (error: KubeTransportError) => {
              assert.equal(error.status, 410);
              assert.match(error.message, /too old resource version/);
              return true;
            },
          );
        } finally {
          client.close();
        }
      },
    );
  });

  it("a connection broken mid-stream rejects after the events it carried", async () => {
    await withServer(
      (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`${event("ADDED", "a", "1")}\n`);
        setImmediate(() => req.socket.destroy());
      },
      async (url) => {
        const client = createKubeClient(plainConnection(url), FAST);
        const seen: string[] = [];
        try {
          await assert.rejects(
            client.watch({ path: "/api/v1/pods" }, (e) => seen.push(e.type)),
            /the watch connection broke/,
          );
          assert.deepEqual(seen, ["ADDED"]);
        } finally {
          client.close();
        }
      },
    );
  });
});

describe("answer bodies", () => {
  // A long ASCII body is decoded as latin1 (an external string); any other byte decodes as UTF-8,
  // also with a multi-byte character cut between two chunks.
  for (const c of [
    { name: "a long ASCII body", text: "pod-".repeat(400_000) },
    { name: "a long body with multi-byte characters", text: `${"pod-".repeat(400_000)}é☃😀` },
    { name: "a short body with multi-byte characters", text: "é☃😀" },
  ]) {
    it(`${c.name} is read back exactly, in whatever chunks it comes`, async () => {
      const body = Buffer.from(JSON.stringify({ items: [c.text, c.text] }));
      await withServer(
        (_req, res) => {
          res.writeHead(200, { "content-type": "application/json" });
          // Chunks that cut the last (multi-byte) characters apart.
          res.write(body.subarray(0, body.length - 7));
          setTimeout(() => res.end(body.subarray(body.length - 7)), 5);
        },
        async (url) => {
          const client = createKubeClient(plainConnection(url), FAST);
          try {
            const answer = await client.request<{ items: string[] }>({ method: "GET", path: "/x" });
            assert.equal(answer.status, 200);
            assert.deepEqual(answer.body, { items: [c.text, c.text] });
          } finally {
            client.close();
          }
        },
      );
    });
  }
});

describe("request description and Retry-After", () => {
  const described: {
    name: string;
    method: KubeMethod;
    path: string;
    watch?: boolean;
    verb: string;
    resource: string;
  }[] = [
    {
      name: "namespaced list",
      method: "GET",
      path: "/api/v1/namespaces/ns/pods",
      verb: "list",
      resource: "pods",
    },
    {
      name: "cluster-wide list",
      method: "GET",
      path: "/api/v1/pods",
      verb: "list",
      resource: "pods",
    },
    {
      name: "watch",
      method: "GET",
      path: "/api/v1/pods",
      watch: true,
      verb: "watch",
      resource: "pods",
    },
    {
      name: "scale subresource",
      method: "GET",
      path: "/apis/apps/v1/namespaces/ns/deployments/web/scale",
      verb: "get",
      resource: "deployments.apps/scale",
    },
    {
      name: "status update",
      method: "PUT",
      path: "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/web/status",
      verb: "update",
      resource: "horizontalpodautoscalers.autoscaling/status",
    },
    {
      name: "event create",
      method: "POST",
      path: "/api/v1/namespaces/ns/events",
      verb: "create",
      resource: "events",
    },
    {
      name: "namespace get",
      method: "GET",
      path: "/api/v1/namespaces/ns",
      verb: "get",
      resource: "namespaces",
    },
    {
      name: "patch",
      method: "PATCH",
      path: "/apis/apps/v1/namespaces/ns/deployments/web/scale",
      verb: "patch",
      resource: "deployments.apps/scale",
    },
    {
      name: "delete collection",
      method: "DELETE",
      path: "/api/v1/namespaces/ns/pods",
      verb: "deletecollection",
      resource: "pods",
    },
    {
      name: "discovery",
      method: "GET",
      path: "/apis/autoscaling/v2",
      verb: "get",
      resource: "/apis/autoscaling/v2",
    },
    {
      name: "metrics API",
      method: "GET",
      path: "/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods",
      verb: "list",
      resource: "pods.metrics.k8s.io",
    },
  ];
  for (const c of described) {
    it(c.name, () => {
      assert.deepEqual(describeRequest(c.method, c.path, c.watch), {
        verb: c.verb,
        resource: c.resource,
      });
    });
  }

  const retryAfter: { name: string; header: string | undefined; ms: number | null }[] = [
    { name: "absent", header: undefined, ms: null },
    { name: "seconds", header: "3", ms: 3000 },
    { name: "an HTTP date", header: new Date(1_000_000 + 5000).toUTCString(), ms: 5000 },
    { name: "garbage", header: "soon", ms: null },
  ];
  for (const c of retryAfter) {
    it(`Retry-After: ${c.name}`, () => {
      const ms = retryAfterMs(c.header, 1_000_000);
      if (c.ms === null) assert.equal(ms, null);
      else assert.ok(ms !== null && Math.abs(ms - c.ms) < 1000);
    });
  }
});
