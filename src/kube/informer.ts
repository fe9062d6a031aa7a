// A lean informer (client-go's reflector + store, without the DeltaFIFO): a paginated LIST,
// then a WATCH from the list's resourceVersion with bookmarks, resumed from the last seen
// resourceVersion when it ends, relisted on 410 Gone / Expired / "too large resource version",
// backed off on errors, and restarted by a watchdog when it stalls. Objects go through
// `transform` once per change (pods are stripped on arrival) and are kept by `namespace/name`.
import { KubeTransportError } from "./client.js";
import type { KubeClient, WatchEvent } from "./types.js";

export interface RawObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  [field: string]: unknown;
}

/** A change: `value` is the new object (null when deleted), `previous` the old (null when added). */
export type InformerListener<T> = (key: string, value: T | null, previous: T | null) => void;

export interface InformerBackoff {
  /** client-go's reflector: 800 ms, doubling to 30 s, reset after 2 min without errors. */
  initialMs?: number;
  maxMs?: number;
  resetAfterMs?: number;
  /** Extra random wait, as a fraction of the backoff (client-go: 1.0, up to twice as long). */
  jitter?: number;
}

export interface InformerOptions<T> {
  client: KubeClient;
  /** The collection path, e.g. /api/v1/pods or /apis/autoscaling/v2/horizontalpodautoscalers. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Applied once per change; null leaves the object out (as if deleted). */
  transform: (object: RawObject) => T | null;
  /** A changed object whose transform `equals` the kept one keeps the kept value, and no event fires. */
  equals?: (a: T, b: T) => boolean;
  /** LIST page size (client-go's pager: 500). */
  pageSize?: number;
  /** The watch's timeoutSeconds; default random in [300, 600) as client-go's reflector. */
  watchTimeoutSeconds?: number | (() => number);
  /**
   * A watch with no event or bookmark for this long is restarted (default 3 min: the API
   * server sends a bookmark about every minute to watches that allow them).
   */
  stallTimeoutMs?: number;
  backoff?: InformerBackoff;
  /** Where errors are reported (they are retried, never thrown). */
  onError?: (message: string) => void;
  /** For messages (default: the path). */
  name?: string;
}

export interface InformerStats {
  lists: number;
  relists: number;
  watches: number;
  /** Watches restarted by the watchdog. */
  stalls: number;
  errors: number;
}

/** The key of an object: namespace/name, or name for cluster-scoped objects. */
export function objectKey(object: RawObject): string {
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? "";
  return namespace ? `${namespace}/${name}` : name;
}

interface Entry<T> {
  rv: string;
  value: T;
}

class Backoff {
  #current = 0;
  #last = Number.NEGATIVE_INFINITY;
  constructor(
    readonly initialMs: number,
    readonly maxMs: number,
    readonly resetAfterMs: number,
    readonly jitter: number,
  ) {}
  next(): number {
    const now = performance.now();
    this.#current =
      now - this.#last > this.resetAfterMs || this.#current === 0
        ? this.initialMs
        : Math.min(this.maxMs, this.#current * 2);
    this.#last = now;
    return this.#current * (1 + Math.random() * this.jitter);
  }
}

type WatchEnd = "ended" | "expired" | "stalled" | "stopped";

class ExpiredError extends Error {}

function statusOf(error: unknown): number | undefined {
  return error instanceof KubeTransportError ? error.status : (error as { status?: number }).status;
}

/** 410 Gone/Expired, or the "too large resource version" 504: the informer must relist. */
function isExpiredStatus(status: {
  code?: unknown;
  reason?: unknown;
  message?: unknown;
  details?: { causes?: { reason?: unknown }[] };
}): boolean {
  if (status.code === 410 || status.reason === "Expired" || status.reason === "Gone") return true;
  const tooLarge =
    status.details?.causes?.some((c) => c.reason === "ResourceVersionTooLarge") ||
    (typeof status.message === "string" && /too large resource version/i.test(status.message));
  return Boolean(tooLarge);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Informer<T> {
  readonly #options: InformerOptions<T>;
  readonly #items = new Map<string, Entry<T>>();
  readonly #listeners = new Set<InformerListener<T>>();
  readonly #syncWaiters = new Set<() => void>();
  readonly #backoff: Backoff;
  #list: readonly T[] | null = null;
  #rv = "";
  #synced = false;
  #stop: AbortController | null = null;
  #loop: Promise<void> | null = null;
  readonly #stats: InformerStats = { lists: 0, relists: 0, watches: 0, stalls: 0, errors: 0 };

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    const b = options.backoff ?? {};
    this.#backoff = new Backoff(
      b.initialMs ?? 800,
      b.maxMs ?? 30_000,
      b.resetAfterMs ?? 120_000,
      b.jitter ?? 1.0,
    );
  }

  get name(): string {
    return this.#options.name ?? this.#options.path;
  }

  /** Starts listing and watching in the background (once). */
  start(): void {
    if (this.#loop) return;
    this.#stop = new AbortController();
    this.#loop = this.#run(this.#stop.signal);
  }

  /** Stops the watch and waits for the loop to end. The kept objects stay readable. */
  async stop(): Promise<void> {
    this.#stop?.abort();
    await this.#loop;
    this.#loop = null;
    for (const wake of [...this.#syncWaiters]) wake();
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves true once the first LIST is in, false if stopped (or `signal` aborts) first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        this.#syncWaiters.delete(wake);
        signal?.removeEventListener("abort", wake);
        resolve(this.#synced);
      };
      this.#syncWaiters.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
      if (this.#stop?.signal.aborted) wake();
    });
  }

  /** The kept objects; the same array until one changes. */
  list(): readonly T[] {
    if (this.#list === null) {
      const out: T[] = [];
      for (const entry of this.#items.values()) out.push(entry.value);
      this.#list = Object.freeze(out);
    }
    return this.#list;
  }

  get(key: string): T | undefined {
    return this.#items.get(key)?.value;
  }

  get size(): number {
    return this.#items.size;
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  resourceVersion(): string {
    return this.#rv;
  }

  stats(): InformerStats {
    return { ...this.#stats };
  }

  subscribe(listener: InformerListener<T>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #report(message: string): void {
    this.#stats.errors++;
    this.#options.onError?.(`${this.name}: ${message}`);
  }

  #emit(key: string, value: T | null, previous: T | null): void {
    this.#list = null;
    for (const listener of this.#listeners) {
      try {
        listener(key, value, previous);
      } catch (error) {
        this.#report(`a listener failed: ${errorMessage(error)}`);
      }
    }
  }

  #transform(object: RawObject): T | null {
    try {
      return this.#options.transform(object);
    } catch (error) {
      this.#report(`cannot read ${objectKey(object)}: ${errorMessage(error)}`);
      return null;
    }
  }

  /** Puts a new version of an object; `value` already transformed. */
  #upsert(key: string, rv: string, value: T | null): void {
    const old = this.#items.get(key);
    if (value === null) {
      if (old) {
        this.#items.delete(key);
        this.#emit(key, null, old.value);
      }
      return;
    }
    if (old && this.#options.equals?.(old.value, value)) {
      old.rv = rv;
      return;
    }
    this.#items.set(key, { rv, value });
    this.#emit(key, value, old?.value ?? null);
  }

  async #run(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#listAll(signal);
          needList = false;
        }
        const started = performance.now();
        const { end, events } = await this.#watchOnce(signal);
        if (end === "expired") {
          this.#stats.relists++;
          needList = true;
        } else if (end === "ended" && events === 0 && performance.now() - started < 1000) {
          // client-go: "very short watch", an unexpected close: back off before the next one.
          this.#report("the watch closed at once with no events");
          await sleepUnlessAborted(this.#backoff.next(), signal);
        }
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof ExpiredError) {
          this.#stats.relists++;
          needList = true;
          continue;
        }
        this.#report(errorMessage(error));
        await sleepUnlessAborted(this.#backoff.next(), signal);
      }
    }
  }

  #query(): Record<string, string | number | undefined> {
    return {
      labelSelector: this.#options.labelSelector || undefined,
      fieldSelector: this.#options.fieldSelector || undefined,
    };
  }

  /** A consistent LIST, page by page; replaces the kept set at the end (deletions included). */
  async #listAll(signal: AbortSignal): Promise<void> {
    this.#stats.lists++;
    const staged = new Map<string, Entry<T>>();
    let pageSize: number | undefined = this.#options.pageSize ?? 500;
    let token: string | undefined;
    let rv = "";
    for (;;) {
      const response = await this.#options.client.request<{
        metadata?: { resourceVersion?: string; continue?: string };
        items?: RawObject[];
      }>({
        method: "GET",
        path: this.#options.path,
        query: { ...this.#query(), limit: pageSize, continue: token },
        signal,
      });
      if (response.status === 410 && token !== undefined) {
        // The continue token expired mid-list: client-go's pager falls back to one full list.
        staged.clear();
        token = undefined;
        pageSize = undefined;
        continue;
      }
      if (response.status !== 200 || typeof response.body !== "object") {
        const body = response.body as { message?: unknown } | string;
        const message =
          typeof body === "object" && body && typeof body.message === "string"
            ? body.message
            : `the server answered ${response.status}`;
        throw new Error(`list: ${message}`);
      }
      for (const object of response.body.items ?? []) {
        const key = objectKey(object);
        const itemRv = object.metadata?.resourceVersion ?? "";
        const kept = this.#items.get(key);
        // Unchanged since we last saw it: no transform, no event.
        if (kept && kept.rv === itemRv && itemRv !== "") {
          staged.set(key, kept);
          continue;
        }
        const value = this.#transform(object);
        if (value !== null) staged.set(key, { rv: itemRv, value });
      }
      rv = response.body.metadata?.resourceVersion ?? rv;
      token = response.body.metadata?.continue || undefined;
      if (token === undefined) break;
    }
    for (const [key, old] of [...this.#items]) {
      if (!staged.has(key)) {
        this.#items.delete(key);
        this.#emit(key, null, old.value);
      }
    }
    for (const [key, entry] of staged) {
      const old = this.#items.get(key);
      if (old === entry) continue;
      if (old && this.#options.equals?.(old.value, entry.value)) {
        old.rv = entry.rv;
        continue;
      }
      this.#items.set(key, entry);
      this.#emit(key, entry.value, old?.value ?? null);
    }
    this.#rv = rv;
    if (!this.#synced) {
      this.#synced = true;
      for (const wake of [...this.#syncWaiters]) wake();
    }
  }

  #timeoutSeconds(): number {
    const option = this.#options.watchTimeoutSeconds;
    if (typeof option === "number") return option;
    if (typeof option === "function") return option();
    return Math.floor(300 * (1 + Math.random()));
  }

  async #watchOnce(signal: AbortSignal): Promise<{ end: WatchEnd; events: number }> {
    // Stopped between the LIST and this watch: an aborted signal fires no "abort" listener, so
    // the watch would run until its timeout (5 to 10 minutes).
    if (signal.aborted) return { end: "stopped", events: 0 };
    this.#stats.watches++;
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    const stallMs = this.#options.stallTimeoutMs ?? 180_000;
    let lastActivity = performance.now();
    // Set from the callbacks below (a box, so control flow analysis does not narrow it).
    const state: { end: WatchEnd } = { end: "ended" };
    let failure: Error | null = null;
    let events = 0;
    const watchdog = setInterval(
      () => {
        if (performance.now() - lastActivity > stallMs) {
          state.end = "stalled";
          this.#stats.stalls++;
          this.#report(`the watch was silent for ${stallMs} ms; restarting it`);
          controller.abort();
        }
      },
      Math.max(10, Math.min(1000, stallMs / 4)),
    );
    const onEvent = (event: WatchEvent) => {
      if (controller.signal.aborted) return;
      lastActivity = performance.now();
      events++;
      const object = event.object as RawObject;
      if (event.type === "ERROR") {
        const status = event.object as Parameters<typeof isExpiredStatus>[0];
        if (isExpiredStatus(status)) state.end = "expired";
        else {
          const message =
            typeof status.message === "string" ? status.message : JSON.stringify(status);
          failure = new Error(`watch: ${message}`);
        }
        controller.abort();
        return;
      }
      const rv = object?.metadata?.resourceVersion;
      if (event.type === "BOOKMARK") {
        if (rv) this.#rv = rv;
        return;
      }
      const key = objectKey(object);
      if (event.type === "DELETED") this.#upsert(key, rv ?? "", null);
      else if (event.type === "ADDED" || event.type === "MODIFIED") {
        this.#upsert(key, rv ?? "", this.#transform(object));
      }
      if (rv) this.#rv = rv;
    };
    try {
      await this.#options.client.watch(
        {
          path: this.#options.path,
          query: {
            ...this.#query(),
            resourceVersion: this.#rv,
            allowWatchBookmarks: true,
            timeoutSeconds: this.#timeoutSeconds(),
          },
          signal: controller.signal,
        },
        onEvent,
      );
    } catch (error) {
      if (signal.aborted) return { end: "stopped", events };
      if (state.end === "stalled" || state.end === "expired") return { end: state.end, events };
      const status = statusOf(error);
      const body = (error as { body?: unknown }).body;
      if (
        status === 410 ||
        (body &&
          typeof body === "object" &&
          isExpiredStatus(body as Parameters<typeof isExpiredStatus>[0]))
      ) {
        throw new ExpiredError(errorMessage(error));
      }
      throw error;
    } finally {
      clearInterval(watchdog);
      signal.removeEventListener("abort", abort);
    }
    if (signal.aborted) return { end: "stopped", events };
    if (failure) throw failure;
    return { end: state.end, events };
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
