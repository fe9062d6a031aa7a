// Pods as the controller needs them: an informer over all namespaces that keeps each pod as a
// PodView (labels, phase, Ready condition, start time, deletion, requests — parsed once per
// change), indexed by namespace and by `key=value` label, so `listPods(namespace, selector)`
// reads only the pods that carry one of the selector's required labels. Answers are cached per
// (namespace, selector) and stay the same array until a pod that matches (before or after its
// change) changes: the controller's per-array memoisation (reconcile.ts) then holds.

import { type Selector, selectorMatches } from "../api/selector.js";
import type { PodsPort } from "../controller/ports.js";
import { jsonEqual } from "../core/json.js";
import { type PodView, podViewFromObject } from "../core/pods.js";
import { Informer, type InformerOptions, type RawObject } from "./informer.js";
import type { KubeClient } from "./types.js";

interface CachedList {
  namespace: string;
  selector: Selector;
  pods: readonly PodView[];
  /** The `key=value` labels it is filed under (a matching pod carries one); null: scanned. */
  anchors: string[] | null;
}

const EMPTY: readonly PodView[] = Object.freeze([]);

function labelPairs(labels: Record<string, string>): string[] {
  const out: string[] = [];
  for (const key in labels) out.push(`${key}=${labels[key]}`);
  return out;
}

function byName(a: PodView, b: PodView): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The pods of each namespace, indexed by label; answers `listPods` without scanning every pod. */
export class PodIndex implements PodsPort {
  readonly #pods = new Map<string, Map<string, PodView>>();
  /** namespace → `key=value` → pod names. */
  readonly #byLabel = new Map<string, Map<string, Set<string>>>();
  /** namespace → selector text → cached answer. */
  readonly #cache = new Map<string, Map<string, CachedList>>();
  /** namespace → `key=value` → cached answers filed under it. */
  readonly #cacheByAnchor = new Map<string, Map<string, Set<CachedList>>>();
  /** namespace → cached answers with no equality requirement (scanned). */
  readonly #cacheScanned = new Map<string, Set<CachedList>>();
  #size = 0;
  #cached = 0;

  constructor(readonly maxCachedLists = 100_000) {}

  get size(): number {
    return this.#size;
  }

  get(namespace: string, name: string): PodView | undefined {
    return this.#pods.get(namespace)?.get(name);
  }

  /** Adds or replaces a pod (`view` null removes it). */
  set(namespace: string, name: string, view: PodView | null): void {
    let pods = this.#pods.get(namespace);
    const old = pods?.get(name) ?? null;
    if (old === null && view === null) return;
    this.#invalidate(namespace, old, view);
    let labels = this.#byLabel.get(namespace);
    if (old) {
      for (const pair of labelPairs(old.labels)) {
        const names = labels?.get(pair);
        names?.delete(name);
        if (names?.size === 0) labels!.delete(pair);
      }
      pods!.delete(name);
      this.#size--;
    }
    if (view) {
      if (!pods) {
        pods = new Map();
        this.#pods.set(namespace, pods);
      }
      if (!labels) {
        labels = new Map();
        this.#byLabel.set(namespace, labels);
      }
      pods.set(name, view);
      this.#size++;
      for (const pair of labelPairs(view.labels)) {
        let names = labels.get(pair);
        if (!names) {
          names = new Set();
          labels.set(pair, names);
        }
        names.add(name);
      }
    } else if (pods?.size === 0) {
      this.#pods.delete(namespace);
      this.#byLabel.delete(namespace);
    }
  }

  /** Drops the cached answers a change of this pod can alter. */
  #invalidate(namespace: string, old: PodView | null, view: PodView | null): void {
    if (this.#cached === 0) return;
    const touched = (entry: CachedList) =>
      (old !== null && selectorMatches(entry.selector, old.labels)) ||
      (view !== null && selectorMatches(entry.selector, view.labels));
    const doomed: CachedList[] = [];
    const anchored = this.#cacheByAnchor.get(namespace);
    if (anchored) {
      const pairs = new Set([
        ...(old ? labelPairs(old.labels) : []),
        ...(view ? labelPairs(view.labels) : []),
      ]);
      for (const pair of pairs) {
        for (const entry of anchored.get(pair) ?? []) if (touched(entry)) doomed.push(entry);
      }
    }
    for (const entry of this.#cacheScanned.get(namespace) ?? []) {
      if (touched(entry)) doomed.push(entry);
    }
    for (const entry of doomed) this.#evict(entry);
  }

  #evict(entry: CachedList): void {
    const lists = this.#cache.get(entry.namespace);
    if (lists?.get(entry.selector.text) !== entry) return;
    lists.delete(entry.selector.text);
    this.#cached--;
    if (entry.anchors === null) this.#cacheScanned.get(entry.namespace)?.delete(entry);
    else {
      const anchored = this.#cacheByAnchor.get(entry.namespace);
      for (const pair of entry.anchors) {
        const set = anchored?.get(pair);
        set?.delete(entry);
        if (set?.size === 0) anchored!.delete(pair);
      }
    }
  }

  #clearCache(): void {
    this.#cache.clear();
    this.#cacheByAnchor.clear();
    this.#cacheScanned.clear();
    this.#cached = 0;
  }

  listPods(namespace: string, selector: Selector): readonly PodView[] {
    const cached = this.#cache.get(namespace)?.get(selector.text);
    if (cached) return cached.pods;
    const pods = this.#pods.get(namespace);
    const labels = this.#byLabel.get(namespace);
    // The equality (or `in`) requirement with the fewest candidate pods.
    let anchors: string[] | null = null;
    let candidates: string[] | null = null;
    for (const r of selector.requirements) {
      if (r.operator !== "=" && r.operator !== "in") continue;
      const pairs = [...new Set(r.values)].map((v) => `${r.key}=${v}`);
      let count = 0;
      for (const pair of pairs) count += labels?.get(pair)?.size ?? 0;
      if (candidates === null || count < candidates.length) {
        anchors = pairs;
        candidates = [];
        for (const pair of pairs) for (const name of labels?.get(pair) ?? []) candidates.push(name);
      }
    }
    let out: PodView[] = [];
    if (pods) {
      if (candidates !== null) {
        for (const name of candidates) {
          const pod = pods.get(name)!;
          if (selectorMatches(selector, pod.labels)) out.push(pod);
        }
      } else {
        for (const pod of pods.values()) if (selectorMatches(selector, pod.labels)) out.push(pod);
      }
    }
    out.sort(byName);
    const result = out.length === 0 ? EMPTY : Object.freeze(out);
    out = [];
    if (this.#cached >= this.maxCachedLists) this.#clearCache();
    const entry: CachedList = { namespace, selector, pods: result, anchors };
    let lists = this.#cache.get(namespace);
    if (!lists) {
      lists = new Map();
      this.#cache.set(namespace, lists);
    }
    lists.set(selector.text, entry);
    this.#cached++;
    if (anchors === null) {
      let scanned = this.#cacheScanned.get(namespace);
      if (!scanned) {
        scanned = new Set();
        this.#cacheScanned.set(namespace, scanned);
      }
      scanned.add(entry);
    } else {
      let anchored = this.#cacheByAnchor.get(namespace);
      if (!anchored) {
        anchored = new Map();
        this.#cacheByAnchor.set(namespace, anchored);
      }
      for (const pair of anchors) {
        let set = anchored.get(pair);
        if (!set) {
          set = new Set();
          anchored.set(pair, set);
        }
        set.add(entry);
      }
    }
    return result;
  }
}

export interface PodInformerOptions
  extends Omit<InformerOptions<PodView>, "client" | "path" | "transform" | "equals"> {
  client: KubeClient;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/** Pods of every namespace, kept stripped and indexed; the controller's PodsPort. */
export class PodInformer implements PodsPort {
  readonly informer: Informer<PodView>;
  readonly index = new PodIndex();

  constructor(options: PodInformerOptions) {
    this.informer = new Informer<PodView>({
      name: "pods",
      ...options,
      path: "/api/v1/pods",
      transform: (object: RawObject) =>
        podViewFromObject(object as Parameters<typeof podViewFromObject>[0]),
      // A status write that changes nothing the algorithm reads (podIP, container restarts)
      // keeps the pod's view, and the cached lists holding it.
      equals: jsonEqual,
    });
    this.informer.subscribe((key, value) => {
      const [namespace, name] = splitKey(key);
      this.index.set(namespace, name, value);
    });
  }

  start(): void {
    this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.informer.waitForSync(signal);
  }

  get size(): number {
    return this.index.size;
  }

  listPods(namespace: string, selector: Selector): readonly PodView[] {
    return this.index.listPods(namespace, selector);
  }
}
