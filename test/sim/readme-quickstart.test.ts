// The README's quick start shows what `npm start` prints: its output block is the output of
// `horizon simulate examples/cpu-step.yaml --report horizon-report.html`, line for line.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { simulateCommand } from "../../src/cli/simulate.js";

const root = join(import.meta.dirname, "..", "..");

it("README.md: the quick start's output is what the command prints", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  // Fenced blocks in order: an opening fence (with or without a language), its lines, a close.
  const block = [...section.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1]!)
    .find((text) => text.includes("HPA default/web"));
  assert.ok(block, "the quick start's output block");

  const dir = mkdtempSync(join(tmpdir(), "horizon-readme-"));
  const report = join(dir, "horizon-report.html");
  let out = "";
  const err: string[] = [];
  try {
    const code = await simulateCommand(
      join(root, "examples", "cpu-step.yaml"),
      { set: [], compareSet: [], assert: [], output: "table", report },
      {
        out: (chunk) => {
          out += chunk;
          return undefined;
        },
        err: (line) => err.push(line),
        interactive: false,
      },
    );
    assert.equal(code, 0, err.join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // stdout, then what goes to stderr (the report's path as `npm start` gives it). Progress lines
  // appear only when the run takes over a second of wall time (a loaded machine): not shown.
  const printed = `${out}${err
    .filter((line) => !/: \d+% of virtual time simulated$/.test(line))
    .map((line) => `${line.replace(report, "horizon-report.html")}\n`)
    .join("")}`;
  assert.equal(block, printed);
});
