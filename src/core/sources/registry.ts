// Every metric source type maps to its module; the compiler checks that none is missing.
import type { MetricSourceType } from "../../api/types.js";
import { containerResourceSource } from "./container-resource.js";
import { externalSource } from "./external.js";
import { objectSource } from "./object.js";
import { podsSource } from "./pods.js";
import { resourceSource } from "./resource.js";
import type { MetricSourceModule } from "./types.js";

export const METRIC_SOURCES: Readonly<Record<MetricSourceType, MetricSourceModule>> = {
  Resource: resourceSource,
  ContainerResource: containerResourceSource,
  Pods: podsSource,
  Object: objectSource,
  External: externalSource,
};

export function metricSourceFor(type: string): MetricSourceModule | undefined {
  return Object.hasOwn(METRIC_SOURCES, type) ? METRIC_SOURCES[type as MetricSourceType] : undefined;
}
