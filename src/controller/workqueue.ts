// A rate-limited delaying work queue with client-go's semantics (util/workqueue: queue.go,
// delaying_queue.go, rate_limiting_queue.go):
// - a key is queued at most once ("dirty"); a key added while a worker holds it ("processing")
//   is queued again only when the worker calls done(key), so no two workers hold one key;
// - addAfter keeps one entry per key in a min-heap of ready times (a sooner time wins, a later
//   one is dropped) served by a single timer;
// - after shutDown, get() still hands out what is queued, then answers shutdown; adds are
//   ignored. shutDownWithDrain also waits for the keys being processed.
// Time comes from injectable timers so tests step a fake clock.

/** Clock and timers; the system's by default, a fake one in tests. */
export interface Timers {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, Math.max(0, delayMs)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** client-go's RateLimiter: how long a key waits before it is re-added. */
export interface RateLimiter<K> {
  whenMs(key: K): number;
  forget(key: K): void;
  numRequeues(key: K): number;
}

/**
 * upstream NewDefaultHPARateLimiter(resyncPeriod) = FixedItemIntervalRateLimiter: every key,
 * every time, waits the same interval (so every HPA is synced once per sync period, also after
 * errors); Forget does nothing and NumRequeues is always 1.
 */
export function fixedIntervalRateLimiter<K>(intervalMs: number): RateLimiter<K> {
  return { whenMs: () => intervalMs, forget: () => {}, numRequeues: () => 1 };
}

/** Optional hooks for the observability helper (client-go's workqueue metrics provider). */
export interface WorkQueueMetrics {
  /** A key entered the ready queue (after de-duplication). */
  added?(depth: number): void;
  /** A worker took a key after it waited `queuedMs` in the ready queue. */
  taken?(queuedMs: number, depth: number): void;
  /** A worker finished a key it held for `workMs`. */
  finished?(workMs: number): void;
  /** addRateLimited was called (client-go's retries counter). */
  retried?(): void;
}

export interface WorkQueueOptions<K> {
  timers?: Timers;
  /** Default: every key waits 0 ms (addRateLimited = add). */
  rateLimiter?: RateLimiter<K>;
  metrics?: WorkQueueMetrics;
}

export type QueueItem<K> = { shutdown: false; key: K } | { shutdown: true };

interface Waiting<K> {
  key: K;
  readyAt: number;
  /** Insertion order: ties in readyAt come out first-in first-out. */
  seq: number;
  index: number;
}

export class WorkQueue<K = string> {
  private readonly timers: Timers;
  private readonly limiter: RateLimiter<K>;
  private readonly metrics: WorkQueueMetrics;

  /** Ready keys in order; `head` avoids O(n) shifts. */
  private ready: K[] = [];
  private head = 0;
  /** Keys that need processing (queued, or re-added while processing). */
  private readonly dirty = new Set<K>();
  /** Keys a worker holds, with when it took them. */
  private readonly processing = new Map<K, number>();
  /** When each ready key entered the queue (for the queue-latency metric). */
  private readonly addedAt = new Map<K, number>();
  private readonly getters: ((item: QueueItem<K>) => void)[] = [];

  private readonly heap: Waiting<K>[] = [];
  private readonly waitingByKey = new Map<K, Waiting<K>>();
  private seq = 0;
  private timer: { handle: unknown; at: number } | null = null;

  private shuttingDownFlag = false;
  private drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions<K> = {}) {
    this.timers = options.timers ?? systemTimers;
    this.limiter = options.rateLimiter ?? fixedIntervalRateLimiter<K>(0);
    this.metrics = options.metrics ?? {};
  }

  /** Queues the key now unless it is already queued (then nothing changes). */
  add(key: K): void {
    if (this.shuttingDownFlag) return;
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    // Held by a worker: done(key) queues it again.
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Queues the key after a delay; a key already waiting keeps the sooner of the two times. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDownFlag) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.timers.now() + delayMs;
    const existing = this.waitingByKey.get(key);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.siftUp(existing.index);
        this.arm();
      }
      return;
    }
    const entry: Waiting<K> = { key, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(entry);
    this.waitingByKey.set(key, entry);
    this.siftUp(entry.index);
    this.arm();
  }

  /** addAfter with the rate limiter's delay for this key. */
  addRateLimited(key: K): void {
    this.metrics.retried?.();
    this.addAfter(key, this.limiter.whenMs(key));
  }

  /** The rate limiter stops tracking the key (its delay does not reset anything waiting). */
  forget(key: K): void {
    this.limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.limiter.numRequeues(key);
  }

  /**
   * The next key, held by the caller until done(key); waits while the queue is empty. After
   * shutdown, queued keys are still handed out, then `{shutdown: true}`.
   */
  get(): Promise<QueueItem<K>> {
    if (this.head < this.ready.length) return Promise.resolve(this.take());
    if (this.shuttingDownFlag) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** The caller finished the key: if it was re-added meanwhile, it is queued again now. */
  done(key: K): void {
    const since = this.processing.get(key);
    if (since === undefined) return;
    this.processing.delete(key);
    this.metrics.finished?.(this.timers.now() - since);
    if (this.dirty.has(key)) this.push(key);
    else if (this.processing.size === 0) this.notifyDrained();
  }

  /** Keys ready and waiting for a worker (client-go's Len, the queue-depth metric). */
  len(): number {
    return this.ready.length - this.head;
  }

  /** Keys waiting for their delay to pass. */
  waitingLen(): number {
    return this.heap.length;
  }

  /** Keys held by workers. */
  processingLen(): number {
    return this.processing.size;
  }

  /** When the key is due from the delay heap, if it is waiting there. */
  readyAt(key: K): number | undefined {
    return this.waitingByKey.get(key)?.readyAt;
  }

  isShuttingDown(): boolean {
    return this.shuttingDownFlag;
  }

  /** Stops accepting keys and wakes idle getters; does not wait for keys being processed. */
  shutDown(): void {
    this.stop();
    // A plain shutdown ends any drain in progress (client-go clears its drain flag).
    this.notifyDrained();
  }

  /** Stops accepting keys, then resolves once no key is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.stop();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private stop(): void {
    this.shuttingDownFlag = true;
    if (this.timer) {
      this.timers.clearTimeout(this.timer.handle);
      this.timer = null;
    }
    this.heap.length = 0;
    this.waitingByKey.clear();
    const getters = this.getters.splice(0);
    for (const resolve of getters) resolve({ shutdown: true });
  }

  private notifyDrained(): void {
    const waiters = this.drainWaiters.splice(0);
    for (const resolve of waiters) resolve();
  }

  private push(key: K): void {
    this.addedAt.set(key, this.timers.now());
    this.ready.push(key);
    this.metrics.added?.(this.len());
    // An idle worker is waiting: hand the key over at once (client-go's cond.Signal).
    const getter = this.getters.shift();
    if (getter) getter(this.take());
  }

  private take(): QueueItem<K> {
    const key = this.ready[this.head++] as K;
    if (this.head > 1024 && this.head * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.head);
      this.head = 0;
    }
    const now = this.timers.now();
    this.processing.set(key, now);
    this.dirty.delete(key);
    const queuedAt = this.addedAt.get(key) ?? now;
    this.addedAt.delete(key);
    this.metrics.taken?.(now - queuedAt, this.len());
    return { shutdown: false, key };
  }

  /** One timer, armed for the earliest waiting key. */
  private arm(): void {
    const first = this.heap[0];
    if (!first) {
      if (this.timer) {
        this.timers.clearTimeout(this.timer.handle);
        this.timer = null;
      }
      return;
    }
    if (this.timer && this.timer.at === first.readyAt) return;
    if (this.timer) this.timers.clearTimeout(this.timer.handle);
    const at = first.readyAt;
    const handle = this.timers.setTimeout(() => {
      if (this.timer?.handle !== handle) return;
      this.timer = null;
      this.fire();
    }, at - this.timers.now());
    this.timer = { handle, at };
  }

  /** Moves every key whose time has come to the ready queue, in ready-time order. */
  private fire(): void {
    const now = this.timers.now();
    while (this.heap.length > 0 && this.heap[0]!.readyAt <= now) {
      const entry = this.popHeap();
      this.waitingByKey.delete(entry.key);
      this.add(entry.key);
    }
    this.arm();
  }

  private less(a: Waiting<K>, b: Waiting<K>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private siftUp(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i]!, this.heap[parent]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(index: number): void {
    let i = index;
    const n = this.heap.length;
    while (true) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.heap[left]!, this.heap[smallest]!)) smallest = left;
      if (right < n && this.less(this.heap[right]!, this.heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private popHeap(): Waiting<K> {
    const top = this.heap[0]!;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      last.index = 0;
      this.siftDown(0);
    }
    return top;
  }
}
