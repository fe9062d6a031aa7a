// The changes a store keeps for watches resumed from a resourceVersion (kube-apiserver's watch
// cache window; older versions are gone as after an etcd compaction). Each change is kept as its
// object's JSON in one byte ring that is reused from change to change, not as the object: with
// thousands of whole objects held on the JS heap, every change's object was promoted to the old
// generation and only mark-compacts freed them (the API server's probes waited on those pauses).

import type { KubeObject } from "../api/types.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One change as a watch sends it (a store's events; kept and replayed here). */
export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface ChangeHistoryLimits {
  /** How many changes are kept at most. */
  changes: number;
  /** How many bytes of JSON they may take at most (the ring's largest size). */
  bytes: number;
}

interface KeptChange {
  rv: number;
  type: WatchEventType;
  kind: string;
  /** Where the object's JSON is in the ring. */
  start: number;
  length: number;
}

/** The ring's first size; it doubles as changes need room, up to `limits.bytes`. */
const FIRST_RING_BYTES = 64 * 1024;

export class ChangeHistory {
  readonly #limits: ChangeHistoryLimits;
  #ring: Buffer = Buffer.alloc(0);
  /** Kept changes, oldest first from #head (the slots before it are emptied). */
  #kept: (KeptChange | undefined)[] = [];
  #head = 0;
  /** Where the next change's bytes go. */
  #end = 0;
  #compacted: number;

  /** `compacted`: the newest resourceVersion whose change is not kept (at a start: the current). */
  constructor(limits: ChangeHistoryLimits, compacted = 0) {
    this.#limits = limits;
    this.#compacted = compacted;
  }

  /** The newest resourceVersion whose change is no longer kept. */
  get compacted(): number {
    return this.#compacted;
  }

  /** How many changes are kept. */
  get size(): number {
    return this.#kept.length - this.#head;
  }

  /** Keeps a change, letting the oldest go when a limit would be passed. */
  record(rv: number, type: WatchEventType, object: KubeObject): void {
    const json = this.#limits.changes > 0 ? jsonOf(object) : null;
    if (json !== null) {
      const length = Buffer.byteLength(json);
      if (length <= this.#limits.bytes) {
        while (this.size >= this.#limits.changes) this.#dropOldest();
        const start = this.#place(length);
        this.#ring.write(json, start, length, "utf8");
        this.#kept.push({ rv, type, kind: object.kind, start, length });
        this.#end = start + length;
        return;
      }
    }
    // Not kept (no history, too big, or not encodable): nothing older can be replayed without it.
    while (this.size > 0) this.#dropOldest();
    this.#compacted = rv;
  }

  /**
   * The kept changes after `rv` (of `kind` only, when given), as new objects read back from
   * their JSON; "Expired" when changes after `rv` are no longer kept.
   */
  since(rv: number, kind?: string): WatchEvent[] | "Expired" {
    if (!Number.isFinite(rv) || rv < this.#compacted) return "Expired";
    const out: WatchEvent[] = [];
    for (let i = this.#head; i < this.#kept.length; i++) {
      const change = this.#kept[i]!;
      if (change.rv <= rv || (kind !== undefined && change.kind !== kind)) continue;
      const text = this.#ring.toString("utf8", change.start, change.start + change.length);
      out.push({ type: change.type, object: JSON.parse(text) as KubeObject });
    }
    return out;
  }

  /** Where `length` bytes go: free room in the ring, grown or made by letting the oldest go. */
  #place(length: number): number {
    for (;;) {
      if (this.size === 0) {
        if (length <= this.#ring.length) return 0;
      } else {
        const oldest = this.#kept[this.#head]!.start;
        if (oldest < this.#end) {
          // Kept bytes are [oldest, end): room after them, or from the ring's start.
          if (this.#end + length <= this.#ring.length) return this.#end;
          if (length <= oldest) return 0;
        } else if (this.#end + length <= oldest) {
          // Kept bytes wrap around the ring's end: the room is between them.
          return this.#end;
        }
      }
      if (this.#ring.length < this.#limits.bytes) this.#grow(length);
      else this.#dropOldest();
    }
  }

  /** A larger ring, the kept changes copied to its start in order. */
  #grow(length: number): void {
    let used = 0;
    for (let i = this.#head; i < this.#kept.length; i++) used += this.#kept[i]!.length;
    const size = Math.min(
      this.#limits.bytes,
      Math.max(FIRST_RING_BYTES, this.#ring.length * 2, used + length),
    );
    const ring = Buffer.allocUnsafeSlow(size);
    const kept = this.#kept.slice(this.#head) as KeptChange[];
    let at = 0;
    for (const change of kept) {
      this.#ring.copy(ring, at, change.start, change.start + change.length);
      change.start = at;
      at += change.length;
    }
    this.#ring = ring;
    this.#kept = kept;
    this.#head = 0;
    this.#end = at;
  }

  #dropOldest(): void {
    this.#compacted = this.#kept[this.#head]!.rv;
    this.#kept[this.#head++] = undefined;
    if (this.#head === this.#kept.length) {
      this.#kept = [];
      this.#head = 0;
      this.#end = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** The object's JSON; null when it cannot be encoded (too deep for the stack): the write stands. */
function jsonOf(object: KubeObject): string | null {
  try {
    return JSON.stringify(object);
  } catch {
    return null;
  }
}
