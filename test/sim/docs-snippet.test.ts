// docs/scenarios.md's "Programmatic use" snippet, run as written (its import made absolute).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..", "..");

it("docs/scenarios.md: the programmatic use snippet runs and prints the scenario", async (t) => {
  const doc = readFileSync(join(root, "docs", "scenarios.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Programmatic use"));
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(snippet, "the snippet");
  const file = join(mkdtempSync(join(tmpdir(), "horizon-docs-")), "snippet.mts");
  writeFileSync(
    file,
    snippet
      .replace('"./src/', `"${pathToFileURL(join(root, "src")).href}/`)
      .replace('"examples/', `"${join(root, "examples")}/`),
  );
  const log = t.mock.method(console, "log", () => {});
  const error = t.mock.method(console, "error", () => {});
  await import(pathToFileURL(file).href);
  assert.deepEqual(
    error.mock.calls.map((c) => c.arguments),
    [],
  );
  assert.deepEqual(
    log.mock.calls.map((c) => c.arguments),
    [["cpu-step", 7]],
  );
});
