// The bounded store of recent decision traces: per-HPA and global caps, oldest first out,
// filters; a fast-check model test over random record/forget sequences.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  DECISIONS_SCHEMA,
  type DecisionRecord,
  DecisionStore,
  decisionRecordOf,
} from "../../src/controller/decisions.js";
import { DECISION_TRACE_VERSION } from "../../src/core/trace.js";
import { syncReport } from "./sync-reports.js";

let serial = 0;
/** A minimal record: its trace names the HPA and carries a serial number in `time`. */
function record(namespace: string, name: string): DecisionRecord {
  serial++;
  return {
    trace: {
      version: DECISION_TRACE_VERSION,
      hpa: { namespace, name },
      time: String(serial),
      scale: { specReplicas: 1, statusReplicas: 1 },
      branch: "metrics",
      minReplicas: 1,
      maxReplicas: 10,
      currentReplicas: 1,
      metrics: [],
      recommendation: null,
      desiredReplicas: 1,
      rescale: false,
      outcome: "unchanged",
    },
    conditions: [],
    events: [],
    error: null,
  };
}

const times = (records: DecisionRecord[]) => records.map((r) => Number(r.trace.time));

describe("DecisionStore", () => {
  const table = [
    {
      name: "keeps the last perHpa records of one HPA, oldest first",
      options: { perHpa: 3, maxRecords: 100 },
      ops: ["a", "a", "a", "a", "a"],
      expected: { "default/a": [2, 3, 4] },
    },
    {
      name: "drops the oldest records overall beyond maxRecords",
      options: { perHpa: 10, maxRecords: 3 },
      ops: ["a", "b", "a", "c", "b"],
      expected: { "default/a": [2], "default/b": [4], "default/c": [3] },
    },
    {
      name: "an HPA whose records all aged out disappears",
      options: { perHpa: 10, maxRecords: 2 },
      ops: ["a", "b", "c"],
      expected: { "default/b": [1], "default/c": [2] },
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const store = new DecisionStore(c.options);
      c.ops.forEach((name, i) => {
        const r = record("default", name);
        r.trace.time = String(i);
        store.record(r);
      });
      const got = Object.fromEntries(
        store.list().map((h) => [`${h.namespace}/${h.name}`, times(h.decisions)]),
      );
      assert.deepEqual(got, c.expected);
      assert.equal(
        store.size,
        Object.values(c.expected).reduce((n, l) => n + l.length, 0),
      );
    });
  }

  it("filters by namespace and name, sorts, limits, and forgets", () => {
    const store = new DecisionStore();
    for (const [ns, name] of [
      ["shop", "web"],
      ["default", "web"],
      ["default", "api"],
      ["default", "web"],
    ] as const) {
      store.record(record(ns, name));
    }
    assert.deepEqual(
      store.list().map((h) => `${h.namespace}/${h.name}:${h.decisions.length}`),
      ["default/api:1", "default/web:2", "shop/web:1"],
    );
    assert.deepEqual(
      store.list({ namespace: "default" }).map((h) => h.name),
      ["api", "web"],
    );
    assert.deepEqual(
      store.list({ name: "web" }).map((h) => h.namespace),
      ["default", "shop"],
    );
    const limited = store.list({ namespace: "default", name: "web", limit: 1 });
    assert.equal(limited.length, 1);
    assert.deepEqual(limited[0]!.decisions, store.get("default", "web").slice(1));
    const document = JSON.parse(store.documentJson({ namespace: "nope" }));
    assert.deepEqual(document, {
      schema: DECISIONS_SCHEMA,
      perHpa: 10,
      maxRecords: 10_000,
      hpas: [],
    });
    store.forget("default", "web");
    assert.deepEqual(store.get("default", "web"), []);
    assert.equal(store.size, 2);
  });

  it("keeps each record as its JSON: reads and the document give back what was recorded", () => {
    const store = new DecisionStore();
    const web = [record("shop", "web"), record("shop", "web")];
    web[1]!.statusError = "conflict";
    const api = record("default", "api");
    for (const r of [web[0]!, api, web[1]!]) store.record(r);
    // A record changed after it was stored does not change what was stored.
    web[0]!.error = "changed later";
    const asJson = (r: DecisionRecord) => JSON.parse(JSON.stringify(r)) as DecisionRecord;
    const stored = [{ ...asJson(web[0]!), error: null }, asJson(web[1]!)];
    assert.deepEqual(store.get("shop", "web"), stored);
    assert.deepEqual(JSON.parse(store.documentJson()), {
      schema: DECISIONS_SCHEMA,
      perHpa: 10,
      maxRecords: 10_000,
      hpas: [
        { namespace: "default", name: "api", decisions: [asJson(api)] },
        { namespace: "shop", name: "web", decisions: stored },
      ],
    });
    assert.deepEqual(JSON.parse(store.documentJson({ name: "web", limit: 1 })).hpas, [
      { namespace: "shop", name: "web", decisions: [stored[1]] },
    ]);
    // A caller's JSON of the record is stored as given (the controller makes it once per sync).
    const named = record("default", "named");
    store.record(named, JSON.stringify({ ...named, durationMs: 7 }));
    assert.equal(store.get("default", "named")[0]!.durationMs, 7);
    assert.equal(store.size, 4);
  });

  it("restores held records (a restarted controller's history) and says who leads", () => {
    const store = new DecisionStore({ perHpa: 2, maxRecords: 3 });
    const held = [record("shop", "web"), record("shop", "api"), record("shop", "web")];
    for (const r of held) {
      const json = JSON.stringify(r);
      store.restore(r.trace.hpa.namespace, r.trace.hpa.name, { decisionJson: () => json });
    }
    store.record(record("shop", "web"));
    // The caps apply as to recorded syncs: web keeps 2, 3 overall (api's is the oldest left).
    assert.deepEqual(times(store.get("shop", "web")), times([held[2]!]).concat(serial));
    assert.deepEqual(times(store.get("shop", "api")), times([held[1]!]));
    const leader = {
      lease: "kube-system/horizon-controller",
      leading: false,
      holderIdentity: "pod-a_1",
      debugAddress: "http://127.0.0.1:8087",
    };
    const document = JSON.parse(store.documentJson({ name: "api", namespace: "shop" }, leader));
    assert.deepEqual(Object.keys(document), ["schema", "perHpa", "maxRecords", "leader", "hpas"]);
    assert.deepEqual(document.leader, leader);
    assert.equal("leader" in JSON.parse(store.documentJson()), false);
  });

  it("records a controller sync: trace, conditions, events, errors, duration", () => {
    const report = syncReport({ replicas: 2, cpuPerPodMilli: 100, statusError: "conflict" });
    const stored = decisionRecordOf(report.result!, {
      statusError: report.statusError ?? null,
      durationMs: 4,
    });
    assert.equal(stored.trace, report.result!.trace);
    assert.deepEqual(
      stored.conditions.map((c) => c.reason),
      ["SucceededRescale", "ValidMetricFound", "DesiredWithinRange"],
    );
    assert.deepEqual(
      stored.events.map((e) => e.reason),
      ["SuccessfulRescale"],
    );
    assert.equal(stored.statusError, "conflict");
    assert.equal(stored.durationMs, 4);
    assert.equal(stored.error, null);
  });

  it("matches a reference model over random record/forget sequences", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("record" as const), hpa: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant("forget" as const), hpa: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(op, { maxLength: 300 }),
        (perHpa, maxRecords, ops) => {
          const store = new DecisionStore({ perHpa, maxRecords });
          // The model: live records in arrival order.
          let live: { hpa: string; id: number }[] = [];
          ops.forEach((o, id) => {
            const hpa = `h${o.hpa}`;
            if (o.kind === "forget") {
              store.forget("default", hpa);
              live = live.filter((r) => r.hpa !== hpa);
              return;
            }
            const r = record("default", hpa);
            r.trace.time = String(id);
            store.record(r);
            live.push({ hpa, id });
            const mine = live.filter((x) => x.hpa === hpa);
            if (mine.length > perHpa) live = live.filter((x) => x !== mine[0]);
            while (live.length > maxRecords) live = live.slice(1);
          });
          const expected: Record<string, number[]> = {};
          for (const r of live) expected[r.hpa] = [...(expected[r.hpa] ?? []), r.id];
          const got = Object.fromEntries(store.list().map((h) => [h.name, times(h.decisions)]));
          assert.deepEqual(got, expected);
          assert.equal(store.size, live.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
