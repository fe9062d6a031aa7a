// Runs every test file under test/ with node's own test runner (through tsx): readable `spec`
// output on the terminal, a TAP copy that this script counts, and one closing
// `N passed, N failed` line for the whole run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
const tapFile = join(scratch, "results.tap");
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    // A hung test fails after this long instead of holding the whole run (and CI) open.
    "--test-timeout=300000",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { stdio: "inherit" },
);
const tap = readFileSync(tapFile, "utf8");
rmSync(scratch, { recursive: true, force: true });
const count = (key) => Number(tap.match(new RegExp(`^# ${key} (\\d+)$`, "m"))?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail") + count("cancelled");
const skipped = count("skipped") + count("todo");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(result.status === 0 && failed === 0 ? 0 : 1);
