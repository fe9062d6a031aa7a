// A fake clock with timers for the controller runtime's tests: `advance` steps time, firing due
// timers in time order and letting the promise chains they start settle before going on.
import type { Timers } from "../../src/controller/workqueue.js";

interface FakeTimer {
  id: number;
  at: number;
  callback: () => void;
}

/** Lets pending promise chains (and in-process I/O that uses setImmediate) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeTimers implements Timers {
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(public current = Date.UTC(2026, 10, 22, 10, 0, 0)) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }

  /** Steps the clock by `ms`, firing every timer due on the way (in order) and settling after each. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.current + ms);
  }

  async advanceTo(target: number): Promise<void> {
    await settle();
    while (true) {
      let next: FakeTimer | undefined;
      for (const timer of this.timers) {
        if (
          timer.at <= target &&
          (!next || timer.at < next.at || (timer.at === next.at && timer.id < next.id))
        )
          next = timer;
      }
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.current = Math.max(this.current, next.at);
      next.callback();
      await settle();
    }
    this.current = Math.max(this.current, target);
    await settle();
  }
}
