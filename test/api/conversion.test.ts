import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  convertV1ToV2,
  convertV2beta1ToV2,
  convertV2beta2ToV2,
  convertV2ToV1,
  DEPRECATION_WARNINGS,
  ROUND_TRIP_ANNOTATIONS,
  readHorizontalPodAutoscaler,
  writeHorizontalPodAutoscaler,
} from "../../src/api/conversion.js";
import { Quantity } from "../../src/api/quantity.js";
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerStatus,
  HorizontalPodAutoscalerStatusV1,
  HorizontalPodAutoscalerV1,
  MetricSpec,
  MetricStatus,
} from "../../src/api/types.js";
import { V1_ANNOTATIONS } from "../../src/api/types.js";

// ---------------------------------------------------------------------------------------------
// builders

const TARGET = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };

function v2Hpa(parts: {
  metrics?: MetricSpec[];
  behavior?: HorizontalPodAutoscalerBehavior;
  status?: HorizontalPodAutoscalerStatus;
  annotations?: Record<string, string>;
}): HorizontalPodAutoscaler {
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: { scaleTargetRef: TARGET, minReplicas: 1, maxReplicas: 10, metrics: parts.metrics ?? [] },
  };
  if (parts.annotations) hpa.metadata.annotations = parts.annotations;
  if (parts.behavior) hpa.spec.behavior = parts.behavior;
  if (parts.status) hpa.status = parts.status;
  return hpa;
}

function v1Hpa(parts: {
  targetCPU?: number;
  annotations?: Record<string, string>;
  status?: HorizontalPodAutoscalerStatusV1;
}): HorizontalPodAutoscalerV1 {
  const hpa: HorizontalPodAutoscalerV1 = {
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: { scaleTargetRef: TARGET, minReplicas: 1, maxReplicas: 10 },
  };
  if (parts.targetCPU !== undefined) hpa.spec.targetCPUUtilizationPercentage = parts.targetCPU;
  if (parts.annotations) hpa.metadata.annotations = parts.annotations;
  if (parts.status) hpa.status = parts.status;
  return hpa;
}

const cpuUtilization = (averageUtilization: number): MetricSpec => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization } },
});
const podsMetric = (name: string, averageValue: string): MetricSpec => ({
  type: "Pods",
  pods: { metric: { name }, target: { type: "AverageValue", averageValue } },
});

const M = V1_ANNOTATIONS;

// ---------------------------------------------------------------------------------------------
// autoscaling/v2 → autoscaling/v1

describe("convertV2ToV1", () => {
  const cases: Array<{
    name: string;
    metrics?: MetricSpec[];
    behavior?: HorizontalPodAutoscalerBehavior;
    status?: HorizontalPodAutoscalerStatus;
    annotations?: Record<string, string>;
    expectTargetCPU: number | undefined;
    expectAnnotations: Record<string, string> | undefined;
    expectStatus?: HorizontalPodAutoscalerStatusV1;
  }> = [
    {
      name: "a CPU Utilization metric becomes targetCPUUtilizationPercentage and nothing else is written",
      metrics: [cpuUtilization(60)],
      expectTargetCPU: 60,
      expectAnnotations: undefined,
    },
    {
      name: "a Pods metric goes to the metrics annotation in the legacy v1 MetricSpec shape",
      metrics: [podsMetric("qps", "10")],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]',
      },
    },
    {
      name: "an Object Value metric: describedObject is `target`, the quantity canonical, selector labels sorted",
      metrics: [
        {
          type: "Object",
          object: {
            describedObject: { kind: "Ingress", name: "main", apiVersion: "networking.k8s.io/v1" },
            target: { type: "Value", value: "2000" },
            metric: { name: "rps", selector: { matchLabels: { zone: "b", app: "web" } } },
          },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"2k","selector":{"matchLabels":{"app":"web","zone":"b"}}}}]',
      },
    },
    {
      name: 'an Object AverageValue metric writes the non-pointer targetValue as "0"',
      metrics: [
        {
          type: "Object",
          object: {
            describedObject: { kind: "Service", name: "api" },
            target: { type: "AverageValue", averageValue: "0.5" },
            metric: { name: "rps" },
          },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"Object","object":{"target":{"kind":"Service","name":"api"},"metricName":"rps","targetValue":"0","averageValue":"500m"}}]',
      },
    },
    {
      name: "Resource metrics other than CPU Utilization: targetAverageUtilization / targetAverageValue",
      metrics: [
        {
          type: "Resource",
          resource: { name: "memory", target: { type: "Utilization", averageUtilization: 70 } },
        },
        {
          type: "Resource",
          resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } },
        },
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "AverageValue", averageValue: "200m" } },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}},{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}},{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"200m"}}]',
      },
    },
    {
      name: "a ContainerResource metric keeps its container after the targets",
      metrics: [
        {
          type: "ContainerResource",
          containerResource: {
            name: "cpu",
            container: "app",
            target: { type: "Utilization", averageUtilization: 60 },
          },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}]',
      },
    },
    {
      name: "External metrics: metricSelector, targetValue / targetAverageValue",
      metrics: [
        {
          type: "External",
          external: {
            metric: {
              name: "queue_depth",
              selector: { matchExpressions: [{ key: "queue", operator: "In", values: ["jobs"] }] },
            },
            target: { type: "Value", value: "30" },
          },
        },
        {
          type: "External",
          external: {
            metric: { name: "queue_depth" },
            target: { type: "AverageValue", averageValue: 1.5 },
          },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"External","external":{"metricName":"queue_depth","metricSelector":{"matchExpressions":[{"key":"queue","operator":"In","values":["jobs"]}]},"targetValue":"30"}},{"type":"External","external":{"metricName":"queue_depth","targetAverageValue":"1500m"}}]',
      },
    },
    {
      name: "the first CPU Utilization metric is the v1 target; a second one is dropped, as upstream",
      metrics: [cpuUtilization(50), podsMetric("qps", "10"), cpuUtilization(70)],
      expectTargetCPU: 50,
      expectAnnotations: {
        [M.metrics]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]',
      },
    },
    {
      name: "an unknown metric type is kept as is; every source present is converted, whatever the type",
      metrics: [
        { type: "Custom" },
        {
          type: "Pods",
          resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } },
        },
      ],
      expectTargetCPU: undefined,
      expectAnnotations: {
        [M.metrics]:
          '[{"type":"Custom"},{"type":"Pods","resource":{"name":"memory","targetAverageValue":"1Gi"}}]',
      },
    },
    {
      name: "behavior: the internal struct with Go field names, nil as null, Tolerance null when unset",
      metrics: [cpuUtilization(80)],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [
            { type: "Pods", value: 4, periodSeconds: 15 },
            { type: "Percent", value: 100, periodSeconds: 15 },
          ],
        },
      },
      expectTargetCPU: 80,
      expectAnnotations: {
        [M.behavior]:
          '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":null}',
      },
    },
    {
      name: "tolerances travel inside the behavior annotation (no separate tolerance annotations in v1)",
      metrics: [cpuUtilization(80)],
      behavior: {
        scaleUp: { tolerance: "10m" },
        scaleDown: { stabilizationWindowSeconds: 300, tolerance: "0.05", policies: [] },
      },
      expectTargetCPU: 80,
      expectAnnotations: {
        [M.behavior]:
          '{"ScaleUp":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":null,"Tolerance":"10m"},"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":null,"Policies":[],"Tolerance":"50m"}}',
      },
    },
    {
      name: "status: every current metric is kept (CPU included, for its raw value); the last CPU utilization is the v1 value",
      metrics: [cpuUtilization(50)],
      status: {
        observedGeneration: 4,
        lastScaleTime: "2024-05-01T08:00:00Z",
        currentReplicas: 3,
        desiredReplicas: 4,
        currentMetrics: [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageValue: "250m", averageUtilization: 40 } },
          },
          {
            type: "Object",
            object: {
              metric: { name: "rps" },
              current: { value: "12" },
              describedObject: { kind: "Ingress", name: "main" },
            },
          },
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageValue: "300m", averageUtilization: 45 } },
          },
          { type: "" },
        ],
      },
      expectTargetCPU: 50,
      expectAnnotations: {
        [M.currentMetrics]:
          '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"250m"}},{"type":"Object","object":{"target":{"kind":"Ingress","name":"main"},"metricName":"rps","currentValue":"12"}},{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":45,"currentAverageValue":"300m"}},{"type":""}]',
      },
      expectStatus: {
        observedGeneration: 4,
        lastScaleTime: "2024-05-01T08:00:00Z",
        currentReplicas: 3,
        desiredReplicas: 4,
        currentCPUUtilizationPercentage: 45,
      },
    },
    {
      name: 'status: the other current metric shapes (non-pointer quantities as "0")',
      metrics: [cpuUtilization(50)],
      status: {
        desiredReplicas: 2,
        currentMetrics: [
          {
            type: "Pods",
            pods: { metric: { name: "qps", selector: {} }, current: { averageValue: "7" } },
          },
          {
            type: "ContainerResource",
            containerResource: { name: "memory", container: "app", current: {} },
          },
          {
            type: "External",
            external: { metric: { name: "queue" }, current: { averageValue: "2" } },
          },
        ],
      },
      expectTargetCPU: 50,
      expectAnnotations: {
        [M.currentMetrics]:
          '[{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"7","selector":{}}},{"type":"ContainerResource","containerResource":{"name":"memory","currentAverageValue":"0","container":"app"}},{"type":"External","external":{"metricName":"queue","currentValue":"0","currentAverageValue":"2"}}]',
      },
      expectStatus: { currentReplicas: 0, desiredReplicas: 2 },
    },
    {
      name: "conditions: RFC 3339 in UTC whole seconds, empty reason/message omitted, Go's HTML-safe escaping",
      metrics: [cpuUtilization(50)],
      status: {
        currentReplicas: 1,
        desiredReplicas: 1,
        conditions: [
          {
            type: "AbleToScale",
            status: "True",
            lastTransitionTime: "2024-05-01T10:00:00.123+02:00",
            reason: "ReadyForNewScale",
            message: "it's <ok> & done\u2028",
          },
          { type: "ScalingActive", status: "False", reason: "", message: "" },
        ],
      },
      expectTargetCPU: 50,
      expectAnnotations: {
        [M.conditions]:
          '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T08:00:00Z","reason":"ReadyForNewScale","message":"it\'s \\u003cok\\u003e \\u0026 done\\u2028"},{"type":"ScalingActive","status":"False","lastTransitionTime":null}]',
      },
      expectStatus: { currentReplicas: 1, desiredReplicas: 1 },
    },
    {
      name: "stale round-trip annotations on the v2 object are dropped; the user's are kept",
      metrics: [cpuUtilization(50)],
      annotations: {
        "example.com/owner": "team-a",
        [M.metrics]: "stale",
        [M.scaleUpTolerance]: "1",
        [M.conditions]: "[]",
      },
      expectTargetCPU: 50,
      expectAnnotations: { "example.com/owner": "team-a" },
    },
    {
      name: "no metrics at all: no v1 target and no annotation",
      metrics: [],
      expectTargetCPU: undefined,
      expectAnnotations: undefined,
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const input = v2Hpa({
        metrics: c.metrics,
        behavior: c.behavior,
        status: c.status,
        annotations: c.annotations,
      });
      const before = structuredClone(input);
      const v1 = convertV2ToV1(input);
      assert.deepEqual(input, before, "the input is not modified");
      assert.equal(v1.apiVersion, "autoscaling/v1");
      assert.equal(v1.kind, "HorizontalPodAutoscaler");
      assert.equal(v1.spec.targetCPUUtilizationPercentage, c.expectTargetCPU);
      assert.deepEqual(v1.spec.scaleTargetRef, TARGET);
      assert.equal(v1.spec.minReplicas, 1);
      assert.equal(v1.spec.maxReplicas, 10);
      assert.deepEqual(v1.metadata.annotations, c.expectAnnotations);
      assert.deepEqual(v1.status, c.expectStatus);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// autoscaling/v1 → autoscaling/v2

describe("convertV1ToV2", () => {
  const cases: Array<{
    name: string;
    targetCPU?: number;
    annotations?: Record<string, string>;
    status?: HorizontalPodAutoscalerStatusV1;
    expectMetrics: MetricSpec[];
    expectBehavior?: HorizontalPodAutoscalerBehavior;
    expectStatus?: HorizontalPodAutoscalerStatus;
    expectAnnotations?: Record<string, string>;
  }> = [
    {
      name: "targetCPUUtilizationPercentage becomes a CPU Utilization metric",
      targetCPU: 65,
      expectMetrics: [cpuUtilization(65)],
    },
    {
      name: "no target and no metrics annotation: the implicit CPU target of 80",
      expectMetrics: [cpuUtilization(80)],
    },
    {
      name: "annotation metrics come first, in order, then the CPU target",
      targetCPU: 50,
      annotations: {
        [M.metrics]:
          '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}},{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]',
      },
      expectMetrics: [
        podsMetric("qps", "10"),
        {
          type: "Resource",
          resource: { name: "memory", target: { type: "Utilization", averageUtilization: 70 } },
        },
        cpuUtilization(50),
      ],
    },
    {
      name: "target types are inferred from the fields set, as upstream: Object with averageValue keeps value",
      annotations: {
        [M.metrics]:
          '[{"type":"Object","object":{"target":{"kind":"Service","name":"api"},"metricName":"rps","targetValue":"0","averageValue":"500m"}},{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"2k","selector":{"matchLabels":{"app":"web"}}}}]',
      },
      expectMetrics: [
        {
          type: "Object",
          object: {
            describedObject: { kind: "Service", name: "api" },
            target: { type: "AverageValue", value: "0", averageValue: "500m" },
            metric: { name: "rps" },
          },
        },
        {
          type: "Object",
          object: {
            describedObject: { kind: "Ingress", name: "main", apiVersion: "networking.k8s.io/v1" },
            target: { type: "Value", value: "2k" },
            metric: { name: "rps", selector: { matchLabels: { app: "web" } } },
          },
        },
      ],
    },
    {
      name: "External: AverageValue without targetValue; Resource/ContainerResource: AverageValue without utilization",
      annotations: {
        [M.metrics]:
          '[{"type":"External","external":{"metricName":"q","metricSelector":{},"targetAverageValue":"5"}},{"type":"ContainerResource","containerResource":{"name":"memory","targetAverageValue":"1Gi","container":"app"}}]',
      },
      expectMetrics: [
        {
          type: "External",
          external: {
            metric: { name: "q", selector: {} },
            target: { type: "AverageValue", averageValue: "5" },
          },
        },
        {
          type: "ContainerResource",
          containerResource: {
            name: "memory",
            target: { type: "AverageValue", averageValue: "1Gi" },
            container: "app",
          },
        },
      ],
    },
    {
      name: "keys match case-insensitively and quantities are read back canonical, as encoding/json does",
      annotations: {
        [M.metrics]:
          '[{"TYPE":"Pods","Pods":{"MetricName":"qps","targetaveragevalue":" 1.5 ","unknownField":1}}]',
      },
      expectMetrics: [podsMetric("qps", "1500m")],
    },
    {
      name: "a metrics annotation that does not decode is ignored and dropped",
      targetCPU: 40,
      annotations: { [M.metrics]: "abc", "example.com/keep": "yes" },
      expectMetrics: [cpuUtilization(40)],
      expectAnnotations: { "example.com/keep": "yes" },
    },
    {
      name: "an int32 written as 70.0 fails the whole annotation (encoding/json reads the literal)",
      annotations: {
        [M.metrics]:
          '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70.0}}]',
      },
      expectMetrics: [cpuUtilization(80)],
    },
    {
      name: "an invalid quantity fails the whole annotation",
      annotations: {
        [M.metrics]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10 pods"}}]',
      },
      expectMetrics: [cpuUtilization(80)],
    },
    {
      name: "an escaped quantity string fails (Quantity.UnmarshalJSON parses the raw bytes)",
      annotations: {
        [M.metrics]:
          '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1\\u0030"}}]',
      },
      expectMetrics: [cpuUtilization(80)],
    },
    {
      name: "an empty or null metrics annotation leaves only the CPU target, or the implicit one",
      annotations: { [M.metrics]: "null" },
      expectMetrics: [cpuUtilization(80)],
    },
    {
      name: "behavior: Go field names, any case, tolerance included",
      targetCPU: 50,
      annotations: {
        [M.behavior]:
          '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":"0.01"},"scaleDown":{"stabilizationWindowSeconds":120,"policies":[]}}',
      },
      expectMetrics: [cpuUtilization(50)],
      expectBehavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [{ type: "Pods", value: 4, periodSeconds: 15 }],
          tolerance: "10m",
        },
        scaleDown: { stabilizationWindowSeconds: 120, policies: [] },
      },
    },
    {
      name: "a later key, in any case, overrides an earlier one (a null resets the pointer)",
      targetCPU: 50,
      annotations: {
        [M.behavior]:
          '{"ScaleUp":{"StabilizationWindowSeconds":5},"scaleup":null,"ScaleDown":{"SelectPolicy":"Max","selectPolicy":"Min"}}',
      },
      expectMetrics: [cpuUtilization(50)],
      expectBehavior: { scaleDown: { selectPolicy: "Min" } },
    },
    {
      name: "a behavior with both directions nil is no behavior",
      targetCPU: 50,
      annotations: { [M.behavior]: '{"ScaleUp":null,"ScaleDown":null}' },
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "a behavior that does not decode is ignored",
      targetCPU: 50,
      annotations: { [M.behavior]: '{"ScaleUp":{"Policies":[{"Type":"Pods","Value":"4"}]}}' },
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "separate tolerance annotations are not read from v1, only dropped",
      targetCPU: 50,
      annotations: { [M.scaleUpTolerance]: "0.5", [M.scaleDownTolerance]: "0.5" },
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "currentCPUUtilizationPercentage alone becomes a CPU status without raw value; zero currentReplicas omitted",
      targetCPU: 50,
      status: { currentReplicas: 0, desiredReplicas: 2, currentCPUUtilizationPercentage: 70 },
      expectMetrics: [cpuUtilization(50)],
      expectStatus: {
        desiredReplicas: 2,
        currentMetrics: [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 70 } } },
        ],
      },
    },
    {
      name: "the current-metrics annotation replaces the CPU status (it has the raw value)",
      targetCPU: 50,
      annotations: {
        [M.currentMetrics]:
          '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":70,"currentAverageValue":"350m"}},{"type":"External","external":{"metricName":"q","currentValue":"3"}},{"type":"Object","object":{"target":{"kind":"Service","name":"api"},"metricName":"rps","currentValue":"0","averageValue":"4"}}]',
      },
      status: { currentReplicas: 3, desiredReplicas: 3, currentCPUUtilizationPercentage: 70 },
      expectMetrics: [cpuUtilization(50)],
      expectStatus: {
        currentReplicas: 3,
        desiredReplicas: 3,
        currentMetrics: [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageValue: "350m", averageUtilization: 70 } },
          },
          { type: "External", external: { metric: { name: "q" }, current: { value: "3" } } },
          {
            type: "Object",
            object: {
              metric: { name: "rps" },
              current: { value: "0", averageValue: "4" },
              describedObject: { kind: "Service", name: "api" },
            },
          },
        ],
      },
    },
    {
      name: "a current-metrics annotation that does not decode keeps the CPU status",
      targetCPU: 50,
      annotations: { [M.currentMetrics]: "{}" },
      status: { currentReplicas: 3, desiredReplicas: 3, currentCPUUtilizationPercentage: 70 },
      expectMetrics: [cpuUtilization(50)],
      expectStatus: {
        currentReplicas: 3,
        desiredReplicas: 3,
        currentMetrics: [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 70 } } },
        ],
      },
    },
    {
      name: "conditions come back from their annotation; null time and empty strings are omitted",
      targetCPU: 50,
      annotations: {
        [M.conditions]:
          '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00+02:00","reason":"ReadyForNewScale","message":"a \\u003c b"},{"type":"ScalingActive","status":"False","lastTransitionTime":null}]',
      },
      status: { currentReplicas: 1, desiredReplicas: 1 },
      expectMetrics: [cpuUtilization(50)],
      expectStatus: {
        currentReplicas: 1,
        desiredReplicas: 1,
        conditions: [
          {
            type: "AbleToScale",
            status: "True",
            lastTransitionTime: "2024-05-01T08:00:00Z",
            reason: "ReadyForNewScale",
            message: "a < b",
          },
          { type: "ScalingActive", status: "False" },
        ],
      },
    },
    {
      name: "a condition time that is not RFC 3339 fails the conditions annotation",
      targetCPU: 50,
      annotations: {
        [M.conditions]: '[{"type":"AbleToScale","status":"True","lastTransitionTime":"yesterday"}]',
      },
      status: { currentReplicas: 1, desiredReplicas: 1 },
      expectMetrics: [cpuUtilization(50)],
      expectStatus: { currentReplicas: 1, desiredReplicas: 1 },
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const input = v1Hpa({ targetCPU: c.targetCPU, annotations: c.annotations, status: c.status });
      const before = structuredClone(input);
      const v2 = convertV1ToV2(input);
      assert.deepEqual(input, before, "the input is not modified");
      assert.equal(v2.apiVersion, "autoscaling/v2");
      assert.deepEqual(v2.spec.metrics, c.expectMetrics);
      assert.deepEqual(v2.spec.behavior, c.expectBehavior);
      assert.deepEqual(v2.status, c.expectStatus);
      assert.deepEqual(v2.metadata.annotations, c.expectAnnotations);
      assert.deepEqual(v2.spec.scaleTargetRef, TARGET);
      assert.equal(v2.spec.minReplicas, 1);
      assert.equal(v2.spec.maxReplicas, 10);
    });
  }
});

test("converted objects share nothing with their input", () => {
  const v2 = v2Hpa({ metrics: [cpuUtilization(50)], annotations: { a: "b" } });
  v2.metadata.labels = { app: "web" };
  const v1 = convertV2ToV1(v2);
  v1.metadata.labels!.app = "changed";
  v1.metadata.annotations!.a = "changed";
  v1.spec.scaleTargetRef.name = "changed";
  const back = convertV1ToV2(v1);
  back.metadata.labels!.app = "again";
  assert.deepEqual(v2.metadata, {
    name: "web",
    namespace: "default",
    annotations: { a: "b" },
    labels: { app: "web" },
  });
  assert.equal(v2.spec.scaleTargetRef.name, "web");
  assert.equal(v1.metadata.labels!.app, "changed");
});

// ---------------------------------------------------------------------------------------------
// legacy betas

describe("convertV2beta2ToV2", () => {
  const base = {
    apiVersion: "autoscaling/v2beta2",
    kind: "HorizontalPodAutoscaler",
    spec: {
      scaleTargetRef: TARGET,
      maxReplicas: 5,
      metrics: [cpuUtilization(70)],
      behavior: { scaleUp: { stabilizationWindowSeconds: 10, tolerance: "0.9" } },
    },
    status: { currentReplicas: 2, desiredReplicas: 2 },
  };
  const cases: Array<{
    name: string;
    annotations?: Record<string, string>;
    expectBehavior: HorizontalPodAutoscalerBehavior;
    expectAnnotations?: Record<string, string>;
  }> = [
    {
      name: "the same shapes; a tolerance field is not part of v2beta2 and is not decoded",
      expectBehavior: { scaleUp: { stabilizationWindowSeconds: 10 } },
    },
    {
      name: "tolerances come from their annotations, creating the direction when needed",
      annotations: { [M.scaleUpTolerance]: "0.05", [M.scaleDownTolerance]: "100m", x: "y" },
      expectBehavior: {
        scaleUp: { stabilizationWindowSeconds: 10, tolerance: "50m" },
        scaleDown: { tolerance: "100m" },
      },
      expectAnnotations: { x: "y" },
    },
    {
      name: "other round-trip annotations are dropped, not applied",
      annotations: { [M.behavior]: '{"ScaleDown":{"StabilizationWindowSeconds":1}}' },
      expectBehavior: { scaleUp: { stabilizationWindowSeconds: 10 } },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const input = {
        ...structuredClone(base),
        metadata: { name: "web", ...(c.annotations ? { annotations: c.annotations } : {}) },
      };
      const before = structuredClone(input);
      const v2 = convertV2beta2ToV2(input);
      assert.deepEqual(input, before, "the input is not modified");
      assert.equal(v2.apiVersion, "autoscaling/v2");
      assert.deepEqual(v2.spec.behavior, c.expectBehavior);
      assert.deepEqual(v2.spec.metrics, [cpuUtilization(70)]);
      assert.deepEqual(v2.status, { currentReplicas: 2, desiredReplicas: 2 });
      assert.deepEqual(v2.metadata.annotations, c.expectAnnotations);
    });
  }

  test("an unparsable tolerance annotation is an error worded as upstream's", () => {
    const result = readHorizontalPodAutoscaler({
      ...base,
      metadata: { name: "web", annotations: { [M.scaleDownTolerance]: "a lot" } },
    });
    assert.deepEqual(result, {
      ok: false,
      error:
        "failed to parse annotation \"autoscaling.alpha.kubernetes.io/scale-down-tolerance\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    });
  });
});

describe("convertV2beta1ToV2", () => {
  const v2beta1 = {
    apiVersion: "autoscaling/v2beta1",
    kind: "HorizontalPodAutoscaler",
    metadata: {
      name: "web",
      annotations: {
        [M.behavior]: '{"ScaleDown":{"StabilizationWindowSeconds":60}}',
        "example.com/keep": "1",
      },
    },
    spec: {
      scaleTargetRef: TARGET,
      minReplicas: 2,
      maxReplicas: 8,
      metrics: [
        { type: "Resource", resource: { name: "cpu", targetAverageUtilization: 60 } },
        { type: "Resource", resource: { name: "memory", targetAverageValue: "512Mi" } },
        {
          type: "Pods",
          pods: {
            metricName: "qps",
            targetAverageValue: 10,
            selector: { matchLabels: { a: "b" } },
          },
        },
        {
          type: "Object",
          object: {
            target: { kind: "Ingress", name: "main" },
            metricName: "rps",
            targetValue: "100",
            averageValue: "20",
          },
        },
        {
          type: "External",
          external: {
            metricName: "queue",
            metricSelector: { matchLabels: { q: "jobs" } },
            targetValue: "30",
          },
        },
        {
          type: "ContainerResource",
          containerResource: { name: "cpu", container: "app", targetAverageUtilization: 50 },
        },
      ],
    },
    status: {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", currentAverageUtilization: 70, currentAverageValue: "700m" },
        },
        { type: "Pods", pods: { metricName: "qps", currentAverageValue: "12" } },
      ],
      conditions: [{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }],
    },
  };

  test("legacy metric shapes, status metrics, conditions and the behavior annotation convert as upstream", () => {
    const before = structuredClone(v2beta1);
    const hpa = convertV2beta1ToV2(v2beta1);
    assert.deepEqual(v2beta1, before, "the input is not modified");
    assert.deepEqual(hpa, {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", annotations: { "example.com/keep": "1" } },
      spec: {
        scaleTargetRef: TARGET,
        minReplicas: 2,
        maxReplicas: 8,
        metrics: [
          cpuUtilization(60),
          {
            type: "Resource",
            resource: { name: "memory", target: { type: "AverageValue", averageValue: "512Mi" } },
          },
          {
            type: "Pods",
            pods: {
              metric: { name: "qps", selector: { matchLabels: { a: "b" } } },
              target: { type: "AverageValue", averageValue: "10" },
            },
          },
          {
            type: "Object",
            object: {
              describedObject: { kind: "Ingress", name: "main" },
              target: { type: "AverageValue", value: "100", averageValue: "20" },
              metric: { name: "rps" },
            },
          },
          {
            type: "External",
            external: {
              metric: { name: "queue", selector: { matchLabels: { q: "jobs" } } },
              target: { type: "Value", value: "30" },
            },
          },
          {
            type: "ContainerResource",
            containerResource: {
              name: "cpu",
              target: { type: "Utilization", averageUtilization: 50 },
              container: "app",
            },
          },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
      status: {
        currentReplicas: 2,
        desiredReplicas: 3,
        currentMetrics: [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageValue: "700m", averageUtilization: 70 } },
          },
          {
            type: "Pods",
            pods: { metric: { name: "qps" }, current: { averageValue: "12" } },
          },
        ],
        conditions: [{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }],
      },
    });
  });

  const errorCases: Array<{ name: string; metrics: unknown; expectError: string }> = [
    {
      name: "a string where an int32 is expected",
      metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: "60" } }],
      expectError:
        'HorizontalPodAutoscaler in version "autoscaling/v2beta1" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal string into Go struct field ResourceMetricSource.spec.metrics.resource.targetAverageUtilization of type int32',
    },
    {
      name: "metrics that are not a list",
      metrics: { type: "Pods" },
      expectError:
        'HorizontalPodAutoscaler in version "autoscaling/v2beta1" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal object into Go value of type []MetricSpec',
    },
  ];
  for (const c of errorCases) {
    test(`decode error: ${c.name}`, () => {
      const result = readHorizontalPodAutoscaler({
        ...v2beta1,
        spec: { ...v2beta1.spec, metrics: c.metrics },
      });
      assert.deepEqual(result, { ok: false, error: c.expectError });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// reading and writing by apiVersion

describe("readHorizontalPodAutoscaler", () => {
  const spec = { scaleTargetRef: TARGET, maxReplicas: 3, metrics: [cpuUtilization(50)] };
  const cases: Array<{
    name: string;
    input: unknown;
    expectWarnings?: string[];
    expectMetrics?: MetricSpec[];
    expectError?: string;
  }> = [
    {
      name: "autoscaling/v2 is returned as is, without warnings",
      input: { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: {}, spec },
      expectWarnings: [],
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "autoscaling/v1 is converted, without warnings",
      input: {
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: {},
        spec: { scaleTargetRef: TARGET, maxReplicas: 3, targetCPUUtilizationPercentage: 20 },
      },
      expectWarnings: [],
      expectMetrics: [cpuUtilization(20)],
    },
    {
      name: "autoscaling/v2beta2 warns as kube-apiserver does",
      input: {
        apiVersion: "autoscaling/v2beta2",
        kind: "HorizontalPodAutoscaler",
        metadata: {},
        spec,
      },
      expectWarnings: [
        "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler",
      ],
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "autoscaling/v2beta1 warns as kube-apiserver does",
      input: {
        apiVersion: "autoscaling/v2beta1",
        kind: "HorizontalPodAutoscaler",
        metadata: {},
        spec: {
          scaleTargetRef: TARGET,
          maxReplicas: 3,
          metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 50 } }],
        },
      },
      expectWarnings: [
        "autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; use autoscaling/v2 HorizontalPodAutoscaler",
      ],
      expectMetrics: [cpuUtilization(50)],
    },
    {
      name: "an unknown apiVersion is an error naming it",
      input: { apiVersion: "autoscaling/v3", kind: "HorizontalPodAutoscaler", spec },
      expectError: 'no matches for kind "HorizontalPodAutoscaler" in version "autoscaling/v3"',
    },
    {
      name: "another kind is an error naming it",
      input: { apiVersion: "autoscaling/v1", kind: "Scale", spec: {} },
      expectError: 'no matches for kind "Scale" in version "autoscaling/v1"',
    },
    {
      name: "a missing apiVersion is an error",
      input: { kind: "HorizontalPodAutoscaler" },
      expectError: `Object 'apiVersion' is missing in '{"kind":"HorizontalPodAutoscaler"}'`,
    },
    {
      name: "a missing kind is an error",
      input: { apiVersion: "autoscaling/v2" },
      expectError: `Object 'Kind' is missing in '{"apiVersion":"autoscaling/v2"}'`,
    },
    {
      name: "not an object",
      input: "hpa",
      expectError: "a HorizontalPodAutoscaler must be a JSON object",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const result = readHorizontalPodAutoscaler(c.input);
      if (c.expectError !== undefined) {
        assert.deepEqual(result, { ok: false, error: c.expectError });
        return;
      }
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.value.hpa.apiVersion, "autoscaling/v2");
      assert.deepEqual(result.value.warnings, c.expectWarnings);
      assert.deepEqual(result.value.hpa.spec.metrics, c.expectMetrics);
    });
  }

  test("DEPRECATION_WARNINGS are the texts returned", () => {
    assert.deepEqual(Object.keys(DEPRECATION_WARNINGS).sort(), [
      "autoscaling/v2beta1",
      "autoscaling/v2beta2",
    ]);
  });

  test("an autoscaling/v2 object loses round-trip annotations left by other versions", () => {
    const result = readHorizontalPodAutoscaler({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { annotations: { [M.behavior]: "{}", keep: "me" } },
      spec,
    });
    assert.ok(result.ok);
    assert.deepEqual(result.value.hpa.metadata.annotations, { keep: "me" });
  });
});

describe("writeHorizontalPodAutoscaler", () => {
  const hpa = v2Hpa({
    metrics: [podsMetric("qps", "10"), cpuUtilization(50)],
    annotations: { [M.conditions]: "[]" },
  });
  const cases: Array<{
    name: string;
    apiVersion: "autoscaling/v1" | "autoscaling/v2";
    expectAnnotations: Record<string, string> | undefined;
  }> = [
    {
      name: "autoscaling/v1 is the v1 conversion",
      apiVersion: "autoscaling/v1",
      expectAnnotations: {
        [M.metrics]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]',
      },
    },
    {
      name: "autoscaling/v2 is the object without round-trip annotations",
      apiVersion: "autoscaling/v2",
      expectAnnotations: undefined,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = writeHorizontalPodAutoscaler(hpa, c.apiVersion) as HorizontalPodAutoscaler;
      assert.equal(out.apiVersion, c.apiVersion);
      assert.deepEqual(out.metadata.annotations, c.expectAnnotations);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// properties

/** Drops keys whose value is undefined (optional fields left out). */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Generated records can have a null prototype; wire objects never do. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const dnsName = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/);
const quantity = fc.oneof(
  fc.bigInt({ min: 1n, max: 10n ** 13n }).map((m) => Quantity.fromMilli(m).toString()),
  fc.constantFrom("1Gi", "512Mi", "1e3", "2k", "250m"),
);
const smallQuantity = fc
  .bigInt({ min: 0n, max: 3000n })
  .map((m) => Quantity.fromMilli(m).toString());
const time = fc
  .date({
    min: new Date("1970-01-01T00:00:00Z"),
    max: new Date("2200-01-01T00:00:00Z"),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().replace(/\.[0-9]{3}Z$/, "Z"));
const text = fc.oneof(
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.constantFrom("a <b> & 'c'", '"quoted"\\', "line\nbreak\u2028\u2029", "\u0000\u001f\u007f"),
);
const selector = fc.oneof(
  fc.record({ matchLabels: fc.dictionary(dnsName, dnsName, { minKeys: 1, maxKeys: 3 }) }),
  fc.record({
    matchExpressions: fc.array(
      fc
        .record({
          key: dnsName,
          operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist"),
          values: opt(fc.array(dnsName, { minLength: 1, maxLength: 3 })),
        })
        .map(compact),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.constant({}),
);
const metricId = fc.record({ name: dnsName, selector: opt(selector) }).map(compact);
const ref = fc
  .record({
    kind: fc.constantFrom("Deployment", "Service", "Ingress"),
    name: dnsName,
    apiVersion: opt(fc.constantFrom("apps/v1", "v1", "networking.k8s.io/v1")),
  })
  .map(compact);

/** Metric specs upstream round-trips through v1 exactly (CPU Utilization aside). */
const exactMetricSpec: fc.Arbitrary<MetricSpec> = fc.oneof(
  fc.record({
    type: fc.constant("Object"),
    object: fc.record({
      describedObject: ref,
      target: quantity.map((value) => ({ type: "Value", value })),
      metric: metricId,
    }),
  }),
  fc.record({
    type: fc.constant("Pods"),
    pods: fc.record({
      metric: metricId,
      target: quantity.map((averageValue) => ({ type: "AverageValue", averageValue })),
    }),
  }),
  fc.record({
    type: fc.constant("Resource"),
    resource: fc.oneof(
      fc.record({
        name: fc.constantFrom("memory", "ephemeral-storage"),
        target: fc
          .integer({ min: 1, max: 200 })
          .map((averageUtilization) => ({ type: "Utilization", averageUtilization })),
      }),
      fc.record({
        name: fc.constantFrom("cpu", "memory"),
        target: quantity.map((averageValue) => ({ type: "AverageValue", averageValue })),
      }),
    ),
  }),
  fc.record({
    type: fc.constant("ContainerResource"),
    containerResource: fc.record({
      name: fc.constantFrom("cpu", "memory"),
      target: fc.oneof(
        fc
          .integer({ min: 1, max: 200 })
          .map((averageUtilization) => ({ type: "Utilization", averageUtilization })),
        quantity.map((averageValue) => ({ type: "AverageValue", averageValue })),
      ),
      container: dnsName,
    }),
  }),
  fc.record({
    type: fc.constant("External"),
    external: fc.record({
      metric: metricId,
      target: fc.oneof(
        quantity.map((value) => ({ type: "Value", value })),
        quantity.map((averageValue) => ({ type: "AverageValue", averageValue })),
      ),
    }),
  }),
);
/** Object AverageValue: valid, but v1.34 brings it back with `value: "0"` (kubernetes#87733). */
const objectAverageValueSpec: fc.Arbitrary<MetricSpec> = fc.record({
  type: fc.constant("Object"),
  object: fc.record({
    describedObject: ref,
    target: quantity.map((averageValue) => ({ type: "AverageValue", averageValue })),
    metric: metricId,
  }),
});

const exactMetricStatus: fc.Arbitrary<MetricStatus> = fc.oneof(
  fc.record({
    type: fc.constant("Object" as const),
    object: fc.record({
      metric: metricId,
      current: fc.record({ value: quantity, averageValue: opt(quantity) }).map(compact),
      describedObject: ref,
    }),
  }),
  fc.record({
    type: fc.constant("Pods" as const),
    pods: fc.record({ metric: metricId, current: fc.record({ averageValue: quantity }) }),
  }),
  fc.record({
    type: fc.constant("Resource" as const),
    resource: fc.record({
      name: fc.constantFrom("cpu", "memory"),
      current: fc
        .record({
          averageValue: quantity,
          averageUtilization: opt(fc.integer({ min: 0, max: 500 })),
        })
        .map(compact),
    }),
  }),
  fc.record({
    type: fc.constant("ContainerResource" as const),
    containerResource: fc.record({
      name: fc.constantFrom("cpu", "memory"),
      current: fc
        .record({
          averageValue: quantity,
          averageUtilization: opt(fc.integer({ min: 0, max: 500 })),
        })
        .map(compact),
      container: dnsName,
    }),
  }),
  fc.record({
    type: fc.constant("External" as const),
    external: fc.record({
      metric: metricId,
      current: fc.record({ value: quantity, averageValue: opt(quantity) }).map(compact),
    }),
  }),
  fc.constant({ type: "" as const }),
);
/** Status shapes the controller never writes, which v1 fills with "0" (non-pointer quantities). */
const zeroFilledMetricStatus: fc.Arbitrary<MetricStatus> = fc.oneof(
  fc.record({
    type: fc.constant("Object" as const),
    object: fc.record({
      metric: metricId,
      current: fc.record({ averageValue: quantity }),
      describedObject: ref,
    }),
  }),
  fc.record({
    type: fc.constant("External" as const),
    external: fc.record({ metric: metricId, current: fc.record({ averageValue: quantity }) }),
  }),
);

const rules = fc
  .record({
    stabilizationWindowSeconds: opt(fc.integer({ min: 0, max: 3600 })),
    selectPolicy: opt(fc.constantFrom("Max", "Min", "Disabled")),
    policies: opt(
      fc.array(
        fc.record({
          type: fc.constantFrom("Pods", "Percent"),
          value: fc.integer({ min: 1, max: 1000 }),
          periodSeconds: fc.integer({ min: 1, max: 1800 }),
        }),
        { maxLength: 3 },
      ),
    ),
    tolerance: opt(smallQuantity),
  })
  .map(compact);
// A behavior with neither direction is the zero behavior, which v1 cannot tell from none; the
// API never stores one (defaulting fills both directions).
const behavior: fc.Arbitrary<HorizontalPodAutoscalerBehavior> = fc.oneof(
  fc.record({ scaleUp: rules }),
  fc.record({ scaleDown: rules }),
  fc.record({ scaleUp: rules, scaleDown: rules }),
);

const condition = fc
  .record({
    type: fc.constantFrom("AbleToScale", "ScalingActive", "ScalingLimited"),
    status: fc.constantFrom("True" as const, "False" as const, "Unknown" as const),
    lastTransitionTime: opt(time),
    reason: opt(fc.constantFrom("ReadyForNewScale", "ValidMetricFound", "DesiredWithinRange")),
    message: opt(text),
  })
  .map(compact);

function hpaArbitrary(others: fc.Arbitrary<MetricSpec>, statuses: fc.Arbitrary<MetricStatus>) {
  const metrics = fc
    .tuple(fc.array(others, { maxLength: 4 }), opt(fc.integer({ min: 1, max: 200 })), fc.nat())
    .map(([list, cpu, at]) => {
      const out = [...list];
      // At least one metric: the API always has one after defaulting.
      if (cpu !== undefined || out.length === 0) {
        out.splice(at % (out.length + 1), 0, cpuUtilization(cpu ?? 80));
      }
      return out;
    });
  const status = fc
    .record({
      observedGeneration: opt(fc.integer({ min: 1, max: 1000 })),
      lastScaleTime: opt(time),
      // autoscaling/v2 omits a zero currentReplicas.
      currentReplicas: opt(fc.integer({ min: 1, max: 100 })),
      desiredReplicas: fc.integer({ min: 0, max: 100 }),
      currentMetrics: opt(fc.array(statuses, { minLength: 1, maxLength: 4 })),
      conditions: opt(fc.array(condition, { minLength: 1, maxLength: 3 })),
    })
    .map(compact);
  return fc
    .record({
      metadata: fc
        .record({
          name: dnsName,
          namespace: fc.constantFrom("default", "prod"),
          labels: opt(fc.dictionary(dnsName, dnsName, { minKeys: 1, maxKeys: 2 })),
          annotations: opt(
            fc.dictionary(
              dnsName.map((k) => `example.com/${k}`),
              text,
              { minKeys: 1, maxKeys: 2 },
            ),
          ),
        })
        .map(compact),
      spec: fc
        .record({
          scaleTargetRef: ref,
          minReplicas: opt(fc.integer({ min: 0, max: 10 })),
          maxReplicas: fc.integer({ min: 1, max: 100 }),
          metrics,
          behavior: opt(behavior),
        })
        .map(compact),
      status: opt(status),
    })
    .map((h) =>
      plain(
        compact({
          apiVersion: "autoscaling/v2" as const,
          kind: "HorizontalPodAutoscaler" as const,
          ...h,
        }) as HorizontalPodAutoscaler,
      ),
    );
}

/** Upstream's only reordering: the CPU target of v1 comes back after the annotation metrics. */
function cpuMetricLast(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscaler {
  const metrics = hpa.spec.metrics ?? [];
  const at = metrics.findIndex(
    (m) =>
      m.type === "Resource" &&
      m.resource?.name === "cpu" &&
      m.resource.target.averageUtilization !== undefined,
  );
  if (at < 0) return hpa;
  const reordered = [...metrics.slice(0, at), ...metrics.slice(at + 1), metrics[at]!];
  return { ...hpa, spec: { ...hpa.spec, metrics: reordered } };
}

const RUNS = { numRuns: 300 };

describe("properties", () => {
  test("v2 → v1 → v2 gives the object back, the CPU target moved last", () => {
    fc.assert(
      fc.property(hpaArbitrary(exactMetricSpec, exactMetricStatus), (hpa) => {
        assert.deepEqual(convertV1ToV2(convertV2ToV1(hpa)), cpuMetricLast(hpa));
      }),
      RUNS,
    );
  });

  test('v2 → v1 → v2 fills the non-pointer v1 quantities with "0" and changes nothing else', () => {
    fc.assert(
      fc.property(
        hpaArbitrary(
          fc.oneof(exactMetricSpec, objectAverageValueSpec),
          fc.oneof(exactMetricStatus, zeroFilledMetricStatus),
        ),
        (hpa) => {
          const expected = structuredClone(cpuMetricLast(hpa));
          for (const m of expected.spec.metrics ?? []) {
            if (m.object) m.object.target.value ??= "0";
          }
          for (const m of expected.status?.currentMetrics ?? []) {
            if (m.object) m.object.current.value ??= "0";
            if (m.external) m.external.current.value ??= "0";
          }
          assert.deepEqual(convertV1ToV2(convertV2ToV1(hpa)), expected);
        },
      ),
      RUNS,
    );
  });

  test("v1 objects as served (with their annotations) survive v1 → v2 → v1 exactly", () => {
    fc.assert(
      fc.property(
        hpaArbitrary(
          fc.oneof(exactMetricSpec, objectAverageValueSpec),
          fc.oneof(exactMetricStatus, zeroFilledMetricStatus),
        ),
        (hpa) => {
          const v1 = convertV2ToV1(hpa);
          assert.deepEqual(convertV2ToV1(convertV1ToV2(v1)), v1);
        },
      ),
      RUNS,
    );
  });

  test("hand-written v1 objects survive v1 → v2 → v1; only the implicit 80 % target and the CPU status annotation appear", () => {
    const v1Arbitrary = fc
      .record({
        metadata: fc
          .record({
            name: dnsName,
            annotations: opt(
              fc.dictionary(
                dnsName.map((k) => `example.com/${k}`),
                text,
                { minKeys: 1, maxKeys: 2 },
              ),
            ),
          })
          .map(compact),
        spec: fc
          .record({
            scaleTargetRef: ref,
            minReplicas: opt(fc.integer({ min: 1, max: 10 })),
            maxReplicas: fc.integer({ min: 1, max: 100 }),
            targetCPUUtilizationPercentage: opt(fc.integer({ min: 1, max: 100 })),
          })
          .map(compact),
        status: opt(
          fc
            .record({
              observedGeneration: opt(fc.integer({ min: 1, max: 100 })),
              lastScaleTime: opt(time),
              currentReplicas: fc.integer({ min: 0, max: 100 }),
              desiredReplicas: fc.integer({ min: 0, max: 100 }),
              currentCPUUtilizationPercentage: opt(fc.integer({ min: 0, max: 300 })),
            })
            .map(compact),
        ),
      })
      .map((h) =>
        plain(
          compact({
            apiVersion: "autoscaling/v1" as const,
            kind: "HorizontalPodAutoscaler" as const,
            ...h,
          }) as HorizontalPodAutoscalerV1,
        ),
      );
    fc.assert(
      fc.property(v1Arbitrary, (v1) => {
        const expected = structuredClone(v1);
        expected.spec.targetCPUUtilizationPercentage ??= 80;
        const cpu = v1.status?.currentCPUUtilizationPercentage;
        if (cpu !== undefined) {
          expected.metadata.annotations = {
            ...expected.metadata.annotations,
            [M.currentMetrics]: `[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":${cpu},"currentAverageValue":"0"}}]`,
          };
        }
        assert.deepEqual(convertV2ToV1(convertV1ToV2(v1)), expected);
      }),
      RUNS,
    );
  });

  test("round-trip annotations are JSON with Go's escaping: no raw <, >, &, U+2028, U+2029", () => {
    fc.assert(
      fc.property(hpaArbitrary(exactMetricSpec, exactMetricStatus), (hpa) => {
        const annotations = convertV2ToV1(hpa).metadata.annotations ?? {};
        for (const key of ROUND_TRIP_ANNOTATIONS) {
          const value = annotations[key];
          if (value === undefined) continue;
          assert.doesNotMatch(value, /[<>&\u2028\u2029]/);
          JSON.parse(value);
        }
      }),
      RUNS,
    );
  });

  test("v2beta2 objects with tolerances carried in annotations read back as the v2 object", () => {
    fc.assert(
      fc.property(hpaArbitrary(exactMetricSpec, exactMetricStatus), (hpa) => {
        // What a v2beta2 client sees: no tolerance fields, tolerances in annotations.
        const v2beta2 = structuredClone(hpa) as unknown as Record<string, unknown> &
          HorizontalPodAutoscaler;
        (v2beta2 as { apiVersion: string }).apiVersion = "autoscaling/v2beta2";
        const annotations: Record<string, string> = { ...(hpa.metadata.annotations ?? {}) };
        for (const [direction, key] of [
          ["scaleUp", M.scaleUpTolerance],
          ["scaleDown", M.scaleDownTolerance],
        ] as const) {
          const r = v2beta2.spec.behavior?.[direction];
          if (r?.tolerance !== undefined && r.tolerance !== null) {
            annotations[key] = String(r.tolerance);
            delete r.tolerance;
          }
        }
        if (Object.keys(annotations).length > 0) v2beta2.metadata.annotations = annotations;
        const result = readHorizontalPodAutoscaler(v2beta2);
        assert.ok(result.ok);
        assert.deepEqual(result.value.hpa, hpa);
        assert.deepEqual(result.value.warnings, [DEPRECATION_WARNINGS["autoscaling/v2beta2"]]);
      }),
      RUNS,
    );
  });
});
