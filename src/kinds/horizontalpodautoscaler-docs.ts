// What `kubectl explain hpa…` prints for each field of autoscaling/v2 and v1, by Go struct and
// JSON field (the OpenAPI schemas' descriptions), in Horizon's words of upstream's meaning.

const CROSS_VERSION_REF = {
  kind: "The kind of the referent, e.g. `Deployment`.",
  name: "The name of the referent, in the HPA's namespace.",
  apiVersion: "The API version of the referent, e.g. `apps/v1`.",
};
const METRIC_IDENTIFIER = {
  metric: "The metric's name and, optionally, the labels that select its series.",
};
const TARGET = {
  target: "The value the autoscaler keeps the metric at: `Utilization`, `Value` or `AverageValue`.",
};
const CURRENT = { current: "The metric's value at the last sync." };
const RESOURCE_NAME = { name: "The resource: `cpu` or `memory`." };
const CONTAINER = { container: "The container of each pod whose usage counts." };
const DESCRIBED_OBJECT = { describedObject: "The object the metric describes." };

const METRIC_SOURCES = {
  type: "The kind of metric source: `Resource`, `ContainerResource`, `Pods`, `Object` or `External`; the field of that name holds it.",
  resource:
    "A resource (`cpu`, `memory`) of the target's pods from metrics.k8s.io, summed over each pod's containers; a `Utilization` target is a percentage of the pods' requests.",
  containerResource:
    "A resource of one container of each pod from metrics.k8s.io, so that other containers (sidecars) do not count.",
  pods: "A metric of each pod from custom.metrics.k8s.io, averaged over the pods (an `AverageValue` target).",
  object:
    "A metric of one other object in the namespace (e.g. an Ingress's requests per second) from custom.metrics.k8s.io (a `Value` or `AverageValue` target).",
  external:
    "A metric from outside the cluster (e.g. a queue's length) from external.metrics.k8s.io (a `Value` or `AverageValue` target).",
};

const SPEC = {
  scaleTargetRef:
    "The workload the HPA scales: a Deployment, StatefulSet, ReplicaSet or any resource with a `scale` subresource, whose label selector finds the pods the metrics are read for.",
  minReplicas:
    "The lowest replica count the autoscaler sets; 1 by default. 0 needs the HPAScaleToZero feature gate and an `Object` or `External` metric.",
  maxReplicas:
    "The highest replica count the autoscaler sets; at least 1 and not below minReplicas.",
};

const STATUS = {
  observedGeneration: "The generation of this HPA the controller last acted on.",
  lastScaleTime: "When the controller last changed the target's replica count.",
  currentReplicas: "The target's replica count at the last sync.",
  desiredReplicas: "The replica count the controller last decided on.",
};

export const HPA_FIELD_DOCS: Record<string, Record<string, string>> = {
  "v2.HorizontalPodAutoscalerSpec": {
    ...SPEC,
    metrics:
      "The metrics the replica count is computed from: each proposes the current replicas × current value / target (no change while the ratio is within the tolerance), and the largest proposal wins. Empty: 80% average CPU utilization.",
    behavior:
      "How fast the replica count may go up (`scaleUp`) and down (`scaleDown`). Unset, each direction has the defaults described there.",
  },
  "v2.HorizontalPodAutoscalerBehavior": {
    scaleUp:
      "The rules for scaling up. Defaults: no stabilization window; at most the larger of 100% more and 4 more pods per 15 seconds.",
    scaleDown:
      "The rules for scaling down. Defaults: a 300-second stabilization window; at most 100% fewer pods per 15 seconds.",
  },
  "v2.HPAScalingRules": {
    stabilizationWindowSeconds:
      "The seconds of past recommendations considered (0–3600): scaling up takes the lowest of the window, scaling down the highest, so a short spike or dip does not move the count. Defaults: 0 up, 300 down (the controller's --horizontal-pod-autoscaler-downscale-stabilization).",
    selectPolicy:
      "Which policy limits the change when there are several: `Max` (the largest change; the default), `Min` (the smallest), or `Disabled` (no scaling in this direction).",
    policies:
      "The limits on the change within a period: each allows a number of `Pods`, or a `Percent` of the replicas at the period's start, per periodSeconds. At least one unless selectPolicy is Disabled.",
    tolerance:
      "How far (a fraction, e.g. `0.05`) the ratio of current to target value may be from 1 before this direction scales. Unset: the controller's --horizontal-pod-autoscaler-tolerance (0.1). Read only with the HPAConfigurableTolerance feature gate.",
  },
  "v2.HPAScalingPolicy": {
    type: "`Pods` (a number of pods) or `Percent` (of the replicas at the start of the period).",
    value: "The number of pods or the percentage; greater than 0.",
    periodSeconds: "The length of the period the limit holds over, in seconds (1–1800).",
  },
  "v2.MetricSpec": METRIC_SOURCES,
  "v2.ResourceMetricSource": { ...RESOURCE_NAME, ...TARGET },
  "v2.ContainerResourceMetricSource": { ...RESOURCE_NAME, ...TARGET, ...CONTAINER },
  "v2.PodsMetricSource": { ...METRIC_IDENTIFIER, ...TARGET },
  "v2.ObjectMetricSource": { ...DESCRIBED_OBJECT, ...TARGET, ...METRIC_IDENTIFIER },
  "v2.ExternalMetricSource": { ...METRIC_IDENTIFIER, ...TARGET },
  "v2.MetricTarget": {
    type: "`Utilization`, `Value` or `AverageValue`: which of the other fields holds the target.",
    value: "The target of the metric's total value (a quantity).",
    averageValue:
      "The target of the metric's value per pod (a quantity): the total over the current replica count.",
    averageUtilization:
      "The target of the pods' average usage as a percentage of their requests (`Resource` and `ContainerResource` metrics).",
  },
  "v2.MetricIdentifier": {
    name: "The metric's name.",
    selector:
      "The labels that select the metric's series (unset: the name alone selects); passed to the metrics API.",
  },
  "v2.CrossVersionObjectReference": CROSS_VERSION_REF,
  "v2.HorizontalPodAutoscalerStatus": {
    ...STATUS,
    currentMetrics: "Each metric's value at the last sync.",
    conditions:
      "`AbleToScale`, `ScalingActive` and `ScalingLimited`: whether and why the HPA can scale now.",
  },
  "v2.HorizontalPodAutoscalerCondition": {
    type: "`AbleToScale`, `ScalingActive` or `ScalingLimited`.",
    status: "`True`, `False` or `Unknown`.",
    lastTransitionTime: "When the status last changed.",
    reason: "Why, in one CamelCase word (e.g. `ValidMetricFound`, `TooManyReplicas`).",
    message: "Why, in words.",
  },
  "v2.MetricStatus": {
    ...METRIC_SOURCES,
    type: "The kind of metric source, as in the spec's metric.",
  },
  "v2.ResourceMetricStatus": { ...RESOURCE_NAME, ...CURRENT },
  "v2.ContainerResourceMetricStatus": { ...RESOURCE_NAME, ...CURRENT, ...CONTAINER },
  "v2.PodsMetricStatus": { ...METRIC_IDENTIFIER, ...CURRENT },
  "v2.ObjectMetricStatus": { ...METRIC_IDENTIFIER, ...CURRENT, ...DESCRIBED_OBJECT },
  "v2.ExternalMetricStatus": { ...METRIC_IDENTIFIER, ...CURRENT },
  "v2.MetricValueStatus": {
    value: "The metric's total value.",
    averageValue: "The metric's value per pod.",
    averageUtilization: "The pods' average usage as a percentage of their requests.",
  },
  "v1.HorizontalPodAutoscalerSpec": {
    ...SPEC,
    targetCPUUtilizationPercentage:
      "The target of the pods' average CPU usage as a percentage of their requests; unset: 80. Other metrics need autoscaling/v2.",
  },
  "v1.CrossVersionObjectReference": CROSS_VERSION_REF,
  "v1.HorizontalPodAutoscalerStatus": {
    ...STATUS,
    currentCPUUtilizationPercentage:
      "The pods' average CPU usage at the last sync, as a percentage of their requests.",
  },
};
