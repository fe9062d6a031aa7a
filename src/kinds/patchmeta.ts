// The strategic merge patch's schema (src/api/patch) read from the kinds' schema trees: the
// `patchMergeKey` / `patchStrategy` tags annotated on their list nodes.
import type { ListPatchMeta, PatchMeta } from "../api/patch/strategic-merge-patch.js";
import { kindDefinition } from "./registry.js";
import { jsonFields, type SchemaNode } from "./schema.js";

const cache = new WeakMap<SchemaNode, PatchMeta>();

/** The patch meta of a value with this schema tree; below a deduced part nothing is known. */
export function schemaPatchMeta(schema: SchemaNode): PatchMeta {
  const cached = cache.get(schema);
  if (cached) return cached;
  let fields: Map<string, SchemaNode> | undefined;
  const meta: PatchMeta = {
    field(name) {
      switch (schema.kind) {
        case "struct": {
          // As the apply schema: a field it does not list is unknown below.
          fields ??= new Map(jsonFields(schema).filter(([, v]) => !v.applyUnlisted));
          const field = fields.get(name);
          return field && schemaPatchMeta(field);
        }
        case "map":
          return schemaPatchMeta(schema.element);
        default:
          // deduced (or a scalar given an object): unknown below.
          return undefined;
      }
    },
    list(): ListPatchMeta {
      if (schema.kind !== "list") return {};
      return { ...schema.patch, items: schemaPatchMeta(schema.element) };
    },
  };
  cache.set(schema, meta);
  return meta;
}

/** The patch meta of a served kind's object in one version (default: the preferred one). */
export function patchMetaOf(kind: string, version?: string): PatchMeta | undefined {
  const versions = kindDefinition(kind)?.versions ?? [];
  const served = version === undefined ? versions[0] : versions.find((v) => v.version === version);
  return served && schemaPatchMeta(served.schema);
}

/** The patch meta of a workload kind's `spec.template` (a PodTemplateSpec). */
export function podTemplatePatchMeta(kind: string): PatchMeta | undefined {
  return patchMetaOf(kind)?.field("spec")?.field("template");
}
