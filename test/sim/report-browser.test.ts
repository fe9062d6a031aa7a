// The HTML report opened in a real browser (Debian's chromium, headless): it loads from a file
// with no network, its script runs, and the charts and decision traces are in the page.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { simulateCommand } from "../../src/cli/simulate.js";

const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) =>
  existsSync(path),
);
const required = process.env.CI === "true";
const skip =
  chromium || required
    ? false
    : "chromium is not installed (apt-get install chromium); skipped outside CI";
if (skip) console.log(`# report-browser: ${skip}`);

function headless(args: string[]) {
  return spawnSync(
    chromium!,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${mkdtempSync(join(tmpdir(), "horizon-chromium-"))}`,
      ...args,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
}

describe("the HTML report in a browser", { skip }, () => {
  it("opens offline with its charts and every action's trace", async () => {
    assert.ok(chromium, "CI=true requires Debian's chromium (.ci/run installs it)");
    const dir = mkdtempSync(join(tmpdir(), "horizon-report-"));
    const report = join(dir, "report.html");
    const code = await simulateCommand(
      join(import.meta.dirname, "..", "..", "examples", "cpu-step.yaml"),
      { set: [], compareSet: [], assert: [], output: "table", quiet: true, report },
      { out: () => undefined, err: () => {}, interactive: false },
    );
    assert.equal(code, 0);
    const dom = headless(["--dump-dom", `file://${report}`]);
    assert.equal(dom.status, 0, dom.stderr);
    assert.match(dom.stdout, /<h1[^>]*>Horizon simulation: cpu-step<\/h1>/);
    assert.ok((dom.stdout.match(/<svg/g) ?? []).length >= 4, "charts");
    assert.ok((dom.stdout.match(/<details/g) ?? []).length >= 3, "one trace per scaling action");
    const screenshot = join(dir, "report.png");
    const shot = headless([
      "--window-size=1300,2000",
      `--screenshot=${screenshot}`,
      `file://${report}`,
    ]);
    assert.equal(shot.status, 0, shot.stderr);
    assert.ok(statSync(screenshot).size > 20_000, "a rendered page, not a blank one");
  });
});
