// The dashboard's HTTP API over a real socket: the bearer token or a session cookie is needed
// for everything but the login page; the one-time link works once and leaves no secret in the
// URL; the JSON documents and the event stream carry the recorded syncs.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import { decisionRecordOf } from "../../src/controller/decisions.js";
import { DashboardData, type HpaLister, targetsOfTrace } from "../../src/web/data.js";
import { HpaHistory } from "../../src/web/history.js";
import {
  DashboardAuth,
  type RunningDashboard,
  startDashboardServer,
} from "../../src/web/server.js";
import type { HpaDetail, OverviewDocument, SyncDetail } from "../../src/web/types.js";
import { syncReport } from "../controller/sync-reports.js";

const TOKEN = "s3cret-token";

/** An informer's view, as a map the test edits. */
function lister(): HpaLister & { put(hpa: HorizontalPodAutoscaler): void } {
  const items = new Map<string, HorizontalPodAutoscaler>();
  const listeners = new Set<(key: string, hpa: HorizontalPodAutoscaler | null) => void>();
  return {
    list: () => [...items.values()],
    get: (key) => items.get(key),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    put(hpa) {
      const key = `${hpa.metadata.namespace}/${hpa.metadata.name}`;
      items.set(key, hpa);
      for (const listener of listeners) listener(key, hpa);
    },
  };
}

describe("the dashboard server", () => {
  let dashboard: RunningDashboard;
  let history: HpaHistory;
  const hpas = lister();
  const assetsDir = mkdtempSync(join(tmpdir(), "horizon-assets-"));
  writeFileSync(join(assetsDir, "app.js"), "console.log('app')");

  before(async () => {
    history = new HpaHistory({ capacity: 10, clock: { now: Date.now } });
    const observation = syncReport({ replicas: 4, cpuPerPodMilli: 100, maxReplicas: 20 });
    hpas.put({
      ...observation.hpa,
      status: {
        currentReplicas: 4,
        desiredReplicas: 8,
        currentMetrics: [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 100 } } },
        ],
      },
    });
    history.record(decisionRecordOf(observation.result!));
    dashboard = await startDashboardServer({
      host: "127.0.0.1",
      port: 0,
      data: new DashboardData({ history, hpas, source: "test" }),
      auth: new DashboardAuth(TOKEN),
      assetsDir,
    });
  });
  after(() => dashboard.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${dashboard.url}${path}`, { headers, redirect: "manual" });
  const bearer = { Authorization: `Bearer ${TOKEN}` };

  it("answers 401 to requests without credentials or with a wrong token", async () => {
    for (const path of ["/", "/api/v1/hpas", "/api/v1/events", "/assets/app.js", "/hpas/x/y"]) {
      const res = await get(path);
      assert.equal(res.status, 401, path);
      await res.body?.cancel();
    }
    const wrong = await get("/api/v1/hpas", { Authorization: "Bearer nope" });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /Unauthorized/);
    const page = await get("/");
    assert.match(await page.text(), /<form method="post" action="\/login">/);
  });

  it("logs a browser in once per link, into a cookie, with no secret left in a URL", async () => {
    const link = dashboard.loginUrl();
    assert.ok(!link.includes(TOKEN), "the link carries a ticket, not the token");
    const first = await fetch(link, { redirect: "manual" });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get("location"), "/");
    const cookie = first.headers.get("set-cookie") ?? "";
    assert.match(cookie, /^horizon_session=[^;]+; HttpOnly; SameSite=Strict; Path=\//);
    assert.ok(!cookie.includes(TOKEN));
    const again = await fetch(link, { redirect: "manual" });
    assert.equal(again.status, 401);
    assert.match(await again.text(), /already used/);

    const session = cookie.split(";")[0]!;
    const overview = await get("/api/v1/hpas", { Cookie: session });
    assert.equal(overview.status, 200);
    await overview.body?.cancel();
    const forged = await get("/api/v1/hpas", { Cookie: "horizon_session=forged" });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();

    const logout = await fetch(`${dashboard.url}/logout`, {
      method: "POST",
      headers: { Cookie: session },
      redirect: "manual",
    });
    assert.equal(logout.status, 303);
    const afterLogout = await get("/api/v1/hpas", { Cookie: session });
    assert.equal(afterLogout.status, 401);
    await afterLogout.body?.cancel();
  });

  it("logs in with the token posted by the login form (not in the URL)", async () => {
    const post = (token: string) =>
      fetch(`${dashboard.url}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
        redirect: "manual",
      });
    const ok = await post(TOKEN);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/");
    assert.match(ok.headers.get("set-cookie") ?? "", /^horizon_session=/);
    const bad = await post("guess");
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get("set-cookie"), null);
    await bad.body?.cancel();
  });

  it("lists the HPAs as kubectl prints them, with the recorded replicas", async () => {
    const res = await get("/api/v1/hpas", bearer);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as OverviewDocument;
    assert.equal(doc.source, "test");
    assert.equal(doc.hpas.length, 1);
    const row = doc.hpas[0]!;
    assert.equal(`${row.namespace}/${row.name}`, "default/web");
    assert.equal(row.reference, "Deployment/web");
    assert.equal(row.targets, "cpu: 100%/50%");
    assert.equal(row.currentReplicas, 4);
    assert.equal(row.desiredReplicas, 8);
    assert.deepEqual(row.sparkline, [8]);
  });

  it("prints TARGETS from the last sync's trace while the status has no current metrics", () => {
    const history = new HpaHistory({ capacity: 2, clock: { now: Date.now } });
    const record = history.record(
      decisionRecordOf(syncReport({ replicas: 4, cpuPerPodMilli: 100 }).result!),
    );
    assert.equal(targetsOfTrace(record), "cpu: 100%/50%");
    const data = new DashboardData({ history, hpas: lister(), source: "test" });
    assert.equal(data.summary("default/web")?.targets, "cpu: 100%/50%");
  });

  it("serves one HPA's samples and each sync explained in words", async () => {
    const res = await get("/api/v1/namespaces/default/hpas/web", bearer);
    const detail = (await res.json()) as HpaDetail;
    assert.equal(detail.samples.length, 1);
    assert.equal(detail.syncs[0]!.desiredReplicas, 8);
    assert.match(detail.syncs[0]!.reason, /cpu resource utilization/);
    assert.ok(detail.events.some((e) => e.reason === "SuccessfulRescale"));
    const sync = await get(
      `/api/v1/namespaces/default/hpas/web/syncs/${detail.syncs[0]!.seq}`,
      bearer,
    );
    const explained = (await sync.json()) as SyncDetail;
    assert.equal(explained.explanation.recommendation?.replicas, 8);
    assert.ok(
      explained.text.some((line) => /cpu resource utilization/.test(line)),
      explained.text.join("\n"),
    );
    const missing = await get("/api/v1/namespaces/default/hpas/nope", bearer);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const badSeq = await get("/api/v1/namespaces/default/hpas/web/syncs/x", bearer);
    assert.equal(badSeq.status, 400);
    assert.match(await badSeq.text(), /sync: must be an integer/);
  });

  it("streams new syncs and changed rows as server-sent events", async () => {
    const ac = new AbortController();
    const res = await fetch(`${dashboard.url}/api/v1/events`, {
      headers: bearer,
      signal: ac.signal,
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // The stream is open ("connected" comes first); then a sync is recorded.
    while (!text.includes(": connected")) text += decoder.decode((await reader.read()).value);
    history.record(decisionRecordOf(syncReport({ replicas: 8, cpuPerPodMilli: 50 }).result!));
    const deadline = Date.now() + 5000;
    while (!(text.includes("event: sync") && text.includes("event: hpa"))) {
      assert.ok(Date.now() < deadline, `no events in ${text}`);
      text += decoder.decode((await reader.read()).value);
    }
    const sync = /event: sync\ndata: (.*)\n/.exec(text);
    const data = JSON.parse(sync![1]!) as { key: string; sample: { currentReplicas: number } };
    assert.equal(data.key, "default/web");
    assert.equal(data.sample.currentReplicas, 8);
    ac.abort();
  });

  it("serves the bundle, and says how to build it when it is missing", async () => {
    const js = await get("/assets/app.js", bearer);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type") ?? "", /^text\/javascript/);
    assert.match(js.headers.get("content-security-policy") ?? "", /script-src 'self'/);
    assert.equal(await js.text(), "console.log('app')");
    const css = await get("/assets/app.css", bearer);
    assert.equal(css.status, 503);
    assert.match(await css.text(), /npm run build:web/);
    const page = await get("/hpas/default/web", bearer);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module" src="\/assets\/app.js">/);
  });
});
