// Structured JSON logs: one object per line, klog-style verbosity, safe field values, and
// upstream's sync messages at their levels.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLogger, logSync } from "../../src/controller/log.js";
import { syncReport } from "./sync-reports.js";

function capture(verbosity: number) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    verbosity,
    write: (line) => lines.push(JSON.parse(line)),
    now: () => Date.UTC(2026, 0, 1, 12, 0, 0, 5),
  });
  return { log, lines };
}

describe("createLogger", () => {
  it("writes ts, level, msg, v and the fields", () => {
    const { log, lines } = capture(0);
    log.info("Starting HPA controller", { workers: 5 });
    log.warn("another controller writes these HPAs", { hpas: ["default/web"] });
    log.error("Sync error", new Error("boom"), { HPA: "default/web" });
    assert.deepEqual(lines, [
      {
        ts: "2026-01-01T12:00:00.005Z",
        level: "info",
        msg: "Starting HPA controller",
        v: 0,
        workers: 5,
      },
      {
        ts: "2026-01-01T12:00:00.005Z",
        level: "warn",
        msg: "another controller writes these HPAs",
        hpas: ["default/web"],
      },
      {
        ts: "2026-01-01T12:00:00.005Z",
        level: "error",
        msg: "Sync error",
        HPA: "default/web",
        err: "boom",
      },
    ]);
  });

  const verbosityTable = [
    { name: "-v 0 prints V(0) only", verbosity: 0, printed: [0] },
    { name: "-v 4 prints up to V(4)", verbosity: 4, printed: [0, 2, 4] },
    { name: "-v 10 prints all", verbosity: 10, printed: [0, 2, 4, 6] },
  ];
  for (const c of verbosityTable) {
    it(c.name, () => {
      const { log, lines } = capture(c.verbosity);
      for (const level of [0, 2, 4, 6]) log.v(level).info(`at ${level}`);
      assert.deepEqual(
        lines.map((l) => l.v),
        c.printed,
      );
      assert.equal(log.v(4).enabled, c.verbosity >= 4);
    });
  }

  it("keeps the envelope, and makes values JSON-safe", () => {
    const { log, lines } = capture(0);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    log.with({ component: "hpa" }).info("fields", {
      msg: "not the message",
      level: "x",
      big: 12n,
      inf: Number.POSITIVE_INFINITY,
      cycle,
      gone: undefined,
    });
    assert.deepEqual(lines[0], {
      ts: "2026-01-01T12:00:00.005Z",
      level: "info",
      msg: "fields",
      v: 0,
      component: "hpa",
      _msg: "not the message",
      _level: "x",
      big: "12",
      inf: "Infinity",
      cycle: { a: 1, self: "[Circular]" },
    });
  });
});

describe("logSync", () => {
  it("a rescale at V(0), upstream's words", () => {
    const { log, lines } = capture(0);
    logSync(log, syncReport({ replicas: 2, cpuPerPodMilli: 100 }));
    assert.deepEqual(
      lines.map((l) => [l.msg, l.HPA, l.currentReplicas, l.desiredReplicas, l.reason]),
      [
        [
          "Successfully rescaled",
          "default/web",
          2,
          4,
          "cpu resource utilization (percentage of request) above target",
        ],
      ],
    );
  });

  it("no rescale: V(4) lines only; errors always", () => {
    const quiet = capture(0);
    logSync(quiet.log, syncReport({ replicas: 2, cpuPerPodMilli: 50 }));
    assert.deepEqual(quiet.lines, []);
    const verbose = capture(4);
    logSync(verbose.log, syncReport({ replicas: 2, cpuPerPodMilli: 50 }));
    assert.deepEqual(
      verbose.lines.map((l) => l.msg),
      ["Proposing desired replicas", "Decided not to scale"],
    );
    const failed = capture(0);
    logSync(failed.log, syncReport({ scaleError: "not found" }));
    logSync(failed.log, syncReport({ thrown: new Error("boom") }));
    assert.deepEqual(
      failed.lines.map((l) => [l.level, l.msg, l.err]),
      [
        [
          "error",
          "Sync error",
          "failed to query scale subresource for Deployment/default/web: not found",
        ],
        ["error", "Sync failed", "boom"],
      ],
    );
  });
});
