// External metrics from external.metrics.k8s.io/v1beta1, as upstream's
// externalMetricsClient.GetExternalMetric reads them: /namespaces/NS/METRIC?labelSelector=...,
// every item's value in milli-units (the source sums them) and the first item's timestamp; an
// empty list is an error. The source wraps the error as `unable to get external metric
// NS/NAME/&LabelSelector{...}: ...`.

import { milliValueOfJSON } from "../../api/quantity.js";
import type { MetricSpec } from "../../api/types.js";
import type { MetricObservation } from "../../core/sources/types.js";
import { requestJson } from "../api-errors.js";
import {
  deadline,
  EXTERNAL_GROUP,
  errorObservation,
  type ObserveOptions,
  type SourceContext,
  selectorParam,
  timeOf,
} from "./common.js";

const PREFIX = "unable to fetch metrics from external metrics API: ";

export async function observeExternal(
  context: SourceContext,
  namespace: string,
  spec: MetricSpec,
  options?: ObserveOptions,
): Promise<MetricObservation> {
  const metric = spec.external?.metric;
  const name = metric?.name ?? "";
  const selector = selectorParam(metric?.selector);
  if (!selector.ok) return errorObservation(selector.error);
  const query: Record<string, string> = {};
  if (selector.text !== undefined) query.labelSelector = selector.text;
  const answer = await requestJson<{ items?: { value?: unknown; timestamp?: unknown }[] }>(
    context.client,
    {
      method: "GET",
      path: `/apis/${EXTERNAL_GROUP}/v1beta1/namespaces/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
      query,
    },
    { verb: "get", groupResource: `${name}.${EXTERNAL_GROUP}` },
    deadline(context, options),
  );
  if (!answer.ok) return errorObservation(`${PREFIX}${answer.error}`);
  const items = answer.body.items ?? [];
  if (items.length === 0) return errorObservation("no metrics returned from external metrics API");
  const valuesMilli: bigint[] = [];
  for (const item of items) {
    const milli = milliValueOfJSON(item.value);
    if (milli === null)
      return errorObservation(`${PREFIX}unable to decode value ${JSON.stringify(item.value)}`);
    valuesMilli.push(milli);
  }
  return { kind: "external", valuesMilli, timestamp: timeOf(items[0]!.timestamp) };
}
