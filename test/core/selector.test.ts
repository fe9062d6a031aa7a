// Label keys and values in selectors follow the rules validation applies to labels
// (IsQualifiedName, IsValidLabelValue), in both the string and the structured form.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseSelector, selectorFromLabelSelector } from "../../src/api/selector.js";
import { isQualifiedName, isValidLabelValue } from "../../src/api/validation.js";

const label63 = "a".repeat(63);
/** A valid DNS subdomain of `length` characters (≤ 255): labels of 63 joined by dots. */
function subdomain(length: number): string {
  const labels = Array.from({ length: 4 }, () => "b".repeat(63)).join(".");
  return `${labels.slice(0, length - 1)}c`;
}

const KEYS = [
  { name: "a plain key", key: "app", valid: true },
  { name: "a prefixed key", key: "example.com/app", valid: true },
  { name: "a 63-character name", key: label63, valid: true },
  {
    name: "a 64-character name (the old pattern let it through)",
    key: "a".repeat(64),
    valid: false,
  },
  { name: "a 253-character prefix", key: `${subdomain(253)}/a`, valid: true },
  {
    name: "a 254-character prefix (the old pattern let it through)",
    key: `${subdomain(254)}/a`,
    valid: false,
  },
  { name: "an uppercase prefix", key: "Example.com/app", valid: false },
  { name: "an empty prefix", key: "/app", valid: false },
  { name: "two slashes", key: "a/b/c", valid: false },
  { name: "a name ending in a dash", key: "app-", valid: false },
];

const VALUES = [
  { name: "empty", value: "", valid: true },
  { name: "63 characters", value: label63, valid: true },
  { name: "64 characters", value: "a".repeat(64), valid: false },
  { name: "dots, dashes and underscores inside", value: "v1.2_3-x", valid: true },
  { name: "a leading dot", value: ".v1", valid: false },
];

describe("selector label keys follow IsQualifiedName", () => {
  for (const c of KEYS) {
    it(c.name, () => {
      assert.equal(isQualifiedName(c.key).length === 0, c.valid, "validation");
      assert.equal(parseSelector(`${c.key}=x`).ok, c.valid, "string form");
      assert.equal(selectorFromLabelSelector({ matchLabels: { [c.key]: "x" } }).ok, c.valid);
      assert.equal(
        selectorFromLabelSelector({ matchExpressions: [{ key: c.key, operator: "Exists" }] }).ok,
        c.valid,
      );
    });
  }
  it("an invalid key names it", () => {
    assert.deepEqual(parseSelector("app-=x"), {
      ok: false,
      error: 'unable to parse requirement: invalid label key "app-"',
    });
  });
});

describe("selector label values follow IsValidLabelValue", () => {
  for (const c of VALUES) {
    it(c.name, () => {
      assert.equal(isValidLabelValue(c.value).length === 0, c.valid, "validation");
      assert.equal(parseSelector(`app in (${c.value})`).ok, c.valid, "string form");
      assert.equal(selectorFromLabelSelector({ matchLabels: { app: c.value } }).ok, c.valid);
    });
  }
  it("an invalid value names it", () => {
    assert.deepEqual(parseSelector("app=.v1"), {
      ok: false,
      error: 'unable to parse requirement: invalid label value: ".v1"',
    });
  });
});

describe("selectors and validation agree on any key", () => {
  it("parseSelector accepts `key` exactly when IsQualifiedName does", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[-a-zA-Z0-9_./]{1,80}$/), (key) => {
        assert.equal(parseSelector(key).ok, isQualifiedName(key).length === 0, key);
      }),
    );
  });
});

describe("parseSelector remembers one selector per HPA at 10,000 HPAs", () => {
  it("the second parse of each of 10,000 distinct selectors is the remembered result", () => {
    const texts = Array.from({ length: 10_000 }, (_, i) => `app=web-${i},pod-template-hash=h${i}`);
    const first = texts.map((t) => parseSelector(t));
    const again = texts.map((t) => parseSelector(t));
    const remembered = again.filter((result, i) => result === first[i]).length;
    assert.equal(remembered, texts.length, "every selector parsed once");
  });
});
