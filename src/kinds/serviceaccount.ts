// core/v1 ServiceAccount: what a pod runs as; its `token` subresource issues tokens that
// authenticate as it (TokenRequest, src/apiserver/auth/apis.ts).
import { topLevel } from "./meta.js";
import { AGE, col, NAME, since } from "./printing.js";
import { atomicOf, bool, mapList, patchMerge, pb, ptr, str, struct } from "./schema.js";
import { type KindDefinition, PLAIN_STRATEGY, READ_WRITE } from "./types.js";

const OBJECT_REFERENCE = struct(
  {
    kind: str(1),
    namespace: str(2),
    name: str(3),
    uid: str(4),
    apiVersion: str(5),
    resourceVersion: str(6),
    fieldPath: str(7),
  },
  { go: "v1.ObjectReference", atomic: true },
);

export const serviceAccount: KindDefinition<"ServiceAccount"> = {
  kind: "ServiceAccount",
  resource: "serviceaccounts",
  singular: "serviceaccount",
  description:
    "A ServiceAccount is an identity for the processes that run in pods, with the secrets and image pull secrets it may use.",
  group: "",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.ServiceAccount", {
        secrets: pb(2, patchMerge(mapList(["name"], OBJECT_REFERENCE), "name")),
        imagePullSecrets: atomicOf(struct({ name: str(1) }, { go: "v1.LocalObjectReference" }), 3),
        automountServiceAccountToken: bool(4, ptr),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["token"],
  shortNames: ["sa"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: PLAIN_STRATEGY,
  printer: {
    columns: [NAME, col("Secrets", "string", "The number of secrets listed."), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      Array.isArray(obj.secrets) ? obj.secrets.length : 0,
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
