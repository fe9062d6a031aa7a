// A pod's quality-of-service class (status.qosClass), which kube-apiserver sets when the pod is
// created and never changes. Only cpu and memory count. With pod-level resources (the
// PodLevelResources gate, beta and on in v1.34) those decide; else the sums over the containers
// and init containers (ephemeral containers have no resources).
import { isRecord } from "./json.js";
import { Quantity } from "./quantity.js";

export type PodQosClass = "Guaranteed" | "Burstable" | "BestEffort";

const QOS_RESOURCES = ["cpu", "memory"] as const;

/** The positive cpu and memory quantities of a ResourceList. */
function qosQuantities(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isRecord(list)) return out;
  for (const name of QOS_RESOURCES) {
    const parsed = Quantity.tryParseJSON(list[name]);
    if (parsed.ok && parsed.quantity.sign() > 0) out.set(name, parsed.quantity);
  }
  return out;
}

function addInto(sum: Map<string, Quantity>, list: Map<string, Quantity>): void {
  for (const [name, quantity] of list) {
    const before = sum.get(name);
    sum.set(name, before ? before.add(quantity) : quantity);
  }
}

/**
 * Guaranteed: every container (or the pod level) limits both cpu and memory, and the requests
 * equal the limits resource by resource; BestEffort: no cpu or memory request or limit at all;
 * else Burstable. `spec` is the defaulted pod spec (requests already default to limits).
 */
export function podQosClass(spec: unknown): PodQosClass {
  const podSpec = isRecord(spec) ? spec : {};
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let limitsBoth = true;
  const podLevel = isRecord(podSpec.resources) ? podSpec.resources : null;
  if (podLevel) {
    addInto(requests, qosQuantities(podLevel.requests));
    const podLimits = qosQuantities(podLevel.limits);
    addInto(limits, podLimits);
    limitsBoth = podLimits.size === QOS_RESOURCES.length;
  } else {
    for (const key of ["containers", "initContainers"]) {
      const list = Array.isArray(podSpec[key]) ? podSpec[key] : [];
      for (const container of list) {
        const resources =
          isRecord(container) && isRecord(container.resources) ? container.resources : {};
        addInto(requests, qosQuantities(resources.requests));
        const containerLimits = qosQuantities(resources.limits);
        addInto(limits, containerLimits);
        if (containerLimits.size < QOS_RESOURCES.length) limitsBoth = false;
      }
    }
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (!limitsBoth || requests.size !== limits.size) return "Burstable";
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit?.cmp(request) !== 0) return "Burstable";
  }
  return "Guaranteed";
}

/** The status kube-apiserver gives every new pod, whatever the client sent: Pending, its QoS. */
export function createdPodStatus(spec: unknown): { phase: "Pending"; qosClass: PodQosClass } {
  return { phase: "Pending", qosClass: podQosClass(spec) };
}
