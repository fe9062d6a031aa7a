// The dashboard in a real browser (Debian's chromium, headless, driven by playwright-core) over
// a running `horizon up`: real kubectl applies the HPA, load applied through the Service makes
// the row and the replicas chart update without a reload, a sync opens its explanation, the
// views work by keyboard, in light and dark, without sideways scrolling at 1280 px; and an
// overview of 1,000 HPAs renders and filters. Screenshots go to test-output/dashboard/.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Browser, type Page, chromium as playwright } from "playwright-core";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
} from "../../src/api/types.js";
import { decisionRecordOf } from "../../src/controller/decisions.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { DashboardData, type HpaLister } from "../../src/web/data.js";
import { HpaHistory } from "../../src/web/history.js";
import {
  DashboardAuth,
  type RunningDashboard,
  startDashboardServer,
} from "../../src/web/server.js";
import { recordRun, simulationData } from "../../src/web/simulation.js";
import { syncReport } from "../controller/sync-reports.js";
import {
  findKubectls,
  kubectl,
  kubectlRequired,
  pollUntil,
  startTestServer,
  type TestServer,
} from "../e2e/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const OUTPUT = join(ROOT, "test-output", "dashboard");

const chromiumPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) =>
  existsSync(path),
);
const kubectls = findKubectls([]);
const required = process.env.CI === "true";
const skipBrowser =
  chromiumPath || required
    ? false
    : "chromium is not installed (apt-get install chromium); skipped outside CI";
const skipKubectl =
  skipBrowser ||
  (kubectls.binaries.length > 0 || kubectlRequired()
    ? false
    : `kubectl not found: ${kubectls.missing.join("; ")}`);
if (skipBrowser) console.log(`# dashboard-browser: ${skipBrowser}`);
else if (skipKubectl) console.log(`# dashboard-browser (horizon up): ${skipKubectl}`);

/** The same flags as the report's browser test: no sandbox (containers), no network extras. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function buildBundle(): void {
  const built = spawnSync(process.execPath, [join(ROOT, "scripts", "build-web.mjs")], {
    encoding: "utf8",
  });
  assert.equal(built.status, 0, built.stderr);
}

async function launch(): Promise<Browser> {
  assert.ok(chromiumPath, "CI=true requires Debian's chromium (.ci/run installs it)");
  return playwright.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, headless: true });
}

async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage });
  assert.ok(statSync(path).size > 10_000, `${name}: a rendered page, not a blank one`);
}

/** No sideways scrolling: the document is no wider than the viewport. */
async function assertNoHorizontalScroll(page: Page): Promise<void> {
  // In-page code as strings: this file is type-checked without the DOM library.
  const { scroll, client } = (await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
  )) as { scroll: number; client: number };
  assert.ok(scroll <= client, `the page is ${scroll}px wide in a ${client}px viewport`);
}

const MANIFESTS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: php-apache, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {run: php-apache}}
  template:
    metadata: {labels: {run: php-apache}}
    spec:
      containers:
      - name: php-apache
        image: registry.k8s.io/hpa-example
        resources: {requests: {cpu: 200m}, limits: {cpu: 500m}}
---
apiVersion: v1
kind: Service
metadata: {name: php-apache, namespace: default, labels: {run: php-apache}}
spec:
  selector: {run: php-apache}
  ports: [{port: 80}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: php-apache, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`;

describe("the dashboard over horizon up, in a browser", { skip: skipKubectl }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    buildBundle();
    server = await startTestServer({ dashboardAddress: { host: "127.0.0.1", port: 0 } });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.up.close();
  });

  it("lists the HPA kubectl applied, updates it live under load, and explains a sync", async () => {
    const context = server.context(kubectls.binaries[0]!);
    const applied = await kubectl(context, ["apply", "-f", "-"], { stdin: MANIFESTS });
    assert.equal(applied.code, 0, applied.stderr);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));
    const dashboard = server.up.dashboard!;
    await page.goto(dashboard.loginUrl);
    // Logged in: the page is at / and no URL the page asked for carries the token.
    assert.equal(page.url(), `${dashboard.url}/`);
    const token = server.up.token!;
    assert.ok(
      urls.every((url) => !url.includes(token)),
      urls.join("\n"),
    );

    const row = page.locator('tr[data-key="default/php-apache"]');
    await row.waitFor({ timeout: 15_000 });
    assert.match(
      await row.locator(".targets").innerText(),
      /^cpu: \d+%\/50%$|^cpu: <unknown>\/50%$/,
    );
    await pollUntil(
      "a first sync in the row",
      async () => ((await row.locator(".replicas").innerText()) === "1" ? true : undefined),
      { timeoutMs: 15_000 },
    );
    await assertNoHorizontalScroll(page);
    await shot(page, "overview-light");

    // Load through the Service (what `horizon load` sets), by kubectl; the page is not reloaded.
    await page.evaluate("window.marker = 1");
    const annotated = await kubectl(context, [
      "annotate",
      "service",
      "php-apache",
      'horizon.dev/load={"rps":300}',
    ]);
    assert.equal(annotated.code, 0, annotated.stderr);
    await pollUntil(
      "the row to show a scale-up",
      async () => {
        const text = await row.locator(".replicas").innerText();
        return /→/.test(text) || Number(text) > 1 ? text : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(await page.evaluate("window.marker"), 1, "the page was not reloaded");

    // By keyboard: "/" focuses the search, Tab reaches the row's link, Enter opens it.
    await page.keyboard.press("/");
    await page.keyboard.type("php");
    assert.equal(await page.locator("#shown-count").innerText(), "1 of 1");
    await page.keyboard.press("Tab");
    const focused = await page.evaluate("document.activeElement?.textContent");
    assert.equal(focused, "php-apache");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${dashboard.url}/hpas/default/php-apache`);
    await page.locator("#hpa-title").waitFor();
    assert.ok((await page.locator(".chart canvas").count()) >= 2, "replicas and cpu charts");

    // The replicas chart grows live: its caption names the newest sync's replicas.
    const caption = page.locator(".chart figcaption").first();
    const before = await page.locator(".sync").count();
    await pollUntil(
      "a new sync in the open view",
      async () => ((await page.locator(".sync").count()) > before ? true : undefined),
      { timeoutMs: 15_000 },
    );
    assert.match(await caption.innerText(), /^Replicas now \d+ → desired \d+/);

    // A scale-up sync opens its explanation, which names the metric that won.
    const scaled = page.locator(".sync.scaled .sync-toggle").first();
    await scaled.waitFor({ timeout: 30_000 });
    await scaled.focus();
    await page.keyboard.press("Enter");
    assert.equal(await scaled.getAttribute("aria-expanded"), "true");
    const explanation = page.locator(".sync.scaled .explanation").first();
    await explanation.locator("li").first().waitFor();
    assert.match(
      await explanation.innerText(),
      /cpu resource utilization \(percentage of request\)/,
    );

    // The load the cluster model offers the target is charted, and follows a new load live.
    const loadChart = page.locator("figure.chart", { hasText: "Load" });
    const loadText = async () =>
      (await loadChart.count()) > 0 ? await loadChart.locator("figcaption").innerText() : "";
    await pollUntil(
      "the load chart at 300 requests/s",
      async () => (/^Load now 300 requests\/s$/.test(await loadText()) ? true : undefined),
      { timeoutMs: 15_000 },
    );
    assert.equal(await loadChart.locator("canvas").count(), 1, "the load chart is drawn");
    const reloaded = await kubectl(context, [
      "annotate",
      "--overwrite",
      "service",
      "php-apache",
      'horizon.dev/load={"rps":120}',
    ]);
    assert.equal(reloaded.code, 0, reloaded.stderr);
    await pollUntil(
      "the load chart to follow the new load",
      async () => (/^Load now 120 requests\/s$/.test(await loadText()) ? true : undefined),
      { timeoutMs: 30_000 },
    );
    assert.equal(await page.evaluate("window.marker"), 1, "the page was not reloaded");
    await assertNoHorizontalScroll(page);
    await shot(page, "hpa-light");

    await page.emulateMedia({ colorScheme: "dark" });
    const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    assert.equal(background, "rgb(18, 22, 28)");
    await shot(page, "hpa-dark");
    await page.goBack();
    await row.waitFor();
    await shot(page, "overview-dark");
    assert.ok(
      urls.every((url) => !url.includes(token)),
      "no URL carries the token",
    );
  });
});

/** Conditions beyond upstream's: paused by an annotation, a scheduled floor, a foreign writer. */
const EXTENDED_CONDITIONS = [
  { type: "AbleToScale", status: "False", reason: "Paused", message: "scaling is paused" },
  { type: "ScalingActive", status: "True", reason: "ValidMetricFound", message: "ok" },
  { type: "ScalingLimited", status: "True", reason: "ScheduledMinimum", message: "a window" },
  {
    type: "ForeignWriter",
    status: "True",
    reason: "AnotherControllerWrites",
    message: "another HPA controller writes this HPA too",
  },
] as HorizontalPodAutoscalerCondition[];

/** 1,000 HPAs in 10 namespaces, each with a few recorded syncs (the first with extra conditions). */
function fleet(): { hpas: HpaLister; history: HpaHistory } {
  const items = new Map<string, HorizontalPodAutoscaler>();
  const history = new HpaHistory({ capacity: 20, clock: { now: Date.now } });
  for (let i = 0; i < 1000; i++) {
    const namespace = `team-${i % 10}`;
    const name = `app-${String(i).padStart(4, "0")}`;
    const observation = syncReport({
      namespace,
      name,
      replicas: 1 + (i % 7),
      cpuPerPodMilli: 40 + (i % 30),
    });
    items.set(`${namespace}/${name}`, {
      ...observation.hpa,
      status: {
        currentReplicas: 1 + (i % 7),
        desiredReplicas: 1 + (i % 7),
        ...(i === 0 ? { conditions: EXTENDED_CONDITIONS } : {}),
      },
    });
    for (let s = 0; s < 3; s++) history.record(decisionRecordOf(observation.result!));
  }
  return {
    history,
    hpas: {
      list: () => [...items.values()],
      get: (key) => items.get(key),
      subscribe: () => () => {},
    },
  };
}

describe("a 1,000-HPA overview in a browser", { skip: skipBrowser }, () => {
  let dashboard: RunningDashboard;
  let browser: Browser;
  let history: HpaHistory;

  before(async () => {
    buildBundle();
    const data = fleet();
    history = data.history;
    dashboard = await startDashboardServer({
      host: "127.0.0.1",
      port: 0,
      data: new DashboardData({ history: data.history, hpas: data.hpas, source: "test fleet" }),
      auth: new DashboardAuth("fleet-token"),
    });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await dashboard?.close();
  });

  it("renders every row, filters by search and namespace, and takes live updates", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(dashboard.loginUrl());
    const rows = page.locator("table.hpas tbody tr:not([hidden])");
    await pollUntil("1,000 rows", async () => ((await rows.count()) === 1000 ? true : undefined), {
      timeoutMs: 20_000,
    });
    assert.equal(await page.locator("#shown-count").innerText(), "1000 of 1000");
    await assertNoHorizontalScroll(page);

    await page.locator("#search").fill("app-00");
    // app-0000 … app-0099.
    assert.equal(await page.locator("#shown-count").innerText(), "100 of 1000");
    assert.equal(await rows.count(), 100);
    await page.locator("select").selectOption("team-3");
    assert.equal(await page.locator("#shown-count").innerText(), "10 of 1000");
    assert.deepEqual(await rows.locator("td.name a").allInnerTexts(), [
      "app-0003",
      "app-0013",
      "app-0023",
      "app-0033",
      "app-0043",
      "app-0053",
      "app-0063",
      "app-0073",
      "app-0083",
      "app-0093",
    ]);
    await page.locator("#search").fill("");
    assert.equal(await rows.count(), 100);

    // A sync recorded now reaches the open page: app-0013's sparkline gains a point.
    const sparkline = page.locator('tr[data-key="team-3/app-0013"] .sparkline');
    const label = await sparkline.getAttribute("aria-label");
    history.record(
      decisionRecordOf(
        syncReport({ namespace: "team-3", name: "app-0013", replicas: 9, maxReplicas: 20 }).result!,
      ),
    );
    await pollUntil("the live sparkline", async () =>
      (await sparkline.getAttribute("aria-label")) !== label ? true : undefined,
    );
    assert.match((await sparkline.getAttribute("aria-label")) ?? "", /, 9$/);
    await page.locator("select").selectOption("");
    await shot(page, "overview-1000", false);

    // Conditions beyond the three: in the row, and with their messages on the HPA's page.
    const chips = page.locator('tr[data-key="team-0/app-0000"] .chip');
    assert.deepEqual(
      await chips.evaluateAll((els) =>
        els.map((el) => `${el.getAttribute("data-condition")} ${el.className}`),
      ),
      [
        "AbleToScale chip paused",
        "ScalingActive chip ok",
        "ScalingLimited chip warn",
        "ForeignWriter chip warn",
      ],
    );
    assert.match(await chips.nth(3).innerText(), /^foreign writer/);
    await page.locator('tr[data-key="team-0/app-0000"] td.name a').click();
    const listed = page.locator("ul.conditions li", { hasText: "ForeignWriter" });
    await listed.waitFor();
    assert.match(
      await listed.innerText(),
      /ForeignWriter True\s+AnotherControllerWrites another HPA controller writes this HPA too/,
    );
    assert.equal(await listed.locator(".chip").getAttribute("class"), "chip warn");
    assert.equal(await page.locator(".facts .chip").count(), 4);
    // A live controller's times: UTC instants with their date, the same for every viewer.
    const when = page.locator(".timeline .sync .when").first();
    assert.match(await when.innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.match(
      await page.locator(".chart .u-legend").first().innerText(),
      /^time/,
      "the legend names the x series time, not Value",
    );
  });
});

describe("what-if over a simulation, in a browser", { skip: skipBrowser }, () => {
  let dashboard: RunningDashboard;
  let browser: Browser;

  before(async () => {
    buildBundle();
    const loaded = await loadScenarioFile(join(ROOT, "examples", "external-queue.yaml"));
    assert.ok(loaded.ok);
    dashboard = await startDashboardServer({
      host: "127.0.0.1",
      port: 0,
      data: simulationData(await recordRun(loaded.scenario, "queue"), null),
      auth: new DashboardAuth("sim-token"),
    });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await dashboard?.close();
  });

  it("a slower scale-down on the queue example shows fewer flaps, with the patch to apply", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(dashboard.loginUrl());
    await page.locator('tr[data-key="default/worker"] td.name a').click();
    await page.locator("#whatif-behavior").waitFor();
    await page.locator("#whatif-behavior").fill(
      JSON.stringify({
        scaleDown: {
          stabilizationWindowSeconds: 900,
          policies: [{ type: "Percent", value: 20, periodSeconds: 60 }],
        },
      }),
    );
    await page.locator("#whatif-run").click();
    const flaps = page.locator('.whatif-result tr[data-measure="Flaps"] td');
    await flaps.first().waitFor({ timeout: 60_000 });
    const [original, edited] = (await flaps.allInnerTexts()).map(Number);
    assert.ok(edited! < original!, `what-if ${edited} flaps, original ${original}`);
    assert.match(
      await page.locator("#whatif-command").innerText(),
      /^kubectl patch hpa worker -n default --type merge -p '\{"spec":\{"behavior":/,
    );
    assert.ok(
      (await page.locator(".whatif-result canvas").count()) >= 1,
      "both trajectories on one chart",
    );
    await assertNoHorizontalScroll(page);
    await shot(page, "whatif");

    // An edit the API server would refuse is refused with the field named (the form itself
    // already stops a maxReplicas below 1).
    await page.locator("#whatif-min").fill("50");
    await page.locator("#whatif-run").click();
    const alert = page.locator('.whatif [role="alert"]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /spec\.maxReplicas/);
  });

  it("the Syncs list filters (scaled, failed, limited) and pages its syncs", async () => {
    // src/web/app/hpa.tsx's SYNCS_PER_PAGE.
    const SYNCS_PER_PAGE = 50;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(dashboard.loginUrl());
    await page.locator('tr[data-key="default/worker"] td.name a').click();
    const filters = page.locator(".sync-filters button");
    await filters.first().waitFor();
    const count = async (label: string) => {
      const text = await filters.filter({ hasText: label }).innerText();
      return Number(/\((\d+)\)$/.exec(text)?.[1]);
    };
    const all = await count("All");
    assert.ok(all > SYNCS_PER_PAGE, `${all} syncs: more than a page`);
    assert.equal(await page.locator(".timeline > .sync").count(), SYNCS_PER_PAGE);
    assert.match(
      await page.locator(".sync-pages").innerText(),
      new RegExp(
        `1–${SYNCS_PER_PAGE} of ${all} \\(page 1 of ${Math.ceil(all / SYNCS_PER_PAGE)}\\)`,
      ),
    );
    // A simulation's times: offsets from its start, as the CLI prints them, the instant in UTC
    // in the title (the queue example syncs every 15 s for an hour; newest first).
    const when = page.locator(".timeline .sync .when").first();
    assert.match(await when.innerText(), /^\d+h\d+m\d+s$|^\d+m\d+s$/);
    assert.match((await when.getAttribute("title")) ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await page.locator(".sync-pages button", { hasText: "older" }).click();
    await page.locator(".sync-pages", { hasText: `${SYNCS_PER_PAGE + 1}–` }).waitFor();

    for (const [label, selector] of [
      ["Scaled", ".sync.scaled"],
      ["Failed", ".sync.failed"],
    ] as const) {
      const expected = await count(label);
      await filters.filter({ hasText: label }).click();
      assert.equal(await filters.filter({ hasText: label }).getAttribute("aria-pressed"), "true");
      const shown = Math.min(expected, SYNCS_PER_PAGE);
      if (expected === 0) {
        await page.locator(".sync-list", { hasText: "No " }).waitFor();
      } else {
        await page
          .locator(".timeline > .sync")
          .nth(shown - 1)
          .waitFor();
        assert.equal(await page.locator(".timeline > .sync").count(), shown);
        assert.equal(await page.locator(`.timeline > ${selector}`).count(), shown);
      }
    }
    const limited = await count("Limited");
    assert.ok(limited > 0 && limited < all, `${limited} limited of ${all}`);
    await filters.filter({ hasText: "Limited" }).click();
    await page.locator(".timeline > .sync").first().waitFor();
    assert.equal(
      await page.locator(".timeline > .sync").count(),
      Math.min(limited, SYNCS_PER_PAGE),
    );
  });
});
