import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  type FeatureGateName,
  FeatureGates,
  KNOWN_FEATURE_GATES,
} from "../../src/api/featuregates.js";

const GATES = Object.keys(KNOWN_FEATURE_GATES) as FeatureGateName[];

describe("FeatureGates.defaults (Kubernetes v1.34)", () => {
  const cases: Array<{ name: FeatureGateName; enabled: boolean; stage: string }> = [
    { name: "HPAScaleToZero", enabled: false, stage: "ALPHA" },
    { name: "HPAConfigurableTolerance", enabled: false, stage: "ALPHA" },
    { name: "PodLevelResources", enabled: true, stage: "BETA" },
  ];
  for (const c of cases) {
    test(`${c.name} is ${c.stage} and ${c.enabled ? "on" : "off"}`, () => {
      assert.equal(FeatureGates.defaults().enabled(c.name), c.enabled);
      assert.equal(KNOWN_FEATURE_GATES[c.name].stage, c.stage);
    });
  }

  test("no gate is set explicitly, so toString is empty", () => {
    assert.equal(FeatureGates.defaults().toString(), "");
  });
});

describe("FeatureGates.parse", () => {
  const cases: Array<{
    name: string;
    flag: string;
    expect: Partial<Record<FeatureGateName, boolean>>;
  }> = [
    { name: "empty flag keeps the defaults", flag: "", expect: { PodLevelResources: true } },
    {
      name: "two gates",
      flag: "HPAScaleToZero=true,PodLevelResources=false",
      expect: { HPAScaleToZero: true, PodLevelResources: false, HPAConfigurableTolerance: false },
    },
    {
      name: "white space around keys and values is trimmed",
      flag: " HPAConfigurableTolerance = true ",
      expect: { HPAConfigurableTolerance: true },
    },
    {
      name: "empty entries are skipped",
      flag: ",HPAScaleToZero=1,,",
      expect: { HPAScaleToZero: true },
    },
    {
      name: "Go booleans: t, F, TRUE, 0",
      flag: "HPAScaleToZero=t,PodLevelResources=F,HPAConfigurableTolerance=TRUE",
      expect: { HPAScaleToZero: true, PodLevelResources: false, HPAConfigurableTolerance: true },
    },
    {
      name: "a later entry wins",
      flag: "HPAScaleToZero=true,HPAScaleToZero=false",
      expect: { HPAScaleToZero: false },
    },
    {
      name: "AllAlpha sets every alpha gate not set explicitly",
      flag: "HPAScaleToZero=false,AllAlpha=true",
      expect: { HPAScaleToZero: false, HPAConfigurableTolerance: true, PodLevelResources: true },
    },
    {
      name: "AllBeta=false turns off the beta gates",
      flag: "AllBeta=false",
      expect: { PodLevelResources: false, HPAScaleToZero: false },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const gates = FeatureGates.parse(c.flag);
      for (const [name, value] of Object.entries(c.expect)) {
        assert.equal(gates.enabled(name as FeatureGateName), value, name);
      }
    });
  }

  const errors: Array<{ name: string; flag: string; message: string }> = [
    {
      name: "unknown gate",
      flag: "HPAScaleToZero=true,NoSuchGate=true",
      message: "unrecognized feature gate: NoSuchGate",
    },
    {
      name: "not a Go boolean",
      flag: "HPAScaleToZero=yes",
      message:
        'invalid value of HPAScaleToZero=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    },
    { name: "no value", flag: "HPAScaleToZero", message: "missing bool value for HPAScaleToZero" },
    {
      name: "empty value",
      flag: "PodLevelResources=",
      message:
        'invalid value of PodLevelResources=, err: strconv.ParseBool: parsing "": invalid syntax',
    },
  ];
  for (const c of errors) {
    test(`rejects: ${c.name}`, () => {
      assert.throws(() => FeatureGates.parse(c.flag), { message: c.message });
    });
  }

  test("parses over a base", () => {
    const base = FeatureGates.parse("HPAScaleToZero=true");
    const gates = FeatureGates.parse("PodLevelResources=false", base);
    assert.equal(gates.enabled("HPAScaleToZero"), true);
    assert.equal(gates.enabled("PodLevelResources"), false);
  });
});

describe("FeatureGates.with / fromRecord / toString", () => {
  test("with returns a new object and leaves the receiver unchanged", () => {
    const base = FeatureGates.defaults();
    const next = base.with({ HPAConfigurableTolerance: true });
    assert.equal(next.enabled("HPAConfigurableTolerance"), true);
    assert.equal(base.enabled("HPAConfigurableTolerance"), false);
  });

  test("toString prints the explicit gates sorted, in flag syntax", () => {
    const gates = FeatureGates.defaults().with({ PodLevelResources: false, HPAScaleToZero: true });
    assert.equal(gates.toString(), "HPAScaleToZero=true,PodLevelResources=false");
  });

  test("fromRecord applies a vector's gates over the defaults", () => {
    const gates = FeatureGates.fromRecord({ HPAScaleToZero: true });
    assert.deepEqual(gates.all(), {
      HPAScaleToZero: true,
      HPAConfigurableTolerance: false,
      PodLevelResources: true,
    });
  });

  test("fromRecord rejects an unknown gate", () => {
    assert.throws(() => FeatureGates.fromRecord({ HPAContainerMetrics: true }), {
      message: "unrecognized feature gate: HPAContainerMetrics",
    });
  });

  test("overrides lists only what was set", () => {
    assert.deepEqual(FeatureGates.parse("HPAScaleToZero=false").overrides(), {
      HPAScaleToZero: false,
    });
  });
});

describe("FeatureGates properties", () => {
  const overrides = fc.record(
    Object.fromEntries(GATES.map((g) => [g, fc.boolean()])) as Record<
      FeatureGateName,
      fc.Arbitrary<boolean>
    >,
    { requiredKeys: [] },
  );

  test("parse(toString()) gives the same gates", () => {
    fc.assert(
      fc.property(overrides, (o) => {
        const gates = FeatureGates.defaults().with(o);
        const again = FeatureGates.parse(gates.toString());
        assert.ok(again.equals(gates));
        assert.equal(again.toString(), gates.toString());
      }),
    );
  });

  test("an explicit setting always wins over the default", () => {
    fc.assert(
      fc.property(overrides, (o) => {
        const gates = FeatureGates.defaults().with(o);
        for (const name of GATES) {
          const expected = o[name] ?? KNOWN_FEATURE_GATES[name].default;
          assert.equal(gates.enabled(name), expected);
        }
      }),
    );
  });
});
