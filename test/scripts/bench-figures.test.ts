// The benchmarks judge a figure as they print it (bench/figures.ts): "2.000 req" meets "≤ 2 req".
import assert from "node:assert/strict";
import { it } from "node:test";
import { meetsTarget, shownText } from "../../bench/figures.js";

it("a figure printed as its target meets it; one printed beyond it does not", () => {
  // The controller bench's requests per sync: 6,001 requests over 3,000 syncs (a sync in flight
  // as the window closed) print as 2.000.
  const perSync = 6001 / 3000;
  assert.equal(shownText(perSync, 3), "2.000");
  assert.equal(meetsTarget(perSync, 2, "max", 3), true);
  assert.equal(meetsTarget(2.0006, 2, "max", 3), false, "printed 2.001");
  assert.equal(meetsTarget(15.996, 16, "max"), true, "printed 16.00");
  assert.equal(meetsTarget(512.4, 512, "max"), true, "printed 512");
  assert.equal(meetsTarget(512.6, 512, "max"), false, "printed 513");
  assert.equal(meetsTarget(999.6, 1000, "min"), true, "printed 1,000");
  assert.equal(meetsTarget(998.4, 1000, "min"), false);
  assert.equal(shownText(1234.4), "1,234");
});
