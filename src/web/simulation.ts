// The dashboard over a simulation (`horizon simulate FILE --serve`): a run's syncs recorded into
// an HpaHistory on the virtual clock, the HPAs as the scenario declares them with the status of
// their last sync, the run's measures, and what-if: the same scenario run again with an HPA's
// min/max or behavior edited — the same core, the same cluster model, the same traffic.

import { readHorizontalPodAutoscaler } from "../api/conversion.js";
import { FeatureGates } from "../api/featuregates.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import { controllerConfigFor, DEFAULT_START_TIME, runSimulation } from "../sim/runner.js";
import type { Scenario } from "../sim/scenario-types.js";
import type { SimulationRecord, SummaryRecord } from "../sim/timeline.js";
import { DashboardData, type HpaLister, type WhatIfAnswer } from "./data.js";
import { HpaHistory } from "./history.js";
import type { RunMeasures, Trajectory, WhatIfEdits } from "./types.js";
import { editHpa } from "./whatif.js";

export interface RecordedRun {
  label: string;
  scenario: Scenario;
  history: HpaHistory;
  /** The scenario's HPAs (autoscaling/v2) with the status of their last sync. */
  hpas: HpaLister;
  summary: SummaryRecord | null;
  measures(key: string): RunMeasures | null;
}

function keyOf(object: { metadata: { namespace?: string; name?: string } }): string {
  return `${object.metadata.namespace ?? "default"}/${object.metadata.name ?? ""}`;
}

function scenarioHpas(scenario: Scenario): Map<string, HorizontalPodAutoscaler> {
  const out = new Map<string, HorizontalPodAutoscaler>();
  for (const object of scenario.objects) {
    if (object.kind !== "HorizontalPodAutoscaler") continue;
    const read = readHorizontalPodAutoscaler(object);
    if (!read.ok) continue;
    const hpa = read.value.hpa;
    hpa.metadata = { ...hpa.metadata, namespace: hpa.metadata.namespace ?? "default" };
    out.set(keyOf(hpa), hpa);
  }
  return out;
}

/** Collects a run's records (fed from runSimulation's emit) into a RecordedRun. */
export class RunRecorder {
  private now = DEFAULT_START_TIME;
  private readonly history: HpaHistory;
  private readonly hpas: Map<string, HorizontalPodAutoscaler>;
  private summary: SummaryRecord | null = null;
  /** Each HPA's scale target (`namespace/Kind/name`), and each workload's last offered load. */
  private readonly targets = new Map<string, string>();
  private readonly demand = new Map<string, number>();

  constructor(
    private readonly scenario: Scenario,
    private readonly label: string,
  ) {
    const syncPeriodMs = controllerConfigFor(scenario).syncPeriodMs;
    // Every sync of the run fits.
    const capacity = Math.min(100_000, Math.ceil(scenario.spec.durationMs / syncPeriodMs) + 2);
    this.history = new HpaHistory({ capacity, clock: { now: () => this.now } });
    this.hpas = scenarioHpas(scenario);
  }

  add(record: SimulationRecord): void {
    if (record.type === "summary") {
      this.summary = record;
      return;
    }
    if (record.type === "start") {
      for (const h of record.hpas) this.targets.set(h.hpa, h.target);
      return;
    }
    if (record.type === "sample") {
      this.demand.set(record.workload, record.demandRps);
      return;
    }
    if (record.type !== "sync") return;
    this.now = DEFAULT_START_TIME + record.t * 1000;
    // The load of the latest sample: samples of a time follow its syncs, so up to one
    // metrics resolution before the sync.
    const target = this.targets.get(record.hpa);
    this.history.record(
      {
        trace: record.trace,
        conditions: record.conditions,
        events: record.events,
        error: record.error,
        t: record.t,
      },
      target === undefined ? null : (this.demand.get(target) ?? null),
    );
    const hpa = this.hpas.get(record.hpa);
    if (hpa) {
      hpa.status = {
        ...hpa.status,
        currentReplicas: record.currentReplicas,
        desiredReplicas: record.desiredReplicas,
        conditions: record.conditions,
        ...(record.scaled ? { lastScaleTime: new Date(this.now).toISOString() } : {}),
      };
    }
  }

  finish(): RecordedRun {
    // "The last hour" of the overview's sparklines is the run's last hour.
    this.now = DEFAULT_START_TIME + this.scenario.spec.durationMs;
    const hpas = this.hpas;
    const summary = this.summary;
    return {
      label: this.label,
      scenario: this.scenario,
      history: this.history,
      summary,
      hpas: {
        list: () => [...hpas.values()],
        get: (key) => hpas.get(key),
        subscribe: () => () => {},
      },
      measures(key) {
        const h = summary?.hpas.find((s) => s.hpa === key);
        if (!h) return null;
        return {
          podHours: h.podHours,
          unmetDemandPodSeconds: h.unmetDemandPodSeconds,
          unmetDemandSeconds: h.unmetDemandSeconds,
          flaps: h.flaps,
          scaleUps: h.scaleUps,
          scaleDowns: h.scaleDowns,
        };
      },
    };
  }
}

/** Runs the scenario and records every sync as the controller's history would. */
export async function recordRun(scenario: Scenario, label: string): Promise<RecordedRun> {
  const recorder = new RunRecorder(scenario, label);
  await runSimulation({
    scenario,
    startTime: DEFAULT_START_TIME,
    emit: (record) => {
      recorder.add(record);
      return undefined;
    },
  });
  return recorder.finish();
}

/** The dashboard's data over a run (and the run it is compared with). */
export function simulationData(run: RecordedRun, compare: RecordedRun | null): DashboardData {
  return new DashboardData({
    history: run.history,
    hpas: run.hpas,
    source: `simulation ${run.scenario.spec.name}${compare ? ` (compared with ${compare.label})` : ""}`,
    clock: DEFAULT_START_TIME + run.scenario.spec.durationMs,
    start: DEFAULT_START_TIME,
    measures: (key) => run.measures(key),
    ...(compare
      ? {
          compare: {
            label: compare.label,
            history: compare.history,
            measures: (key: string) => compare.measures(key),
          },
        }
      : {}),
    whatIf: {
      kind: "simulation",
      run: (namespace, name, edits) => whatIf(run, namespace, name, edits),
    },
  });
}

export function trajectoryOf(run: RecordedRun, namespace: string, name: string): Trajectory {
  return {
    label: run.label,
    samples: run.history.get(namespace, name).map((record) => record.sample),
    measures: run.measures(`${namespace}/${name}`),
  };
}

/** Runs the scenario again with one HPA edited; the HPA is validated as the API server would. */
export async function whatIf(
  base: RecordedRun,
  namespace: string,
  name: string,
  edits: WhatIfEdits,
): Promise<WhatIfAnswer> {
  const key = `${namespace}/${name}`;
  const index = base.scenario.objects.findIndex(
    (o) =>
      o.kind === "HorizontalPodAutoscaler" &&
      keyOf(o as { metadata: { namespace?: string; name?: string } }) === key,
  );
  const original = base.hpas.get(key);
  if (index < 0 || !original)
    return { ok: false, status: 404, error: `no HPA ${key} in the scenario` };
  const { featureGates, kubernetesVersion } = base.scenario.spec;
  const gates = FeatureGates.fromRecord(featureGates, FeatureGates.defaults(kubernetesVersion));
  const edit = editHpa(original, edits, gates);
  if (!edit.ok) return { ok: false, status: 422, error: edit.error, causes: edit.causes };
  const edited = edit.hpa;
  const objects = [...base.scenario.objects];
  objects[index] = {
    ...edited,
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
  } as unknown as KubeObject;
  const run = await recordRun({ ...base.scenario, objects }, "what-if");
  const patch = edit.patch;
  return {
    ok: true,
    value: {
      original: trajectoryOf(base, namespace, name),
      whatIf: trajectoryOf(run, namespace, name),
      patch: JSON.stringify(patch, null, 2),
      command: `kubectl patch hpa ${name} -n ${namespace} --type merge -p '${JSON.stringify(patch)}'`,
      loop: "simulation",
    },
  };
}
