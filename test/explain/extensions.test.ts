// `horizon explain` on syncs where a `horizon.dev/` extension acted: the facts carry each rule,
// and the text, note and HTML say what upstream's algorithm decided and what the rule did.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultControllerConfig } from "../../src/core/config.js";
import { syncExtendedOnce } from "../../src/core/extensions/sync.js";
import { EMPTY_HISTORY } from "../../src/core/history.js";
import { resourceObservation } from "../../src/core/sources/resource-usage.js";
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
});
