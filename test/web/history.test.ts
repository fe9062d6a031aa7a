// The dashboard's history: a ring of the last N syncs per HPA on a fake clock, the sample each
// sync becomes, and the JSON-lines journal that brings it back after a restart.
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type DecisionRecord,
  DecisionStore,
  decisionRecordOf,
} from "../../src/controller/decisions.js";
import { decisionOf, HpaHistory, isLimited } from "../../src/web/history.js";
import { syncReport } from "../controller/sync-reports.js";

function decision(input: Parameters<typeof syncReport>[0]): DecisionRecord {
  const result = syncReport(input).result;
  assert.ok(result, "the sync produced a result");
  return decisionRecordOf(result);
}

/** A clock the test steps. */
function fakeClock(start = Date.UTC(2026, 10, 24, 12)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

function scratchFile(): string {
  return join(mkdtempSync(join(tmpdir(), "horizon-history-")), "history.jsonl");
}

describe("HpaHistory", () => {
  it("keeps the last `capacity` syncs of each HPA, oldest first", () => {
    const clock = fakeClock();
    const history = new HpaHistory({ capacity: 3, clock });
    for (let i = 1; i <= 5; i++) {
      history.record(decision({ name: "web", replicas: i }));
      history.record(decision({ name: "api", replicas: 10 + i }));
      clock.advance(15_000);
    }
    const web = history.get("default", "web");
    assert.deepEqual(
      web.map((r) => r.sample.currentReplicas),
      [3, 4, 5],
    );
    assert.deepEqual(
      history.get("default", "api").map((r) => r.sample.currentReplicas),
      [13, 14, 15],
    );
    assert.equal(history.size, 6);
    assert.deepEqual(history.keys(), ["default/api", "default/web"]);
    // Sequence numbers increase across HPAs and times come from the clock.
    assert.ok(web[0]!.seq < web[1]!.seq && web[1]!.seq < web[2]!.seq);
    assert.equal(web[2]!.sample.at - web[1]!.sample.at, 15_000);
  });

  it("keeps at most maxRecords across HPAs: each HPA its share, newest first kept", () => {
    const clock = fakeClock();
    const history = new HpaHistory({ capacity: 10, maxRecords: 12, clock });
    // Alone, an HPA keeps up to its capacity.
    for (let i = 1; i <= 12; i++) history.record(decision({ name: "a", replicas: i }));
    assert.equal(history.get("default", "a").length, 10);
    // Three more HPAs: each keeps its share (12 ÷ 4), and "a" sheds its excess at its next sync.
    for (let i = 1; i <= 5; i++) {
      for (const name of ["a", "b", "c", "d"]) history.record(decision({ name, replicas: i }));
    }
    for (const name of ["a", "b", "c", "d"]) {
      assert.deepEqual(
        history.get("default", name).map((r) => r.sample.currentReplicas),
        [3, 4, 5],
        name,
      );
    }
    assert.equal(history.size, 12);
    // An HPA forgotten gives its share back.
    history.forget("default", "d");
    for (const name of ["a", "b", "c"]) history.record(decision({ name, replicas: 6 }));
    assert.deepEqual(
      history.get("default", "a").map((r) => r.sample.currentReplicas),
      [3, 4, 5, 6],
    );
    assert.equal(history.size, 12);
  });

  it("answers the syncs of the last N ms by the clock", () => {
    const clock = fakeClock();
    const history = new HpaHistory({ capacity: 1000, clock });
    for (let i = 0; i < 10; i++) {
      history.record(decision({ replicas: 2 }));
      clock.advance(10 * 60_000);
    }
    // Now is 100 minutes after the first sync: the last hour (from 40 min, inclusive) holds
    // the syncs at 40, 50, ..., 90 min.
    assert.equal(history.get("default", "web", 60 * 60_000).length, 6);
    assert.equal(history.get("default", "web", 60 * 60_000 - 1).length, 5);
    clock.advance(60 * 60_000);
    assert.equal(history.get("default", "web", 60 * 60_000).length, 0);
    assert.equal(history.get("default", "web").length, 10);
  });

  it("samples replicas, pods and each metric against its target", () => {
    const history = new HpaHistory({ capacity: 10, clock: fakeClock() });
    // 4 pods at 100m of a 100m request against a 50% target: scale to 8.
    const record = history.record(decision({ replicas: 4, cpuPerPodMilli: 100, maxReplicas: 20 }));
    assert.equal(record.sample.currentReplicas, 4);
    assert.equal(record.sample.desiredReplicas, 8);
    assert.equal(record.sample.pods, 4);
    assert.equal(record.sample.readyPods, 4);
    assert.equal(record.sample.maxReplicas, 20);
    assert.deepEqual(record.sample.metrics, [
      {
        name: "Metric 1 (Resource, cpu resource utilization (percentage of request))",
        current: 100,
        target: 50,
        unit: "% of request",
      },
    ]);
  });

  it("tells subscribers about syncs and forgotten HPAs", () => {
    const history = new HpaHistory({ capacity: 10, clock: fakeClock() });
    const seen: string[] = [];
    const off = history.subscribe((event) => seen.push(`${event.type} ${event.key}`));
    history.record(decision({ name: "web" }));
    history.forget("default", "web");
    history.forget("default", "never-seen");
    off();
    history.record(decision({ name: "web" }));
    assert.deepEqual(seen, ["sync default/web", "forget default/web"]);
  });

  it("survives a restart through its journal, forgotten HPAs included", () => {
    const file = scratchFile();
    const clock = fakeClock();
    const first = new HpaHistory({ capacity: 2, clock, file });
    for (let i = 1; i <= 3; i++) {
      first.record(decision({ name: "web", replicas: i }));
      first.record(decision({ name: "gone", replicas: i }));
      clock.advance(15_000);
    }
    first.forget("default", "gone");
    first.close();

    const second = new HpaHistory({ capacity: 2, clock, file });
    assert.deepEqual(second.keys(), ["default/web"]);
    const restored = second.get("default", "web");
    assert.deepEqual(
      restored.map((r) => [r.sample.currentReplicas, r.sample.at - clock.now()]),
      [
        [2, -30_000],
        [3, -15_000],
      ],
    );
    assert.equal(decisionOf(restored[1]!).trace.hpa.name, "web");
    // A smaller capacity after the restart keeps the newest.
    second.close();
    const third = new HpaHistory({ capacity: 1, clock, file });
    assert.deepEqual(
      third.get("default", "web").map((r) => r.sample.currentReplicas),
      [3],
    );
    third.close();
  });

  it("samples the load offered where known, and keeps it across a restart", () => {
    const file = scratchFile();
    const clock = fakeClock();
    const first = new HpaHistory({ capacity: 5, clock, file });
    first.record(decision({ name: "web" }), 40);
    clock.advance(15_000);
    first.record(decision({ name: "web" }), 212.5);
    clock.advance(15_000);
    // Unknown (a real cluster): no load, and no "l" in the journal line.
    first.record(decision({ name: "web" }));
    assert.deepEqual(
      first.get("default", "web").map((r) => r.sample.loadRps),
      [40, 212.5, null],
    );
    first.close();
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { l?: number }).l),
      [40, 212.5, undefined],
    );
    const second = new HpaHistory({ capacity: 5, clock, file });
    assert.deepEqual(
      second.get("default", "web").map((r) => r.sample.loadRps),
      [40, 212.5, null],
    );
    second.close();
  });

  it("keeps each decision deflated with other syncs and gives it back exactly", () => {
    const clock = fakeClock();
    const history = new HpaHistory({ capacity: 100, clock });
    const recorded: DecisionRecord[] = [];
    // 80 syncs of "web" between those of three other HPAs (past several batches), "web"
    // changing shape half way.
    for (let i = 0; i < 80; i++) {
      const d =
        i < 40
          ? decision({ replicas: 2 + (i % 3), cpuPerPodMilli: 60 + i })
          : decision({ replicas: 5, cpuPerPodMilli: 150, maxReplicas: 30 });
      recorded.push(d);
      history.record(d);
      for (const name of ["a", "b", "c"]) history.record(decision({ name, replicas: 1 + (i % 4) }));
      clock.advance(15_000);
    }
    const records = history.get("default", "web");
    assert.equal(records.length, 80);
    // Read out of order too: each read inflates whichever batch holds the record.
    for (const i of [79, 0, 41, 40, 1, 63, 64, 2]) {
      assert.deepEqual(decisionOf(records[i]!), recorded[i]);
    }
    records.forEach((r, i) => {
      assert.deepEqual(decisionOf(r), recorded[i]);
    });
    // 320 syncs: five sealed batches of 64.
    const packing = history.packing();
    assert.equal(packing.batches, 5);
    assert.equal(packing.records, 320);
    const json = recorded.reduce((sum, d) => sum + JSON.stringify(d).length, 0);
    // 320 syncs of four HPAs, ~1.6 KiB each, kept in a small fraction of that.
    assert.ok(packing.bytes * 10 < json * 4, `${packing.bytes} bytes for 320 syncs`);
  });

  it("repacks a batch whose records mostly left, so batches stay near the live records", () => {
    const clock = fakeClock();
    const history = new HpaHistory({ capacity: 3, clock });
    const slow: DecisionRecord[] = [];
    // "slow" syncs once per 100 syncs of the others, so each of its records lands in a batch of
    // theirs, whose records leave long before its own.
    for (let i = 0; i < 2000; i++) {
      if (i % 100 === 0) {
        slow.push(decision({ name: "slow", replicas: 1 + (slow.length % 5) }));
        history.record(slow.at(-1)!);
      }
      history.record(decision({ name: `fast-${i % 20}`, replicas: 1 + (i % 4) }));
      clock.advance(1_000);
    }
    assert.equal(history.size, 3 + 20 * 3);
    const packing = history.packing();
    // Without repacking, the three live "slow" records would keep three batches of 64 each.
    assert.ok(
      packing.records <= history.size * 4 + 64,
      `${packing.records} records held in ${packing.batches} batches for ${history.size} live`,
    );
    assert.deepEqual(
      history.get("default", "slow").map((r) => decisionOf(r)),
      slow.slice(-3),
    );
    // Forgetting every HPA frees every batch.
    for (let i = 0; i < 20; i++) history.forget("default", `fast-${i}`);
    history.forget("default", "slow");
    assert.deepEqual(history.packing(), { batches: 0, records: 0, bytes: 0 });
  });

  it("holds each sync's JSON for the decision store, also after the sync left the history", () => {
    const clock = fakeClock();
    // Three syncs per HPA in the history, ten in the store: most of the store's records are
    // read from history records that have left, in batches sealed (300 syncs: four of 64) and
    // repacked as their records left.
    const history = new HpaHistory({ capacity: 3, clock });
    const store = new DecisionStore({ perHpa: 10, maxRecords: 1000 });
    const recorded = new Map<string, DecisionRecord[]>();
    for (let i = 0; i < 300; i++) {
      const name = i % 7 === 0 ? "slow" : `fast-${i % 5}`;
      const d = decision({ name, replicas: 1 + (i % 4), cpuPerPodMilli: 50 + i });
      const json = JSON.stringify(d);
      store.record(d, history.record(d, null, json));
      recorded.set(name, [...(recorded.get(name) ?? []), d]);
      clock.advance(1_000);
    }
    for (const [name, all] of recorded) {
      assert.deepEqual(store.get("default", name), all.slice(-10), name);
      assert.equal(history.get("default", name).length, 3);
    }
    // The document is made of the same texts (read in the order they were recorded).
    const document = JSON.parse(store.documentJson()) as {
      hpas: { name: string; decisions: DecisionRecord[] }[];
    };
    assert.equal(document.hpas.length, recorded.size);
    for (const hpa of document.hpas) {
      assert.deepEqual(hpa.decisions, recorded.get(hpa.name)!.slice(-10), hpa.name);
    }
    const one = JSON.parse(store.documentJson({ name: "slow", limit: 2 }));
    assert.deepEqual(one.hpas[0].decisions, recorded.get("slow")!.slice(-2));
  });

  it("skips a journal line cut short by a crash and keeps the rest", () => {
    const file = scratchFile();
    const clock = fakeClock();
    const first = new HpaHistory({ capacity: 5, clock, file });
    first.record(decision({ replicas: 3 }));
    first.close();
    appendFileSync(file, '{"k":"default/web","at":1,"d":{"tra');
    const second = new HpaHistory({ capacity: 5, clock, file });
    assert.equal(second.skippedLines, 1);
    assert.equal(second.get("default", "web").length, 1);
    second.record(decision({ replicas: 4 }));
    second.close();
    // The restart compacted the torn line away; the new record follows on its own line.
    const third = new HpaHistory({ capacity: 5, clock, file });
    assert.equal(third.skippedLines, 0);
    assert.deepEqual(
      third.get("default", "web").map((r) => r.sample.currentReplicas),
      [3, 4],
    );
    third.close();
  });

  it("keeps its journal bounded by compacting it", () => {
    const file = scratchFile();
    const history = new HpaHistory({ capacity: 2, clock: fakeClock(), file });
    for (let i = 0; i < 3000; i++) history.record(decision({ replicas: 2 }));
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).length;
    assert.ok(lines <= 2 * 2 + 1024 + 1, `journal has ${lines} lines`);
    history.close();
    const reopened = new HpaHistory({ capacity: 2, clock: fakeClock(), file });
    assert.equal(reopened.size, 2);
    reopened.close();
  });

  it("refuses a capacity that is not a positive integer", () => {
    assert.throws(() => new HpaHistory({ capacity: 0, clock: fakeClock() }), /positive integer/);
    assert.throws(() => new HpaHistory({ capacity: 1.5, clock: fakeClock() }), /positive integer/);
    assert.throws(
      () => new HpaHistory({ capacity: 1, maxRecords: 0, clock: fakeClock() }),
      /maxRecords must be at least 1/,
    );
  });
});

describe("isLimited: a bound, a policy or a window held the recommendation back", () => {
  const decision = (trace: Partial<DecisionRecord["trace"]>, error: string | null = null) =>
    ({ trace, conditions: [], events: [], error }) as unknown as DecisionRecord;
  const cases = [
    {
      name: "within range, no window",
      trace: { limit: { reason: "DesiredWithinRange", message: "" } },
      limited: false,
    },
    { name: "a policy", trace: { limit: { reason: "ScaleUpLimit", message: "" } }, limited: true },
    {
      name: "the max bound",
      trace: { limit: { reason: "TooManyReplicas", message: "" } },
      limited: true,
    },
    {
      name: "a stabilization window held it",
      trace: {
        stabilization: {
          path: "behavior",
          recommendation: 2,
          stabilized: 4,
          reason: "ScaleDownStabilized",
        },
      },
      limited: true,
    },
    {
      name: "a window that changed nothing",
      trace: { stabilization: { path: "behavior", recommendation: 4, stabilized: 4, reason: "" } },
      limited: false,
    },
  ] as const;
  for (const { name, trace, limited } of cases) {
    it(name, () => {
      assert.equal(isLimited(decision(trace as Partial<DecisionRecord["trace"]>)), limited);
    });
  }
  it("a failed sync is not limited", () => {
    assert.equal(
      isLimited(decision({ limit: { reason: "ScaleUpLimit", message: "" } }, "boom")),
      false,
    );
  });
});
