// Watch as kube-apiserver serves it: one `{"type","object"}` JSON line per event on a stream that
// stays open until the client goes or `timeoutSeconds` passes. From "" or "0" the current
// objects come first as synthetic ADDED events; from a resourceVersion the kept changes after it
// are replayed, and a version older than what is kept gets one ERROR event with a 410 Expired
// Status (the watch cache's "too old resource version").

import type { KubeObject } from "../api/types.js";
import type { ObjectStore, WatchEvent } from "../cluster/store.js";
import { expired, internalError, tooLargeResourceVersion } from "./errors.js";
import type { ApiResponse } from "./types.js";

/** An async queue of lines: the handler pushes, the HTTP adapter (or a test) iterates. */
export class LineStream implements AsyncIterable<string> {
  readonly #lines: string[] = [];
  #waiting: ((result: IteratorResult<string>) => void) | null = null;
  #ended = false;
  readonly #onEnd: (() => void)[] = [];

  push(line: string): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting({ value: line, done: false });
    } else this.#lines.push(line);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const fn of this.#onEnd) fn();
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.({ value: undefined, done: true });
  }

  get ended(): boolean {
    return this.#ended;
  }

  onEnd(fn: () => void): void {
    this.#onEnd.push(fn);
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        const line = this.#lines.shift();
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
  /** Objects for a start from "" / "0" (already filtered). */
  initial: () => readonly KubeObject[];
}

function key(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
}

export function startWatch(options: WatchOptions): ApiResponse {
  const stream = new LineStream();
  const send = (type: string, object: unknown) =>
    stream.push(`${JSON.stringify({ type, object })}\n`);
  // An object this watch cannot encode ends it with an ERROR event (as the watch server does on
  // an encoding error) instead of throwing into the store's write that notified it.
  const guarded =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A) => {
      if (stream.ended) return;
      try {
        fn(...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        send("ERROR", internalError(message).status);
        stream.end();
      }
    };
  const headers = {
    "content-type": options.contentType ?? "application/json",
    "transfer-encoding": "chunked",
  };
  const response: ApiResponse = { status: 200, headers, stream, close: () => stream.end() };

  // Which objects the client currently sees as matching: an object that stops matching the
  // selectors gets DELETED, one that starts matching ADDED (as the watch cache filters).
  const visible = new Set<string>();
  const deliver = guarded((event: WatchEvent) => {
    const object = event.object;
    if (object.kind !== options.kind) return;
    const k = key(object);
    const matches = options.matches(object);
    if (event.type === "DELETED") {
      if (visible.delete(k) || matches) send("DELETED", options.present(object));
      return;
    }
    if (matches) {
      const type = visible.has(k) ? event.type : "ADDED";
      visible.add(k);
      send(type, options.present(object));
    } else if (visible.delete(k)) {
      send("DELETED", options.present(object));
    }
  });

  const rv = options.resourceVersion;
  if (rv === "" || rv === "0") {
    guarded(() => {
      for (const object of options.initial()) {
        visible.add(key(object));
        send("ADDED", options.present(object));
      }
    })();
    if (stream.ended) return response;
  } else {
    const changes = options.store.changesSince(rv);
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
    for (const change of changes) deliver(change);
    if (stream.ended) return response;
  }

  // From a resourceVersion the store has not reached, the watch waits for it: the changes up
  // to it are not sent, and when it does not come in time the watch ends with the watch
  // cache's "Too large resource version" (504).
  const wanted = rv === "" ? 0 : Number(rv);
  const reached = () => Number(options.store.resourceVersion()) >= wanted;
  const unsubscribe = options.store.watch((event) => {
    if (Number(event.object.metadata.resourceVersion) > wanted) deliver(event);
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
