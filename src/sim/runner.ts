// The virtual-time runner: Horizon's real controller loop against the embedded cluster, stepped
// from one due time to the next (cluster work, scenario events, HPA syncs, metric samples), with
// every record streamed to the caller as it happens.
import { FeatureGates } from "../api/featuregates.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import { EmbeddedCluster } from "../cluster/cluster.js";
import { AskedInOrder } from "../cluster/in-order.js";
import { HorizontalController } from "../controller/controller.js";
import type { Clock, ControllerPorts } from "../controller/ports.js";
import { formatTime } from "../core/conditions.js";
import {
  applyControllerFlags,
  type ControllerConfig,
  defaultControllerConfig,
  describeControllerConfig,
} from "../core/config.js";
import type { ObjectStore, StoreCell } from "../registry/store.js";
import { applyScenarioEvent, clusterModelOf } from "./cluster.js";
import { type DemandYardstick, demandYardsticks } from "./demand.js";
import { MeasureCollector } from "./measures.js";
import type { Scenario, ScenarioEvent, WorkloadRef } from "./scenario-types.js";
import {
  SIMULATION_SCHEMA,
  type SimulationRecord,
  type StartRecord,
  type SummaryRecord,
} from "./timeline.js";

/** Virtual t=0 unless a scenario says otherwise: a fixed instant, so runs are reproducible. */
export const DEFAULT_START_TIME = Date.UTC(2026, 0, 1, 0, 0, 0);

export interface RunOptions {
  scenario: Scenario;
  startTime?: number;
  /** Receives every record in time order; a returned promise (backpressure) is awaited. */
  emit?: (record: SimulationRecord) => undefined | Promise<void>;
  /** Called now and then with the fraction of virtual time done. */
  progress?: (fraction: number) => void;
  /**
   * The demand models of the elasticity measures, by HPA; default: this scenario's own.
   * `horizon tune` gives every candidate those of the file as written (one yardstick).
   */
  yardsticks?: Readonly<Record<string, DemandYardstick | null>>;
}

export interface RunResult {
  start: StartRecord;
  summary: SummaryRecord;
}

export function controllerConfigFor(scenario: Scenario): ControllerConfig {
  const version = scenario.spec.kubernetesVersion;
  const base = defaultControllerConfig(version);
  base.featureGates = FeatureGates.fromRecord(
    scenario.spec.featureGates,
    FeatureGates.defaults(version),
  );
  const applied = applyControllerFlags(base, scenario.spec.controllerFlags);
  if (!applied.ok) {
    throw new Error(applied.issues.map((i) => `${i.flag}: ${i.message}`).join("; "));
  }
  return applied.config;
}

function workloadKey(ref: WorkloadRef): string {
  return `${ref.namespace}/${ref.kind}/${ref.name}`;
}

function describeEvent(event: ScenarioEvent): string {
  switch (event.type) {
    case "updateTemplate":
    case "killPods":
    case "setTraffic":
    case "scale":
      return `${event.type} ${workloadKey(event.workload)}${event.type === "killPods" ? ` (${event.count} pods)` : event.type === "scale" ? ` to ${event.replicas}` : ""}`;
    case "metricsOutage":
      return `metrics outage of ${event.apis.join(", ")} for ${event.durationMs / 1000}s`;
    case "patchHpa":
      return `patch hpa ${event.namespace}/${event.name}: ${JSON.stringify(event.patch)}`;
    case "restartController":
      return "controller restart (in-memory histories lost)";
  }
}

function startRecord(
  scenario: Scenario,
  startTime: number,
  config: ControllerConfig,
  hpas: readonly HorizontalPodAutoscaler[],
): StartRecord {
  return {
    type: "start",
    schema: SIMULATION_SCHEMA,
    scenario: scenario.spec.name,
    seed: scenario.spec.seed,
    startTime: formatTime(startTime),
    durationSeconds: scenario.spec.durationMs / 1000,
    controllerFlags: describeControllerConfig(config),
    hpas: hpas.map((hpa) => {
      const ref = hpa.spec.scaleTargetRef;
      const namespace = hpa.metadata.namespace ?? "default";
      return {
        hpa: `${namespace}/${hpa.metadata.name}`,
        target: `${namespace}/${ref.kind}/${ref.name}`,
        minReplicas: hpa.spec.minReplicas ?? 1,
        maxReplicas: hpa.spec.maxReplicas,
        metrics: (hpa.spec.metrics ?? []).map(describeMetric),
        scaleDownWindowSeconds:
          hpa.spec.behavior?.scaleDown?.stabilizationWindowSeconds ??
          config.downscaleStabilizationWindowMs / 1000,
      };
    }),
  };
}

function describeMetric(
  metric: NonNullable<HorizontalPodAutoscaler["spec"]["metrics"]>[number],
): string {
  const source =
    metric.resource ?? metric.containerResource ?? metric.pods ?? metric.object ?? metric.external;
  const name =
    metric.resource?.name ??
    metric.containerResource?.name ??
    metric.pods?.metric.name ??
    metric.object?.metric.name ??
    metric.external?.metric.name ??
    "";
  const target = source?.target;
  const value =
    target?.type === "Utilization"
      ? `${target.averageUtilization}%`
      : String(target?.averageValue ?? target?.value ?? "");
  return `${metric.type} ${name} ${target?.type ?? ""} ${value}`.replace(/\s+/g, " ").trim();
}

/**
 * The current objects of HPAs by name, through their store cells kept in the order the
 * controller asks (src/cluster/in-order.ts): only another name, or a cell emptied since (the
 * name deleted, perhaps created again with a new cell), is looked up in the store. Same answers
 * as the store's `get`.
 */
class CellsInOrder {
  readonly #cells = new AskedInOrder<string, string, StoreCell>();

  constructor(
    readonly store: ObjectStore,
    readonly kind: string,
  ) {}

  get(namespace: string, name: string): KubeObject | undefined {
    const kept = this.#cells.get(namespace, name)?.object;
    if (kept !== undefined) return kept;
    const cell = this.store.cell(this.kind, namespace, name);
    if (cell === undefined) return undefined;
    this.#cells.set(namespace, name, cell, this.store.count(this.kind));
    return cell.object;
  }
}

// Made with a constructor, not a literal, are the objects a run makes once that its hot code
// reads or writes (the ports, the result): V8 widens the field types of an object literal at the
// literal's second run (the next candidate of `horizon tune`), which deoptimized the code
// compiled during the first.
class SimulatorPorts implements ControllerPorts {
  readonly scale: ControllerPorts["scale"];
  readonly pods: ControllerPorts["pods"];
  readonly metrics: ControllerPorts["metrics"];
  readonly status: ControllerPorts["status"];
  readonly events: ControllerPorts["events"];

  constructor(
    ports: Omit<ControllerPorts, "clock">,
    readonly clock: Clock,
  ) {
    this.scale = ports.scale;
    this.pods = ports.pods;
    this.metrics = ports.metrics;
    this.status = ports.status;
    this.events = ports.events;
  }
}

/** The run's virtual now, which the loop advances. */
class VirtualClock implements Clock {
  constructor(public t: number) {}

  now(): number {
    return this.t;
  }
}

class SimulationResult implements RunResult {
  constructor(
    readonly start: StartRecord,
    readonly summary: SummaryRecord,
  ) {}
}

export async function runSimulation(options: RunOptions): Promise<RunResult> {
  const { scenario } = options;
  const spec = scenario.spec;
  const startTime = options.startTime ?? DEFAULT_START_TIME;
  const endTime = startTime + spec.durationMs;
  const config = controllerConfigFor(scenario);
  // No API server resumes watches of a virtual-time run: its store keeps no change history.
  const cluster = new EmbeddedCluster({ model: clusterModelOf(spec), startTime, watchHistory: 0 });
  for (const object of scenario.objects) cluster.create(object);
  let now = startTime;
  const clock = new VirtualClock(now);
  const listHpas = () =>
    cluster.store.list("HorizontalPodAutoscaler") as unknown as readonly HorizontalPodAutoscaler[];
  const ports = cluster.ports();
  const hpaCells = new CellsInOrder(cluster.store, "HorizontalPodAutoscaler");
  const controller = new HorizontalController({
    ports: new SimulatorPorts(ports, clock),
    config,
    listHpas,
    getHpa: (namespace, name) =>
      hpaCells.get(namespace, name) as HorizontalPodAutoscaler | undefined,
  });
  controller.observe(now);

  const start = startRecord(scenario, startTime, config, listHpas());
  const measures = new MeasureCollector(
    start,
    options.yardsticks ?? demandYardsticks(scenario, listHpas()),
  );
  // Not async: a promise per record (hundreds of thousands a run) only when the caller asks.
  const emit = (record: SimulationRecord): undefined | Promise<void> => {
    measures.add(record);
    return options.emit?.(record);
  };
  await emit(start);

  const events = [...spec.events].sort((a, b) => a.atMs - b.atMs);
  // Array.from, not map (run by optimized code, map makes a holey array, the interpreter a packed
  // one) nor pushes onto [] (its allocation site starts later runs at another elements kind):
  // the sample's read of it deoptimized once runSimulation was optimized.
  const workloadKeys = Array.from(spec.workloads, (w) => workloadKey(w.target));
  let nextEvent = 0;
  const resolution = spec.cluster.metricsResolutionMs;
  let nextSample = startTime;
  const seconds = (t: number) => (t - startTime) / 1000;
  let lastProgress = 0;

  let stalled = 0;
  while (true) {
    const eventAt =
      nextEvent < events.length ? startTime + events[nextEvent]!.atMs : Number.POSITIVE_INFINITY;
    const t = Math.min(eventAt, controller.nextDue(), nextSample, cluster.nextDueTime());
    if (t > endTime || !Number.isFinite(t)) break;
    // Time must move: the cluster reporting the same due time over and over is a bug, not a hang.
    stalled = t === now ? stalled + 1 : 0;
    if (stalled > 10_000) throw new Error(`simulation stalled at t=${(t - startTime) / 1000}s`);
    now = t;
    clock.t = t;
    cluster.advanceTo(t);
    let eventsApplied = false;
    while (nextEvent < events.length && startTime + events[nextEvent]!.atMs <= t) {
      eventsApplied = true;
      const event = events[nextEvent++]!;
      applyScenarioEvent(event, { cluster, controller, now: t });
      await emit({ type: "event", t: seconds(t), event: event.type, detail: describeEvent(event) });
    }
    // Only scenario events change the set of HPAs.
    if (eventsApplied) controller.observe(t);
    if (controller.nextDue() <= t) {
      for (const report of await controller.syncDue()) {
        const r = report.result;
        const pending = emit({
          type: "sync",
          t: seconds(t),
          hpa: report.key,
          currentReplicas: r.trace.currentReplicas,
          desiredReplicas: r.desiredReplicas,
          scaled: r.scaleUpdated,
          conditions: r.status.conditions ?? [],
          events: r.events,
          error: r.error ?? report.statusError,
          trace: r.trace,
        });
        if (pending) await pending;
      }
    }
    if (nextSample <= t) {
      for (let i = 0; i < spec.workloads.length; i++) {
        const workload = spec.workloads[i]!;
        const snapshot = cluster.snapshot(workload.target);
        // Field by field, not a spread: a spread into this literal was 2% of bench:sim's time.
        const pending = emit({
          type: "sample",
          t: seconds(t),
          workload: workloadKeys[i]!,
          demandRps: snapshot.demandRps,
          servedRps: snapshot.servedRps,
          specReplicas: snapshot.specReplicas,
          pods: snapshot.pods,
          readyPods: snapshot.readyPods,
          cpuUtilization: snapshot.cpuUtilization,
          metrics: snapshot.metrics,
          capacityRps: workload.usage.capacityRps,
        });
        if (pending) await pending;
      }
      nextSample += resolution;
    }
    if (options.progress && t - lastProgress >= spec.durationMs / 100) {
      lastProgress = t;
      options.progress((t - startTime) / spec.durationMs);
    }
  }
  options.progress?.(1);
  const summary = measures.summary();
  const pending = options.emit?.(summary);
  if (pending) await pending;
  return new SimulationResult(start, summary);
}
