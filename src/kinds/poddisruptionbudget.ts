// policy/v1 PodDisruptionBudget: stored and validated as upstream (minAvailable or
// maxUnavailable, each a count or a percentage, a valid selector), listed with upstream's
// columns. No disruption controller runs: status stays as written (ALLOWED DISRUPTIONS 0).
import { isRecord } from "../api/json.js";
import type { KubeObject, LabelSelector } from "../api/types.js";
import { type FieldError, invalid, notSupported } from "../api/validation.js";
import { LABEL_SELECTOR, root } from "./meta.js";
import { AGE, asRecord, col, int, NAME, since } from "./printing.js";
import { DEDUCED, intstr, pb, str, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";
import { validateIntOrPercent, validateLabelSelector } from "./workloadvalidation.js";

const EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];

function validatePdb(object: KubeObject): FieldError[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set", true));
  }
  errs.push(...validateIntOrPercent(spec.minAvailable, "spec.minAvailable"));
  errs.push(...validateIntOrPercent(spec.maxUnavailable, "spec.maxUnavailable"));
  if (isRecord(spec.selector)) {
    errs.push(...validateLabelSelector(spec.selector as LabelSelector, "spec.selector"));
  }
  const policy = spec.unhealthyPodEvictionPolicy;
  if (typeof policy === "string" && !EVICTION_POLICIES.includes(policy)) {
    errs.push(notSupported("spec.unhealthyPodEvictionPolicy", policy, EVICTION_POLICIES));
  }
  return errs;
}

const PDB_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    // A create carries no status: the disruption controller writes it.
    const { status: _status, ...rest } = object;
    return checked(rest as KubeObject, validatePdb(rest as KubeObject));
  },
  prepareForUpdate: (next) => checked(next, validatePdb(next)),
};

const intOrNA = (value: unknown) =>
  typeof value === "number" || typeof value === "string" ? String(value) : "N/A";

export const podDisruptionBudget: KindDefinition<"PodDisruptionBudget"> = {
  kind: "PodDisruptionBudget",
  resource: "poddisruptionbudgets",
  singular: "poddisruptionbudget",
  description:
    "A PodDisruptionBudget limits how many of the pods its selector picks may be down at once through voluntary disruptions (evictions, drains): at least minAvailable stay, or at most maxUnavailable go.",
  group: "policy",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root(
        "v1.PodDisruptionBudget",
        pb(
          2,
          struct(
            {
              minAvailable: intstr(1, { ptr: true }),
              selector: pb(2, LABEL_SELECTOR, { ptr: true }),
              maxUnavailable: intstr(3, { ptr: true }),
              unhealthyPodEvictionPolicy: str(4, {
                ptr: true,
                go: "v1.UnhealthyPodEvictionPolicyType",
              }),
            },
            { go: "v1.PodDisruptionBudgetSpec" },
          ),
        ),
        DEDUCED,
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["pdb"],
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [],
  strategy: PDB_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Min Available", "string", "The minimum number of pods that must stay available."),
      col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
      col("Allowed Disruptions", "integer", "How many pods may be disrupted now."),
      AGE,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      return [
        obj.metadata.name,
        intOrNA(spec.minAvailable),
        intOrNA(spec.maxUnavailable),
        int(asRecord(obj.status).disruptionsAllowed),
        since(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
