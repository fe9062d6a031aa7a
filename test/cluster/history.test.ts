import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../../src/api/types.js";
import { ChangeHistory } from "../../src/registry/history.js";
import type { WatchEventType } from "../../src/registry/store.js";

function object(kind: string, name: string, note = ""): KubeObject {
  return {
    apiVersion: "v1",
    kind,
    metadata: { name, namespace: "default", annotations: { note } },
  };
}

function bytesOf(o: KubeObject): number {
  return Buffer.byteLength(JSON.stringify(o));
}

describe("ChangeHistory", () => {
  test("replays the changes after a resourceVersion in order, of one kind when asked, as equal new objects", () => {
    const history = new ChangeHistory({ changes: 10, bytes: 1 << 20 });
    const kept = [
      object("Service", "a"),
      object("Pod", "p"),
      object("Service", "b", "ünïcødé ✓"),
      object("Service", "a", "2"),
    ];
    const types: WatchEventType[] = ["ADDED", "ADDED", "ADDED", "MODIFIED"];
    for (const [i, o] of kept.entries()) history.record(11 + i, types[i]!, o);
    const after11 = history.since(11);
    assert.ok(after11 !== "Expired");
    assert.deepEqual(after11, [
      { type: "ADDED", object: kept[1] },
      { type: "ADDED", object: kept[2] },
      { type: "MODIFIED", object: kept[3] },
    ]);
    assert.notEqual(after11[2]!.object, kept[3], "read back from JSON, not the stored object");
    assert.deepEqual(history.since(10, "Service"), [
      { type: "ADDED", object: kept[0] },
      { type: "ADDED", object: kept[2] },
      { type: "MODIFIED", object: kept[3] },
    ]);
    assert.deepEqual(history.since(14), []);
    assert.deepEqual(history.since(20), [], "a version not reached yet: nothing to replay");
    assert.equal(history.since(Number("x")), "Expired");
  });

  test("keeps at most the given number of changes; older versions are then expired", () => {
    const history = new ChangeHistory({ changes: 2, bytes: 1 << 20 });
    for (const [i, name] of ["a", "b", "c"].entries()) {
      history.record(i + 1, "ADDED", object("Pod", name));
    }
    assert.equal(history.size, 2);
    assert.equal(history.compacted, 1);
    assert.equal(history.since(0), "Expired");
    const kept = history.since(1);
    assert.ok(kept !== "Expired");
    assert.deepEqual(
      kept.map((e) => e.object.metadata.name),
      ["b", "c"],
    );
  });

  test("a change larger than the byte limit is not kept, and nothing before it can be replayed", () => {
    const history = new ChangeHistory({ changes: 10, bytes: 400 });
    history.record(1, "ADDED", object("Pod", "a"));
    history.record(2, "MODIFIED", object("Pod", "a", "x".repeat(500)));
    assert.equal(history.size, 0);
    assert.equal(history.compacted, 2);
    assert.equal(history.since(1), "Expired");
    assert.deepEqual(history.since(2), []);
    history.record(3, "DELETED", object("Pod", "a"));
    assert.deepEqual(history.since(2), [{ type: "DELETED", object: object("Pod", "a") }]);
  });

  test("a change whose object cannot be encoded is not kept, and the write is not failed", () => {
    const history = new ChangeHistory({ changes: 10, bytes: 1 << 20 });
    history.record(1, "ADDED", object("Pod", "a"));
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 200_000; i++) at = at.a = {};
    assert.doesNotThrow(() => history.record(2, "MODIFIED", { ...object("Pod", "a"), spec: deep }));
    assert.equal(history.compacted, 2);
    assert.equal(history.since(1), "Expired");
  });

  test("no history: every change compacts, so only the newest resourceVersion resumes", () => {
    const history = new ChangeHistory({ changes: 0, bytes: 1 << 20 }, 5);
    assert.deepEqual(history.since(5), []);
    history.record(6, "ADDED", object("Pod", "a"));
    assert.equal(history.since(5), "Expired");
    assert.deepEqual(history.since(6), []);
  });

  test("within both limits the ring grows instead of letting changes go", () => {
    const history = new ChangeHistory({ changes: 1000, bytes: 1 << 20 });
    const note = "n".repeat(2000);
    for (let rv = 1; rv <= 200; rv++) history.record(rv, "ADDED", object("Pod", `p${rv}`, note));
    assert.equal(history.size, 200, "~400 KB of JSON under a 1 MiB limit: all kept");
    const kept = history.since(0);
    assert.ok(kept !== "Expired");
    assert.deepEqual(
      kept.map((e) => e.object.metadata.name),
      Array.from({ length: 200 }, (_, i) => `p${i + 1}`),
    );
  });

  test("under any sequence of sizes, what is kept is the newest changes, intact and within the limits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 300, max: 3000 }),
        fc.array(fc.string({ maxLength: 900, unit: "grapheme" }), { minLength: 1, maxLength: 80 }),
        (changes, bytes, notes) => {
          const history = new ChangeHistory({ changes, bytes });
          const recorded = notes.map((note, i) => object("Pod", `p${i}`, note));
          for (const [i, o] of recorded.entries()) history.record(i + 1, "MODIFIED", o);
          const compacted = history.compacted;
          const kept = history.since(compacted);
          assert.ok(kept !== "Expired");
          // A suffix of what was recorded, right after the compacted version.
          assert.deepEqual(
            kept.map((e) => e.object),
            recorded.slice(compacted),
          );
          assert.ok(kept.length <= changes);
          assert.ok(kept.reduce((sum, e) => sum + bytesOf(e.object), 0) <= bytes);
          // The newest change is kept whenever it fits at all.
          const newest = recorded[recorded.length - 1]!;
          assert.equal(kept.length > 0, bytesOf(newest) <= bytes);
          if (compacted > 0) assert.equal(history.since(compacted - 1), "Expired");
        },
      ),
      { seed: 20261125, numRuns: 300 },
    );
  });
});
