import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatTime } from "../../src/core/conditions.js";

/** What formatTime must equal: Date's ISO form at whole seconds, without the milliseconds. */
const iso = (ms: number) =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

describe("formatTime", () => {
  it("formats as RFC 3339 at whole seconds", () => {
    assert.equal(formatTime(Date.UTC(2026, 0, 1, 0, 0, 0)), "2026-01-01T00:00:00Z");
    assert.equal(formatTime(Date.UTC(2026, 0, 1, 23, 59, 59, 999)), "2026-01-01T23:59:59Z");
    assert.equal(formatTime(Date.UTC(2026, 0, 2, 9, 5, 7, 1)), "2026-01-02T09:05:07Z");
    assert.equal(formatTime(-1), "1969-12-31T23:59:59Z");
  });

  it("agrees with Date at any instant, in any order (its caches never leak)", () => {
    const instant = fc.oneof(
      // Seconds around a few days, so consecutive calls often share a day or a second.
      fc.integer({ min: 0, max: 3 * 86_400_000 }).map((ms) => Date.UTC(2026, 0, 1) + ms),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((s) => s * 1000 + 999),
      fc.constantFrom(-8.64e15, 8.64e15, -62_167_219_200_000, 253_402_300_799_000),
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of instants) assert.equal(formatTime(ms), iso(ms), String(ms));
      }),
    );
  });
});
