// The usage model: how a workload's load turns into each pod's traffic and CPU.
import type { PodLifecycleModel, UsageModel } from "./cluster-model.js";
import type { PodRecord } from "./model.js";

/** Requests/s each ready pod serves: an even share of the demand, capped at its capacity. */
export function servedPerPod(demand: number, ready: number, capacityRps: number | null): number {
  if (ready <= 0) return 0;
  const share = demand / ready;
  return capacityRps === null ? share : Math.min(share, capacityRps);
}

/**
 * A pod's CPU (milli) at `t` serving `served` requests/s: base + cost per request (+ the startup
 * burst), times the jitter factor, capped at the limit.
 */
export function cpuModel(pod: PodRecord, served: number, t: number, factor = 1): number {
  return cpuAt(
    pod.usage,
    pod.lifecycle.startupCpuBurst,
    pod.runningAt ?? Number.NaN,
    served,
    t,
    factor,
  );
}

/** cpuModel from the fields it reads (`runningAt` NaN: not started). */
export function cpuAt(
  usage: UsageModel,
  burst: PodLifecycleModel["startupCpuBurst"],
  runningAt: number,
  served: number,
  t: number,
  factor: number,
): number {
  const cpu = usage.cpu;
  let milli = cpu.baseMilli + cpu.milliPerRps * served;
  if (burst && t >= runningAt && t < runningAt + burst.durationMs) milli += burst.milli;
  milli *= factor;
  if (milli < 0) milli = 0;
  return cpu.limitMilli !== null ? Math.min(milli, cpu.limitMilli) : milli;
}

/** CPU (milli) of a ready pod without a startup burst or jitter. */
export function cpuModelUniform(usage: UsageModel, served: number): number {
  const milli = Math.max(0, usage.cpu.baseMilli + usage.cpu.milliPerRps * served);
  return usage.cpu.limitMilli !== null ? Math.min(milli, usage.cpu.limitMilli) : milli;
}
