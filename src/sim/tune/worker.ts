// A worker thread of `horizon tune`'s pool: evaluates the tasks it is sent, one at a time.
import { parentPort, workerData } from "node:worker_threads";
import { evaluateTask, type TuneBase, type TuneTask } from "./evaluate.js";

const base = workerData as TuneBase;
parentPort?.on("message", (task: TuneTask) => {
  evaluateTask(base, task).then(
    (outcome) => parentPort?.postMessage(outcome),
    (error: unknown) =>
      parentPort?.postMessage({
        id: task.id,
        ok: false,
        error: (error as Error).stack ?? String(error),
      }),
  );
});
