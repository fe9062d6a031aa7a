import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  FEATURE_GATES_BY_VERSION,
  type FeatureGateName,
  FeatureGates,
  featureGateSpec,
} from "../../src/api/featuregates.js";
import type { SUPPORTED_KUBERNETES_VERSIONS } from "../../src/api/versions.js";

// The tests below the per-version table are pinned at v1.34, where every HPA gate can still be
// set either way (v1.37 locks HPAConfigurableTolerance on).
const V134 = FeatureGates.defaults("1.34");
const KNOWN_FEATURE_GATES = FEATURE_GATES_BY_VERSION["1.34"];
const GATES = Object.keys(KNOWN_FEATURE_GATES) as FeatureGateName[];

describe("feature gates per Kubernetes version", () => {
  const table: Array<[string, FeatureGateName, boolean, string, boolean]> = [
    ["1.34", "HPAConfigurableTolerance", false, "ALPHA", false],
    ["1.35", "HPAConfigurableTolerance", true, "BETA", false],
    ["1.36", "HPAConfigurableTolerance", true, "BETA", false],
    ["1.37", "HPAConfigurableTolerance", true, "GA", true],
    ["1.34", "HPAScaleToZero", false, "ALPHA", false],
    ["1.36", "HPAScaleToZero", false, "ALPHA", false],
    ["1.37", "HPAScaleToZero", true, "BETA", false],
  ];
  for (const [version, name, on, stage, locked] of table) {
    test(`${version}: ${name} is ${stage}, ${on ? "on" : "off"}${locked ? ", locked" : ""}`, () => {
      const v = version as (typeof SUPPORTED_KUBERNETES_VERSIONS)[number];
      assert.equal(FeatureGates.defaults(v).enabled(name), on);
      assert.equal(featureGateSpec(name, v).stage, stage);
      assert.equal(featureGateSpec(name, v).lockToDefault, locked);
    });
  }

  test("the default set is v1.37's", () => {
    assert.equal(FeatureGates.defaults().version, "1.37");
    assert.equal(FeatureGates.defaults().enabled("HPAConfigurableTolerance"), true);
  });

  test("v1.37 refuses to turn off the GA tolerance gate, as component-base words it", () => {
    assert.throws(() => FeatureGates.parse("HPAConfigurableTolerance=false"), {
      message:
        "cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true",
    });
    // Setting it to its locked value is accepted.
    assert.equal(
      FeatureGates.parse("HPAConfigurableTolerance=true").toString(),
      "HPAConfigurableTolerance=true",
    );
    // v1.35 and v1.36 still let it be turned off.
    const v135 = FeatureGates.parse(
      "HPAConfigurableTolerance=false",
      FeatureGates.defaults("1.35"),
    );
    assert.equal(v135.enabled("HPAConfigurableTolerance"), false);
  });

  test("AllBeta=false leaves a GA gate alone", () => {
    const gates = FeatureGates.parse("AllBeta=false");
    assert.equal(gates.enabled("HPAConfigurableTolerance"), true);
    assert.equal(gates.enabled("HPAScaleToZero"), false);
  });

  test("a parsed set keeps its base's version", () => {
    assert.equal(FeatureGates.parse("HPAScaleToZero=true", V134).version, "1.34");
    assert.equal(FeatureGates.fromRecord({}, FeatureGates.defaults("1.36")).version, "1.36");
    assert.ok(!FeatureGates.defaults("1.35").equals(FeatureGates.defaults("1.36")));
  });
});

describe("FeatureGates.defaults (Kubernetes v1.34)", () => {
  const cases: Array<{ name: FeatureGateName; enabled: boolean; stage: string }> = [
    { name: "HPAScaleToZero", enabled: false, stage: "ALPHA" },
    { name: "HPAConfigurableTolerance", enabled: false, stage: "ALPHA" },
    { name: "PodLevelResources", enabled: true, stage: "BETA" },
  ];
  for (const c of cases) {
    test(`${c.name} is ${c.stage} and ${c.enabled ? "on" : "off"}`, () => {
      assert.equal(V134.enabled(c.name), c.enabled);
      assert.equal(KNOWN_FEATURE_GATES[c.name].stage, c.stage);
    });
  }

  test("no gate is set explicitly, so toString is empty", () => {
    assert.equal(V134.toString(), "");
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
      const gates = FeatureGates.parse(c.flag, V134);
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
      assert.throws(() => FeatureGates.parse(c.flag, V134), { message: c.message });
    });
  }

  test("parses over a base", () => {
    const base = FeatureGates.parse("HPAScaleToZero=true", V134);
    const gates = FeatureGates.parse("PodLevelResources=false", base);
    assert.equal(gates.enabled("HPAScaleToZero"), true);
    assert.equal(gates.enabled("PodLevelResources"), false);
  });
});

describe("FeatureGates.with / fromRecord / toString", () => {
  test("with returns a new object and leaves the receiver unchanged", () => {
    const base = V134;
    const next = base.with({ HPAConfigurableTolerance: true });
    assert.equal(next.enabled("HPAConfigurableTolerance"), true);
    assert.equal(base.enabled("HPAConfigurableTolerance"), false);
  });

  test("toString prints the explicit gates sorted, in flag syntax", () => {
    const gates = V134.with({ PodLevelResources: false, HPAScaleToZero: true });
    assert.equal(gates.toString(), "HPAScaleToZero=true,PodLevelResources=false");
  });

  test("fromRecord applies a vector's gates over the defaults", () => {
    const gates = FeatureGates.fromRecord({ HPAScaleToZero: true }, V134);
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
    assert.deepEqual(FeatureGates.parse("HPAScaleToZero=false", V134).overrides(), {
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
        const gates = V134.with(o);
        const again = FeatureGates.parse(gates.toString(), V134);
        assert.ok(again.equals(gates));
        assert.equal(again.toString(), gates.toString());
      }),
    );
  });

  test("an explicit setting always wins over the default", () => {
    fc.assert(
      fc.property(overrides, (o) => {
        const gates = V134.with(o);
        for (const name of GATES) {
          const expected = o[name] ?? KNOWN_FEATURE_GATES[name].default;
          assert.equal(gates.enabled(name), expected);
        }
      }),
    );
  });
});
