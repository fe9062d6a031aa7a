// Strings as Go's encoding/json writes them: the v1 annotations that carry v2-only fields
// (conversion) and the JSON bad values of field errors (validation) must match byte for byte.

/** Anything Go writes differently from a plain copy between quotes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what Go escapes.
const SPECIAL = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/**
 * A JSON string as Go's encoding/json writes it: HTML-safe (<, >, & as \u003c, \u003e,
 * \u0026), U+2028/U+2029 escaped, the short escapes of Go ≥ 1.22 (\b \f \n \r \t), other
 * control characters as \u00XX, and a lone surrogate (invalid UTF-8 to Go) as \ufffd.
 */
export function goJsonString(s: string): string {
  if (!SPECIAL.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (cp < 0x20 || ch === "<" || ch === ">" || ch === "&" || cp === 0x2028 || cp === 0x2029)
      out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd";
    else out += ch;
  }
  return `${out}"`;
}
