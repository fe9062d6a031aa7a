// The winning setting of `horizon tune` as manifests a user can apply: per HPA, a merge patch
// with the searched fields as the candidate wrote them (a list is given whole, since a merge
// patch replaces lists), and the controller flags it set.
import { type Document, parseAllDocuments, stringify } from "yaml";
import { applySet, documentIdentity } from "../set-path.js";
import type { TuneBase } from "./evaluate.js";
import type { SearchEntry } from "./space.js";

export interface WinningPatch {
  /** One YAML document per HPA: apiVersion, kind, metadata and the changed part of spec. */
  hpaPatches: { namespace: string; name: string; patch: Record<string, unknown> }[];
  /** `--flag=value` for each searched controller flag. */
  controllerFlags: string[];
}

function setIn(
  target: Record<string, unknown>,
  path: readonly (string | number)[],
  value: unknown,
): void {
  let cur = target;
  for (const key of path.slice(0, -1)) {
    const next = cur[String(key)];
    if (next === null || typeof next !== "object") cur[String(key)] = {};
    cur = cur[String(key)] as Record<string, unknown>;
  }
  cur[String(path[path.length - 1]!)] = value;
}

export function winningPatch(
  base: TuneBase,
  entries: readonly SearchEntry[],
  sets: readonly string[],
): WinningPatch {
  const documents: Document[] = parseAllDocuments(base.text);
  for (const expr of base.sets) applySet(documents, expr);
  const byDocument = new Map<number, Record<string, unknown>>();
  const controllerFlags: string[] = [];
  entries.forEach((entry, i) => {
    const applied = applySet(documents, sets[i]!);
    if (!applied.ok) return;
    if (entry.kind === "Scenario") {
      const flag = String(entry.path[2]);
      controllerFlags.push(`--${flag}=${String(documents[applied.document]!.getIn(entry.path))}`);
      return;
    }
    // Up to the first list index: a merge patch replaces a list whole.
    const cut = entry.path.findIndex((p) => typeof p === "number");
    const prefix = cut < 0 ? entry.path : entry.path.slice(0, cut);
    const node = documents[applied.document]!.getIn(prefix, true) as
      | { toJSON?: () => unknown }
      | unknown;
    const value =
      node && typeof node === "object" && "toJSON" in node && typeof node.toJSON === "function"
        ? node.toJSON()
        : documents[applied.document]!.getIn(prefix);
    const patch = byDocument.get(applied.document) ?? {};
    setIn(patch, prefix, value);
    byDocument.set(applied.document, patch);
  });
  const hpaPatches = [...byDocument].map(([index, patch]) => {
    const id = documentIdentity(documents[index]!)!;
    return { namespace: id.namespace, name: id.name, patch };
  });
  return { hpaPatches, controllerFlags };
}

/** The patches as a YAML stream, each with the kubectl command that applies it. */
export function patchYaml(patch: WinningPatch): string {
  return patch.hpaPatches
    .map(
      (p) =>
        `# kubectl patch hpa ${p.name} -n ${p.namespace} --type merge --patch-file FILE\n` +
        stringify({
          apiVersion: "autoscaling/v2",
          kind: "HorizontalPodAutoscaler",
          metadata: { name: p.name, namespace: p.namespace },
          ...p.patch,
        }),
    )
    .join("---\n");
}
