// A worker thread of `horizon tune`'s pool: evaluates the tasks it is sent one at a time, in the
// order sent (the pool sends the next task while one runs), answering each one exactly once.
import { parentPort, workerData } from "node:worker_threads";
import { evaluateTask, type TaskOutcome, type TuneBase, type TuneTask } from "./evaluate.js";

const base = workerData as TuneBase;

const failed = (task: TuneTask, error: unknown): TaskOutcome => ({
  id: task.id,
  ok: false,
  error: (error as Error).stack ?? String(error),
});

async function answer(task: TuneTask): Promise<void> {
  let outcome: TaskOutcome;
  try {
    outcome = await evaluateTask(base, task);
  } catch (error) {
    outcome = failed(task, error);
  }
  parentPort?.postMessage(outcome);
}

let previous: Promise<void> = Promise.resolve();
parentPort?.on("message", (task: TuneTask) => {
  // A failed answer (an outcome that cannot be sent) must not stop the tasks after it.
  previous = previous
    .then(() => answer(task))
    .catch((error: unknown) => parentPort?.postMessage(failed(task, error)));
});
