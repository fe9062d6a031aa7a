// A binary min-heap of timers ordered by (time, insertion sequence): equal times fire in the
// order they were scheduled, which keeps runs deterministic.

export interface Timer<T> {
  at: number;
  seq: number;
  value: T;
}

export class TimerHeap<T> {
  readonly #items: Timer<T>[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  push(at: number, value: T): void {
    const items = this.#items;
    const timer = { at, seq: this.#seq++, value };
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** The earliest time, or Infinity. */
  peekAt(): number {
    return this.#items[0]?.at ?? Number.POSITIVE_INFINITY;
  }

  pop(): Timer<T> | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && less(items[l]!, items[m]!)) m = l;
      if (r < items.length && less(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
    return top;
  }
}

function less<T>(a: Timer<T>, b: Timer<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
