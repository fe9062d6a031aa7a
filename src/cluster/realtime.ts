// The embedded cluster on the real clock (`horizon up`): a timer loop that advances the cluster
// to `Date.now()`, applies timed events (a scenario's) when they fall due, and runs Horizon's
// controller (in-process ports) at its sync period. It is the simulator's loop (src/sim/runner.ts)
// with sleeps between due times instead of jumps, woken early when a client writes.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import { HorizontalController, type SyncReport } from "../controller/controller.js";
import type { ControllerConfig } from "../core/config.js";
import type { EmbeddedCluster } from "./cluster.js";

/** Something to do `atMs` after the cluster's start time. */
export interface TimedEvent {
  atMs: number;
}

export interface RealtimeDriverOptions<E extends TimedEvent = TimedEvent> {
  cluster: EmbeddedCluster;
  /** Horizon's controller configuration; null runs no controller (`--no-controller`). */
  controllerConfig: ControllerConfig | null;
  /** Events, `atMs` after the cluster's start time; applied once each when due. */
  events?: readonly E[];
  /** Applies one due event (the simulator's scenario events: src/sim/cluster.ts). */
  applyEvent?: (event: E, driver: RealtimeDriver<E>, now: number) => void;
  /** Epoch ms (default Date.now); tests may pass a fake. */
  clock?: () => number;
  /** The longest sleep between two ticks, so the loop never waits on a stale plan (default 1 s). */
  maxSleepMs?: number;
  /** Every HPA sync, as it happens. */
  onSync?: (report: SyncReport) => void;
  /** Every event applied. */
  onEvent?: (event: E) => void;
  /** An exception of a tick (the loop goes on: one bad object must not stop the cluster). */
  onError?: (error: unknown) => void;
}

export class RealtimeDriver<E extends TimedEvent = TimedEvent> {
  readonly cluster: EmbeddedCluster;
  readonly controller: HorizontalController | null;
  readonly #clock: () => number;
  readonly #maxSleepMs: number;
  readonly #events: E[];
  readonly #options: RealtimeDriverOptions<E>;
  #nextEvent = 0;
  /** The instant of the current (or last) tick: the controller's clock, as the runner's `now`. */
  #now: number;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  #running = false;
  #again = false;
  #started = false;
  #stopped = false;
  #inTick = false;
  #idle: Promise<void> = Promise.resolve();
  #unwatch: (() => void) | null = null;

  constructor(options: RealtimeDriverOptions<E>) {
    this.#options = options;
    this.cluster = options.cluster;
    this.#clock = options.clock ?? Date.now;
    this.#maxSleepMs = options.maxSleepMs ?? 1000;
    this.#events = [...(options.events ?? [])].sort((a, b) => a.atMs - b.atMs);
    this.#now = this.#clock();
    const config = options.controllerConfig;
    this.controller = config
      ? new HorizontalController({
          ports: { ...this.cluster.ports(), clock: { now: () => this.#now } },
          config,
          listHpas: () =>
            this.cluster.store.list(
              "HorizontalPodAutoscaler",
            ) as unknown as readonly HorizontalPodAutoscaler[],
        })
      : null;
  }

  /** Starts the loop; the first tick runs at once. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#unwatch = this.cluster.store.watch((event) => {
      // Upstream's informer hands HPA adds and deletes to the controller as they happen; the
      // controller schedules a new HPA one sync period later and forgets a deleted one.
      if (
        this.controller &&
        event.object.kind === "HorizontalPodAutoscaler" &&
        event.type !== "MODIFIED"
      ) {
        this.controller.observe(this.#clock());
      }
      // A client's write may make work due now (a new Deployment's pods): wake the loop.
      if (!this.#inTick) this.poke();
    });
    this.controller?.observe(this.#clock());
    this.poke();
  }

  /** Runs a tick soon (coalesced), instead of at the planned wake-up. */
  poke(): void {
    if (this.#stopped || this.#immediate) return;
    this.#immediate = setImmediate(() => {
      this.#immediate = null;
      void this.tick();
    });
  }

  /**
   * Brings the cluster up to the real clock without running the controller, so that what a
   * request reads or writes is stamped with the current time.
   */
  catchUp(): void {
    if (this.#stopped || this.#inTick) return;
    const now = this.#clock();
    if (now <= this.cluster.now) return;
    this.#inTick = true;
    try {
      this.cluster.advanceTo(now);
    } finally {
      this.#inTick = false;
    }
  }

  /** One step: the cluster to now, due events, due HPA syncs; then sleeps until the next due time. */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      // The running loop does one more step; callers wait for that loop.
      this.#again = true;
      return this.#idle;
    }
    this.#idle = this.#loop();
    return this.#idle;
  }

  async #loop(): Promise<void> {
    this.#running = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    try {
      do {
        this.#again = false;
        await this.#step();
      } while (this.#again && !this.#stopped);
    } catch (error) {
      this.#options.onError?.(error);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }

  async #step(): Promise<void> {
    const now = this.#clock();
    this.#now = Math.max(this.#now, now);
    this.#inTick = true;
    try {
      this.cluster.advanceTo(this.#now);
      // Clients' writes (a new Deployment, a changed template) get their pods at once.
      this.cluster.reconcile();
      const start = this.cluster.startTime;
      while (
        this.#nextEvent < this.#events.length &&
        start + this.#events[this.#nextEvent]!.atMs <= this.#now
      ) {
        const event = this.#events[this.#nextEvent++]!;
        this.#options.applyEvent?.(event, this, this.#now);
        this.#options.onEvent?.(event);
      }
    } finally {
      this.#inTick = false;
    }
    const controller = this.controller;
    // Writes during a sync still wake the loop: clients may write between its awaits, and
    // the controller's own writes only cost one more (cheap) step.
    if (controller && controller.nextDue() <= this.#now) {
      for (const report of await controller.syncDue()) this.#options.onSync?.(report);
    }
  }

  /** When the next tick is due (epoch ms). */
  nextWakeUp(): number {
    const event = this.#events[this.#nextEvent];
    return Math.min(
      this.cluster.nextDueTime(),
      this.controller?.nextDue() ?? Number.POSITIVE_INFINITY,
      event ? this.cluster.startTime + event.atMs : Number.POSITIVE_INFINITY,
      this.#clock() + this.#maxSleepMs,
    );
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    const delay = Math.max(0, this.nextWakeUp() - this.#clock());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.tick();
    }, delay);
  }

  /** Stops the loop and waits for a tick in progress to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwatch?.();
    this.#unwatch = null;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
    await this.#idle;
  }
}
