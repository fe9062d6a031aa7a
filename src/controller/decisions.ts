// The decision traces of recent syncs, for /debug/decisions and `horizon explain`: per HPA the
// last `perHpa` syncs, and at most `maxRecords` overall (the oldest records anywhere go first),
// so memory stays bounded however many HPAs the controller manages. Each is kept as JSON, read
// from the dashboard history's record of the same sync where the controller has one: at 10,000
// HPAs a record lives about one sync period, long enough to reach the old generation, where a
// trace's object graph or a second copy of its text only makes work for the garbage collector.
import type { HorizontalPodAutoscalerCondition } from "../api/types.js";
import type { SyncEvent, SyncResult } from "../core/sync.js";
import type { DecisionTrace } from "../core/trace.js";

export const DECISIONS_SCHEMA = "horizon.dev/decisions/v1";

/** One sync: its trace, the conditions it left in the status, its events and error. */
export interface DecisionRecord {
  trace: DecisionTrace;
  /** status.conditions after the sync. */
  conditions: HorizontalPodAutoscalerCondition[];
  events: SyncEvent[];
  /** The error the sync returned (the trace's `error`), or the status write's error. */
  error: string | null;
  /** The status write failed with this error. */
  statusError?: string;
  /** Wall time of the reconcile, milliseconds (controller only). */
  durationMs?: number;
  /** Seconds after the simulation's start (simulation only). */
  t?: number;
}

export interface HpaDecisions {
  namespace: string;
  name: string;
  /** Oldest first. */
  decisions: DecisionRecord[];
}

/**
 * Whether the controller that serves the document leads (with leader election only): a standby
 * syncs nothing, so `horizon explain` names the leader to ask instead.
 */
export interface LeaderInfo {
  /** The leader-election Lease, `namespace/name`. */
  lease: string;
  leading: boolean;
  /** The Lease's holder as last seen ("" when none). */
  holderIdentity: string;
  /** The leader's /debug base URL from its Lease annotation, when it publishes one. */
  debugAddress: string | null;
}

/** The body of /debug/decisions. */
export interface DecisionsDocument {
  schema: typeof DECISIONS_SCHEMA;
  perHpa: number;
  maxRecords: number;
  /** Absent without leader election. */
  leader?: LeaderInfo;
  hpas: HpaDecisions[];
}

export interface DecisionStoreOptions {
  /** Syncs kept per HPA (default 10). */
  perHpa?: number;
  /** Syncs kept overall (default 10,000: ~3 KiB each, tens of MiB at most). */
  maxRecords?: number;
}

export interface DecisionFilter {
  namespace?: string;
  name?: string;
  /** Each HPA's newest `limit` records. */
  limit?: number;
}

export const DECISION_STORE_DEFAULTS = { perHpa: 10, maxRecords: 10_000 } as const;

/** A record built from a controller sync. */
export function decisionRecordOf(
  result: SyncResult,
  extra: { statusError?: string | null; durationMs?: number } = {},
): DecisionRecord {
  const record: DecisionRecord = {
    trace: result.trace,
    conditions: result.status.conditions ?? [],
    events: result.events,
    error: result.error,
  };
  if (extra.statusError) record.statusError = extra.statusError;
  if (extra.durationMs !== undefined) record.durationMs = extra.durationMs;
  return record;
}

/**
 * What a stored record is read from: an object that holds the sync's JSON anyway (the dashboard
 * history's record of the same sync), so the store keeps no copy of its own.
 */
export interface DecisionJsonHolder {
  decisionJson(): string;
}

/** A record's own JSON, where no holder has it (an object: two equal texts stay apart). */
class DecisionText implements DecisionJsonHolder {
  constructor(private readonly json: string) {}
  decisionJson(): string {
    return this.json;
  }
}

interface Entry {
  key: string;
  stored: DecisionJsonHolder;
}

export class DecisionStore {
  readonly perHpa: number;
  readonly maxRecords: number;
  private readonly byHpa = new Map<string, DecisionJsonHolder[]>();
  /** Every stored entry in arrival order, with stale ones (already dropped) skipped lazily. */
  private fifo: Entry[] = [];
  private head = 0;
  private live = 0;

  constructor(options: DecisionStoreOptions = {}) {
    this.perHpa = Math.max(1, Math.floor(options.perHpa ?? DECISION_STORE_DEFAULTS.perHpa));
    this.maxRecords = Math.max(
      1,
      Math.floor(options.maxRecords ?? DECISION_STORE_DEFAULTS.maxRecords),
    );
  }

  /** Records stored now. */
  get size(): number {
    return this.live;
  }

  /**
   * Stores a record: `json` is its JSON.stringify when the caller has it already, or a holder
   * that keeps that text (then read from it).
   */
  record(record: DecisionRecord, json: string | DecisionJsonHolder = JSON.stringify(record)): void {
    const stored = typeof json === "string" ? new DecisionText(json) : json;
    this.restore(record.trace.hpa.namespace, record.trace.hpa.name, stored);
  }

  /**
   * Stores a sync recorded before (the dashboard history a restarted controller read back from
   * --data-dir): give them oldest first, as they were recorded.
   */
  restore(namespace: string, name: string, stored: DecisionJsonHolder): void {
    const key = keyOf(namespace, name);
    let list = this.byHpa.get(key);
    if (!list) {
      list = [];
      this.byHpa.set(key, list);
    }
    list.push(stored);
    this.fifo.push({ key, stored });
    this.live++;
    if (list.length > this.perHpa) {
      list.shift();
      this.live--;
    }
    while (this.live > this.maxRecords) this.evictOldest();
    this.compact();
  }

  /** The HPA was deleted. */
  forget(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    const list = this.byHpa.get(key);
    if (!list) return;
    this.live -= list.length;
    this.byHpa.delete(key);
    this.compact();
  }

  /** One HPA's records, oldest first (empty when none). */
  get(namespace: string, name: string): DecisionRecord[] {
    return (this.byHpa.get(keyOf(namespace, name)) ?? []).map(parse);
  }

  /** HPAs sorted by namespace and name, optionally filtered; `limit` keeps each one's newest. */
  list(filter: DecisionFilter = {}): HpaDecisions[] {
    return this.#select(filter).map(({ namespace, name, decisions }) => ({
      namespace,
      name,
      decisions: decisions.map(parse),
    }));
  }

  /** The /debug/decisions document as JSON text, made from the stored texts. */
  documentJson(filter: DecisionFilter = {}, leader?: LeaderInfo): string {
    const selected = this.#select(filter);
    // Read in the order the syncs were recorded, not HPA by HPA: a holder (the history) keeps
    // neighbouring syncs together, deflated, so each batch is opened once, not once per record.
    const wanted = new Set<DecisionJsonHolder>();
    for (const hpa of selected) for (const stored of hpa.decisions) wanted.add(stored);
    const texts = new Map<DecisionJsonHolder, string>();
    for (let i = this.head; i < this.fifo.length && texts.size < wanted.size; i++) {
      const stored = this.fifo[i]!.stored;
      if (wanted.has(stored) && !texts.has(stored)) texts.set(stored, stored.decisionJson());
    }
    const hpas = selected.map(
      ({ namespace, name, decisions }) =>
        `{"namespace":${JSON.stringify(namespace)},"name":${JSON.stringify(name)},"decisions":[${decisions.map((s) => texts.get(s) ?? s.decisionJson()).join(",")}]}`,
    );
    const leading = leader ? `"leader":${JSON.stringify(leader)},` : "";
    return `{"schema":${JSON.stringify(DECISIONS_SCHEMA)},"perHpa":${this.perHpa},"maxRecords":${this.maxRecords},${leading}"hpas":[${hpas.join(",")}]}`;
  }

  #select(
    filter: DecisionFilter,
  ): { namespace: string; name: string; decisions: DecisionJsonHolder[] }[] {
    const out: { namespace: string; name: string; decisions: DecisionJsonHolder[] }[] = [];
    for (const [key, records] of this.byHpa) {
      const [namespace, name] = splitKey(key);
      if (filter.namespace !== undefined && namespace !== filter.namespace) continue;
      if (filter.name !== undefined && name !== filter.name) continue;
      const limit = filter.limit ?? records.length;
      out.push({ namespace, name, decisions: records.slice(Math.max(0, records.length - limit)) });
    }
    return out.sort((a, b) =>
      a.namespace === b.namespace
        ? a.name < b.name
          ? -1
          : a.name > b.name
            ? 1
            : 0
        : a.namespace < b.namespace
          ? -1
          : 1,
    );
  }

  private evictOldest(): void {
    while (this.head < this.fifo.length) {
      const entry = this.fifo[this.head]!;
      this.head++;
      const list = this.byHpa.get(entry.key);
      // Per-HPA order is arrival order, so a live oldest entry is its list's first.
      if (list && list[0] === entry.stored) {
        list.shift();
        this.live--;
        if (list.length === 0) this.byHpa.delete(entry.key);
        return;
      }
    }
  }

  /** Drops consumed and stale FIFO entries once they outnumber the live ones. */
  private compact(): void {
    if (this.fifo.length - this.head <= 2 * this.live + 64) {
      if (this.head > 1024 && this.head * 2 > this.fifo.length) {
        this.fifo = this.fifo.slice(this.head);
        this.head = 0;
      }
      return;
    }
    const alive = new Set<DecisionJsonHolder>();
    for (const list of this.byHpa.values()) for (const stored of list) alive.add(stored);
    this.fifo = this.fifo.slice(this.head).filter((entry) => alive.has(entry.stored));
    this.head = 0;
  }
}

const parse = (stored: DecisionJsonHolder): DecisionRecord =>
  JSON.parse(stored.decisionJson()) as DecisionRecord;

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}
