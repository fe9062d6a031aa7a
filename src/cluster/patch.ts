// The strategic merge patch kubectl uses for pod templates, where lists of named objects (containers, env, ports) merge by `name` instead of being replaced.

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function namedList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.every((v) => isObject(v) && typeof v.name === "string");
}

/** Like mergePatch, but lists of objects with a `name` merge entry by entry (patchMergeKey name). */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (namedList(target) && namedList(patch)) {
    const out = target.map((entry) => ({ ...entry }));
    for (const item of patch) {
      const index = out.findIndex((entry) => entry.name === item.name);
      if (index >= 0) out[index] = strategicMergePatch(out[index], item) as Record<string, unknown>;
      else out.push(item);
    }
    return out;
  }
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = strategicMergePatch(out[key], value);
  }
  return out;
}
