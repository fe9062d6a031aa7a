import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { checkAssertions, MEASURES, parseAssertion } from "../../src/sim/assertions.js";
import type { HpaSummary, SummaryRecord } from "../../src/sim/timeline.js";

function hpa(fields: Partial<HpaSummary> & { hpa: string }): HpaSummary {
  return {
    minReplicas: 1,
    maxReplicas: 10,
    lowestReplicas: 1,
    highestReplicas: 7,
    finalReplicas: 1,
    podHours: 2.5,
    scaleUps: 3,
    scaleDowns: 2,
    flaps: 0,
    unmetDemandPodSeconds: 45,
    unmetDemandSeconds: 30,
    timeToMeetDemandSeconds: [30, 15],
    loadSteps: [
      { t: 10, fromRps: 1, toRps: 5 },
      { t: 100, fromRps: 1, toRps: 5 },
    ],
    meanUtilization: 48.25,
    targetUtilization: 50,
    actions: [],
    ...fields,
  };
}

const summary: SummaryRecord = {
  type: "summary",
  hpas: [
    hpa({ hpa: "default/web" }),
    hpa({
      hpa: "shop/api",
      highestReplicas: 9,
      timeToMeetDemandSeconds: [null],
      meanUtilization: null,
    }),
  ],
};

describe("parseAssertion", () => {
  const valid = [
    {
      name: "measure, operator, number",
      expr: "maxReplicas<=8",
      assertion: { text: "maxReplicas<=8", hpa: null, measure: "maxReplicas", op: "<=", value: 8 },
    },
    {
      name: "blanks are allowed around the parts",
      expr: "  unmetDemandSeconds  <  60 ",
      assertion: {
        text: "unmetDemandSeconds  <  60",
        hpa: null,
        measure: "unmetDemandSeconds",
        op: "<",
        value: 60,
      },
    },
    {
      name: "an HPA prefix by name",
      expr: "hpa/web:finalReplicas==1",
      assertion: {
        text: "hpa/web:finalReplicas==1",
        hpa: "web",
        measure: "finalReplicas",
        op: "==",
        value: 1,
      },
    },
    {
      name: "an HPA prefix with namespace, a decimal",
      expr: "hpa/shop/api:podHours>=0.5",
      assertion: {
        text: "hpa/shop/api:podHours>=0.5",
        hpa: "shop/api",
        measure: "podHours",
        op: ">=",
        value: 0.5,
      },
    },
    {
      name: "!= and >",
      expr: "flaps!=3",
      assertion: { text: "flaps!=3", hpa: null, measure: "flaps", op: "!=", value: 3 },
    },
  ];
  for (const c of valid) {
    test(c.name, () =>
      assert.deepEqual(parseAssertion(c.expr), { ok: true, assertion: c.assertion }),
    );
  }

  const invalid = [
    { name: "unknown measure", expr: "maxReplica<=8", mentions: ['unknown measure "maxReplica"'] },
    { name: "single =", expr: "flaps=0", mentions: ['operator "="'] },
    { name: "=< is not an operator", expr: "flaps=<0", mentions: ['operator "=<"'] },
    { name: "no operator", expr: "flaps 0", mentions: ["no comparison operator"] },
    { name: "no number", expr: "flaps==", mentions: ['no number after "=="'] },
    { name: "not a number", expr: "flaps==8x", mentions: ['"8x" is not a number'] },
    { name: "no measure", expr: "<=8", mentions: ['no measure before "<="'] },
    { name: "bad prefix", expr: "pod/web:flaps==0", mentions: ['prefix "pod/web"'] },
    {
      name: "prefix with too many parts",
      expr: "hpa/a/b/c:flaps==0",
      mentions: ['prefix "hpa/a/b/c"'],
    },
    { name: "empty", expr: "  ", mentions: ["empty"] },
  ];
  for (const c of invalid) {
    test(`error: ${c.name}`, () => {
      const result = parseAssertion(c.expr);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.ok(result.error.startsWith(`assertion "${c.expr}": `), result.error);
      for (const m of c.mentions) assert.ok(result.error.includes(m), result.error);
    });
  }

  test("property: every measure with every operator parses back to its parts", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(MEASURES)),
        fc.constantFrom("<", "<=", ">", ">=", "==", "!="),
        fc.integer({ min: -1000, max: 100000 }),
        (measure, op, value) => {
          const r = parseAssertion(`${measure}${op}${value}`);
          assert.ok(r.ok);
          if (r.ok)
            assert.deepEqual(
              [r.assertion.measure, r.assertion.op, r.assertion.value],
              [measure, op, value],
            );
        },
      ),
    );
  });
});

function check(...exprs: string[]) {
  const parsed = exprs.map((e) => {
    const r = parseAssertion(e);
    if (!r.ok) throw new Error(r.error);
    return r.assertion;
  });
  return checkAssertions(parsed, summary);
}

describe("checkAssertions", () => {
  const cases = [
    {
      name: "without a prefix: a line per HPA; maxReplicas is the highest reached",
      exprs: ["maxReplicas<=8"],
      passed: false,
      lines: ["PASS hpa/default/web maxReplicas=7 <= 8", "FAIL hpa/shop/api maxReplicas=9 <= 8"],
    },
    {
      name: "prefix by name matches in any namespace",
      exprs: ["hpa/web:finalReplicas==1", "hpa/api:flaps==0"],
      passed: true,
      lines: ["PASS hpa/default/web finalReplicas=1 == 1", "PASS hpa/shop/api flaps=0 == 0"],
    },
    {
      name: "hpaMaxReplicas is the spec bound",
      exprs: ["hpa/default/web:hpaMaxReplicas==10"],
      passed: true,
      lines: ["PASS hpa/default/web hpaMaxReplicas=10 == 10"],
    },
    {
      name: "time to meet demand is the longest; never met fails every bound",
      exprs: ["timeToMeetDemandSeconds<60"],
      passed: false,
      lines: [
        "PASS hpa/default/web timeToMeetDemandSeconds=30 < 60",
        "FAIL hpa/shop/api timeToMeetDemandSeconds=never < 60",
      ],
    },
    {
      name: "a measure without a value fails",
      exprs: ["meanUtilization>=0"],
      passed: false,
      lines: [
        "PASS hpa/default/web meanUtilization=48.25 >= 0",
        "FAIL hpa/shop/api meanUtilization=n/a >= 0",
      ],
    },
    {
      name: "a prefix that matches no HPA fails",
      exprs: ["hpa/nope:flaps==0"],
      passed: false,
      lines: ["FAIL hpa/nope:flaps==0: no HPA hpa/nope in the simulation"],
    },
    {
      name: "scalingActions adds up and down",
      exprs: ["hpa/default/web:scalingActions>4", "hpa/default/web:unmetDemandPodSeconds!=45"],
      passed: false,
      lines: [
        "PASS hpa/default/web scalingActions=5 > 4",
        "FAIL hpa/default/web unmetDemandPodSeconds=45 != 45",
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const result = check(...c.exprs);
      assert.deepEqual(result, { passed: c.passed, lines: c.lines });
    });
  }

  test("no assertion passes", () =>
    assert.deepEqual(checkAssertions([], summary), { passed: true, lines: [] }));
});
