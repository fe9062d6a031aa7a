import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  compareVictims,
  deletionCostOf,
  newReplicaSetReplicas,
  proportionalSizes,
  type ReplicaSetInfo,
  resolveFenceposts,
  scaleDownOld,
  type VictimInfo,
} from "../../src/cluster/rollout.js";
import { at } from "./builders.js";

function rs(overrides: Partial<ReplicaSetInfo> & { name: string }): ReplicaSetInfo {
  return {
    created: at(0),
    specReplicas: 0,
    availableReplicas: 0,
    maxReplicasAnnotation: null,
    ...overrides,
  };
}

describe("resolveFenceposts", () => {
  const cases = [
    {
      name: "defaults 25%/25% of 10: surge rounds up, unavailable down",
      surge: undefined,
      unavailable: undefined,
      desired: 10,
      expected: { surge: 3, unavailable: 2 },
    },
    {
      name: "25% of 1",
      surge: "25%",
      unavailable: "25%",
      desired: 1,
      expected: { surge: 1, unavailable: 0 },
    },
    {
      name: "both zero → unavailable 1",
      surge: 0,
      unavailable: 0,
      desired: 5,
      expected: { surge: 0, unavailable: 1 },
    },
    {
      name: "absolute values",
      surge: 2,
      unavailable: 1,
      desired: 10,
      expected: { surge: 2, unavailable: 1 },
    },
    {
      name: "percent of 3",
      surge: "50%",
      unavailable: "50%",
      desired: 3,
      expected: { surge: 2, unavailable: 1 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(resolveFenceposts(c.surge, c.unavailable, c.desired), c.expected);
    });
  }
});

describe("rolling update steps", () => {
  const newCases = [
    {
      name: "room for the whole surge",
      params: { replicas: 10, maxSurge: 3, maxUnavailable: 2 },
      all: 10,
      current: 0,
      expected: 3,
    },
    {
      name: "at maxTotal nothing more",
      params: { replicas: 10, maxSurge: 3, maxUnavailable: 2 },
      all: 13,
      current: 3,
      expected: 3,
    },
    {
      name: "never beyond replicas",
      params: { replicas: 4, maxSurge: 4, maxUnavailable: 0 },
      all: 4,
      current: 0,
      expected: 4,
    },
  ];
  for (const c of newCases) {
    test(`newReplicaSetReplicas: ${c.name}`, () => {
      assert.equal(newReplicaSetReplicas(c.params, c.all, c.current), c.expected);
    });
  }

  const oldCases = [
    {
      name: "new pods not available yet: only maxUnavailable old pods go",
      newRs: rs({ name: "new", specReplicas: 3, availableReplicas: 0 }),
      olds: [rs({ name: "old", specReplicas: 10, availableReplicas: 10 })],
      expected: { old: 8 },
    },
    {
      name: "unhealthy old pods go first, then healthy down to minAvailable",
      newRs: rs({ name: "new", specReplicas: 3, availableReplicas: 3 }),
      olds: [rs({ name: "old", specReplicas: 10, availableReplicas: 8 })],
      expected: { old: 5 },
    },
    {
      name: "oldest ReplicaSet is scaled down first",
      newRs: rs({ name: "new", specReplicas: 3, availableReplicas: 3 }),
      olds: [
        rs({ name: "older", created: at(0), specReplicas: 2, availableReplicas: 2 }),
        rs({ name: "newer", created: at(10), specReplicas: 8, availableReplicas: 8 }),
      ],
      expected: { older: 0, newer: 5 },
    },
  ];
  for (const c of oldCases) {
    test(`scaleDownOld: ${c.name}`, () => {
      const sizes = scaleDownOld({ replicas: 10, maxSurge: 3, maxUnavailable: 2 }, c.newRs, c.olds);
      assert.deepEqual(Object.fromEntries(sizes), c.expected);
    });
  }
});

describe("proportional scaling", () => {
  const cases = [
    {
      // The Deployment documentation's example: 10 replicas, maxSurge 3, stuck rollout with 8 old
      // and 5 new; scaled to 15 → 3 more for the old ReplicaSet and 2 for the new one.
      name: "documentation example, 10 → 15",
      replicas: 15,
      active: [
        rs({ name: "old", created: at(0), specReplicas: 8, maxReplicasAnnotation: 13 }),
        rs({ name: "new", created: at(60), specReplicas: 5, maxReplicasAnnotation: 13 }),
      ],
      expected: { old: 11, new: 7 },
    },
    {
      // allowed 5 + 2 = 7 of 13: old 8×7/13 ≈ 4.3 → 4, new 5×7/13 ≈ 2.7 → 3.
      name: "scale down 10 → 5: each share rounded",
      replicas: 5,
      active: [
        rs({ name: "old", created: at(0), specReplicas: 8, maxReplicasAnnotation: 13 }),
        rs({ name: "new", created: at(60), specReplicas: 5, maxReplicasAnnotation: 13 }),
      ],
      expected: { old: 4, new: 3 },
    },
    {
      name: "equal sizes scaling up: the newer gets the rounding",
      replicas: 3,
      active: [
        rs({ name: "old", created: at(0), specReplicas: 1, maxReplicasAnnotation: 2 }),
        rs({ name: "new", created: at(60), specReplicas: 1, maxReplicasAnnotation: 2 }),
      ],
      expected: { old: 2, new: 2 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const maxSurge = resolveFenceposts("25%", "25%", c.replicas).surge;
      const sizes = proportionalSizes({
        replicas: c.replicas,
        maxSurge: c.name.startsWith("documentation") ? 3 : maxSurge,
        statusReplicas: 13,
        active: c.active,
      });
      assert.deepEqual(Object.fromEntries(sizes), c.expected);
    });
  }

  test("property: the active ReplicaSets end up with replicas + maxSurge in total (never negative)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 5 }),
        (sizes, replicas, maxSurge) => {
          const before = sizes.reduce((a, b) => a + b, 0);
          const active = sizes.map((n, i) =>
            rs({ name: `rs${i}`, created: at(i), specReplicas: n, maxReplicasAnnotation: before }),
          );
          const out = proportionalSizes({ replicas, maxSurge, statusReplicas: before, active });
          const total = [...out.values()].reduce((a, b) => a + b, 0);
          return [...out.values()].every((n) => n >= 0) && total >= replicas + maxSurge;
        },
      ),
    );
  });
});

describe("ReplicaSet scale-down victim order", () => {
  const base: VictimInfo = {
    uid: "m",
    assigned: true,
    phase: "Running",
    ready: true,
    deletionCost: 0,
    readySince: at(0),
    restarts: 0,
    created: at(0),
  };
  const now = at(3600);
  const cases = [
    {
      name: "unscheduled before scheduled",
      a: { assigned: false, phase: "Pending", ready: false },
      b: {},
    },
    { name: "pending before running", a: { phase: "Pending", ready: false }, b: {} },
    { name: "unready before ready", a: { ready: false, readySince: null }, b: {} },
    { name: "lower deletion cost first", a: { deletionCost: -5 }, b: { deletionCost: 10 } },
    {
      name: "deletion cost beats recency",
      a: { deletionCost: 1, readySince: at(0) },
      b: { deletionCost: 2, readySince: at(3500) },
    },
    {
      name: "more recently ready first (log buckets)",
      a: { readySince: at(3590) },
      b: { readySince: at(0) },
    },
    {
      name: "newer pod first when ready times tie",
      a: { created: at(3500), readySince: at(100) },
      b: { created: at(0), readySince: at(100) },
    },
    {
      name: "same log bucket: by UID",
      a: { uid: "a", readySince: at(3000) },
      b: { uid: "b", readySince: at(2990) },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const a = { ...base, ...c.a } as VictimInfo;
      const b = { ...base, ...c.b } as VictimInfo;
      assert.ok(compareVictims(a, b, now) < 0, "a goes first");
      assert.ok(compareVictims(b, a, now) > 0, "and not b");
    });
  }

  const costCases = [
    { name: "absent", annotations: undefined, expected: 0 },
    {
      name: "negative",
      annotations: { "controller.kubernetes.io/pod-deletion-cost": "-100" },
      expected: -100,
    },
    {
      name: "not a number",
      annotations: { "controller.kubernetes.io/pod-deletion-cost": "x" },
      expected: 0,
    },
  ];
  for (const c of costCases) {
    test(`deletion cost annotation: ${c.name}`, () => {
      assert.equal(deletionCostOf(c.annotations), c.expected);
    });
  }
});
