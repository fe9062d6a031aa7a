// The HPA controller's runtime against a real API server: N workers take HPA keys from a
// rate-limited work queue and reconcile them with one shared ControllerMemory. Timing follows
// upstream's horizontal.go: an added or updated HPA is enqueued with AddRateLimited, whose
// fixed-interval limiter (NewDefaultHPARateLimiter(resyncPeriod)) delays it by one sync period
// (a key already waiting keeps the sooner time); after every sync the key is AddRateLimited
// again, also after errors, so every HPA is synced once per period. Deleted HPAs are forgotten
// (recommendations, scale events, selector). The queue guarantees no two workers hold one key.
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import { syncPeriodFor } from "../core/extensions/knobs.js";
import type { ForeignWriter } from "../core/extensions/sync.js";
import { jsonEqual } from "../core/json.js";
import type { SyncEvent, SyncResult } from "../core/sync.js";
import type { ControllerPorts, HpaSource, PortResult } from "./ports.js";
import { ControllerMemory, hpaKey, reconcileHpa } from "./reconcile.js";
import { controllerSwitches } from "./switches.js";
import {
  fixedIntervalRateLimiter,
  systemTimers,
  type Timers,
  WorkQueue,
  type WorkQueueMetrics,
} from "./workqueue.js";

/**
 * The field manager of Horizon's controller (its User-Agent's program name, which the API
 * server records in managedFields): writes it made are Horizon's, whichever replica sent them.
 */
export const HORIZON_FIELD_MANAGER = "horizon-controller";

/** The error of a write refused by ControllerRuntimeOptions.mayWrite. */
export const NOT_LEADING = "not written: this replica's leader lease is not renewed in time";

/** The default of ControllerRuntimeOptions.foreignWriterHoldMs. */
export const FOREIGN_WRITER_HOLD_MS = 300_000;

/** Upstream's `action` label of the reconciliation metrics. */
export type SyncAction = "scale_up" | "scale_down" | "none";

/** One sync, for the observability helper (decision trace, action, error, duration). */
export interface RuntimeSyncReport {
  key: string;
  hpa: HorizontalPodAutoscaler;
  /** When the sync started (epoch ms). */
  at: number;
  durationMs: number;
  /** Which worker ran it (0-based). */
  worker: number;
  /** The sync's result with its decision trace; null when the reconcile threw. */
  result: SyncResult | null;
  statusError: string | null;
  /** The sync's error, else the status write's, else the exception's message. */
  error: string | null;
  action: SyncAction;
}

export type RuntimeLog = (
  level: "info" | "error" | "debug",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface ControllerRuntimeOptions {
  ports: ControllerPorts;
  /** syncPeriodMs is the requeue interval, concurrentSyncs the worker count. */
  config: ControllerConfig;
  /** The HPA informer (already filtered by --hpa-selector on the server side). */
  source: HpaSource;
  /**
   * Which HPAs this controller manages, checked on every add/update: an HPA that stops
   * matching is treated as deleted. Default: every HPA the source holds.
   */
  manages?: (hpa: HorizontalPodAutoscaler) => boolean;
  onSync?: (report: RuntimeSyncReport) => void;
  /** Evidence that another controller writes the status of an HPA managed here. */
  onForeignWriter?: (warning: ForeignWriterWarning) => void;
  /** Shared with the caller so it can feed HPA events (observeEvent) to the same detector. */
  detector?: ForeignWriterDetector;
  /**
   * How long after the latest evidence of another controller an HPA with `horizon.dev/`
   * annotations is left to it (default 5 min): its status is written only on a change, so
   * evidence comes in bursts, and a yield that ended at each quiet sync would fight again.
   */
  foreignWriterHoldMs?: number;
  /**
   * Asked before every write (scale, status, Event): false refuses it (a leader whose lease
   * renewal is overdue, LeaderElector.mayWrite). Default: always.
   */
  mayWrite?: () => boolean;
  timers?: Timers;
  memory?: ControllerMemory;
  queueMetrics?: WorkQueueMetrics;
  log?: RuntimeLog;
}

export interface StopOptions {
  /** Wait for in-flight syncs to finish (graceful shutdown). */
  drain?: boolean;
}

/** Upstream labels a sync scale_up/scale_down only once the scale update succeeded. */
function actionOf(result: SyncResult | null): SyncAction {
  if (!result?.scaleUpdated) return "none";
  return result.trace.desiredReplicas > result.trace.currentReplicas ? "scale_up" : "scale_down";
}

export class ControllerRuntime {
  readonly queue: WorkQueue<string>;
  readonly memory: ControllerMemory;
  readonly detector: ForeignWriterDetector;
  private readonly options: ControllerRuntimeOptions;
  private readonly timers: Timers;
  private readonly ports: ControllerPorts;
  private readonly log: RuntimeLog;
  /** The managed HPAs by key, as the source last delivered them. */
  private readonly hpas = new Map<string, HorizontalPodAutoscaler>();
  private unsubscribe: (() => void) | null = null;
  private workers: Promise<void>[] = [];
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private stopped: Promise<void> | null = null;
  private readonly inFlight = new Set<string>();
  private readonly holds: ForeignWriterHolds;

  constructor(options: ControllerRuntimeOptions) {
    this.options = options;
    this.holds = new ForeignWriterHolds(options.foreignWriterHoldMs ?? FOREIGN_WRITER_HOLD_MS);
    this.timers = options.timers ?? systemTimers;
    this.log = options.log ?? (() => {});
    this.memory = options.memory ?? new ControllerMemory();
    this.queue = new WorkQueue<string>({
      timers: this.timers,
      // Every HPA at the sync period, or at its own (horizon.dev/sync-period).
      rateLimiter: {
        ...fixedIntervalRateLimiter<string>(options.config.syncPeriodMs),
        whenMs: (key) => syncPeriodFor(this.hpas.get(key), options.config),
      },
      ...(options.queueMetrics ? { metrics: options.queueMetrics } : {}),
    });
    this.detector =
      options.detector ??
      new ForeignWriterDetector({
        startedAt: this.timers.now(),
        manages: (key) => this.hpas.has(key),
      });
    this.ports = this.wrapPorts(options.ports);
  }

  /** Subscribes to the source, enqueues the HPAs it holds and starts the workers. */
  start(): void {
    if (this.state !== "new") throw new Error("the controller runtime was already started");
    this.state = "running";
    this.unsubscribe = this.options.source.subscribe((key, hpa) => this.onSourceChange(key, hpa));
    for (const hpa of this.options.source.list()) this.onSourceChange(hpaKey(hpa), hpa);
    const count = Math.max(1, Math.floor(this.options.config.concurrentSyncs));
    this.workers = Array.from({ length: count }, (_, index) => this.work(index));
    this.log("info", "Starting HPA controller", { workers: count });
  }

  /**
   * Stops taking keys. With `drain`, resolves when in-flight syncs have finished (and reported);
   * without, at once (in-flight syncs still finish, their writes cannot be recalled).
   */
  stop(options: StopOptions = {}): Promise<void> {
    if (this.state === "new") {
      this.state = "stopped";
      return Promise.resolve();
    }
    if (!this.stopped) {
      this.state = "stopping";
      this.unsubscribe?.();
      this.unsubscribe = null;
      this.log("info", "Shutting down HPA controller", { inFlight: this.inFlight.size });
      this.stopped = (async () => {
        await this.queue.shutDownWithDrain();
        await Promise.all(this.workers);
        this.state = "stopped";
      })();
      if (!options.drain) this.queue.shutDown();
    }
    return options.drain ? this.stopped : Promise.resolve();
  }

  /**
   * Feeds an Event about an HPA (from the caller's Event watch) to the foreign-writer detector;
   * a warning goes to onForeignWriter and is returned.
   */
  observeEvent(event: ObservedEvent): ForeignWriterWarning | null {
    const warning = this.detector.observeEvent(event, this.timers.now());
    this.report(warning);
    return warning;
  }

  /** Keys of the HPAs this runtime manages. */
  managedKeys(): string[] {
    return [...this.hpas.keys()].sort();
  }

  /** Keys being synced right now. */
  inFlightKeys(): string[] {
    return [...this.inFlight].sort();
  }

  private onSourceChange(key: string, hpa: HorizontalPodAutoscaler | null): void {
    if (this.state !== "running") return;
    const managed = hpa !== null && (this.options.manages?.(hpa) ?? true);
    if (managed) {
      const added = !this.hpas.has(key);
      this.hpas.set(key, hpa);
      this.report(
        this.detector.observeHpa(
          key,
          hpa,
          this.timers.now(),
          this.options.source.statusWriters?.(key),
        ),
      );
      // upstream enqueueHPA/updateHPA: AddRateLimited, one sync period from now unless sooner;
      // from v1.37 an added HPA is enqueued with Add, synced at once (controllerSwitches).
      const version = this.options.config.featureGates.version;
      if (added && controllerSwitches(version).immediateFirstSync) this.queue.add(key);
      else this.queue.addRateLimited(key);
      return;
    }
    if (!this.hpas.delete(key)) return;
    // upstream deleteHPA: forget the key; the selector and histories go with it.
    this.queue.forget(key);
    this.memory.forget(key);
    this.holds.forget(key);
    this.detector.observeHpa(key, null, this.timers.now());
  }

  private async work(worker: number): Promise<void> {
    while (true) {
      const item = await this.queue.get();
      if (item.shutdown) return;
      if (this.state !== "running") {
        // Stopping: start no new sync.
        this.queue.done(item.key);
        continue;
      }
      await this.process(item.key, worker);
    }
  }

  private async process(key: string, worker: number): Promise<void> {
    const hpa = this.hpas.get(key);
    if (!hpa) {
      // Deleted while waiting (upstream's reconcileKey NotFound): forget, do not requeue.
      this.memory.forget(key);
      this.queue.done(key);
      return;
    }
    this.inFlight.add(key);
    const at = this.timers.now();
    this.memory.setForeignWriter(
      key,
      this.holds.decide(key, this.detector.evidenceOf(key), this.memory.isYielding(key), at),
    );
    let result: SyncResult | null = null;
    let statusError: string | null = null;
    let thrown: string | null = null;
    try {
      const outcome = await reconcileHpa(hpa, this.ports, this.memory, this.options.config);
      result = outcome.result;
      statusError = outcome.statusError;
    } catch (error) {
      thrown = error instanceof Error ? error.message : String(error);
      this.log("error", "HPA sync failed", { hpa: key, error: thrown });
    }
    this.inFlight.delete(key);
    if (this.hpas.has(key)) {
      // upstream processNextWorkItem: requeue at the sync period, errors or not (before Done).
      this.queue.addRateLimited(key);
    } else {
      // Deleted during the sync: drop what this sync remembered.
      this.memory.forget(key);
    }
    this.queue.done(key);
    const report: RuntimeSyncReport = {
      key,
      hpa,
      at,
      durationMs: this.timers.now() - at,
      worker,
      result,
      statusError,
      error: result?.error ?? statusError ?? thrown,
      action: actionOf(result),
    };
    try {
      this.options.onSync?.(report);
    } catch (error) {
      this.log("error", "onSync hook failed", { error: String(error) });
    }
  }

  /**
   * Tells the detector which status writes and events are this controller's own, and refuses
   * writes that `mayWrite` forbids.
   */
  private wrapPorts(ports: ControllerPorts): ControllerPorts {
    const detector = this.detector;
    const timers = this.timers;
    const mayWrite = this.options.mayWrite ?? (() => true);
    const refused = { ok: false as const, error: NOT_LEADING };
    return {
      ...ports,
      scale: {
        getScale: (namespace, ref) => ports.scale.getScale(namespace, ref),
        updateScale: (namespace, ref, replicas) =>
          mayWrite() ? ports.scale.updateScale(namespace, ref, replicas) : refused,
      },
      status: {
        updateStatus(hpa, status: HorizontalPodAutoscalerStatus) {
          if (!mayWrite()) return refused;
          const key = hpaKey(hpa);
          detector.ownStatusWriteStarted(key, timers.now());
          const answer = ports.status.updateStatus(hpa, status);
          const settle = (result: PortResult<void>) => {
            if (!result.ok) detector.ownStatusWriteFailed(key);
            return result;
          };
          return answer instanceof Promise ? answer.then(settle) : settle(answer);
        },
      },
      events: {
        record(hpa, event: SyncEvent, now: number) {
          if (!mayWrite()) return;
          detector.ownEventRecorded(hpaKey(hpa), event, now);
          ports.events.record(hpa, event, now);
        },
      },
    };
  }

  /** The first evidence of each kind is logged; what an HPA does about it is its sync's. */
  private report(warning: ForeignWriterWarning | null): void {
    if (!warning) return;
    this.log("info", warning.message, { hpa: warning.key, evidence: warning.evidence });
    this.options.onForeignWriter?.(warning);
  }
}

// --- Another controller writing the same HPAs -------------------------------------------------

/** Holds stop doubling at this length. */
export const FOREIGN_WRITER_MAX_HOLD_MS = 3_600_000;

/**
 * How long an HPA is left to another controller after its latest write. The other controller
 * writes the status only when it changes, so a quiet one cannot be told from a gone one: after
 * a hold without its writes Horizon drives the HPA again, and if the other comes back at once
 * (its status rewritten over Horizon's), the next hold is twice as long (up to an hour), so a
 * controller that stays costs a probe per hold, ever rarer; a resume that stays quiet for a
 * whole hold starts again from the base length.
 */
export class ForeignWriterHolds {
  private readonly state = new Map<string, { holdMs: number; resumedAt: number | null }>();

  constructor(private readonly baseMs: number) {}

  /** The yield of this sync (null: none), from the latest evidence and the last sync's yield. */
  decide(
    key: string,
    evidence: ForeignWriterWarning | undefined,
    yielding: boolean,
    now: number,
  ): ForeignWriter | null {
    let state = this.state.get(key);
    if (!state) {
      // Most HPAs never see another writer: no state for them.
      if (!evidence) return null;
      state = { holdMs: this.baseMs, resumedAt: null };
      this.state.set(key, state);
    }
    if (evidence && now - evidence.at < state.holdMs) {
      if (state.resumedAt !== null && evidence.at >= state.resumedAt) {
        state.holdMs = Math.min(
          2 * state.holdMs,
          Math.max(FOREIGN_WRITER_MAX_HOLD_MS, this.baseMs),
        );
        state.resumedAt = null;
      }
      return { message: evidence.message, holdMs: state.holdMs };
    }
    if (yielding) state.resumedAt = now;
    else if (state.resumedAt !== null && now - state.resumedAt >= state.holdMs) {
      state.holdMs = this.baseMs;
      state.resumedAt = null;
    }
    return null;
  }

  forget(key: string): void {
    this.state.delete(key);
  }
}

/** The fields of a core/v1 (or events.k8s.io/v1 read as core) Event the detector reads. */
export interface ObservedEvent {
  metadata?: {
    namespace?: string;
    name?: string;
    /** Who wrote the Event (API servers track it for every object). */
    managedFields?: { manager?: string }[] | null;
  };
  involvedObject?: { kind?: string; namespace?: string; name?: string };
  /** events.k8s.io/v1 names it `regarding`. */
  regarding?: { kind?: string; namespace?: string; name?: string };
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingController?: string;
  reportingInstance?: string;
  reason?: string;
  message?: string;
  note?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { lastObservedTime?: string | null; count?: number };
  count?: number;
}

export interface ForeignWriterWarning {
  key: string;
  evidence: "event" | "statusWrite";
  message: string;
  at: number;
}

export interface ForeignWriterDetectorOptions {
  /** Whether this controller manages the HPA `namespace/name`. */
  manages: (key: string) => boolean;
  /** Events older than this (epoch ms) are history, not evidence. */
  startedAt: number;
  /** How long an own write or event waits for its echo from the watch (default 60s). */
  echoWindowMs?: number;
  /** The event source of upstream's HPA controller. */
  component?: string;
  /** Recognises this controller's own events (e.g. by reportingInstance); default: the ledger. */
  isOwnEvent?: (event: ObservedEvent) => boolean;
  /**
   * Horizon's field manager (default HORIZON_FIELD_MANAGER): a status write or an Event whose
   * managedFields name it was made by Horizon (this replica, or another replica of the same
   * deployment, e.g. a deposed leader's last writes), never by another controller.
   */
  ownManager?: string;
}

/** Events judged are remembered this long (the API server's event TTL is 1 h). */
const SEEN_EVENT_MS = 2 * 3_600_000;

/**
 * A pure detector (no I/O, time passed in) of another controller writing the HPAs managed here:
 * 1. an HPA's status changes with no status write of ours waiting for its echo, or
 * 2. an Event from the `horizontal-pod-autoscaler` component (upstream's recorder) about a
 *    managed HPA, newer than our start, that Horizon did not write — Horizon records with the
 *    same component, so its events are told apart by their managedFields (Horizon's field
 *    manager), else by the ledger of the events we recorded (same reason and message, within
 *    the echo window), or by `isOwnEvent`.
 * A write by Horizon's field manager is never evidence (another replica's writes, our own
 * whose answer was lost). An Event delivered again unchanged (a re-list after a watch's 410, an
 * API server's restart) was judged at its first delivery: a re-list is no evidence.
 * Each HPA warns once per kind of evidence; `evidenceOf` has the latest of every kind.
 */
export class ForeignWriterDetector {
  private readonly options: ForeignWriterDetectorOptions;
  private readonly echoWindowMs: number;
  private readonly component: string;
  private readonly ownManager: string;
  /** Events judged, by namespace/name: their last occurrence and whether they were ours. */
  private readonly seenEvents = new Map<
    string,
    { occurrence: string; ours: boolean; at: number }
  >();
  private readonly statuses = new Map<string, HorizontalPodAutoscalerStatus | undefined>();
  /** Start times of our status writes whose echo has not been seen. */
  private readonly pendingWrites = new Map<string, number[]>();
  /** Our recorded events per key, as `reason\nmessage` with the time recorded. */
  private readonly ownEvents = new Map<string, { text: string; at: number }[]>();
  private readonly warned = new Set<string>();
  private readonly found: ForeignWriterWarning[] = [];
  /** The latest evidence per HPA (every observation, not only the first warned). */
  private readonly latest = new Map<string, ForeignWriterWarning>();

  constructor(options: ForeignWriterDetectorOptions) {
    this.options = options;
    this.echoWindowMs = options.echoWindowMs ?? 60_000;
    this.component = options.component ?? "horizontal-pod-autoscaler";
    this.ownManager = options.ownManager ?? HORIZON_FIELD_MANAGER;
  }

  /** Every warning so far. */
  warnings(): readonly ForeignWriterWarning[] {
    return this.found;
  }

  /** The latest evidence that another controller writes this HPA (its time: `at`). */
  evidenceOf(key: string): ForeignWriterWarning | undefined {
    return this.latest.get(key);
  }

  ownStatusWriteStarted(key: string, now: number): void {
    const list = this.pendingWrites.get(key) ?? [];
    list.push(now);
    this.pendingWrites.set(key, list);
  }

  /** The write failed: no echo will come. */
  ownStatusWriteFailed(key: string): void {
    this.pendingWrites.get(key)?.pop();
  }

  ownEventRecorded(key: string, event: SyncEvent, now: number): void {
    const list = this.ownEvents.get(key) ?? [];
    list.push({ text: `${event.reason}\n${event.message}`, at: now });
    this.ownEvents.set(key, list);
  }

  /**
   * An HPA as the informer delivered it (null: deleted); `statusWriters`: the field managers of
   * its newest status write, when the server tracks them (HpaSource.statusWriters).
   */
  observeHpa(
    key: string,
    hpa: HorizontalPodAutoscaler | null,
    now: number,
    statusWriters?: readonly string[],
  ): ForeignWriterWarning | null {
    if (hpa === null) {
      this.statuses.delete(key);
      this.pendingWrites.delete(key);
      this.ownEvents.delete(key);
      this.latest.delete(key);
      return null;
    }
    const known = this.statuses.has(key);
    const before = this.statuses.get(key);
    this.statuses.set(key, hpa.status);
    // The first sight is the baseline: whoever wrote it did so before we watched.
    if (!known || jsonEqual(before ?? null, hpa.status ?? null)) return null;
    const pending = (this.pendingWrites.get(key) ?? []).filter(
      (at) => now - at <= this.echoWindowMs,
    );
    if (pending.length > 0) {
      pending.shift();
      this.pendingWrites.set(key, pending);
      return null;
    }
    this.pendingWrites.delete(key);
    if (!this.options.manages(key)) return null;
    // Written by Horizon: another replica (a deposed leader), or ours with its answer lost.
    if (statusWriters?.includes(this.ownManager)) return null;
    return this.warn(
      key,
      "statusWrite",
      now,
      `another controller is writing the status of HorizontalPodAutoscaler ${key} (a status change this controller did not write); disable the built-in controller (kube-controller-manager --controllers=*,-horizontalpodautoscaling) or exclude this HPA with --hpa-selector`,
    );
  }

  /** An Event as a watch or list delivered it. */
  observeEvent(event: ObservedEvent, now: number): ForeignWriterWarning | null {
    const about = event.involvedObject ?? event.regarding;
    if (about?.kind !== "HorizontalPodAutoscaler") return null;
    const component =
      event.source?.component || event.reportingComponent || event.reportingController || "";
    if (component !== this.component) return null;
    const key = `${about.namespace ?? event.metadata?.namespace ?? "default"}/${about.name ?? ""}`;
    if (!this.options.manages(key)) return null;
    const times = [
      event.lastTimestamp,
      event.series?.lastObservedTime,
      event.eventTime,
      event.firstTimestamp,
    ]
      .map((text) => (typeof text === "string" ? Date.parse(text) : Number.NaN))
      .filter((ms) => !Number.isNaN(ms));
    const last = times.length > 0 ? Math.max(...times) : Number.NaN;
    // Times have second precision: anything before the second we started is history.
    if (Number.isNaN(last) || last < Math.floor(this.options.startedAt / 1000) * 1000) return null;
    const name = event.metadata?.name;
    const id = name ? `${key.split("/")[0]}/${name}` : null;
    const occurrence = `${event.count ?? event.series?.count ?? 1}\n${last}`;
    const seen = id === null ? undefined : this.seenEvents.get(id);
    if (seen && (seen.ours || seen.occurrence === occurrence)) {
      // Delivered again (a re-list), or a repeat of ours (only our correlator patches it).
      seen.occurrence = occurrence;
      return null;
    }
    const ours = this.isOwnEvent(key, event, now);
    if (id !== null) this.remember(id, occurrence, ours, now);
    if (ours) return null;
    return this.warn(
      key,
      "event",
      now,
      `another controller is writing HorizontalPodAutoscaler ${key}: event ${event.reason ?? ""} from ${component} that this controller did not record; disable the built-in controller (kube-controller-manager --controllers=*,-horizontalpodautoscaling) or exclude this HPA with --hpa-selector`,
    );
  }

  /** Horizon's by its managedFields when the server tracks them, else by the ledger. */
  private isOwnEvent(key: string, event: ObservedEvent, now: number): boolean {
    if (this.options.isOwnEvent) return this.options.isOwnEvent(event);
    const text = `${event.reason ?? ""}\n${event.message ?? event.note ?? ""}`;
    const ledger = (this.ownEvents.get(key) ?? []).filter(
      (entry) => now - entry.at <= this.echoWindowMs,
    );
    const index = ledger.findIndex((entry) => entry.text === text);
    const managers = (event.metadata?.managedFields ?? []).map((entry) => entry.manager ?? "");
    const byManager = managers.length > 0 ? managers.every((m) => m === this.ownManager) : null;
    // A matched entry is used up, whichever way the event was told ours.
    if (index >= 0 && byManager !== false) ledger.splice(index, 1);
    this.ownEvents.set(key, ledger);
    return byManager ?? index >= 0;
  }

  private remember(id: string, occurrence: string, ours: boolean, now: number): void {
    if (this.seenEvents.size >= 4096) {
      for (const [key, entry] of this.seenEvents) {
        if (now - entry.at > SEEN_EVENT_MS) this.seenEvents.delete(key);
      }
      // Still full: the oldest goes.
      const oldest = this.seenEvents.keys().next();
      if (this.seenEvents.size >= 4096 && !oldest.done) this.seenEvents.delete(oldest.value);
    }
    this.seenEvents.set(id, { occurrence, ours, at: now });
  }

  private warn(
    key: string,
    evidence: ForeignWriterWarning["evidence"],
    now: number,
    message: string,
  ): ForeignWriterWarning | null {
    const warning = { key, evidence, message, at: now };
    this.latest.set(key, warning);
    const id = `${evidence}:${key}`;
    if (this.warned.has(id)) return null;
    this.warned.add(id);
    this.found.push(warning);
    return warning;
  }
}
