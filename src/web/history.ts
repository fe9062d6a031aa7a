// The dashboard's recorded history: per HPA its last `capacity` syncs (each a compact sample for
// the charts plus the sync's decision record), optionally journaled to a JSON-lines file so a
// restarted controller shows the hour before its restart. Bounded by construction: at most
// `maxRecords` across HPAs (each HPA keeps its share, maxRecords ÷ HPAs, when that is fewer than
// `capacity`), the file is compacted to the live records once it holds twice as many lines.
// Time comes from the clock passed in.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { DecisionRecord } from "../controller/decisions.js";
import type { SyncEvent } from "../core/sync.js";
import { metricPoint } from "../sim/report.js";

/** One sync as the charts draw it. */
export interface SyncSample {
  /** Epoch ms of the sync. */
  at: number;
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  /** Pods of the selector and the ready ones, from the first metric that counted pods. */
  pods: number | null;
  readyPods: number | null;
  /**
   * Requests/s offered to the scale target at the sync, where Horizon knows it (a simulation's
   * traffic, `horizon up`'s Service loads); null elsewhere (a real cluster).
   */
  loadRps: number | null;
  /** Each metric's current value against its target, on one scale (percent for Utilization). */
  metrics: { name: string; current: number | null; target: number | null; unit: string }[];
  outcome: DecisionRecord["trace"]["outcome"];
  error: string | null;
}

export interface HistoryRecord {
  /** Increases by one per record of this history (across HPAs). */
  seq: number;
  sample: SyncSample;
  /** Why the sync ended as it did: the rescale reason, the error, the limit or window that held it. */
  reason: string;
  events: SyncEvent[];
  /**
   * The DecisionRecord as JSON, deflated against a recent sync of the same HPA (`dictionary`):
   * syncs of one HPA repeat most of their text, so this keeps a small fraction of it. Inflated
   * and parsed only when the sync is opened (decisionOf).
   */
  packed: string;
  /** The UTF-8 of the sync's JSON it was deflated against, shared by the records that use it. */
  dictionary: Buffer;
}

// The deflated bytes are kept as a latin1 string (one byte per character, on the JS heap): a
// Buffer this small would be a slice of an 8 KiB pool slab, and would keep all of it alive.
function deflate(json: string, dictionary: Buffer): string {
  return deflateRawSync(Buffer.from(json, "utf8"), { dictionary }).toString("latin1");
}

/** The UTF-8 of `text` in a buffer of its own (a pooled one would keep its whole 8 KiB slab). */
function dictionaryOf(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text, "utf8");
  return bytes;
}

/** The record's DecisionRecord as JSON text. */
export function decisionJson(record: HistoryRecord): string {
  return inflateRawSync(Buffer.from(record.packed, "latin1"), {
    dictionary: record.dictionary,
  }).toString("utf8");
}

export function decisionOf(record: HistoryRecord): DecisionRecord {
  return JSON.parse(decisionJson(record)) as DecisionRecord;
}

export function reasonOf(decision: DecisionRecord): string {
  const trace = decision.trace;
  if (trace.rescale) return trace.rescaleReason ?? "";
  if (decision.error) return decision.error;
  if (trace.limit) return `${trace.limit.reason}: ${trace.limit.message}`;
  const window = trace.stabilization;
  if (window && window.stabilized !== window.recommendation) return window.reason;
  return "";
}

export type HistoryEvent =
  | { type: "sync"; key: string; record: HistoryRecord }
  | { type: "forget"; key: string };

export interface Clock {
  now(): number;
}

export interface HpaHistoryOptions {
  /** Syncs kept per HPA (`--dashboard-history-size`). */
  capacity: number;
  /** Records kept across HPAs (`--dashboard-history-max-records`); absent: no bound. */
  maxRecords?: number;
  clock: Clock;
  /** The journal (JSON lines); absent: in memory only. */
  file?: string;
}

/** 240 syncs: the last hour at the default 15 s sync period. */
export const DEFAULT_HISTORY_CAPACITY = 240;

/** 240,000 records: about 130 MiB of heap (bench:dashboard-memory), a full hour for 1,000 HPAs. */
export const DEFAULT_HISTORY_MAX_RECORDS = 240_000;

/**
 * One copy of each string the samples repeat at every sync (metric names and units, reasons),
 * whatever object each sync's copy came from; bounded, as the texts of a fleet are few.
 */
const interned = new Map<string, string>();
function intern(text: string): string {
  const known = interned.get(text);
  if (known !== undefined) return known;
  if (interned.size < 100_000) interned.set(text, text);
  return text;
}

const NO_EVENTS: SyncEvent[] = [];

/**
 * Syncs deflated against one dictionary: at the default 240 syncs, 8 dictionaries of ~2 KiB
 * per HPA and ~100 bytes per sync, rather than one and ~450 bytes per sync.
 */
const DICTIONARY_USES = 32;

export function sampleOf(
  decision: DecisionRecord,
  at: number,
  loadRps: number | null = null,
): SyncSample {
  const trace = decision.trace;
  const counted = trace.metrics.find((m) => m.calculation?.podCount !== undefined)?.calculation;
  return {
    at,
    currentReplicas: trace.currentReplicas,
    desiredReplicas: trace.desiredReplicas,
    minReplicas: trace.minReplicas,
    maxReplicas: trace.maxReplicas,
    pods: counted?.podCount ?? null,
    readyPods: counted?.readyPodCount ?? null,
    loadRps,
    metrics: trace.metrics.map((m) => {
      const point = metricPoint(m);
      return {
        name: intern(m.description ?? `${m.type} metric #${m.index}`),
        current: point.current,
        target: point.target,
        unit: intern(point.unit),
      };
    }),
    outcome: trace.outcome,
    error: decision.error,
  };
}

/** Records oldest first; a push drops the oldest beyond a limit, which may change per push. */
class RecordQueue<T> {
  private items: (T | undefined)[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  /** Appends, then drops the oldest while more than `limit` are kept; returns how many went. */
  push(item: T, limit: number): number {
    this.items.push(item);
    let dropped = 0;
    while (this.length > limit) {
      this.items[this.start++] = undefined;
      dropped++;
    }
    // The dropped slots are reclaimed once they are half the array.
    if (this.start > 16 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return dropped;
  }

  toArray(): T[] {
    return this.items.slice(this.start) as T[];
  }

  last(): T | undefined {
    return this.length === 0 ? undefined : this.items[this.items.length - 1];
  }
}

/** A journal line: a sync (with its load, where known), or an HPA forgotten. */
type JournalLine =
  | { k: string; at: number; d: DecisionRecord; l?: number }
  | { k: string; forget: true };

function syncLine(key: string, record: HistoryRecord, json: string): string {
  const load = record.sample.loadRps === null ? "" : `,"l":${record.sample.loadRps}`;
  return `{"k":${JSON.stringify(key)},"at":${record.sample.at}${load},"d":${json}}\n`;
}

/** One HPA's records, and the text its records are deflated against. */
interface HpaRing {
  records: RecordQueue<HistoryRecord>;
  dictionary: Buffer;
  /** Records deflated against `dictionary`: a new one is taken after DICTIONARY_USES. */
  dictionaryUses: number;
}

export class HpaHistory {
  readonly capacity: number;
  readonly maxRecords: number;
  private readonly clock: Clock;
  private readonly rings = new Map<string, HpaRing>();
  private readonly listeners = new Set<(event: HistoryEvent) => void>();
  private seq = 0;
  private live = 0;
  private readonly file: string | null;
  private fd: number | null = null;
  private linesInFile = 0;
  private closed = false;
  /** Lines of the journal that could not be read (a write cut short by a crash). */
  readonly skippedLines: number = 0;

  constructor(options: HpaHistoryOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1) {
      throw new Error(`history capacity must be a positive integer, got ${options.capacity}`);
    }
    this.capacity = options.capacity;
    const maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY;
    if (!(maxRecords >= 1)) {
      throw new Error(`history maxRecords must be at least 1, got ${options.maxRecords}`);
    }
    this.maxRecords = maxRecords;
    this.clock = options.clock;
    this.file = options.file ?? null;
    if (this.file !== null) {
      this.skippedLines = this.load(this.file);
      this.compact();
    }
  }

  /** Records a sync at the clock's now, with the load offered to its target where known. */
  record(decision: DecisionRecord, loadRps: number | null = null): HistoryRecord {
    const key = `${decision.trace.hpa.namespace}/${decision.trace.hpa.name}`;
    const at = this.clock.now();
    const json = JSON.stringify(decision);
    const record = this.add(key, decision, at, json, loadRps);
    this.append(syncLine(key, record, json));
    for (const listener of this.listeners) listener({ type: "sync", key, record });
    return record;
  }

  /** The HPA was deleted: its history goes. */
  forget(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const ring = this.rings.get(key);
    if (!ring) return;
    this.live -= ring.records.length;
    this.rings.delete(key);
    this.append(`${JSON.stringify({ k: key, forget: true })}\n`);
    for (const listener of this.listeners) listener({ type: "forget", key });
  }

  /** One HPA's records, oldest first; with `sinceMs`, only those of the last `sinceMs`. */
  get(namespace: string, name: string, sinceMs?: number): HistoryRecord[] {
    const all = this.rings.get(`${namespace}/${name}`)?.records.toArray() ?? [];
    if (sinceMs === undefined) return all;
    const from = this.clock.now() - sinceMs;
    return all.filter((record) => record.sample.at >= from);
  }

  latest(namespace: string, name: string): HistoryRecord | undefined {
    return this.rings.get(`${namespace}/${name}`)?.records.last();
  }

  /** `namespace/name` of every HPA with history, sorted. */
  keys(): string[] {
    return [...this.rings.keys()].sort();
  }

  /** Records held now (across HPAs). */
  get size(): number {
    return this.live;
  }

  subscribe(listener: (event: HistoryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Flushes and closes the journal. */
  close(): void {
    this.closed = true;
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }

  private add(
    key: string,
    decision: DecisionRecord,
    at: number,
    json: string,
    loadRps: number | null,
  ): HistoryRecord {
    let ring = this.rings.get(key);
    if (!ring) {
      ring = { records: new RecordQueue(), dictionary: dictionaryOf(json), dictionaryUses: 0 };
      this.rings.set(key, ring);
    } else if (ring.dictionaryUses >= DICTIONARY_USES) {
      // A recent sync as the new dictionary: the nearer in time, the more text they share (a
      // sync deflates to ~50 bytes against the one before, ~450 against one of an hour ago);
      // the records deflated against an old one keep it until they leave the ring.
      ring.dictionary = dictionaryOf(json);
      ring.dictionaryUses = 0;
    }
    ring.dictionaryUses++;
    const record: HistoryRecord = {
      seq: ++this.seq,
      sample: sampleOf(decision, at, loadRps),
      reason: intern(reasonOf(decision)),
      events: decision.events.length === 0 ? NO_EVENTS : decision.events,
      packed: deflate(json, ring.dictionary),
      dictionary: ring.dictionary,
    };
    // Each HPA's share of maxRecords: one over its share sheds the excess at its next sync.
    const share = Math.max(1, Math.floor(this.maxRecords / this.rings.size));
    this.live += 1 - ring.records.push(record, Math.min(this.capacity, share));
    return record;
  }

  private load(file: string): number {
    if (!existsSync(file)) return 0;
    let skipped = 0;
    for (const text of readFileSync(file, "utf8").split("\n")) {
      if (text === "") continue;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        skipped++;
        continue;
      }
      if ("forget" in line) {
        const ring = this.rings.get(line.k);
        if (ring) this.live -= ring.records.length;
        this.rings.delete(line.k);
      } else if (typeof line.k === "string" && typeof line.at === "number" && line.d?.trace) {
        const load = typeof line.l === "number" && Number.isFinite(line.l) ? line.l : null;
        this.add(line.k, line.d, line.at, JSON.stringify(line.d), load);
      } else skipped++;
    }
    return skipped;
  }

  private append(line: string): void {
    // A sync that ends after close() is kept in memory only.
    if (this.file === null || this.closed) return;
    if (this.fd === null) this.fd = openSync(this.file, "a", 0o600);
    writeSync(this.fd, line);
    this.linesInFile++;
    if (this.linesInFile > 2 * this.live + 1024) this.compact();
  }

  /** Rewrites the journal with the live records only (write a new file, then rename over). */
  private compact(): void {
    if (this.file === null) return;
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    mkdirSync(dirname(this.file), { recursive: true });
    const next = `${this.file}.next`;
    const fd = openSync(next, "w", 0o600);
    let lines = 0;
    for (const [key, ring] of this.rings) {
      for (const record of ring.records.toArray()) {
        writeSync(fd, syncLine(key, record, decisionJson(record)));
        lines++;
      }
    }
    fsyncSync(fd);
    closeSync(fd);
    renameSync(next, this.file);
    this.linesInFile = lines;
  }
}
