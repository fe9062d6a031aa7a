// apiextensions.k8s.io/v1 CustomResourceDefinition: once stored, its resources are served
// generically (./custom.ts); ServiceMonitor keeps its built-in definition. The strategy plays
// the part of apiextensions' naming and establishing controllers: it writes the status
// (acceptedNames, storedVersions, NamesAccepted and Established) as they would, at once.
import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { type FieldError, OMITTED_VALUE } from "../api/validation.js";
import { ruleCompileErrors } from "./crdcel.js";
import { parseJsonPath } from "./crdprinter.js";
import { listTypeErrors, meetsRatchetedListTypeRules, structuralErrors } from "./crdschema.js";
import { acceptNames, crdNames } from "./custom.js";
import { root } from "./meta.js";
import { col, NAME, text } from "./printing.js";
import { DEDUCED } from "./schema.js";
import { type KindDefinition, type Prepared, READ_WRITE, type StrategyContext } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The openAPIV3Schema of each version of a CRD's spec (undefined where there is none). */
function versionSchemas(spec: Obj): unknown[] {
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  return versions.map((v) => (isObj(v) && isObj(v.schema) ? v.schema.openAPIV3Schema : undefined));
}

/**
 * Whether the list-type rules an update ratchets apply: always on create, on an update only when
 * the stored CRD already met them (upstream's requireAtomicSetType and
 * requireMapListKeysMapSetValidation, taken together).
 */
function strictListTypes(current: KubeObject | undefined): boolean {
  if (!current) return true;
  const spec = (current as Obj).spec;
  if (!isObj(spec)) return true;
  return versionSchemas(spec).every(
    (schema, i) =>
      !isObj(schema) ||
      meetsRatchetedListTypeRules(schema, `spec.versions[${i}].schema.openAPIV3Schema`),
  );
}

function validate(crd: KubeObject, current?: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isObj((crd as Obj).spec) ? ((crd as Obj).spec as Obj) : null;
  if (!spec) return [{ type: "FieldValueRequired", field: "spec", detail: "Required value" }];
  const names = isObj(spec.names) ? spec.names : {};
  const required = (field: string, value: unknown) => {
    if (typeof value !== "string" || value === "") {
      errors.push({ type: "FieldValueRequired", field, detail: "Required value" });
    }
  };
  required("spec.group", spec.group);
  required("spec.names.plural", names.plural);
  required("spec.names.kind", names.kind);
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    errors.push({
      type: "FieldValueNotSupported",
      field: "spec.scope",
      badValue: spec.scope ?? "",
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  }
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    errors.push({
      type: "FieldValueRequired",
      field: "spec.versions",
      detail: "must have exactly one version marked as storage version",
    });
  } else {
    const storage = spec.versions.filter((v) => isObj(v) && v.storage === true).length;
    if (storage !== 1) {
      errors.push({
        type: "FieldValueInvalid",
        field: "spec.versions",
        badValue: OMITTED_VALUE,
        detail: "must have exactly one version marked as storage version",
      });
    }
    const strict = strictListTypes(current);
    spec.versions.forEach((v: unknown, i) => {
      const at = `spec.versions[${i}].schema.openAPIV3Schema`;
      const schema = isObj(v) && isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
      // apiextensions.k8s.io/v1 requires a structural schema for every version.
      if (!isObj(schema))
        errors.push({ type: "FieldValueRequired", field: at, detail: "schemas are required" });
      else {
        errors.push(
          ...listTypeErrors(schema, at, !strict),
          ...structuralErrors(schema, at),
          ...ruleCompileErrors(schema, at),
        );
      }
      errors.push(...versionErrors(v, `spec.versions[${i}]`));
    });
  }
  if (typeof spec.group === "string" && typeof names.plural === "string") {
    const expected = `${names.plural}.${spec.group}`;
    if (crd.metadata.name !== expected) {
      errors.push({
        type: "FieldValueInvalid",
        field: "metadata.name",
        badValue: crd.metadata.name,
        detail: `must be spec.names.plural+"."+spec.group`,
      });
    }
  }
  return errors;
}

/** The scale subresource's paths and the printer columns' JSONPaths of one version. */
function versionErrors(version: unknown, at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObj(version)) return errors;
  const scale = isObj(version.subresources) ? version.subresources.scale : undefined;
  if (isObj(scale)) {
    for (const name of ["specReplicasPath", "statusReplicasPath"]) {
      const path = scale[name];
      const field = `${at}.subresources.scale.${name}`;
      if (typeof path !== "string" || path === "") {
        errors.push({ type: "FieldValueRequired", field, detail: "" });
      } else if (!/^(\.[A-Za-z0-9_-]+)+$/.test(path)) {
        errors.push({
          type: "FieldValueInvalid",
          field,
          badValue: path,
          detail: "should be a json path under either `.spec` or `.status`",
        });
      }
    }
  }
  const columns = Array.isArray(version.additionalPrinterColumns)
    ? version.additionalPrinterColumns
    : [];
  for (const [j, c] of columns.entries()) {
    const field = `${at}.additionalPrinterColumns[${j}]`;
    if (!isObj(c)) continue;
    if (typeof c.name !== "string" || c.name === "")
      errors.push({ type: "FieldValueRequired", field: `${field}.name`, detail: "" });
    const types = ["integer", "number", "string", "boolean", "date"];
    if (typeof c.type !== "string" || !types.includes(c.type)) {
      errors.push({
        type: "FieldValueNotSupported",
        field: `${field}.type`,
        badValue: c.type ?? "",
        detail: `supported values: ${types.map((t) => `"${t}"`).join(", ")}`,
      });
    }
    if (typeof c.jsonPath !== "string" || parseJsonPath(c.jsonPath) === null) {
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}.jsonPath`,
        badValue: c.jsonPath ?? "",
        detail: "must be a simple json path",
      });
    }
  }
  return errors;
}

function prepare(
  crd: KubeObject,
  current: KubeObject | undefined,
  context: StrategyContext,
): Prepared {
  const errors = validate(crd, current);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { ...crd, status: statusOf(crd, current, context.now) } as KubeObject };
}

interface Condition {
  type: string;
  status: "True" | "False";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/**
 * The naming controller's second look: a CRD whose names were not accepted, with the status it
 * gets now that other CRDs may have gone (null when nothing changes).
 */
export function reconsideredNames(crd: KubeObject, now: number): KubeObject | null {
  const status = (crd as Obj).status;
  const conditions = isObj(status) && Array.isArray(status.conditions) ? status.conditions : [];
  const accepted = conditions.some(
    (c) => isObj(c) && c.type === "NamesAccepted" && c.status === "True",
  );
  if (accepted || !isObj((crd as Obj).spec)) return null;
  const next = statusOf(crd, crd, now);
  return JSON.stringify(next) === JSON.stringify(status)
    ? null
    : ({ ...crd, status: next } as KubeObject);
}

/** What the naming and establishing controllers would write; transitions keep their time. */
function statusOf(crd: KubeObject, current: KubeObject | undefined, at: number | undefined) {
  const spec = (crd as Obj).spec as Obj;
  const names = crdNames(spec);
  const { accepted, conflict } = acceptNames(crd.metadata.name, spec.group as string, names);
  const now = rfc3339(at ?? Date.now());
  const previous = (current as Obj | undefined)?.status;
  const before = isObj(previous) && Array.isArray(previous.conditions) ? previous.conditions : [];
  const condition = (c: Omit<Condition, "lastTransitionTime">): Condition => {
    const old = before.find((o): o is Obj => isObj(o) && o.type === c.type);
    const since =
      old && old.status === c.status && typeof old.lastTransitionTime === "string"
        ? old.lastTransitionTime
        : now;
    return {
      type: c.type,
      status: c.status,
      lastTransitionTime: since,
      reason: c.reason,
      message: c.message,
    };
  };
  const conditions = conflict
    ? [
        condition({ type: "NamesAccepted", status: "False", ...conflict }),
        condition({
          type: "Established",
          status: "False",
          reason: "NotAccepted",
          message: "not all names are accepted",
        }),
      ]
    : [
        condition({
          type: "NamesAccepted",
          status: "True",
          reason: "NoConflicts",
          message: "no conflicts found",
        }),
        condition({
          type: "Established",
          status: "True",
          reason: "InitialNamesAccepted",
          message: "the initial names have been accepted",
        }),
      ];
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const stored =
    isObj(previous) && Array.isArray(previous.storedVersions)
      ? (previous.storedVersions as unknown[])
      : [];
  const storedVersions = [...stored.filter((v) => typeof v === "string")];
  if (typeof storage === "string" && !storedVersions.includes(storage))
    storedVersions.push(storage);
  return {
    // plural and kind are always written (no omitempty), the others when accepted.
    acceptedNames: conflict
      ? { ...accepted, plural: accepted.plural ?? "", kind: accepted.kind ?? "" }
      : names,
    conditions,
    storedVersions,
  };
}

export const customResourceDefinition: KindDefinition<"CustomResourceDefinition"> = {
  kind: "CustomResourceDefinition",
  resource: "customresourcedefinitions",
  singular: "customresourcedefinition",
  description:
    "A CustomResourceDefinition adds a resource kind to the API: its group, names, versions and their schemas. Once established, the API server serves its custom resources.",
  group: "apiextensions.k8s.io",
  versions: [{ version: "v1", schema: root("v1.CustomResourceDefinition", DEDUCED, DEDUCED) }],
  namespaced: false,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [],
  strategy: {
    prepareForCreate: (crd, context) => prepare(crd, undefined, context),
    prepareForUpdate: (next, current, context) => prepare(next, current, context),
  },
  printer: {
    columns: [NAME, col("Created At", "date", "CreationTimestamp of the object")],
    cells: (obj) => [obj.metadata.name, text(obj.metadata.creationTimestamp)],
  },
};
