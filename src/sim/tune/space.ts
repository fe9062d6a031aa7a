// The search space of `horizon tune`: a YAML mapping from a field (`spec.minReplicas`, or with its
// document `hpa/web:spec.minReplicas`, or a controller flag `scenario:spec.controller.…`) to the
// values to try: a list, an integer range `1..10`, or a stepped range `0..600/60`. Each value
// becomes one `--set` expression, so it is validated exactly as the same edit of the file is.
// Syntax in docs/tune.md.
import { type Document, parseAllDocuments, parseDocument } from "yaml";
import { unknownFields } from "../../apiserver/unknownfields.js";
import { applySet, formatPath, type PathSegment, parseSetExpression } from "../set-path.js";

export interface SearchEntry {
  /** The key as written (`spec.minReplicas`, `hpa/web:spec.minReplicas`). */
  key: string;
  /** The `--set` document part (`hpa`, `hpa/web`, `scenario`). */
  target: string;
  kind: "HorizontalPodAutoscaler" | "Scenario";
  path: PathSegment[];
  values: unknown[];
}

export type SpaceResult = { ok: true; entries: SearchEntry[] } | { ok: false; errors: string[] };

/** More candidates than this is not a search anybody can run; it is a typo in a range. */
export const MAX_SPACE = 1e12;

const RANGE = /^\s*(-?\d+(?:\.\d+)?)\s*\.\.\s*(-?\d+(?:\.\d+)?)\s*(?:\/\s*(\d+(?:\.\d+)?)\s*)?$/;

/** The `--set` expression that gives an entry one of its values. */
export function setExpression(entry: SearchEntry, value: unknown): string {
  return `${entry.target}:${formatPath(entry.path)}=${JSON.stringify(value)}`;
}

/** The values of `A..B` (integers) or `A..B/STEP`; an error when empty or malformed. */
export function expandRange(
  text: string,
): { ok: true; values: number[] } | { ok: false; error: string } {
  const m = RANGE.exec(text);
  if (!m) return { ok: false, error: `"${text}" is not a range (A..B or A..B/STEP)` };
  const from = Number(m[1]);
  const to = Number(m[2]);
  const step = m[3] === undefined ? 1 : Number(m[3]);
  if (m[3] === undefined && (!Number.isInteger(from) || !Number.isInteger(to)))
    return { ok: false, error: `"${text}": a range without /STEP is of integers` };
  if (step <= 0) return { ok: false, error: `"${text}": the step must be positive` };
  if (to < from) return { ok: false, error: `"${text}" is empty (${to} < ${from})` };
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > 10_000) return { ok: false, error: `"${text}" has ${count} values (at most 10000)` };
  // Multiply rather than accumulate, so 0..1/0.1 gives 0.3, not 0.30000000000000004.
  const decimals = Math.max(decimalsOf(m[1]!), decimalsOf(m[3] ?? "1"));
  const values = Array.from({ length: count }, (_, i) =>
    Number((from + i * step).toFixed(decimals)),
  );
  return { ok: true, values };
}

function decimalsOf(text: string): number {
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** A path of the HPA (autoscaling/v2) schema: built into an object and checked as the API server checks fields. */
function isHpaField(path: readonly PathSegment[]): boolean {
  if (path[0] !== "spec" || path.length < 2) return false;
  let leaf: unknown = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    const segment = path[i]!;
    leaf = typeof segment === "number" ? [leaf] : { [segment]: leaf };
  }
  return unknownFields("HorizontalPodAutoscaler", "v2", leaf).length === 0;
}

/** Reads a search space (YAML text); `source` names it in messages. */
export function parseSearchSpace(text: string, source: string): SpaceResult {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) return { ok: false, errors: [`${source}: ${doc.errors[0]!.message}`] };
  const raw: unknown = doc.toJS();
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return {
      ok: false,
      errors: [`${source}: expected a mapping of FIELD: VALUES, e.g. "spec.minReplicas: 1..4"`],
    };
  const errors: string[] = [];
  const entries: SearchEntry[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `search entry "${key}"`;
    const colon = key.indexOf(":");
    const target = colon >= 0 ? key.slice(0, colon) : "hpa";
    const parsed = parseSetExpression(`${target}:${colon >= 0 ? key.slice(colon + 1) : key}=0`);
    if (!parsed.ok) {
      errors.push(`${where}: ${parsed.error.replace(/^--set \S+: /, "")}`);
      continue;
    }
    const { kind, path } = parsed.value;
    let entryKind: SearchEntry["kind"];
    if (kind === "HorizontalPodAutoscaler") {
      if (!isHpaField(path)) {
        errors.push(
          `${where}: ${formatPath(path)} is not a field of an autoscaling/v2 HorizontalPodAutoscaler's spec`,
        );
        continue;
      }
      entryKind = kind;
    } else if (
      kind === "Scenario" &&
      path.length === 3 &&
      path[0] === "spec" &&
      path[1] === "controller"
    ) {
      entryKind = kind;
    } else {
      errors.push(
        `${where}: only HPA fields (spec.…) and controller flags (scenario:spec.controller.FLAG) can be searched`,
      );
      continue;
    }
    let values: unknown[];
    if (Array.isArray(value)) values = value;
    else if (typeof value === "string" && value.includes("..")) {
      const range = expandRange(value);
      if (!range.ok) {
        errors.push(`${where}: ${range.error}`);
        continue;
      }
      values = range.values;
    } else values = [value];
    if (values.length === 0) {
      errors.push(`${where}: no values to try`);
      continue;
    }
    entries.push({ key, target, kind: entryKind, path, values });
  }
  if (entries.length === 0 && errors.length === 0)
    errors.push(`${source}: the search space is empty`);
  if (errors.length === 0 && spaceSize(entries) > MAX_SPACE)
    errors.push(`${source}: ${spaceSize(entries)} combinations; at most ${MAX_SPACE}`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, entries };
}

/**
 * Entries that search a field another entry searches already (`spec.maxReplicas` twice, or
 * with `hpa/web:spec.maxReplicas` when web is the only HPA): one field, one list of values.
 * `text` is the scenario, `sets` its --set edits.
 */
export function duplicateEntries(
  text: string,
  sets: readonly string[],
  entries: readonly SearchEntry[],
): string[] {
  const documents: Document[] = parseAllDocuments(text) as Document[];
  for (const expr of sets) applySet(documents, expr);
  const searched = new Map<string, string>();
  const errors: string[] = [];
  for (const entry of entries) {
    // Where the entry's --set lands (the value checks report one that lands nowhere).
    const applied = applySet(documents, setExpression(entry, entry.values[0]));
    if (!applied.ok) continue;
    const field = `${applied.document}:${formatPath(entry.path)}`;
    const first = searched.get(field);
    if (first === undefined) searched.set(field, entry.key);
    else
      errors.push(
        `search entry "${entry.key}": the same field as search entry "${first}" (give its values once)`,
      );
  }
  return errors;
}

/** The number of combinations (the grid's size). */
export function spaceSize(entries: readonly SearchEntry[]): number {
  return entries.reduce((n, e) => n * e.values.length, 1);
}

/** The value index of each entry for grid point `index` (the first entry varies slowest). */
export function gridPoint(entries: readonly SearchEntry[], index: number): number[] {
  const out = new Array<number>(entries.length);
  let rest = index;
  for (let i = entries.length - 1; i >= 0; i--) {
    const n = entries[i]!.values.length;
    out[i] = rest % n;
    rest = Math.floor(rest / n);
  }
  return out;
}
