// V8's garbage collector fitted to a long-running server: to the cores the process may run on,
// and to an old generation that stays near its live size.
import { availableParallelism } from "node:os";
import { setFlagsFromString } from "node:v8";

/**
 * With one core, V8's concurrent marking threads take turns with the event loop on that core at
 * the scheduler's granularity (milliseconds), so a request that arrives during a marking cycle —
 * a health probe — waits behind them; marking incrementally on the event loop's own thread works
 * in short steps between tasks instead. Returns whether it switched. Process-wide: for commands
 * (`horizon up`), not for library callers.
 */
export function fitGarbageCollectorToCores(cores = availableParallelism()): boolean {
  if (cores > 1) return false;
  setFlagsFromString("--no-concurrent-marking");
  return true;
}

/**
 * V8 lets the old generation grow to up to 4× its live size between mark-compacts when they are
 * fast. A server taking a burst of writes (100,000 pods starting) then fills pages with objects
 * that live a little while between the ones it keeps; a full GC frees them but moves only a few
 * MiB, so the part-full pages stay: bench:apiserver's idle RSS varied 930–1,090 MiB for 607 MiB
 * of live heap. At most +50% keeps the pages fuller (idle RSS ~875 MiB) for mark-compacts a
 * little more often. Process-wide: for commands (`horizon up`), not for library callers.
 */
export function boundHeapGrowth(): void {
  setFlagsFromString("--heap-growing-percent=50");
}
