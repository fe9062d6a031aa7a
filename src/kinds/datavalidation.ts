// What ConfigMap and Secret share: key rules (IsConfigMapKey), the 1 MiB size limit and the
// `immutable` rule, as upstream's core validation has them.
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { type FieldError, forbidden, invalid, regexError, tooLong } from "../api/validation.js";

/** core.MaxSecretSize: ConfigMaps and Secrets hold at most 1 MiB of data. */
export const MAX_DATA_SIZE = 1024 * 1024;

const KEY_FMT = "[-._a-zA-Z0-9]+";
const KEY_RE = new RegExp(`^${KEY_FMT}$`);
const KEY_MAX = 253;

/** IsConfigMapKey. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > KEY_MAX) errs.push(`must be no more than ${KEY_MAX} characters`);
  if (!KEY_RE.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        KEY_FMT,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

export function entries(map: unknown): [string, string][] {
  return isRecord(map)
    ? Object.entries(map).filter((e): e is [string, string] => typeof e[1] === "string")
    : [];
}

/** The keys of `map` at `field` (`data`, `binaryData`): invalid ones, as `field[key]`. */
export function validateKeys(map: unknown, field: string): FieldError[] {
  return entries(map).flatMap(([key]) =>
    isConfigMapKey(key).map((msg) => invalid(`${field}[${key}]`, key, msg)),
  );
}

/** Above 1 MiB: the error names the whole object ("" field), as upstream's does. */
export function validateSize(bytes: number): FieldError[] {
  return bytes > MAX_DATA_SIZE ? [tooLong("", MAX_DATA_SIZE)] : [];
}

const IMMUTABLE = "field is immutable when `immutable` is set";

/** Once `immutable: true`, it stays, and so do the data fields. */
export function validateImmutableData(
  next: KubeObject,
  current: KubeObject,
  fields: readonly string[],
): FieldError[] {
  if (current.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (next.immutable !== true) errs.push(forbidden("immutable", IMMUTABLE));
  for (const field of fields) {
    if (JSON.stringify(sortedMap(next[field])) !== JSON.stringify(sortedMap(current[field]))) {
      errs.push(forbidden(field, IMMUTABLE));
    }
  }
  return errs;
}

function sortedMap(map: unknown): [string, string][] {
  return entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
