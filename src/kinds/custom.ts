// Custom resources (apiextensions-apiserver): each established CustomResourceDefinition becomes a
// KindDefinition, so discovery, the registry store, Tables and the cluster's store serve its
// resources as they serve a built-in kind. The object store establishes a CRD when it stores
// one and withdraws it when the CRD is deleted. Kinds are keyed by name everywhere in Horizon
// (the store, scope, error messages), so a kind is served by one definition at a time, and the
// definitions are process-wide: embedded clusters in one process share them.
import type { ScalePaths } from "../api/scale.js";
import type { KubeObject } from "../api/types.js";
import { type FieldError, invalid } from "../api/validation.js";
import { celErrors, hasRules } from "./crdcel.js";
import { printerOf } from "./crdprinter.js";
import { type JsonSchema, schemaTreeOf, validateAgainst, withDefaults } from "./crdschema.js";
import { AGE, NAME } from "./printing.js";
import {
  type KindDefinition,
  type KindVersion,
  type Prepared,
  READ_WRITE,
  type ServedKind,
  type Subresource,
} from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The names a CRD asks for (spec.names), as its status' acceptedNames echo them. */
export interface CrdNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

interface CustomKind {
  /** The CRD's name, `plural.group`. */
  crd: string;
  names: CrdNames;
  definition: KindDefinition;
  /** Each served version's openAPIV3Schema, by apiVersion. */
  schemas: Map<string, JsonSchema>;
  /** The preferred version's scale subresource. */
  scale?: ScalePaths;
}

const BY_KIND = new Map<string, CustomKind>();
/** Kinds and `plural.group` names served by built-in definitions (the registry lists them). */
const RESERVED = { kinds: new Set<string>(), resources: new Set<string>() };
let generation = 0;

/** Called once by the registry: a CRD cannot take over a built-in kind. */
export function reserveBuiltIn(definitions: readonly KindDefinition[]): void {
  for (const d of definitions) {
    RESERVED.kinds.add(d.kind);
    RESERVED.resources.add(d.group ? `${d.resource}.${d.group}` : d.resource);
  }
}

/** Bumped whenever the set of custom kinds changes (discovery and the catalogue rebuild). */
export function customGeneration(): number {
  return generation;
}

export function customDefinition(kind: string): KindDefinition | undefined {
  return BY_KIND.get(kind)?.definition;
}

/** Where a custom kind's scale subresource reads and writes replicas; undefined for other kinds. */
export function customScalePaths(kind: string): ScalePaths | undefined {
  return BY_KIND.get(kind)?.scale;
}

export function isCustomKind(kind: string): boolean {
  return BY_KIND.has(kind);
}

export function customDefinitions(): KindDefinition[] {
  return [...BY_KIND.values()].map((c) => c.definition);
}

/** The kind a CRD serves while it is established. */
export function customKindOfCrd(crdName: string): string | undefined {
  for (const [kind, custom] of BY_KIND) if (custom.crd === crdName) return kind;
  return undefined;
}

/** spec.names with listKind and singular defaulted as upstream does. */
export function crdNames(spec: Obj): CrdNames {
  const names = isObj(spec.names) ? spec.names : {};
  const kind = typeof names.kind === "string" ? names.kind : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  const out: CrdNames = {
    kind,
    listKind: typeof names.listKind === "string" && names.listKind ? names.listKind : `${kind}List`,
    plural,
    singular:
      typeof names.singular === "string" && names.singular ? names.singular : kind.toLowerCase(),
  };
  const strings = (v: unknown) =>
    Array.isArray(v) && v.every((s) => typeof s === "string") && v.length > 0
      ? (v as string[])
      : undefined;
  const shortNames = strings(names.shortNames);
  if (shortNames) out.shortNames = shortNames;
  const categories = strings(names.categories);
  if (categories) out.categories = categories;
  return out;
}

/** The names accepted of what a CRD asks for, and why the others were not (or null). */
export interface NamesVerdict {
  accepted: Partial<CrdNames>;
  conflict: { reason: string; message: string } | null;
}

/**
 * apiextensions' naming controller: each name asked for is accepted unless another established
 * CRD of the group uses it (plural, singular and short names among their resource names; kind
 * and list kind among their kinds); the last name refused gives the reason (PluralConflict,
 * SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict). Horizon keys stored
 * objects by kind, so a kind served by a built-in definition or a CRD of another group is a
 * KindConflict too.
 */
export function acceptNames(crdName: string, group: string, names: CrdNames): NamesVerdict {
  if (RESERVED.resources.has(crdName)) return { accepted: names, conflict: null };
  const resources = new Set<string>();
  const kinds = new Set<string>();
  const kindsElsewhere = new Set<string>(RESERVED.kinds);
  for (const other of BY_KIND.values()) {
    if (other.crd === crdName) continue;
    if (other.definition.group !== group) {
      kindsElsewhere.add(other.names.kind);
      continue;
    }
    resources.add(other.names.plural).add(other.names.singular);
    for (const short of other.names.shortNames ?? []) resources.add(short);
    kinds.add(other.names.kind).add(other.names.listKind);
  }
  const inUse = (what: string) => `${JSON.stringify(what)} is already in use`;
  const accepted: Partial<CrdNames> = {};
  let conflict: NamesVerdict["conflict"] = null;
  if (resources.has(names.plural))
    conflict = { reason: "PluralConflict", message: inUse(names.plural) };
  else accepted.plural = names.plural;
  if (resources.has(names.singular)) {
    conflict = { reason: "SingularConflict", message: inUse(names.singular) };
  } else accepted.singular = names.singular;
  const taken = (names.shortNames ?? []).filter((short) => resources.has(short)).map(inUse);
  if (taken.length > 0) {
    // utilerrors.Aggregate's text: one error bare, several in brackets.
    const message = taken.length === 1 ? taken[0]! : `[${taken.join(", ")}]`;
    conflict = { reason: "ShortNamesConflict", message };
  } else if (names.shortNames) accepted.shortNames = names.shortNames;
  if (kinds.has(names.kind) || kindsElsewhere.has(names.kind)) {
    conflict = { reason: "KindConflict", message: inUse(names.kind) };
  } else accepted.kind = names.kind;
  if (kinds.has(names.listKind)) {
    conflict = { reason: "ListKindConflict", message: inUse(names.listKind) };
  } else accepted.listKind = names.listKind;
  if (names.categories) accepted.categories = names.categories;
  return { accepted, conflict };
}

/** Whether the CRD is served by one of Horizon's built-in definitions (ServiceMonitor). */
export function isBuiltInCrd(crdName: string): boolean {
  return RESERVED.resources.has(crdName);
}

// ---------------------------------------------------------------------------------------------
// Establishing

/** A stored CRD: served when its status says Established, withdrawn otherwise. */
export function establish(crd: KubeObject): void {
  const name = crd.metadata.name;
  const previous = customKindOfCrd(name);
  const custom = isEstablished(crd) ? customKindFrom(crd) : undefined;
  if (previous !== undefined && previous !== custom?.names.kind) BY_KIND.delete(previous);
  if (custom) BY_KIND.set(custom.names.kind, custom);
  if (previous !== undefined || custom) generation++;
}

/** The CRD was deleted: its kind is no longer served. */
export function withdraw(crdName: string): void {
  const kind = customKindOfCrd(crdName);
  if (kind === undefined) return;
  BY_KIND.delete(kind);
  generation++;
}

function isEstablished(crd: KubeObject): boolean {
  if (isBuiltInCrd(crd.metadata.name)) return false;
  const status = (crd as Obj).status;
  const conditions = isObj(status) && Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((c) => isObj(c) && c.type === "Established" && c.status === "True");
}

/** A version of a CRD as written in spec.versions[]. */
interface CrdVersion {
  name: string;
  subresources: Subresource[];
  schema: JsonSchema;
  scale?: ScalePaths;
  columns: Obj[];
}

function crdVersions(spec: Obj): CrdVersion[] {
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
  return versions
    .filter((v) => typeof v.name === "string" && v.served !== false)
    .map((v) => {
      const sub = isObj(v.subresources) ? v.subresources : {};
      const subresources: Subresource[] = [];
      if (isObj(sub.status)) subresources.push("status");
      if (isObj(sub.scale)) subresources.push("scale");
      const schema =
        isObj(v.schema) && isObj(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : {};
      const version: CrdVersion = {
        name: v.name as string,
        subresources,
        schema,
        columns: Array.isArray(v.additionalPrinterColumns)
          ? v.additionalPrinterColumns.filter(isObj)
          : [],
      };
      const scale = sub.scale;
      if (isObj(scale) && typeof scale.specReplicasPath === "string") {
        version.scale = {
          specReplicasPath: scale.specReplicasPath,
          statusReplicasPath:
            typeof scale.statusReplicasPath === "string" ? scale.statusReplicasPath : "",
          ...(typeof scale.labelSelectorPath === "string"
            ? { labelSelectorPath: scale.labelSelectorPath }
            : {}),
        };
      }
      return version;
    })
    .sort((a, b) => compareVersions(a.name, b.name));
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version priority (upstream's version.CompareKubeAwareVersionStrings): GA before
 * beta before alpha, higher numbers first, then other names alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | null => {
    const m = KUBE_VERSION.exec(v);
    if (!m) return null;
    const level = m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[0] !== rb[0]) return rb[0] - ra[0];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[2] - ra[2];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function customKindFrom(crd: KubeObject): CustomKind | undefined {
  const spec = (crd as Obj).spec;
  if (!isObj(spec) || typeof spec.group !== "string") return undefined;
  const names = crdNames(spec);
  const versions = crdVersions(spec);
  const preferred = versions[0];
  if (!preferred || names.kind === "" || names.plural === "") return undefined;
  const subresources = preferred.subresources;
  const kindVersions: KindVersion[] = versions.map((v) => ({
    version: v.name,
    schema: schemaTreeOf(`${v.name}.${names.kind}`, v.schema),
  }));
  const schemas = new Map(versions.map((v) => [`${spec.group}/${v.name}`, v.schema]));
  const schemaOf = (object: KubeObject) => schemas.get(object.apiVersion) ?? preferred.schema;
  /** Defaults, then the schema's validation and its CEL rules (upstream: after pruning). */
  const admit = (object: KubeObject, current?: KubeObject): Prepared => {
    const schema = schemaOf(object);
    const value = withDefaults(schema, object);
    const errors = validateAgainst(schema, value);
    errors.push(...rulesChecked(schema, value, current, errors));
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
  };
  const definition: KindDefinition = {
    // A custom kind is not one of the built-in ServedKinds; the registry's views read it by name.
    kind: names.kind as ServedKind,
    resource: names.plural,
    singular: names.singular,
    group: spec.group,
    versions: kindVersions,
    namespaced: spec.scope !== "Cluster",
    verbs: READ_WRITE,
    subresources,
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    ...(names.categories ? { categories: names.categories } : {}),
    gcPolicy: "None",
    generation: "content",
    fieldSelectors: [],
    strategy: {
      prepareForCreate: (object) => admit(withoutStatus(object, subresources)),
      prepareForUpdate: (next, current) => admit(next, current),
      validateStatusUpdate: (next, current): FieldError[] => {
        const errors = validateAgainst(schemaOf(next), next);
        return [...errors, ...rulesChecked(schemaOf(next), next, current, errors)];
      },
    },
    printer: printerOf(NAME, { ...AGE, type: "date" }, preferred.columns),
  };
  return {
    crd: crd.metadata.name,
    names,
    definition,
    schemas,
    ...(preferred.scale ? { scale: preferred.scale } : {}),
  };
}

/**
 * The CEL rules' errors, unless the schema's errors make the object unfit for them (a wrong type
 * or a value outside an enum): then upstream's one error saying they were not checked.
 */
function rulesChecked(
  schema: JsonSchema,
  object: KubeObject,
  current: KubeObject | undefined,
  schemaErrors: readonly FieldError[],
): FieldError[] {
  if (!hasRules(schema)) return [];
  const blocking = schemaErrors.some(
    (e) => e.type === "FieldValueNotSupported" || e.detail.includes(" in body must be of type "),
  );
  if (!blocking) return celErrors(schema, object, current);
  return [
    // Go prints a nil bad value as "null"; the path is nil.
    invalid(
      "<nil>",
      "null",
      "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    ),
  ];
}

/** With the status subresource, a create's status is dropped (upstream's PrepareForCreate). */
function withoutStatus(object: KubeObject, subresources: readonly Subresource[]): KubeObject {
  if (!subresources.includes("status") || !("status" in object)) return object;
  const { status: _status, ...rest } = object as Obj;
  return rest as KubeObject;
}

/** The openAPIV3Schema of a custom kind in `apiVersion` (OpenAPI publishes it). */
export function customSchema(kind: string, apiVersion: string): JsonSchema | undefined {
  return BY_KIND.get(kind)?.schemas.get(apiVersion);
}

/** A stored custom resource as read in `apiVersion`: defaults apply on read too, as upstream. */
export function withCustomDefaults(object: KubeObject, apiVersion: string): KubeObject {
  const schema = BY_KIND.get(object.kind)?.schemas.get(apiVersion);
  return schema ? withDefaults(schema, object) : object;
}
