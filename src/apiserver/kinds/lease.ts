// coordination.k8s.io/v1 Lease (leader election).

import { OBJECT_META, OBJECT_META_TIMES } from "./meta.js";
import { AGE, asRecord, col, NAME, since, str } from "./printing.js";
import {
  type KindDefinition,
  PLAIN_STRATEGY,
  READ_WRITE,
  S,
  scalars,
  struct,
  zero,
} from "./types.js";

export const lease: KindDefinition<"Lease"> = {
  kind: "Lease",
  resource: "leases",
  singular: "lease",
  group: "coordination.k8s.io",
  versions: [
    {
      version: "v1",
      // More top-level fields than spec/status: not checked (as before the registry).
      knownFields: null,
      apply: struct({
        apiVersion: S,
        kind: S,
        metadata: OBJECT_META,
        spec: zero(
          scalars(
            "holderIdentity",
            "leaseDurationSeconds",
            "acquireTime",
            "renewTime",
            "leaseTransitions",
            "strategy",
            "preferredHolder",
          ),
        ),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None",
  times: {
    metadata: OBJECT_META_TIMES,
    spec: { acquireTime: "*MicroTime", renewTime: "*MicroTime" },
  },
  fieldSelectors: [],
  strategy: PLAIN_STRATEGY,
  printer: {
    columns: [
      NAME,
      col(
        "Holder",
        "string",
        "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
      ),
      AGE,
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      str(asRecord(obj.spec).holderIdentity),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
