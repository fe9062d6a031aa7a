// coordination.k8s.io/v1 Lease (leader election).

import { OBJECT_META } from "./meta.js";
import { AGE, asRecord, col, NAME, since, text } from "./printing.js";
import { i32, microtime, ptr, str, struct, zero } from "./schema.js";
import { type KindDefinition, PLAIN_STRATEGY, READ_WRITE } from "./types.js";

export const lease: KindDefinition<"Lease"> = {
  kind: "Lease",
  resource: "leases",
  singular: "lease",
  description:
    "A Lease records who holds a named lock and until when; controllers use it for leader election.",
  group: "coordination.k8s.io",
  versions: [
    {
      version: "v1",
      schema: struct(
        {
          apiVersion: str(),
          kind: str(),
          metadata: OBJECT_META,
          spec: zero(
            struct(
              {
                holderIdentity: str(undefined, ptr),
                leaseDurationSeconds: i32(undefined, ptr),
                acquireTime: microtime(undefined, ptr),
                renewTime: microtime(undefined, ptr),
                leaseTransitions: i32(undefined, ptr),
                strategy: str(undefined, { ptr: true, go: "v1.CoordinatedLeaseStrategy" }),
                preferredHolder: str(undefined, ptr),
              },
              { go: "v1.LeaseSpec" },
            ),
          ),
        },
        { go: "v1.Lease" },
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None",
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
      text(asRecord(obj.spec).holderIdentity),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
