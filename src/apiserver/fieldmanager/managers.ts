// Managers (k8s.io/apimachinery managedfields): metadata.managedFields entries decoded and
// encoded, Update tracking (a writer takes the fields it changed from everyone else) and Apply
// (merge, ownership, conflicts). Pure: no I/O, time is passed in.
import { isRecord } from "../../api/json.js";

import {
  compareStrings,
  decodeFieldsV1,
  difference,
  emptySet,
  encodeFieldsV1,
  type FieldPath,
  type FieldSet,
  type FieldsV1,
  hasPath,
  intersection,
  isEmptySet,
  memberPaths,
  type Result,
  recursiveDifference,
  setOf,
  union,
} from "./fieldpath.js";
import { dropNulls, merge, prune } from "./merge.js";
import {
  type Comparison,
  compare,
  deepEqual,
  type Schema,
  ShapeError,
  toFieldSet,
} from "./typed.js";

export type Operation = "Apply" | "Update";

/** metav1.ManagedFieldsEntry as served (field order as upstream's struct). */
export interface ManagedFieldsEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: FieldsV1;
  subresource?: string;
}

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** BuildManagerIdentifier: Apply managers are one manager whatever version they applied. */
export function managerKey(
  m: Pick<Manager, "manager" | "operation" | "apiVersion" | "subresource">,
) {
  return JSON.stringify([
    m.manager,
    m.operation,
    m.operation === "Apply" ? "" : m.apiVersion,
    m.subresource,
  ]);
}

/** DecodeManagedFields: errors are data (the caller falls back to the live object's). */
export function decodeManagedFields(raw: unknown): Result<Manager[]> {
  if (raw === undefined || raw === null) return { ok: true, value: [] };
  if (!Array.isArray(raw)) return { ok: false, error: "managedFields must be a list" };
  const out: Manager[] = [];
  for (const [i, entry] of raw.entries()) {
    if (!isRecord(entry)) return { ok: false, error: `managed fields entry ${i} is not an object` };
    if (entry.operation !== "Apply" && entry.operation !== "Update") {
      return { ok: false, error: "operation must be `Apply` or `Update`" };
    }
    if (typeof entry.apiVersion !== "string" || entry.apiVersion === "") {
      return { ok: false, error: "apiVersion must not be empty" };
    }
    if (entry.fieldsType === undefined || entry.fieldsType === "") {
      return { ok: false, error: `missing fieldsType in managed fields entry ${i}` };
    }
    if (entry.fieldsType !== "FieldsV1") {
      return {
        ok: false,
        error: `invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`,
      };
    }
    const set = decodeFieldsV1(entry.fieldsV1 ?? {});
    if (!set.ok) return { ok: false, error: `error decoding set: ${set.error}` };
    const manager: Manager = {
      manager: typeof entry.manager === "string" ? entry.manager : "",
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      subresource: typeof entry.subresource === "string" ? entry.subresource : "",
      set: set.value,
    };
    if (typeof entry.time === "string") manager.time = entry.time;
    out.push(manager);
  }
  return { ok: true, value: out };
}

/** EncodeObjectManagedFields: empty sets dropped; sorted by operation, time, manager, version, subresource. */
export function encodeManagedFields(managers: readonly Manager[]): ManagedFieldsEntry[] {
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  return managers
    .filter((m) => !isEmptySet(m.set))
    .sort(
      (p, q) =>
        compareStrings(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        compareStrings(p.manager, q.manager) ||
        compareStrings(p.apiVersion, q.apiVersion) ||
        compareStrings(p.subresource, q.subresource),
    )
    .map((m) => {
      const entry: ManagedFieldsEntry = {
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
      } as ManagedFieldsEntry;
      if (m.time) entry.time = m.time;
      entry.fieldsType = "FieldsV1";
      entry.fieldsV1 = encodeFieldsV1(m.set);
      if (m.subresource) entry.subresource = m.subresource;
      return entry;
    });
}

/** isResetManagedFields: `[]` or `[{}]` in a request clears the managed fields. */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  return raw.length === 1 && isRecord(raw[0]) && Object.keys(raw[0]).length === 0;
}

/** The stripMetaManager's set: fields never tracked. */
const STRIPPED = setOf([
  ["f:apiVersion"],
  ["f:kind"],
  ["f:metadata"],
  ...[
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
  ].map((f) => ["f:metadata", `f:${f}`]),
]);

/** How to see an object in a manager's apiVersion (the HPA is served as v1 and v2). */
export interface VersionView {
  schema: Schema;
  view(object: unknown): unknown;
}
export type Versions = (apiVersion: string) => VersionView | undefined;

export interface WriteContext {
  /** The writer: `?fieldManager=` or the User-Agent's program name. */
  manager: string;
  /** The request's apiVersion (objects passed in are in it). */
  apiVersion: string;
  /** "" for the main resource, "status" or "scale". */
  subresource: string;
  /** RFC 3339 time of the write. */
  now: string;
  versions: Versions;
  /** Fields the strategy resets for this endpoint (status on the main resource, …). */
  ignored?: FieldSet;
}

/** A field conflict: who owns what the applier would change. */
export interface Conflict {
  manager: Manager;
  path: FieldPath;
}

/**
 * SMD Updater.update: ownership moves away from every other manager for the fields `next`
 * changes (conflicts if not forced), and removed fields leave their sets.
 */
function updateOwners(
  live: unknown,
  next: unknown,
  managers: Manager[],
  self: string,
  ctx: WriteContext,
  force: boolean,
): { ok: true; managers: Manager[]; own: Comparison } | { ok: false; conflicts: Conflict[] } {
  const comparisons = new Map<string, Comparison | null>();
  const compareIn = (apiVersion: string): Comparison | null => {
    if (!comparisons.has(apiVersion)) {
      const version = ctx.versions(apiVersion);
      comparisons.set(
        apiVersion,
        version ? compare(version.view(live), version.view(next), version.schema) : null,
      );
    }
    return comparisons.get(apiVersion)!;
  };
  const own = compareIn(ctx.apiVersion) ?? {
    added: emptySet(),
    modified: emptySet(),
    removed: emptySet(),
  };
  const conflicts: Conflict[] = [];
  const out: Manager[] = [];
  for (const m of managers) {
    if (managerKey(m) === self) {
      out.push(m);
      continue;
    }
    const cmp = compareIn(m.apiVersion);
    if (!cmp) {
      out.push(m);
      continue;
    }
    const taken = intersection(m.set, union(cmp.modified, cmp.added));
    for (const path of memberPaths(taken)) conflicts.push({ manager: m, path });
    out.push({ ...m, set: difference(difference(m.set, taken), cmp.removed) });
  }
  if (!force && conflicts.length > 0) return { ok: false, conflicts };
  return { ok: true, managers: out.filter((m) => !isEmptySet(m.set)), own };
}

function withoutStripped(set: FieldSet, ignored?: FieldSet): FieldSet {
  const stripped = difference(set, STRIPPED);
  return ignored ? recursiveDifference(stripped, ignored) : stripped;
}

/**
 * Records an Update (create, update, non-apply patch): `managed` are the entries to start from
 * (the request's or the live object's), `live` is undefined on create. Returns the new entries.
 */
export function trackUpdate(
  live: unknown,
  next: unknown,
  managed: Manager[],
  ctx: WriteContext,
): Manager[] {
  // skipNonAppliedManager: an existing object nobody tracks stays untracked.
  if (managed.length === 0 && live !== undefined) return [];
  const identity = {
    manager: ctx.manager,
    operation: "Update" as const,
    apiVersion: ctx.apiVersion,
    subresource: ctx.subresource,
  };
  const self = managerKey(identity);
  const before = live ?? {};
  const result = updateOwners(before, next, managed, "\u0000current-operation", ctx, true);
  if (!result.ok) return managed; // unreachable: forced
  const changed = withoutStripped(union(result.own.modified, result.own.added), ctx.ignored);
  const others = result.managers.filter((m) => managerKey(m) !== self);
  const previous = result.managers.find((m) => managerKey(m) === self);
  if (isEmptySet(changed)) return previous ? [...others, previous] : others;
  // managedFieldsUpdater: the writer's entry is its earlier fields plus what it changed now.
  const kept = previous ? difference(previous.set, result.own.removed) : emptySet();
  return [...others, { ...identity, time: ctx.now, set: union(kept, changed) }];
}

export type ApplyResult =
  | { ok: true; object: unknown; managers: Manager[]; changed: boolean }
  | { ok: false; conflicts: Conflict[] }
  | { ok: false; error: string };

/**
 * Server-side apply of `config` (the request's version) to `live` (undefined on create):
 * merge, prune fields the applier dropped, move ownership, detect conflicts unless `force`.
 */
export function applyConfig(
  live: unknown,
  config: unknown,
  managed: Manager[],
  ctx: WriteContext & { force: boolean },
): ApplyResult {
  const version = ctx.versions(ctx.apiVersion);
  if (!version) return { ok: false, error: `unknown version ${ctx.apiVersion}` };
  const identity = {
    manager: ctx.manager,
    operation: "Apply" as const,
    apiVersion: ctx.apiVersion,
    subresource: ctx.subresource,
  };
  const self = managerKey(identity);
  let set: FieldSet;
  let merged: unknown;
  try {
    set = withoutStripped(toFieldSet(config, version.schema), ctx.ignored);
    merged = merge(live ?? {}, config, version.schema);
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, error: err.message };
    throw err;
  }
  const last = managed.find((m) => managerKey(m) === self);
  const others = managed.filter((m) => managerKey(m) !== self);
  const applier: Manager = { ...identity, set, ...(last?.time ? { time: last.time } : {}) };
  if (last && !isEmptySet(last.set)) {
    const keep = others.reduce((acc, m) => union(acc, m.set), set);
    merged = prune(merged, version.schema, last.set, keep);
  }
  merged = dropNulls(merged);
  const result = updateOwners(live ?? {}, merged, [...others, applier], self, ctx, ctx.force);
  if (!result.ok) return result;
  const changed = !deepEqual(live ?? {}, merged);
  const managers = result.managers.map((m) =>
    managerKey(m) === self && changed ? { ...m, time: ctx.now } : m,
  );
  return { ok: true, object: merged, managers, changed };
}

/**
 * applyConfig with the lastAppliedManager's upgrade rule: when the manager is kubectl's default
 * `kubectl`, conflicts on fields still as kubectl's last-applied-configuration left them are
 * forced, so `kubectl apply --server-side` takes over from client-side apply.
 */
export function serverSideApply(
  live: unknown,
  config: unknown,
  managed: Manager[],
  ctx: WriteContext & { force: boolean },
): ApplyResult {
  const first = applyConfig(live, config, managed, ctx);
  if (first.ok || !("conflicts" in first) || ctx.manager !== "kubectl") return first;
  const version = ctx.versions(ctx.apiVersion);
  const allowed = version ? allowedFromLastApplied(live, ctx.apiVersion, version.schema) : null;
  if (!allowed) return first;
  const remaining = first.conflicts.filter((c) => !hasPath(allowed, c.path));
  if (remaining.length > 0) return { ok: false, conflicts: remaining };
  return applyConfig(live, config, managed, { ...ctx, force: true });
}

/**
 * The lastAppliedManager's allowance for `kubectl apply --server-side` after client-side apply:
 * conflicts on fields whose live value still equals kubectl's last-applied-configuration are
 * forced (the applier takes them over).
 */
export function allowedFromLastApplied(
  live: unknown,
  requestApiVersion: string,
  schema: Schema,
): FieldSet | null {
  const annotations =
    isRecord(live) && isRecord(live.metadata) ? live.metadata.annotations : undefined;
  const text = isRecord(annotations)
    ? annotations["kubectl.kubernetes.io/last-applied-configuration"]
    : undefined;
  if (typeof text !== "string" || text === "") return null;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(lastApplied) || lastApplied.apiVersion !== requestApiVersion) return null;
  try {
    const fields = toFieldSet(lastApplied, schema);
    const cmp = compare(lastApplied, live, schema);
    return difference(difference(difference(fields, cmp.modified), cmp.added), cmp.removed);
  } catch {
    return null;
  }
}

/** ScaleHandler: a write through /scale that changes replicas takes `.spec.replicas` from all. */
export function trackScale(
  managed: Manager[],
  replicasChanged: boolean,
  ctx: Pick<WriteContext, "manager" | "apiVersion" | "now">,
): Manager[] {
  if (managed.length === 0 || !replicasChanged) return managed;
  const replicas = setOf([["f:spec", "f:replicas"]]);
  const identity = {
    manager: ctx.manager,
    operation: "Update" as const,
    apiVersion: ctx.apiVersion,
    subresource: "scale",
  };
  const self = managerKey(identity);
  const out = managed
    .filter((m) => managerKey(m) !== self)
    .map((m) => ({ ...m, set: difference(m.set, replicas) }))
    .filter((m) => !isEmptySet(m.set));
  out.push({ ...identity, time: ctx.now, set: replicas });
  return out;
}
