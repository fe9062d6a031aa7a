// The metrics pipeline: like metrics-server, usage is scraped at a fixed resolution with a
// seeded phase, and each pod's sample carries the scrape's timestamp and window. A pod has no
// sample before the first scrape that sees its containers running, so the HPA's
// CPU-initialization and missing-pod rules act as in a real cluster. Custom metrics follow a
// Prometheus adapter: a per-pod request rate over a window (needing two scrapes, as `rate()`),
// an Object value (requests/s reaching an Ingress) and an External queue length.
//
// Nothing is computed per pod on a scrape: a scrape records each workload's demand and
// per-pod share, and a pod's sample is derived from those and its own timestamps when asked.

import type { Selector } from "../api/selector.js";
import { selectorFromLabelSelector, selectorMatches } from "../api/selector.js";
import type { MetricSpec } from "../api/types.js";
import type { PodView } from "../core/pods.js";
import type { SampleColumns } from "../core/replica-calculator.js";
import { resourceObservation } from "../core/sources/resource-usage.js";
import type { MetricObservation, PodMetricsItem } from "../core/sources/types.js";
import { groupOf, pluralOf } from "../kinds/catalog.js";
import { noise, noiseBits, streamSeed } from "../registry/random.js";
import type {
  ClusterModel,
  ExternalMetricModel,
  ObjectMetricModel,
  PodLifecycleModel,
  PodsMetricModel,
  UsageModel,
} from "./cluster-model.js";
import {
  type EntryUsage,
  type PodRecord,
  type SelectorEntry,
  USAGE_STRIDE,
  type UsageRun,
  type Workload,
} from "./model.js";
import { trafficAt } from "./traffic.js";
import { cpuAt, servedPerPod } from "./usage.js";

export type MetricsApi = "resource" | "custom" | "external";

export const DEFAULT_RESOLUTION_MS = 15_000;

const UNAVAILABLE = "the server is currently unable to handle the request";

interface QueueState {
  model: ExternalMetricModel;
  labels: Record<string, string>;
  length: number;
  lastT: number;
}

/** What the pipeline reads of the cluster (EmbeddedCluster is one): no import of cluster.ts. */
export interface MetricsClusterView {
  readonly model: ClusterModel;
  readonly startTime: number;
  /** The virtual time everything has run up to (epoch ms). */
  readonly now: number;
  workload(namespace: string, kind: string, name: string): Workload | undefined;
  workloads(): Iterable<Workload>;
  selectorEntry(namespace: string, selector: Selector): SelectorEntry;
}

// A member's class at a scrape (EntryUsage.classes): no sample (not running, or no containers),
// else a sample, serving or not, in its startup burst or not.
const NO_SAMPLE = 0;
const SAMPLED = 2;
const SERVING = 1;
const BURSTING = 4;

/** cpuAt's arithmetic, rounded up to a whole millicore as a sample. */
function cpuMilli(
  usage: UsageModel,
  served: number,
  bursting: boolean,
  burstMilli: number,
  factor: number,
): number {
  const { baseMilli, milliPerRps, limitMilli } = usage.cpu;
  let milli = baseMilli + milliPerRps * served;
  if (bursting) milli += burstMilli;
  milli *= factor;
  if (milli < 0) milli = 0;
  return Math.ceil(limitMilli !== null ? Math.min(milli, limitMilli) : milli);
}

/** A memory sample (milli-bytes) as #compute makes it. */
function memoryMilli(usage: UsageModel, served: number, factor: number): number {
  const memory = usage.memory;
  const bytes = (memory.baseBytes + memory.bytesPerRps * served) * factor;
  return bytes > 0 ? Math.round(bytes) * 1000 : 0;
}

export class MetricsPipeline {
  readonly resolution: number;
  /** Offset of the first scrape after t = 0 (seeded). */
  readonly phase: number;
  readonly ringSize: number;
  nextScrapeAt: number;
  /** Index of the latest scrape, -1 before the first. */
  scrapeIndex = -1;
  lastScrapeAt = Number.NaN;
  readonly #cluster: MetricsClusterView;
  readonly #outageUntil: Record<MetricsApi, number> = {
    resource: Number.NEGATIVE_INFINITY,
    custom: Number.NEGATIVE_INFINITY,
    external: Number.NEGATIVE_INFINITY,
  };
  readonly #queues: QueueState[];
  readonly #podsModels = new Map<string, PodsMetricModel[]>();
  readonly #objectModels: ObjectMetricModel[];

  constructor(cluster: MetricsClusterView) {
    this.#cluster = cluster;
    const model = cluster.model;
    const resolution = model.metricsResolutionMs;
    this.resolution = resolution > 0 ? resolution : DEFAULT_RESOLUTION_MS;
    this.phase = Math.floor(noise(streamSeed(model.seed, "metrics-server"), 0) * this.resolution);
    this.nextScrapeAt = cluster.startTime + this.phase;
    let window = this.resolution;
    for (const m of model.metrics.pods) window = Math.max(window, m.rateWindowMs);
    for (const m of model.metrics.object) window = Math.max(window, m.rateWindowMs);
    this.ringSize = Math.ceil(window / this.resolution) + 2;
    for (const pods of model.metrics.pods) {
      const key = `${pods.namespace}/${pods.name}`;
      const list = this.#podsModels.get(key) ?? [];
      list.push(pods);
      this.#podsModels.set(key, list);
    }
    this.#objectModels = model.metrics.object;
    this.#queues = model.metrics.external.map((external) => ({
      model: external,
      labels: { ...(external.selector?.matchLabels ?? {}) },
      length: external.initialLength,
      lastT: cluster.startTime,
    }));
  }

  /** Connects a new workload to the metric models that describe it. */
  attach(workload: Workload): void {
    const same = (ref: { namespace: string; kind: string; name: string }) =>
      ref.namespace === workload.namespace &&
      ref.kind === workload.kind &&
      ref.name === workload.name;
    for (const model of this.#cluster.model.metrics.pods)
      if (same(model.workload)) workload.podsMetrics.push(model);
    for (const model of this.#objectModels)
      if (same(model.workload)) workload.objectMetrics.push(model);
  }

  outage(apis: readonly MetricsApi[], until: number): void {
    for (const api of apis) this.#outageUntil[api] = Math.max(this.#outageUntil[api], until);
  }

  #down(api: MetricsApi): boolean {
    return this.#cluster.now < this.#outageUntil[api];
  }

  /** Whether `api` is in a scenario outage now (what `observe` answers 503-worded errors for). */
  isDown(api: MetricsApi): boolean {
    return this.#down(api);
  }

  /** Time of scrape `k`. */
  scrapeTime(k: number): number {
    return this.#cluster.startTime + this.phase + k * this.resolution;
  }

  /** One scrape: each workload's demand and per-pod share, and the queues' lengths. */
  scrape(t: number): void {
    const k = ++this.scrapeIndex;
    this.lastScrapeAt = t;
    const start = this.#cluster.startTime;
    const slot = k % this.ringSize;
    for (const workload of this.#cluster.workloads()) {
      // The requests its pods really answered since the last scrape add to the modelled traffic
      // (which is not counted twice when it is itself sent as requests).
      const answered = workload.servedTotal - workload.servedAtScrape;
      workload.servedAtScrape = workload.servedTotal;
      const modelled = workload.trafficSent ? 0 : trafficAt(workload.traffic, t - start);
      const demand = modelled + answered / (this.resolution / 1000);
      const ready = workload.readyCount();
      const ring = workload.ring;
      ring.time[slot] = t;
      ring.demand[slot] = demand;
      ring.ready[slot] = ready;
      const served = servedPerPod(demand, ready, workload.usage.capacityRps);
      ring.perPodServed[slot] = served;
      if (ring.first < 0) ring.first = k;
      const previous = k > ring.first ? ring.cumServed[(k - 1) % this.ringSize]! : 0;
      ring.cumServed[slot] = previous + served;
      workload.lastScrape = k;
      workload.lastShare = served;
    }
    for (const queue of this.#queues) {
      const served = queue.model.servedBy;
      const workload = this.#cluster.workload(served.namespace, served.kind, served.name);
      const ready = workload?.readyCount() ?? 0;
      const arrivals = trafficAt(queue.model.arrivals, t - start);
      const dt = (t - queue.lastT) / 1000;
      queue.length = Math.max(
        0,
        queue.length + (arrivals - ready * queue.model.serviceRatePerPod) * dt,
      );
      queue.lastT = t;
    }
    this.nextScrapeAt = t + this.resolution;
  }

  /**
   * Requests/s offered to the workload at the latest scrape (its traffic models plus what its
   * pods really answered); before its first scrape, its traffic models at `now`.
   */
  demandRps(workload: Workload, now: number): number {
    const k = this.scrapeIndex;
    if (workload.ring.first >= 0 && workload.lastScrape === k) {
      return workload.ring.demand[k % this.ringSize]!;
    }
    return trafficAt(workload.traffic, now - this.#cluster.startTime);
  }

  /** The per-pod share the workload served at scrape `k`, or null when it has no record of it. */
  #served(workload: Workload, k: number): number | null {
    const slot = k % this.ringSize;
    if (k === workload.lastScrape) return workload.lastShare;
    if (k < 0 || k <= this.scrapeIndex - this.ringSize) return null;
    if (workload.ring.time[slot] !== this.scrapeTime(k)) return null;
    return workload.ring.perPodServed[slot]!;
  }

  /**
   * The pod's usage at the latest scrape (computed once per scrape into the record): false
   * when the scrape did not see its containers running.
   */
  #usage(pod: PodRecord): boolean {
    const k = this.scrapeIndex;
    if (k < 0) return false;
    if (pod.usageScrape === k) return pod.hasUsage;
    pod.usageScrape = k;
    pod.hasUsage = this.#compute(
      pod.runningAt ?? Number.NaN,
      pod.failedAt ?? Number.NaN,
      pod.completesAt ?? Number.NaN,
      pod.readyAt ?? Number.NaN,
      pod.deletingAt ?? Number.NaN,
      pod.seed,
      this.#share(pod.workload),
      pod.usage,
      pod.lifecycle.startupCpuBurst,
    );
    if (pod.hasUsage) {
      pod.cpuMilli = this.#cpuMilli;
      pod.memoryMilli = this.#memoryMilli;
    }
    return pod.hasUsage;
  }

  // The outputs of #compute (no object per pod and scrape).
  #cpuMilli = 0;
  #memoryMilli = 0;

  /** The per-pod share its workload served at the latest scrape (0 without a workload). */
  #share(workload: Workload | null): number {
    return workload !== null ? (this.#served(workload, this.scrapeIndex) ?? 0) : 0;
  }

  /**
   * A pod's usage at the latest scrape from what the usage model reads of it (times NaN: not
   * reached) and its workload's per-pod share, into #cpuMilli and #memoryMilli: false when the
   * scrape did not see its containers running (as PodRecord.containersRunningAt, and servingAt
   * for its traffic).
   */
  #compute(
    runningAt: number,
    failedAt: number,
    completesAt: number,
    readyAt: number,
    deletingAt: number,
    seed: number,
    share: number,
    usage: UsageModel,
    burst: PodLifecycleModel["startupCpuBurst"],
  ): boolean {
    const k = this.scrapeIndex;
    const t = this.lastScrapeAt;
    if (!(runningAt < t) || failedAt <= t || completesAt <= t) return false;
    const serving = readyAt <= t && !(deletingAt <= t);
    const served = serving ? share : 0;
    const jitter = usage.jitter;
    let cpuFactor = 1;
    let memFactor = 1;
    if (jitter > 0) {
      // One draw per pod and scrape: 16 bits each for cpu and memory.
      const h = noiseBits(seed, k);
      cpuFactor = 1 + jitter * ((h >>> 16) / 32768 - 1);
      memFactor = 1 + jitter * ((h & 0xffff) / 32768 - 1);
    }
    this.#cpuMilli = Math.ceil(cpuAt(usage, burst, runningAt, served, t, cpuFactor));
    const memory = usage.memory;
    const bytes = (memory.baseBytes + memory.bytesPerRps * served) * memFactor;
    this.#memoryMilli = bytes > 0 ? Math.round(bytes) * 1000 : 0;
    return true;
  }

  /**
   * The usage of every member of the entry at the latest scrape, from what the usage model reads
   * of them, packed per pod (read from the pod records when the entry's pod list changed): a
   * sync reads one array instead of every cold pod record, and the model's constants once per
   * run of pods that share them (an entry's pods are usually one workload's). Same arithmetic
   * as #compute, in the same order.
   * Those fields change only with a pod's stage, which rebuilds its view and so the list.
   * What a scrape sees of each pod (running, serving, in its startup burst) is kept as a class
   * and recomputed only once a scrape passes one of the pods' times, so a scrape writes each
   * sampled pod's value and timestamp and reads no pod's times; without jitter every pod of a
   * class has its run's one value. Each resource's column is filled when it is asked for.
   */
  #entryUsage(entry: SelectorEntry, resource: "cpu" | "memory"): EntryUsage {
    const views = entry.podViews();
    let table = entry.usage;
    if (table === null || table.views !== views) {
      table = this.#usageTable(entry.memberList(), views);
      entry.usage = table;
    }
    const k = this.scrapeIndex;
    if (k < 0) return table;
    if (table.scrape !== k) {
      const t = this.lastScrapeAt;
      if (!(t >= table.classesAt && t < table.classesUntil)) this.#classify(table, t);
      const { classes } = table;
      const timestamps = table.cpu.timestamps;
      for (let i = 0; i < classes.length; i++) if (classes[i]! >= SAMPLED) timestamps[i] = t;
      table.scrape = k;
    }
    if (resource === "cpu") {
      if (table.cpuScrape !== k) {
        this.#fill(table, table.cpu.values, true);
        table.cpuScrape = k;
      }
    } else if (table.memoryScrape !== k) {
      this.#fill(table, table.memory.values, false);
      table.memoryScrape = k;
    }
    return table;
  }

  /**
   * Each member's class at scrape time `t` (as #compute: no sample before its containers run
   * nor once they stopped, none without containers; serving once ready until deleted; the
   * startup burst), and the first of their times at or after `t`, before which no class can
   * change. Writes the windows, and the timestamps of members without a sample.
   */
  #classify(table: EntryUsage, t: number): void {
    const { pods, runs, classes } = table;
    const { timestamps, windows } = table.cpu;
    const resolution = this.resolution;
    let until = Number.POSITIVE_INFINITY;
    let scraped = 0;
    let i = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      const burst = run.burst;
      const burstMs = burst ? burst.durationMs : 0;
      const containers = run.containers;
      for (let at = i * USAGE_STRIDE; i < run.end; i++, at += USAGE_STRIDE) {
        const runningAt = pods[at]!;
        const failedAt = pods[at + 1]!;
        const completesAt = pods[at + 2]!;
        const readyAt = pods[at + 3]!;
        const deletingAt = pods[at + 4]!;
        // NaN (not reached) is never a change.
        if (runningAt >= t && runningAt < until) until = runningAt;
        if (failedAt >= t && failedAt < until) until = failedAt;
        if (completesAt >= t && completesAt < until) until = completesAt;
        if (readyAt >= t && readyAt < until) until = readyAt;
        if (deletingAt >= t && deletingAt < until) until = deletingAt;
        if (burst && runningAt + burstMs >= t && runningAt + burstMs < until) {
          until = runningAt + burstMs;
        }
        let c = NO_SAMPLE;
        if (runningAt < t && !(failedAt <= t) && !(completesAt <= t)) {
          scraped++;
          if (containers) {
            c = SAMPLED;
            if (readyAt <= t && !(deletingAt <= t)) c |= SERVING;
            if (burst && t >= runningAt && t < runningAt + burstMs) c |= BURSTING;
          }
        }
        classes[i] = c;
        if (c === NO_SAMPLE) {
          timestamps[i] = 0;
          windows[i] = 0;
        } else windows[i] = resolution;
      }
    }
    table.scraped = scraped;
    table.classesAt = t;
    table.classesUntil = until;
  }

  /** The members' cpu (or memory) values at the latest scrape, by their classes. */
  #fill(table: EntryUsage, values: number[], cpu: boolean): void {
    const { pods, runs, classes } = table;
    const k = this.scrapeIndex;
    let i = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      const share = this.#share(run.workload);
      const usage = run.usage;
      const jitter = usage.jitter;
      const burstMilli = run.burst ? run.burst.milli : 0;
      // Without jitter, one value per class of the run.
      const idle = cpu ? cpuMilli(usage, 0, false, 0, 1) : memoryMilli(usage, 0, 1);
      const serving = cpu ? cpuMilli(usage, share, false, 0, 1) : memoryMilli(usage, share, 1);
      for (; i < run.end; i++) {
        const c = classes[i]!;
        if (c === NO_SAMPLE) {
          values[i] = Number.NaN;
          continue;
        }
        const served = (c & SERVING) !== 0 ? share : 0;
        let factor = 1;
        if (jitter > 0) {
          // One draw per pod and scrape: 16 bits each for cpu and memory.
          const h = noiseBits(pods[i * USAGE_STRIDE + 5]!, k);
          factor = 1 + jitter * ((cpu ? h >>> 16 : h & 0xffff) / 32768 - 1);
        } else if ((c & BURSTING) === 0 || !cpu) {
          values[i] = (c & SERVING) !== 0 ? serving : idle;
          continue;
        }
        values[i] = cpu
          ? cpuMilli(usage, served, (c & BURSTING) !== 0, burstMilli, factor)
          : memoryMilli(usage, served, factor);
      }
    }
  }

  /** A new usage table of the members (their pod list changed). */
  #usageTable(members: readonly PodRecord[], views: readonly PodView[]): EntryUsage {
    const n = members.length;
    const timestamps = new Array<number>(n).fill(0);
    const windows = new Array<number>(n).fill(0);
    const pods = new Float64Array(n * USAGE_STRIDE);
    const runs: UsageRun[] = [];
    let run: UsageRun | null = null;
    for (let i = 0; i < n; i++) {
      const pod = members[i]!;
      const at = i * USAGE_STRIDE;
      pods[at] = pod.runningAt ?? Number.NaN;
      pods[at + 1] = pod.failedAt ?? Number.NaN;
      pods[at + 2] = pod.completesAt ?? Number.NaN;
      pods[at + 3] = pod.readyAt ?? Number.NaN;
      pods[at + 4] = pod.deletingAt ?? Number.NaN;
      pods[at + 5] = pod.seed;
      const burst = pod.lifecycle.startupCpuBurst;
      const containers = pod.template.containerNames.length > 0;
      if (
        run === null ||
        run.workload !== pod.workload ||
        run.usage !== pod.usage ||
        run.burst !== burst ||
        run.containers !== containers
      ) {
        run = { end: i + 1, workload: pod.workload, usage: pod.usage, burst, containers };
        runs.push(run);
      } else run.end = i + 1;
    }
    return {
      views,
      pods,
      runs,
      classes: new Uint8Array(n),
      classesAt: Number.NaN,
      classesUntil: Number.NaN,
      scrape: -1,
      cpuScrape: -1,
      memoryScrape: -1,
      scraped: 0,
      cpu: {
        pods: views,
        values: new Array<number>(n).fill(0.5),
        timestamps,
        windows,
        extra: [],
      },
      memory: {
        pods: views,
        values: new Array<number>(n).fill(0.5),
        timestamps,
        windows,
        extra: [],
      },
    };
  }

  /**
   * The pod's metrics.k8s.io item at the latest scrape, or null. Each pod reuses one item
   * object, updated in place once per scrape: it is valid until the next scrape, which is all
   * `resourceObservation` needs (it copies the values out). The modelled usage is the first
   * container's; other containers (sidecars) report zero.
   */
  podItem(pod: PodRecord): PodMetricsItem | null {
    if (!this.#usage(pod)) return null;
    let item = pod.itemBuffer;
    if (item === null) {
      const names = pod.template.containerNames;
      const containers: PodMetricsItem["containers"] = [];
      for (let i = 0; i < names.length; i++) {
        containers.push({ name: names[i]!, usage: { cpu: 0, memory: 0 } });
      }
      item = { name: pod.name, timestamp: 0, window: this.resolution, containers };
      pod.itemBuffer = item;
    }
    item.timestamp = this.lastScrapeAt;
    const first = item.containers[0];
    if (first) {
      first.usage.cpu = pod.cpuMilli;
      first.usage.memory = pod.memoryMilli;
    }
    return item;
  }

  /** Each pod's served requests/s averaged over the window (`rate(http_requests_total[window])`). */
  podRate(pod: PodRecord, windowMs: number): number | null {
    const k = this.scrapeIndex;
    if (pod.rateScrape === k && pod.rateWindow === windowMs) return pod.rate;
    const workload = pod.workload;
    let rate: number | null = null;
    const n = Math.max(1, Math.round(windowMs / this.resolution));
    const before = k - n;
    if (
      workload &&
      before >= workload.ring.first &&
      workload.ring.first >= 0 &&
      workload.lastScrape === k &&
      pod.containersRunningAt(this.scrapeTime(before)) &&
      pod.servingThrough(this.scrapeTime(before + 1))
    ) {
      // Served through the whole window: the workload's window average of the per-pod share.
      const cum = workload.ring.cumServed;
      rate = (cum[k % this.ringSize]! - cum[before % this.ringSize]!) / n;
    } else if (workload && k >= 0) {
      let sum = 0;
      let count = 0;
      for (let j = k; j > k - n && j >= 0; j--) {
        const tj = this.scrapeTime(j);
        // The counter must exist at the start of the interval: two scrapes before a first rate.
        if (!pod.containersRunningAt(tj - this.resolution)) break;
        const served = this.#served(workload, j);
        if (served === null) continue;
        sum += pod.servingAt(tj) ? served : 0;
        count++;
      }
      if (count > 0) rate = sum / count;
    }
    pod.rateScrape = k;
    pod.rateWindow = windowMs;
    pod.rate = rate;
    return rate;
  }

  /** Requests/s reaching the workload (its demand), averaged over the window. */
  objectRate(workload: Workload, windowMs: number): number | null {
    const k = this.scrapeIndex;
    const n = Math.max(1, Math.round(windowMs / this.resolution));
    let sum = 0;
    let count = 0;
    for (let j = k; j > k - n && j >= 0 && j > k - this.ringSize; j--) {
      const slot = j % this.ringSize;
      if (workload.ring.time[slot] !== this.scrapeTime(j)) continue;
      sum += workload.ring.demand[slot]!;
      count++;
    }
    return count > 0 ? sum / count : null;
  }

  /**
   * Sample columns aligned with the entry's pod list, as the pods port returns it (the same list
   * object: the calculator then needs no lookup by name), for the caller to fill. Each entry
   * keeps one set per metric and refills it, like `podItem`'s items: an observation is valid
   * until the next one of the same metric over the same pods, which is all a sync needs (it
   * decides before the next observation), and no sync allocates three arrays per metric.
   */
  #columns(entry: SelectorEntry, metric: string): SampleColumns {
    const pods = entry.podViews();
    const n = entry.memberList().length;
    let columns = entry.columns.get(metric);
    if (columns === undefined || columns.values.length !== n) {
      columns = {
        pods,
        values: new Array<number>(n).fill(0),
        timestamps: new Array<number>(n).fill(0),
        windows: new Array<number>(n).fill(0),
        extra: [],
      };
      entry.columns.set(metric, columns);
    } else columns.pods = pods;
    return columns;
  }

  /** What the metrics APIs answer for one metric spec of an HPA. */
  observe(namespace: string, spec: MetricSpec, podSelector: Selector): MetricObservation {
    switch (spec.type) {
      case "Resource":
      case "ContainerResource": {
        if (this.#down("resource")) {
          return {
            kind: "error",
            error: `unable to fetch metrics from resource metrics API: ${UNAVAILABLE} (get pods.metrics.k8s.io)`,
          };
        }
        const entry = this.#cluster.selectorEntry(namespace, podSelector);
        const name =
          spec.type === "Resource"
            ? (spec.resource?.name ?? "")
            : (spec.containerResource?.name ?? "");
        if (spec.type === "Resource" && (name === "cpu" || name === "memory")) {
          // The hot path: whole-pod usage as `usageByPod` would sum each pod's item, in
          // columns aligned with the pods port's list, filled once per scrape.
          const usage = this.#entryUsage(entry, name);
          // No PodMetrics at all is the client's error, as resourceObservation words it.
          if (usage.scraped === 0) return resourceObservation([], name);
          return { kind: "resource", samples: name === "cpu" ? usage.cpu : usage.memory };
        }
        const items: PodMetricsItem[] = [];
        for (const pod of entry.members) {
          const item = this.podItem(pod);
          if (item) items.push(item);
        }
        return resourceObservation(items, name, spec.containerResource?.container ?? "");
      }
      case "Pods":
        return this.#observePods(namespace, spec, podSelector);
      case "Object":
        return this.#observeObject(namespace, spec);
      case "External":
        return this.#observeExternal(namespace, spec);
      default:
        return { kind: "error", error: `unknown metric source type "${spec.type}"` };
    }
  }

  #observePods(namespace: string, spec: MetricSpec, podSelector: Selector): MetricObservation {
    const name = spec.pods?.metric.name ?? "";
    if (this.#down("custom")) {
      return {
        kind: "error",
        error: `unable to fetch metrics from custom metrics API: ${UNAVAILABLE} (get pods.custom.metrics.k8s.io *)`,
      };
    }
    const models = this.#podsModels.get(`${namespace}/${name}`);
    if (!models) {
      return {
        kind: "error",
        error: `unable to fetch metrics from custom metrics API: the server could not find the metric ${name} for pods`,
      };
    }
    const entry = this.#cluster.selectorEntry(namespace, podSelector);
    const samples = this.#columns(entry, `pods/${name}`);
    const { values, timestamps, windows } = samples;
    const members = entry.memberList();
    for (let i = 0; i < members.length; i++) {
      const pod = members[i]!;
      const model = pod.workload?.podsMetrics.find((m) => m.name === name);
      const rate = model ? this.podRate(pod, model.rateWindowMs) : null;
      if (!model || rate === null) {
        values[i] = Number.NaN;
        timestamps[i] = 0;
        windows[i] = 0;
        continue;
      }
      values[i] = Math.round(rate * 1000);
      timestamps[i] = this.lastScrapeAt;
      windows[i] = model.rateWindowMs;
    }
    return { kind: "pods", samples };
  }

  #observeObject(namespace: string, spec: MetricSpec): MetricObservation {
    const source = spec.object;
    const name = source?.metric.name ?? "";
    const ref = source?.describedObject ?? { kind: "", name: "" };
    const resource = `${pluralOf(ref.kind)}${groupOf(ref.apiVersion) ? `.${groupOf(ref.apiVersion)}` : ""}`;
    if (this.#down("custom")) {
      return {
        kind: "error",
        error: `unable to fetch metrics from custom metrics API: ${UNAVAILABLE} (get ${resource}.custom.metrics.k8s.io ${ref.name})`,
      };
    }
    const model = this.#objectModels.find(
      (m) =>
        m.namespace === namespace &&
        m.name === name &&
        m.describedObject.kind === ref.kind &&
        m.describedObject.name === ref.name,
    );
    const workload = model
      ? this.#cluster.workload(model.workload.namespace, model.workload.kind, model.workload.name)
      : undefined;
    const rate = model && workload ? this.objectRate(workload, model.rateWindowMs) : null;
    if (rate === null) {
      return {
        kind: "error",
        error: `unable to fetch metrics from custom metrics API: the server could not find the metric ${name} for ${resource} ${ref.name}`,
      };
    }
    return {
      kind: "object",
      valueMilli: BigInt(Math.round(rate * 1000)),
      timestamp: this.lastScrapeAt,
    };
  }

  #observeExternal(namespace: string, spec: MetricSpec): MetricObservation {
    const name = spec.external?.metric.name ?? "";
    if (this.#down("external")) {
      return {
        kind: "error",
        error: `unable to fetch metrics from external metrics API: ${UNAVAILABLE} (get ${name}.external.metrics.k8s.io)`,
      };
    }
    const parsed = selectorFromLabelSelector(spec.external?.metric.selector);
    if (!parsed.ok) return { kind: "error", error: parsed.error };
    const values: bigint[] = [];
    let timestamp = this.#cluster.startTime;
    for (const queue of this.#queues) {
      if (queue.model.namespace !== namespace || queue.model.name !== name) continue;
      if (!selectorMatches(parsed.selector, queue.labels)) continue;
      values.push(BigInt(Math.round(queue.length * 1000)));
      timestamp = queue.lastT;
    }
    if (values.length === 0) {
      return {
        kind: "error",
        error: "no metrics returned from external metrics API",
      };
    }
    return { kind: "external", valuesMilli: values, timestamp };
  }

  /** Custom and external metric values of a workload (for the timeline samples). */
  workloadMetrics(workload: Workload): Record<string, number> {
    // Most workloads have none: a new empty record, nothing kept or copied.
    if (
      workload.podsMetrics.length === 0 &&
      workload.objectMetrics.length === 0 &&
      this.#queues.length === 0
    ) {
      return {};
    }
    if (workload.metricsScrape === this.scrapeIndex) return { ...workload.metricsCache };
    const out: Record<string, number> = {};
    // A Pods metric's value: the rate a pod serving through the whole window reports.
    const k = this.scrapeIndex;
    const ring = workload.ring;
    for (const model of workload.podsMetrics) {
      if (ring.first < 0 || workload.lastScrape !== k) continue;
      const n = Math.min(
        Math.max(1, Math.round(model.rateWindowMs / this.resolution)),
        k - ring.first + 1,
      );
      const before = k - n >= ring.first ? ring.cumServed[(k - n) % this.ringSize]! : 0;
      out[model.name] = (ring.cumServed[k % this.ringSize]! - before) / n;
    }
    for (const model of workload.objectMetrics) {
      const rate = this.objectRate(workload, model.rateWindowMs);
      if (rate !== null) out[model.name] = rate;
    }
    for (const queue of this.#queues) {
      const served = queue.model.servedBy;
      if (
        served.namespace === workload.namespace &&
        served.kind === workload.kind &&
        served.name === workload.name
      ) {
        out[queue.model.name] = queue.length;
      }
    }
    workload.metricsScrape = this.scrapeIndex;
    workload.metricsCache = out;
    return { ...out };
  }
}
