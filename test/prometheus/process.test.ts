// Prometheus as `horizon up --prometheus`'s child (src/prometheus/process.ts): one that dies is
// started again, after a back-off, on the same data directory and address, and says so in the
// log and through notReady() (which /readyz lists); a deliberate stop is not restarted.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type PrometheusProcess, startPrometheus } from "../../src/prometheus/process.js";
import { PROMETHEUS_BIN, prometheusSkip } from "./real-prometheus.js";

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ready = (url: string) =>
  fetch(`${url}/-/ready`).then(
    (r) => r.ok,
    () => false,
  );

describe("a Prometheus child that dies", { skip: prometheusSkip("prometheus process") }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "horizon-prom-restart-"));
  const lines: string[] = [];
  let prometheus: PrometheusProcess | undefined;
  after(async () => {
    await prometheus?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is started again with back-off on its data directory, and says so", async () => {
    const started = await startPrometheus({
      config: "global:\n  scrape_interval: 1s\n",
      dataDir,
      binary: PROMETHEUS_BIN ?? "prometheus",
      restartBackoffMs: { initial: 200, max: 400 },
      log: (line) => lines.push(line),
    });
    assert.ok(started.ok, started.ok ? "" : started.error);
    prometheus = started.value;
    const { url } = prometheus;
    assert.equal(prometheus.notReady(), null);
    const firstPid = prometheus.pid;
    assert.ok(firstPid);

    process.kill(firstPid, "SIGKILL");
    const why = await until("notReady() to say it is down", () => prometheus?.notReady());
    assert.match(why, /prometheus killed by SIGKILL; restarting/);
    await until("the restart", () => prometheus?.notReady() === null && prometheus.restarts === 1);
    assert.ok(await ready(url), "the same address answers again");
    assert.notEqual(prometheus.pid, firstPid);
    assert.ok(existsSync(join(dataDir, "data")), "the TSDB directory is kept");
    assert.ok(
      lines.some((l) => /restarting it in 0\.2s \(its data in .* kept\)/.test(l)),
      lines.join("\n"),
    );
    assert.ok(
      lines.some((l) => l.startsWith("prometheus is back (restart 1)")),
      lines.join("\n"),
    );

    // A second quick death waits twice as long (the cap is 0.4 s here).
    process.kill(prometheus.pid ?? 0, "SIGKILL");
    await until(
      "the second restart",
      () => prometheus?.notReady() === null && prometheus.restarts === 2,
    );
    assert.ok(
      lines.some((l) => /restarting it in 0\.4s/.test(l)),
      lines.join("\n"),
    );
  });

  it("is not restarted after a stop", async () => {
    const stopped = prometheus;
    assert.ok(stopped);
    const restarts = stopped.restarts;
    await stopped.stop();
    prometheus = undefined;
    // An absence: wait longer than the longest back-off (0.4 s) and check nothing came back.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(await ready(stopped.url), false);
    assert.equal(stopped.restarts, restarts);
  });
});
