// Field selectors (`?fieldSelector=`): the fields each kind supports, as upstream's per-kind
// field label conversion funcs, and their evaluation on an object. Each kind's fields are in
// its definition (./kinds/).

import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { type ApiError, badRequest } from "./errors.js";
import { kindDefinition } from "./kinds/registry.js";

export const COMMON_FIELDS = ["metadata.name", "metadata.namespace"];

export interface FieldTerm {
  field: string;
  value: string;
  equal: boolean;
}

export function parseFieldSelector(
  kind: string,
  text: string,
): { ok: true; value: FieldTerm[] } | { ok: false; error: ApiError } {
  const terms: FieldTerm[] = [];
  for (const raw of text.split(",")) {
    const term = raw.trim();
    if (term === "") continue;
    const match = /^([^=!]+)(!=|==|=)(.*)$/.exec(term);
    if (!match)
      return {
        ok: false,
        error: badRequest(`invalid selector: '${text}'; can't understand '${term}'`),
      };
    const field = match[1]!.trim();
    if (
      !COMMON_FIELDS.includes(field) &&
      !(kindDefinition(kind)?.fieldSelectors ?? []).includes(field)
    ) {
      return { ok: false, error: badRequest(`field label not supported: ${field}`) };
    }
    terms.push({ field, value: match[3]!.trim(), equal: match[2] !== "!=" });
  }
  return { ok: true, value: terms };
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
