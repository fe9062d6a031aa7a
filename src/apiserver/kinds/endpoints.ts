// core/v1 Endpoints: written by the cluster's endpoints controller (src/cluster/controllers/
// endpoints.ts) for every Service with a selector; served read-only.

import type { KubeObject } from "../../api/types.js";
import { OBJECT_META, OBJECT_META_FIELDS, OBJECT_META_TIMES } from "./meta.js";
import { AGE, asRecord, col, int, NAME, since, str } from "./printing.js";
import { atomicList, type KindDefinition, PLAIN_STRATEGY, S, struct } from "./types.js";

export const endpoints: KindDefinition<"Endpoints"> = {
  kind: "Endpoints",
  resource: "endpoints",
  singular: "endpoints",
  group: "",
  versions: [
    {
      version: "v1",
      knownFields: { apiVersion: "any", kind: "any", metadata: OBJECT_META_FIELDS, subsets: "any" },
      // EndpointSubset lists are atomic upstream.
      apply: struct({ apiVersion: S, kind: S, metadata: OBJECT_META, subsets: atomicList }),
    },
  ],
  namespaced: true,
  verbs: ["get", "list", "watch"],
  subresources: [],
  shortNames: ["ep"],
  readOnly: true,
  gcPolicy: "None",
  times: { metadata: OBJECT_META_TIMES },
  fieldSelectors: [],
  strategy: PLAIN_STRATEGY,
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
      for (const a of addresses) if (list.length < max) list.push(str(a.ip));
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length < max) list.push(`${str(asRecord(a).ip)}:${int(port.port)}`);
      }
    }
  }
  const text = list.join(",");
  return count > max ? `${text} + ${count - max} more...` : text;
}
