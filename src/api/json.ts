// JSON-shaped values as they come from a parser: the one object test every module uses.

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `object[key] = value` for a member of JSON data: assigning to "__proto__" (a valid ConfigMap
 * key, or any key of a custom resource's unknown fields) would set the object's prototype
 * instead where the object has no such member yet, and the member would be lost.
 */
export function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else object[key] = value;
}

/** `object[key]` of JSON data: only its own member ("__proto__" is not the prototype). */
export function memberOf(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A copy with every object's keys sorted, as Go's json.Marshal writes a map. */
export function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setMember(out, key, withSortedKeys(value[key]));
  return out;
}

/**
 * Equal as decoded Go values (apiequality.Semantic.DeepEqual's common case): object key order
 * and an absent field versus null do not matter.
 */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    isRecord(v)
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== undefined && x !== null)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
