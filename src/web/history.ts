// The dashboard's recorded history: per HPA its last `capacity` syncs (each a compact sample for
// the charts plus the sync's decision record, deflated with other syncs), optionally journaled to a JSON-lines file so a
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
import type { DecisionJsonHolder, DecisionRecord } from "../controller/decisions.js";
import type { SyncEvent } from "../core/sync.js";
import { metricName } from "../explain/format.js";
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

export interface HistoryRecord extends DecisionJsonHolder {
  /** Increases by one per record of this history (across HPAs). */
  seq: number;
  sample: SyncSample;
  /** Why the sync ended as it did: the rescale reason, the error, the limit or window that held it. */
  reason: string;
  /** Whether a bound, a policy or a stabilization window held the recommendation back. */
  limited: boolean;
  events: SyncEvent[];
  /** Where the DecisionRecord's JSON is kept, with other syncs' (read it with decisionJson). */
  batch: PackedBatch;
  /** The record's place in `batch`. */
  slot: number;
}

/**
 * A record as the history keeps it. Its batch and slot stay readable after it leaves the history
 * (a batch keeps its text, or its bytes once sealed), so the controller's decision store reads
 * the same sync's JSON here instead of keeping a copy.
 */
class StoredRecord implements HistoryRecord {
  slot = -1;
  constructor(
    readonly seq: number,
    readonly sample: SyncSample,
    readonly reason: string,
    readonly limited: boolean,
    readonly events: SyncEvent[],
    public batch: PackedBatch,
  ) {}

  decisionJson(): string {
    return decisionJson(this);
  }
}

/**
 * Syncs' decision records deflated together, whichever HPAs they are of: one deflate call per
 * BATCH_RECORDS syncs, not one per sync (the call's own set-up cost more than deflating 1.7 KiB
 * against a dictionary), and syncs of one fleet share most of their text with each other.
 * Open, it holds the records' JSON; full, it is sealed: their UTF-8 deflated as one stream, and
 * where each record ends in it.
 */
export class PackedBatch {
  /** Each slot's record; null once it left the history. */
  readonly records: (HistoryRecord | null)[] = [];
  /** Each slot's JSON while open; null once sealed. */
  texts: string[] | null = [];
  /**
   * The deflated bytes once sealed, as a latin1 string (one byte per character, on the JS heap):
   * zlib's output is a slice of its larger output buffer, which it would keep alive.
   */
  packed = "";
  /** Once sealed, the byte offset where each slot's JSON ends. */
  ends: Uint32Array | null = null;
  /** Slots whose record is still in the history. */
  live = 0;
}

/** Syncs per deflate call: a sealed batch of ~110 KiB of JSON opens (inflates) in ~0.1 ms. */
const BATCH_RECORDS = 64;

/** Below this share of live records, a sealed batch's records are deflated again elsewhere. */
const REPACK_BELOW = 1 / 4;

/** zlib's fastest level: the records repeat each other so much that it loses little. */
const DEFLATE_LEVEL = 1;

/** The last batch inflated: readers (a replay, journal compaction) often read its neighbours. */
let inflated: { batch: PackedBatch; bytes: Buffer } | null = null;

/** The record's DecisionRecord as JSON text. */
export function decisionJson(record: HistoryRecord): string {
  const batch = record.batch;
  if (batch.texts !== null) return batch.texts[record.slot]!;
  if (inflated?.batch !== batch) {
    inflated = { batch, bytes: inflateRawSync(Buffer.from(batch.packed, "latin1")) };
  }
  const start = record.slot === 0 ? 0 : batch.ends![record.slot - 1]!;
  return inflated.bytes.toString("utf8", start, batch.ends![record.slot]!);
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

/** A bound (min/max), a `behavior` policy or a stabilization window changed the outcome. */
export function isLimited(decision: DecisionRecord): boolean {
  const trace = decision.trace;
  if (decision.error) return false;
  const window = trace.stabilization;
  // DesiredWithinRange is upstream's ScalingLimited False: nothing held it back.
  const bounded = trace.limit !== undefined && trace.limit.reason !== "DesiredWithinRange";
  return bounded || (window !== undefined && window.stabilized !== window.recommendation);
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

/** 240,000 records: about 100 MiB of heap (bench:dashboard-memory), a full hour for 1,000 HPAs. */
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
        name: intern(metricName(m)),
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

  /**
   * Appends, then drops the oldest while more than `limit` are kept, handing each to `dropped`;
   * returns how many went.
   */
  push(item: T, limit: number, dropped: (item: T) => void): number {
    this.items.push(item);
    let count = 0;
    while (this.length > limit) {
      dropped(this.items[this.start]!);
      this.items[this.start++] = undefined;
      count++;
    }
    // The dropped slots are reclaimed once they are half the array.
    if (this.start > 16 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return count;
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

export class HpaHistory {
  readonly capacity: number;
  readonly maxRecords: number;
  private readonly clock: Clock;
  private readonly rings = new Map<string, RecordQueue<HistoryRecord>>();
  /** Where records go once their HPA syncs again. */
  private open = new PackedBatch();
  /** Sealed batches with live records. */
  private readonly sealed = new Set<PackedBatch>();
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

  /**
   * Records a sync at the clock's now, with the load offered to its target where known; `json`
   * is the decision's JSON.stringify when the caller has it already.
   */
  record(
    decision: DecisionRecord,
    loadRps: number | null = null,
    json: string = JSON.stringify(decision),
  ): HistoryRecord {
    const key = `${decision.trace.hpa.namespace}/${decision.trace.hpa.name}`;
    const at = this.clock.now();
    const record = this.add(key, decision, at, json, loadRps);
    this.append(syncLine(key, record, json));
    for (const listener of this.listeners) listener({ type: "sync", key, record });
    return record;
  }

  /** The HPA was deleted: its history goes. */
  forget(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (!this.drop(key)) return;
    this.append(`${JSON.stringify({ k: key, forget: true })}\n`);
    for (const listener of this.listeners) listener({ type: "forget", key });
  }

  /** One HPA's records, oldest first; with `sinceMs`, only those of the last `sinceMs`. */
  get(namespace: string, name: string, sinceMs?: number): HistoryRecord[] {
    const all = this.rings.get(`${namespace}/${name}`)?.toArray() ?? [];
    if (sinceMs === undefined) return all;
    const from = this.clock.now() - sinceMs;
    return all.filter((record) => record.sample.at >= from);
  }

  latest(namespace: string, name: string): HistoryRecord | undefined {
    return this.rings.get(`${namespace}/${name}`)?.last();
  }

  /** `namespace/name` of every HPA with history, sorted. */
  keys(): string[] {
    return [...this.rings.keys()].sort();
  }

  /** Records held now (across HPAs). */
  get size(): number {
    return this.live;
  }

  /** What holds the records' decisions: sealed batches, the records they hold, their bytes. */
  packing(): { batches: number; records: number; bytes: number } {
    let records = 0;
    let bytes = 0;
    for (const batch of this.sealed) {
      records += batch.records.length;
      bytes += batch.packed.length;
    }
    return { batches: this.sealed.size, records, bytes };
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
      ring = new RecordQueue();
      this.rings.set(key, ring);
    }
    const record = new StoredRecord(
      ++this.seq,
      sampleOf(decision, at, loadRps),
      intern(reasonOf(decision)),
      isLimited(decision),
      decision.events.length === 0 ? NO_EVENTS : decision.events,
      this.open,
    );
    this.pack(record, json);
    // Each HPA's share of maxRecords: one over its share sheds the excess at its next sync.
    const share = Math.max(1, Math.floor(this.maxRecords / this.rings.size));
    const limit = Math.min(this.capacity, share);
    this.live += 1 - ring.push(record, limit, (gone) => this.release(gone));
    return record;
  }

  /** Puts a record's JSON into the open batch, and seals the batch once full. */
  private pack(record: HistoryRecord, json: string): void {
    const batch = this.open;
    record.batch = batch;
    record.slot = batch.records.length;
    batch.records.push(record);
    batch.texts!.push(json);
    batch.live++;
    if (batch.records.length >= BATCH_RECORDS) this.seal();
  }

  private seal(): void {
    const batch = this.open;
    this.open = new PackedBatch();
    const texts = batch.texts!;
    let size = 0;
    for (const text of texts) size += Buffer.byteLength(text);
    const bytes = Buffer.allocUnsafe(size);
    const ends = new Uint32Array(texts.length);
    let end = 0;
    texts.forEach((text, i) => {
      end += bytes.write(text, end);
      ends[i] = end;
    });
    batch.packed = deflateRawSync(bytes, { level: DEFLATE_LEVEL }).toString("latin1");
    batch.ends = ends;
    batch.texts = null;
    this.sealed.add(batch);
    this.compactBatch(batch);
  }

  /** Drops an HPA's records; false when it has none. */
  private drop(key: string): boolean {
    const ring = this.rings.get(key);
    if (!ring) return false;
    this.live -= ring.length;
    this.rings.delete(key);
    for (const record of ring.toArray()) this.release(record);
    return true;
  }

  /** A record left the history: its batch's slot is free. */
  private release(record: HistoryRecord): void {
    const batch = record.batch;
    if (batch.records[record.slot] !== record) return;
    batch.records[record.slot] = null;
    batch.live--;
    if (batch.texts === null) this.compactBatch(batch);
  }

  /**
   * A sealed batch whose records mostly left would keep their bytes for its few live ones (an
   * HPA synced far less often than the rest, or kept longer): those move to the open batch,
   * so batches hold at most 1 ÷ REPACK_BELOW times the live records.
   */
  private compactBatch(batch: PackedBatch): void {
    if (batch.live >= batch.records.length * REPACK_BELOW) return;
    this.sealed.delete(batch);
    const moving: [HistoryRecord, string][] = [];
    batch.records.forEach((record) => {
      if (record !== null) moving.push([record, decisionJson(record)]);
    });
    batch.records.length = 0;
    batch.live = 0;
    for (const [record, json] of moving) this.pack(record, json);
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
      if ("forget" in line) this.drop(line.k);
      else if (typeof line.k === "string" && typeof line.at === "number" && line.d?.trace) {
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
    // In the order they were recorded (each HPA's stay in order), which is near the order they
    // were packed in: most reads inflate the batch the one before did.
    const lines: [string, HistoryRecord][] = [];
    for (const [key, ring] of this.rings) {
      for (const record of ring.toArray()) lines.push([key, record]);
    }
    lines.sort((a, b) => a[1].seq - b[1].seq);
    for (const [key, record] of lines) writeSync(fd, syncLine(key, record, decisionJson(record)));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(next, this.file);
    this.linesInFile = lines.length;
  }
}
