// The object store of the embedded cluster: Kubernetes objects by kind/namespace/name with one
// global, increasing resourceVersion, generation kept by each kind's rule, a status subresource,
// and synchronous watch notifications. Objects are immutable once stored: writers store new
// objects and readers never mutate, so nothing is deep-copied on the hot path; only the watch
// history (history.ts; off in the simulator) keeps each change's JSON.

import { rfc3339 } from "../api/time.js";
import type { KubeObject } from "../api/types.js";
import { jsonEqual } from "../core/json.js";
import { generationRuleOf, isClusterScoped, resourceOf } from "../kinds/catalog.js";
import { establish, withdraw } from "../kinds/custom.js";
import { type GenerationRule, TEMPLATE_GENERATION_ANNOTATION } from "../kinds/types.js";
import { ChangeHistory, type WatchEvent, type WatchEventType } from "./history.js";
import { uidFor } from "./random.js";

export type { WatchEvent, WatchEventType } from "./history.js";

/**
 * One acknowledged change, handed to the journal before the store applies it (the durable
 * store of `horizon up --data-dir`). `incarnation` (creates only) keeps uids unique across
 * restarts: the uid of a re-created name is derived from how often the name was created.
 */
export interface StoreChange {
  rv: number;
  type: WatchEventType;
  /** The stored object; for DELETED the final object at the deletion's resourceVersion. */
  object: KubeObject;
  incarnation?: number;
}

/** What a durable store loads at startup. */
export interface StoreState {
  /** The newest resourceVersion handed out. */
  resourceVersion: number;
  objects: Iterable<KubeObject>;
  /** How often each `kind/namespace/name` was created. */
  incarnations?: Iterable<readonly [string, number]>;
}

export interface StoreOptions {
  now?: () => number;
  /**
   * Called synchronously on every write before it is applied or acknowledged; when it
   * throws (disk full), the write fails and the store is unchanged.
   */
  journal?: (change: StoreChange) => void;
  /** Objects and the counter to start from; loaded without watch events or version bumps. */
  initial?: StoreState;
  /**
   * How many recent changes are kept for watches resumed from a resourceVersion (default 4096).
   * 0 when nothing resumes a watch (the simulator): each kept change is its object's JSON, made
   * on every write.
   */
  history?: number;
  /** How many bytes of JSON the kept changes may take (default 64 MiB; then fewer are kept). */
  historyBytes?: number;
  /**
   * A new object's uid (`horizon up`: random, as kube-apiserver's); by default one derived from
   * the object's identity and incarnation, so that a simulation is the same in every run.
   */
  newUid?: () => string;
}

export type StoreErrorReason = "AlreadyExists" | "Conflict" | "NotFound";

/** A Kubernetes API error of the store (mapped to a Status object by the API server). */
export class StoreError extends Error {
  constructor(
    readonly reason: StoreErrorReason,
    readonly kind: string,
    readonly namespace: string,
    readonly objectName: string,
    message: string,
  ) {
    super(message);
    this.name = "StoreError";
  }

  /** The HTTP code upstream answers with. */
  get code(): number {
    return this.reason === "NotFound" ? 404 : 409;
  }
}

/** `deployments.apps "web" not found`, as the API server words it. */
export function notFoundMessage(kind: string, name: string, apiVersion?: string): string {
  return `${resourceOf(kind, apiVersion)} "${name}" not found`;
}

export function conflictMessage(kind: string, name: string, apiVersion?: string): string {
  return `Operation cannot be fulfilled on ${resourceOf(kind, apiVersion)} "${name}": the object has been modified; please apply your changes to the latest version and try again`;
}

/**
 * Where the current object of a name is kept: the same cell for as long as the name exists, so
 * a reader that keeps it (the scale port) reads the current object without a lookup; a deleted
 * name's cell is emptied and a re-created name gets a new one.
 */
export interface StoreCell {
  readonly object: KubeObject | undefined;
}

interface Cell {
  object: KubeObject | undefined;
  /** How often the name was created, while it exists (0: loaded, see #incarnations). */
  incarnation: number;
}

interface KindTable {
  byNamespace: Map<string, Map<string, Cell>>;
  all: readonly KubeObject[] | null;
  lists: Map<string, readonly KubeObject[]>;
}

const CRD = "CustomResourceDefinition";

/** How many recent changes `changesSince` can replay (older: Expired, as etcd compaction). */
const HISTORY = 4096;
const HISTORY_BYTES = 64 * 1024 * 1024;

/** The namespace an object is kept under: "" for cluster-scoped kinds, `default` when unset. */
export function storeNamespaceOf(object: KubeObject): string {
  return isClusterScoped(object.kind) ? "" : (object.metadata.namespace ?? "default");
}

export class ObjectStore {
  readonly #now: () => number;
  readonly #kinds = new Map<string, KindTable>();
  /** Replaced, never changed in place: a notification goes through the list as it began. */
  #listeners: readonly ((event: WatchEvent) => void)[] = [];
  readonly #errorHandlers: ((error: unknown, event: WatchEvent) => void)[] = [];
  /**
   * How often each `kind/namespace/name` was created, for names that do not exist now (and
   * those loaded at startup): an existing name's count is in its cell, so the store does not
   * keep a key string per stored object.
   */
  readonly #incarnations = new Map<string, number>();
  readonly #history: ChangeHistory;
  #rv = 1;
  #nameCounter = 0;

  readonly #journal: ((change: StoreChange) => void) | undefined;
  readonly #newUid: (() => string) | undefined;

  constructor(options: StoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    const changes = options.history ?? HISTORY;
    this.#journal = options.journal;
    this.#newUid = options.newUid;
    const initial = options.initial;
    if (initial) {
      // CRDs first: a custom kind's scope decides where its objects are kept.
      const objects = [...initial.objects].sort(
        (a, b) => Number(b.kind === CRD) - Number(a.kind === CRD),
      );
      for (const object of objects) {
        const namespace = isClusterScoped(object.kind)
          ? ""
          : (object.metadata.namespace ?? "default");
        this.#put(object.kind, namespace, object.metadata.name, object, 0);
      }
      for (const [identity, count] of initial.incarnations ?? []) {
        this.#incarnations.set(identity, count);
      }
      this.#rv = Math.max(this.#rv, initial.resourceVersion);
    }
    // No history survives a restart: older watches get 410 and relist, as after etcd compaction.
    this.#history = new ChangeHistory(
      { changes, bytes: options.historyBytes ?? HISTORY_BYTES },
      initial ? this.#rv : 0,
    );
  }

  /** Every stored object (any kind), in no particular order. */
  *objects(): IterableIterator<KubeObject> {
    for (const table of this.#kinds.values()) {
      for (const cells of table.byNamespace.values()) {
        for (const cell of cells.values()) yield cell.object!;
      }
    }
  }

  resourceVersion(): string {
    return String(this.#rv);
  }

  get(kind: string, namespace: string, name: string): KubeObject | undefined {
    return this.cell(kind, namespace, name)?.object;
  }

  /** The cell of a stored name (see StoreCell), or undefined when the name is not stored. */
  cell(kind: string, namespace: string, name: string): StoreCell | undefined {
    return this.#kinds
      .get(kind)
      ?.byNamespace.get(isClusterScoped(kind) ? "" : namespace)
      ?.get(name);
  }

  /** How many objects of a kind are stored. */
  count(kind: string): number {
    const table = this.#kinds.get(kind);
    let n = 0;
    if (table) for (const names of table.byNamespace.values()) n += names.size;
    return n;
  }

  /** Objects of a kind (in one namespace, or all), sorted by namespace and name; cached until the kind changes. */
  list(kind: string, namespace?: string): readonly KubeObject[] {
    const table = this.#kinds.get(kind);
    if (!table) return [];
    if (namespace === undefined || isClusterScoped(kind)) {
      if (!table.all) {
        const out: KubeObject[] = [];
        for (const ns of [...table.byNamespace.keys()].sort()) {
          out.push(...sortedByName(table.byNamespace.get(ns)!));
        }
        table.all = out;
      }
      return table.all;
    }
    let cached = table.lists.get(namespace);
    if (!cached) {
      const objects = table.byNamespace.get(namespace);
      cached = objects ? sortedByName(objects) : [];
      table.lists.set(namespace, cached);
    }
    return cached;
  }

  /**
   * Stores a new object: assigns uid (unless given), resourceVersion, creationTimestamp and,
   * for kinds that keep one, generation 1; a missing name with `generateName` gets a generated
   * suffix.
   */
  create(object: KubeObject): KubeObject {
    const kind = object.kind;
    const namespace = storeNamespaceOf(object);
    let name = object.metadata.name;
    if (!name && typeof object.metadata.generateName === "string") {
      do {
        name = `${object.metadata.generateName}${(++this.#nameCounter).toString(36).padStart(5, "0")}`;
      } while (this.get(kind, namespace, name));
    }
    if (this.get(kind, namespace, name)) {
      throw new StoreError(
        "AlreadyExists",
        kind,
        namespace,
        name,
        `${resourceOf(kind, object.apiVersion)} "${name}" already exists`,
      );
    }
    const identity = `${kind}/${namespace}/${name}`;
    const incarnation = (this.#incarnations.get(identity) ?? 0) + 1;
    const rv = this.#rv + 1;
    const metadata: KubeObject["metadata"] = copyOf(object.metadata);
    metadata.name = name;
    metadata.uid = object.metadata.uid ?? this.#newUid?.() ?? uidFor(`${identity}#${incarnation}`);
    metadata.resourceVersion = String(rv);
    // Kinds without a rule keep what they were created with (0 is JSON's absent).
    const rule = generationRuleOf(kind);
    if (rule !== undefined) metadata.generation = 1;
    else if (!metadata.generation) delete metadata.generation;
    if (rule === "specAndTemplate") {
      // The client's count is taken when it is one (apps/v1 → internal), never below 1.
      const sent = Number(metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
      setTemplateGeneration(metadata, Number.isInteger(sent) && sent > 1 ? sent : 1);
    }
    metadata.creationTimestamp = object.metadata.creationTimestamp ?? rfc3339(this.#now());
    if (!isClusterScoped(kind)) metadata.namespace = namespace;
    else delete metadata.namespace;
    const stored: KubeObject = copyOf(object);
    stored.metadata = metadata;
    this.#journal?.({ rv, type: "ADDED", object: stored, incarnation });
    this.#incarnations.delete(identity);
    this.#rv = rv;
    this.#put(kind, namespace, name, stored, incarnation);
    this.#emit(rv, { type: "ADDED", object: stored });
    return stored;
  }

  /**
   * Replaces an object. A set resourceVersion must be the current one (else Conflict); uid and
   * creationTimestamp are kept; generation goes up by one as the kind's rule says (not for a
   * write `throughStatus`, whose strategies never bump it), or when `bumpGeneration` asks and it
   * is above 0 (a deletion mark). An update that changes nothing is not
   * stored: the current object comes back with its resourceVersion, no watch event, nothing
   * journaled (kube-apiserver's GuaranteedUpdate skips identical writes).
   */
  update(
    object: KubeObject,
    options: { bumpGeneration?: boolean; throughStatus?: boolean } = {},
  ): KubeObject {
    const kind = object.kind;
    const namespace = storeNamespaceOf(object);
    const name = object.metadata.name;
    const current = this.#existing(kind, namespace, name, object.apiVersion);
    const expected = object.metadata.resourceVersion;
    if (
      expected !== undefined &&
      expected !== "" &&
      expected !== current.metadata.resourceVersion
    ) {
      throw new StoreError(
        "Conflict",
        kind,
        namespace,
        name,
        conflictMessage(kind, name, object.apiVersion),
      );
    }
    const rv = this.#rv + 1;
    const generation = current.metadata.generation ?? 0;
    const metadata: KubeObject["metadata"] = copyOf(object.metadata);
    metadata.uid = current.metadata.uid;
    metadata.creationTimestamp = current.metadata.creationTimestamp;
    metadata.resourceVersion = String(rv);
    const rule = generationRuleOf(kind);
    const edit = !options.bumpGeneration && !options.throughStatus;
    const bump = options.bumpGeneration
      ? generation > 0
      : edit && changedPerRule(rule, current, object);
    if (bump || generation > 0) metadata.generation = bump ? generation + 1 : generation;
    else delete metadata.generation;
    if (rule === "specAndTemplate") {
      // Never set by a client: the stored count, plus 1 when the template changed.
      const kept = Number(current.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? 1);
      const template = (o: KubeObject) => (o.spec as { template?: unknown } | undefined)?.template;
      const changed = edit && !jsonEqual(template(current), template(object));
      setTemplateGeneration(metadata, changed ? kept + 1 : kept);
    }
    if (!isClusterScoped(kind)) metadata.namespace = namespace;
    else delete metadata.namespace;
    const stored: KubeObject = copyOf(object);
    stored.metadata = metadata;
    if (unchanged(current, stored)) return current;
    this.#commit(rv, "MODIFIED", stored);
    this.#put(kind, namespace, name, stored, 0);
    this.#emit(rv, { type: "MODIFIED", object: stored });
    return stored;
  }

  /** The status subresource: replaces status only; spec, metadata and generation stay. */
  updateStatus(kind: string, namespace: string, name: string, status: unknown): KubeObject {
    const ns = isClusterScoped(kind) ? "" : namespace;
    // #existing and #put's work on the one cell (every HPA sync writes its status).
    const table = this.#kinds.get(kind);
    const cell = table?.byNamespace.get(ns)?.get(name);
    const current = cell?.object;
    if (table === undefined || cell === undefined || current === undefined) {
      throw this.#notFound(kind, ns, name);
    }
    // A status write that changes nothing is not stored either.
    if (jsonEqual(current.status, status)) return current;
    const rv = this.#rv + 1;
    const stored: KubeObject = copyOf(current);
    stored.metadata = withResourceVersion(current.metadata, rv);
    stored.status = status;
    this.#commit(rv, "MODIFIED", stored);
    if (kind === CRD) establish(stored);
    cell.object = stored;
    table.all = null;
    table.lists.delete(ns);
    this.#emit(rv, { type: "MODIFIED", object: stored });
    return stored;
  }

  /** Removes an object; watchers get DELETED with the final object (at the deletion's resourceVersion). */
  delete(kind: string, namespace: string, name: string): KubeObject | undefined {
    const ns = isClusterScoped(kind) ? "" : namespace;
    const table = this.#kinds.get(kind);
    const cell = table?.byNamespace.get(ns)?.get(name);
    const current = cell?.object;
    if (!table || !cell || !current) return undefined;
    const rv = this.#rv + 1;
    const final: KubeObject = copyOf(current);
    final.metadata = withResourceVersion(current.metadata, rv);
    this.#commit(rv, "DELETED", final);
    if (kind === CRD) withdraw(name);
    table.byNamespace.get(ns)!.delete(name);
    cell.object = undefined;
    if (cell.incarnation > 0) this.#incarnations.set(`${kind}/${ns}/${name}`, cell.incarnation);
    table.all = null;
    table.lists.delete(ns);
    this.#emit(rv, { type: "DELETED", object: final });
    return final;
  }

  /** Synchronous notification of every change; returns the unsubscribe function. */
  watch(listener: (event: WatchEvent) => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners = this.#listeners.filter((_, i) => i !== index);
    };
  }

  /**
   * Takes the errors listeners throw from now on (they then no longer fail the write that
   * notified them); returns the unsubscribe function.
   */
  onListenerError(handler: (error: unknown, event: WatchEvent) => void): () => void {
    this.#errorHandlers.push(handler);
    return () => {
      const index = this.#errorHandlers.indexOf(handler);
      if (index >= 0) this.#errorHandlers.splice(index, 1);
    };
  }

  /**
   * The changes after a resourceVersion (of one kind, when given), for a watch resumed by the API
   * server, or "Expired" when they are older than what is kept (upstream answers 410 Gone). The
   * objects are read back from the kept JSON: equal to the stored versions, not the same objects.
   */
  changesSince(resourceVersion: string, kind?: string): WatchEvent[] | "Expired" {
    return this.#history.since(Number(resourceVersion), kind);
  }

  #existing(kind: string, namespace: string, name: string, apiVersion?: string): KubeObject {
    const current = this.#kinds.get(kind)?.byNamespace.get(namespace)?.get(name)?.object;
    if (!current) throw this.#notFound(kind, namespace, name, apiVersion);
    return current;
  }

  #notFound(kind: string, namespace: string, name: string, apiVersion?: string): StoreError {
    return new StoreError(
      "NotFound",
      kind,
      namespace,
      name,
      notFoundMessage(kind, name, apiVersion),
    );
  }

  /** Journals a change (it may throw: then nothing changed) and takes its resourceVersion. */
  #commit(rv: number, type: WatchEventType, object: KubeObject): void {
    this.#journal?.({ rv, type, object });
    this.#rv = rv;
  }

  /** Stores an object in its name's cell; `incarnation` counts a new name's creations. */
  #put(
    kind: string,
    namespace: string,
    name: string,
    object: KubeObject,
    incarnation: number,
  ): void {
    // A stored CRD serves its kind from now on (apiextensions-apiserver's CRD handler).
    if (kind === CRD) establish(object);
    let table = this.#kinds.get(kind);
    if (!table) {
      table = { byNamespace: new Map(), all: null, lists: new Map() };
      this.#kinds.set(kind, table);
    }
    let cells = table.byNamespace.get(namespace);
    if (!cells) {
      cells = new Map();
      table.byNamespace.set(namespace, cells);
    }
    const cell = cells.get(name);
    if (cell !== undefined) cell.object = object;
    else cells.set(name, { object, incarnation });
    table.all = null;
    table.lists.delete(namespace);
  }

  #emit(rv: number, event: WatchEvent): void {
    this.#history.record(rv, event.type, event.object);
    // The list as it is now: a listener may unsubscribe (a watch ending) while the others are
    // notified, which replaces #listeners, not this array.
    const listeners = this.#listeners;
    let errors: unknown[] | null = null;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(event);
      } catch (error) {
        errors ??= [];
        errors.push(error);
      }
    }
    if (errors === null) return;
    // The write is done: a failing listener (a controller meeting an object it cannot handle)
    // is reported, not made the write's failure, when someone takes the reports.
    if (this.#errorHandlers.length === 0) throw errors[0];
    for (const error of errors) for (const handler of this.#errorHandlers) handler(error, event);
  }
}

/** Whether an update from `current` to `next` adds 1 to the generation under `rule`. */
function changedPerRule(
  rule: GenerationRule | undefined,
  current: KubeObject,
  next: KubeObject,
): boolean {
  switch (rule) {
    case undefined:
    case "create":
      return false;
    case "spec":
    case "specAndTemplate":
      return !jsonEqual(current.spec, next.spec);
    case "specOrAnnotations":
      return (
        !jsonEqual(current.spec, next.spec) ||
        !jsonEqual(current.metadata.annotations ?? {}, next.metadata.annotations ?? {})
      );
    case "content":
      return !equalContent(current, next);
    case "contentOrLabels":
      return (
        !equalContent(current, next) ||
        !jsonEqual(current.metadata.labels ?? {}, next.metadata.labels ?? {})
      );
  }
}

function setTemplateGeneration(metadata: KubeObject["metadata"], count: number): void {
  metadata.annotations = {
    ...metadata.annotations,
    [TEMPLATE_GENERATION_ANNOTATION]: String(count),
  };
}

/** Equal on every top-level field but metadata (and the type, which a version may spell otherwise). */
function equalContent(a: KubeObject, b: KubeObject): boolean {
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (key === "metadata" || key === "apiVersion" || key === "kind") continue;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  return true;
}

/** The would-be object equals the stored one apart from its resourceVersion. */
function unchanged(current: KubeObject, next: KubeObject): boolean {
  if (!equalExcept(current, next, "metadata")) return false;
  return equalExcept(current.metadata, next.metadata, "resourceVersion");
}

/** jsonEqual of two records on every key but `skip` (no copies: this runs on every update). */
function equalExcept(a: object, b: object, skip: string): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let leftKeys = 0;
  for (const key in left) {
    if (key === skip || left[key] === undefined) continue;
    leftKeys++;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  let rightKeys = 0;
  for (const key in right) if (key !== skip && right[key] !== undefined) rightKeys++;
  return leftKeys === rightKeys;
}

/**
 * A shallow copy. Not a spread: in Node 20 a spread run by optimized code makes an object of
 * another hidden class than the interpreter's, so every optimized reader of stored objects
 * deoptimized ("wrong map") once this code was optimized; Object.assign makes one class.
 */
function copyOf<T extends object>(object: T): T {
  // Object.assign would set a member named "__proto__" (a custom resource whose schema preserves
  // unknown fields at its root can have one) as the copy's prototype: such an object is spread.
  return Object.hasOwn(object, "__proto__") ? { ...object } : Object.assign({}, object);
}

function withResourceVersion(metadata: KubeObject["metadata"], rv: number): KubeObject["metadata"] {
  const copy = copyOf(metadata);
  copy.resourceVersion = String(rv);
  return copy;
}

function sortedByName(cells: Map<string, Cell>): KubeObject[] {
  return [...cells.keys()].sort().map((name) => cells.get(name)!.object!);
}
