// `horizon tune`'s worker pool: up to N worker threads (`--jobs`), started as tasks need them,
// each running one candidate at a time and holding the next one, so it never waits for this
// thread between candidates. With one
// job the candidates run in-process (no thread to start), also one at a time: run together,
// hundreds of interleaved simulations would fight over memory and make one job far slower per
// candidate than a worker.
import { Worker } from "node:worker_threads";
import { evaluateTask, type TaskOutcome, type TuneBase, type TuneTask } from "./evaluate.js";

type Pending = {
  task: TuneTask;
  resolve: (outcome: TaskOutcome) => void;
  reject: (error: Error) => void;
};

/** The worker module: compiled next to this file, or the TypeScript source run through tsx. */
function startWorker(base: TuneBase): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const url = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);
  if (!fromSource) return new Worker(url, { workerData: base });
  // Node 20 does not pass tsx's loader to worker threads: register it in the worker first.
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { eval: true, workerData: base });
}

export class TunePool {
  readonly #base: TuneBase;
  readonly #all: Worker[] = [];
  readonly #queue: Pending[] = [];
  /** Each worker's tasks in the order sent: the first runs, the next waits in the worker. */
  readonly #sent = new Map<Worker, Pending[]>();
  /** The in-process path's queue: the previous candidate's run, settled or not. */
  #serial: Promise<unknown> = Promise.resolve();

  constructor(
    base: TuneBase,
    readonly jobs: number,
  ) {
    this.#base = base;
  }

  /** Worker threads started so far: one per task waiting for a free worker, up to `jobs`. */
  get started(): number {
    return this.#all.length;
  }

  run(task: TuneTask): Promise<TaskOutcome> {
    if (this.jobs <= 1) {
      const outcome = this.#serial.then(() => evaluateTask(this.#base, task));
      this.#serial = outcome.catch(() => undefined);
      return outcome;
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ task, resolve, reject });
      this.#next();
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#all.map((w) => w.terminate()));
  }

  /**
   * Sends queued tasks to the least loaded workers, up to two each (one running, one next). A
   * worker gets a next task only while one is queued for every worker: the last few go to
   * whichever worker is free first, instead of waiting behind another worker's running one.
   */
  #next(): void {
    // A worker is a new isolate that loads and optimizes the simulator again (~0.1 s of CPU to
    // start, more to warm up, tens of MiB): none is started that would find no task waiting.
    let idle = 0;
    for (const sent of this.#sent.values()) if (sent.length === 0) idle++;
    while (this.#all.length < this.jobs && this.#queue.length > idle) {
      const worker = startWorker(this.#base);
      worker.on("message", (outcome: TaskOutcome) => this.#done(worker, outcome));
      worker.on("error", (error) => this.#failed(worker, error));
      this.#all.push(worker);
      this.#sent.set(worker, []);
      idle++;
    }
    for (let depth = 1; depth <= 2; depth++) {
      for (const [worker, sent] of this.#sent) {
        if (this.#queue.length === 0) return;
        if (depth === 2 && this.#queue.length < this.#sent.size) return;
        if (sent.length >= depth) continue;
        const pending = this.#queue.shift()!;
        sent.push(pending);
        worker.postMessage(pending.task);
      }
    }
  }

  #done(worker: Worker, outcome: TaskOutcome): void {
    // A worker answers its tasks in the order it was sent them.
    this.#sent.get(worker)?.shift()?.resolve(outcome);
    this.#next();
  }

  #failed(worker: Worker, error: Error): void {
    // A crashed worker is not reused: its tasks fail, and so does what is queued once no
    // worker is left, rather than waiting forever.
    for (const p of this.#sent.get(worker)?.splice(0) ?? []) p.reject(error);
    this.#sent.delete(worker);
    if (this.#sent.size === 0) {
      for (const p of this.#queue.splice(0)) p.reject(error);
    }
  }
}
