import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
  versionSwitches,
} from "../../src/api/versions.js";

describe("parseKubernetesVersion", () => {
  const cases: Array<[string, string, string]> = [
    ["1.37", "1.37", "v1.37.0"],
    ["v1.37.2", "1.37", "v1.37.2"],
    ["1.35.0", "1.35", "v1.35.0"],
    ["v1.34", "1.34", "v1.34.0"],
    [" 1.36.4 ", "1.36", "v1.36.4"],
    ["v1.37.0-rc.1", "1.37", "v1.37.0-rc.1"],
  ];
  for (const [text, version, gitVersion] of cases) {
    test(`${JSON.stringify(text)} is ${version} (${gitVersion})`, () => {
      assert.deepEqual(parseKubernetesVersion(text), { version, gitVersion });
    });
  }

  for (const bad of ["1.33", "1.38", "v2.0", "latest", "", "1", "1.37.x"]) {
    test(`refuses ${JSON.stringify(bad)}, listing the supported versions`, () => {
      assert.throws(() => parseKubernetesVersion(bad), {
        message: `unsupported Kubernetes version ${JSON.stringify(bad)}: supported versions are 1.34, 1.35, 1.36, 1.37`,
      });
    });
  }

  test("the default is the newest supported release", () => {
    assert.equal(DEFAULT_KUBERNETES_VERSION, "1.37");
  });
});

describe("versionSwitches", () => {
  const switches = versionSwitches({ early: "1.35", late: "1.37" });
  test("a switch is on from its version", () => {
    assert.deepEqual(switches("1.34"), { early: false, late: false });
    assert.deepEqual(switches("1.35"), { early: true, late: false });
    assert.deepEqual(switches("1.36"), { early: true, late: false });
    assert.deepEqual(switches("1.37"), { early: true, late: true });
  });
  test("each lookup returns the same frozen row", () => {
    assert.equal(switches("1.36"), switches("1.36"));
    assert.ok(Object.isFrozen(switches("1.36")));
  });
});
