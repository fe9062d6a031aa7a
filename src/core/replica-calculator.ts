// The replica calculator: from one metric's observations to a replica count, as upstream's
// ReplicaCalculator does it (pkg/controller/podautoscaler/replica_calculator.go). Pure: pods,
// samples and `now` come in, a count and a trace of how it was reached come out.
import type { KubernetesVersion } from "../api/versions.js";
import { versionSwitches } from "../api/versions.js";
import { ceilToInt32, ceilToInt32Amd64, ceilToInt64, MAX_INT64 } from "./int.js";
import { isPodReady, type PodView } from "./pods.js";
import { isWithinTolerance, type Tolerances } from "./tolerance.js";

/** One pod's sample (milli-units) with the time and window it was measured over (ms). */
export interface PodSample {
  value: number;
  timestamp: number;
  window: number;
}

export type PodSamples = Map<string, PodSample>;

/**
 * Per-pod samples as columns aligned with a pod list (no object per pod and scrape, no lookup
 * by name): pods[i]'s sample is values[i] (NaN: it has none), measured at timestamps[i] over
 * windows[i]. `extra` holds the values of samples for pods not in the list (a metrics API may
 * report pods the lister no longer lists): upstream counts them in its totals and entry counts.
 */
export interface SampleColumns {
  pods: readonly PodView[];
  values: number[];
  timestamps: number[];
  windows: number[];
  extra: number[];
}

/** Samples as a metrics port hands them over: keyed by pod name, or already aligned. */
export type Samples = PodSamples | SampleColumns;

/**
 * Columns aligned with `pods`: the given ones when they already are, else matched by name (for
 * columns of another pod list, whose pods not in `pods` become extras).
 */
export function sampleColumns(pods: readonly PodView[], samples: Samples): SampleColumns {
  if (!(samples instanceof Map)) {
    if (samples.pods === pods) return samples;
    const realigned = sampleColumns(pods, samplesByName(samples));
    realigned.extra.push(...samples.extra);
    return realigned;
  }
  const n = pods.length;
  const columns: SampleColumns = {
    pods,
    values: new Array<number>(n),
    timestamps: new Array<number>(n),
    windows: new Array<number>(n),
    extra: [],
  };
  // Not the hot path (grouping reads samples by name in one pass): a lookup per pod.
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const sample = samples.get(pods[i]!.name);
    if (sample === undefined) {
      columns.values[i] = Number.NaN;
      columns.timestamps[i] = 0;
      columns.windows[i] = 0;
      continue;
    }
    matched++;
    columns.values[i] = sample.value;
    columns.timestamps[i] = sample.timestamp;
    columns.windows[i] = sample.window;
  }
  if (matched < samples.size) {
    const listed = new Set<string>();
    for (let i = 0; i < n; i++) listed.add(pods[i]!.name);
    for (const [name, sample] of samples) if (!listed.has(name)) columns.extra.push(sample.value);
  }
  return columns;
}

/** The samples keyed by pod name (extras, having no name, are left out). */
export function samplesByName(samples: Samples): PodSamples {
  if (samples instanceof Map) return samples;
  const out: PodSamples = new Map();
  for (let i = 0; i < samples.pods.length; i++) {
    const value = samples.values[i]!;
    if (Number.isNaN(value)) continue;
    out.set(samples.pods[i]!.name, {
      value,
      timestamp: samples.timestamps[i]!,
      window: samples.windows[i]!,
    });
  }
  return out;
}

/** How many samples there are (a Map's size; listed pods with one plus extras). */
export function sampleCount(samples: Samples): number {
  if (samples instanceof Map) return samples.size;
  let count = samples.extra.length;
  for (const value of samples.values) if (!Number.isNaN(value)) count++;
  return count;
}

const NONE: string[] = [];

function append(list: string[], name: string): string[] {
  if (list === NONE) return [name];
  list.push(name);
  return list;
}

export interface PodGroups {
  readyPodCount: number;
  unready: string[];
  missing: string[];
  ignored: string[];
}

export interface ReadinessSettings {
  cpuInitializationPeriodMs: number;
  initialReadinessDelayMs: number;
}

/** How a calculation reached its count: the part of the decision trace owned by one metric. */
export interface CalculationTrace {
  /**
   * withinTolerance: ratio in band, current replicas kept. direct: ceil(ratio × pods).
   * rebalancedWithinTolerance / rebalancedDirectionChange / rebalancedCountGuard: the
   * conservative re-computation kept current replicas. rebalanced: its count was used.
   * scaleFromZero: ceil(ratio) at zero replicas. perPod: ceil(total / target).
   */
  path:
    | "withinTolerance"
    | "direct"
    | "rebalanced"
    | "rebalancedWithinTolerance"
    | "rebalancedDirectionChange"
    | "rebalancedCountGuard"
    | "scaleFromZero"
    | "perPod";
  usageRatio: number;
  newUsageRatio?: number;
  tolerances: Tolerances;
  /** Pods of the selector, and how they were grouped (pod metric paths). */
  podCount?: number;
  readyPodCount?: number;
  ignoredPods?: string[];
  unreadyPods?: string[];
  missingPods?: string[];
  /** Metric entries in the re-computation, after missing/unready pods were filled. */
  rebalancedEntries?: number;
}

export type Calculation =
  | {
      ok: true;
      replicas: number;
      /** Resource/ContainerResource Utilization: the integer percentage of request. */
      utilization?: number;
      /** The usage upstream reports for status, in milli-units. */
      rawValueMilli: bigint;
      trace: CalculationTrace;
    }
  | { ok: false; error: string };

/**
 * Sorts pods into ready / unready / missing / ignored. Readiness timing only matters for cpu:
 * a young pod's sample must postdate its readiness transition by one window, and an older
 * pod is unready only if it never became ready. `ready`, when given, receives the sample value
 * of each ready pod at its index and NaN for every other pod (the values the ratio sums).
 */
export function groupPods(
  pods: readonly PodView[],
  samples: Samples,
  resource: string,
  settings: ReadinessSettings,
  now: number,
  ready?: number[] | Float64Array,
): PodGroups {
  const values = new Float64Array(pods.length);
  const { groups } = grouping(pods, samples, resource, settings, now, values);
  if (ready) for (let i = 0; i < values.length; i++) ready[i] = values[i]!;
  return groups;
}

/**
 * groupPods into `ready` (as long as the list), also counting the listed pods that have a
 * sample. In passes, each a small loop: the samples' values aligned with the pods; then, for a
 * list seen before, the pods that count by one comparison with a time derived once for the
 * list (see `readyFrom`); the others one by one. One loop doing all of it per pod read every
 * pod's state and redid its checks after each name comparison (a call): bench:core's 1,000
 * pods took 16-22 µs instead of ~12.
 */
function grouping(
  pods: readonly PodView[],
  samples: Samples,
  resource: string,
  settings: ReadinessSettings,
  now: number,
  ready: Float64Array,
): {
  groups: PodGroups;
  sampled: number;
  columns: SampleColumns | null;
  views: readonly PodView[];
  viewsChecked: boolean;
} {
  // Columns aligned with another list (the pods changed in between) are matched by name.
  const columns =
    samples instanceof Map ? null : samples.pods === pods ? samples : sampleColumns(pods, samples);
  // A frozen list is read through its PodListInfo's copy: Node 20 reads a frozen array's
  // elements several times slower (and reading both kinds at one site slower still). Another
  // list's PodListInfo is used only while the list holds the very PodViews it was made from
  // (the caller may refill an array); none is made for it (samples by name of a list seen once).
  const frozen = Object.isFrozen(pods);
  let info = columns !== null || frozen ? listInfo(pods, frozen) : listInfos.get(pods);
  if (info !== undefined && !frozen && columns === null && !sameViews(info.views, pods))
    info = undefined;
  const views = info !== undefined ? info.views : pods;
  const n = views.length;
  if (columns !== null) {
    const values = columns.values;
    for (let i = 0; i < n; i++) ready[i] = values[i]!;
  } else {
    const names = info !== undefined ? namesOf(info) : podNames(pods);
    alignByName(names, samples as PodSamples, ready);
  }
  const cpu = resource === "cpu";
  let readyPodCount = 0;
  // The pods left to look at one by one: all of them without a PodListInfo.
  let others: number[] | null = null;
  if (info !== undefined) {
    const from = readyFrom(info, cpu, settings);
    for (let i = 0; i < n; i++) {
      if (from[i]! <= now && !Number.isNaN(ready[i]!)) readyPodCount++;
      else if (others === null) others = [i];
      else others.push(i);
    }
  }
  let sampled = readyPodCount;
  // Most syncs find no unready, missing or ignored pod: share one empty list until one is found.
  let unready = NONE;
  let missing = NONE;
  let ignored = NONE;
  const count = info === undefined ? n : others === null ? 0 : others.length;
  for (let k = 0; k < count; k++) {
    const i = others === null ? k : others[k]!;
    const pod = views[i]!;
    const value = ready[i]!;
    const has = !Number.isNaN(value);
    if (has) sampled++;
    const state = podState(pod);
    let counts = false;
    if (state === IGNORED) ignored = append(ignored, pod.name);
    else if (state === PENDING) unready = append(unready, pod.name);
    else if (!has) missing = append(missing, pod.name);
    else if (!cpu) counts = true;
    else if (state === NOT_STARTED) unready = append(unready, pod.name);
    else {
      const startTime = pod.startTime!;
      const transition = pod.ready!.lastTransitionTime;
      let unreadyNow: boolean;
      if (startTime + settings.cpuInitializationPeriodMs > now) {
        // Only young pods need the sample's time and window.
        const sample = columns === null ? (samples as PodSamples).get(pod.name)! : null;
        const timestamp = sample === null ? columns!.timestamps[i]! : sample.timestamp;
        const window = sample === null ? columns!.windows[i]! : sample.window;
        unreadyNow = state === READY_FALSE || timestamp < transition + window;
      } else
        unreadyNow =
          state === READY_FALSE && startTime + settings.initialReadinessDelayMs > transition;
      if (unreadyNow) unready = append(unready, pod.name);
      else counts = true;
    }
    if (counts) readyPodCount++;
    else ready[i] = Number.NaN;
  }
  return {
    groups: { readyPodCount, unready, missing, ignored },
    sampled,
    columns,
    views,
    viewsChecked: info !== undefined,
  };
}

/**
 * Each pod's sample value into `out` (NaN: none), the pods given by name. Samples by name
 * usually come in the pods' order: they are walked alongside, and a pod's sample is looked up
 * by name only when the next one is not its own (a lookup per pod was most of the cost).
 */
function alignByName(listed: readonly string[], samples: PodSamples, out: Float64Array): void {
  const names = samples.keys();
  const entries = samples.values();
  let nextName = names.next().value;
  for (let i = 0; i < listed.length; i++) {
    const name = listed[i]!;
    let sample: PodSample | undefined;
    if (nextName === name) {
      sample = entries.next().value;
      nextName = names.next().value;
    } else sample = samples.get(name);
    out[i] = sample === undefined ? Number.NaN : sample.value;
  }
}

// What grouping reads of a pod, as a code: ignored (deleting or Failed), Pending, no Ready
// condition or start time, or the Ready condition's status.
const IGNORED = 0;
const PENDING = 1;
const NOT_STARTED = 2;
const READY_TRUE = 3;
const READY_FALSE = 4;
const READY_OTHER = 5;

/** The pod's code (IGNORED…READY_OTHER). */
function podState(pod: PodView): number {
  if (pod.deleting || pod.phase === "Failed") return IGNORED;
  if (pod.phase === "Pending") return PENDING;
  const ready = pod.ready;
  if (ready === null || pod.startTime === null) return NOT_STARTED;
  return ready.status === "True"
    ? READY_TRUE
    : ready.status === "False"
      ? READY_FALSE
      : READY_OTHER;
}

/**
 * For each pod of the list, the time from which its sample, if it has one, counts as a ready
 * pod's without a closer look (-Infinity: always; Infinity: never): for cpu, once the pod is
 * past its initialization period, unless it turned unready within its initial readiness delay.
 * A pod before that time, or one without a sample, is grouped one by one. Kept with the list,
 * for cpu per settings and for other metrics (which have no readiness timing) once.
 */
function readyFrom(info: PodListInfo, cpu: boolean, settings: ReadinessSettings): Float64Array {
  const initializationMs = settings.cpuInitializationPeriodMs;
  const delayMs = settings.initialReadinessDelayMs;
  if (!cpu && info.readyFromOthers !== null) return info.readyFromOthers;
  const cached = info.readyFromCpu;
  if (
    cpu &&
    cached !== null &&
    info.readyFromCpuInitializationMs === initializationMs &&
    info.readyFromCpuDelayMs === delayMs
  )
    return cached;
  const views = info.views;
  const from = new Float64Array(views.length);
  for (let i = 0; i < views.length; i++) {
    const pod = views[i]!;
    const state = podState(pod);
    let time: number;
    if (state === IGNORED || state === PENDING) time = Number.POSITIVE_INFINITY;
    else if (!cpu) time = Number.NEGATIVE_INFINITY;
    else if (state === NOT_STARTED) time = Number.POSITIVE_INFINITY;
    else if (state === READY_FALSE && pod.startTime! + delayMs > pod.ready!.lastTransitionTime)
      time = Number.POSITIVE_INFINITY;
    else time = pod.startTime! + initializationMs;
    from[i] = time;
  }
  if (cpu) {
    info.readyFromCpu = from;
    info.readyFromCpuInitializationMs = initializationMs;
    info.readyFromCpuDelayMs = delayMs;
  } else info.readyFromOthers = from;
  return from;
}

/**
 * What the calculator derives from one pod list, kept while the caller passes the same list:
 * controllers pass one list from sync to sync while the pods stay the same. A sync then reads
 * its pods' readiness from one array of numbers instead of from every PodView and its Ready
 * condition (each a cold read: the other HPAs' syncs run in between), and their requests from
 * a list computed once.
 */
interface PodListInfo {
  /**
   * A copy of the PodViews it was derived from: reused only for the very same ones (a caller
   * may refill an array), and read instead of a frozen list.
   */
  views: readonly PodView[];
  /** The pods' names, once asked for (one array read per pod instead of two object reads). */
  names: readonly string[] | null;
  /** How many pods are Running and Ready, once asked for (see `readyRunningPodCount`). */
  readyRunning: number | null;
  /** The readiness times for cpu last computed (see `readyFrom`), and for what settings. */
  readyFromCpu: Float64Array | null;
  /** The settings readyFromCpu is for (in the record itself: one object less to read per sync). */
  readyFromCpuInitializationMs: number;
  readyFromCpuDelayMs: number;
  /** The readiness times for other metrics, once computed. */
  readyFromOthers: Float64Array | null;
  /**
   * The last request list computed (as podRequestList's answer, returned again while asked for
   * the same), and for what: fields of the record itself, one object less to read per sync.
   */
  requests: RequestListResult | null;
  requestsContainer: string;
  requestsResource: string;
  requestsPodLevel: boolean;
}

const listInfos = new WeakMap<readonly PodView[], PodListInfo>();

/**
 * A list whose PodViews the calculation in progress has just compared with its PodListInfo's
 * (while grouping), or found frozen: `listInfo` need not look again. Set only around that
 * calculation's request lookup, so nothing can refill the list in between.
 */
let checkedList: readonly PodView[] | null = null;

function listInfo(pods: readonly PodView[], frozen?: boolean): PodListInfo {
  const cached = listInfos.get(pods);
  // A frozen list cannot have been refilled: no need to compare it pod by pod.
  if (
    cached !== undefined &&
    (checkedList === pods || (frozen ?? Object.isFrozen(pods)) || sameViews(cached.views, pods))
  )
    return cached;
  const info: PodListInfo = {
    views: [...pods],
    names: null,
    readyRunning: null,
    readyFromCpu: null,
    readyFromCpuInitializationMs: 0,
    readyFromCpuDelayMs: 0,
    readyFromOthers: null,
    requests: null,
    requestsContainer: "",
    requestsResource: "",
    requestsPodLevel: false,
  };
  listInfos.set(pods, info);
  return info;
}

function namesOf(info: PodListInfo): readonly string[] {
  if (info.names === null) info.names = podNames(info.views);
  return info.names;
}

// Pushed, not mapped: Array.prototype.map's result is a holey array when TurboFan has inlined
// the caller and a packed one when not, and the name walk then reads arrays of both kinds.
function podNames(pods: readonly PodView[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < pods.length; i++) names.push(pods[i]!.name);
  return names;
}

/** Whether two pod lists hold the same PodViews in the same order (identity, not content). */
function sameViews(seen: readonly PodView[], pods: readonly PodView[]): boolean {
  if (seen.length !== pods.length) return false;
  for (let i = 0; i < pods.length; i++) if (seen[i] !== pods[i]) return false;
  return true;
}

export type RequestsResult =
  | { ok: true; requests: Map<string, number> }
  | { ok: false; error: string };

export type RequestListResult =
  | { ok: true; requests: readonly number[] }
  | { ok: false; error: string };

/**
 * Sums each pod's requests for `resource`: all containers plus restartable init containers,
 * or only `container` when named; pod-level requests win when PodLevelResources is on.
 * Every listed pod needs requests, including ignored and unready ones (upstream does too).
 */
export function calculatePodRequests(
  pods: readonly PodView[],
  container: string,
  resource: string,
  podLevelResources: boolean,
): RequestsResult {
  const list = podRequestList(pods, container, resource, podLevelResources);
  if (!list.ok) return list;
  return { ok: true, requests: new Map(pods.map((pod, i) => [pod.name, list.requests[i]!])) };
}

// PodViews are immutable (rebuilt when the pod changes), so each pod keeps its request sums,
// in a plain object (keys never collide with Object.prototype: they start with "0/" or "1/"):
// a Map per pod cost ~380 bytes, 40 MiB at 100,000 pods (bench:controller).
const REQUEST_CACHE = Symbol("requests");
type CachedPod = PodView & { [REQUEST_CACHE]?: Record<string, number | string> };

/**
 * calculatePodRequests as a list aligned with `pods` (the hot path's form). The list returned
 * may be shared with other calls: callers only read it.
 */
export function podRequestList(
  pods: readonly PodView[],
  container: string,
  resource: string,
  podLevelResources: boolean,
): RequestListResult {
  const info = listInfo(pods);
  const cached = info.requests;
  if (
    cached !== null &&
    info.requestsResource === resource &&
    info.requestsContainer === container &&
    info.requestsPodLevel === podLevelResources
  )
    return cached;
  const key = `${podLevelResources ? 1 : 0}/${resource}/${container}`;
  // Read through the list's copy: a frozen array's elements are slow to read.
  const views = info.views;
  const requests = new Array<number>(views.length);
  for (let i = 0; i < views.length; i++) {
    const pod = views[i] as CachedPod;
    let cache = pod[REQUEST_CACHE];
    if (cache === undefined) {
      cache = {};
      pod[REQUEST_CACHE] = cache;
    }
    let request = cache[key];
    if (request === undefined) {
      request = podRequest(pod, container, resource, podLevelResources);
      cache[key] = request;
    }
    if (typeof request === "string") return { ok: false, error: request };
    requests[i] = request;
  }
  const result: RequestListResult = { ok: true, requests };
  info.requests = result;
  info.requestsContainer = container;
  info.requestsResource = resource;
  info.requestsPodLevel = podLevelResources;
  return result;
}

/** One pod's request in milli-units, or the error message. */
function podRequest(
  pod: PodView,
  container: string,
  resource: string,
  podLevelResources: boolean,
): number | string {
  if (container === "" && podLevelResources && pod.podRequests) {
    const podLevel = pod.podRequests[resource];
    if (podLevel !== undefined) return podLevel;
  }
  let sum = 0;
  let found = container === "";
  for (const list of [pod.containers, pod.restartableInitContainers]) {
    for (const c of list) {
      if (container !== "" && c.name !== container) continue;
      found = true;
      const request = c.requests[resource];
      if (request === undefined) {
        return `missing request for ${resource} in container ${c.name} of Pod ${pod.name}`;
      }
      sum += request;
    }
  }
  if (!found) return `container ${container} not found in Pod ${pod.name}`;
  return sum;
}

interface UtilizationRatio {
  usageRatio: number;
  utilization: number;
  rawAverageMilli: bigint;
}

/**
 * utilization = floor(Σusage × 100 / Σrequest) over samples whose pod has a request (`values`
 * aligned with `requests`, NaN: no sample); the ratio is taken from that truncated integer, as
 * upstream does.
 */
export function resourceUtilizationRatio(
  values: ArrayLike<number>,
  requests: readonly number[],
  targetUtilization: number,
): { ok: true; value: UtilizationRatio } | { ok: false; error: string } {
  const value: UtilizationRatio = { usageRatio: 0, utilization: 0, rawAverageMilli: 0n };
  const error = utilizationRatioInto(values, requests, targetUtilization, value);
  return error === null ? { ok: true, value } : { ok: false, error };
}

/** resourceUtilizationRatio into `out`, or its error (`out` then unchanged). */
function utilizationRatioInto(
  values: ArrayLike<number>,
  requests: readonly number[],
  targetUtilization: number,
  out: UtilizationRatio,
): string | null {
  let usageTotal = 0;
  let requestTotal = 0;
  let entries = 0;
  for (let i = 0; i < requests.length; i++) {
    const value = values[i]!;
    if (Number.isNaN(value)) continue;
    usageTotal += value;
    requestTotal += requests[i]!;
    entries++;
  }
  if (requestTotal === 0) return "no metrics returned matched known pods";
  let utilization: number;
  let rawAverageMilli: bigint;
  if (Number.isSafeInteger(usageTotal * 100) && Number.isSafeInteger(requestTotal)) {
    utilization = Math.trunc((usageTotal * 100) / requestTotal);
    rawAverageMilli = BigInt(Math.trunc(usageTotal / entries));
  } else {
    // Beyond 2^53 the float sums above are inexact; redo them in integers.
    let usage = 0n;
    let total = 0n;
    for (let i = 0; i < requests.length; i++) {
      const value = values[i]!;
      if (Number.isNaN(value)) continue;
      usage += BigInt(value);
      total += BigInt(requests[i]!);
    }
    utilization = Number((usage * 100n) / total);
    rawAverageMilli = usage / BigInt(entries);
  }
  out.usageRatio = utilization / targetUtilization;
  out.utilization = utilization;
  out.rawAverageMilli = rawAverageMilli;
  return null;
}

// resourceUtilizationReplicas's first ratio: read into locals at once, so one object serves
// every calculation (none is kept, and nothing runs in between).
const FIRST_RATIO: UtilizationRatio = { usageRatio: 0, utilization: 0, rawAverageMilli: 0n };

/**
 * The truncated average of all entries (`values` of listed pods, NaN: none, and `extra`) and
 * its ratio to the target (plain metrics).
 */
export function plainUsageRatio(
  values: Iterable<number>,
  extra: readonly number[],
  targetMilli: number,
) {
  let total = 0;
  let count = 0;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    total += value;
    count++;
  }
  for (const value of extra) total += value;
  count += extra.length;
  let average: number;
  if (Number.isSafeInteger(total)) average = Math.trunc(total / count);
  else {
    let exact = 0n;
    for (const value of values) if (!Number.isNaN(value)) exact += BigInt(value);
    for (const value of extra) exact += BigInt(value);
    average = Number(exact / BigInt(count));
  }
  return { usageRatio: average / targetMilli, averageMilli: average };
}

export interface PodMetricInput {
  currentReplicas: number;
  pods: readonly PodView[];
  /** Samples by pod name or aligned with `pods`; the calculator never changes them. */
  samples: Samples;
  /** The resource name for readiness rules ("cpu" enables them); "" for Pods metrics. */
  resource: string;
  tolerances: Tolerances;
  readiness: ReadinessSettings;
  now: number;
}

interface GroupedSamples {
  groups: PodGroups;
  /** The values that count, aligned with the input's pods: ready pods' samples, NaN elsewhere. */
  ready: Float64Array;
  /** Samples of pods not listed: upstream keeps them in its map. */
  extra: readonly number[];
  /** The input's pods, read through an unfrozen copy when the list is frozen. */
  views: readonly PodView[];
  /** The pods are the very PodViews their list held when its PodListInfo was made. */
  viewsChecked: boolean;
}

function groupAndFilter(input: PodMetricInput): GroupedSamples | { error: string } {
  const { pods, samples } = input;
  if (pods.length === 0) {
    return { error: "no pods returned by selector while calculating replica count" };
  }
  const ready = readyBuffer(pods.length);
  const { groups, sampled, columns, views, viewsChecked } = grouping(
    pods,
    samples,
    input.resource,
    input.readiness,
    input.now,
    ready,
  );
  // Samples of pods not listed stay in upstream's map: they count in totals and entries.
  let extra: readonly number[] = NONE_VALUES;
  if (columns !== null) extra = columns.extra;
  else if (samples instanceof Map && samples.size > sampled) {
    const listed = new Set<string>();
    for (const pod of pods) listed.add(pod.name);
    const values: number[] = [];
    for (const [name, sample] of samples) if (!listed.has(name)) values.push(sample.value);
    extra = values;
  }
  // Samples of ignored and unready pods are removed: what is left is the ready pods' and extras.
  if (groups.readyPodCount + extra.length === 0) {
    return { error: "did not receive metrics for targeted pods (pods might be unready)" };
  }
  return { groups, ready, extra, views, viewsChecked };
}

const NONE_VALUES: readonly number[] = [];

// A Float64Array's backing store is allocated outside the heap: one per sync cost more than the
// grouping itself. A calculation is done with its buffer before the next begins (none is kept in
// a result), so buffers are reused: lists of up to 64 pods one per length, longer ones a view
// of one shared store, grown to the longest list seen.
const READY_BUFFERS: (Float64Array | undefined)[] = [];
let largeReady = new Float64Array(0);

function readyBuffer(n: number): Float64Array {
  if (n > 64) {
    if (largeReady.length < n) largeReady = new Float64Array(Math.max(n, 2 * largeReady.length));
    return largeReady.subarray(0, n);
  }
  let buffer = READY_BUFFERS[n];
  if (buffer === undefined) {
    buffer = new Float64Array(n);
    READY_BUFFERS[n] = buffer;
  }
  return buffer;
}

function baseTrace(input: PodMetricInput, groups: PodGroups, usageRatio: number): CalculationTrace {
  return {
    path: "direct",
    usageRatio,
    tolerances: input.tolerances,
    podCount: input.pods.length,
    readyPodCount: groups.readyPodCount,
    ignoredPods: groups.ignored,
    unreadyPods: groups.unready,
    missingPods: groups.missing,
  };
}

/** Whether missing pods, or unready ones on a scale-up, need the conservative re-computation. */
function needsRebalance(groups: PodGroups, usageRatio: number): boolean {
  return (groups.unready.length > 0 && usageRatio > 1.0) || groups.missing.length > 0;
}

/** decideWithPods without a re-computation: keep current replicas in tolerance, else scale. */
function directDecision(
  input: PodMetricInput,
  groups: PodGroups,
  usageRatio: number,
): { replicas: number; trace: CalculationTrace } {
  const trace = baseTrace(input, groups, usageRatio);
  if (isWithinTolerance(usageRatio, input.tolerances)) {
    trace.path = "withinTolerance";
    return { replicas: input.currentReplicas, trace };
  }
  return { replicas: ceilToInt32(usageRatio * groups.readyPodCount), trace };
}

/**
 * The shared second half of the pod-metric paths: with no missing pods (and no unready pods
 * on a scale-up) scale by ratio × ready pods; otherwise fill in conservative values and
 * re-compute, keeping current replicas whenever that would flip direction.
 */
function decideWithPods(
  input: PodMetricInput,
  grouped: GroupedSamples,
  usageRatio: number,
  missingValue: (podIndex: number) => number | null,
  recompute: (values: ArrayLike<number> & Iterable<number>, extra: readonly number[]) => number,
): { replicas: number; trace: CalculationTrace } {
  const { groups } = grouped;
  const scaleUpWithUnready = groups.unready.length > 0 && usageRatio > 1.0;
  if (!needsRebalance(groups, usageRatio)) return directDecision(input, groups, usageRatio);
  const trace = baseTrace(input, groups, usageRatio);
  // The ready pods' values, with missing pods filled in and (on a scale-up) unready ones at 0.
  const values = grouped.ready.slice();
  let entries = groups.readyPodCount + grouped.extra.length;
  const missing = new Set(groups.missing);
  const pods = grouped.views;
  for (let i = 0; i < pods.length; i++) {
    if (!Number.isNaN(values[i]!)) continue;
    const pod = pods[i]!;
    if (pod.deleting || pod.phase === "Failed") continue;
    if (missing.has(pod.name)) {
      const value = missingValue(i);
      if (value !== null) {
        values[i] = value;
        entries++;
      }
    } else if (scaleUpWithUnready) {
      values[i] = 0;
      entries++;
    }
  }
  const newUsageRatio = recompute(values, grouped.extra);
  trace.newUsageRatio = newUsageRatio;
  trace.rebalancedEntries = entries;
  if (isWithinTolerance(newUsageRatio, input.tolerances)) {
    trace.path = "rebalancedWithinTolerance";
    return { replicas: input.currentReplicas, trace };
  }
  if ((usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0)) {
    trace.path = "rebalancedDirectionChange";
    return { replicas: input.currentReplicas, trace };
  }
  const newReplicas = ceilToInt32(newUsageRatio * entries);
  if (
    (newUsageRatio < 1.0 && newReplicas > input.currentReplicas) ||
    (newUsageRatio > 1.0 && newReplicas < input.currentReplicas)
  ) {
    trace.path = "rebalancedCountGuard";
    return { replicas: input.currentReplicas, trace };
  }
  trace.path = "rebalanced";
  return { replicas: newReplicas, trace };
}

/** Resource / ContainerResource with a Utilization target (upstream GetResourceReplicas). */
export function resourceUtilizationReplicas(
  input: PodMetricInput & {
    targetUtilization: number;
    /** Requests are only computed once metrics exist, as upstream orders its errors. */
    requests: () => RequestListResult;
  },
): Calculation {
  const grouped = groupAndFilter(input);
  if ("error" in grouped) return { ok: false, error: grouped.error };
  checkedList = grouped.viewsChecked ? input.pods : null;
  let requestsResult: RequestListResult;
  try {
    requestsResult = input.requests();
  } finally {
    checkedList = null;
  }
  if (!requestsResult.ok) return requestsResult;
  const requests = requestsResult.requests;
  const error = utilizationRatioInto(grouped.ready, requests, input.targetUtilization, FIRST_RATIO);
  if (error !== null) return { ok: false, error };
  const { usageRatio, utilization, rawAverageMilli } = FIRST_RATIO;
  // Most syncs need no re-computation: its closures are made only when one does.
  const decision = needsRebalance(grouped.groups, usageRatio)
    ? rebalancedUtilization(input, grouped, usageRatio, requests)
    : directDecision(input, grouped.groups, usageRatio);
  if ("error" in decision) return { ok: false, error: decision.error };
  return {
    ok: true,
    replicas: decision.replicas,
    utilization,
    rawValueMilli: rawAverageMilli,
    trace: decision.trace,
  };
}

/** resourceUtilizationReplicas's re-computation with missing and unready pods filled in. */
function rebalancedUtilization(
  input: PodMetricInput & { targetUtilization: number },
  grouped: GroupedSamples,
  usageRatio: number,
  requests: readonly number[],
): { replicas: number; trace: CalculationTrace } | { error: string } {
  // A missing pod counts at 100% of its request on a scale-down (or at the target when that is
  // above 100%), at 0 on a scale-up, and is left out at a ratio of exactly 1.
  const fallbackPercent = Math.max(100, input.targetUtilization);
  const missingValue = (podIndex: number): number | null => {
    if (usageRatio < 1.0) return Math.trunc((requests[podIndex]! * fallbackPercent) / 100);
    if (usageRatio > 1.0) return 0;
    return null;
  };
  let recomputeError: string | null = null;
  const decision = decideWithPods(input, grouped, usageRatio, missingValue, (values) => {
    const again = resourceUtilizationRatio(values, requests, input.targetUtilization);
    if (again.ok) return again.value.usageRatio;
    recomputeError = again.error;
    return 1.0;
  });
  if (recomputeError !== null) return { error: recomputeError };
  return decision;
}

/**
 * Plain per-pod values against an average target: Pods metrics, and Resource metrics with an
 * AverageValue target (upstream calcPlainMetricReplicas).
 */
export function plainMetricReplicas(input: PodMetricInput & { targetMilli: number }): Calculation {
  const grouped = groupAndFilter(input);
  if ("error" in grouped) return { ok: false, error: grouped.error };
  const { usageRatio, averageMilli } = plainUsageRatio(
    grouped.ready,
    grouped.extra,
    input.targetMilli,
  );
  // Missing pods count exactly at the target on a scale-down, at 0 on a scale-up, and are left
  // out at a ratio of exactly 1.
  const missingValue = () => (usageRatio < 1.0 ? input.targetMilli : usageRatio > 1.0 ? 0 : null);
  const decision = decideWithPods(
    input,
    grouped,
    usageRatio,
    missingValue,
    (values, extra) => plainUsageRatio(values, extra, input.targetMilli).usageRatio,
  );
  return {
    ok: true,
    replicas: decision.replicas,
    rawValueMilli: BigInt(averageMilli),
    trace: decision.trace,
  };
}

/** Pods that count for Object/External Value targets: Running with Ready=True. */
export function readyRunningPodCount(pods: readonly PodView[]): number {
  // A frozen list holds the same pods for good: counted once, through its unfrozen copy.
  const info = Object.isFrozen(pods) ? listInfo(pods, true) : null;
  if (info !== null && info.readyRunning !== null) return info.readyRunning;
  const views = info !== null ? info.views : pods;
  let count = 0;
  for (let i = 0; i < views.length; i++) {
    const pod = views[i]!;
    if (pod.phase === "Running" && isPodReady(pod)) count++;
  }
  if (info !== null) info.readyRunning = count;
  return count;
}

/** What the calculator does differently by Kubernetes version (docs/versions.md). */
export const calculatorSwitches = versionSwitches({
  // kubernetes/kubernetes#126979 (v1.35): ceil(ratio × ready pods) of an Object/External Value
  // target saturates at MaxInt32; v1.34 converted unguarded (MinInt32 on amd64).
  usageRatioSaturates: "1.35",
});

/**
 * Object/External with a Value target: ratio = value / target; at zero replicas the count is
 * ceil(ratio) with no tolerance (scale from zero), otherwise ceil(ratio × ready pods).
 */
export function usageRatioReplicas(input: {
  currentReplicas: number;
  usageRatio: number;
  pods: readonly PodView[];
  tolerances: Tolerances;
  version: KubernetesVersion;
}): { ok: true; replicas: number; trace: CalculationTrace } | { ok: false; error: string } {
  const trace: CalculationTrace = {
    path: "direct",
    usageRatio: input.usageRatio,
    tolerances: input.tolerances,
  };
  if (input.currentReplicas === 0) {
    trace.path = "scaleFromZero";
    return { ok: true, replicas: ceilToInt32(input.usageRatio), trace };
  }
  if (isWithinTolerance(input.usageRatio, input.tolerances)) {
    trace.path = "withinTolerance";
    return { ok: true, replicas: input.currentReplicas, trace };
  }
  if (input.pods.length === 0) {
    return {
      ok: false,
      error:
        "unable to calculate ready pods: no pods returned by selector while calculating replica count",
    };
  }
  const ready = readyRunningPodCount(input.pods);
  trace.podCount = input.pods.length;
  trace.readyPodCount = ready;
  const toInt32 = calculatorSwitches(input.version).usageRatioSaturates
    ? ceilToInt32
    : ceilToInt32Amd64;
  return { ok: true, replicas: toInt32(input.usageRatio * ready), trace };
}

/**
 * Object/External with an AverageValue target: compares the total with target × the scale's
 * status replicas; outside tolerance the count is ceil(total / target). The reported usage is
 * the per-pod average, rounded up.
 */
export function perPodReplicas(input: {
  totalMilli: bigint;
  targetMilli: bigint;
  statusReplicas: number;
  tolerances: Tolerances;
}): { replicas: number; usageMilli: bigint; trace: CalculationTrace } {
  const total = Number(input.totalMilli);
  const target = Number(input.targetMilli);
  const usageRatio = total / (target * input.statusReplicas);
  const trace: CalculationTrace = {
    path: "withinTolerance",
    usageRatio,
    tolerances: input.tolerances,
  };
  let replicas = input.statusReplicas;
  if (!isWithinTolerance(usageRatio, input.tolerances)) {
    trace.path = "perPod";
    replicas = ceilToInt32(total / target);
  }
  const usageMilli =
    input.totalMilli >= MAX_INT64 ? MAX_INT64 : ceilToInt64(total / input.statusReplicas);
  return { replicas, usageMilli, trace };
}
