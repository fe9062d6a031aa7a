// In-process adapters of the controller's ports, bound to an embedded cluster: the scale
// subresource of Deployments, ReplicaSets, StatefulSets and ReplicationControllers, the pods
// of a selector (cached views), the metrics APIs, the HPA status subresource, and the events
// port (events.ts, over the shared event correlator).
import { type ScalePaths, scaleOf } from "../api/scale.js";
import type { Selector } from "../api/selector.js";
import type {
  CrossVersionObjectReference,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
  KubeObject,
  MetricSpec,
} from "../api/types.js";
import type {
  ControllerPorts,
  HpaStatusPort,
  MetricsPort,
  PodsPort,
  PortResult,
  ScaleTargetPort,
  ScaleView,
} from "../controller/ports.js";
import type { PodView } from "../core/pods.js";
import { groupOf } from "../kinds/catalog.js";
import { customGeneration, customScalePaths, isCustomKind } from "../kinds/custom.js";
import { kindDefinition } from "../kinds/registry.js";
import {
  notFoundMessage,
  type ObjectStore,
  type StoreCell,
  StoreError,
} from "../registry/store.js";
import { EventRecorder } from "./events.js";
import { AskedInOrder } from "./in-order.js";
import type { MetricsPipeline } from "./metrics.js";

/** What the ports use of the cluster (EmbeddedCluster is one): no import of cluster.ts. */
export interface PortsClusterView {
  readonly store: ObjectStore;
  readonly metrics: Pick<MetricsPipeline, "observe">;
  listPods(namespace: string, selector: Selector): readonly PodView[];
  scaleWorkload(
    namespace: string,
    kind: string,
    name: string,
    replicas: number,
  ): KubeObject | undefined;
}

/** Kinds with a scale subresource, by API group. */
const SCALABLE: Record<string, string> = {
  Deployment: "apps",
  ReplicaSet: "apps",
  StatefulSet: "apps",
  ReplicationController: "",
};

/** Kinds the API server knows but that have no scale subresource. */
const KNOWN: Record<string, string> = {
  Pod: "",
  Service: "",
  Namespace: "",
  Event: "",
  ConfigMap: "",
  DaemonSet: "apps",
  HorizontalPodAutoscaler: "autoscaling",
};

type Lookup =
  | { ok: true; kind: string; paths?: ScalePaths }
  | { ok: false; error: string; status: number };

/** What the RESTMapper and the scale client say about a scaleTargetRef's kind. */
function lookupKind(ref: CrossVersionObjectReference): Lookup {
  const group = groupOf(ref.apiVersion);
  const custom = kindDefinition(ref.kind);
  if (custom && isCustomKind(ref.kind) && custom.group === group) {
    const paths = customScalePaths(ref.kind);
    return paths
      ? { ok: true, kind: ref.kind, paths }
      : { ok: false, error: "the server could not find the requested resource", status: 404 };
  }
  const scalableGroup = SCALABLE[ref.kind];
  if (scalableGroup !== undefined && (ref.apiVersion === undefined || group === scalableGroup)) {
    return { ok: true, kind: ref.kind };
  }
  const knownGroup = KNOWN[ref.kind];
  if (knownGroup !== undefined && (ref.apiVersion === undefined || group === knownGroup)) {
    return { ok: false, error: "the server could not find the requested resource", status: 404 };
  }
  return {
    ok: false,
    error: `no matches for kind "${ref.kind}" in group "${group}"`,
    status: 404,
  };
}

/**
 * What a scaleTargetRef resolved to, and the answer its getScale last gave. A class, not a
 * literal, like the ports below: see `EmbeddedScalePort`.
 */
class RefState {
  /** The target's store cell, the namespace it was read in and the object its answer is of. */
  cell: StoreCell | undefined = undefined;
  namespace = "";
  object: KubeObject | undefined = undefined;
  answer: PortResult<ScaleView> | undefined = undefined;

  constructor(
    readonly generation: number,
    readonly lookup: Lookup,
  ) {}
}

// A scaleTargetRef (part of a stored HPA: never changed in place) resolves to the same kind
// until the custom kinds change: once per ref and generation, not at every sync. Its target's
// store cell is kept with it, so a sync whose target did not change since the last one reads
// no map of the store and gets the same answer (the answer and its ScaleView are never changed).
// Each port keeps its own: a ref object can be shared by the HPAs of two clusters (a scenario's
// parsed objects, run again), and a cell is of one cluster's store.
type RefStates = WeakMap<CrossVersionObjectReference, RefState>;

function refState(refStates: RefStates, ref: CrossVersionObjectReference): RefState {
  const generation = customGeneration();
  let state = refStates.get(ref);
  if (state === undefined || state.generation !== generation) {
    state = new RefState(generation, lookupKind(ref));
    refStates.set(ref, state);
  }
  return state;
}

// Stored objects are replaced on every write, never changed in place: each one's scale (its
// selector formatted) is derived once, not at every sync of the HPAs that read it.
const scales = new WeakMap<KubeObject, ScaleView>();

/**
 * The states of refs, kept in the order the controller asks (src/cluster/in-order.ts) before
 * the WeakMap. Positions are bounded by the stored HPAs (a ref kept here after its HPA changed
 * is dropped when its place is taken).
 */
class RefStatesInOrder {
  readonly #states: RefStates = new WeakMap();
  readonly #inOrder = new AskedInOrder<CrossVersionObjectReference, null, RefState>();

  constructor(readonly store: ObjectStore) {}

  unordered(ref: CrossVersionObjectReference): RefState {
    return refState(this.#states, ref);
  }

  get(ref: CrossVersionObjectReference): RefState {
    const kept = this.#inOrder.get(ref, null);
    // Resolved again when the custom kinds changed.
    if (kept !== undefined && kept.generation === customGeneration()) return kept;
    const state = refState(this.#states, ref);
    this.#inOrder.set(ref, null, state, this.store.count("HorizontalPodAutoscaler"));
    return state;
  }
}

// Each port is an object whose methods are module functions reading the port's own fields, not
// a literal of closures: a simulation (each `horizon tune` candidate) makes its ports once per
// run, and the controller's code optimized during the first run deoptimized at the second (a
// closure made again is another call target, and V8 widens the field types of an object literal
// at the literal's second run). The methods are own properties, as a literal's were, so a port
// spread into another object (`{ ...port, updateScale }`, as tests wrap one) keeps working.
export function createScalePort(cluster: PortsClusterView): ScaleTargetPort {
  return new EmbeddedScalePort(cluster);
}

class EmbeddedScalePort implements ScaleTargetPort {
  readonly refStates: RefStatesInOrder;
  readonly getScale = getScale;
  readonly updateScale = updateScale;

  constructor(readonly cluster: PortsClusterView) {
    this.refStates = new RefStatesInOrder(cluster.store);
  }
}

function getScale(
  this: EmbeddedScalePort,
  namespace: string,
  ref: CrossVersionObjectReference,
): PortResult<ScaleView> {
  const state = this.refStates.get(ref);
  const kind = state.lookup;
  if (!kind.ok) return { ok: false, error: kind.error, status: kind.status };
  // The cell holds the current object of the name while it exists (emptied on deletion).
  const kept = state.cell?.object;
  if (kept !== undefined && kept === state.object && state.namespace === namespace) {
    return state.answer!;
  }
  const cell = this.cluster.store.cell(kind.kind, namespace, ref.name);
  const object = cell?.object;
  if (!object) {
    return { ok: false, error: notFoundMessage(kind.kind, ref.name), status: 404 };
  }
  let scale = scales.get(object);
  if (scale === undefined) {
    scale = scaleOf(object, kind.paths);
    scales.set(object, scale);
  }
  const answer: PortResult<ScaleView> = { ok: true, value: scale };
  state.cell = cell;
  state.namespace = namespace;
  state.object = object;
  state.answer = answer;
  return answer;
}

function updateScale(
  this: EmbeddedScalePort,
  namespace: string,
  ref: CrossVersionObjectReference,
  replicas: number,
): PortResult<void> {
  // Not in the order: a sync's updateScale comes after its getScale.
  const kind = this.refStates.unordered(ref).lookup;
  if (!kind.ok) return { ok: false, error: kind.error, status: kind.status };
  const updated = this.cluster.scaleWorkload(namespace, kind.kind, ref.name, replicas);
  if (!updated) return { ok: false, error: notFoundMessage(kind.kind, ref.name), status: 404 };
  return { ok: true, value: undefined };
}

class EmbeddedPodsPort implements PodsPort {
  readonly listPods = listPods;

  constructor(readonly cluster: PortsClusterView) {}
}

function listPods(
  this: EmbeddedPodsPort,
  namespace: string,
  selector: Selector,
): readonly PodView[] {
  return this.cluster.listPods(namespace, selector);
}

class EmbeddedMetricsPort implements MetricsPort {
  readonly observe = observe;

  constructor(readonly cluster: PortsClusterView) {}
}

function observe(
  this: EmbeddedMetricsPort,
  namespace: string,
  spec: MetricSpec,
  podSelector: Selector,
): ReturnType<MetricsPort["observe"]> {
  return this.cluster.metrics.observe(namespace, spec, podSelector);
}

class EmbeddedStatusPort implements HpaStatusPort {
  readonly updateStatus = updateStatus;

  constructor(readonly cluster: PortsClusterView) {}
}

function updateStatus(
  this: EmbeddedStatusPort,
  hpa: HorizontalPodAutoscaler,
  status: HorizontalPodAutoscalerStatus,
): PortResult<void> {
  try {
    this.cluster.store.updateStatus(
      "HorizontalPodAutoscaler",
      hpa.metadata.namespace ?? "default",
      hpa.metadata.name ?? "",
      status,
    );
    return { ok: true, value: undefined };
  } catch (error) {
    if (error instanceof StoreError) return { ok: false, error: error.message, status: error.code };
    throw error;
  }
}

export function createPorts(cluster: PortsClusterView): Omit<ControllerPorts, "clock"> {
  return {
    scale: new EmbeddedScalePort(cluster),
    pods: new EmbeddedPodsPort(cluster),
    metrics: new EmbeddedMetricsPort(cluster),
    status: new EmbeddedStatusPort(cluster),
    events: new EventRecorder(cluster.store),
  };
}
