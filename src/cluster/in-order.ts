// Answers for keys asked in the same order round after round (the controller syncs its HPAs in
// key order): the key that came after the previous one last time is compared first, then the
// first one (a new round), and only another key needs the caller's own lookup. Used for the
// store cells, selector entries and scale targets a sync reads, each a first read of a map
// after the other HPAs' syncs otherwise.

export class AskedInOrder<A, B, V> {
  readonly #as: A[] = [];
  readonly #bs: B[] = [];
  readonly #values: V[] = [];
  #next = 0;
  /** The place of the last `get` that found its key, until `set`; -1 after a miss. */
  #found = -1;

  /** The value kept for (a, b) where the order expects it, or undefined (look it up, then `set`). */
  get(a: A, b: B): V | undefined {
    const as = this.#as;
    let i = this.#next;
    if (i >= as.length || as[i] !== a || this.#bs[i] !== b) {
      if (as.length === 0 || as[0] !== a || this.#bs[0] !== b) {
        this.#found = -1;
        return undefined;
      }
      i = 0;
    }
    this.#found = i;
    this.#next = i + 1;
    return this.#values[i];
  }

  /**
   * Keeps `value` for (a, b), asked just now: in the place `get` found it (a value no longer
   * good), else after the last key asked. Bounded: past `bound` places it starts from the front.
   */
  set(a: A, b: B, value: V, bound: number): void {
    let i = this.#found >= 0 ? this.#found : this.#next;
    if (i > bound) i = 0;
    this.#as[i] = a;
    this.#bs[i] = b;
    this.#values[i] = value;
    this.#next = i + 1;
    this.#found = -1;
  }
}
