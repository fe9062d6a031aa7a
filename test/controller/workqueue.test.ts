// The work queue's client-go semantics, stepped on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  fixedIntervalRateLimiter,
  type QueueItem,
  WorkQueue,
} from "../../src/controller/workqueue.js";
import { FakeTimers, settle } from "./fake-timers.js";

function keyOf(item: QueueItem<string>): string {
  assert.equal(item.shutdown, false);
  return (item as { key: string }).key;
}

/** Takes every ready key (each held until done). */
async function takeAll(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) keys.push(keyOf(await queue.get()));
  return keys;
}

describe("WorkQueue: de-duplication and the dirty/processing sets", () => {
  const cases: {
    name: string;
    run: (queue: WorkQueue) => Promise<void> | void;
    expectedLen: number;
    expectedOrder: string[];
  }[] = [
    {
      name: "a key added twice while queued is queued once",
      run: (q) => {
        q.add("a");
        q.add("b");
        q.add("a");
      },
      expectedLen: 2,
      expectedOrder: ["a", "b"],
    },
    {
      name: "a key added while processing waits for done, then is queued again",
      run: async (q) => {
        q.add("a");
        assert.equal(keyOf(await q.get()), "a");
        q.add("a");
        assert.equal(q.len(), 0, "not queued while a worker holds it");
        q.add("b");
        q.done("a");
      },
      expectedLen: 2,
      expectedOrder: ["b", "a"],
    },
    {
      name: "a key re-added several times while processing is queued once after done",
      run: async (q) => {
        q.add("a");
        await q.get();
        q.add("a");
        q.add("a");
        q.done("a");
      },
      expectedLen: 1,
      expectedOrder: ["a"],
    },
    {
      name: "done without a re-add does not queue the key",
      run: async (q) => {
        q.add("a");
        await q.get();
        q.done("a");
      },
      expectedLen: 0,
      expectedOrder: [],
    },
    {
      name: "done for a key nobody holds changes nothing",
      run: (q) => {
        q.add("a");
        q.done("a");
      },
      expectedLen: 1,
      expectedOrder: ["a"],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const queue = new WorkQueue({ timers: new FakeTimers() });
      await c.run(queue);
      assert.equal(queue.len(), c.expectedLen);
      assert.deepEqual(await takeAll(queue), c.expectedOrder);
    });
  }

  it("get waits for a key; waiting getters are served first-come first-served", async () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    const first = queue.get();
    const second = queue.get();
    queue.add("a");
    queue.add("b");
    assert.equal(keyOf(await first), "a");
    assert.equal(keyOf(await second), "b");
    assert.equal(queue.processingLen(), 2);
  });

  it("never hands one key to two getters at once", async () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    queue.add("a");
    const held = keyOf(await queue.get());
    const waiting = queue.get();
    queue.add("a");
    let served = false;
    void waiting.then(() => {
      served = true;
    });
    await settle();
    assert.equal(served, false, "the re-added key waits until done");
    queue.done(held);
    assert.equal(keyOf(await waiting), "a");
  });
});

describe("WorkQueue: addAfter", () => {
  it("keys come out when their delay passed, in ready-time order", async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    queue.addAfter("late", 3000);
    queue.addAfter("early", 1000);
    queue.addAfter("now", 0);
    assert.equal(queue.len(), 1);
    assert.equal(queue.waitingLen(), 2);
    await timers.advance(999);
    assert.deepEqual(await takeAll(queue), ["now"]);
    await timers.advance(1);
    assert.deepEqual(await takeAll(queue), ["early"]);
    await timers.advance(2000);
    assert.deepEqual(await takeAll(queue), ["late"]);
  });

  it("a waiting key keeps the sooner of two ready times", async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    const t0 = timers.now();
    queue.addAfter("a", 5000);
    queue.addAfter("a", 10_000);
    assert.equal(queue.readyAt("a"), t0 + 5000, "a later time is dropped");
    queue.addAfter("a", 2000);
    assert.equal(queue.readyAt("a"), t0 + 2000, "a sooner time wins");
    assert.equal(queue.waitingLen(), 1);
    await timers.advance(2000);
    assert.deepEqual(await takeAll(queue), ["a"]);
    await timers.advance(10_000);
    assert.equal(queue.len(), 0, "one entry per key: nothing left to fire");
  });

  it("uses one timer however many keys wait", () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    for (let i = 0; i < 100; i++) queue.addAfter(`k${i}`, 1000 + ((i * 37) % 100) * 10);
    assert.equal(queue.waitingLen(), 100);
    assert.equal(timers.pending(), 1);
  });

  it("a delayed key that comes due while already queued is not queued twice", async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    queue.add("a");
    queue.addAfter("a", 1000);
    await timers.advance(1000);
    assert.equal(queue.len(), 1);
  });

  it("addRateLimited waits the fixed interval (upstream's HPA rate limiter), every time", async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue<string>({ timers, rateLimiter: fixedIntervalRateLimiter(15_000) });
    for (let round = 0; round < 3; round++) {
      queue.addRateLimited("a");
      await timers.advance(14_999);
      assert.equal(queue.len(), 0);
      await timers.advance(1);
      assert.equal(queue.len(), 1);
      queue.done(keyOf(await queue.get()));
      queue.forget("a");
      assert.equal(queue.numRequeues("a"), 1);
    }
  });

  it("property: keys come out in order of ready time (ties first-in first-out)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ key: fc.string({ minLength: 1 }), delay: fc.nat(50) }), {
          selector: (entry) => entry.key,
          maxLength: 30,
        }),
        async (entries) => {
          const timers = new FakeTimers();
          const queue = new WorkQueue({ timers });
          for (const { key, delay } of entries) queue.addAfter(key, delay);
          await timers.advance(100);
          // Zero delays are added at once, before any delayed key.
          const immediate = entries.filter((e) => e.delay === 0).map((e) => e.key);
          const delayed = entries
            .map((entry, index) => ({ ...entry, index }))
            .filter((entry) => entry.delay > 0)
            .sort((a, b) => a.delay - b.delay || a.index - b.index)
            .map((entry) => entry.key);
          assert.deepEqual(await takeAll(queue), [...immediate, ...delayed]);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("WorkQueue: shutdown", () => {
  it("shutDown wakes idle getters and ignores later adds", async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    const waiting = queue.get();
    queue.addAfter("later", 1000);
    queue.shutDown();
    assert.deepEqual(await waiting, { shutdown: true });
    queue.add("a");
    queue.addAfter("b", 10);
    await timers.advance(2000);
    assert.equal(queue.len(), 0);
    assert.equal(timers.pending(), 0, "the delay timer is stopped");
    assert.deepEqual(await queue.get(), { shutdown: true });
  });

  it("after shutDown, keys already queued are still handed out (client-go's Get)", async () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    queue.add("a");
    queue.shutDown();
    assert.equal(keyOf(await queue.get()), "a");
    assert.deepEqual(await queue.get(), { shutdown: true });
  });

  it("shutDownWithDrain resolves only when every key being processed is done", async () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    queue.add("a");
    queue.add("b");
    const a = keyOf(await queue.get());
    const b = keyOf(await queue.get());
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => {
      drained = true;
    });
    await settle();
    assert.equal(drained, false);
    queue.done(a);
    await settle();
    assert.equal(drained, false, "b is still in flight");
    queue.done(b);
    await drain;
    assert.equal(drained, true);
  });

  it("shutDownWithDrain with nothing in flight resolves at once", async () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    await queue.shutDownWithDrain();
    assert.equal(queue.isShuttingDown(), true);
  });
});

describe("WorkQueue: metrics hooks", () => {
  it("reports depth, queue latency and work duration", async () => {
    const timers = new FakeTimers();
    const seen: string[] = [];
    const queue = new WorkQueue({
      timers,
      metrics: {
        added: (depth) => seen.push(`added depth=${depth}`),
        taken: (queuedMs, depth) => seen.push(`taken after ${queuedMs}ms depth=${depth}`),
        finished: (workMs) => seen.push(`finished in ${workMs}ms`),
      },
    });
    queue.add("a");
    await timers.advance(200);
    const key = keyOf(await queue.get());
    await timers.advance(50);
    queue.done(key);
    assert.deepEqual(seen, ["added depth=1", "taken after 200ms depth=0", "finished in 50ms"]);
  });
});
