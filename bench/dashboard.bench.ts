// `npm run bench:dashboard`: the overview of 1,000 HPAs in headless chromium (Debian's, driven
// by playwright-core): time to first render (navigation to all 1,000 rows in the DOM) and time
// to filter (typing into the search box to the filtered rows painted), each the median of
// several runs. Needs the bundle (the npm script builds it) and /usr/bin/chromium.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { HorizontalPodAutoscaler } from "../src/api/types.js";
import type { DecisionRecord } from "../src/controller/decisions.js";
import { DECISION_TRACE_VERSION } from "../src/core/trace.js";
import { DashboardData } from "../src/web/data.js";
import { HpaHistory } from "../src/web/history.js";
import { DashboardAuth, startDashboardServer } from "../src/web/server.js";

const HPAS = 1000;

/**
 * Types into the search box; resolves with the ms until the frame after the rows matched. (In-page
 * code as a string: this file is type-checked without the DOM library.)
 */
function filterScript(text: string, expected: number): string {
  return `new Promise((resolve) => {
    const box = document.getElementById("search");
    const start = performance.now();
    box.value = ${JSON.stringify(text)};
    box.dispatchEvent(new Event("input", { bubbles: true }));
    const check = () => {
      if (document.querySelectorAll("table.hpas tbody tr:not([hidden])").length === ${expected}) {
        requestAnimationFrame(() => resolve(performance.now() - start));
      } else requestAnimationFrame(check);
    };
    check();
  })`;
}
const RUNS = 7;
const SYNCS = 60;

function record(namespace: string, name: string, replicas: number): DecisionRecord {
  return {
    trace: {
      version: DECISION_TRACE_VERSION,
      hpa: { namespace, name },
      time: new Date().toISOString(),
      scale: { specReplicas: replicas, statusReplicas: replicas },
      branch: "metrics",
      minReplicas: 1,
      maxReplicas: 20,
      currentReplicas: replicas,
      metrics: [],
      recommendation: replicas,
      desiredReplicas: replicas,
      rescale: false,
      outcome: "unchanged",
    },
    conditions: [],
    events: [],
    error: null,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const executablePath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
if (!executablePath) {
  console.error("bench:dashboard needs Debian's chromium (apt-get install chromium)");
  process.exit(1);
}

const items = new Map<string, HorizontalPodAutoscaler>();
const history = new HpaHistory({ capacity: SYNCS, clock: { now: Date.now } });
for (let i = 0; i < HPAS; i++) {
  const namespace = `team-${i % 10}`;
  const name = `app-${String(i).padStart(4, "0")}`;
  items.set(`${namespace}/${name}`, {
    metadata: { namespace, name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      minReplicas: 1,
      maxReplicas: 20,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        },
      ],
    },
    status: {
      currentReplicas: 1 + (i % 7),
      desiredReplicas: 1 + (i % 7),
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageUtilization: 40 + (i % 30) } },
        },
      ],
      conditions: [
        {
          type: "AbleToScale",
          status: "True",
          reason: "ReadyForNewScale",
          message: "recommended size matches current size",
        },
        {
          type: "ScalingActive",
          status: "True",
          reason: "ValidMetricFound",
          message: "the HPA was able to successfully calculate a replica count",
        },
        {
          type: "ScalingLimited",
          status: "False",
          reason: "DesiredWithinRange",
          message: "the desired count is within the acceptable range",
        },
      ],
    },
  });
  for (let s = 0; s < SYNCS; s++) history.record(record(namespace, name, 1 + ((i + s) % 7)));
}
const dashboard = await startDashboardServer({
  host: "127.0.0.1",
  port: 0,
  data: new DashboardData({
    history,
    hpas: {
      list: () => [...items.values()],
      get: (key) => items.get(key),
      subscribe: () => () => {},
    },
    source: "bench",
  }),
  auth: new DashboardAuth("bench-token"),
});
const browser = await chromium.launch({
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(dashboard.loginUrl());
  const lastRow = page.locator("table.hpas tbody tr:not([hidden])").nth(HPAS - 1);
  await lastRow.waitFor();

  const renders: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = Date.now();
    await page.reload();
    await lastRow.waitFor();
    renders.push(Date.now() - start);
  }

  // Each query: type into the search box, then wait for the next frame after the row count
  // reached the expected one (measured inside the page).
  const queries: [string, number][] = [
    ["app-00", 100],
    ["app-012", 10],
    ["team-4", 100],
    ["", HPAS],
    ["app-0999", 1],
    ["", HPAS],
  ];
  const filters: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const [text, expected] of queries) {
      filters.push((await page.evaluate(filterScript(text, expected))) as number);
    }
  }
  console.log(
    `dashboard overview, ${HPAS} HPAs (${SYNCS} syncs each), headless chromium, 1280x900:`,
  );
  console.log(
    `  time to first render (reload → ${HPAS} rows): median ${median(renders)} ms (runs: ${renders.join(", ")})`,
  );
  console.log(
    `  time to filter (keystroke → rows painted): median ${median(filters).toFixed(1)} ms, max ${Math.max(...filters).toFixed(1)} ms over ${filters.length} filters`,
  );
} finally {
  await browser.close();
  await dashboard.close();
}
