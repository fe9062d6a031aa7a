// `horizon explain` on syncs where a `horizon.dev/` extension acted: the facts carry each rule,
// and the text, note and HTML say what upstream's algorithm decided and what the rule did.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultControllerConfig } from "../../src/core/config.js";
import { syncExtendedOnce } from "../../src/core/extensions/sync.js";
import { EMPTY_HISTORY } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
import { formatExplanation } from "../../src/explain/decisions.js";
import {
  explain,
  explanationHtml,
  explanationNote,
  explanationText,
} from "../../src/explain/index.js";
import { cpuUsage, hpa, pods, t } from "../core/builders.js";

function explained(annotations: Record<string, string>) {
  const base = hpa();
  const list = pods(4);
  const usage = Object.fromEntries(list.map((p) => [p.name, 100]));
  const result = syncExtendedOnce({
    now: t(15),
    hpa: { ...base, metadata: { ...base.metadata, annotations } },
    scale: { ok: true, specReplicas: 4, statusReplicas: 4, selector: "app=web" },
    pods: list,
    observations: [resourceObservation(cpuUsage(usage, t(15)), "cpu")],
    history: EMPTY_HISTORY,
    config: defaultControllerConfig(),
  });
  return explain(result.trace);
}

describe("explain: extensions", () => {
  it("a dry run: the facts, the last bullet, the note and the HTML", () => {
    const e = explained({ "horizon.dev/dry-run": "true" });
    assert.deepEqual(
      e.extensions?.map((x) => [x.annotation, x.reason, x.upstreamReplicas, x.replicas]),
      [["horizon.dev/dry-run", "DryRun", 8, 4]],
    );
    const text = explanationText(e);
    assert.equal(
      text.at(-1),
      "Extension horizon.dev/dry-run (DryRun): dry run (horizon.dev/dry-run): would scale from 4 to 8; reason: cpu resource utilization (percentage of request) above target (upstream's algorithm: 8; with the extension: 4).",
    );
    assert.equal(explanationNote(e), "DryRun (horizon.dev/dry-run)");
    assert.match(explanationHtml(e), /<li>Extension horizon\.dev\/dry-run \(DryRun\)/);
  });

  it("without annotations there is no extension fact or line", () => {
    const e = explained({});
    assert.equal(e.extensions, undefined);
    assert.ok(!explanationText(e).some((line) => line.startsWith("Extension")));
  });

  it("a scheduled floor: the range, the limit, and the condition and Event in horizon explain", () => {
    const now = Date.parse("2026-11-24T02:15:00Z");
    const base = hpa({ minReplicas: 2 });
    const annotations = {
      "horizon.dev/schedule": JSON.stringify([
        { cron: "0 2 * * *", duration: "1h", minReplicas: 6 },
      ]),
    };
    const list = pods(6);
    const usage = Object.fromEntries(list.map((p) => [p.name, 20]));
    const result = syncExtendedOnce({
      now,
      hpa: { ...base, metadata: { ...base.metadata, annotations } },
      scale: { ok: true, specReplicas: 6, statusReplicas: 6, selector: "app=web" },
      pods: list,
      observations: [resourceObservation(cpuUsage(usage, now), "cpu")],
      history: { ...EMPTY_HISTORY, recommendations: [{ replicas: 6, timestamp: now - 600_000 }] },
      config: defaultControllerConfig(),
    });
    const text = explanationText(explain(result.trace));
    assert.match(text[0]!, /minReplicas 6 \(scheduled by horizon\.dev\/schedule\), maxReplicas 10/);
    assert.ok(
      text.includes(
        "Limits: raised to the scheduled minReplicas 6 of horizon.dev/schedule (ScheduledMinimum).",
      ),
      text.join("\n"),
    );
    const page = formatExplanation(
      "default",
      "web",
      {
        description: "a test",
        records: [
          {
            trace: result.trace,
            conditions: result.status.conditions ?? [],
            events: result.events,
            error: result.error,
          },
        ],
      },
      10,
      now,
    );
    assert.match(
      page,
      /ScalingLimited +True +ScheduledMinimum +the desired replica count is less than the scheduled minimum replica count 6 \(a window of horizon\.dev\/schedule open until 2026-11-24T03:00:00Z\)/,
    );
    assert.match(
      page,
      /Normal +ScheduleActive +a window of horizon\.dev\/schedule open until 2026-11-24T03:00:00Z: minReplicas is 6 \(spec: 2\)/,
    );
  });

  it("knobs: the overrides in the trace, the condition and the Event in horizon explain", () => {
    const base = hpa();
    const list = pods(4);
    const usage = Object.fromEntries(list.map((p) => [p.name, 70]));
    const result = syncExtendedOnce({
      now: t(15),
      hpa: {
        ...base,
        metadata: { ...base.metadata, annotations: { "horizon.dev/tolerance": "0.5" } },
      },
      scale: { ok: true, specReplicas: 4, statusReplicas: 4, selector: "app=web" },
      pods: list,
      observations: [resourceObservation(cpuUsage(usage, t(15)), "cpu")],
      history: EMPTY_HISTORY,
      config: defaultControllerConfig(),
    });
    const record = {
      trace: result.trace,
      conditions: result.status.conditions ?? [],
      events: result.events,
      error: result.error,
    };
    const page = formatExplanation(
      "default",
      "web",
      { description: "a test", records: [record] },
      10,
      t(15),
    );
    assert.match(
      page,
      /Extension horizon\.dev\/tolerance \(Override\): --horizontal-pod-autoscaler-tolerance is 0\.5 for this HPA \(controller: 0\.1\)\./,
    );
    assert.match(
      page,
      /ScalingActive +True +ValidMetricFound +.*\(per-HPA tolerance 0\.5: horizon\.dev annotations\)/,
    );
    assert.match(
      page,
      /Normal +Override +per-HPA overrides of controller flags: horizon\.dev\/tolerance: /,
    );
  });
});
