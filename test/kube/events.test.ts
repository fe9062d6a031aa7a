// The events port over the Kubernetes API: client-go's recorder and correlator (names,
// de-duplication by PATCH, aggregation of similar messages, the spam filter), and the
// fire-and-forget queue (order per event, bound, retries, flush).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { rfc3339 } from "../../src/api/time.js";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import type { SyncEvent } from "../../src/core/sync.js";
import { KubeEventRecorder, type KubeEventsOptions } from "../../src/kube/events.js";
import type { KubeClient, KubeRequest, KubeResponse } from "../../src/kube/types.js";
import { inProcessClient } from "./harness.js";

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 250);

const HPA = {
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", namespace: "default", uid: "uid-1", resourceVersion: "42" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    maxReplicas: 5,
  },
} as unknown as HorizontalPodAutoscaler;

const rescale = (size: number): SyncEvent => ({
  type: "Normal",
  reason: "SuccessfulRescale",
  message: `New size: ${size}; reason: cpu resource utilization (percentage of request) above target`,
});

interface StoredEvent {
  metadata: { name: string };
  count: number;
  message: string;
  firstTimestamp: string;
  lastTimestamp: string;
  reason: string;
}

async function events(client: KubeClient): Promise<StoredEvent[]> {
  const list = await client.request<{ items: StoredEvent[] }>({
    method: "GET",
    path: "/api/v1/namespaces/default/events",
  });
  return list.body.items.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

function recorder(client: KubeClient, options: Partial<KubeEventsOptions> = {}) {
  return new KubeEventRecorder({ client, sleep: async () => {}, ...options });
}

/** Records every request; `hook` may answer or delay one instead of the inner client. */
function wrap(
  inner: KubeClient,
  hook: (req: KubeRequest, n: number) => Promise<KubeResponse | undefined> | undefined = () =>
    undefined,
): KubeClient & { requests: KubeRequest[] } {
  const requests: KubeRequest[] = [];
  return {
    requests,
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      requests.push(req);
      const answered = await hook(req, requests.length);
      return (answered ?? (await inner.request<T>(req))) as KubeResponse<T>;
    },
    watch: inner.watch.bind(inner),
  };
}

describe("recording", () => {
  it("creates a core/v1 Event as client-go's recorder makes it", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner);
    const port = recorder(client);
    port.record(HPA, rescale(3), T);
    await port.flush();
    const [post] = client.requests as [KubeRequest];
    assert.equal(post.method, "POST");
    assert.equal(post.path, "/api/v1/namespaces/default/events");
    const name = `web.${(BigInt(T) * 1_000_000n).toString(16)}`;
    assert.deepEqual(post.body, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "default" },
      involvedObject: {
        kind: "HorizontalPodAutoscaler",
        namespace: "default",
        name: "web",
        uid: "uid-1",
        apiVersion: "autoscaling/v2",
        resourceVersion: "42",
      },
      reason: "SuccessfulRescale",
      message: rescale(3).message,
      source: { component: "horizontal-pod-autoscaler" },
      firstTimestamp: "2026-01-01T12:00:00Z",
      lastTimestamp: "2026-01-01T12:00:00Z",
      count: 1,
      type: "Normal",
      eventTime: null,
      reportingComponent: "horizontal-pod-autoscaler",
      reportingInstance: "",
    });
    assert.deepEqual(
      (await events(inner)).map((e) => e.metadata.name),
      [name],
    );
  });

  it("a repeat PATCHes count and lastTimestamp of the first event", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner);
    const port = recorder(client);
    port.record(HPA, rescale(3), T);
    port.record(HPA, rescale(3), T + 30_000);
    port.record(HPA, rescale(3), T + 60_000);
    await port.flush();
    assert.deepEqual(
      client.requests.map((r) => [
        r.method,
        r.contentType,
        r.body && (r.body as { count?: number }).count,
      ]),
      [
        ["POST", undefined, 1],
        ["PATCH", "application/strategic-merge-patch+json", 2],
        ["PATCH", "application/strategic-merge-patch+json", 3],
      ],
    );
    assert.deepEqual(client.requests[2]!.body, {
      count: 3,
      lastTimestamp: rfc3339(T + 60_000),
      message: rescale(3).message,
    });
    const [stored] = await events(inner);
    assert.equal(stored?.count, 3);
    assert.equal(stored?.firstTimestamp, rfc3339(T));
    assert.equal(stored?.lastTimestamp, rfc3339(T + 60_000));
  });

  const keys = [
    { name: "another message", second: rescale(4), hpa: HPA, events: 2 },
    { name: "another type", second: { ...rescale(3), type: "Warning" }, hpa: HPA, events: 2 },
    { name: "another reason", second: { ...rescale(3), reason: "Other" }, hpa: HPA, events: 2 },
    {
      name: "another object uid",
      second: rescale(3),
      hpa: { ...HPA, metadata: { ...HPA.metadata, uid: "uid-2" } },
      events: 2,
    },
    {
      name: "another resourceVersion of the same object (not part of the key)",
      second: rescale(3),
      hpa: { ...HPA, metadata: { ...HPA.metadata, resourceVersion: "43" } },
      events: 1,
    },
  ];
  for (const c of keys) {
    it(`de-duplication key: ${c.name}`, async () => {
      const { client } = inProcessClient();
      const port = recorder(client);
      port.record(HPA, rescale(3), T);
      port.record(c.hpa as HorizontalPodAutoscaler, c.second as SyncEvent, T + 1000);
      await port.flush();
      assert.equal((await events(client)).length, c.events);
    });
  }

  it("names two events of the same millisecond apart", async () => {
    const { client } = inProcessClient();
    const port = recorder(client);
    port.record(HPA, rescale(3), T);
    port.record(HPA, rescale(4), T);
    await port.flush();
    const names = (await events(client)).map((e) => e.metadata.name);
    const base = BigInt(T) * 1_000_000n;
    assert.deepEqual(names, [`web.${base.toString(16)}`, `web.${(base + 1n).toString(16)}`]);
  });

  it("combines the 10th distinct message of one reason within 10 minutes", async () => {
    const { client } = inProcessClient();
    const port = recorder(client);
    for (let i = 1; i <= 12; i++) port.record(HPA, rescale(i), T + i * 1000);
    await port.flush();
    const stored = await events(client);
    assert.equal(stored.length, 10);
    const combined = stored.filter((e) => e.message.startsWith("(combined from similar events): "));
    assert.equal(combined.length, 1);
    assert.equal(combined[0]!.count, 3);
    assert.equal(combined[0]!.message, `(combined from similar events): ${rescale(12).message}`);
  });

  it("does not combine messages more than 10 minutes apart", async () => {
    const { client } = inProcessClient();
    const port = recorder(client);
    for (let i = 1; i <= 12; i++) port.record(HPA, rescale(i), T + i * 601_000);
    await port.flush();
    const stored = await events(client);
    assert.equal(stored.length, 12);
    assert.ok(stored.every((e) => !e.message.startsWith("(combined")));
  });

  const spam = [
    {
      name: "on (upstream default): burst 25",
      spamFilter: true,
      written: 25,
      filtered: 5,
      count: 31,
    },
    { name: "off", spamFilter: false, written: 30, filtered: 0, count: 31 },
  ];
  for (const c of spam) {
    it(`spam filter ${c.name}, refilled one event per 5 minutes`, async () => {
      const { client: inner } = inProcessClient();
      const client = wrap(inner);
      const port = recorder(client, { spamFilter: c.spamFilter });
      for (let i = 0; i < 30; i++) port.record(HPA, rescale(3), T);
      await port.flush();
      assert.equal(client.requests.length, c.written);
      assert.equal(port.filtered, c.filtered);
      port.record(HPA, rescale(3), T + 300_000);
      await port.flush();
      const [stored] = await events(inner);
      // Filtered repeats still count (the correlator observes before it filters).
      assert.equal(stored?.count, c.count);
    });
  }
});

describe("the write queue", () => {
  it("never reorders writes to one event, with several writers", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner, (req) =>
      req.method === "POST" ? new Promise((r) => setTimeout(() => r(undefined), 30)) : undefined,
    );
    const port = recorder(client, { concurrency: 4 });
    port.record(HPA, rescale(3), T);
    port.record(HPA, rescale(3), T + 1000);
    port.record(HPA, rescale(3), T + 2000);
    assert.equal(port.pending, 3, "record() returns before anything is written");
    await port.flush();
    assert.deepEqual(
      client.requests.map((r) => `${r.method} ${(r.body as { count: number }).count}`),
      ["POST 1", "PATCH 2", "PATCH 3"],
    );
    assert.equal((await events(inner))[0]?.count, 3);
  });

  it("drops new writes when the queue is full, and counts them", async () => {
    const { client: inner } = inProcessClient();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const client = wrap(inner, async () => {
      await gate;
      return undefined;
    });
    const port = recorder(client, { maxQueued: 3, concurrency: 1 });
    for (let i = 1; i <= 10; i++) port.record(HPA, rescale(i), T + i);
    assert.equal(port.dropped, 6, "one in flight, three queued, six dropped");
    release();
    await port.flush();
    assert.equal((await events(inner)).length, 4);
  });

  it("re-creates an event whose patch finds it gone", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner);
    const port = recorder(client);
    port.record(HPA, rescale(3), T);
    await port.flush();
    const [first] = await events(inner);
    await inner.request({
      method: "DELETE",
      path: `/api/v1/namespaces/default/events/${first!.metadata.name}`,
    });
    port.record(HPA, rescale(3), T + 1000);
    await port.flush();
    assert.deepEqual(
      client.requests.map((r) => r.method),
      ["POST", "PATCH", "POST"],
    );
    const [again] = await events(inner);
    assert.equal(again?.metadata.name, first!.metadata.name);
    assert.equal(again?.count, 2);
  });

  it("retries a write that failed in transport, the first sleep randomized", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner, (_req, n) =>
      n <= 2 ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6443")) : undefined,
    );
    const sleeps: number[] = [];
    const port = new KubeEventRecorder({
      client,
      retrySleepMs: 10_000,
      random: () => 0.25,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    port.record(HPA, rescale(3), T);
    await port.flush();
    assert.deepEqual(sleeps, [2500, 10_000]);
    assert.equal((await events(inner)).length, 1);
  });

  it("gives up on a write the server rejects, without retrying", async () => {
    const { client: inner } = inProcessClient();
    const client = wrap(inner, () =>
      Promise.resolve({
        status: 403,
        headers: {},
        body: {
          kind: "Status",
          status: "Failure",
          reason: "Forbidden",
          code: 403,
          message: "events is forbidden",
        },
      }),
    );
    const errors: string[] = [];
    const port = recorder(client, { onError: (error) => errors.push(error) });
    port.record(HPA, rescale(3), T);
    await port.flush();
    assert.equal(client.requests.length, 1);
    assert.equal(port.failed, 1);
    assert.deepEqual(errors, ["Server rejected event (will not retry!): events is forbidden"]);
  });

  it("flush() resolves at once when nothing is queued", async () => {
    const { client } = inProcessClient();
    await recorder(client).flush();
  });
});

describe("property: every record is counted once, whatever the write timing", () => {
  it("the stored counts of each (reason, message) equal the records of it", async () => {
    const record = fc.record({
      reason: fc.constantFrom("SuccessfulRescale", "FailedGetResourceMetric"),
      size: fc.integer({ min: 1, max: 4 }),
      gapMs: fc.integer({ min: 0, max: 20_000 }),
      delayMs: fc.integer({ min: 0, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 25 }), async (records) => {
        const { client: inner } = inProcessClient();
        let n = 0;
        // Each write waits a little, so writes to different events overlap and finish out of order.
        const client = wrap(
          inner,
          () =>
            new Promise((r) =>
              setTimeout(() => r(undefined), records[n++ % records.length]!.delayMs),
            ),
        );
        const port = recorder(client, { spamFilter: false, concurrency: 4 });
        const expected = new Map<string, number>();
        let now = T;
        for (const r of records) {
          now += r.gapMs;
          const event = { ...rescale(r.size), reason: r.reason };
          port.record(HPA, event, now);
          const key = `${event.reason}|${event.message}`;
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        await port.flush();
        const stored = new Map<string, number>();
        for (const e of await events(inner)) {
          const key = `${e.reason}|${e.message}`;
          stored.set(key, (stored.get(key) ?? 0) + e.count);
        }
        assert.deepEqual(stored, expected);
      }),
      { numRuns: 30 },
    );
  });
});
