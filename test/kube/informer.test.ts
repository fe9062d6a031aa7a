// The lean informer over real sockets: paginated list + watch against horizon up (resume after
// the server ends a watch, relist after a restart from the same --data-dir), and a scripted
// server for 410 on watch, stalled watches, bookmarks, expired continue tokens and list errors.
import assert from "node:assert/strict";
import type * as http from "node:http";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { createKubeClient, type RequestRecord } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/config.js";
import { HpaInformer } from "../../src/kube/hpas.js";
import { Informer, type RawObject } from "../../src/kube/informer.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import { inProcessClient } from "./harness.js";
import { json, plainConnection, pollUntil, tempDir, tinyServer } from "./net-helpers.js";

const FAST_BACKOFF = { initialMs: 10, maxMs: 50, jitter: 0 };
const FAST_CLIENT = { qps: -1, retry: { maxRetries: 1, initialBackoffMs: 5, maxBackoffMs: 10 } };

// kube-public: default holds the kubernetes Service of the API server.
function service(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "kube-public" },
    spec: {},
  } as KubeObject;
}

async function clientFor(up: RunningUp, records?: RequestRecord[]) {
  const dir = tempDir();
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${dir}/kubeconfig`, up.kubeconfig);
  const loaded = await loadKubeConfig({ kubeconfig: `${dir}/kubeconfig`, env: {} });
  assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
  return createKubeClient(loaded.value, {
    ...FAST_CLIENT,
    ...(records ? { onRequest: (r: RequestRecord) => records.push(r) } : {}),
  });
}

const names = (informer: Informer<string>) => [...informer.list()].sort();

describe("informer against horizon up", () => {
  it("lists page by page, then follows the watch; list() is the same array until a change", async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    for (const name of ["a", "b", "c", "d", "e"]) up.cluster.store.create(service(name));
    const records: RequestRecord[] = [];
    const client = await clientFor(up, records);
    const transformed: string[] = [];
    const informer = new Informer<string>({
      client,
      path: "/api/v1/namespaces/kube-public/services",
      pageSize: 2,
      transform: (o: RawObject) => {
        transformed.push(o.metadata!.name!);
        return o.metadata!.name!;
      },
      backoff: FAST_BACKOFF,
    });
    const changes: string[] = [];
    informer.subscribe((key, value, previous) =>
      changes.push(`${key} ${previous ?? "-"}→${value ?? "-"}`),
    );
    try {
      informer.start();
      assert.equal(await informer.waitForSync(), true);
      assert.deepEqual(names(informer), ["a", "b", "c", "d", "e"]);
      assert.equal(records.filter((r) => r.verb === "list").length, 3, "5 objects in pages of 2");
      const first = informer.list();
      assert.equal(informer.list(), first, "no change: the same array");
      assert.ok(Object.isFrozen(first));
      assert.equal(informer.get("kube-public/c"), "c");

      up.cluster.store.create(service("f"));
      up.cluster.store.delete("Service", "kube-public", "a");
      await pollUntil("f added and a deleted", () =>
        names(informer).join() === "b,c,d,e,f" ? true : undefined,
      );
      assert.notEqual(informer.list(), first);
      assert.deepEqual(changes.slice(-2), ["kube-public/f -→f", "kube-public/a a→-"]);
      assert.deepEqual(
        transformed.sort(),
        ["a", "b", "c", "d", "e", "f"],
        "one transform per change",
      );
    } finally {
      await informer.stop();
      client.close();
      await up.close();
    }
  });

  it("resumes from its resourceVersion when the server ends the watch (timeoutSeconds)", async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    up.cluster.store.create(service("a"));
    const records: RequestRecord[] = [];
    const client = await clientFor(up, records);
    const informer = new Informer<string>({
      client,
      path: "/api/v1/namespaces/kube-public/services",
      transform: (o) => o.metadata!.name!,
      watchTimeoutSeconds: 1,
      backoff: FAST_BACKOFF,
    });
    try {
      informer.start();
      await informer.waitForSync();
      await pollUntil("a second watch", () => (informer.stats().watches >= 2 ? true : undefined), {
        timeoutMs: 5000,
      });
      up.cluster.store.create(service("b"));
      await pollUntil("b", () => (names(informer).join() === "a,b" ? true : undefined));
      assert.equal(informer.stats().lists, 1, "resumed, never relisted");
      assert.equal(records.filter((r) => r.verb === "list").length, 1);
    } finally {
      await informer.stop();
      client.close();
      await up.close();
    }
  });

  const restarts: {
    name: string;
    /** Changes the informer does not watch (another namespace) before the restart. */
    unwatchedChanges: boolean;
    expect: { lists: number; relists: number };
  }[] = [
    {
      name: "resumes from its resourceVersion after the server restarts from its --data-dir",
      unwatchedChanges: false,
      expect: { lists: 1, relists: 0 },
    },
    {
      name: "relists (410) when its resourceVersion is older than what the restarted server keeps",
      unwatchedChanges: true,
      expect: { lists: 2, relists: 1 },
    },
  ];
  for (const c of restarts) {
    it(`${c.name}, and ends with the right set`, async () => {
      const dataDir = tempDir();
      const options = { controller: false, kubeconfigOut: null, insecureHttp: true, dataDir };
      const first = await startUp({ port: 0, ...options });
      assert.ok(first.ok, first.ok ? "" : first.error);
      let up = first.value;
      up.cluster.store.create(service("a"));
      up.cluster.store.create(service("b"));
      const client = await clientFor(up);
      const errors: string[] = [];
      const informer = new Informer<string>({
        client,
        path: "/api/v1/namespaces/kube-public/services",
        transform: (o) => o.metadata!.name!,
        backoff: FAST_BACKOFF,
        onError: (e) => errors.push(e),
      });
      try {
        informer.start();
        await informer.waitForSync();
        assert.deepEqual(names(informer), ["a", "b"]);
        if (c.unwatchedChanges) {
          up.cluster.store.create({
            ...service("elsewhere"),
            metadata: { name: "x", namespace: "other" },
          } as KubeObject);
        }
        const port = up.port;
        await up.close();
        await pollUntil("the informer to notice", () => (errors.length > 0 ? true : undefined));
        const second = await startUp({ port, ...options });
        assert.ok(second.ok, second.ok ? "" : second.error);
        up = second.value;
        // Changed before the informer is back (in this tick): it must catch up on both.
        up.cluster.store.delete("Service", "kube-public", "a");
        up.cluster.store.create(service("c"));
        await pollUntil("b and c", () => (names(informer).join() === "b,c" ? true : undefined), {
          timeoutMs: 10_000,
        });
        const stats = informer.stats();
        assert.equal(stats.lists, c.expect.lists, JSON.stringify(stats));
        assert.equal(stats.relists, c.expect.relists, JSON.stringify(stats));
      } finally {
        await informer.stop();
        client.close();
        await up.close();
      }
    });
  }

  it("HpaInformer: raw autoscaling/v2 objects (unknown fields kept), label selector, HpaSource", async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    const client = await clientFor(up);
    const hpa = (name: string, labels: Record<string, string>) => ({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name, namespace: "default", labels },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
        maxReplicas: 3,
        behavior: { scaleUp: { stabilizationWindowSeconds: 0 } },
      },
    });
    for (const [name, labels] of [
      ["mine", { horizon: "yes" }],
      ["theirs", {}],
    ] as const) {
      const created = await client.request({
        method: "POST",
        path: "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        body: hpa(name, labels),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const source = new HpaInformer({ client, labelSelector: "horizon=yes", backoff: FAST_BACKOFF });
    const seen: string[] = [];
    source.subscribe((key, value) => seen.push(`${key} ${value ? "set" : "gone"}`));
    try {
      source.start();
      await source.waitForSync();
      const listed = source.list();
      assert.deepEqual(
        listed.map((h) => h.metadata.name),
        ["mine"],
      );
      assert.equal(listed[0]!.kind, "HorizontalPodAutoscaler");
      assert.equal(listed[0]!.apiVersion, "autoscaling/v2");
      assert.equal(listed[0]!.metadata.managedFields, undefined);
      assert.equal(listed[0]!.spec.behavior?.scaleUp?.stabilizationWindowSeconds, 0);
      const deleted = await client.request({
        method: "DELETE",
        path: "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/mine",
      });
      assert.equal(deleted.status, 200);
      await pollUntil("mine gone", () => (source.list().length === 0 ? true : undefined));
      assert.deepEqual(seen, ["default/mine set", "default/mine gone"]);
    } finally {
      await source.stop();
      client.close();
      await up.close();
    }
  });
});

/** A scripted API server: `list` answers LIST requests, `watch` each WATCH (n = 0, 1, ...). */
async function scripted(script: {
  list: (query: URLSearchParams, n: number, res: http.ServerResponse) => void;
  watch: (query: URLSearchParams, n: number, res: http.ServerResponse) => void;
}) {
  let lists = 0;
  let watches = 0;
  const watchQueries: URLSearchParams[] = [];
  const open = new Set<http.ServerResponse>();
  const server = await tinyServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.searchParams.get("watch") === "true") {
      watchQueries.push(url.searchParams);
      open.add(res);
      res.on("close", () => open.delete(res));
      script.watch(url.searchParams, watches++, res);
    } else script.list(url.searchParams, lists++, res);
  });
  return {
    server,
    watchQueries,
    get lists() {
      return lists;
    },
    close: async () => {
      for (const res of open) res.destroy();
      await server.close();
    },
  };
}

const pod = (name: string, rv: string) => ({
  metadata: { name, namespace: "ns", resourceVersion: rv },
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;
function startStream(res: http.ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.flushHeaders();
}

describe("informer against a scripted server", () => {
  async function run(
    script: Parameters<typeof scripted>[0],
    options: Partial<ConstructorParameters<typeof Informer<string>>[0]>,
    check: (
      informer: Informer<string>,
      fake: Awaited<ReturnType<typeof scripted>>,
    ) => Promise<void>,
  ) {
    const fake = await scripted(script);
    const client = createKubeClient(plainConnection(fake.server.url), FAST_CLIENT);
    const informer = new Informer<string>({
      client,
      path: "/api/v1/pods",
      transform: (o) => o.metadata!.name!,
      backoff: FAST_BACKOFF,
      ...options,
    });
    try {
      informer.start();
      await check(informer, fake);
    } finally {
      await informer.stop();
      client.close();
      await fake.close();
    }
  }

  it("an ERROR event with 410 Expired relists, and deletions seen by the relist are delivered", async () => {
    const deleted: string[] = [];
    await run(
      {
        list: (_q, n, res) =>
          json(res, 200, {
            metadata: { resourceVersion: n === 0 ? "5" : "9" },
            items: n === 0 ? [pod("a", "4"), pod("b", "5")] : [pod("b", "5"), pod("c", "8")],
          }),
        watch: (_q, n, res) => {
          startStream(res);
          if (n === 0) {
            res.end(
              line("ERROR", {
                kind: "Status",
                code: 410,
                reason: "Expired",
                message: "too old resource version",
              }),
            );
          }
        },
      },
      {},
      async (informer, fake) => {
        informer.subscribe((key, value) => {
          if (value === null) deleted.push(key);
        });
        await pollUntil("relisted", () =>
          fake.lists === 2 && informer.list().join() === "b,c" ? true : undefined,
        );
        assert.deepEqual(deleted, ["ns/a"]);
        assert.equal(informer.stats().relists, 1);
        await pollUntil("the second watch", () =>
          fake.watchQueries.length === 2 ? true : undefined,
        );
        assert.equal(fake.watchQueries[1]!.get("resourceVersion"), "9");
      },
    );
  });

  it("a 410 answer to the watch request relists", async () => {
    await run(
      {
        list: (_q, n, res) =>
          json(res, 200, {
            metadata: { resourceVersion: String(10 + n) },
            items: [pod(`p${n}`, "1")],
          }),
        watch: (_q, n, res) => {
          if (n === 0)
            json(res, 410, { kind: "Status", code: 410, reason: "Expired", message: "too old" });
          else startStream(res);
        },
      },
      {},
      async (informer, fake) => {
        await pollUntil("relisted", () => (informer.list().join() === "p1" ? true : undefined));
        assert.equal(fake.lists, 2);
      },
    );
  });

  it("a watch with no event or bookmark for stallTimeoutMs is restarted from the same resourceVersion", async () => {
    await run(
      {
        list: (_q, _n, res) =>
          json(res, 200, { metadata: { resourceVersion: "7" }, items: [pod("a", "7")] }),
        watch: (_q, n, res) => {
          startStream(res);
          // The first watch says nothing, ever; the second delivers.
          if (n === 1) res.write(line("ADDED", pod("b", "8")));
        },
      },
      { stallTimeoutMs: 150 },
      async (informer, fake) => {
        await pollUntil("b", () => (informer.list().join() === "a,b" ? true : undefined), {
          timeoutMs: 5000,
        });
        assert.equal(informer.stats().stalls, 1);
        assert.equal(fake.lists, 1, "a stall resumes, it does not relist");
        assert.equal(fake.watchQueries[0]!.get("resourceVersion"), "7");
        assert.equal(fake.watchQueries[1]!.get("resourceVersion"), "7");
        assert.equal(fake.watchQueries[0]!.get("allowWatchBookmarks"), "true");
        assert.ok(Number(fake.watchQueries[0]!.get("timeoutSeconds")) >= 300);
        assert.ok(Number(fake.watchQueries[0]!.get("timeoutSeconds")) < 600);
      },
    );
  });

  it("bookmarks move the resourceVersion a resumed watch starts from", async () => {
    await run(
      {
        list: (_q, _n, res) => json(res, 200, { metadata: { resourceVersion: "3" }, items: [] }),
        watch: (_q, n, res) => {
          startStream(res);
          if (n === 0) {
            res.write(line("ADDED", pod("a", "4")));
            res.end(line("BOOKMARK", { kind: "Pod", metadata: { resourceVersion: "12" } }));
          }
        },
      },
      {},
      async (informer, fake) => {
        await pollUntil("the second watch", () =>
          fake.watchQueries.length === 2 ? true : undefined,
        );
        assert.equal(fake.watchQueries[1]!.get("resourceVersion"), "12");
        assert.equal(informer.resourceVersion(), "12");
        assert.deepEqual(informer.list(), ["a"]);
      },
    );
  });

  it("an expired continue token falls back to one full list; list errors are retried with backoff", async () => {
    const errors: string[] = [];
    const queries: string[] = [];
    await run(
      {
        list: (q, n, res) => {
          queries.push(`limit=${q.get("limit") ?? ""} continue=${q.get("continue") ?? ""}`);
          // Twice: the client's own retry (maxRetries 1) gives up, the informer backs off.
          if (n <= 1) return json(res, 500, { kind: "Status", code: 500, message: "etcd is sad" });
          if (n === 2)
            return json(res, 200, {
              metadata: { resourceVersion: "5", continue: "tok" },
              items: [pod("a", "1")],
            });
          if (n === 3)
            return json(res, 410, {
              kind: "Status",
              code: 410,
              reason: "Expired",
              message: "continue expired",
            });
          json(res, 200, {
            metadata: { resourceVersion: "6" },
            items: [pod("a", "1"), pod("b", "2")],
          });
        },
        watch: (_q, _n, res) => startStream(res),
      },
      { onError: (e) => errors.push(e) },
      async (informer) => {
        assert.equal(await informer.waitForSync(), true);
        assert.deepEqual([...informer.list()].sort(), ["a", "b"]);
        assert.match(errors[0] ?? "", /etcd is sad/);
        assert.deepEqual(queries.slice(-3), [
          "limit=500 continue=",
          "limit=500 continue=tok",
          "limit= continue=",
        ]);
      },
    );
  });

  it("a relist at the same resourceVersions transforms nothing again", async () => {
    let transforms = 0;
    await run(
      {
        list: (_q, n, res) =>
          json(res, 200, {
            metadata: { resourceVersion: String(5 + n) },
            items: [pod("a", "1"), pod("b", "2")],
          }),
        watch: (_q, n, res) => {
          startStream(res);
          if (n === 0) res.end(line("ERROR", { kind: "Status", code: 410, reason: "Gone" }));
        },
      },
      {
        transform: (o) => {
          transforms++;
          return o.metadata!.name!;
        },
      },
      async (informer, fake) => {
        await pollUntil("relisted", () =>
          fake.lists === 2 && fake.watchQueries.length === 2 ? true : undefined,
        );
        assert.equal(transforms, 2);
        assert.equal(informer.list().length, 2);
      },
    );
  });
});

describe("stop", () => {
  it("right after the first LIST ends at once, not when the watch times out", async () => {
    const { cluster, client } = inProcessClient();
    cluster.store.create(service("a"));
    const informer = new Informer<string>({
      client,
      path: "/api/v1/namespaces/kube-public/services",
      transform: (o) => o.metadata!.name!,
      watchTimeoutSeconds: 300,
      backoff: FAST_BACKOFF,
    });
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    const started = performance.now();
    await informer.stop();
    assert.ok(performance.now() - started < 2000, "stopped within 2 s");
    assert.deepEqual(informer.list(), ["a"]);
  });
});
