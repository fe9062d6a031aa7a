// Unknown-field detection (`?fieldValidation=`): the fields a request body may carry, the
// HPA's schema in both served versions; other kinds are checked at the top level only.
import { isRecord } from "../api/json.js";

export type Schema = "any" | { [field: string]: Schema } | [Schema];
const OBJECT_META: Schema = Object.fromEntries(
  [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
  ].map((f) => [f, "any" as Schema]),
);
const REF: Schema = { kind: "any", name: "any", apiVersion: "any" };
const TARGET: Schema = {
  type: "any",
  value: "any",
  averageValue: "any",
  averageUtilization: "any",
};
const IDENTIFIER: Schema = { name: "any", selector: "any" };
const RULES: Schema = {
  stabilizationWindowSeconds: "any",
  selectPolicy: "any",
  policies: [{ type: "any", value: "any", periodSeconds: "any" }],
  tolerance: "any",
};
const HPA_V2: Schema = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META,
  spec: {
    scaleTargetRef: REF,
    minReplicas: "any",
    maxReplicas: "any",
    metrics: [
      {
        type: "any",
        object: { describedObject: REF, target: TARGET, metric: IDENTIFIER },
        pods: { metric: IDENTIFIER, target: TARGET },
        resource: { name: "any", target: TARGET },
        containerResource: { name: "any", target: TARGET, container: "any" },
        external: { metric: IDENTIFIER, target: TARGET },
      },
    ],
    behavior: { scaleUp: RULES, scaleDown: RULES },
  },
  status: "any",
};
const HPA_V1: Schema = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META,
  spec: {
    scaleTargetRef: REF,
    minReplicas: "any",
    maxReplicas: "any",
    targetCPUUtilizationPercentage: "any",
  },
  status: "any",
};
const GENERIC: Schema = {
  apiVersion: "any",
  kind: "any",
  metadata: OBJECT_META,
  spec: "any",
  status: "any",
};

export function schemaFor(kind: string, version: string): Schema | null {
  if (kind === "HorizontalPodAutoscaler") return version === "v1" ? HPA_V1 : HPA_V2;
  // Events and others have more top-level fields than spec/status: only metadata is checked.
  if (kind === "Event" || kind === "Lease") return null;
  return GENERIC;
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
