// The reconcile of one HPA over the controller's ports: read the scale, pods and metrics, let the
// pure core decide, update the scale, then write status and events. Upstream:
// reconcileAutoscaler in pkg/controller/podautoscaler/horizontal.go.

import { parseSelector, type Selector, selectorMatches } from "../api/selector.js";
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import {
  completeExtendedSync,
  decideExtendedSync,
  type ExtendedDecision,
  type ForeignWriter,
  hasExtensions,
  needsExtendedMetrics,
  resumedResult,
  yieldedResult,
  yieldToForeignWriter,
} from "../core/extensions/sync.js";
import { EMPTY_HISTORY, type HpaHistory } from "../core/history.js";
import type { PodView } from "../core/pods.js";
import type { MetricObservation } from "../core/sources/types.js";
import type { RescaleOutcome, ScaleObservation, SyncResult } from "../core/sync.js";
import type { Awaitable, ControllerPorts, PortResult, ScaleView } from "./ports.js";

const keys = new WeakMap<HorizontalPodAutoscaler, string>();

/** `namespace/name`, computed once per HPA object (objects are replaced, never mutated). */
export function hpaKey(hpa: HorizontalPodAutoscaler): string {
  let key = keys.get(hpa);
  if (key === undefined) {
    key = `${hpa.metadata.namespace ?? "default"}/${hpa.metadata.name ?? ""}`;
    keys.set(hpa, key);
  }
  return key;
}

/**
 * What the controller remembers of one HPA, in one record: a sync looks it up once instead of
 * once per map (history, selector, yielding, the AmbiguousSelector answer), each lookup being
 * a first read of a table and a key after the other HPAs' syncs.
 */
export class HpaMemory {
  history: HpaHistory = EMPTY_HISTORY;
  /** Another controller writes this HPA too (recent evidence), set before each sync. */
  foreignWriter: ForeignWriter | undefined = undefined;
  /** The last sync yielded to another controller. */
  yielding = false;
  /** The selector the HPA was last seen with, and its namespace (AmbiguousSelector). */
  namespace = "";
  selector: Selector | null = null;
  /** The pod list the HPAs selecting it were last found for, at which selector version. */
  selectingPods: readonly PodView[] | null = null;
  selectingVersion = -1;
  selecting: string[] = [];
  /** Set once forgotten: a reconcile still holding the record looks the key up again. */
  forgotten = false;
  /** The scale's last selector text and its parse (null: not parsed, or invalid). */
  scaleSelectorText = "";
  scaleSelector: Selector | null = null;
}

/** The scale's selector parsed, remembered with the HPA's record (null: invalid). */
function parsedSelector(memory: HpaMemory, text: string): Selector | null {
  const parsed = parseSelector(text);
  memory.scaleSelectorText = text;
  memory.scaleSelector = parsed.ok ? parsed.selector : null;
  return memory.scaleSelector;
}

/**
 * What the controller keeps in memory between syncs: per-HPA histories and the selectors HPAs
 * were last seen with (for AmbiguousSelector). Lost on restart, as upstream's.
 */
export class ControllerMemory {
  private readonly hpas = new Map<string, HpaMemory>();
  /**
   * Selectors indexed by one `key=value` they require, so finding the HPAs that select a set
   * of pods looks at the pods' labels instead of at every HPA (upstream keeps a similar
   * bidirectional index). Selectors without an equality requirement are checked every time.
   */
  private readonly byLabel = new Map<string, Map<string, Set<string>>>();
  private readonly unindexed = new Set<string>();
  /** Bumped on every selector change, so answers cached per pod list stay correct. */
  private version = 0;

  /** The HPA's record, made on first use. */
  of(key: string): HpaMemory {
    let memory = this.hpas.get(key);
    if (memory === undefined) {
      memory = new HpaMemory();
      this.hpas.set(key, memory);
    }
    return memory;
  }

  history(key: string): HpaHistory {
    return this.hpas.get(key)?.history ?? EMPTY_HISTORY;
  }

  setHistory(key: string, history: HpaHistory): void {
    this.of(key).history = history;
  }

  setSelector(key: string, namespace: string, selector: Selector): void {
    this.setSelectorOf(this.of(key), key, namespace, selector);
  }

  /** setSelector on the HPA's record, already looked up. */
  setSelectorOf(memory: HpaMemory, key: string, namespace: string, selector: Selector): void {
    const previous = memory.selector;
    if (previous && memory.namespace === namespace && previous.text === selector.text) return;
    this.removeSelector(key, memory);
    this.version++;
    memory.namespace = namespace;
    memory.selector = selector;
    const indexLabel = indexLabelOf(selector);
    if (indexLabel === null) this.unindexed.add(key);
    else {
      let inNamespace = this.byLabel.get(namespace);
      if (!inNamespace) {
        inNamespace = new Map();
        this.byLabel.set(namespace, inNamespace);
      }
      let keys = inNamespace.get(indexLabel);
      if (!keys) {
        keys = new Set();
        inNamespace.set(indexLabel, keys);
      }
      keys.add(key);
    }
  }

  private removeSelector(key: string, memory: HpaMemory): void {
    const selector = memory.selector;
    if (!selector) return;
    this.version++;
    memory.selector = null;
    this.unindexed.delete(key);
    const indexLabel = indexLabelOf(selector);
    if (indexLabel !== null) this.byLabel.get(memory.namespace)?.get(indexLabel)?.delete(key);
  }

  /** Another controller wrote this HPA recently (ForeignWriterDetector's evidence), or not. */
  setForeignWriter(key: string, writer: ForeignWriter | null): void {
    if (writer) this.of(key).foreignWriter = writer;
    else {
      const memory = this.hpas.get(key);
      if (memory) memory.foreignWriter = undefined;
    }
  }

  foreignWriter(key: string): ForeignWriter | undefined {
    return this.hpas.get(key)?.foreignWriter;
  }

  setYielding(key: string, yielding: boolean): void {
    if (yielding) this.of(key).yielding = true;
    else {
      const memory = this.hpas.get(key);
      if (memory) memory.yielding = false;
    }
  }

  isYielding(key: string): boolean {
    return this.hpas.get(key)?.yielding ?? false;
  }

  /** The HPA was deleted: upstream drops its recommendations and scale events. */
  forget(key: string): void {
    const memory = this.hpas.get(key);
    if (!memory) return;
    this.removeSelector(key, memory);
    memory.forgotten = true;
    this.hpas.delete(key);
  }

  clear(): void {
    this.version++;
    for (const memory of this.hpas.values()) memory.forgotten = true;
    this.hpas.clear();
    this.byLabel.clear();
    this.unindexed.clear();
  }

  /** HPAs (sorted keys) whose last-seen selector matches any of these pods. */
  hpasSelecting(namespace: string, pods: readonly PodView[]): string[] {
    return this.findSelecting(namespace, pods);
  }

  /**
   * hpasSelecting for the HPA's own pods. Pod lists are immutable snapshots (a changed pod set
   * is a new list): the answer is kept with the HPA's record while its list and the selectors
   * stay the same.
   */
  hpasSelectingOf(memory: HpaMemory, namespace: string, pods: readonly PodView[]): string[] {
    if (memory.selectingPods === pods && memory.selectingVersion === this.version)
      return memory.selecting;
    const keys = this.findSelecting(namespace, pods);
    memory.selectingPods = pods;
    memory.selectingVersion = this.version;
    memory.selecting = keys;
    return keys;
  }

  private findSelecting(namespace: string, pods: readonly PodView[]): string[] {
    const candidates = new Set<string>(this.unindexed);
    const inNamespace = this.byLabel.get(namespace);
    if (inNamespace) {
      let lastLabels: Record<string, string> | null = null;
      for (const pod of pods) {
        // Pods of one workload have equal labels (one object, or equal ones: a pod's labels
        // are a new object whenever it changes): skip repeats, without their pairs.
        if (
          pod.labels === lastLabels ||
          (lastLabels !== null && sameLabels(pod.labels, lastLabels))
        )
          continue;
        lastLabels = pod.labels;
        for (const pair of labelPairs(pod.labels)) {
          const keys = inNamespace.get(pair);
          if (keys) for (const key of keys) candidates.add(key);
        }
      }
    }
    const selecting: string[] = [];
    for (const key of candidates) {
      const entry = this.hpas.get(key)!;
      if (entry.namespace !== namespace) continue;
      const selector = entry.selector!;
      if (pods.some((pod) => selectorMatches(selector, pod.labels))) selecting.push(key);
    }
    return selecting.sort();
  }
}

/** The same own labels (a false "no" only costs the pairs' lookup). */
function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  let count = 0;
  for (const key in a) {
    if (a[key] !== b[key] || !Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return false;
    count++;
  }
  for (const _ in b) count--;
  return count === 0;
}

function indexLabelOf(selector: Selector): string | null {
  const equality = selector.requirements.find((r) => r.operator === "=");
  return equality ? `${equality.key}=${equality.values[0]}` : null;
}

// PodViews are rebuilt only when a pod changes, so their labels' `key=value` strings are too.
const pairsCache = new WeakMap<Record<string, string>, string[]>();

function labelPairs(labels: Record<string, string>): string[] {
  let pairs = pairsCache.get(labels);
  if (!pairs) {
    pairs = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
    pairsCache.set(labels, pairs);
  }
  return pairs;
}

// What a sync that reads no pods or metrics passes the core (never changed by it).
const NO_PODS: readonly PodView[] = [];
const NO_OBSERVATIONS: readonly MetricObservation[] = [];
const NO_ANSWERS: MetricObservation[] = [];

export interface ReconcileOutcome {
  result: SyncResult;
  /** Errors of the status write come on top of the sync's own (upstream logs them). */
  statusError: string | null;
}

/**
 * One reconcile. Synchronous when every port answers synchronously (the embedded cluster's),
 * a promise when one answers with a promise (client-node's): no promise and microtask per HPA
 * where nothing waits. `record`, when given, is `memory.of(key)` as a caller kept it (used
 * unless forgotten since): no lookup of the records' table.
 */
export function reconcileHpa(
  hpa: HorizontalPodAutoscaler,
  ports: ControllerPorts,
  memory: ControllerMemory,
  config: ControllerConfig,
  key: string = hpaKey(hpa),
  record: HpaMemory | null = null,
): Awaitable<ReconcileOutcome> {
  return new Reconcile(hpa, ports, memory, config, key, record).start();
}

/**
 * The reconcile's steps, each run when the port before it answered. An object with a method
 * per step, not a generator: resuming a generator and saving its registers cost a simulated
 * run about 4% of its instructions. A port's rejected promise rejects the reconcile.
 */
class Reconcile {
  private readonly namespace: string;
  private readonly now: number;
  private scale: ScaleObservation | null = null;
  private pods: readonly PodView[] = NO_PODS;
  private selectingHpas: string[] | undefined = undefined;
  private decision: ExtendedDecision | null = null;
  private foreign: ForeignWriter | undefined = undefined;
  private extended = false;
  private result: SyncResult | null = null;
  private held: HpaMemory;

  constructor(
    private readonly hpa: HorizontalPodAutoscaler,
    private readonly ports: ControllerPorts,
    private readonly memory: ControllerMemory,
    private readonly config: ControllerConfig,
    private readonly key: string,
    record: HpaMemory | null,
  ) {
    this.namespace = hpa.metadata.namespace ?? "default";
    this.now = ports.clock.now();
    this.held = record !== null && !record.forgotten ? record : memory.of(key);
  }

  /** The HPA's record, looked up once per reconcile (again only if forgotten meanwhile). */
  private get state(): HpaMemory {
    if (this.held.forgotten) this.held = this.memory.of(this.key);
    return this.held;
  }

  // Each step tests its port's answer itself: a callback made only for a promise.
  start(): Awaitable<ReconcileOutcome> {
    const answer = this.ports.scale.getScale(this.namespace, this.hpa.spec.scaleTargetRef);
    return answer instanceof Promise
      ? answer.then((read) => this.observe(read))
      : this.observe(answer);
  }

  private observe(scaleRead: PortResult<ScaleView>): Awaitable<ReconcileOutcome> {
    const { hpa, namespace } = this;
    // Every sync builds its inputs with the same keys in the same order (optional ones set to
    // undefined, not left out), so the core's hot functions see one object shape each.
    const scale: ScaleObservation = scaleRead.ok
      ? {
          ok: true,
          specReplicas: scaleRead.value.specReplicas,
          statusReplicas: scaleRead.value.statusReplicas,
          selector: scaleRead.value.selector,
        }
      : { ok: false, error: scaleRead.error };
    this.scale = scale;
    if (scale.ok && needsExtendedMetrics(hpa, scale) && scale.selector) {
      const state = this.state;
      // The selector the record holds when the scale reports the same text (most syncs): no
      // lookup of the parsed selectors' table, a first read after the other HPAs' syncs.
      const selector =
        state.scaleSelector !== null && state.scaleSelectorText === scale.selector
          ? state.scaleSelector
          : parsedSelector(state, scale.selector);
      if (selector !== null) {
        this.memory.setSelectorOf(state, this.key, namespace, selector);
        this.pods = this.ports.pods.listPods(namespace, selector);
        this.selectingHpas = this.memory.hpasSelectingOf(state, namespace, this.pods);
        const specs = hpa.spec.metrics ?? [];
        // A loop, not map + some: no closures at every sync.
        let answers: (MetricObservation | Promise<MetricObservation>)[] = NO_ANSWERS;
        let pending = false;
        for (let i = 0; i < specs.length; i++) {
          const answer = this.ports.metrics.observe(namespace, specs[i]!, selector);
          if (answer instanceof Promise) pending = true;
          // The first as a literal of one: a push onto [] makes room for 17.
          if (i === 0) answers = [answer];
          else answers.push(answer);
        }
        return pending
          ? Promise.all(answers).then((observations) => this.decide(observations))
          : this.decide(answers as MetricObservation[]);
      }
    }
    return this.decide(NO_OBSERVATIONS);
  }

  private decide(observations: readonly MetricObservation[]): Awaitable<ReconcileOutcome> {
    const { hpa } = this;
    const decision = decideExtendedSync({
      now: this.now,
      hpa,
      scale: this.scale!,
      pods: this.pods,
      selectingHpas: this.selectingHpas,
      observations,
      history: this.state.history,
      config: this.config,
    });
    this.decision = decision;
    // Only an HPA with extensions yields: without them both controllers decide alike.
    this.extended = hasExtensions(hpa);
    this.foreign = this.extended ? this.state.foreignWriter : undefined;
    if (this.foreign) yieldToForeignWriter(decision, this.foreign.message);
    if (!decision.rescale) return this.complete(null);
    const answer = this.ports.scale.updateScale(
      this.namespace,
      hpa.spec.scaleTargetRef,
      decision.desiredReplicas,
    );
    return answer instanceof Promise
      ? answer.then((update) => this.rescaled(update))
      : this.rescaled(answer);
  }

  private rescaled(update: PortResult<void>): Awaitable<ReconcileOutcome> {
    return this.complete(update.ok ? { ok: true } : { ok: false, error: update.error });
  }

  private complete(outcome: RescaleOutcome | null): Awaitable<ReconcileOutcome> {
    const { hpa, now, foreign } = this;
    let result = completeExtendedSync(this.decision!, outcome);
    const state = this.state;
    state.history = result.history;
    // Yielding, Horizon writes no status of its own (two writers would flip it at every sync):
    // only its ForeignWriter condition, which the other controller keeps as it keeps any other.
    const yielded = state.yielding;
    if (foreign) result = yieldedResult(result, hpa, foreign, now, !yielded);
    // Without annotations (and no yield to end) the status is upstream's, which keeps any
    // condition it does not set.
    else if (yielded || this.extended) result = resumedResult(result, hpa, yielded);
    state.yielding = foreign !== undefined;
    for (const event of result.events) this.ports.events.record(hpa, event, now);
    this.result = result;
    if (!result.statusChanged) return { result, statusError: null };
    const answer = this.ports.status.updateStatus(hpa, result.status);
    return answer instanceof Promise
      ? answer.then((written) => this.finish(written))
      : this.finish(answer);
  }

  private finish(written: PortResult<void>): ReconcileOutcome {
    const result = this.result!;
    if (written.ok) return { result, statusError: null };
    this.ports.events.record(
      this.hpa,
      { type: "Warning", reason: "FailedUpdateStatus", message: written.error },
      this.now,
    );
    return {
      result,
      statusError: `failed to update status for ${this.hpa.metadata.name}: ${written.error}`,
    };
  }
}
