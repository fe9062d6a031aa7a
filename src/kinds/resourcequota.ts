// core/v1 ResourceQuota: per-namespace hard limits on resource use, validated as upstream and
// listed with upstream's columns (`used/hard` per resource from the status the quota controller
// writes: src/registry/quota.ts).
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import {
  child,
  type FieldError,
  index,
  invalid,
  isQualifiedName,
  notSupported,
} from "../api/validation.js";
import { COMPUTE_RESOURCES, OBJECT_COUNT_RESOURCES } from "./limitrange.js";
import { root } from "./meta.js";
import { resourceList } from "./podvalidation.js";
import { AGE, asRecord, col, NAME, since } from "./printing.js";
import { atomicOf, mapOf, pb, qty, str, strs, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const RESOURCE_LIST = { go: "v1.ResourceList" };

const QUOTA_RESOURCES = new Set([...OBJECT_COUNT_RESOURCES, ...COMPUTE_RESOURCES]);
const INTEGER_RESOURCES = new Set(OBJECT_COUNT_RESOURCES);

export const QUOTA_SCOPES = [
  "BestEffort",
  "CrossNamespacePodAffinity",
  "NotBestEffort",
  "NotTerminating",
  "PriorityClass",
  "Terminating",
  "VolumeAttributesClass",
];

function validateHard(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, quantity] of resourceList(list)) {
    const at = `${path}[${name}]`;
    const msgs = isQualifiedName(name);
    if (msgs.length > 0) errs.push(...msgs.map((m) => invalid(at, name, m)));
    else if (
      !name.includes("/") &&
      !QUOTA_RESOURCES.has(name) &&
      !/^(requests\.)?hugepages-/.test(name)
    ) {
      errs.push(invalid(at, name, "must be a standard resource for quota"));
    }
    if (quantity.sign() < 0) {
      errs.push(invalid(at, quantity.toString(), "must be greater than or equal to 0"));
    } else if (
      (INTEGER_RESOURCES.has(name) || name.startsWith("count/")) &&
      quantity.milliValue() % 1000n !== 0n
    ) {
      errs.push(invalid(at, quantity.toString(), "must be an integer"));
    }
  }
  return errs;
}

function validateQuota(object: KubeObject): FieldError[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const errs = validateHard(spec.hard, "spec.hard");
  const scopes = Array.isArray(spec.scopes) ? spec.scopes : [];
  for (const [i, scope] of scopes.entries()) {
    if (typeof scope === "string" && !QUOTA_SCOPES.includes(scope)) {
      errs.push(notSupported(index("spec.scopes", i), scope, QUOTA_SCOPES));
    }
  }
  const selector = isRecord(spec.scopeSelector) ? spec.scopeSelector : {};
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const [i, expression] of expressions.entries()) {
    const e = isRecord(expression) ? expression : {};
    const at = index("spec.scopeSelector.matchExpressions", i);
    if (typeof e.scopeName === "string" && !QUOTA_SCOPES.includes(e.scopeName)) {
      errs.push(notSupported(child(at, "scopeName"), e.scopeName, QUOTA_SCOPES));
    }
    const operators = ["DoesNotExist", "Exists", "In", "NotIn"];
    if (typeof e.operator === "string" && !operators.includes(e.operator)) {
      errs.push(notSupported(child(at, "operator"), e.operator, operators));
    }
  }
  return errs;
}

const QUOTA_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    // A create carries no status: the quota controller writes it.
    const { status: _status, ...rest } = object;
    return checked(rest as KubeObject, validateQuota(rest as KubeObject));
  },
  prepareForUpdate: (next) => checked(next, validateQuota(next)),
  validateStatusUpdate: (next) => [
    ...validateHard(asRecord(next.status).hard, "status.hard"),
    ...validateHard(asRecord(next.status).used, "status.used"),
  ],
};

/** `name: used/hard, …` of the status' resources, sorted, `limits.*` apart (printResourceQuota). */
function usage(object: KubeObject): [string, string] {
  const status = asRecord(object.status);
  const hard = resourceList(status.hard);
  const used = resourceList(status.used);
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of [...hard.keys()].sort()) {
    const cell = `${name}: ${used.get(name)?.toString() ?? "0"}/${hard.get(name)!.toString()}`;
    (name.split(".")[0] === "limits" && name.includes(".") ? limits : requests).push(cell);
  }
  return [requests.join(", "), limits.join(", ")];
}

export const resourceQuota: KindDefinition<"ResourceQuota"> = {
  kind: "ResourceQuota",
  resource: "resourcequotas",
  singular: "resourcequota",
  description:
    "A ResourceQuota caps the total resources (CPU, memory, object counts) that the objects of its namespace may use; its status says how much is used.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root(
        "v1.ResourceQuota",
        pb(
          2,
          struct(
            {
              hard: mapOf(qty(), 1, RESOURCE_LIST),
              scopes: strs(2),
              scopeSelector: pb(
                3,
                struct(
                  {
                    matchExpressions: atomicOf(
                      struct(
                        {
                          scopeName: str(1, { go: "v1.ResourceQuotaScope", keep: true }),
                          operator: str(2, { go: "v1.ScopeSelectorOperator", keep: true }),
                          values: strs(3),
                        },
                        { go: "v1.ScopedResourceSelectorRequirement" },
                      ),
                      1,
                    ),
                  },
                  { go: "v1.ScopeSelector", ptr: true },
                ),
              ),
            },
            { go: "v1.ResourceQuotaSpec" },
          ),
        ),
        pb(
          3,
          struct(
            { hard: mapOf(qty(), 1, RESOURCE_LIST), used: mapOf(qty(), 2, RESOURCE_LIST) },
            { go: "v1.ResourceQuotaStatus" },
          ),
        ),
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["quota"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: QUOTA_STRATEGY,
  printer: {
    columns: [
      NAME,
      AGE,
      col("Request", "string", "Requested resources (used/hard)."),
      col("Limit", "string", "Resource limits (used/hard)."),
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      since(obj.metadata.creationTimestamp, now),
      ...usage(obj),
    ],
  },
};
