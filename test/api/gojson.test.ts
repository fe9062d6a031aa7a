// goJsonString: Go's encoding/json string output, byte for byte.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { goJsonString } from "../../src/api/gojson.js";

const CASES = [
  { name: "plain ASCII", input: "web", go: '"web"' },
  { name: "empty", input: "", go: '""' },
  { name: "quote and backslash", input: 'a"b\\c', go: '"a\\"b\\\\c"' },
  { name: "HTML characters", input: "<a&b>", go: '"\\u003ca\\u0026b\\u003e"' },
  { name: "short escapes (Go ≥ 1.22)", input: "\b\f\n\r\t", go: '"\\b\\f\\n\\r\\t"' },
  { name: "other control characters", input: "\u0000\u0001\u001f", go: '"\\u0000\\u0001\\u001f"' },
  { name: "DEL stays", input: "\u007f", go: '"\u007f"' },
  { name: "line and paragraph separators", input: "a\u2028b\u2029", go: '"a\\u2028b\\u2029"' },
  { name: "a lone high surrogate is U+FFFD, escaped", input: "\ud800x", go: '"\\ufffdx"' },
  { name: "a lone low surrogate is U+FFFD, escaped", input: "x\udc00", go: '"x\\ufffd"' },
  { name: "reversed surrogates: two U+FFFD", input: "\udc00\ud800", go: '"\\ufffd\\ufffd"' },
  { name: "a surrogate pair stays (one rune)", input: "a😀b", go: '"a😀b"' },
  { name: "a real U+FFFD stays", input: "\ufffdx", go: '"\ufffdx"' },
  { name: "other unicode stays", input: "héllo✓\u00a0", go: '"héllo✓\u00a0"' },
];

describe("goJsonString", () => {
  for (const c of CASES) {
    it(c.name, () => assert.equal(goJsonString(c.input), c.go));
  }

  it("well-formed strings: JSON.stringify with <, >, &, U+2028 and U+2029 escaped", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        const expected = JSON.stringify(s).replace(
          /[<>&\u2028\u2029]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        );
        assert.equal(goJsonString(s), expected);
      }),
    );
  });

  it("the output parses back to the input, lone surrogates as U+FFFD", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const wellFormed = s.replace(
          /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
          "\ufffd",
        );
        assert.equal(JSON.parse(goJsonString(s)), wellFormed);
      }),
    );
  });
});
