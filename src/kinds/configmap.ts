// core/v1 ConfigMap: data and binaryData under config keys, at most 1 MiB, `immutable`.
import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import { invalid, validateObjectMetaUpdate } from "../api/validation.js";
import { entries, validateImmutableData, validateKeys, validateSize } from "./datavalidation.js";
import { topLevel } from "./meta.js";
import { AGE, col, NAME, since } from "./printing.js";
import { bool, mapOf, pb, stringMap } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const bytes = { kind: "scalar", type: "bytes" } as const;

/** ValidateConfigMap: keys, no key in both maps, the size of both. */
function validateConfigMap(object: KubeObject): FieldError[] {
  const data = entries(object.data);
  const binary = new Map(entries(object.binaryData));
  const errs = validateKeys(object.data, "data");
  for (const [key] of data) {
    if (binary.has(key)) {
      errs.push(invalid(`data[${key}]`, key, "duplicate of key present in binaryData"));
    }
  }
  errs.push(...validateKeys(object.binaryData, "binaryData"));
  // binaryData counts decoded, as upstream's []byte.
  const size =
    data.reduce((n, [, v]) => n + Buffer.byteLength(v), 0) +
    [...binary.values()].reduce((n, v) => n + Buffer.from(v, "base64").length, 0);
  errs.push(...validateSize(size));
  return errs;
}

const CONFIG_MAP_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => checked(object, validateConfigMap(object)),
  prepareForUpdate: (next, current) =>
    checked(next, [
      ...validateObjectMetaUpdate(next.metadata, current.metadata),
      ...validateImmutableData(next, current, ["data", "binaryData"]),
      ...validateConfigMap(next),
    ]),
};

export const configMap: KindDefinition<"ConfigMap"> = {
  kind: "ConfigMap",
  resource: "configmaps",
  singular: "configmap",
  description:
    "A ConfigMap holds configuration as key-value pairs (text in data, binary in binaryData) that pods read as environment variables or files. At most 1 MiB.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.ConfigMap", {
        immutable: bool(4, { ptr: true }),
        data: pb(2, stringMap),
        binaryData: mapOf(bytes, 3),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["cm"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: CONFIG_MAP_STRATEGY,
  printer: {
    columns: [NAME, col("Data", "string", "The number of keys in data and binaryData."), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      entries(obj.data).length + entries(obj.binaryData).length,
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
