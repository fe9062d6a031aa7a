// The HPA controller's scheduling: every HPA is synced at a fixed interval (the sync period),
// also after errors, and a new HPA's first sync comes one period after it is seen, as
// upstream's rate-limited work queue does. Time comes from the clock port, so the same code
// runs on the simulator's virtual clock and on a real one.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import { syncPeriodFor } from "../core/extensions/knobs.js";
import type { ControllerPorts } from "./ports.js";
import { ControllerMemory, hpaKey, type ReconcileOutcome, reconcileHpa } from "./reconcile.js";

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
}

export class HorizontalController {
  private readonly memory = new ControllerMemory();
  /** Next sync time per HPA key. */
  private readonly due = new Map<string, number>();
  /** The earliest of `due`, recomputed only after it changed. */
  private earliest: number | null = null;
  /** The keys of `due`, sorted; recomputed only after the set of HPAs changed. */
  private sortedKeys: string[] | null = null;

  /** The last HPA list seen and its index: listers return the same list until it changes. */
  private indexed: {
    list: readonly HorizontalPodAutoscaler[];
    byKey: Map<string, HorizontalPodAutoscaler>;
  } | null = null;

  constructor(private readonly options: HorizontalControllerOptions) {}

  private hpasByKey(): Map<string, HorizontalPodAutoscaler> {
    const list = this.options.listHpas();
    if (this.indexed?.list !== list) {
      this.indexed = { list, byKey: new Map(list.map((hpa) => [hpaKey(hpa), hpa])) };
    }
    return this.indexed.byKey;
  }

  /**
   * Reconciles the HPA set with what is scheduled: new HPAs are due one sync period from now,
   * deleted ones are forgotten with their histories.
   */
  observe(now: number): void {
    const seen = new Set<string>();
    for (const hpa of this.options.listHpas()) {
      const key = hpaKey(hpa);
      seen.add(key);
      if (!this.due.has(key)) {
        this.due.set(key, now + syncPeriodFor(hpa, this.options.config));
        this.earliest = null;
        this.sortedKeys = null;
      }
    }
    for (const key of this.due.keys()) {
      if (!seen.has(key)) {
        this.due.delete(key);
        this.memory.forget(key);
        this.earliest = null;
        this.sortedKeys = null;
      }
    }
  }

  /** The earliest time any HPA is due, or Infinity. */
  nextDue(): number {
    if (this.earliest === null) {
      let next = Number.POSITIVE_INFINITY;
      for (const at of this.due.values()) if (at < next) next = at;
      this.earliest = next;
    }
    return this.earliest;
  }

  /** Syncs every HPA due at or before the clock's now, in key order; each is requeued one period later. */
  async syncDue(): Promise<SyncReport[]> {
    const now = this.options.ports.clock.now();
    const reports: SyncReport[] = [];
    const byKey = this.hpasByKey();
    this.sortedKeys ??= [...this.due.keys()].sort();
    // Collected before syncing: a sync requeues its HPA, and that must not change this round.
    const dueKeys = this.sortedKeys.filter((key) => this.due.get(key)! <= now);
    for (const key of dueKeys) {
      const hpa = byKey.get(key);
      if (!hpa) continue;
      // Forgotten while an earlier sync awaited: setting it again changes the key set.
      if (!this.due.has(key)) this.sortedKeys = null;
      this.due.set(key, now + syncPeriodFor(hpa, this.options.config));
      this.earliest = null;
      const outcome = await reconcileHpa(hpa, this.options.ports, this.memory, this.options.config);
      reports.push({ key, hpa, at: now, ...outcome });
    }
    return reports;
  }

  /**
   * A controller restart: the in-memory histories are lost and every HPA is seen anew, so
   * its first sync comes one period after the restart.
   */
  restart(now: number): void {
    this.memory.clear();
    this.due.clear();
    this.earliest = null;
    this.sortedKeys = null;
    this.observe(now);
  }
}
