// Object metrics from custom.metrics.k8s.io, as upstream's customMetricsClient.GetObjectMetric
// reads them: the described object's resource from its kind through the RESTMapper, then
// /namespaces/NS/RESOURCE/NAME/METRIC?metricLabelSelector=... at the preferred API version;
// a described Namespace (core group) asks the root-scoped /namespaces/NS/metrics/METRIC of
// the HPA's own namespace (the reference's name is ignored: it may not escape the namespace).
// Exactly one item is expected.
import type { MetricSpec } from "../../api/types.js";
import type { MetricObservation } from "../../core/sources/types.js";
import { requestJson } from "../api-errors.js";
import { parseGroupVersion } from "../rest-mapper.js";
import {
  CUSTOM_GROUP,
  deadline,
  errorObservation,
  type ObserveOptions,
  readMetricValue,
  type SourceContext,
  selectorParam,
} from "./common.js";
import { CUSTOM_PREFIX, qualifiedResource } from "./pods.js";

export async function observeObject(
  context: SourceContext,
  namespace: string,
  spec: MetricSpec,
  options?: ObserveOptions,
): Promise<MetricObservation> {
  const source = spec.object;
  const ref = source?.describedObject ?? { kind: "", name: "" };
  const name = source?.metric.name ?? "";
  const metricSelector = selectorParam(source?.metric.selector);
  if (!metricSelector.ok) return errorObservation(metricSelector.error);
  // schema.FromAPIVersionAndKind: an unparsable apiVersion leaves the group empty.
  const gv = parseGroupVersion(ref.apiVersion);
  const group = gv.ok ? gv.group : "";
  const version = await context.customVersion.get();
  if (!version.ok) return errorObservation(`${CUSTOM_PREFIX}${version.error}`);
  const base = `/apis/${CUSTOM_GROUP}/${version.version}`;
  const metricPath = encodeURIComponent(name);
  let path: string;
  let groupResource: string;
  let objectName: string;
  if (ref.kind === "Namespace" && group === "") {
    path = `${base}/namespaces/${encodeURIComponent(namespace)}/metrics/${metricPath}`;
    groupResource = `metrics.${CUSTOM_GROUP}`;
    objectName = metricPath;
  } else {
    const resource = await qualifiedResource(context, group, ref.kind);
    if (!resource.ok) return errorObservation(`${CUSTOM_PREFIX}${resource.error}`);
    path = `${base}/namespaces/${encodeURIComponent(namespace)}/${resource.resource}/${encodeURIComponent(ref.name)}/${metricPath}`;
    groupResource = `${resource.resource}.${CUSTOM_GROUP}`;
    objectName = ref.name;
  }
  const query: Record<string, string> = {};
  if (metricSelector.text !== undefined) query.metricLabelSelector = metricSelector.text;
  const answer = await requestJson<{ items?: Record<string, unknown>[] }>(
    context.client,
    { method: "GET", path, query },
    { verb: "get", groupResource, name: objectName },
    deadline(context, options),
  );
  if (!answer.ok) return errorObservation(`${CUSTOM_PREFIX}${answer.error}`);
  const items = answer.body.items ?? [];
  if (items.length !== 1) {
    return errorObservation(
      `${CUSTOM_PREFIX}the custom metrics API server returned ${items.length} results when we asked for exactly one`,
    );
  }
  const value = readMetricValue(version.version, items[0]!);
  if (typeof value === "string") return errorObservation(`${CUSTOM_PREFIX}${value}`);
  return { kind: "object", valueMilli: value.valueMilli, timestamp: value.timestamp };
}
