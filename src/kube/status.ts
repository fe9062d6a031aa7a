// The HPA status subresource over the Kubernetes API, as upstream's updateStatus writes it: a
// PUT of the whole autoscaling/v2 object (as last seen by the informer, with its
// resourceVersion) carrying the new status. The object is kept as raw JSON, so fields this
// version of Horizon does not model (e.g. a newer API's behavior.*.tolerance) survive the
// write. A 409 Conflict is not retried: upstream records FailedUpdateStatus and the next sync,
// with the informer's newer object, writes again. The controller calls this only when the
// status changed (updateStatusIfNeeded).
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus } from "../api/types.js";
import type { HpaStatusPort, PortResult } from "../controller/ports.js";
import { type DeadlineOptions, requestJson } from "./api-errors.js";
import type { KubeClient } from "./types.js";

export interface KubeStatusOptions {
  client: KubeClient;
  /** Deadline of each write (default 30s). */
  timeoutMs?: number;
}

/** The status subresource path of an HPA. */
export function hpaStatusPath(namespace: string, name: string): string {
  return `/apis/autoscaling/v2/namespaces/${encodeURIComponent(namespace)}/horizontalpodautoscalers/${encodeURIComponent(name)}/status`;
}

/** The object written: the HPA untouched but for its status (list items carry no kind). */
export function statusBody(
  hpa: HorizontalPodAutoscaler,
  status: HorizontalPodAutoscalerStatus,
): Record<string, unknown> {
  return {
    ...(hpa as unknown as Record<string, unknown>),
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    status,
  };
}

export class KubeHpaStatusPort implements HpaStatusPort {
  readonly #client: KubeClient;
  readonly #deadline: DeadlineOptions;

  constructor(options: KubeStatusOptions) {
    this.#client = options.client;
    this.#deadline = { timeoutMs: options.timeoutMs ?? 30_000 };
  }

  async updateStatus(
    hpa: HorizontalPodAutoscaler,
    status: HorizontalPodAutoscalerStatus,
  ): Promise<PortResult<void>> {
    const namespace = hpa.metadata.namespace ?? "default";
    const name = hpa.metadata.name ?? "";
    const answer = await requestJson(
      this.#client,
      { method: "PUT", path: hpaStatusPath(namespace, name), body: statusBody(hpa, status) },
      { verb: "put", groupResource: "horizontalpodautoscalers.autoscaling", name },
      this.#deadline,
    );
    if (!answer.ok) return answer;
    return { ok: true, value: undefined };
  }
}
