// Leader election: the pure decisions as tables, the Lease mapping, and candidates over one
// Lease in the in-process API server, stepped on a fake clock.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  candidateRecord,
  decideAcquireOrRenew,
  defaultLeaderElectionConfig,
  fastPathRenewal,
  isLeaseValid,
  JITTER_FACTOR,
  jitter,
  type LeaderElectionConfig,
  type LeaderElectionRecord,
  LeaderElector,
  type LockRead,
  type LockResult,
  NO_OBSERVATION,
  type Observation,
  observeRead,
  type ResourceLock,
  recordFingerprint,
  releaseRecord,
  type StopReason,
  validateLeaderElectionConfig,
} from "../../src/controller/leaderelection.js";
import type { Timers } from "../../src/controller/workqueue.js";
import {
  defaultIdentity,
  formatMicroTime,
  type Lease,
  LeaseLock,
  leasePath,
  leaseSpecFromRecord,
  parseMicroTime,
  recordFromLeaseSpec,
} from "../../src/kube/lease.js";
import { inProcessClient } from "../kube/harness.js";
import { FakeTimers } from "./fake-timers.js";

const T = Date.UTC(2026, 10, 22, 10, 0, 0);
const s = (seconds: number) => T + seconds * 1000;

function record(overrides: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord {
  return {
    holderIdentity: "other",
    leaseDurationSeconds: 15,
    acquireTime: s(-100),
    renewTime: s(-1),
    leaseTransitions: 3,
    ...overrides,
  };
}

function seen(rec: LeaderElectionRecord, atSecond: number): Observation {
  return observeRead(NO_OBSERVATION, rec, s(atSecond));
}

describe("leader election decisions", () => {
  const decideCases: {
    name: string;
    current: LeaderElectionRecord;
    observed: Observation;
    now: number;
    expected: { action: "update" | "wait"; transitions?: number; acquireTime?: number | null };
  }[] = [
    {
      name: "no holder: acquire, one more transition",
      current: record({ holderIdentity: "" }),
      observed: seen(record({ holderIdentity: "" }), 0),
      now: s(0),
      expected: { action: "update", transitions: 4, acquireTime: s(0) },
    },
    {
      name: "another holder seen changing 14.9s ago: wait",
      current: record(),
      observed: seen(record(), 0),
      now: s(14.9),
      expected: { action: "wait" },
    },
    {
      name: "another holder not seen changing for the lease duration: take over",
      current: record(),
      observed: seen(record(), 0),
      now: s(15),
      expected: { action: "update", transitions: 4, acquireTime: s(15) },
    },
    {
      name: "expiry is local: renewTime an hour old but seen changing 1s ago: wait",
      current: record({ renewTime: s(-3600) }),
      observed: seen(record({ renewTime: s(-3600) }), 0),
      now: s(1),
      expected: { action: "wait" },
    },
    {
      name: "expiry is local: renewTime in the future but unchanged for 15s: take over",
      current: record({ renewTime: s(3600) }),
      observed: seen(record({ renewTime: s(3600) }), 0),
      now: s(15),
      expected: { action: "update", transitions: 4 },
    },
    {
      name: "the holder's leaseDurationSeconds counts, not ours: a released 1s lease",
      current: record({ holderIdentity: "", leaseDurationSeconds: 1 }),
      observed: seen(record({ holderIdentity: "", leaseDurationSeconds: 1 }), 0),
      now: s(0),
      expected: { action: "update", transitions: 4 },
    },
    {
      name: "a 60s lease held by another is still valid at 30s",
      current: record({ leaseDurationSeconds: 60 }),
      observed: seen(record({ leaseDurationSeconds: 60 }), 0),
      now: s(30),
      expected: { action: "wait" },
    },
    {
      name: "held by us: renew, keeping acquireTime and transitions",
      current: record({ holderIdentity: "me" }),
      observed: seen(record({ holderIdentity: "me" }), 0),
      now: s(2),
      expected: { action: "update", transitions: 3, acquireTime: s(-100) },
    },
    {
      name: "held by us even if expired locally: renew",
      current: record({ holderIdentity: "me" }),
      observed: seen(record({ holderIdentity: "me" }), 0),
      now: s(60),
      expected: { action: "update", transitions: 3, acquireTime: s(-100) },
    },
  ];
  for (const c of decideCases) {
    it(`decide: ${c.name}`, () => {
      const decision = decideAcquireOrRenew({
        observed: c.observed,
        current: c.current,
        identity: "me",
        leaseDurationMs: 15_000,
        now: c.now,
      });
      assert.equal(decision.action, c.expected.action);
      if (decision.action === "update") {
        assert.equal(decision.record.holderIdentity, "me");
        assert.equal(decision.record.leaseDurationSeconds, 15);
        assert.equal(decision.record.renewTime, c.now);
        if (c.expected.transitions !== undefined)
          assert.equal(decision.record.leaseTransitions, c.expected.transitions);
        if (c.expected.acquireTime !== undefined)
          assert.equal(decision.record.acquireTime, c.expected.acquireTime);
      }
    });
  }

  const observeCases: {
    name: string;
    first: LeaderElectionRecord;
    second: LeaderElectionRecord;
    expectedTime: number;
  }[] = [
    {
      name: "an unchanged record keeps the first observation time",
      first: record(),
      second: record(),
      expectedTime: s(0),
    },
    {
      name: "a renewal moves the observation time",
      first: record(),
      second: record({ renewTime: s(1) }),
      expectedTime: s(10),
    },
    {
      name: "a renewal within the same second is no change (client-go compares metav1.Time JSON)",
      first: record({ renewTime: s(1.2) }),
      second: record({ renewTime: s(1.7) }),
      expectedTime: s(0),
    },
    {
      name: "a new holder moves the observation time",
      first: record(),
      second: record({ holderIdentity: "third" }),
      expectedTime: s(10),
    },
  ];
  for (const c of observeCases) {
    it(`observe: ${c.name}`, () => {
      const once = observeRead(NO_OBSERVATION, c.first, s(0));
      assert.equal(observeRead(once, c.second, s(10)).time, c.expectedTime);
    });
  }

  const fastPathCases: {
    name: string;
    observed: Observation;
    now: number;
    expectRenewal: boolean;
  }[] = [
    {
      name: "leader with a valid lease renews without reading",
      observed: seen(record({ holderIdentity: "me" }), 0),
      now: s(2),
      expectRenewal: true,
    },
    {
      name: "leader whose own lease expired locally reads first",
      observed: seen(record({ holderIdentity: "me" }), 0),
      now: s(15),
      expectRenewal: false,
    },
    {
      name: "a standby has no fast path",
      observed: seen(record(), 0),
      now: s(2),
      expectRenewal: false,
    },
    { name: "nothing observed yet", observed: NO_OBSERVATION, now: s(0), expectRenewal: false },
  ];
  for (const c of fastPathCases) {
    it(`fast path: ${c.name}`, () => {
      const renewal = fastPathRenewal(c.observed, "me", 15_000, c.now);
      assert.equal(renewal !== null, c.expectRenewal);
      if (renewal) {
        assert.equal(renewal.acquireTime, s(-100));
        assert.equal(renewal.leaseTransitions, 3);
        assert.equal(renewal.renewTime, c.now);
      }
    });
  }

  it("release: no holder, a 1s lease, acquire and renew now, transitions kept", () => {
    assert.deepEqual(releaseRecord(record({ holderIdentity: "me", leaseTransitions: 7 }), s(5)), {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: s(5),
      renewTime: s(5),
      leaseTransitions: 7,
    });
  });

  it("lease durations are written in whole seconds (truncated)", () => {
    assert.equal(candidateRecord("me", 15_999, s(0)).leaseDurationSeconds, 15);
  });

  it("isLeaseValid: valid strictly before observation + duration", () => {
    const observed = seen(record(), 0);
    assert.equal(isLeaseValid(observed, s(14.999)), true);
    assert.equal(isLeaseValid(observed, s(15)), false);
  });

  const configCases: { name: string; config: Partial<LeaderElectionConfig>; errors: string[] }[] = [
    { name: "kube-controller-manager's defaults are valid", config: {}, errors: [] },
    {
      name: "lease duration must exceed the renew deadline",
      config: { leaseDurationMs: 10_000 },
      errors: ["leaseDuration must be greater than renewDeadline"],
    },
    {
      name: "renew deadline must exceed retry period × 1.2",
      config: { retryPeriodMs: 9_000 },
      errors: ["renewDeadline must be greater than retryPeriod*JitterFactor"],
    },
  ];
  for (const c of configCases) {
    it(`config: ${c.name}`, () => {
      assert.deepEqual(
        validateLeaderElectionConfig({ ...defaultLeaderElectionConfig(), ...c.config }),
        c.errors,
      );
    });
  }

  it("property: jittered retry waits lie in [period, period × (1 + 1.2))", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (period, r) => {
          const wait = jitter(period, JITTER_FACTOR, () => r);
          return wait >= period && wait < period * (1 + JITTER_FACTOR);
        },
      ),
    );
  });

  it("property: the fingerprint changes exactly when a field changes at second precision", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (a, b) => {
          const changed =
            recordFingerprint(record({ renewTime: a })) !==
            recordFingerprint(record({ renewTime: b }));
          return changed === (Math.floor(a / 1000) !== Math.floor(b / 1000));
        },
      ),
    );
  });
});

describe("Lease mapping (src/kube/lease.ts)", () => {
  const timeCases: { name: string; text: string; expected: number | null }[] = [
    { name: "six fractional digits", text: "2026-11-22T10:00:00.123456Z", expected: T + 123 },
    { name: "no fraction", text: "2026-11-22T10:00:00Z", expected: T },
    { name: "an offset", text: "2026-11-22T11:00:00.5+01:00", expected: T + 500 },
    { name: "not a time", text: "yesterday", expected: null },
  ];
  for (const c of timeCases) {
    it(`parseMicroTime: ${c.name}`, () => assert.equal(parseMicroTime(c.text), c.expected));
  }

  it("MicroTime is written with exactly six fractional digits", () => {
    assert.equal(formatMicroTime(T + 123), "2026-11-22T10:00:00.123000Z");
    assert.equal(formatMicroTime(T), "2026-11-22T10:00:00.000000Z");
  });

  it("a record survives the spec round trip", () => {
    const rec = record({ holderIdentity: "me", renewTime: T + 456 });
    assert.deepEqual(recordFromLeaseSpec(leaseSpecFromRecord(rec)), rec);
  });

  it("a spec with missing fields reads as zero values", () => {
    assert.deepEqual(recordFromLeaseSpec({}), {
      holderIdentity: "",
      leaseDurationSeconds: 0,
      acquireTime: null,
      renewTime: null,
      leaseTransitions: 0,
    });
  });

  it("the default identity is hostname_uuid", () => {
    assert.match(
      defaultIdentity(),
      /^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  it("recordEvent: client-go's LeaderElection event on the Lease as last written", async () => {
    const { client } = inProcessClient();
    const recorded: { ref: unknown; event: unknown; now: number }[] = [];
    const lock = new LeaseLock({
      client,
      namespace: "kube-system",
      name: "horizon",
      identity: "host_1",
      events: { recordFor: (ref, event, now) => recorded.push({ ref, event, now }) },
      now: () => T,
    });
    const created = await lock.create(record({ holderIdentity: "host_1" }));
    assert.ok(created.ok);
    lock.recordEvent("became leader");
    const lease = lock.current()!;
    assert.deepEqual(recorded, [
      {
        ref: {
          kind: "Lease",
          apiVersion: "coordination.k8s.io/v1",
          namespace: "kube-system",
          name: "horizon",
          uid: lease.metadata.uid,
          resourceVersion: lease.metadata.resourceVersion,
        },
        event: { type: "Normal", reason: "LeaderElection", message: "host_1 became leader" },
        now: T,
      },
    ]);
    assert.match(String(lease.metadata.uid), /./);
  });

  it("an update on a stale resourceVersion is a 409 Conflict", async () => {
    const { client } = inProcessClient();
    const a = new LeaseLock({ client, namespace: "kube-system", name: "l", identity: "a" });
    const b = new LeaseLock({ client, namespace: "kube-system", name: "l", identity: "b" });
    assert.equal((await a.get()).ok, false);
    assert.deepEqual(await a.create(candidateRecord("a", 15_000, T)), { ok: true });
    assert.equal((await b.get()).ok, true);
    assert.deepEqual(await a.update(candidateRecord("a", 15_000, T + 2000)), { ok: true });
    const lost = await b.update(candidateRecord("b", 15_000, T + 2000));
    assert.equal(lost.ok, false);
    assert.equal(!lost.ok && lost.error.status, 409);
    const lease = a.current()!;
    assert.equal(lease.spec?.renewTime, "2026-11-22T10:00:02.000000Z");
  });
});

/** Another machine's clock: same timers, `now` shifted. */
function skewed(timers: FakeTimers, skewMs: number): Timers {
  return {
    now: () => timers.now() + skewMs,
    setTimeout: (callback, delayMs) => timers.setTimeout(callback, delayMs),
    clearTimeout: (handle) => timers.clearTimeout(handle),
  };
}

/** A lock that can crash: every call then hangs forever. Logs successful writes. */
class CrashableLock implements ResourceLock {
  crashed = false;
  failing = false;
  writes: { at: number; record: LeaderElectionRecord }[] = [];
  /** recordEvent's calls, with the holder the last write left. */
  recorded: { what: string; holder: string | undefined }[] = [];
  constructor(
    private readonly inner: LeaseLock,
    private readonly timers: FakeTimers,
  ) {}
  get identity() {
    return this.inner.identity;
  }
  describe() {
    return this.inner.describe();
  }
  private guard<T extends LockRead | LockResult>(call: () => Promise<T>): Promise<T> {
    if (this.crashed) return new Promise<T>(() => {});
    if (this.failing)
      return Promise.resolve({ ok: false, error: { status: 500, message: "etcd down" } } as T);
    return call();
  }
  get(signal?: AbortSignal) {
    return this.guard(() => this.inner.get(signal));
  }
  recordEvent(what: string) {
    this.recorded.push({ what, holder: this.writes.at(-1)?.record.holderIdentity });
  }
  create(rec: LeaderElectionRecord, signal?: AbortSignal) {
    return this.guard(async () => {
      const result = await this.inner.create(rec, signal);
      if (result.ok) this.writes.push({ at: this.timers.now(), record: rec });
      return result;
    });
  }
  update(rec: LeaderElectionRecord, signal?: AbortSignal) {
    return this.guard(async () => {
      const result = await this.inner.update(rec, signal);
      if (result.ok) this.writes.push({ at: this.timers.now(), record: rec });
      return result;
    });
  }
}

interface Candidate {
  name: string;
  lock: CrashableLock;
  elector: LeaderElector;
  started: number[];
  stopped: { at: number; reason: StopReason }[];
  done: Promise<void>;
}

function election(options: { skewMs?: Record<string, number>; names?: string[] } = {}) {
  const timers = new FakeTimers(T);
  const harness = inProcessClient();
  const candidates = new Map<string, Candidate>();
  const bothLeading: number[] = [];
  for (const name of options.names ?? ["a", "b"]) {
    const lock = new CrashableLock(
      new LeaseLock({
        client: harness.client,
        namespace: "kube-system",
        name: "horizon",
        identity: name,
      }),
      timers,
    );
    const candidate: Candidate = {
      name,
      lock,
      started: [],
      stopped: [],
      done: Promise.resolve(),
      elector: undefined as unknown as LeaderElector,
    };
    candidate.elector = new LeaderElector({
      lock,
      config: defaultLeaderElectionConfig(),
      timers: skewed(timers, options.skewMs?.[name] ?? 0),
      random: () => 0.5, // retry waits 2s + 0.5 × 1.2 × 2s = 3.2s
      callbacks: {
        onStartedLeading: () => candidate.started.push(timers.now()),
        onStoppedLeading: (reason) => {
          candidate.stopped.push({ at: timers.now(), reason });
        },
      },
    });
    candidates.set(name, candidate);
  }
  const leaders = () =>
    [...candidates.values()].filter((c) => c.elector.isLeading()).map((c) => c.name);
  /** Steps time in 100 ms steps, checking that no two candidates lead at once. */
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      await timers.advance(100);
      if (leaders().length > 1) bothLeading.push(timers.now());
    }
  };
  const start = (name: string) => {
    const c = candidates.get(name)!;
    c.done = c.elector.run();
  };
  const lease = async () =>
    (
      await harness.client.request<Lease>({
        method: "GET",
        path: leasePath("kube-system", "horizon"),
      })
    ).body;
  const stopAll = async () => {
    const stops = [...candidates.values()].map((c) => c.elector.stop());
    await run(12_000);
    await Promise.all(stops);
  };
  return {
    timers,
    candidates,
    leaders,
    run,
    start,
    lease,
    bothLeading,
    stopAll,
    get: (n: string) => candidates.get(n)!,
  };
}

describe("LeaderElector over a Lease in the in-process API server", () => {
  it("one candidate leads; the other waits while the leader renews", async () => {
    const e = election();
    e.start("a");
    await e.run(1_000);
    e.start("b");
    await e.run(60_000);
    assert.deepEqual(e.leaders(), ["a"]);
    assert.deepEqual(e.get("a").started, [T]);
    assert.deepEqual(e.get("b").started, []);
    assert.equal(e.get("b").elector.getLeader(), "a");
    const lease = await e.lease();
    assert.equal(lease.spec?.holderIdentity, "a");
    assert.equal(lease.spec?.leaseDurationSeconds, 15);
    assert.equal(lease.spec?.leaseTransitions, 0);
    assert.match(lease.spec.renewTime!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    // Acquired, renewed at once (the renew loop polls immediately, as client-go's), then
    // every retry period (2s) after each success.
    const writes = e.get("a").lock.writes.map((w) => w.at - T);
    assert.deepEqual(writes.slice(0, 5), [0, 0, 2000, 4000, 6000]);
    assert.deepEqual(e.bothLeading, []);
    await e.stopAll();
  });

  it("after the leader crashes, the other takes over only a lease duration after it last saw the record change, by its own clock", async () => {
    // The leader's clock is an hour behind: its renewTime looks long expired to anyone
    // comparing it with their own clock. Expiry must be judged from the local observation.
    const e = election({ skewMs: { a: -3_600_000 } });
    e.start("a");
    await e.run(1_000);
    e.start("b");
    await e.run(20_000);
    assert.deepEqual(e.leaders(), ["a"], "a's old-looking renewTime did not fool b");
    e.get("a").lock.crashed = true;
    const lastRenewal = e.get("a").lock.writes.at(-1)!.at;
    await e.run(40_000);
    assert.deepEqual(e.leaders(), ["b"]);
    const takeover = e.get("b").started[0]!;
    // b saw the last change at its first poll after lastRenewal (polls are 3.2s apart).
    assert.ok(
      takeover >= lastRenewal + 15_000,
      `took over ${takeover - lastRenewal}ms after the last renewal`,
    );
    assert.ok(takeover <= lastRenewal + 3_200 + 15_000 + 3_200);
    // a gave up at its renew deadline, before b started.
    const aLost = e.get("a").stopped[0]!;
    assert.equal(aLost.reason, "lost");
    assert.ok(aLost.at < takeover);
    const lease = await e.lease();
    assert.equal(lease.spec?.holderIdentity, "b");
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.deepEqual(e.bothLeading, []);
    await e.stopAll();
  });

  it("a leader whose renewals fail stops leading at its renew deadline", async () => {
    const e = election({ names: ["a"] });
    e.start("a");
    await e.run(5_000);
    const lastSuccess = e.get("a").lock.writes.at(-1)!.at;
    e.get("a").lock.failing = true;
    await e.run(20_000);
    // The renew deadline counts from the last successful renewal (client-go counts it from the
    // start of the round, a retry period later): no write is allowed past it, so leading ends.
    assert.deepEqual(e.get("a").stopped, [{ at: lastSuccess + 10_000, reason: "lost" }]);
    assert.equal(e.get("a").elector.isLeading(), false);
    // client-go's renew records "stopped leading" as it returns, lost or not.
    assert.deepEqual(
      e.get("a").lock.recorded.map((r) => r.what),
      ["became leader", "stopped leading"],
    );
    await e.stopAll();
  });

  it("mayWrite: only while the last renewal is younger than the renew deadline; asking past it ends leading at once", async () => {
    const e = election({ names: ["a"] });
    assert.equal(e.get("a").elector.mayWrite(), false, "not leading yet");
    e.start("a");
    await e.run(5_000);
    assert.equal(e.get("a").elector.mayWrite(), true);
    const lastSuccess = e.get("a").lock.writes.at(-1)!.at;
    // Frozen (SIGSTOP): the renewals stop, time goes on; no timer has fired yet on resuming.
    e.get("a").lock.crashed = true;
    e.timers.current = lastSuccess + 9_999;
    assert.equal(e.get("a").elector.mayWrite(), true, "just within the renew deadline");
    e.timers.current = lastSuccess + 10_000;
    assert.equal(e.get("a").elector.mayWrite(), false, "the renew deadline has passed");
    await e.run(100);
    // Asking ended the renewal loop at once (it would have waited for its timers).
    assert.deepEqual(e.get("a").stopped, [{ at: lastSuccess + 10_000, reason: "lost" }]);
    assert.equal(e.get("a").elector.isLeading(), false);
    await e.stopAll();
  });

  it("release on stop lets the other take over at once", async () => {
    const e = election();
    e.start("a");
    await e.run(1_000);
    e.start("b");
    await e.run(10_000);
    const stopping = e.get("a").elector.stop();
    await e.run(200);
    await stopping;
    assert.deepEqual(
      e.get("a").stopped.map((x) => x.reason),
      ["stopped"],
    );
    const released = await e.lease();
    assert.equal(released.spec?.holderIdentity, "");
    // "became leader" once acquired; "stopped leading" after the release, as client-go's renew
    // (ReleaseOnCancel) returns. The standby records nothing.
    assert.deepEqual(e.get("a").lock.recorded, [
      { what: "became leader", holder: "a" },
      { what: "stopped leading", holder: "" },
    ]);
    assert.deepEqual(e.get("b").lock.recorded, []);
    assert.equal(released.spec?.leaseDurationSeconds, 1);
    const stoppedAt = e.timers.now();
    await e.run(5_000);
    assert.deepEqual(e.leaders(), ["b"]);
    assert.ok(e.get("b").started[0]! - stoppedAt <= 3_200, "b's next retry took it");
    assert.equal((await e.lease()).spec?.leaseTransitions, 1);
    assert.deepEqual(e.bothLeading, []);
    await e.stopAll();
  });

  it("a graceful stop keeps renewing until the guarded work has finished, then releases", async () => {
    const timers = new FakeTimers(T);
    const { client } = inProcessClient();
    const lock = new LeaseLock({
      client,
      namespace: "kube-system",
      name: "horizon",
      identity: "a",
    });
    const events: string[] = [];
    const elector = new LeaderElector({
      lock,
      config: defaultLeaderElectionConfig(),
      timers,
      random: () => 0,
      callbacks: {
        onStartedLeading: () => events.push(`started ${timers.now() - T}`),
        onStoppedLeading: async (reason) => {
          events.push(`stopping (${reason}) ${timers.now() - T}`);
          // In-flight syncs take 30s: longer than the lease duration.
          await new Promise<void>((resolve) => timers.setTimeout(resolve, 30_000));
          events.push(`drained ${timers.now() - T}`);
        },
      },
    });
    const done = elector.run();
    await timers.advance(1_000);
    const stopping = elector.stop();
    await timers.advance(20_000);
    const during = await lock.get();
    assert.ok(during.ok && during.record.holderIdentity === "a", "still held while draining");
    assert.ok(during.ok && during.record.renewTime! >= T + 18_000, "and still renewed");
    await timers.advance(20_000);
    await stopping;
    await done;
    assert.deepEqual(events, ["started 0", "stopping (stopped) 1000", "drained 31000"]);
    const after = await lock.get();
    assert.ok(after.ok && after.record.holderIdentity === "");
  });

  it("candidates starting at the same instant: exactly one wins the race (409 for the other)", async () => {
    const e = election({ names: ["a", "b", "c"] });
    e.start("a");
    e.start("b");
    e.start("c");
    await e.run(30_000);
    assert.equal(e.leaders().length, 1);
    assert.deepEqual(e.bothLeading, []);
    await e.stopAll();
  });

  it("stop before acquiring ends the campaign without callbacks", async () => {
    const e = election();
    e.start("a");
    await e.run(1_000);
    e.start("b");
    await e.run(1_000);
    await e.get("b").elector.stop();
    assert.deepEqual(e.get("b").started, []);
    assert.deepEqual(e.get("b").stopped, []);
    assert.equal((await e.lease()).spec?.holderIdentity, "a");
    await e.stopAll();
  });

  it("refuses a config client-go refuses", () => {
    const { client } = inProcessClient();
    assert.throws(
      () =>
        new LeaderElector({
          lock: new LeaseLock({ client, namespace: "kube-system", name: "x", identity: "a" }),
          config: { ...defaultLeaderElectionConfig(), leaseDurationMs: 5_000 },
          callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
        }),
      /leaseDuration must be greater than renewDeadline/,
    );
  });
});
