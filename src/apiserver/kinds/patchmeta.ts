// The strategic merge patch's schema (src/api/patch) read from the kinds' apply schemas: the
// `patchMergeKey` / `patchStrategy` tags annotated on their list nodes.
import type { ListPatchMeta, PatchMeta } from "../../api/patch/strategic-merge-patch.js";
import { kindDefinition } from "./registry.js";
import type { ApplySchema } from "./types.js";

const cache = new WeakMap<ApplySchema, PatchMeta>();

/** The patch meta of a value with this apply schema. */
export function applySchemaPatchMeta(schema: ApplySchema): PatchMeta {
  const cached = cache.get(schema);
  if (cached) return cached;
  const meta: PatchMeta = {
    field(name) {
      switch (schema.kind) {
        case "struct": {
          const field = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
          return field && applySchemaPatchMeta(field);
        }
        case "map":
          return applySchemaPatchMeta(schema.element);
        default:
          // deduced (or a scalar given an object): unknown below.
          return undefined;
      }
    },
    list(): ListPatchMeta {
      if (schema.kind !== "list") return {};
      return { ...schema.patch, items: applySchemaPatchMeta(schema.element) };
    },
  };
  cache.set(schema, meta);
  return meta;
}

/** The patch meta of a served kind's object in one version (default: the preferred one). */
export function patchMetaOf(kind: string, version?: string): PatchMeta | undefined {
  const versions = kindDefinition(kind)?.versions ?? [];
  const served = version === undefined ? versions[0] : versions.find((v) => v.version === version);
  return served && applySchemaPatchMeta(served.apply);
}

/** The patch meta of a workload kind's `spec.template` (a PodTemplateSpec). */
export function podTemplatePatchMeta(kind: string): PatchMeta | undefined {
  return patchMetaOf(kind)?.field("spec")?.field("template");
}
