// core/v1 Endpoints: written by the cluster's endpoints controller (src/cluster/controllers/
// endpoints.ts) for every Service with a selector; served read-only.

import type { KubeObject } from "../../api/types.js";
import { OBJECT_META } from "./meta.js";
import { AGE, asRecord, col, int, NAME, since, text } from "./printing.js";
import { atomicList, str, struct } from "./schema.js";
import { type KindDefinition, PLAIN_STRATEGY } from "./types.js";

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
      schema: struct(
        { apiVersion: str(), kind: str(), metadata: OBJECT_META, subsets: atomicList },
        { go: "v1.Endpoints", preserveUnknownFields: true },
      ),
    },
  ],
  namespaced: true,
  verbs: ["get", "list", "watch"],
  subresources: [],
  shortNames: ["ep"],
  readOnly: true,
  gcPolicy: "None",
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
