// status.qosClass as kube-apiserver computes it at a pod's create (cpu and memory only; the
// pod-level resources decide when set).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type PodQosClass, podQosClass } from "../../src/api/pod-qos.js";

type Resources = { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
const container = (resources?: Resources) => ({ name: "c", image: "i", resources });

describe("podQosClass", () => {
  const cases: { name: string; spec: unknown; want: PodQosClass }[] = [
    { name: "no resources at all", spec: { containers: [container()] }, want: "BestEffort" },
    {
      name: "only resources QoS ignores",
      spec: { containers: [container({ requests: { "ephemeral-storage": "1Gi" } })] },
      want: "BestEffort",
    },
    {
      name: "zero requests count as none",
      spec: { containers: [container({ requests: { cpu: "0", memory: "0" } })] },
      want: "BestEffort",
    },
    {
      name: "a cpu request only",
      spec: { containers: [container({ requests: { cpu: "200m" } })] },
      want: "Burstable",
    },
    {
      name: "limits equal requests for cpu and memory",
      spec: {
        containers: [
          container({
            requests: { cpu: "500m", memory: "128Mi" },
            limits: { cpu: "0.5", memory: "134217728" },
          }),
        ],
      },
      want: "Guaranteed",
    },
    {
      name: "a cpu limit alone is not enough",
      spec: { containers: [container({ requests: { cpu: "1" }, limits: { cpu: "1" } })] },
      want: "Burstable",
    },
    {
      name: "requests below limits",
      spec: {
        containers: [
          container({
            requests: { cpu: "100m", memory: "64Mi" },
            limits: { cpu: "200m", memory: "64Mi" },
          }),
        ],
      },
      want: "Burstable",
    },
    {
      name: "one BestEffort container makes a Guaranteed pod Burstable",
      spec: {
        containers: [
          container({
            requests: { cpu: "1", memory: "1Gi" },
            limits: { cpu: "1", memory: "1Gi" },
          }),
          container(),
        ],
      },
      want: "Burstable",
    },
    {
      name: "init containers count",
      spec: {
        containers: [
          container({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
        ],
        initContainers: [container({ requests: { cpu: "100m" } })],
      },
      want: "Burstable",
    },
    {
      name: "pod-level resources decide over the containers'",
      spec: {
        resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
        containers: [container()],
      },
      want: "Guaranteed",
    },
    {
      name: "pod-level requests without limits",
      spec: {
        resources: { requests: { cpu: "1" } },
        containers: [
          container({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
        ],
      },
      want: "Burstable",
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(podQosClass(c.spec), c.want));
  }
});
