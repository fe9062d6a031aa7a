// The pod store: pods stripped to PodViews on arrival, indexed by namespace and label, answers
// equal to a brute-force filter (fast-check), the same array until a matching pod changes, and
// the informer end to end against horizon up.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseSelector, type Selector, selectorMatches } from "../../src/api/selector.js";
import type { PodView } from "../../src/core/pods.js";
import { createKubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/config.js";
import { PodIndex, PodInformer } from "../../src/kube/pods.js";
import { startUp } from "../../src/up/up.js";
import { pollUntil, tempDir } from "./net-helpers.js";

function selector(text: string): Selector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.selector;
}

function view(
  name: string,
  labels: Record<string, string>,
  phase: PodView["phase"] = "Running",
): PodView {
  return {
    name,
    labels,
    phase,
    deleting: false,
    startTime: 0,
    ready: { status: "True", lastTransitionTime: 0 },
    containers: [],
    restartableInitContainers: [],
    podRequests: null,
  };
}

describe("PodIndex", () => {
  const pods: { namespace: string; name: string; labels: Record<string, string> }[] = [
    { namespace: "a", name: "web-1", labels: { app: "web", tier: "front" } },
    { namespace: "a", name: "web-2", labels: { app: "web", tier: "back" } },
    { namespace: "a", name: "db-1", labels: { app: "db" } },
    { namespace: "b", name: "web-1", labels: { app: "web", tier: "front" } },
    { namespace: "b", name: "bare", labels: {} },
  ];
  const cases: { name: string; namespace: string; selector: string; expect: string[] }[] = [
    {
      name: "equality in one namespace only",
      namespace: "a",
      selector: "app=web",
      expect: ["web-1", "web-2"],
    },
    { name: "two equalities", namespace: "a", selector: "app=web,tier=back", expect: ["web-2"] },
    {
      name: "set membership",
      namespace: "a",
      selector: "app in (web,db)",
      expect: ["db-1", "web-1", "web-2"],
    },
    {
      name: "inequality (no anchor: scans the namespace)",
      namespace: "a",
      selector: "app!=web",
      expect: ["db-1"],
    },
    { name: "not in", namespace: "a", selector: "tier notin (front)", expect: ["db-1", "web-2"] },
    { name: "exists", namespace: "a", selector: "tier", expect: ["web-1", "web-2"] },
    { name: "does not exist", namespace: "b", selector: "!app", expect: ["bare"] },
    {
      name: "empty selector selects every pod of the namespace",
      namespace: "b",
      selector: "",
      expect: ["bare", "web-1"],
    },
    { name: "no such label value", namespace: "a", selector: "app=cache", expect: [] },
    { name: "no such namespace", namespace: "zzz", selector: "app=web", expect: [] },
  ];
  const index = new PodIndex();
  for (const p of pods) index.set(p.namespace, p.name, view(p.name, p.labels));
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(
        index.listPods(c.namespace, selector(c.selector)).map((p) => p.name),
        c.expect,
      );
    });
  }

  it("answers are the same array until a pod matching the selector changes", () => {
    const idx = new PodIndex();
    idx.set("a", "web-1", view("web-1", { app: "web" }));
    idx.set("a", "db-1", view("db-1", { app: "db" }));
    const web = selector("app=web");
    const notDb = selector("app!=db");
    const first = idx.listPods("a", web);
    const firstNotDb = idx.listPods("a", notDb);
    assert.equal(idx.listPods("a", web), first);
    // A db pod changes: neither before nor after does it match app=web.
    idx.set("a", "db-1", view("db-1", { app: "db" }, "Failed"));
    idx.set("a", "db-2", view("db-2", { app: "db" }));
    idx.set("b", "web-9", view("web-9", { app: "web" }));
    assert.equal(idx.listPods("a", web), first);
    assert.equal(idx.listPods("a", notDb), firstNotDb);
    // A pod that starts matching, one that stops matching, one that goes.
    idx.set("a", "db-2", view("db-2", { app: "web" }));
    const second = idx.listPods("a", web);
    assert.notEqual(second, first);
    assert.deepEqual(
      second.map((p) => p.name),
      ["db-2", "web-1"],
    );
    assert.notEqual(idx.listPods("a", notDb), firstNotDb);
    idx.set("a", "web-1", null);
    assert.deepEqual(
      idx.listPods("a", web).map((p) => p.name),
      ["db-2"],
    );
    assert.equal(idx.size, 3);
  });

  it("property: listPods equals a brute-force filter, and keeps its array while no matching pod changes", () => {
    const keys = ["app", "tier", "track"];
    const values = ["a", "b", "c"];
    const labelsArb = fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), {
      maxKeys: 3,
    });
    const requirementArb = fc.oneof(
      fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...values)).map(([k, v]) => `${k}=${v}`),
      fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...values)).map(([k, v]) => `${k}!=${v}`),
      fc
        .tuple(
          fc.constantFrom(...keys),
          fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 2 }),
        )
        .map(([k, vs]) => `${k} in (${vs.join(",")})`),
      fc
        .tuple(
          fc.constantFrom(...keys),
          fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 2 }),
        )
        .map(([k, vs]) => `${k} notin (${vs.join(",")})`),
      fc.constantFrom(...keys),
      fc.constantFrom(...keys).map((k) => `!${k}`),
    );
    const selectorArb = fc
      .uniqueArray(requirementArb, { maxLength: 3, selector: (r) => r.replace(/[!=\s].*$/, "") })
      .map((rs) => rs.join(","));
    const opArb = fc.record({
      namespace: fc.constantFrom("n1", "n2"),
      name: fc.constantFrom("p1", "p2", "p3", "p4", "p5", "p6"),
      labels: fc.option(labelsArb, { nil: null }),
    });
    const stepArb = fc.oneof(
      opArb.map((op) => ({ kind: "set" as const, ...op })),
      fc
        .record({ namespace: fc.constantFrom("n1", "n2"), selector: selectorArb })
        .map((q) => ({ kind: "query" as const, ...q })),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
        const idx = new PodIndex();
        const truth = new Map<string, Map<string, Record<string, string>>>();
        const last = new Map<string, { pods: readonly PodView[]; dirty: boolean }>();
        for (const step of steps) {
          if (step.kind === "set") {
            const before = truth.get(step.namespace)?.get(step.name) ?? null;
            // Mark the remembered answers this change can touch.
            for (const [key, entry] of last) {
              const [ns, text] = key.split("\u0000") as [string, string];
              if (ns !== step.namespace) continue;
              const sel = selector(text);
              if (
                (before && selectorMatches(sel, before)) ||
                (step.labels && selectorMatches(sel, step.labels))
              ) {
                entry.dirty = true;
              }
            }
            let inNs = truth.get(step.namespace);
            if (!inNs) {
              inNs = new Map();
              truth.set(step.namespace, inNs);
            }
            if (step.labels) inNs.set(step.name, step.labels);
            else inNs.delete(step.name);
            idx.set(step.namespace, step.name, step.labels ? view(step.name, step.labels) : null);
            continue;
          }
          const sel = selector(step.selector);
          const answer = idx.listPods(step.namespace, sel);
          const expected = [
            ...(truth.get(step.namespace) ?? new Map<string, Record<string, string>>()),
          ]
            .filter(([, labels]) => selectorMatches(sel, labels))
            .map(([name]) => name)
            .sort();
          assert.deepEqual(
            answer.map((p) => p.name),
            expected,
          );
          const key = `${step.namespace}\u0000${sel.text}`;
          const previous = last.get(key);
          if (previous && !previous.dirty)
            assert.equal(answer, previous.pods, "unchanged answer, same array");
          last.set(key, { pods: answer, dirty: false });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("PodInformer against horizon up", () => {
  it("keeps pods stripped to PodViews, indexed, and follows their changes", async () => {
    const started = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(started.ok, started.ok ? "" : started.error);
    const up = started.value;
    const file = `${tempDir()}/kubeconfig`;
    writeFileSync(file, up.kubeconfig);
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error);
    const client = createKubeClient(loaded.value, { qps: -1 });
    const pod = (
      name: string,
      labels: Record<string, string>,
      extra: Record<string, unknown> = {},
    ) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default", labels },
      spec: {
        containers: [
          { name: "app", image: "x", resources: { requests: { cpu: "250m", memory: "64Mi" } } },
        ],
        initContainers: [
          {
            name: "sidecar",
            image: "x",
            restartPolicy: "Always",
            resources: { requests: { cpu: "100m" } },
          },
          { name: "init", image: "x", resources: { requests: { cpu: "1" } } },
        ],
        ...extra,
      },
    });
    const informer = new PodInformer({ client, backoff: { initialMs: 10, maxMs: 50, jitter: 0 } });
    try {
      const created = await client.request({
        method: "POST",
        path: "/api/v1/namespaces/default/pods",
        body: pod("web-1", { app: "web" }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      informer.start();
      assert.equal(await informer.waitForSync(), true);
      const web = selector("app=web");
      const first = informer.listPods("default", web);
      assert.equal(first.length, 1);
      const [stripped] = first;
      assert.equal(stripped!.name, "web-1");
      assert.deepEqual(stripped!.labels, { app: "web" });
      assert.deepEqual(stripped!.containers, [
        { name: "app", requests: { cpu: 250, memory: 64 * 1024 * 1024 * 1000 } },
      ]);
      assert.deepEqual(stripped!.restartableInitContainers, [
        { name: "sidecar", requests: { cpu: 100 } },
      ]);
      assert.equal(stripped!.deleting, false);
      assert.equal(
        Object.keys(stripped!).sort().join(),
        [
          "containers",
          "deleting",
          "labels",
          "name",
          "phase",
          "podRequests",
          "ready",
          "restartableInitContainers",
          "startTime",
        ].join(),
      );

      const other = await client.request({
        method: "POST",
        path: "/api/v1/namespaces/default/pods",
        body: pod("db-1", { app: "db" }),
      });
      assert.equal(other.status, 201);
      await pollUntil("db-1", () => (informer.size === 2 ? true : undefined));
      assert.equal(
        informer.listPods("default", web),
        first,
        "a pod of another app leaves the answer alone",
      );

      await client.request({
        method: "POST",
        path: "/api/v1/namespaces/default/pods",
        body: pod("web-2", { app: "web" }),
      });
      await pollUntil("web-2", () =>
        informer.listPods("default", web).length === 2 ? true : undefined,
      );
      assert.notEqual(informer.listPods("default", web), first);
      assert.equal(informer.listPods("kube-system", web).length, 0);
    } finally {
      await informer.stop();
      client.close();
      await up.close();
    }
  });
});
