// `horizon up` serves the dashboard behind the API's own token, prints its one-time login link,
// and with --data-dir the recorded history comes back after a restart.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { usageBanner } from "../../src/cli/up.js";
import { loadScenarioFile } from "../../src/sim/scenario.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import type { HpaDetail, OverviewDocument, WhatIfResult } from "../../src/web/types.js";
import { pollUntil } from "../e2e/helpers.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "cpu-step.yaml");

async function up(dataDir: string): Promise<RunningUp> {
  const loaded = await loadScenarioFile(EXAMPLE);
  assert.ok(loaded.ok);
  const started = await startUp({
    scenario: loaded.scenario,
    port: 0,
    kubeconfigOut: null,
    syncPeriodMs: 300,
    dataDir,
    dashboardAddress: { host: "127.0.0.1", port: 0 },
  });
  if (!started.ok) throw new Error(started.error);
  return started.value;
}

async function detail(running: RunningUp): Promise<HpaDetail> {
  const res = await fetch(`${running.dashboard!.url}/api/v1/namespaces/default/hpas/web`, {
    headers: { Authorization: `Bearer ${running.token}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as HpaDetail;
}

describe("horizon up's dashboard", () => {
  it("is behind the API's token, logs in by link, and keeps its history in --data-dir", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-dashboard-")), "data");
    const first = await up(dataDir);
    let syncs: number;
    try {
      assert.ok(first.dashboard, "the dashboard is served");
      assert.ok(first.token, "HTTPS: the API has a token");
      const banner = usageBanner(first, {}, "test").join("\n");
      assert.ok(banner.includes(`Dashboard: ${first.dashboard.url}`), banner);
      assert.match(
        banner,
        /log in once with this link \(it works one time\): http:\/\/127\.0\.0\.1:\d+\/login\?ticket=/,
      );
      assert.ok(!banner.includes(first.token), "the banner does not print the token");

      const anonymous = await fetch(`${first.dashboard.url}/api/v1/hpas`);
      assert.equal(anonymous.status, 401);
      await anonymous.body?.cancel();

      const overview = await pollUntil("a recorded sync of default/web", async () => {
        const res = await fetch(`${first.dashboard!.url}/api/v1/hpas`, {
          headers: { Authorization: `Bearer ${first.token}` },
        });
        const doc = (await res.json()) as OverviewDocument;
        return doc.hpas.find((h) => h.name === "web" && h.lastSync !== null);
      });
      // Two syncs recorded (the first ones fail until the pods' metrics exist: those are kept
      // as syncs, though the overview's sparkline plots no replicas for them).
      await pollUntil("two recorded syncs of default/web", async () =>
        (await detail(first)).syncs.length >= 2 ? true : undefined,
      );
      assert.equal(overview.reference, "Deployment/web");
      assert.equal(overview.minReplicas, 1);

      const login = await fetch(first.dashboard.loginUrl, { redirect: "manual" });
      assert.equal(login.status, 303);
      syncs = (await detail(first)).syncs.length;
      assert.ok(syncs >= 2);
      assert.equal((await detail(first)).whatIf, "replay");
      // The load its cluster model offers the target (cpu-step: 20 requests/s at first).
      assert.ok(
        (await detail(first)).samples.some((sample) => sample.loadRps === 20),
        "the recorded load",
      );

      // What-if over the live history: the recorded syncs replayed with maxReplicas 1.
      const whatIf = await fetch(
        `${first.dashboard.url}/api/v1/namespaces/default/hpas/web/whatif`,
        {
          method: "POST",
          headers: { Authorization: `Bearer ${first.token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ maxReplicas: 1 }),
        },
      );
      assert.equal(whatIf.status, 200);
      const result = (await whatIf.json()) as WhatIfResult;
      assert.ok(result.original.samples.length >= syncs);
      assert.equal(result.whatIf.samples.length, result.original.samples.length);
      assert.ok(result.whatIf.samples.every((s) => s.desiredReplicas === 1));
      // The cluster model knows the pods' CPU per request: the replay's CPU is closed loop.
      assert.equal(result.loop, "closed");
    } finally {
      await first.close();
    }
    const restartedAt = Date.now();
    const second = await up(dataDir);
    try {
      // The syncs recorded before the restart are back.
      const restored = await detail(second);
      const before = restored.syncs.filter((s) => s.at < restartedAt);
      assert.ok(before.length >= syncs, `${before.length} < ${syncs}`);
    } finally {
      await second.close();
    }
  });
});
