import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergePatch } from "../../src/api/patch/merge-patch.js";
import { strategicMergePatch } from "../../src/api/patch/strategic-merge-patch.js";
import { modelRps, trafficAt } from "../../src/cluster/traffic.js";
import { podTemplatePatchMeta } from "../../src/kinds/patchmeta.js";
import { noise, streamSeed } from "../../src/registry/random.js";
import type { TrafficModel } from "../../src/sim/scenario-types.js";

describe("traffic models", () => {
  const cases: { name: string; model: TrafficModel; t: number; expected: number }[] = [
    { name: "constant", model: { type: "constant", rps: 7 }, t: 123, expected: 7 },
    {
      name: "step before the first",
      model: { type: "step", initial: 1, steps: [{ atMs: 1000, rps: 5 }] },
      t: 999,
      expected: 1,
    },
    {
      name: "step at its time",
      model: {
        type: "step",
        initial: 1,
        steps: [
          { atMs: 1000, rps: 5 },
          { atMs: 2000, rps: 9 },
        ],
      },
      t: 1000,
      expected: 5,
    },
    {
      name: "step after the last",
      model: {
        type: "step",
        initial: 1,
        steps: [
          { atMs: 1000, rps: 5 },
          { atMs: 2000, rps: 9 },
        ],
      },
      t: 5000,
      expected: 9,
    },
    {
      name: "ramp before",
      model: { type: "ramp", from: 10, to: 20, startMs: 1000, endMs: 2000 },
      t: 0,
      expected: 10,
    },
    {
      name: "ramp middle",
      model: { type: "ramp", from: 10, to: 20, startMs: 1000, endMs: 2000 },
      t: 1500,
      expected: 15,
    },
    {
      name: "ramp after",
      model: { type: "ramp", from: 10, to: 20, startMs: 1000, endMs: 2000 },
      t: 9000,
      expected: 20,
    },
    {
      name: "sine quarter period",
      model: { type: "sine", base: 100, amplitude: 50, periodMs: 4000, phaseMs: 0 },
      t: 1000,
      expected: 150,
    },
    {
      name: "sine with phase",
      model: { type: "sine", base: 100, amplitude: 50, periodMs: 4000, phaseMs: 1000 },
      t: 1000,
      expected: 100,
    },
    {
      name: "spike inside",
      model: { type: "spike", base: 1, peak: 9, atMs: 100, durationMs: 50 },
      t: 100,
      expected: 9,
    },
    {
      name: "spike end is exclusive",
      model: { type: "spike", base: 1, peak: 9, atMs: 100, durationMs: 50 },
      t: 150,
      expected: 1,
    },
    {
      name: "replay interpolates",
      model: {
        type: "replay",
        source: "x.csv",
        points: [
          { atMs: 0, rps: 0 },
          { atMs: 1000, rps: 10 },
        ],
      },
      t: 250,
      expected: 2.5,
    },
    {
      name: "replay holds after the end",
      model: {
        type: "replay",
        source: "x.csv",
        points: [
          { atMs: 0, rps: 0 },
          { atMs: 1000, rps: 10 },
        ],
      },
      t: 5000,
      expected: 10,
    },
    ...[
      { name: "held: a row's rate for its interval", t: 59_999, expected: 4 },
      { name: "held: a missing row is 0 (a gap)", t: 60_000, expected: 0 },
      { name: "held: the next row after the gap", t: 120_000, expected: 6 },
      { name: "held: before the first row is 0", t: -1, expected: 0 },
      { name: "held: after the last row's interval is 0", t: 180_000, expected: 0 },
    ].map((c) => ({
      ...c,
      model: {
        type: "replay" as const,
        source: "m.csv",
        points: [
          { atMs: 0, rps: 4 },
          { atMs: 120_000, rps: 6 },
        ],
        holdMs: 60_000,
      },
    })),
    {
      name: "offset: the trace's time at t=0 (held)",
      model: {
        type: "replay",
        source: "m.csv",
        points: [
          { atMs: 0, rps: 4 },
          { atMs: 60_000, rps: 5 },
          { atMs: 120_000, rps: 6 },
        ],
        holdMs: 60_000,
        offsetMs: 60_000,
      },
      t: 60_000,
      expected: 6,
    },
    {
      name: "offset: interpolated",
      model: {
        type: "replay",
        source: "x.csv",
        points: [
          { atMs: 0, rps: 0 },
          { atMs: 1000, rps: 10 },
        ],
        offsetMs: 500,
      },
      t: 0,
      expected: 5,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.ok(Math.abs(modelRps(c.model, c.t) - c.expected) < 1e-9, `${modelRps(c.model, c.t)}`);
    });
  }

  test("several models add up and the total never goes below zero", () => {
    assert.equal(
      trafficAt(
        [
          { type: "constant", rps: 3 },
          { type: "constant", rps: 4 },
        ],
        0,
      ),
      7,
    );
    assert.equal(
      trafficAt([{ type: "sine", base: 0, amplitude: 10, periodMs: 4000, phaseMs: 0 }], 3000),
      0,
    );
  });
});

describe("seeded streams", () => {
  test("depend on the seed and the identity only", () => {
    assert.equal(noise(streamSeed(1, "pod/a"), 5), noise(streamSeed(1, "pod/a"), 5));
    assert.notEqual(noise(streamSeed(1, "pod/a"), 5), noise(streamSeed(2, "pod/a"), 5));
    assert.notEqual(noise(streamSeed(1, "pod/a"), 5), noise(streamSeed(1, "pod/b"), 5));
  });
});

describe("patches", () => {
  test("merge patch: objects merge, null deletes, lists replace", () => {
    assert.deepEqual(
      mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] }),
      {
        a: 1,
        b: { d: 3, e: 4 },
        l: [3],
      },
    );
  });
  test("strategic merge: containers merge by name", () => {
    const template = {
      spec: {
        containers: [
          { name: "app", image: "v1", ports: [1] },
          { name: "side", image: "s" },
        ],
      },
    };
    assert.deepEqual(
      strategicMergePatch(
        template,
        { spec: { containers: [{ name: "app", image: "v2" }] } },
        podTemplatePatchMeta("Deployment"),
      ),
      {
        ok: true,
        value: {
          spec: {
            containers: [
              { name: "app", image: "v2", ports: [1] },
              { name: "side", image: "s" },
            ],
          },
        },
      },
    );
  });
});
