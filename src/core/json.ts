// Equality of JSON-shaped values, used to write status only when it changed and to bump
// generation only when the spec changed.

/** Structural equality of JSON-shaped values (status objects), stopping at the first difference. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // Keys holding undefined count as absent, as in JSON.
  let leftKeys = 0;
  for (const key in left) {
    const l = left[key];
    if (l === undefined) continue;
    leftKeys++;
    // Most fields are equal strings or numbers: no call for them.
    const r = right[key];
    if (l !== r && !jsonEqual(l, r)) return false;
  }
  let rightKeys = 0;
  for (const key in right) if (right[key] !== undefined) rightKeys++;
  return leftKeys === rightKeys;
}
