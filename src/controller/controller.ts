// The HPA controller's scheduling: every HPA is synced at a fixed interval (the sync period),
// also after errors, and a new HPA's first sync comes one period after it is seen, as
// upstream's rate-limited work queue does (at once from v1.37: controllerSwitches). Time comes from the clock port, so the same code
// runs on the simulator's virtual clock and on a real one.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import { syncPeriodFor } from "../core/extensions/knobs.js";
import type { ControllerPorts } from "./ports.js";
import {
  ControllerMemory,
  type HpaMemory,
  hpaKey,
  type ReconcileOutcome,
  reconcileHpa,
} from "./reconcile.js";
import { controllerSwitches } from "./switches.js";

export interface SyncReport extends ReconcileOutcome {
  key: string;
  hpa: HorizontalPodAutoscaler;
  /** When the sync ran (epoch ms). */
  at: number;
}

export interface HorizontalControllerOptions {
  ports: ControllerPorts;
  config: ControllerConfig;
  /** The current HPAs (autoscaling/v2), as the informer holds them. */
  listHpas: () => readonly HorizontalPodAutoscaler[];
  /**
   * One current HPA by namespace and name, for callers that can look it up directly (the
   * embedded cluster's store): a sync then reads its HPA without an index of the whole list,
   * which each status write would make stale.
   */
  getHpa?: (namespace: string, name: string) => HorizontalPodAutoscaler | undefined;
}

/** One HPA's place in the schedule. */
interface Scheduled {
  key: string;
  namespace: string;
  name: string;
  /** Next sync time (epoch ms). */
  at: number;
  /** Taken out of the schedule (the HPA went away, or a restart). */
  removed: boolean;
  /** The HPA's record in the controller's memory, once a sync looked it up. */
  record: HpaMemory | null;
}

function byKey(a: Scheduled, b: Scheduled): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export class HorizontalController {
  private readonly memory = new ControllerMemory();
  /** The schedule per HPA key. */
  private readonly due = new Map<string, Scheduled>();
  /** The earliest of `due`, recomputed only after it changed. */
  private earliest: number | null = null;
  /** The entries of `due` sorted by key; recomputed only after the set of HPAs changed. */
  private sorted: Scheduled[] | null = null;

  /** The last HPA list seen and its index: listers return the same list until it changes. */
  private indexed: {
    list: readonly HorizontalPodAutoscaler[];
    byKey: Map<string, HorizontalPodAutoscaler>;
  } | null = null;

  // The options' members, each kept in a field of this class: a caller's options literal made
  // once per run (the simulator's) has its fields' types widened by V8 at the literal's second
  // run, which deoptimized every sync function compiled against the first.
  private readonly ports: ControllerPorts;
  private readonly config: ControllerConfig;
  private readonly listHpas: () => readonly HorizontalPodAutoscaler[];
  private readonly getHpa:
    | ((namespace: string, name: string) => HorizontalPodAutoscaler | undefined)
    | undefined;

  constructor(options: HorizontalControllerOptions) {
    this.ports = options.ports;
    this.config = options.config;
    this.listHpas = options.listHpas;
    this.getHpa = options.getHpa;
  }

  private hpasByKey(): Map<string, HorizontalPodAutoscaler> {
    const list = this.listHpas();
    if (this.indexed?.list !== list) {
      this.indexed = { list, byKey: new Map(list.map((hpa) => [hpaKey(hpa), hpa])) };
    }
    return this.indexed.byKey;
  }

  /**
   * Reconciles the HPA set with what is scheduled: new HPAs are due one sync period from now
   * (now, from v1.37), deleted ones are forgotten with their histories.
   */
  observe(now: number): void {
    const immediate = controllerSwitches(this.config.featureGates.version).immediateFirstSync;
    const seen = new Set<string>();
    for (const hpa of this.listHpas()) {
      const key = hpaKey(hpa);
      seen.add(key);
      if (!this.due.has(key)) {
        this.due.set(key, {
          key,
          namespace: hpa.metadata.namespace ?? "default",
          name: hpa.metadata.name ?? "",
          at: immediate ? now : now + syncPeriodFor(hpa, this.config),
          removed: false,
          record: null,
        });
        this.earliest = null;
        this.sorted = null;
      }
    }
    for (const [key, entry] of this.due) {
      if (!seen.has(key)) {
        entry.removed = true;
        this.due.delete(key);
        this.memory.forget(key);
        this.earliest = null;
        this.sorted = null;
      }
    }
  }

  /** The earliest time any HPA is due, or Infinity. */
  nextDue(): number {
    if (this.earliest === null) {
      let next = Number.POSITIVE_INFINITY;
      for (const entry of this.due.values()) if (entry.at < next) next = entry.at;
      this.earliest = next;
    }
    return this.earliest;
  }

  /** Syncs every HPA due at or before the clock's now, in key order; each is requeued one period later. */
  async syncDue(): Promise<SyncReport[]> {
    const now = this.ports.clock.now();
    const reports: SyncReport[] = [];
    const getHpa = this.getHpa;
    const index = getHpa ? null : this.hpasByKey();
    this.sorted ??= [...this.due.values()].sort(byKey);
    // Collected before syncing: a sync requeues its HPA, and that must not change this round.
    const dueNow: Scheduled[] = [];
    for (const entry of this.sorted) if (entry.at <= now) dueNow.push(entry);
    for (const entry of dueNow) {
      const hpa = getHpa ? getHpa(entry.namespace, entry.name) : index!.get(entry.key);
      if (!hpa) continue;
      // The entry is the schedule's own unless it was taken out while an earlier sync
      // awaited (no Map lookup per sync otherwise).
      let scheduled: Scheduled | undefined = entry;
      if (entry.removed) {
        scheduled = this.due.get(entry.key);
        // Forgotten: scheduling it again changes the key set.
        if (!scheduled) {
          scheduled = entry;
          entry.removed = false;
          this.due.set(entry.key, entry);
          this.sorted = null;
        }
      }
      scheduled.at = now + syncPeriodFor(hpa, this.config);
      this.earliest = null;
      // The record kept with the entry: no lookup of the memory's table per sync.
      let record = entry.record;
      if (record === null || record.forgotten) {
        record = this.memory.of(entry.key);
        entry.record = record;
      }
      const answer = reconcileHpa(hpa, this.ports, this.memory, this.config, entry.key, record);
      const outcome = answer instanceof Promise ? await answer : answer;
      // Field by field, not a spread of the outcome: one report per sync.
      reports.push({
        key: entry.key,
        hpa,
        at: now,
        result: outcome.result,
        statusError: outcome.statusError,
      });
    }
    return reports;
  }

  /**
   * A controller restart: the in-memory histories are lost and every HPA is seen anew, so
   * its first sync comes one period after the restart.
   */
  restart(now: number): void {
    this.memory.clear();
    for (const entry of this.due.values()) entry.removed = true;
    this.due.clear();
    this.earliest = null;
    this.sorted = null;
    this.observe(now);
  }
}
