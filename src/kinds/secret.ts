// core/v1 Secret: base64 data (stringData merged into it on write, never stored), a type
// defaulting to Opaque with the keys each type requires, at most 1 MiB, `immutable`.
import { setMember } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { type FieldError, invalid, required, validateObjectMetaUpdate } from "../api/validation.js";
import { entries, validateImmutableData, validateKeys, validateSize } from "./datavalidation.js";
import { topLevel } from "./meta.js";
import { AGE, col, NAME, since, text } from "./printing.js";
import { bool, mapOf, pb, str, stringMap } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const bytes = { kind: "scalar", type: "bytes" } as const;

/** The keys a Secret of each well-known type must have. */
const REQUIRED_KEYS: Record<string, readonly string[]> = {
  "kubernetes.io/dockercfg": [".dockercfg"],
  "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
  "kubernetes.io/ssh-auth": ["ssh-privatekey"],
  "kubernetes.io/tls": ["tls.crt", "tls.key"],
};

/** stringData written into data (base64, overriding a key of both), the type defaulted. */
function normalize(object: KubeObject): KubeObject {
  const { stringData, ...rest } = object;
  const data: Record<string, string> = Object.fromEntries(entries(object.data));
  for (const [key, value] of entries(stringData)) {
    setMember(data, key, Buffer.from(value, "utf8").toString("base64"));
  }
  const out: KubeObject = { ...rest, type: object.type || "Opaque" };
  if (Object.keys(data).length > 0) out.data = data;
  else delete out.data;
  return out;
}

function validateSecret(object: KubeObject): FieldError[] {
  const errs = validateKeys(object.data, "data");
  const data = new Map(entries(object.data));
  const type = text(object.type);
  for (const key of REQUIRED_KEYS[type] ?? []) {
    if (!data.has(key)) errs.push(required(`data[${key}]`, ""));
  }
  if (type === "kubernetes.io/basic-auth" && !data.has("username") && !data.has("password")) {
    errs.push(required("data[username]", ""), required("data[password]", ""));
  }
  const size = [...data.values()].reduce((n, v) => n + Buffer.from(v, "base64").length, 0);
  errs.push(...validateSize(size));
  return errs;
}

const SECRET_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const secret = normalize(object);
    return checked(secret, validateSecret(secret));
  },
  prepareForUpdate(next, current) {
    const secret = normalize(next);
    const errs = validateObjectMetaUpdate(secret.metadata, current.metadata);
    if (secret.type !== current.type) errs.push(invalid("type", secret.type, "field is immutable"));
    errs.push(...validateImmutableData(secret, current, ["data"]), ...validateSecret(secret));
    return checked(secret, errs);
  },
};

export const secret: KindDefinition<"Secret"> = {
  kind: "Secret",
  resource: "secrets",
  singular: "secret",
  description:
    "A Secret holds a small amount of sensitive data (passwords, tokens, keys), base64-encoded in data, or as plain text in stringData on write. Its type says which keys it must have.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.Secret", {
        immutable: bool(5, { ptr: true }),
        data: mapOf(bytes, 2),
        stringData: pb(4, stringMap),
        type: str(3, { go: "v1.SecretType" }),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None",
  fieldSelectors: ["type"],
  strategy: SECRET_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Type", "string", "The secret's type: what its data holds (default Opaque)."),
      col("Data", "string", "The number of keys in data."),
      AGE,
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      text(obj.type),
      entries(obj.data).length,
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
