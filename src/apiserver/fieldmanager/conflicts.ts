// An apply conflict as the Status kube-apiserver answers (409, one cause per field).

import { compareStrings, pathString } from "./fieldpath.js";
import { type Conflict, type Manager, managerKey } from "./managers.js";

/** printManager: `"kubectl" with subresource "scale" using apps/v1` (Update managers say their version). */
export function describeManager(m: Manager): string {
  let text = JSON.stringify(m.manager);
  if (m.subresource) text += ` with subresource ${JSON.stringify(m.subresource)}`;
  // The identifier has no time, so upstream prints no "at …".
  if (m.operation === "Update") text += ` using ${m.apiVersion}`;
  return text;
}

/** NewConflictError: a 409 Conflict Status with one FieldManagerConflict cause per field. */
export function conflictStatus(conflicts: readonly Conflict[]) {
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${describeManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, Conflict[]>();
    for (const c of conflicts) {
      const key = managerKey(c.manager);
      byManager.set(key, [...(byManager.get(key) ?? []), c]);
    }
    // Upstream sorts by the JSON manager identifier.
    const keys = [...byManager.keys()].sort((a, b) =>
      compareStrings(
        identifierJson(byManager.get(a)![0]!.manager),
        identifierJson(byManager.get(b)![0]!.manager),
      ),
    );
    const lines: string[] = [];
    for (const key of keys) {
      const group = byManager.get(key)!;
      lines.push(`conflicts with ${describeManager(group[0]!.manager)}:`);
      for (const c of group) lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return {
    kind: "Status" as const,
    apiVersion: "v1" as const,
    metadata: {} as Record<string, never>,
    status: "Failure" as const,
    message,
    reason: "Conflict",
    details: { causes },
    code: 409,
  };
}

/** The manager identifier as Go marshals it (field order of ManagedFieldsEntry, omitempty). */
function identifierJson(m: Manager): string {
  const entry: Record<string, string> = {};
  if (m.manager) entry.manager = m.manager;
  entry.operation = m.operation;
  if (m.operation === "Update" && m.apiVersion) entry.apiVersion = m.apiVersion;
  if (m.subresource) entry.subresource = m.subresource;
  return JSON.stringify(entry);
}
