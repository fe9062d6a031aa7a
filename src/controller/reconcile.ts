// The reconcile of one HPA over the controller's ports: read the scale, pods and metrics, let the
// pure core decide, update the scale, then write status and events. Upstream:
// reconcileAutoscaler in pkg/controller/podautoscaler/horizontal.go.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { ControllerConfig } from "../core/config.js";
import { EMPTY_HISTORY, type HpaHistory } from "../core/history.js";
import type { PodView } from "../core/pods.js";
import { parseSelector, type Selector, selectorMatches } from "../core/selector.js";
import type { MetricObservation } from "../core/sources/types.js";
import {
  completeSync,
  decideSync,
  needsMetrics,
  type RescaleOutcome,
  type ScaleObservation,
  type SyncResult,
} from "../core/sync.js";
import type { ControllerPorts } from "./ports.js";

export function hpaKey(hpa: HorizontalPodAutoscaler): string {
  return `${hpa.metadata.namespace ?? "default"}/${hpa.metadata.name ?? ""}`;
}

/**
 * What the controller keeps in memory between syncs: per-HPA histories and the selectors HPAs
 * were last seen with (for AmbiguousSelector). Lost on restart, as upstream's.
 */
export class ControllerMemory {
  private readonly histories = new Map<string, HpaHistory>();
  private readonly selectors = new Map<string, { namespace: string; selector: Selector }>();

  history(key: string): HpaHistory {
    return this.histories.get(key) ?? EMPTY_HISTORY;
  }

  setHistory(key: string, history: HpaHistory): void {
    this.histories.set(key, history);
  }

  setSelector(key: string, namespace: string, selector: Selector): void {
    this.selectors.set(key, { namespace, selector });
  }

  /** The HPA was deleted: upstream drops its recommendations and scale events. */
  forget(key: string): void {
    this.histories.delete(key);
    this.selectors.delete(key);
  }

  clear(): void {
    this.histories.clear();
    this.selectors.clear();
  }

  /** HPAs (sorted keys) whose last-seen selector matches any of these pods. */
  hpasSelecting(namespace: string, pods: readonly PodView[]): string[] {
    const keys: string[] = [];
    for (const [key, entry] of this.selectors) {
      if (entry.namespace !== namespace) continue;
      if (pods.some((pod) => selectorMatches(entry.selector, pod.labels))) keys.push(key);
    }
    return keys.sort();
  }
}

export interface ReconcileOutcome {
  result: SyncResult;
  /** Errors of the status write come on top of the sync's own (upstream logs them). */
  statusError: string | null;
}

export async function reconcileHpa(
  hpa: HorizontalPodAutoscaler,
  ports: ControllerPorts,
  memory: ControllerMemory,
  config: ControllerConfig,
): Promise<ReconcileOutcome> {
  const key = hpaKey(hpa);
  const namespace = hpa.metadata.namespace ?? "default";
  const now = ports.clock.now();
  const scaleRead = await ports.scale.getScale(namespace, hpa.spec.scaleTargetRef);
  const scale: ScaleObservation = scaleRead.ok
    ? {
        ok: true,
        specReplicas: scaleRead.value.specReplicas,
        statusReplicas: scaleRead.value.statusReplicas,
        ...(scaleRead.value.selector !== undefined ? { selector: scaleRead.value.selector } : {}),
      }
    : { ok: false, error: scaleRead.error };

  let pods: readonly PodView[] = [];
  let observations: MetricObservation[] = [];
  let selectingHpas: string[] | undefined;
  if (scale.ok && needsMetrics(hpa, scale) && scale.selector) {
    const parsed = parseSelector(scale.selector);
    if (parsed.ok) {
      memory.setSelector(key, namespace, parsed.selector);
      pods = ports.pods.listPods(namespace, parsed.selector);
      selectingHpas = memory.hpasSelecting(namespace, pods);
      const specs = hpa.spec.metrics ?? [];
      observations = await Promise.all(
        specs.map((spec) => ports.metrics.observe(namespace, spec, parsed.selector)),
      );
    }
  }

  const decision = decideSync({
    now,
    hpa,
    scale,
    pods,
    ...(selectingHpas ? { selectingHpas } : {}),
    observations,
    history: memory.history(key),
    config,
  });
  let outcome: RescaleOutcome | null = null;
  if (decision.rescale) {
    const update = await ports.scale.updateScale(
      namespace,
      hpa.spec.scaleTargetRef,
      decision.desiredReplicas,
    );
    outcome = update.ok ? { ok: true } : { ok: false, error: update.error };
  }
  const result = completeSync(decision, outcome);
  memory.setHistory(key, result.history);
  for (const event of result.events) ports.events.record(hpa, event, now);
  let statusError: string | null = null;
  if (result.statusChanged) {
    const written = await ports.status.updateStatus(hpa, result.status);
    if (!written.ok) {
      statusError = `failed to update status for ${hpa.metadata.name}: ${written.error}`;
      ports.events.record(
        hpa,
        { type: "Warning", reason: "FailedUpdateStatus", message: written.error },
        now,
      );
    }
  }
  return { result, statusError };
}
