// A node:test reporter for run-tests.mjs: the run's summary counts (pass, fail, cancelled,
// skipped, todo, as the runner reports them last) and each test file's time: the wall time from
// the file's start (its process) to its last event (files run side by side) and its top-level
// tests' count.
// Writes one JSON object to the destination run-tests.mjs gives it.
export default async function* runSummary(source) {
  const files = new Map();
  const counts = {};
  for await (const event of source) {
    const file = event.data?.file;
    if (event.type === "test:diagnostic" && event.data.nesting === 0) {
      const match = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(
        event.data.message,
      );
      if (match) counts[match[1]] = Number(match[2]);
    }
    if (!file) continue;
    const now = performance.now();
    let entry = files.get(file);
    if (!entry) {
      entry = { file, first: null, last: now, tests: 0 };
      files.set(file, entry);
    }
    // Every file is enqueued at the start; its file-level dequeue is when its process starts.
    if (entry.first === null && event.type === "test:dequeue" && event.data.nesting === 0) {
      entry.first = now;
    }
    entry.last = now;
    if ((event.type === "test:pass" || event.type === "test:fail") && event.data.nesting === 0) {
      entry.tests++;
    }
  }
  const timings = [...files.values()]
    .map(({ file, first, last, tests }) => ({
      file,
      wallMs: Math.round(last - (first ?? last)),
      tests,
    }))
    .sort((a, b) => b.wallMs - a.wallMs);
  yield `${JSON.stringify({ counts, timings })}\n`;
}
