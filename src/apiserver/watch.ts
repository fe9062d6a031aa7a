// Watch as kube-apiserver serves it: one `{"type","object"}` JSON line per event on a stream that
// stays open until the client goes or `timeoutSeconds` passes. From "" or "0" the current
// objects come first as synthetic ADDED events; from a resourceVersion the kept changes after it
// are replayed, and a version older than what is kept gets one ERROR event with a 410 Expired
// Status (the watch cache's "too old resource version").

import type { KubeObject } from "../api/types.js";
import type { ObjectStore, WatchEvent } from "../registry/store.js";
import { expired, internalError, tooLargeResourceVersion } from "./errors.js";
import type { ApiResponse } from "./types.js";

/** How much a watcher may have waiting before it is closed as unresponsive. */
export interface WatchQueueLimits {
  maxLines: number;
  maxBytes: number;
}

/** Upstream's per-watcher buffers hold up to 1,000 events; the bytes bound big objects. */
export const WATCH_QUEUE_LIMITS: WatchQueueLimits = { maxLines: 1000, maxBytes: 8 * 1024 * 1024 };

/**
 * A bounded async queue of lines: the handler pushes, the HTTP adapter (or a test) iterates.
 * Live lines count against the limits; a reader that falls further behind is dropped (the
 * queue is emptied and the stream ends as `unresponsive`), as kube-apiserver closes a watcher
 * whose buffer stays full; its client re-watches from its last resourceVersion, or re-lists.
 * Deferred lines (a watch's initial objects and replayed changes) are made only when read and
 * do not count: the watcher takes them at its own pace, as upstream's initial events.
 */
/** One event's line: JSON text, or its UTF-8 bytes when made from kept encodings. */
export type Line = string | Buffer;

export class LineStream implements AsyncIterable<Line> {
  /** Lines to send; a read line's slot is emptied (null), so it is not kept alive after it. */
  #queue: (Line | (() => Line) | null)[] = [];
  #head = 0;
  readonly #limits: WatchQueueLimits;
  #lines = 0;
  #bytes = 0;
  #waiting: ((result: IteratorResult<Line>) => void) | null = null;
  #ended = false;
  #unresponsive = false;
  readonly #onEnd: (() => void)[] = [];

  constructor(limits: WatchQueueLimits = WATCH_QUEUE_LIMITS) {
    this.#limits = limits;
  }

  push(line: Line): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting({ value: line, done: false });
      return;
    }
    this.#queue.push(line);
    this.#lines++;
    this.#bytes += line.length;
    if (this.#lines > this.#limits.maxLines || this.#bytes > this.#limits.maxBytes) {
      this.#unresponsive = true;
      this.#clear();
      this.end();
    }
  }

  /** A line made when it is read (after everything queued before it). */
  pushDeferred(make: () => Line): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting({ value: make(), done: false });
    } else this.#queue.push(make);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const fn of this.#onEnd) fn();
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.({ value: undefined, done: true });
  }

  /** Ended because its reader fell too far behind. */
  get unresponsive(): boolean {
    return this.#unresponsive;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Runs `fn` when the stream ends (at once if it has). */
  onEnd(fn: () => void): void {
    if (this.#ended) fn();
    else this.#onEnd.push(fn);
  }

  #clear(): void {
    this.#queue = [];
    this.#head = 0;
    this.#lines = 0;
    this.#bytes = 0;
  }

  #next(): Line | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const entry = this.#queue[this.#head]!;
    this.#queue[this.#head++] = null;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (typeof entry !== "function") {
      this.#lines--;
      this.#bytes -= entry.length;
      return entry;
    }
    const line = entry();
    // A deferred line that ended the stream (an ERROR event) is its last.
    if (this.#ended) this.#clear();
    return line;
  }

  [Symbol.asyncIterator](): AsyncIterator<Line> {
    return {
      next: () => {
        const line = this.#next();
        if (line !== undefined) return Promise.resolve({ value: line, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

export interface WatchOptions {
  store: ObjectStore;
  kind: string;
  /** Does the object belong to this watch (namespace, label and field selectors)? */
  matches: (object: KubeObject) => boolean;
  /** The object as served in the requested version (or as a one-row Table). */
  present: (object: KubeObject) => unknown;
  /** The bytes of `JSON.stringify(present(object))`, kept by the server (encoding.ts). */
  presentedBytes?: (object: KubeObject) => Buffer;
  /** The stream's media type (Tables for `kubectl get -w`); JSON by default. */
  contentType?: string;
  /** The apiVersion/kind a BOOKMARK object carries. */
  apiVersion: string;
  resourceVersion: string;
  /** How long to wait for a resourceVersion the store has not reached (then 504). */
  resourceVersionWaitMs: number;
  allowBookmarks: boolean;
  /** Seconds until the server ends the watch. */
  timeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** When to drop a watcher that does not keep up (default WATCH_QUEUE_LIMITS). */
  queueLimits?: WatchQueueLimits;
  /** Objects for a start from "" / "0" (already filtered). */
  initial: () => readonly KubeObject[];
}

const LINE_END = Buffer.from("}\n");

/** The last event line made from kept bytes: a change fanned out to N watchers is one line. */
let lastLine: { type: string; bytes: Buffer; line: Buffer } | null = null;

/** `{"type":TYPE,"object":<bytes>}` and a newline, shared by the watchers sent the same event. */
function eventLine(type: string, bytes: Buffer): Buffer {
  if (lastLine?.bytes === bytes && lastLine.type === type) return lastLine.line;
  const line = Buffer.concat([Buffer.from(`{"type":"${type}","object":`), bytes, LINE_END]);
  lastLine = { type, bytes, line };
  return line;
}

function key(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
}

export function startWatch(options: WatchOptions): ApiResponse {
  const stream = new LineStream(options.queueLimits);
  const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;
  const send = (type: string, object: unknown) => stream.push(line(type, object));
  // An object this watch cannot encode ends it with an ERROR event (as the watch server does on
  // an encoding error) instead of throwing into the store's write that notified it.
  const encode = (type: string, object: KubeObject): Line | Error => {
    try {
      const bytes = options.presentedBytes?.(object);
      if (bytes === undefined) return line(type, options.present(object));
      return eventLine(type, bytes);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  const errorLine = (err: Error) => line("ERROR", internalError(err.message).status);
  type Emit = (type: string, object: KubeObject) => void;
  const sendLive: Emit = (type, object) => {
    const text = encode(type, object);
    if (!(text instanceof Error)) stream.push(text);
    else {
      stream.push(errorLine(text));
      stream.end();
    }
  };
  const sendDeferred: Emit = (type, object) =>
    stream.pushDeferred(() => {
      const text = encode(type, object);
      if (!(text instanceof Error)) return text;
      stream.end();
      return errorLine(text);
    });
  const headers = {
    "content-type": options.contentType ?? "application/json",
    "transfer-encoding": "chunked",
  };
  const response: ApiResponse = {
    status: 200,
    headers,
    stream,
    close: () => stream.end(),
    unresponsive: () => stream.unresponsive,
    onEnd: (fn) => stream.onEnd(fn),
  };

  // Which objects the client currently sees as matching: an object that stops matching the
  // selectors gets DELETED, one that starts matching ADDED (as the watch cache filters).
  const visible = new Set<string>();
  const deliver = (event: WatchEvent, emit: Emit) => {
    if (stream.ended) return;
    const object = event.object;
    if (object.kind !== options.kind) return;
    const k = key(object);
    const matches = options.matches(object);
    if (event.type === "DELETED") {
      if (visible.delete(k) || matches) emit("DELETED", object);
      return;
    }
    if (matches) {
      const type = visible.has(k) ? event.type : "ADDED";
      visible.add(k);
      emit(type, object);
    } else if (visible.delete(k)) {
      emit("DELETED", object);
    }
  };

  const rv = options.resourceVersion;
  if (rv === "" || rv === "0") {
    for (const object of options.initial()) {
      visible.add(key(object));
      sendDeferred("ADDED", object);
    }
  } else {
    const changes = options.store.changesSince(rv, options.kind);
    if (changes === "Expired") {
      const error = expired(`too old resource version: ${rv} (${options.store.resourceVersion()})`);
      send("ERROR", error.status);
      stream.end();
      return response;
    }
    // Objects that existed at `rv` and still exist are visible to the client already.
    for (const object of options.initial()) visible.add(key(object));
    for (const change of changes) {
      if (change.type === "ADDED") visible.delete(key(change.object));
    }
    for (const change of changes) deliver(change, sendDeferred);
  }

  // From a resourceVersion the store has not reached, the watch waits for it: the changes up
  // to it are not sent, and when it does not come in time the watch ends with the watch
  // cache's "Too large resource version" (504).
  const wanted = rv === "" ? 0 : Number(rv);
  const reached = () => Number(options.store.resourceVersion()) >= wanted;
  const unsubscribe = options.store.watch((event) => {
    if (Number(event.object.metadata.resourceVersion) <= wanted) return;
    try {
      deliver(event, sendLive);
    } catch (err) {
      stream.push(errorLine(err instanceof Error ? err : new Error(String(err))));
      stream.end();
    }
  });
  const timers: NodeJS.Timeout[] = [];
  timers.push(setTimeout(() => stream.end(), options.timeoutSeconds * 1000));
  if (options.allowBookmarks) {
    timers.push(
      setInterval(() => {
        if (!reached()) return;
        send("BOOKMARK", {
          kind: options.kind,
          apiVersion: options.apiVersion,
          metadata: { resourceVersion: options.store.resourceVersion() },
        });
      }, options.bookmarkIntervalMs),
    );
  }
  for (const timer of timers) timer.unref();
  if (!reached()) {
    // Short, and kept referenced: the answer is due even when nothing else is pending.
    const wait = setTimeout(() => {
      if (reached()) return;
      send("ERROR", tooLargeResourceVersion(rv, options.store.resourceVersion()).status);
      stream.end();
    }, options.resourceVersionWaitMs);
    timers.push(wait);
  }
  stream.onEnd(() => {
    unsubscribe();
    for (const timer of timers) clearTimeout(timer);
  });
  return response;
}
