// The field manager's name: from the user agent when not given, and its validation.

const FIELD_MANAGER_MAX_LENGTH = 128;

/** prefixFromUserAgent: the program name before the first `/`, printable, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string): string {
  const program = userAgent.split("/")[0] ?? "";
  let out = "";
  let bytes = 0;
  for (const ch of program) {
    if (!isPrintable(ch)) continue;
    const size = Buffer.byteLength(ch, "utf8");
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

function isPrintable(ch: string): boolean {
  // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space.
  return ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

export interface FieldManagerError {
  type: "FieldValueTooLong" | "FieldValueInvalid";
  field: string;
  badValue: unknown;
  detail: string;
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(name: string, field = "fieldManager"): FieldManagerError[] {
  const errors: FieldManagerError[] = [];
  if (Buffer.byteLength(name, "utf8") > FIELD_MANAGER_MAX_LENGTH) {
    errors.push({
      type: "FieldValueTooLong",
      field,
      badValue: "<value omitted>",
      detail: `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  let position = 0;
  for (const ch of name) {
    if (!isPrintable(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      errors.push({
        type: "FieldValueInvalid",
        field,
        badValue: name,
        detail: `invalid character U+${code} (at position ${position})`,
      });
    }
    position += Buffer.byteLength(ch, "utf8");
  }
  return errors;
}
