// Field selectors (`?fieldSelector=`): the fields each kind supports, as upstream's per-kind
// field label conversion funcs, and their evaluation on an object. Each kind's fields are in
// its definition (./kinds/).

import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { kindDefinition } from "../kinds/registry.js";
import { type ApiError, badRequest } from "./errors.js";

export const COMMON_FIELDS = ["metadata.name", "metadata.namespace"];

export interface FieldTerm {
  field: string;
  value: string;
  equal: boolean;
}

/**
 * fields.ParseSelector: terms split on unescaped commas, each at its first `!=`, `==` or `=`;
 * a value may hold `\\`, `\,` and `\=` escapes but no bare `,` or `=`.
 */
export function parseFieldSelector(
  kind: string,
  text: string,
): { ok: true; value: FieldTerm[] } | { ok: false; error: ApiError } {
  const terms: FieldTerm[] = [];
  for (const raw of splitTerms(text)) {
    if (raw === "") continue;
    const split = splitTerm(raw);
    if (!split) {
      return {
        ok: false,
        error: badRequest(`invalid selector: '${text}'; can't understand '${raw}'`),
      };
    }
    const value = unescapeValue(split.value);
    if (!value.ok) return { ok: false, error: badRequest(value.error) };
    const field = split.field.trim();
    if (
      !COMMON_FIELDS.includes(field) &&
      !(kindDefinition(kind)?.fieldSelectors ?? []).includes(field)
    ) {
      return { ok: false, error: badRequest(`field label not supported: ${field}`) };
    }
    terms.push({ field, value: value.value, equal: split.operator !== "!=" });
  }
  return { ok: true, value: terms };
}

/** The selector's terms: split on commas that no backslash escapes. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let current = "";
  let escaped = false;
  for (const ch of text) {
    if (escaped) {
      current += ch;
      escaped = false;
    } else if (ch === "\\") {
      current += ch;
      escaped = true;
    } else if (ch === ",") {
      terms.push(current);
      current = "";
    } else current += ch;
  }
  terms.push(current);
  return terms;
}

/** A term at its first operator (`!=` before `==` before `=` at each position). */
function splitTerm(term: string): { field: string; operator: string; value: string } | null {
  for (let i = 0; i < term.length; i++) {
    for (const operator of ["!=", "==", "="]) {
      if (term.startsWith(operator, i)) {
        return { field: term.slice(0, i), operator, value: term.slice(i + operator.length) };
      }
    }
  }
  return null;
}

/** fields.UnescapeValue, with its errors' wording (a bare rune prints as its number, as %v does). */
function unescapeValue(value: string): { ok: true; value: string } | { ok: false; error: string } {
  let out = "";
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== "\\" && ch !== "," && ch !== "=") {
        return { ok: false, error: `invalid field selector: invalid escape sequence: \\${ch}` };
      }
      out += ch;
      escaped = false;
    } else if (ch === "\\") escaped = true;
    else if (ch === "," || ch === "=") {
      return {
        ok: false,
        error: `invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`,
      };
    } else out += ch;
  }
  if (escaped) return { ok: false, error: "invalid field selector: invalid escape sequence: \\" };
  return { ok: true, value: out };
}

export function fieldValue(object: KubeObject, field: string): string {
  if (field === "source") {
    const source = (object as unknown as { source?: { component?: string } }).source;
    return source?.component ?? "";
  }
  let cur: unknown = object;
  for (const part of field.split(".")) cur = isRecord(cur) ? cur[part] : undefined;
  if (cur === undefined || cur === null) return "";
  return String(cur);
}
