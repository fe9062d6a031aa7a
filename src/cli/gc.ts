// V8's garbage collector fitted to the cores the process may run on.
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
