// core/v1 Endpoints: written by the cluster's endpoints controller (src/cluster/controllers/
// endpoints.ts) for every Service with a selector, and by clients as upstream allows (those of
// a Service without selector are theirs; the controller rewrites a selector Service's at its
// next sync, and makes one again when it is deleted).

import type { KubeObject } from "../api/types.js";
import { validateEndpoints, withEndpointsDefaults } from "./endpointvalidation.js";
import { OBJECT_META } from "./meta.js";
import { AGE, asRecord, col, int, NAME, since, text } from "./printing.js";
import { atomicOf, i32, ptr, str, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

export const OBJECT_REFERENCE = struct(
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

const ENDPOINT_ADDRESS = struct(
  {
    ip: str(1),
    hostname: str(3),
    nodeName: str(4, ptr),
    targetRef: OBJECT_REFERENCE,
  },
  { go: "v1.EndpointAddress", atomic: true },
);

/** core/v1 EndpointPort (discovery's differs: its fields are pointers). */
const ENDPOINT_PORT = struct(
  {
    name: str(1),
    port: i32(2, { keep: true }),
    protocol: str(3, { go: "v1.Protocol" }),
    appProtocol: str(4, ptr),
  },
  { go: "v1.EndpointPort", atomic: true },
);

const ENDPOINTS_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const defaulted = withEndpointsDefaults(object);
    return checked(defaulted, validateEndpoints(defaulted));
  },
  prepareForUpdate(next) {
    const defaulted = withEndpointsDefaults(next);
    return checked(defaulted, validateEndpoints(defaulted));
  },
};

export const endpoints: KindDefinition<"Endpoints"> = {
  kind: "Endpoints",
  resource: "endpoints",
  singular: "endpoints",
  description:
    "Endpoints lists the addresses of the ready (and not ready) pods behind a Service, with their ports. The endpoints controller keeps it in step with the Service's selector.",
  group: "",
  versions: [
    {
      version: "v1",
      deprecated: { since: "1.33", replacement: "discovery.k8s.io/v1 EndpointSlice" },
      schema: struct(
        {
          apiVersion: str(),
          kind: str(),
          metadata: OBJECT_META,
          subsets: atomicOf(
            struct(
              {
                addresses: atomicOf(ENDPOINT_ADDRESS),
                notReadyAddresses: atomicOf(ENDPOINT_ADDRESS),
                ports: atomicOf(ENDPOINT_PORT),
              },
              { go: "v1.EndpointSubset" },
            ),
          ),
        },
        { go: "v1.Endpoints" },
      ),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["ep"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: ENDPOINTS_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Endpoints", "string", "Endpoints is the list of endpoints for this Endpoints object."),
      AGE,
    ],
    cells: (obj: KubeObject, now: number) => [
      obj.metadata.name,
      formatEndpoints(obj),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};

/** kubectl's ENDPOINTS column: up to three ip:port, then "+ N more...". */
function formatEndpoints(obj: KubeObject): string {
  const subsets = (obj.subsets ?? []) as Record<string, unknown>[];
  if (subsets.length === 0) return "<none>";
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = (subset.addresses ?? []) as Record<string, unknown>[];
    const ports = (subset.ports ?? []) as Record<string, unknown>[];
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) if (list.length < max) list.push(text(a.ip));
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length < max) list.push(`${text(asRecord(a).ip)}:${int(port.port)}`);
      }
    }
  }
  const joined = list.join(",");
  return count > max ? `${joined} + ${count - max} more...` : joined;
}
