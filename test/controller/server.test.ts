// The observability endpoints over real HTTP on ephemeral ports: /metrics, /healthz, /readyz
// (transitions of the controller's readiness), /debug/decisions filtering, 405 and 404, and
// where /debug is (not) served.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DecisionStore } from "../../src/controller/decisions.js";
import { createLogger } from "../../src/controller/log.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import {
  advertisedDebugUrl,
  controllerReadiness,
  forgetHpa,
  ListenError,
  type RunningObservabilityServer,
  startObservabilityServer,
  syncObserver,
} from "../../src/controller/server.js";
import { syncReport } from "./sync-reports.js";

const loopback = { host: "127.0.0.1", port: 0 };

async function get(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe("one listener for metrics, health and debug", () => {
  const state = {
    synced: false,
    leading: false,
    healthy: true,
    electing: false,
    shuttingDown: false,
  };
  const metrics = new ControllerMetrics({ processMetrics: false });
  const decisions = new DecisionStore({ perHpa: 3 });
  const logLines: string[] = [];
  const observe = syncObserver({
    metrics,
    decisions,
    log: createLogger({ verbosity: 4, write: (line) => logLines.push(line) }),
  });
  let server: RunningObservabilityServer;
  let base = "";

  before(async () => {
    const readiness = controllerReadiness({
      informersSynced: () => state.synced,
      shuttingDown: () => state.shuttingDown,
    });
    const withElection = controllerReadiness({
      informersSynced: () => state.synced,
      leaderElection: () => ({ leading: state.leading, healthy: state.healthy }),
      shuttingDown: () => state.shuttingDown,
    });
    server = await startObservabilityServer({
      metricsAddress: loopback,
      debugAddress: loopback,
      metrics,
      decisions,
      readiness: Object.fromEntries(
        ["shutdown", "leader-election", "informer-sync"].map((name) => [
          name,
          () => {
            const checks = state.electing ? withElection : readiness;
            return checks[name] ? checks[name]() : true;
          },
        ]),
      ),
    });
    base = server.metricsUrl!;
    observe(syncReport({ namespace: "default", name: "web", replicas: 2, cpuPerPodMilli: 100 }));
    observe(syncReport({ namespace: "default", name: "web", replicas: 4, seconds: 30 }));
    observe(syncReport({ namespace: "default", name: "api", replicas: 2 }));
    observe(syncReport({ namespace: "shop", name: "web", replicas: 2 }));
  });
  after(() => server.close());

  it("serves /metrics in the Prometheus text format", async () => {
    const answer = await get(`${base}/metrics`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    assert.match(
      answer.body,
      /horizontal_pod_autoscaler_controller_reconciliations_total\{action="scale_up",error="none"\} 1\n/,
    );
    assert.match(
      answer.body,
      /horizontal_pod_autoscaler_controller_reconciliations_total\{action="none",error="none"\} 3\n/,
    );
    assert.equal(server.debugUrl, base);
  });

  it("HEAD answers without a body; other methods get 405", async () => {
    const head = await get(`${base}/metrics`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    for (const path of ["/metrics", "/healthz", "/readyz", "/debug/decisions"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const answer = await get(`${base}${path}`, { method });
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.headers.get("allow"), "GET, HEAD");
      }
    }
  });

  it("404 for anything else", async () => {
    for (const path of ["/", "/debug", "/debug/pprof", "/metricsx", "/debug/decisions/x"]) {
      assert.equal((await get(`${base}${path}`)).status, 404, path);
    }
  });

  it("/healthz: alive", async () => {
    assert.deepEqual(
      [(await get(`${base}/healthz`)).status, (await get(`${base}/healthz`)).body],
      [200, "ok"],
    );
  });

  // Upstream's healthz installs `ping` when no check is given, and reports exclusions.
  const healthzCases = [
    { query: "?verbose", body: "[+]ping ok\nhealthz check passed\n" },
    { query: "?verbose&exclude=ping", body: "[+]ping excluded: ok\nhealthz check passed\n" },
    {
      query: "?verbose&exclude=nope&exclude=etcd",
      body: '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "etcd","nope"\nhealthz check passed\n',
    },
    { query: "?exclude=nope", body: "ok" },
  ];
  for (const c of healthzCases) {
    it(`/healthz${c.query}: as upstream's healthz`, async () => {
      const answer = await get(`${base}/healthz${c.query}`);
      assert.deepEqual([answer.status, answer.body], [200, c.body]);
    });
  }

  it("/readyz follows the controller's state", async () => {
    const steps = [
      {
        name: "informers not synced",
        set: { synced: false, electing: false, shuttingDown: false },
        status: 500,
        includes: "[-]informer-sync failed: informers not synced",
      },
      { name: "synced", set: { synced: true }, status: 200, includes: "ok" },
      {
        name: "standby with a healthy elector (informers not started)",
        set: { electing: true, leading: false, healthy: true, synced: false },
        status: 200,
        includes: "ok",
      },
      {
        name: "standby that cannot reach the lease",
        set: { healthy: false },
        status: 500,
        includes: "[-]leader-election failed: cannot reach the lease",
      },
      {
        name: "new leader before its informers synced",
        set: { healthy: true, leading: true, synced: false },
        status: 500,
        includes: "[-]informer-sync failed",
      },
      { name: "leader, synced", set: { synced: true }, status: 200, includes: "ok" },
      {
        name: "shutting down",
        set: { shuttingDown: true },
        status: 500,
        includes: "[-]shutdown failed: shutting down",
      },
    ];
    for (const step of steps) {
      Object.assign(state, step.set);
      const answer = await get(`${base}/readyz`);
      assert.equal(answer.status, step.status, step.name);
      assert.ok(answer.body.includes(step.includes), `${step.name}: ${answer.body}`);
    }
    state.shuttingDown = false;
    const verbose = await get(`${base}/readyz?verbose`);
    assert.equal(verbose.status, 200);
    assert.equal(
      verbose.body,
      "[+]shutdown ok\n[+]leader-election ok\n[+]informer-sync ok\nreadyz check passed\n",
    );
    state.synced = false;
    const excluded = await get(`${base}/readyz?exclude=informer-sync`);
    assert.equal(excluded.status, 200);
  });

  it("/debug/decisions: all, by namespace, by name, limited", async () => {
    const all = JSON.parse((await get(`${base}/debug/decisions`)).body);
    assert.equal(all.schema, "horizon.dev/decisions/v1");
    assert.deepEqual(
      all.hpas.map((h: { namespace: string; name: string; decisions: unknown[] }) => [
        `${h.namespace}/${h.name}`,
        h.decisions.length,
      ]),
      [
        ["default/api", 1],
        ["default/web", 2],
        ["shop/web", 1],
      ],
    );
    const cases = [
      { name: "namespace", query: "?namespace=shop", expected: ["shop/web:1"] },
      {
        name: "namespace and name",
        query: "?namespace=default&name=web",
        expected: ["default/web:2"],
      },
      {
        name: "a name alone is looked up in default",
        query: "?name=web",
        expected: ["default/web:2"],
      },
      { name: "limit keeps the newest", query: "?name=web&limit=1", expected: ["default/web:1"] },
      { name: "unknown HPA", query: "?namespace=default&name=nope", expected: [] },
    ];
    for (const c of cases) {
      const answer = await get(`${base}/debug/decisions${c.query}`);
      assert.equal(answer.status, 200, c.name);
      assert.equal(answer.headers.get("content-type"), "application/json");
      const body = JSON.parse(answer.body);
      assert.deepEqual(
        body.hpas.map(
          (h: { namespace: string; name: string; decisions: unknown[] }) =>
            `${h.namespace}/${h.name}:${h.decisions.length}`,
        ),
        c.expected,
        c.name,
      );
    }
    const newest = JSON.parse((await get(`${base}/debug/decisions?name=web&limit=1`)).body);
    assert.equal(newest.hpas[0].decisions[0].trace.time, "2026-01-01T12:00:30Z");
    assert.equal((await get(`${base}/debug/decisions?limit=0`)).status, 400);
  });

  it("forgetting an HPA drops its traces", async () => {
    forgetHpa({ metrics, decisions }, { metadata: { namespace: "shop", name: "web" } });
    const body = JSON.parse((await get(`${base}/debug/decisions?namespace=shop`)).body);
    assert.deepEqual(body.hpas, []);
  });

  it("logged every sync as JSON lines", () => {
    const parsed = logLines.map((line) => JSON.parse(line));
    const rescaled = parsed.find((l) => l.msg === "Successfully rescaled");
    assert.ok(rescaled);
    assert.equal(rescaled.HPA, "default/web");
    assert.equal(rescaled.currentReplicas, 2);
    assert.equal(rescaled.desiredReplicas, 4);
    assert.ok(parsed.some((l) => l.msg === "Decided not to scale" && l.v === 4));
  });
});

describe("listeners", () => {
  const metrics = new ControllerMetrics({ processMetrics: false });
  const decisions = new DecisionStore();

  it("a separate debug listener serves only /debug; the metrics one not /debug", async () => {
    const server = await startObservabilityServer({
      metricsAddress: loopback,
      // Another loopback address (127.0.0.0/8 is all loopback on Linux).
      debugAddress: { host: "127.0.0.2", port: 0 },
      metrics,
      decisions,
    });
    try {
      assert.notEqual(server.metricsUrl, server.debugUrl);
      assert.equal((await get(`${server.metricsUrl}/debug/decisions`)).status, 404);
      assert.equal((await get(`${server.metricsUrl}/metrics`)).status, 200);
      assert.equal((await get(`${server.debugUrl}/debug/decisions`)).status, 200);
      assert.equal((await get(`${server.debugUrl}/metrics`)).status, 404);
      assert.equal((await get(`${server.debugUrl}/healthz`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it("without a debug address /debug is not served", async () => {
    const server = await startObservabilityServer({
      metricsAddress: loopback,
      debugAddress: null,
      metrics,
      decisions,
    });
    try {
      assert.equal(server.debugUrl, null);
      assert.equal((await get(`${server.metricsUrl}/debug/decisions`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it("refuses /debug on a non-loopback address unless allowed", async () => {
    await assert.rejects(
      startObservabilityServer({
        metricsAddress: null,
        debugAddress: { host: "0.0.0.0", port: 0 },
        metrics,
        decisions,
      }),
      /refusing to serve \/debug on 0\.0\.0\.0:0: not a loopback address/,
    );
    const server = await startObservabilityServer({
      metricsAddress: null,
      debugAddress: { host: "0.0.0.0", port: 0 },
      allowNonLoopbackDebug: true,
      metrics,
      decisions,
    });
    try {
      const port = new URL(server.debugUrl!).port;
      assert.equal((await get(`http://127.0.0.1:${port}/debug/decisions`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it("a port in use is an error, and nothing stays open", async () => {
    const first = await startObservabilityServer({
      metricsAddress: loopback,
      debugAddress: null,
      metrics,
      decisions,
    });
    try {
      const port = Number(new URL(first.metricsUrl!).port);
      await assert.rejects(
        startObservabilityServer({
          metricsAddress: { host: "127.0.0.1", port },
          debugAddress: null,
          metrics,
          decisions,
        }),
        (error: unknown) =>
          error instanceof ListenError &&
          error.flag === "--metrics-bind-address" &&
          /EADDRINUSE/.test(error.message),
      );
      // The /debug listener apart from /metrics: its own flag names the address in use.
      await assert.rejects(
        startObservabilityServer({
          metricsAddress: loopback,
          debugAddress: { host: "127.0.0.1", port },
          metrics,
          decisions,
        }),
        (error: unknown) =>
          error instanceof ListenError &&
          error.flag === "--debug-bind-address" &&
          /EADDRINUSE/.test(error.message),
      );
    } finally {
      await first.close();
    }
  });
});

describe("the metrics address's fallback (horizon up's default address)", () => {
  const metrics = new ControllerMetrics({ processMetrics: false });
  const decisions = new DecisionStore();

  it("a port in use: a free port of the same host, /debug still beside /metrics", async () => {
    const first = await startObservabilityServer({
      metricsAddress: loopback,
      debugAddress: null,
      metrics,
      decisions,
    });
    try {
      const busy = { host: "127.0.0.1", port: Number(new URL(first.metricsUrl!).port) };
      const second = await startObservabilityServer({
        metricsAddress: busy,
        debugAddress: busy,
        metricsAddressFallback: true,
        metrics,
        decisions,
      });
      try {
        assert.match(second.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.notEqual(second.metricsUrl, first.metricsUrl);
        assert.equal(second.debugUrl, second.metricsUrl);
        assert.equal((await get(`${second.debugUrl}/debug/decisions`)).status, 200);
        assert.equal((await get(`${second.metricsUrl}/metrics`)).status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });

  it("other bind errors are still errors", async () => {
    await assert.rejects(
      startObservabilityServer({
        // Not an address of this machine.
        metricsAddress: { host: "192.0.2.1", port: 0 },
        debugAddress: null,
        metricsAddressFallback: true,
        metrics,
        decisions,
      }),
      /EADDRNOTAVAIL/,
    );
  });
});

describe("advertisedDebugUrl", () => {
  const table = [
    {
      name: "loopback stays",
      url: "http://127.0.0.1:8085",
      podIp: "10.0.0.7",
      expected: "http://127.0.0.1:8085",
    },
    {
      name: "wildcard → pod IP",
      url: "http://0.0.0.0:8086",
      podIp: "10.0.0.7",
      expected: "http://10.0.0.7:8086",
    },
    {
      name: "IPv6 wildcard → pod IP",
      url: "http://[::]:8086",
      podIp: "fd00::7",
      expected: "http://[fd00::7]:8086",
    },
    {
      name: "wildcard without a pod IP",
      url: "http://0.0.0.0:8086",
      podIp: undefined,
      expected: "http://0.0.0.0:8086",
    },
  ];
  for (const c of table) {
    it(c.name, () => assert.equal(advertisedDebugUrl(c.url, c.podIp), c.expected));
  }
});
