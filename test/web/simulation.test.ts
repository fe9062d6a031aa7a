// The dashboard over a simulation: a run recorded on the virtual clock, what-if runs of the
// same scenario with an HPA edited (validated as the API server would), the what-if endpoint
// over HTTP, and `horizon simulate --serve` end to end.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { simulateCommand } from "../../src/cli/simulate.js";
import { DEFAULT_START_TIME } from "../../src/sim/runner.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { DashboardData } from "../../src/web/data.js";
import { HpaHistory } from "../../src/web/history.js";
import { DashboardAuth, startDashboardServer } from "../../src/web/server.js";
import { type RecordedRun, recordRun, simulationData, whatIf } from "../../src/web/simulation.js";
import type { HpaDetail, OverviewDocument, WhatIfResult } from "../../src/web/types.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");
const QUEUE = join(EXAMPLES, "external-queue.yaml");
/** The example's own suggestion for fewer flaps: a slower, gentler scale-down. */
const SLOWER_SCALE_DOWN = {
  scaleDown: {
    stabilizationWindowSeconds: 900,
    policies: [{ type: "Percent" as const, value: 20, periodSeconds: 60 }],
  },
};

describe("the dashboard over a simulation", () => {
  let run: RecordedRun;
  before(async () => {
    // Pinned at v1.34: its first sync is one period after the HPA is seen (at once in v1.37).
    const loaded = await loadScenarioFile(QUEUE, { kubernetesVersion: "1.34" });
    assert.ok(loaded.ok);
    run = await recordRun(loaded.scenario, "queue");
  });

  it("records every sync on the virtual clock, with the run's measures", () => {
    const records = run.history.get("default", "worker");
    assert.ok(records.length > 100, `${records.length} syncs`);
    assert.equal(records[0]!.sample.at, DEFAULT_START_TIME + 15_000);
    const measures = run.measures("default/worker");
    assert.ok(measures && measures.flaps > 0, "the example flaps as recorded");
    const data = simulationData(run, null);
    // Its start, which the dashboard reads its times from (offsets, as the CLI prints them).
    assert.equal(data.overview().start, DEFAULT_START_TIME);
    const row = data.overview().hpas.find((h) => h.name === "worker")!;
    assert.equal(row.reference, "Deployment/worker");
    assert.match(row.targets, /\/30 \(avg\)$/);
    assert.ok(row.sparkline.length > 0);
    const detail = data.detail("default", "worker")!;
    assert.equal(detail.whatIf, "simulation");
    assert.deepEqual(detail.measures, measures);
  });

  it("records the load the scenario offered at each sync", async () => {
    // cpu-step: 20 requests/s, 200 from 5m, 40 from 18m (samples every metrics resolution).
    // Pinned at v1.34: v1.37's sync at t=0 comes before the run's first load sample, so that
    // one sync has no load recorded (the recorder takes the latest sample before a sync).
    const loaded = await loadScenarioFile(join(EXAMPLES, "cpu-step.yaml"), {
      kubernetesVersion: "1.34",
    });
    assert.ok(loaded.ok);
    const stepped = await recordRun(loaded.scenario, "cpu-step");
    const load = (minutes: number) =>
      stepped.history
        .get("default", "web")
        .find((r) => r.sample.at >= DEFAULT_START_TIME + minutes * 60_000)?.sample.loadRps;
    assert.equal(load(2), 20);
    assert.equal(load(10), 200);
    assert.equal(load(25), 40);
    const detail = simulationData(stepped, null).detail("default", "web")!;
    assert.ok(detail.samples.every((s) => s.loadRps !== null));
  });

  it("replays a slower scale-down through the same core: fewer flaps", async () => {
    const answer = await whatIf(run, "default", "worker", { behavior: SLOWER_SCALE_DOWN });
    assert.ok(answer.ok, JSON.stringify(answer));
    const { original, whatIf: edited } = answer.value;
    assert.ok(
      edited.measures!.flaps < original.measures!.flaps,
      `${edited.measures!.flaps} < ${original.measures!.flaps}`,
    );
    assert.deepEqual(original.measures, run.measures("default/worker"));
    assert.equal(original.samples.length, edited.samples.length);
    assert.deepEqual(JSON.parse(answer.value.patch), { spec: { behavior: SLOWER_SCALE_DOWN } });
    assert.equal(
      answer.value.command,
      `kubectl patch hpa worker -n default --type merge -p '${JSON.stringify({ spec: { behavior: SLOWER_SCALE_DOWN } })}'`,
    );
    // The recorded run itself is unchanged.
    assert.equal(run.history.get("default", "worker").length, original.samples.length);
  });

  it("refuses edits the API server would refuse, naming the field", async () => {
    const answer = await whatIf(run, "default", "worker", { minReplicas: 5, maxReplicas: 3 });
    assert.equal(answer.ok, false);
    if (answer.ok) return;
    assert.equal(answer.status, 422);
    assert.ok(
      answer.causes!.some((c) => /^spec\.maxReplicas: Invalid value: 3/.test(c)),
      answer.causes!.join("\n"),
    );
    const missing = await whatIf(run, "default", "nope", { maxReplicas: 3 });
    assert.equal(missing.ok ? 200 : missing.status, 404);
  });

  it("answers POST …/whatif over HTTP, and 501 where there are no what-if runs", async () => {
    const token = "t";
    const serve = (data: DashboardData) =>
      startDashboardServer({ host: "127.0.0.1", port: 0, data, auth: new DashboardAuth(token) });
    const sim = await serve(simulationData(run, null));
    const live = await serve(
      new DashboardData({
        history: new HpaHistory({ capacity: 1, clock: { now: Date.now } }),
        hpas: { list: () => [], get: () => undefined, subscribe: () => () => {} },
        source: "controller",
      }),
    );
    const post = (base: string, body: string, type = "application/json") =>
      fetch(`${base}/api/v1/namespaces/default/hpas/worker/whatif`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": type },
        body,
      });
    try {
      const ok = await post(sim.url, JSON.stringify({ maxReplicas: 10 }));
      assert.equal(ok.status, 200);
      const result = (await ok.json()) as WhatIfResult;
      assert.ok(result.whatIf.samples.every((s) => s.desiredReplicas <= 10));
      assert.ok(result.original.samples.some((s) => s.desiredReplicas > 10));

      const form = await post(sim.url, "maxReplicas=10", "application/x-www-form-urlencoded");
      assert.equal(form.status, 415);
      const unknown = await post(sim.url, JSON.stringify({ replicas: 3 }));
      assert.equal(unknown.status, 400);
      assert.match(((await unknown.json()) as { error: string }).error, /^replicas: unknown field/);
      const invalid = await post(sim.url, JSON.stringify({ maxReplicas: 0 }));
      assert.equal(invalid.status, 422);
      assert.ok(((await invalid.json()) as { causes: string[] }).causes.length > 0);
      const anonymous = await fetch(`${sim.url}/api/v1/namespaces/default/hpas/worker/whatif`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      assert.equal(anonymous.status, 401);
      await anonymous.body?.cancel();

      const unsupported = await post(live.url, JSON.stringify({ maxReplicas: 10 }));
      assert.equal(unsupported.status, 501);
      assert.match(((await unsupported.json()) as { error: string }).error, /no what-if runs/);
    } finally {
      await sim.close();
      await live.close();
    }
  });
});

describe("horizon simulate --serve", () => {
  it("serves the run and the --compare run until stopped", async () => {
    const err: string[] = [];
    let checked: Promise<void> | null = null;
    const code = await simulateCommand(
      QUEUE,
      {
        set: [],
        compareSet: [`hpa/worker:spec.behavior=${JSON.stringify(SLOWER_SCALE_DOWN)}`],
        assert: [],
        output: "table",
        quiet: true,
        serve: "127.0.0.1:0",
      },
      {
        out: () => undefined,
        err: (line) => err.push(line),
        interactive: false,
        serving: (dashboard, stop) => {
          checked = (async () => {
            try {
              const login = await fetch(dashboard.loginUrl, { redirect: "manual" });
              assert.equal(login.status, 303);
              const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
              const overview = (await (
                await fetch(`${dashboard.url}/api/v1/hpas`, { headers: { Cookie: cookie } })
              ).json()) as OverviewDocument;
              assert.match(overview.source, /^simulation external-queue \(compared with /);
              const detail = (await (
                await fetch(`${dashboard.url}/api/v1/namespaces/default/hpas/worker`, {
                  headers: { Cookie: cookie },
                })
              ).json()) as HpaDetail;
              assert.ok(detail.compare, "the --compare run is there");
              assert.ok(detail.compare.measures!.flaps < detail.measures!.flaps);
            } finally {
              stop();
            }
          })();
        },
      },
    );
    assert.equal(code, 0, err.join("\n"));
    assert.ok(checked, "the dashboard was served");
    await checked;
    assert.ok(
      err.some((line) => /^Dashboard: http:\/\/127\.0\.0\.1:\d+$/.test(line)),
      err.join("\n"),
    );
    assert.ok(err.some((line) => /log in once with this link/.test(line)));
  });

  it("refuses a bad --serve address", async () => {
    const err: string[] = [];
    const code = await simulateCommand(
      QUEUE,
      { set: [], compareSet: [], assert: [], output: "table", quiet: true, serve: "8086" },
      { out: () => undefined, err: (line) => err.push(line), interactive: false },
    );
    assert.equal(code, 2);
    assert.match(err.join("\n"), /^error: --serve: must be HOST:PORT/);
  });
});
