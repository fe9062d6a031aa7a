// Leader election as client-go's tools/leaderelection (LeaderElector with a LeaseLock), so
// replicas of the controller run active/standby and never both write:
// - a candidate acquires when the record has no holder, or when it has not seen the record
//   change for the record's leaseDurationSeconds on its OWN clock (observedTime), never by
//   comparing renewTime with its clock (clocks of two machines need not agree);
// - the leader renews every retry period; when it has not renewed for renewDeadline (on its
//   own clock, from its last successful renewal, so a leader frozen by SIGSTOP or a long pause
//   past it has lost on resuming) it stops leading (the others wait a full lease duration,
//   which is longer); `mayWrite` tells the guarded work whether it may still write;
// - writes use the Lease's resourceVersion: a 409 means another candidate won the race;
// - on a graceful stop the leader releases: holder "", leaseDurationSeconds 1, as client-go.
// The decisions are pure functions of the observed state and `now`; LeaderElector runs them on
// injectable timers.
import { systemTimers, type Timers } from "./workqueue.js";

/** Why a lock read or write failed: the HTTP status (0 when no answer came) and the Status's
 * reason and message (the Kubernetes adapter's API errors have this shape). */
export interface LockError {
  status: number;
  reason?: string;
  message: string;
}

/** client-go's LeaderElectionRecord, times as epoch ms (null when the Lease has none). */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number | null;
  renewTime: number | null;
  leaseTransitions: number;
  /** Coordinated leader election fields: read, never written (client-go drops them too). */
  strategy?: string;
  preferredHolder?: string;
}

export type LockResult = { ok: true } | { ok: false; error: LockError };
export type LockRead = { ok: true; record: LeaderElectionRecord } | { ok: false; error: LockError };

/** client-go's resourcelock.Interface (src/kube/lease.ts implements it over a Lease). */
export interface ResourceLock {
  readonly identity: string;
  /** `namespace/name`, for logs. */
  describe(): string;
  /** Reads the record and remembers the object's resourceVersion for the next update. */
  get(signal?: AbortSignal): Promise<LockRead>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockResult>;
  /** Replaces the record on the last object read or written (409 when it changed since). */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockResult>;
  /** client-go's RecordEvent: "became leader", "stopped leading" (an Event on the lock). */
  recordEvent?(what: string): void;
}

/** client-go's leaderelection.JitterFactor. */
export const JITTER_FACTOR = 1.2;

/** One typed config; field names follow kube-controller-manager's flags. */
export interface LeaderElectionConfig {
  /** --leader-elect-lease-duration: how long standbys wait after the record last changed. */
  leaseDurationMs: number;
  /** --leader-elect-renew-deadline: how long the leader retries a renewal before it gives up. */
  renewDeadlineMs: number;
  /** --leader-elect-retry-period: between attempts to acquire or renew. */
  retryPeriodMs: number;
  /** client-go's ReleaseOnCancel: release the lease when stopped. */
  releaseOnCancel: boolean;
  /** How long the release on a stop may take (default renewDeadlineMs): one bounded attempt. */
  releaseTimeoutMs?: number;
}

/** kube-controller-manager's defaults (15s / 10s / 2s); Horizon releases on a graceful stop. */
export function defaultLeaderElectionConfig(): LeaderElectionConfig {
  return {
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    releaseOnCancel: true,
  };
}

/** client-go's NewLeaderElector checks, with its messages. */
export function validateLeaderElectionConfig(config: LeaderElectionConfig): string[] {
  const errors: string[] = [];
  if (config.leaseDurationMs <= config.renewDeadlineMs)
    errors.push("leaseDuration must be greater than renewDeadline");
  if (config.renewDeadlineMs <= JITTER_FACTOR * config.retryPeriodMs)
    errors.push("renewDeadline must be greater than retryPeriod*JitterFactor");
  if (config.leaseDurationMs < 1) errors.push("leaseDuration must be greater than zero");
  if (config.renewDeadlineMs < 1) errors.push("renewDeadline must be greater than zero");
  if (config.retryPeriodMs < 1) errors.push("retryPeriod must be greater than zero");
  return errors;
}

/** wait.Jitter: period + random × factor × period. */
export function jitter(periodMs: number, factor: number, random: () => number): number {
  return periodMs + random() * factor * periodMs;
}

/** What one candidate has seen of the record (client-go's observedRecord/RawRecord/Time). */
export interface Observation {
  record: LeaderElectionRecord | null;
  /** Fingerprint of the last record read with get (client-go's observedRawRecord). */
  rawKey: string | null;
  /** Local time the record was last seen to change, or last written by this candidate. */
  time: number;
}

export const NO_OBSERVATION: Observation = { record: null, rawKey: null, time: 0 };

/**
 * client-go compares the JSON of the record, whose times are metav1.Time (RFC 3339 at second
 * precision): a renewal within the same second as the last one seen is not a change.
 */
export function recordFingerprint(record: LeaderElectionRecord): string {
  const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    seconds(record.acquireTime),
    seconds(record.renewTime),
    record.leaseTransitions,
    record.strategy ?? "",
    record.preferredHolder ?? "",
  ]);
}

/** A record read from the server: the observation time moves only when the record changed. */
export function observeRead(
  observed: Observation,
  record: LeaderElectionRecord,
  now: number,
): Observation {
  const rawKey = recordFingerprint(record);
  if (rawKey === observed.rawKey) return observed;
  return { record, rawKey, time: now };
}

/** A record this candidate wrote (client-go's setObservedRecord: the raw record is kept). */
export function observeWrite(
  observed: Observation,
  record: LeaderElectionRecord,
  now: number,
): Observation {
  return { record, rawKey: observed.rawKey, time: now };
}

export function isLeaderIn(observed: Observation, identity: string): boolean {
  return (observed.record?.holderIdentity ?? "") === identity && identity !== "";
}

/** The lease is valid until leaseDurationSeconds after it was last seen to change (local clock). */
export function isLeaseValid(observed: Observation, now: number): boolean {
  const seconds = observed.record?.leaseDurationSeconds ?? 0;
  return observed.time + seconds * 1000 > now;
}

/** The record a candidate writes to take or keep the lease at `now`. */
export function candidateRecord(
  identity: string,
  leaseDurationMs: number,
  now: number,
): LeaderElectionRecord {
  return {
    holderIdentity: identity,
    // int(LeaseDuration / time.Second): whole seconds, truncated.
    leaseDurationSeconds: Math.trunc(leaseDurationMs / 1000),
    acquireTime: now,
    renewTime: now,
    leaseTransitions: 0,
  };
}

/**
 * The leader's fast path: while it holds a lease that is still valid by its own observation, it
 * renews on the object it last wrote without reading first (a 409 sends it to the slow path).
 */
export function fastPathRenewal(
  observed: Observation,
  identity: string,
  leaseDurationMs: number,
  now: number,
): LeaderElectionRecord | null {
  if (!isLeaderIn(observed, identity) || !isLeaseValid(observed, now)) return null;
  const held = observed.record!;
  return {
    ...candidateRecord(identity, leaseDurationMs, now),
    acquireTime: held.acquireTime,
    leaseTransitions: held.leaseTransitions,
  };
}

export type AcquireDecision =
  | { action: "update"; record: LeaderElectionRecord; renewal: boolean }
  | { action: "wait"; holder: string };

/**
 * The slow path, after `observeRead` of the record just read: wait while another holder's
 * lease is valid; else write our record (a renewal keeps acquireTime and transitions, a
 * takeover counts one more transition).
 */
export function decideAcquireOrRenew(input: {
  observed: Observation;
  current: LeaderElectionRecord;
  identity: string;
  leaseDurationMs: number;
  now: number;
}): AcquireDecision {
  const { observed, current, identity, now } = input;
  const leader = isLeaderIn(observed, identity);
  if (current.holderIdentity !== "" && isLeaseValid(observed, now) && !leader) {
    return { action: "wait", holder: current.holderIdentity };
  }
  const record = candidateRecord(identity, input.leaseDurationMs, now);
  if (leader) {
    return {
      action: "update",
      renewal: true,
      record: {
        ...record,
        acquireTime: current.acquireTime,
        leaseTransitions: current.leaseTransitions,
      },
    };
  }
  return {
    action: "update",
    renewal: false,
    record: { ...record, leaseTransitions: current.leaseTransitions + 1 },
  };
}

/** client-go's release: no holder, a one-second lease, transitions kept. */
export function releaseRecord(current: LeaderElectionRecord, now: number): LeaderElectionRecord {
  return {
    holderIdentity: "",
    leaseDurationSeconds: 1,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: current.leaseTransitions,
  };
}

/** Why leading ended: the renew deadline passed, or stop() was called. */
export type StopReason = "lost" | "stopped";

export interface LeaderCallbacks {
  /** This candidate leads: start the work the lease guards. */
  onStartedLeading(): void;
  /**
   * Leading ended. On "stopped" the lease is still renewed until the returned promise settles
   * (finish in-flight work there), and released after; on "lost" stop all work at once.
   */
  onStoppedLeading(reason: StopReason): void | Promise<void>;
  /** The observed holder changed (including the first one seen; "" when released). */
  onNewLeader?(identity: string): void;
}

export type LeaderElectionLog = (
  level: "info" | "error" | "debug",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface LeaderElectorOptions {
  lock: ResourceLock;
  config: LeaderElectionConfig;
  callbacks: LeaderCallbacks;
  timers?: Timers;
  /** For the retry jitter; Math.random by default. */
  random?: () => number;
  log?: LeaderElectionLog;
}

type Deferred = { promise: Promise<void>; resolve: () => void };

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const ABORTED: LockError = { status: 0, message: "context deadline exceeded" };

export class LeaderElector {
  private readonly lock: ResourceLock;
  private readonly config: LeaderElectionConfig;
  private readonly callbacks: LeaderCallbacks;
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly log: LeaderElectionLog;

  private observed: Observation = NO_OBSERVATION;
  private reportedLeader = "";
  private leading = false;
  /** Local time (before sending) of the last successful acquire or renewal. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  /** Aborted when mayWrite finds the renew deadline passed: the renewal loop ends at once. */
  private deadlinePassed = new AbortController();
  private running: Promise<void> | null = null;
  private stopping = false;
  private readonly stopRequested = deferred();
  /** Aborts the acquire loop (and sleeps) on stop. */
  private readonly acquireAbort = new AbortController();

  constructor(options: LeaderElectorOptions) {
    const errors = validateLeaderElectionConfig(options.config);
    if (errors.length > 0) throw new Error(errors.join("; "));
    if (options.lock.identity === "") throw new Error("Lock identity is empty");
    this.lock = options.lock;
    this.config = options.config;
    this.callbacks = options.callbacks;
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => {});
  }

  get identity(): string {
    return this.lock.identity;
  }

  /** True between onStartedLeading and onStoppedLeading. */
  isLeading(): boolean {
    return this.leading;
  }

  /**
   * Whether the work this lease guards may write now: leading, the last record seen names this
   * candidate, and the last successful renewal is younger than renewDeadline on this clock.
   * Checked before each write; a leader past its deadline (resumed after a freeze) stops
   * leading at once instead of writing until its renewal loop notices.
   */
  mayWrite(): boolean {
    if (!this.leading) return false;
    if (
      this.timers.now() - this.renewedAt < this.config.renewDeadlineMs &&
      isLeaderIn(this.observed, this.identity)
    )
      return true;
    this.deadlinePassed.abort();
    return false;
  }

  /** The last observed holder ("" when none). */
  getLeader(): string {
    return this.observed.record?.holderIdentity ?? "";
  }

  /** The observation, for tests and /debug. */
  observation(): Observation {
    return this.observed;
  }

  /**
   * client-go's healthz Check: an error when this candidate believes it leads but has not
   * renewed for longer than the lease duration plus the tolerance.
   */
  check(maxTolerableExpiredMs: number): string | null {
    if (!isLeaderIn(this.observed, this.identity)) return null;
    if (
      this.timers.now() - this.observed.time >
      this.config.leaseDurationMs + maxTolerableExpiredMs
    )
      return `failed election to renew leadership on lease ${this.lock.describe()}`;
    return null;
  }

  /** Starts campaigning; resolves when leading ended or stop() ended the campaign. */
  run(): Promise<void> {
    this.running ??= this.campaign();
    return this.running;
  }

  /** Stops campaigning; if leading, renews until onStoppedLeading settles, then releases. */
  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.stopRequested.resolve();
      this.acquireAbort.abort();
    }
    return this.running ?? Promise.resolve();
  }

  private async campaign(): Promise<void> {
    this.log("info", `attempting to acquire leader lease ${this.lock.describe()}...`);
    const acquired = await this.acquire();
    if (!acquired) return;
    if (this.stopping) {
      if (this.config.releaseOnCancel) await this.release();
      return;
    }
    this.lock.recordEvent?.("became leader");
    this.log("info", `successfully acquired lease ${this.lock.describe()}`);
    this.leading = true;
    this.deadlinePassed = new AbortController();
    this.safely(() => this.callbacks.onStartedLeading());

    const renewAbort = new AbortController();
    const renewing = this.renew(renewAbort.signal).then((end) => {
      if (end === "lost") this.leading = false;
      return end;
    });
    const first = await Promise.race([renewing, this.stopRequested.promise.then(() => "stop")]);
    // client-go records "stopped leading" as renew returns (after its release), before
    // OnStoppedLeading runs.
    if (first === "lost") {
      this.leading = false;
      this.log("info", `failed to renew lease ${this.lock.describe()}: timed out`);
      this.lock.recordEvent?.("stopped leading");
      await this.safelyAsync(() => this.callbacks.onStoppedLeading("lost"));
      if (this.config.releaseOnCancel) await this.release();
    } else {
      // Keep the lease while the guarded work finishes, then stop renewing.
      await this.safelyAsync(() => this.callbacks.onStoppedLeading("stopped"));
      renewAbort.abort();
      await renewing;
      this.leading = false;
      if (this.config.releaseOnCancel) await this.release();
      this.lock.recordEvent?.("stopped leading");
    }
  }

  /** Tries at once, then every retry period with jitter, until it acquires or stop() is called. */
  private async acquire(): Promise<boolean> {
    const signal = this.acquireAbort.signal;
    while (!signal.aborted) {
      const acquired = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (acquired) return true;
      if (signal.aborted) return false;
      await this.sleep(jitter(this.config.retryPeriodMs, JITTER_FACTOR, this.random), signal);
    }
    return false;
  }

  /**
   * Rounds of renewal every retry period. A round retries every retry period until
   * renewDeadline after the last successful renewal (client-go counts from the round's start,
   * which a frozen leader would begin afresh on resuming); a round that does not succeed by
   * then, or that reads another holder, loses the lease.
   */
  private async renew(signal: AbortSignal): Promise<"lost" | "cancelled"> {
    const passed = this.deadlinePassed.signal;
    while (!signal.aborted) {
      const round = new AbortController();
      const abortRound = () => round.abort();
      signal.addEventListener("abort", abortRound, { once: true });
      passed.addEventListener("abort", abortRound, { once: true });
      const left = this.renewedAt + this.config.renewDeadlineMs - this.timers.now();
      const deadline = this.timers.setTimeout(abortRound, Math.max(0, left));
      let renewed = false;
      try {
        while (!round.signal.aborted && left > 0) {
          if (await this.tryAcquireOrRenew(round.signal)) {
            renewed = true;
            break;
          }
          if (round.signal.aborted || !isLeaderIn(this.observed, this.identity)) break;
          await this.sleep(this.config.retryPeriodMs, round.signal);
        }
      } finally {
        this.timers.clearTimeout(deadline);
        signal.removeEventListener("abort", abortRound);
        passed.removeEventListener("abort", abortRound);
      }
      this.maybeReportTransition();
      if (signal.aborted) return "cancelled";
      if (!renewed) return "lost";
      this.log("debug", `successfully renewed lease ${this.lock.describe()}`);
      await this.sleep(this.config.retryPeriodMs, AbortSignal.any([signal, passed]));
    }
    return "cancelled";
  }

  /** One attempt: the leader's fast path, else read (or create) and decide. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const identity = this.identity;
    const now = this.timers.now();
    const fast = fastPathRenewal(this.observed, identity, this.config.leaseDurationMs, now);
    if (fast) {
      const written = await this.bounded(this.lock.update(fast, signal), signal);
      if (written.ok) {
        this.observed = observeWrite(this.observed, fast, this.timers.now());
        this.renewedAt = now;
        return true;
      }
      this.log("error", "Failed to update lock optimistically, falling back to slow path", {
        error: written.error.message,
      });
    }
    if (signal.aborted) return false;

    const read = await this.bounded(this.lock.get(signal), signal);
    if (!read.ok) {
      if (read.error.status !== 404) {
        this.log("error", `error retrieving resource lock ${this.lock.describe()}`, {
          error: read.error.message,
        });
        return false;
      }
      const record = candidateRecord(identity, this.config.leaseDurationMs, now);
      const created = await this.bounded(this.lock.create(record, signal), signal);
      if (!created.ok) {
        this.log("error", "error initially creating leader election record", {
          error: created.error.message,
        });
        return false;
      }
      this.observed = observeWrite(this.observed, record, this.timers.now());
      this.renewedAt = now;
      return true;
    }

    this.observed = observeRead(this.observed, read.record, this.timers.now());
    const decision = decideAcquireOrRenew({
      observed: this.observed,
      current: read.record,
      identity,
      leaseDurationMs: this.config.leaseDurationMs,
      now,
    });
    if (decision.action === "wait") {
      this.log("debug", `lock is held by ${decision.holder} and has not yet expired`);
      return false;
    }
    const written = await this.bounded(this.lock.update(decision.record, signal), signal);
    if (!written.ok) {
      // 409 Conflict: another candidate wrote first.
      this.log("error", "Failed to update lock", { error: written.error.message });
      return false;
    }
    this.observed = observeWrite(this.observed, decision.record, this.timers.now());
    this.renewedAt = now;
    return true;
  }

  /**
   * client-go's release (v1.34: read first for a fresh resourceVersion). Unlike client-go it
   * also checks the record just read still names this candidate, so a leader that lost the
   * lease never clears the new holder.
   */
  private async release(): Promise<boolean> {
    const timeout = new AbortController();
    const timer = this.timers.setTimeout(
      () => timeout.abort(),
      this.config.releaseTimeoutMs ?? this.config.renewDeadlineMs,
    );
    try {
      const read = await this.bounded(this.lock.get(timeout.signal), timeout.signal);
      if (!read.ok) {
        this.log("error", `error retrieving resource lock ${this.lock.describe()}`, {
          error: read.error.message,
        });
        return false;
      }
      if (!isLeaderIn(this.observed, this.identity)) return true;
      if (read.record.holderIdentity !== this.identity) return true;
      const record = releaseRecord(read.record, this.timers.now());
      const written = await this.bounded(this.lock.update(record, timeout.signal), timeout.signal);
      if (!written.ok) {
        this.log("error", "Failed to release lock", { error: written.error.message });
        return false;
      }
      this.observed = observeWrite(this.observed, record, this.timers.now());
      this.log("info", `released lease ${this.lock.describe()}`);
      return true;
    } finally {
      this.timers.clearTimeout(timer);
    }
  }

  private maybeReportTransition(): void {
    const holder = this.observed.record?.holderIdentity ?? "";
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.callbacks.onNewLeader;
    if (onNewLeader) this.safely(() => onNewLeader(holder));
  }

  /** A lock call that gives up when the signal aborts, whether or not the client honours it. */
  private bounded<T extends LockResult | LockRead>(
    call: Promise<T>,
    signal: AbortSignal,
  ): Promise<T> {
    const failed = { ok: false, error: ABORTED } as T;
    if (signal.aborted) return Promise.resolve(failed);
    return new Promise<T>((resolve) => {
      const onAbort = () => resolve(failed);
      signal.addEventListener("abort", onAbort, { once: true });
      call.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(signal.aborted ? failed : value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          resolve({ ok: false, error: { status: 0, message: String(error) } } as T);
        },
      );
    });
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.timers.clearTimeout(handle);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const handle = this.timers.setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.log("error", "leader election callback failed", { error: String(error) });
    }
  }

  private async safelyAsync(call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.log("error", "leader election callback failed", { error: String(error) });
    }
  }
}
