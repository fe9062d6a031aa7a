// Unknown-field detection (`?fieldValidation=`): the fields a request body may carry are each
// kind's `knownFields` (./kinds/): the HPA's spec in both served versions; other kinds are
// checked at the top level and in metadata only.
import { isRecord } from "../api/json.js";
import { TOP_LEVEL_FIELDS } from "./kinds/meta.js";
import { kindDefinition } from "./kinds/registry.js";
import type { KnownFields } from "./kinds/types.js";

export type Schema = KnownFields;

/** The known fields of a kind in a version; unknown kinds are checked at the top level. */
export function schemaFor(kind: string, version: string): Schema | null {
  const definition = kindDefinition(kind);
  if (!definition) return TOP_LEVEL_FIELDS;
  // Another version of a served kind reads as the preferred one.
  const served = definition.versions.find((v) => v.version === version) ?? definition.versions[0];
  return served ? served.knownFields : TOP_LEVEL_FIELDS;
}

export function unknownFields(kind: string, version: string, object: unknown): string[] {
  const schema = schemaFor(kind, version);
  if (!schema) return [];
  const out: string[] = [];
  walk(object, schema, "", out);
  return out;
}

function walk(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (schema === "any" || value === null || value === undefined) return;
  if (Array.isArray(schema)) {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, schema[0], `${path}[${i}]`, out);
    }
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const sub = schema[key];
    if (sub === undefined) out.push(childPath);
    else walk(child, sub, childPath, out);
  }
}

/** Removes an unknown field (Warn/Ignore drop it, as the decoder does). */
export function dropPath(object: Record<string, unknown>, path: string): void {
  const parts = path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== "");
  let cur: unknown = object;
  for (const part of parts.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(part)] : isRecord(cur) ? cur[part] : undefined;
  }
  const last = parts[parts.length - 1]!;
  if (isRecord(cur)) delete cur[last];
}
