// An embedded cluster with every metric source modelled, for the metrics adapter tests and the
// port contract suite: Deployment `web` (2 pods, 40 rps shared: 250m cpu each), a Pods metric
// `http_requests`, an Object metric `requests-per-second` on Service `main-route` (a kind the
// embedded API server serves, so discovery maps it), an External `queue_messages_ready`.
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import type { ScenarioSpec } from "../../src/sim/scenario-types.js";
import { at, scenario, T0, usage, WEB, workloadModel } from "../cluster/builders.js";
import { type Harness, inProcessClient } from "./harness.js";

export function metricSpec(): ScenarioSpec {
  return scenario({
    workloads: [
      workloadModel({
        usage: usage({
          cpu: { baseMilli: 50, milliPerRps: 10, limitMilli: null },
          memory: { baseBytes: 100 * 1024 * 1024, bytesPerRps: 0 },
        }),
        traffic: [{ type: "constant", rps: 40 }],
      }),
    ],
    metrics: {
      pods: [{ name: "http_requests", namespace: "default", workload: WEB, rateWindowMs: 60_000 }],
      object: [
        {
          name: "requests-per-second",
          namespace: "default",
          describedObject: { apiVersion: "v1", kind: "Service", name: "main-route" },
          workload: WEB,
          rateWindowMs: 60_000,
        },
      ],
      external: [
        {
          name: "queue_messages_ready",
          namespace: "default",
          selector: { matchLabels: { queue: "worker_tasks" } },
          arrivals: [{ type: "constant", rps: 10 }],
          servedBy: WEB,
          serviceRatePerPod: 2,
          initialLength: 30,
        },
      ],
    },
  });
}

/** The Deployment `web` with two pods (one container `app`), created through the API. */
export const WEB_DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [{ name: "app", image: "nginx", resources: { requests: { cpu: "100m" } } }],
      },
    },
  },
};

/** The cluster three minutes after `web` was created through the client (pods running, scraped). */
export async function runningCluster(): Promise<Harness> {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(metricSpec()), startTime: T0 });
  const harness = inProcessClient(cluster);
  const created = await harness.client.request({
    method: "POST",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: WEB_DEPLOYMENT,
  });
  if (created.status !== 201) throw new Error(`create web: ${JSON.stringify(created.body)}`);
  cluster.advanceTo(at(180));
  return harness;
}
