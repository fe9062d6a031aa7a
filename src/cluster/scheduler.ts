// The scheduler of the embedded cluster's single (virtual) node: a pod binds when the node has
// room (`capacityPods`, counting bound pods, terminating ones included); otherwise it waits,
// and waiting pods bind first come, first served as capacity frees up.
import type { PodRecord } from "./model.js";

export class Scheduler {
  #bound = 0;
  readonly #waiting: PodRecord[] = [];

  /** `capacityPods`: null = unlimited. */
  constructor(readonly capacityPods: number | null) {}

  hasCapacity(): boolean {
    return this.capacityPods === null || this.#bound < this.capacityPods;
  }

  /** The pod is bound to the node and holds capacity. */
  bind(pod: PodRecord): void {
    pod.bound = true;
    this.#bound++;
  }

  /** A restored pod that was bound before the restart. */
  restoreBound(pod: PodRecord): void {
    if (pod.bound) this.#bound++;
  }

  /** The pod waits for capacity (Unschedulable). */
  wait(pod: PodRecord): void {
    this.#waiting.push(pod);
  }

  /** The pod frees its capacity; `bind` takes up the waiting pods that fit now, in order. */
  release(pod: PodRecord, bind: (pod: PodRecord) => void): void {
    if (!pod.bound) return;
    pod.bound = false;
    this.#bound--;
    while (this.#waiting.length > 0 && this.hasCapacity()) {
      const next = this.#waiting.shift();
      if (next?.stage === "unschedulable") bind(next);
    }
  }
}
