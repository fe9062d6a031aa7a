// apiextensions.k8s.io/v1 CustomResourceDefinition: accepted so that the Prometheus Operator's
// CRDs apply (`kubectl apply --server-side -f` its bundle). Horizon serves the kinds it has a
// definition for (ServiceMonitor is built in); a CRD for any other kind is stored with a warning
// that its resources are not served. Names are checked as kube-apiserver checks them.
import type { KubeObject } from "../../api/types.js";
import type { FieldError } from "../../api/validation.js";
import { root } from "./meta.js";
import { col, NAME, text } from "./printing.js";
import { DEDUCED } from "./schema.js";
import { type KindDefinition, type Prepared, READ_WRITE } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Kinds served by a built-in definition, by `plural.group` (kept here: the registry imports us). */
const BUILT_IN: readonly string[] = ["servicemonitors.monitoring.coreos.com"];

function validate(crd: KubeObject): FieldError[] {
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

function prepare(crd: KubeObject): Prepared {
  const errors = validate(crd);
  if (errors.length > 0) return { ok: false, errors };
  const served = BUILT_IN.includes(crd.metadata.name);
  return {
    ok: true,
    value: crd,
    ...(served
      ? {}
      : {
          warnings: [
            `Horizon serves only its built-in kinds: ${crd.metadata.name} is stored, its resources are not served`,
          ],
        }),
  };
}

export const customResourceDefinition: KindDefinition<"CustomResourceDefinition"> = {
  kind: "CustomResourceDefinition",
  resource: "customresourcedefinitions",
  singular: "customresourcedefinition",
  description:
    "A CustomResourceDefinition adds a resource kind to the API: its group, names, versions and their schemas. Horizon serves the custom resources it defines.",
  group: "apiextensions.k8s.io",
  versions: [{ version: "v1", schema: root("v1.CustomResourceDefinition", DEDUCED, DEDUCED) }],
  namespaced: false,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: (next) => prepare(next),
  },
  printer: {
    columns: [NAME, col("Created At", "date", "CreationTimestamp of the object")],
    cells: (obj) => [obj.metadata.name, text(obj.metadata.creationTimestamp)],
  },
};
