// Field selectors (`?fieldSelector=`): the fields each kind supports, as upstream's per-kind
// field label conversion funcs, and their evaluation on an object.

import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import { type ApiError, badRequest } from "./errors.js";

export const COMMON_FIELDS = ["metadata.name", "metadata.namespace"];
export const KIND_FIELDS: Record<string, string[]> = {
  Event: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  Pod: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  Namespace: ["status.phase"],
  ReplicaSet: ["status.replicas"],
  ReplicationController: ["status.replicas"],
  Node: ["spec.unschedulable"],
};

export interface FieldTerm {
  field: string;
  value: string;
  equal: boolean;
}

export function parseFieldSelector(
  kind: string,
  text: string,
): { ok: true; value: FieldTerm[] } | { ok: false; error: ApiError } {
  const terms: FieldTerm[] = [];
  for (const raw of text.split(",")) {
    const term = raw.trim();
    if (term === "") continue;
    const match = /^([^=!]+)(!=|==|=)(.*)$/.exec(term);
    if (!match)
      return {
        ok: false,
        error: badRequest(`invalid selector: '${text}'; can't understand '${term}'`),
      };
    const field = match[1]!.trim();
    if (!COMMON_FIELDS.includes(field) && !(KIND_FIELDS[kind] ?? []).includes(field)) {
      return { ok: false, error: badRequest(`field label not supported: ${field}`) };
    }
    terms.push({ field, value: match[3]!.trim(), equal: match[2] !== "!=" });
  }
  return { ok: true, value: terms };
}

export function fieldValue(object: KubeObject, field: string): string {
  if (field === "source") {
    const source = (object as unknown as { source?: { component?: string } }).source;
    return source?.component ?? "";
  }
  let cur: unknown = object;
  for (const part of field.split(".")) cur = isRecord(cur) ? cur[part] : undefined;
  if (cur === undefined || cur === null) return "";
  return String(cur);
}
