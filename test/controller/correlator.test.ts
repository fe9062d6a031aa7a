// The pure event correlator (client-go's EventCorrelator): what each record becomes — a create,
// a patch of an earlier event (count, lastTimestamp, message), or nothing (spam filter) — on a
// fake clock, with no writes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rfc3339 } from "../../src/api/time.js";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import {
  type Correlation,
  EventCorrelator,
  type EventCorrelatorOptions,
} from "../../src/controller/events/correlator.js";
import type { SyncEvent } from "../../src/core/sync.js";

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 250);

function hpa(metadata: Partial<HorizontalPodAutoscaler["metadata"]> = {}): HorizontalPodAutoscaler {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "uid-1",
      resourceVersion: "42",
      ...metadata,
    },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      maxReplicas: 5,
    },
  } as HorizontalPodAutoscaler;
}

const failed = (message = "no metrics"): SyncEvent => ({
  type: "Warning",
  reason: "FailedGetScale",
  message,
});

interface Step {
  /** Milliseconds after T. */
  at: number;
  event: SyncEvent;
  hpa?: HorizontalPodAutoscaler;
}

/** What a correlation says, in short: action, count, message. */
function summary(c: Correlation) {
  return { action: c.action, count: c.event.count, message: c.event.message };
}

function run(steps: Step[], options: EventCorrelatorOptions = {}) {
  const correlator = new EventCorrelator(options);
  const out = steps.map((s) => correlator.correlate(s.hpa ?? hpa(), s.event, T + s.at));
  return { correlator, out };
}

const repeat = (n: number, gapMs: number, event: SyncEvent = failed()): Step[] =>
  Array.from({ length: n }, (_, i) => ({ at: i * gapMs, event }));

describe("EventCorrelator", () => {
  const cases: {
    name: string;
    steps: Step[];
    options?: EventCorrelatorOptions;
    /** The summaries of the last correlations (the tail of the output). */
    last: ReturnType<typeof summary>[];
    filtered?: number;
  }[] = [
    {
      name: "a first event is created with count 1",
      steps: [{ at: 0, event: failed() }],
      last: [{ action: "create", count: 1, message: "no metrics" }],
    },
    {
      name: "a repeat patches the first event, count + 1",
      steps: repeat(3, 15_000),
      last: [
        { action: "patch", count: 2, message: "no metrics" },
        { action: "patch", count: 3, message: "no metrics" },
      ],
    },
    {
      name: "another message is another event",
      steps: [
        { at: 0, event: failed("a") },
        { at: 1000, event: failed("b") },
      ],
      last: [{ action: "create", count: 1, message: "b" }],
    },
    {
      name: "another object uid is another event",
      steps: [
        { at: 0, event: failed() },
        { at: 1000, event: failed(), hpa: hpa({ uid: "uid-2" }) },
      ],
      last: [{ action: "create", count: 1, message: "no metrics" }],
    },
    {
      name: "the 10th distinct message of one reason within 10 minutes is combined",
      steps: Array.from({ length: 11 }, (_, i) => ({ at: i * 1000, event: failed(`m${i}`) })),
      last: [
        { action: "create", count: 1, message: "m8" },
        { action: "create", count: 1, message: "(combined from similar events): m9" },
        { action: "patch", count: 2, message: "(combined from similar events): m10" },
      ],
    },
    {
      name: "distinct messages more than 10 minutes apart are not combined",
      steps: Array.from({ length: 11 }, (_, i) => ({ at: i * 601_000, event: failed(`m${i}`) })),
      last: [{ action: "create", count: 1, message: "m10" }],
    },
    {
      name: "spam filter: 25 at once pass, the 26th is filtered (still counted)",
      steps: repeat(26, 0),
      last: [
        { action: "patch", count: 25, message: "no metrics" },
        { action: "skip", count: 26, message: "no metrics" },
      ],
      filtered: 1,
    },
    {
      name: "spam filter: one token back per 5 minutes",
      steps: [...repeat(26, 0), { at: 300_000, event: failed() }, { at: 300_000, event: failed() }],
      last: [
        { action: "patch", count: 27, message: "no metrics" },
        { action: "skip", count: 28, message: "no metrics" },
      ],
      filtered: 2,
    },
    {
      name: "spam filter off",
      steps: repeat(30, 0),
      options: { spamFilter: false },
      last: [{ action: "patch", count: 30, message: "no metrics" }],
      filtered: 0,
    },
    {
      name: "spam filter with its own burst",
      steps: repeat(3, 0),
      options: { spamFilter: { burst: 2, qps: 1 } },
      last: [{ action: "skip", count: 3, message: "no metrics" }],
      filtered: 1,
    },
    {
      name: "40 FailedGetScale every 15s: 25 written, then one per 5 minutes",
      steps: repeat(40, 15_000),
      // The burst of 25 is spent by 6 minutes; 39 × 15s refills less than 2 tokens: one more.
      last: [
        { action: "skip", count: 39, message: "no metrics" },
        { action: "skip", count: 40, message: "no metrics" },
      ],
      filtered: 14,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { correlator, out } = run(c.steps, c.options);
      assert.deepEqual(out.slice(-c.last.length).map(summary), c.last);
      if (c.filtered !== undefined) assert.equal(correlator.filtered, c.filtered);
    });
  }

  it("makes the Event as client-go's recorder does", () => {
    const { out } = run([{ at: 0, event: failed() }]);
    const nanos = (BigInt(T) * 1_000_000n).toString(16);
    assert.deepEqual(out[0], {
      action: "create",
      event: {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `web.${nanos}`, namespace: "default" },
        involvedObject: {
          kind: "HorizontalPodAutoscaler",
          namespace: "default",
          name: "web",
          uid: "uid-1",
          apiVersion: "autoscaling/v2",
          resourceVersion: "42",
        },
        reason: "FailedGetScale",
        message: "no metrics",
        source: { component: "horizontal-pod-autoscaler" },
        firstTimestamp: rfc3339(T),
        lastTimestamp: rfc3339(T),
        count: 1,
        type: "Warning",
        eventTime: null,
        reportingComponent: "horizontal-pod-autoscaler",
        reportingInstance: "",
      },
    });
  });

  it("a patch names the first event and carries count, lastTimestamp and message", () => {
    const { out } = run(repeat(2, 60_000));
    const [first, second] = out as [Correlation, Correlation];
    assert.equal(second.action, "patch");
    assert.equal(second.event.metadata.name, first.event.metadata.name);
    assert.equal(second.event.firstTimestamp, rfc3339(T));
    assert.deepEqual(second.action === "patch" && second.patch, {
      count: 2,
      lastTimestamp: rfc3339(T + 60_000),
      message: "no metrics",
    });
  });

  it("empty reference fields are left out; a host is the source's and reportingInstance", () => {
    const correlator = new EventCorrelator({ component: "c", host: "h" });
    const c = correlator.correlate(
      hpa({ namespace: undefined, uid: undefined, resourceVersion: undefined }),
      failed(),
      T,
    );
    assert.deepEqual(c.event.involvedObject, {
      kind: "HorizontalPodAutoscaler",
      name: "web",
      apiVersion: "autoscaling/v2",
    });
    assert.equal(c.event.metadata.namespace, "default");
    assert.deepEqual(c.event.source, { component: "c", host: "h" });
    assert.equal(c.event.reportingInstance, "h");
  });

  it("names events of the same millisecond apart, strictly increasing", () => {
    const { out } = run([
      { at: 0, event: failed("a") },
      { at: 0, event: failed("b") },
      { at: -5, event: failed("c") },
    ]);
    const base = BigInt(T) * 1_000_000n;
    assert.deepEqual(
      out.map((c) => c.event.metadata.name),
      [0n, 1n, 2n].map((d) => `web.${(base + d).toString(16)}`),
    );
  });

  const updates = [
    {
      name: "the server's name is used by the next repeat",
      written: { name: "web.renamed", count: 2 },
      next: { name: "web.renamed", count: 3 },
    },
    {
      name: "a higher count from the server is continued",
      written: { name: "web.renamed", count: 7 },
      next: { name: "web.renamed", count: 8 },
    },
    {
      name: "a late answer with a lower count does not take back repeats observed since",
      written: { name: "web.renamed", count: 1 },
      next: { name: "first", count: 3 },
    },
  ];
  for (const c of updates) {
    it(`updateState: ${c.name}`, () => {
      const correlator = new EventCorrelator();
      const first = correlator.correlate(hpa(), failed(), T);
      correlator.correlate(hpa(), failed(), T + 1000);
      correlator.updateState(first.event, {
        metadata: { name: c.written.name },
        count: c.written.count,
      });
      const next = correlator.correlate(hpa(), failed(), T + 2000);
      assert.deepEqual(
        {
          name:
            next.event.metadata.name === first.event.metadata.name
              ? "first"
              : next.event.metadata.name,
          count: next.event.count,
        },
        c.next,
      );
    });
  }
});
