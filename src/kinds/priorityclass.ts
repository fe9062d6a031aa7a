// scheduling.k8s.io/v1 PriorityClass: a name for a pod priority, validated and defaulted as
// upstream (user values up to one billion, `system-` names reserved, value and preemption
// policy immutable). The two system classes exist from the start (SYSTEM_PRIORITY_CLASSES).
// Priority admission (../admission.ts) sets a new pod's priority from its class.
import type { KubeObject } from "../api/types.js";
import { type FieldError, forbidden, notSupported } from "../api/validation.js";
import { topLevel } from "./meta.js";
import { AGE, col, NAME, since, text } from "./printing.js";
import { bool, i32, str } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

export const HIGHEST_USER_PRIORITY = 1_000_000_000;
const PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"];

/** The classes kube-apiserver creates at start (scheduling's bootstrap), as it writes them. */
export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-node-critical" },
    value: 2_000_001_000,
    description: "Used for system critical pods that must not be moved from their current node.",
    preemptionPolicy: "PreemptLowerPriority",
  },
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-cluster-critical" },
    value: 2_000_000_000,
    description:
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    preemptionPolicy: "PreemptLowerPriority",
  },
];

function validatePriorityClass(object: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = object.metadata.name ?? "";
  const system = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
  if (name.startsWith("system-")) {
    const why = !system
      ? `name ${name} is not a known system priority class`
      : system.value !== object.value
        ? `value of ${name} PriorityClass must be ${system.value}`
        : object.globalDefault === true
          ? `globalDefault of ${name} PriorityClass must be false`
          : null;
    if (why) {
      errs.push(
        forbidden(
          "metadata.name",
          `priority class names with 'system-' prefix are reserved for system use only. error: ${why}`,
        ),
      );
    }
  } else if (typeof object.value === "number" && object.value > HIGHEST_USER_PRIORITY) {
    errs.push(
      forbidden(
        "value",
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`,
      ),
    );
  }
  const policy = object.preemptionPolicy;
  if (typeof policy === "string" && !PREEMPTION_POLICIES.includes(policy)) {
    errs.push(notSupported("preemptionPolicy", policy, PREEMPTION_POLICIES));
  }
  return errs;
}

/** SetDefaults_PriorityClass. */
function withDefaults(object: KubeObject): KubeObject {
  return object.preemptionPolicy === undefined || object.preemptionPolicy === null
    ? { ...object, preemptionPolicy: "PreemptLowerPriority" }
    : object;
}

const PRIORITY_CLASS_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const defaulted = withDefaults(object);
    return checked(defaulted, validatePriorityClass(defaulted));
  },
  prepareForUpdate(next, current) {
    const defaulted = withDefaults(next);
    const errs = validatePriorityClass(defaulted);
    if (defaulted.value !== current.value) {
      errs.push(forbidden("value", "may not be changed in an update."));
    }
    if (defaulted.preemptionPolicy !== current.preemptionPolicy) {
      errs.push({
        type: "FieldValueInvalid",
        field: "preemptionPolicy",
        badValue: defaulted.preemptionPolicy,
        detail: "field is immutable",
      });
    }
    return checked(defaulted, errs);
  },
};

export const priorityClass: KindDefinition<"PriorityClass"> = {
  kind: "PriorityClass",
  resource: "priorityclasses",
  singular: "priorityclass",
  description:
    "A PriorityClass maps a name to a pod priority: pods that name it get its value, and the scheduler places higher ones first (and may preempt lower ones).",
  group: "scheduling.k8s.io",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.PriorityClass", {
        value: i32(2, { keep: true }),
        globalDefault: bool(3),
        description: str(4),
        preemptionPolicy: str(5, { ptr: true, go: "v1.PreemptionPolicy" }),
      }),
    },
  ],
  namespaced: false,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["pc"],
  gcPolicy: "None",
  generation: "create",
  fieldSelectors: [],
  strategy: PRIORITY_CLASS_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Value", "integer", "The priority of the pods of this class."),
      col("Global-Default", "boolean", "Pods without a class get this one's value."),
      AGE,
      col("PreemptionPolicy", "string", "Whether pods of this class may preempt lower ones."),
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      typeof obj.value === "number" ? obj.value : 0,
      obj.globalDefault === true,
      since(obj.metadata.creationTimestamp, now),
      text(obj.preemptionPolicy),
    ],
  },
};
