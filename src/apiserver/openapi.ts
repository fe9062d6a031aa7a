// OpenAPI v3 `components.schemas` derived from the kinds' schema trees (kinds/schema.ts), in
// the shape kube-apiserver publishes: one definition per Go struct, named by its Go package as
// upstream names it (`io.k8s.api.apps.v1.Deployment`), struct fields as `allOf: [$ref]`,
// `x-kubernetes-group-version-kind` on the kinds, and the list/map/patch extensions from the
// tree. `kubectl explain` reads them; client-side apply and diff read their patch merge keys.
import { customSchema } from "../kinds/custom.js";
import { HPA_FIELD_DOCS } from "../kinds/horizontalpodautoscaler-docs.js";
import { KIND_LIST, servedDefinitions } from "../kinds/registry.js";
import { type GoScalar, jsonFields, type SchemaNode, type StructNode } from "../kinds/schema.js";
import type { KindDefinition } from "../kinds/types.js";

type Schema = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
/** Structs of k8s.io/apimachinery's meta/v1 (the kinds' trees name them `v1.<Name>`). */
const META_STRUCTS = new Set([
  "v1.ObjectMeta",
  "v1.OwnerReference",
  "v1.ManagedFieldsEntry",
  "v1.LabelSelector",
  "v1.LabelSelectorRequirement",
  "v1.Condition",
  "v1.ListMeta",
]);

/** The Go package of a group's types (without the version), as upstream's definition names spell it. */
function groupPackage(group: string): string {
  if (group === "") return "io.k8s.api.core";
  if (group === "apiextensions.k8s.io")
    return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions";
  if (group === "apiregistration.k8s.io") return "io.k8s.kube-aggregator.pkg.apis.apiregistration";
  // k8s.io/api/<first label>: rbac.authorization.k8s.io → rbac, discovery.k8s.io → discovery.
  if (group.endsWith(".k8s.io") || !group.includes(".")) return `io.k8s.api.${group.split(".")[0]}`;
  // A custom resource's group, reversed (monitoring.coreos.com → com.coreos.monitoring).
  return group.split(".").reverse().join(".");
}

/** Go struct names that belong to k8s.io/api/core/v1: those in the core group's kinds. */
const CORE_STRUCTS = new Set<string>();
function collectGoNames(node: SchemaNode): void {
  if (node.kind === "struct") {
    if (node.go) CORE_STRUCTS.add(node.go);
    for (const child of Object.values(node.fields)) collectGoNames(child);
  } else if (node.kind === "map" || node.kind === "list") collectGoNames(node.element);
  else if (node.kind === "deduced" && node.shape) collectGoNames(node.shape);
}
for (const d of KIND_LIST) if (d.group === "") for (const v of d.versions) collectGoNames(v.schema);

const REF = (name: string) => `#/components/schemas/${name}`;
const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/** The named scalar definitions the scalars refer to, as upstream writes them. */
const SCALAR_DEFINITIONS: Record<string, Schema> = {
  [QUANTITY]: {
    description:
      "A fixed-point number with an optional suffix: `500m`, `2`, `1.5Gi`, `1e3`. Written as a string, returned in its canonical form.",
    oneOf: [{ type: "string" }, { type: "number" }],
  },
  [INT_OR_STRING]: {
    description:
      "An integer or a string, such as a port number or name, or a percentage like `25%`.",
    type: "string",
    format: "int-or-string",
    "x-kubernetes-int-or-string": true,
  },
  [`${META}.Time`]: {
    description: "A timestamp in RFC 3339 form, to the second (`2026-11-24T20:15:00Z`).",
    type: "string",
    format: "date-time",
  },
  [`${META}.MicroTime`]: {
    description: "A timestamp in RFC 3339 form with microseconds.",
    type: "string",
    format: "date-time",
  },
};

/** Field descriptions by Go struct (`v2.HPAScalingRules`) and JSON field, where written down. */
const FIELD_DOCS: Record<string, Record<string, string>> = HPA_FIELD_DOCS;

const FIELD_DESCRIPTIONS: Record<string, string> = {
  apiVersion:
    "The versioned schema of this object's representation, `group/version` (`v1` for the core group). The server converts known values to the version it stores.",
  kind: "The type of this object, in CamelCase. The server infers it from the endpoint the request was sent to; it cannot be updated.",
  metadata: "Standard object metadata: name, namespace, labels, annotations, owners.",
  spec: "The desired state of the object, written by its users.",
  status:
    "The most recently observed state of the object, written by the system; read-only to users.",
};

/** Builds the schemas of one group-version's kinds and every struct they reach. */
class Builder {
  readonly schemas: Record<string, Schema> = {};
  /** Each kind's definition name. */
  readonly kinds = new Map<string, string>();

  constructor(private readonly pkg: string) {}

  definitionName(go: string): string {
    if (META_STRUCTS.has(go)) return `io.k8s.apimachinery.pkg.apis.meta.${go}`;
    if (CORE_STRUCTS.has(go)) return `io.k8s.api.core.${go}`;
    return `${this.pkg}.${go}`;
  }

  /** The kind's root struct as a named definition with its group-version-kind. */
  addKind(d: KindDefinition, version: string, root: StructNode): void {
    const name = this.definitionName(root.go ?? `${version}.${d.kind}`);
    this.kinds.set(d.kind, name);
    this.schemas[name] = {
      ...this.struct(root),
      ...(d.description ? { description: d.description } : {}),
      "x-kubernetes-group-version-kind": [{ group: d.group, kind: d.kind, version }],
    };
  }

  /**
   * A custom kind is described by its CRD's schema (its descriptions, types and validations),
   * with the server's apiVersion, kind and ObjectMeta, as apiextensions publishes it.
   */
  useCrdSchema(kind: string, crd: Schema): void {
    const name = this.kinds.get(kind)!;
    const built = this.schemas[name]!;
    const own = (crd.properties ?? {}) as Record<string, Schema>;
    const server = built.properties as Record<string, Schema>;
    this.schemas[name] = {
      ...crd,
      properties: {
        ...own,
        apiVersion: { ...own.apiVersion, ...server.apiVersion },
        kind: { ...own.kind, ...server.kind },
        metadata: server.metadata,
      },
      "x-kubernetes-group-version-kind": built["x-kubernetes-group-version-kind"],
    };
  }

  /** A property's schema: named structs and named scalars by reference, the rest inline. */
  property(node: SchemaNode): Schema {
    switch (node.kind) {
      case "scalar":
        return this.scalar(node.type);
      case "deduced":
        return node.shape
          ? this.property(node.shape)
          : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
      case "map":
        return {
          type: "object",
          additionalProperties: this.property(node.element),
          ...(node.zero ? { default: {} } : {}),
          ...(node.atomic ? { "x-kubernetes-map-type": "atomic" } : {}),
        };
      case "list":
        return {
          type: "array",
          items: this.property(node.element),
          "x-kubernetes-list-type": node.type,
          ...(node.keys ? { "x-kubernetes-list-map-keys": [...node.keys] } : {}),
          ...(node.patch?.mergeKey ? { "x-kubernetes-patch-merge-key": node.patch.mergeKey } : {}),
          ...(node.patch ? { "x-kubernetes-patch-strategy": node.patch.strategy } : {}),
        };
      case "struct": {
        if (!node.go) return this.struct(node);
        const name = this.definitionName(node.go);
        // The first tree that names a struct defines it (the kinds share one definition each).
        if (!(name in this.schemas)) {
          this.schemas[name] = {};
          this.schemas[name] = this.struct(node);
        }
        return { allOf: [{ $ref: REF(name) }], ...(node.zero ? { default: {} } : {}) };
      }
    }
  }

  scalar(type: GoScalar | undefined): Schema {
    switch (type) {
      case "string":
        return { type: "string" };
      case "int32":
      case "int64":
        return { type: "integer", format: type };
      case "float64":
        return { type: "number", format: "double" };
      case "bool":
        return { type: "boolean" };
      case "bytes":
        return { type: "string", format: "byte" };
      case "Quantity":
        return this.named(QUANTITY);
      case "IntOrString":
        return this.named(INT_OR_STRING);
      case "Time":
      case "MicroTime":
        return this.named(`${META}.${type}`);
      case undefined:
        return {};
    }
  }

  named(name: string): Schema {
    this.schemas[name] ??= SCALAR_DEFINITIONS[name] ?? {};
    return { allOf: [{ $ref: REF(name) }] };
  }

  struct(node: StructNode): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const [field, child] of jsonFields(node)) {
      const description =
        (node.go !== undefined ? FIELD_DOCS[node.go]?.[field] : undefined) ??
        FIELD_DESCRIPTIONS[field];
      properties[field] = { ...this.property(child), ...(description ? { description } : {}) };
      if (child.keep && child.kind === "scalar") required.push(field);
    }
    return {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(node.atomic ? { "x-kubernetes-map-type": "atomic" } : {}),
      ...(node.preserveUnknownFields ? { "x-kubernetes-preserve-unknown-fields": true } : {}),
    };
  }
}

export interface OpenApiSchemas {
  /** `components.schemas`, sorted by name. */
  schemas: Record<string, Schema>;
  /** The definition name of each kind of the group-version. */
  kinds: ReadonlyMap<string, string>;
}

/** The schemas of the OpenAPI v3 document of one group-version. */
export function openapiSchemas(group: string, version: string): OpenApiSchemas {
  const builder = new Builder(groupPackage(group));
  for (const d of servedDefinitions()) {
    if (d.group !== group) continue;
    for (const v of d.versions) {
      if (v.version !== version) continue;
      builder.addKind(d, version, v.schema);
      const crd = customSchema(d.kind, `${group}/${version}`);
      if (crd) builder.useCrdSchema(d.kind, crd);
    }
  }
  const schemas = Object.fromEntries(
    Object.entries(builder.schemas).sort(([a], [b]) => a.localeCompare(b)),
  );
  return { schemas, kinds: builder.kinds };
}
