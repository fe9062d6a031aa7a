// core/v1 LimitRange: per-namespace minimum, maximum and default compute resources of containers
// and pods (and storage of claims), validated and defaulted as upstream; LimitRanger admission
// (../admission.ts) applies it to new pods.
import { isRecord } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import type { KubeObject } from "../api/types.js";
import {
  child,
  duplicate,
  type FieldError,
  forbidden,
  index,
  invalid,
  isQualifiedName,
  required,
} from "../api/validation.js";
import { topLevel } from "./meta.js";
import { resourceList } from "./podvalidation.js";
import { col, NAME } from "./printing.js";
import { atomicOf, mapOf, pb, qty, str, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const RESOURCE_LIST = { go: "v1.ResourceList" };
const BOUNDS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"] as const;
type Bound = (typeof BOUNDS)[number];

/** The resources a container (and so a pod) may name without a domain prefix. */
export function isStandardContainerResource(name: string): boolean {
  return ["cpu", "memory", "ephemeral-storage"].includes(name) || name.startsWith("hugepages-");
}

/** Resources counted in whole objects (IsIntegerResourceName's standard ones). */
export const OBJECT_COUNT_RESOURCES: readonly string[] = [
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
];

/** Compute resources and what a quota names of them (requests.*, limits.*). */
export const COMPUTE_RESOURCES: readonly string[] = [
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.storage",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
];

const STANDARD_RESOURCES = new Set([...OBJECT_COUNT_RESOURCES, ...COMPUTE_RESOURCES, "storage"]);

/** validateResourceName: a qualified name, standard unless it has a domain. */
export function validateResourceName(
  name: string,
  field: string,
  container: boolean,
): FieldError[] {
  const msgs = isQualifiedName(name);
  if (msgs.length > 0) return msgs.map((m) => invalid(field, name, m));
  if (name.includes("/")) return [];
  if (container && !isStandardContainerResource(name)) {
    return [invalid(field, name, "must be a standard resource for containers")];
  }
  if (!STANDARD_RESOURCES.has(name) && !/^(requests\.)?hugepages-/.test(name)) {
    return [invalid(field, name, "must be a standard resource type or fully qualified")];
  }
  return [];
}

const LIMIT_TYPES = ["Pod", "Container", "PersistentVolumeClaim"];

function validateItem(item: Record<string, unknown>, at: string, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof item.type === "string" ? item.type : "";
  const typeMsgs = isQualifiedName(type);
  if (typeMsgs.length > 0) errs.push(...typeMsgs.map((m) => invalid(child(at, "type"), type, m)));
  else if (!type.includes("/") && !LIMIT_TYPES.includes(type)) {
    errs.push(invalid(child(at, "type"), type, "must be a standard limit type or fully qualified"));
  }
  if (seen.has(type)) errs.push(duplicate(child(at, "type"), type));
  seen.add(type);
  const lists = {} as Record<Bound, Map<string, Quantity>>;
  for (const bound of BOUNDS) lists[bound] = resourceList(item[bound]);
  if (type === "Pod") {
    for (const bound of ["default", "defaultRequest"] as const) {
      if (lists[bound].size > 0) {
        errs.push(forbidden(child(at, bound), "may not be specified when `type` is 'Pod'"));
        lists[bound].clear();
      }
    }
  }
  const container = type === "Pod" || type === "Container";
  const keys = new Set<string>();
  for (const bound of BOUNDS) {
    for (const name of lists[bound].keys()) {
      errs.push(...validateResourceName(name, `${child(at, bound)}[${name}]`, container));
      keys.add(name);
    }
  }
  if (type === "PersistentVolumeClaim" && !lists.min.has("storage") && !lists.max.has("storage")) {
    errs.push(
      required(
        child(at, "limits"),
        "either minimum or maximum storage value is required, but neither was provided",
      ),
    );
  }
  for (const k of [...keys].sort()) {
    const min = lists.min.get(k);
    const max = lists.max.get(k);
    const dflt = lists.default.get(k);
    const request = lists.defaultRequest.get(k);
    const ratio = lists.maxLimitRequestRatio.get(k);
    const at2 = (bound: Bound) => `${child(at, bound)}[${k}]`;
    if (min && max && min.cmp(max) > 0) {
      errs.push(
        invalid(at2("min"), min.toString(), `min value ${min} is greater than max value ${max}`),
      );
    }
    if (request && min && min.cmp(request) > 0) {
      errs.push(
        invalid(
          at2("defaultRequest"),
          request.toString(),
          `min value ${min} is greater than default request value ${request}`,
        ),
      );
    }
    if (request && max && request.cmp(max) > 0) {
      errs.push(
        invalid(
          at2("defaultRequest"),
          request.toString(),
          `default request value ${request} is greater than max value ${max}`,
        ),
      );
    }
    if (request && dflt && request.cmp(dflt) > 0) {
      errs.push(
        invalid(
          at2("defaultRequest"),
          request.toString(),
          `default request value ${request} is greater than default limit value ${dflt}`,
        ),
      );
    }
    if (dflt && min && min.cmp(dflt) > 0) {
      errs.push(
        invalid(
          at2("default"),
          min.toString(),
          `min value ${min} is greater than default value ${dflt}`,
        ),
      );
    }
    // Upstream names the max as the bad value here.
    if (dflt && max && dflt.cmp(max) > 0) {
      errs.push(
        invalid(
          at2("default"),
          max.toString(),
          `default value ${dflt} is greater than max value ${max}`,
        ),
      );
    }
    if (ratio && ratio.cmp(Quantity.fromInt(1)) < 0) {
      errs.push(
        invalid(at2("maxLimitRequestRatio"), ratio.toString(), `ratio ${ratio} is less than 1`),
      );
    }
    if (ratio && min && max && !min.isZero()) {
      const most = Number(max.milliValue()) / Number(min.milliValue());
      if (Number(ratio.milliValue()) / 1000 > most) {
        errs.push(
          invalid(
            at2("maxLimitRequestRatio"),
            ratio.toString(),
            `ratio ${ratio} is greater than max/min = ${most.toFixed(6)}`,
          ),
        );
      }
    }
  }
  return errs;
}

function validateLimitRange(object: KubeObject): FieldError[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const limits = Array.isArray(spec.limits) ? spec.limits : [];
  const seen = new Set<string>();
  return limits.flatMap((item, i) =>
    validateItem(isRecord(item) ? item : {}, index("spec.limits", i), seen),
  );
}

/**
 * SetDefaults_LimitRangeItem: a Container item's default limit comes from its max, and its
 * default request from the default limit, else from the min.
 */
function withDefaults(object: KubeObject): KubeObject {
  const spec = isRecord(object.spec) ? object.spec : undefined;
  if (!spec || !Array.isArray(spec.limits)) return object;
  const limits = spec.limits.map((item) => {
    if (!isRecord(item) || item.type !== "Container") return item;
    const dflt = {
      ...(isRecord(item.max) ? item.max : {}),
      ...(isRecord(item.default) ? item.default : {}),
    };
    const request = {
      ...(isRecord(item.min) ? item.min : {}),
      ...dflt,
      ...(isRecord(item.defaultRequest) ? item.defaultRequest : {}),
    };
    const out: Record<string, unknown> = { ...item };
    if (Object.keys(dflt).length > 0) out.default = dflt;
    if (Object.keys(request).length > 0) out.defaultRequest = request;
    return out;
  });
  return { ...object, spec: { ...spec, limits } };
}

const LIMIT_RANGE_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const defaulted = withDefaults(object);
    return checked(defaulted, validateLimitRange(defaulted));
  },
  prepareForUpdate(next) {
    const defaulted = withDefaults(next);
    return checked(defaulted, validateLimitRange(defaulted));
  },
};

const ITEM = struct(
  {
    type: str(1, { go: "v1.LimitType", keep: true }),
    max: mapOf(qty(), 2, RESOURCE_LIST),
    min: mapOf(qty(), 3, RESOURCE_LIST),
    default: mapOf(qty(), 4, RESOURCE_LIST),
    defaultRequest: mapOf(qty(), 5, RESOURCE_LIST),
    maxLimitRequestRatio: mapOf(qty(), 6, RESOURCE_LIST),
  },
  { go: "v1.LimitRangeItem" },
);

export const limitRange: KindDefinition<"LimitRange"> = {
  kind: "LimitRange",
  resource: "limitranges",
  singular: "limitrange",
  description:
    "A LimitRange sets the minimum, maximum and default compute resources of the containers and pods in its namespace; pods are checked and defaulted against it when they are created.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.LimitRange", {
        spec: pb(2, struct({ limits: atomicOf(ITEM, 1) }, { go: "v1.LimitRangeSpec" })),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["limits"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: LIMIT_RANGE_STRATEGY,
  printer: {
    columns: [NAME, col("Created At", "date", "When the object was created.")],
    cells: (obj) => [obj.metadata.name, String(obj.metadata.creationTimestamp ?? "")],
  },
};
