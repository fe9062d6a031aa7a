// The `type: prometheus` traffic model and `horizon simulate --from-prometheus`, against a real
// Prometheus serving known, backfilled series (test/prometheus/real-prometheus.ts).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { simulateCommand } from "../../src/cli/simulate.js";
import { trafficAt } from "../../src/cluster/traffic.js";
import { commonQuery } from "../../src/sim/prometheus-traffic.js";
import {
  formatScenarioError,
  type LoadOptions,
  resolveScenario,
  type ScenarioResult,
} from "../../src/sim/scenario.js";
import {
  counter,
  freePort,
  prometheusSkip,
  type RunningPrometheus,
  startPrometheus,
} from "../prometheus/real-prometheus.js";

// Known data: one hour from T0. Deployment web's two pods serve 10/s and 5/s, the second
// 20/s from T0+30m; a pod of Deployment web-api and one in another namespace must not count.
const T0 = 1_790_000_000;
const HALF = T0 + 1800;
const END = T0 + 3600;
const SERIES = [
  counter("http_requests_total", { namespace: "default", pod: "web-5d8f7c9b6-abcde" }, T0, END, 10),
  counter(
    "http_requests_total",
    { namespace: "default", pod: "web-5d8f7c9b6-fghij" },
    T0,
    END,
    (t) => (t < HALF ? 5 : 20),
  ),
  counter(
    "http_requests_total",
    { namespace: "default", pod: "web-api-7c9d-xyz12" },
    T0,
    END,
    1000,
  ),
  counter("http_requests_total", { namespace: "other", pod: "web-5d8f7c9b6-zzzzz" }, T0, END, 500),
];

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        resources: {requests: {cpu: 100m}}
`;

function scenario(model: Record<string, unknown>): string {
  return `${DEPLOYMENT}---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: replay}
spec:
  workloads:
  - target: Deployment/web
    traffic:
    - ${JSON.stringify({ type: "prometheus", ...model })}
`;
}

const load = (text: string, options: Partial<LoadOptions> = {}) =>
  resolveScenario(text, { file: "replay.yaml", baseDir: "/", ...options });

function errors(result: ScenarioResult): string[] {
  assert.equal(result.ok, false, "expected errors");
  return result.ok ? [] : result.errors.map(formatScenarioError);
}

function replayPoints(result: ScenarioResult) {
  if (!result.ok) assert.fail(result.errors.map(formatScenarioError).join("\n"));
  const traffic = result.scenario.spec.workloads[0]!.traffic;
  assert.equal(traffic.length, 1);
  const model = traffic[0]!;
  assert.equal(model.type, "replay");
  return { model, points: model.type === "replay" ? model.points : [] };
}

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} ≉ ${expected}`);

describe("the prometheus traffic model against a real Prometheus", {
  skip: prometheusSkip("prometheus-traffic"),
}, () => {
  let prometheus: RunningPrometheus;
  before(async () => {
    prometheus = await startPrometheus({ series: SERIES });
  });
  after(async () => {
    await prometheus?.stop();
  });

  test("replays a range query's result from start on, several series added up", async () => {
    const start = T0 + 120;
    const { model, points } = replayPoints(
      await load(
        scenario({
          url: prometheus.url,
          query:
            'sum by (pod) (rate(http_requests_total{namespace="default",pod=~"web-[^-]+-[^-]+"}[1m]))',
          start,
          end: new Date(END * 1000).toISOString(),
          step: "1m",
        }),
      ),
    );
    // (END - start) / 60 steps, both ends included; times from 0 in scenario time.
    assert.equal(points.length, (END - start) / 60 + 1);
    assert.deepEqual(
      points.slice(0, 3).map((p) => p.atMs),
      [0, 60_000, 120_000],
    );
    const at = (t: number) => points.find((p) => p.atMs === (t - start) * 1000)!.rps;
    close(at(T0 + 600), 15);
    close(at(T0 + 1200), 15);
    close(at(T0 + 2400), 30);
    close(at(END), 30);
    // The cluster plays it as any replay trace.
    close(trafficAt([model], (T0 + 2400 - start) * 1000), 30);
    assert.match(model.type === "replay" ? model.source : "", /^prometheus http:\/\/127\.0\.0\.1:/);
  });

  test("a PromQL error names the query field and carries Prometheus' message", async () => {
    const result = await load(
      scenario({
        url: prometheus.url,
        query: "sum(rate(http_requests_total[1m])",
        start: T0,
        end: END,
      }),
    );
    const [only, ...rest] = errors(result);
    assert.deepEqual(rest, []);
    assert.match(
      only!,
      /spec\.workloads\[0\]\.traffic\[0\]\.query: Prometheus rejected the query: .*parse error/,
    );
  });

  test("a query with no data names the query field", async () => {
    const result = await load(
      scenario({ url: prometheus.url, query: "rate(no_such_metric[1m])", start: T0, end: END }),
    );
    assert.match(
      errors(result).join("\n"),
      /spec\.workloads\[0\]\.traffic\[0\]\.query: the query returned no samples between start and end/,
    );
  });

  test("--from-prometheus replays each workload's pods with the common query", async () => {
    const text = `${DEPLOYMENT}---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 1h
`;
    const { model, points } = replayPoints(
      await load(text, { fromPrometheus: { url: prometheus.url }, nowMs: END * 1000 }),
    );
    const query = commonQuery({ namespace: "default", kind: "Deployment", name: "web" });
    assert.equal(
      query,
      'sum(rate(http_requests_total{namespace="default",pod=~"web-[a-z0-9]+-[a-z0-9]+"}[2m]))',
    );
    assert.equal(
      model.type === "replay" ? model.source : "",
      `prometheus ${prometheus.url}: ${query}`,
    );
    // The last hour up to `now`, every 15 s (at `start` itself the rate has one sample, so no
    // value); web-api's and the other namespace's pods left out.
    assert.equal(points.length, 3600 / 15);
    assert.equal(points[0]!.atMs, 15_000);
    const at = (t: number) => points.find((p) => p.atMs === (t - T0) * 1000)!.rps;
    close(at(T0 + 1200), 15);
    close(at(T0 + 2400), 30);
  });
});

describe("the prometheus traffic model's field errors", () => {
  test("an unreachable server names the url field", async () => {
    const port = await freePort();
    const result = await load(
      scenario({ url: `http://127.0.0.1:${port}`, query: "up", start: T0, end: END }),
    );
    assert.match(
      errors(result).join("\n"),
      /spec\.workloads\[0\]\.traffic\[0\]\.url: cannot query Prometheus: .*connection refused/,
    );
  });

  const cases: { name: string; model: Record<string, unknown>; expected: RegExp }[] = [
    {
      name: "end before start",
      model: { start: END, end: T0 },
      expected: /traffic\[0\]\.end: must be later than start/,
    },
    {
      name: "more points than Prometheus allows",
      model: { start: "now-30d", step: "15s" },
      expected: /traffic\[0\]\.step: gives more than 11000 points from start to end/,
    },
    {
      name: "a start that is no time",
      model: { start: "yesterday" },
      expected: /traffic\[0\]\.start: must be an RFC 3339 time/,
    },
    {
      name: "a missing query",
      model: { start: T0, query: null },
      expected: /traffic\[0\]\.query: Required value/,
    },
    {
      name: "an unknown field",
      model: { start: T0, end: END, range: "1h" },
      expected:
        /traffic\[0\]\.range: unknown field "range" \(known: type, url, query, start, end, step\)/,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const result = await load(scenario({ url: "http://127.0.0.1:1", query: "up", ...c.model }));
      assert.match(errors(result).join("\n"), c.expected);
    });
  }

  test("horizon simulate --from-prometheus: an unreachable server is bad input (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-from-prom-"));
    const file = join(dir, "web.yaml");
    writeFileSync(file, DEPLOYMENT);
    const port = await freePort();
    const lines: string[] = [];
    const code = await simulateCommand(
      file,
      {
        set: [],
        compareSet: [],
        output: "table",
        assert: [],
        quiet: true,
        fromPrometheus: `http://127.0.0.1:${port}`,
      },
      { out: () => undefined, err: (line) => lines.push(line), interactive: false },
    );
    assert.equal(code, 2);
    assert.match(
      lines.join("\n"),
      /spec\.workloads\[0\]\.traffic\[0\]\.url.*cannot query Prometheus: .*connection refused/,
    );
  });
});
