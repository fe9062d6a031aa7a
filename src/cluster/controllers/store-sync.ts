// A controller that keeps the store in a state: it syncs once at start and again after each
// store event that wakes it. The sync runs after the write that woke it (a microtask), as
// upstream's controllers work from a queue, not inside the writer's store event; writes in one
// turn wake it once.
import type { ObjectStore, WatchEvent } from "../../registry/store.js";

/** Runs `sync` now and after the events `wakes` accepts; returns the stop function. */
export function syncOnStoreEvents(
  store: ObjectStore,
  wakes: (event: WatchEvent) => boolean,
  sync: () => void,
): () => void {
  let queued = false;
  const run = () => {
    queued = false;
    sync();
  };
  sync();
  return store.watch((event) => {
    if (queued || !wakes(event)) return;
    queued = true;
    queueMicrotask(run);
  });
}
