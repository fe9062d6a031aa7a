// The HTML report opened in a real browser (Debian's chromium, headless, driven by
// playwright-core): it loads from a file with no server and no network, its Content-Security-
// Policy lets its own script run and refuses nothing it needs, and the dashboard's components
// draw the charts, the summary and every action's explained trace. Screenshots go to
// test-output/report/.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Browser, type Page, chromium as playwright } from "playwright-core";
import { simulateCommand } from "../../src/cli/simulate.js";

const ROOT = join(import.meta.dirname, "..", "..");
const OUTPUT = join(ROOT, "test-output", "report");
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) =>
  existsSync(path),
);
const required = process.env.CI === "true";
const skip =
  chromium || required
    ? false
    : "chromium is not installed (apt-get install chromium); skipped outside CI";
if (skip) console.log(`# report-browser: ${skip}`);

async function report(extra: { compareSet?: string[] } = {}): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "horizon-report-")), "report.html");
  const code = await simulateCommand(
    join(ROOT, "examples", "cpu-step.yaml"),
    {
      set: [],
      compareSet: extra.compareSet ?? [],
      assert: [],
      output: "table",
      quiet: true,
      report: file,
    },
    { out: () => undefined, err: () => {}, interactive: false },
  );
  assert.equal(code, 0);
  return file;
}

/** Opens the file and records every request and every console error (CSP refusals included). */
async function open(browser: Browser, file: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`file://${file}`);
  await page.locator("h1").waitFor();
  return { page, requests, errors };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  assert.ok(statSync(path).size > 20_000, `${name}: a rendered page, not a blank one`);
}

describe("the HTML report in a browser", { skip }, () => {
  let browser: Browser;
  before(async () => {
    assert.ok(chromium, "CI=true requires Debian's chromium (.ci/run installs it)");
    browser = await playwright.launch({
      executablePath: chromium,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
      headless: true,
    });
  });
  after(async () => {
    await browser?.close();
  });

  it("opens offline with its charts, summary and every action's explained trace", async () => {
    const file = await report();
    const { page, requests, errors } = await open(browser, file);
    assert.equal(await page.locator("h1").innerText(), "Horizon simulation: cpu-step");
    const captions = await page.locator(".chart figcaption strong").allInnerTexts();
    assert.deepEqual(captions, [
      "Load: demand vs served (requests/s)",
      "Replicas: current (spec.replicas), desired, ready, pods",
      // One numbering with explain and the dashboard; the unit said once.
      "Metric 1 (Resource, cpu resource utilization (percentage of request)) vs target",
      "CPU utilization of ready pods (% of request, from samples)",
      "Events and condition changes",
    ]);
    // The legend names the x series "time" (uPlot's default says "Value").
    const legend = await page.locator(".chart .u-legend").first().innerText();
    assert.match(legend, /^time/);
    assert.doesNotMatch(legend, /Value/);
    // uPlot's canvases for the time series, an SVG of the condition bands.
    assert.equal((await page.locator(".chart canvas").count()) >= 4, true);
    assert.equal((await page.locator("svg.bands rect.seg").count()) > 0, true);
    // The summary links to the HPA's section.
    const link = page.locator('#summary a[href="#hpa-default-web"]');
    assert.equal(await link.innerText(), "default/web");
    // Every scaling action: a collapsed trace that opens to its explanation and its JSON.
    const traces = page.locator("details.trace");
    assert.equal(await traces.count(), 4, "cpu-step scales up twice and down twice");
    const firstTrace = traces.first();
    assert.match(
      await firstTrace.locator("summary").innerText(),
      /^5m15s: 1 → 4 — cpu resource utilization \(percentage of request\) above target/,
    );
    await firstTrace.locator("summary").click();
    assert.match(
      await firstTrace.locator(".explanation").innerText(),
      /Desired 4 differs from current 1: the scale is updated\./,
    );
    assert.match(await firstTrace.locator("pre").innerText(), /horizon\.dev\/decision-trace\/v1/);
    await page.getByRole("button", { name: "expand all" }).click();
    assert.equal(await page.locator("details.trace[open]").count(), 4);
    // A link to an action opens its trace.
    await page.getByRole("button", { name: "collapse all" }).click();
    await page.goto(`file://${file}#action-0-default-web-2`);
    await page.locator("#action-0-default-web-2[open]").waitFor();
    // No network at all, and nothing refused by the Content-Security-Policy.
    assert.deepEqual(
      requests.filter((url) => !url.startsWith("file://")),
      [],
    );
    assert.deepEqual(errors, []);
    const { scroll, client } = (await page.evaluate(
      "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
    )) as { scroll: number; client: number };
    assert.ok(scroll <= client, `the page is ${scroll}px wide in a ${client}px viewport`);
    await shot(page, "report");
  });

  it("draws a comparison: both runs, their deltas and their own actions", async () => {
    const file = await report({ compareSet: ["hpa/web:spec.maxReplicas=2"] });
    const { page, errors } = await open(browser, file);
    assert.match(await page.locator("h1").innerText(), /vs .*hpa\/web:spec\.maxReplicas=2/);
    assert.match(await page.locator("#summary").innerText(), /delta \(/);
    const highest = page.locator("#summary tr", { hasText: "highest replicas" });
    assert.deepEqual(await highest.locator("td").allInnerTexts(), ["5", "2", "-3"]);
    // Each run's actions in its own column; the compared run's own first action.
    assert.equal((await page.locator("details.trace[id^='action-1-']").count()) > 0, true);
    assert.match(
      await page.locator("details.trace[id^='action-1-'] summary").first().innerText(),
      /1 → 2/,
    );
    const legend = await page.locator(".chart .u-legend").first().innerText();
    assert.match(legend, /demand/);
    assert.deepEqual(errors, []);
    await shot(page, "report-compare");
  });
});
