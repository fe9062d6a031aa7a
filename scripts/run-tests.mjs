// Runs every test file under test/ with node's own test runner (through tsx): readable `spec`
// output on the terminal, a summary reporter (test-summary.mjs: the counts and each file's
// time; the slowest files listed at the end), and one closing `N passed, N failed` line for
// the whole run.
// Files run side by side (HORIZON_TEST_CONCURRENCY, default 2): most of the suite's time is
// spent in files that wait on timers, child processes and sockets, each in its own process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const files = process.argv.length > 2 ? process.argv.slice(2) : findTests("test");
const scratch = mkdtempSync(join(tmpdir(), "horizon-tests-"));
const summaryFile = join(scratch, "summary.json");
const concurrency = process.env.HORIZON_TEST_CONCURRENCY ?? "2";
if (!/^[1-9][0-9]*$/.test(concurrency)) {
  console.error(
    `HORIZON_TEST_CONCURRENCY: expected a positive whole number, got ${JSON.stringify(concurrency)}`,
  );
  process.exit(2);
}
const started = performance.now();
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    // A hung test fails after this long instead of holding the whole run (and CI) open.
    "--test-timeout=300000",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${new URL("./test-summary.mjs", import.meta.url).pathname}`,
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ],
  { stdio: "inherit" },
);
const { counts, timings } = JSON.parse(readFileSync(summaryFile, "utf8"));
const minutes = (performance.now() - started) / 60_000;
if (timings.length > 1) {
  console.log(`\nslowest test files (of ${timings.length}, ${minutes.toFixed(1)} min in all):`);
  for (const { file, wallMs, tests } of timings.slice(0, 10)) {
    console.log(
      `  ${(wallMs / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)} (${tests} tests)`,
    );
  }
}
rmSync(scratch, { recursive: true, force: true });
const count = (key) => counts[key] ?? 0;
const passed = count("pass");
const failed = count("fail") + count("cancelled");
const skipped = count("skipped") + count("todo");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(result.status === 0 && failed === 0 ? 0 : 1);
