// End-to-end, more cases: the REAL kubectl (the PATH dispatcher, kubectl.1.27, kubectl.1.33)
// against `horizon up` in-process, on a scenario with CPU, Pods and External metrics. Cases
// test/e2e/kubectl.test.ts does not cover: wide and all-namespace tables, a JSON round trip,
// top pods, the custom and external metrics APIs through `get --raw`, rollout status, v1
// annotations of Pods/External metrics, describe after the controller acted, and bad input
// (422 field paths, strict unknown fields, stale replace, malformed bodies, no token).
// Without kubectl the kubectl cases skip with the reason, except under CI=true (a failure).
import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { writeKubeconfig } from "../../src/apiserver/kubeconfig.js";
import { parseScenario } from "../../src/sim/scenario.js";
import type { Scenario } from "../../src/sim/scenario-types.js";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

/**
 * web: no model (the scenario's default usage: no CPU at idle), an HPA that scales it 3 → 1. sample-app: 4 requests/s over
 * 2 pods, a Pods metric held at 2 replicas (min = max). worker: a queue of 100 messages that
 * 2 workers keep level. plain: no HPA (kubectl scale). roll: a rollout with a readiness delay.
 */
const SCENARIO = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/hpa-example
        resources: {requests: {cpu: 100m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 0}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: sample-app}
spec:
  replicas: 2
  selector: {matchLabels: {app: sample-app}}
  template:
    metadata: {labels: {app: sample-app}}
    spec:
      containers:
      - name: metrics-provider
        image: luxas/autoscale-demo:v0.1.2
        resources: {requests: {cpu: 100m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: sample-app}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: sample-app}
  minReplicas: 2
  maxReplicas: 2
  metrics:
  - type: Pods
    pods:
      metric: {name: http_requests}
      target: {type: AverageValue, averageValue: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  replicas: 2
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
      - name: worker
        image: example.com/worker:1
        resources: {requests: {cpu: 100m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: worker}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 2
  maxReplicas: 2
  metrics:
  - type: External
    external:
      metric:
        name: queue_messages_ready
        selector: {matchLabels: {queue: worker_tasks}}
      target: {type: AverageValue, averageValue: "30"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: plain}
spec:
  replicas: 1
  selector: {matchLabels: {app: plain}}
  template:
    metadata: {labels: {app: plain}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 100m}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: roll}
spec:
  replicas: 2
  selector: {matchLabels: {app: roll}}
  template:
    metadata: {labels: {app: roll}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: kubectl-more}
spec:
  cluster: {metricsResolution: 1s}
  workloads:
  # web's pods run 10s after the start: the controller syncs (every 1s) several times without
  # metrics first, whatever the load, for the aggregated warning describe shows.
  - target: Deployment/web
    pod: {schedulingDelay: 0s, containerStartDelay: 10s, readinessDelay: 0s}
  - target: Deployment/sample-app
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
    traffic:
    - {type: constant, rps: 4}
  - target: Deployment/worker
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
  - target: Deployment/roll
    pod: {schedulingDelay: 0s, containerStartDelay: 200ms, readinessDelay: 500ms, terminationGracePeriod: 0s}
  metrics:
    pods:
    - {name: http_requests, workload: Deployment/sample-app, rateWindow: 2s}
    external:
    - name: queue_messages_ready
      selector: {matchLabels: {queue: worker_tasks}}
      servedBy: Deployment/worker
      serviceRatePerPod: 5
      initialLength: 100
      arrivals:
      - {type: constant, rps: 10}
`;

function scenario(): Scenario {
  const parsed = parseScenario(SCENARIO, { file: "kubectl-more.yaml", baseDir: "." });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.scenario;
}

/** An HPA in another namespace, for `get hpa -A`. */
const HPA_TEAM_B = `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: team-b}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
`;

/** An HPA nobody's controller changes (its target does not exist), for round trips. */
const HPA_ROUND_TRIP = `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: rt, labels: {test: round-trip}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: nowhere}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 200Mi}}
`;

const INVALID_HPAS = [
  {
    name: "a metric target of 0% and a missing scaleTargetRef kind",
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", name: "web" },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } },
        },
      ],
    },
    expected: [
      'The HorizontalPodAutoscaler "bad-metric" is invalid:',
      "* spec.scaleTargetRef.kind: Required value",
      "* spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    ],
  },
  {
    name: "a scaling policy with a zero period",
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      maxReplicas: 3,
      behavior: { scaleUp: { policies: [{ type: "Pods", value: 4, periodSeconds: 0 }] } },
    },
    expected: [
      'The HorizontalPodAutoscaler "bad-policy" is invalid: spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than zero',
    ],
  },
];

function hpaJson(name: string, spec: object, extra: object = {}): string {
  return JSON.stringify({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name },
    spec: { ...spec, ...extra },
  });
}

/** Lines of a kubectl table, split on its column gaps (two or more spaces). */

/** stderr's lines, without trailing blanks. */
function errLines(stderr: string): string[] {
  return stderr
    .trimEnd()
    .split("\n")
    .map((l) => l.trimEnd());
}

for (const binary of kubectlsUnderTest("kubectl-more")) describeMore(binary);

function describeMore(binary: KubectlBinary): void {
  describe(`${binary.name}: more kubectl against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });
    const specReplicas = (name: string) =>
      (server.up.cluster.store.get("Deployment", "default", name)?.spec as { replicas?: number })
        ?.replicas;

    before(async () => {
      server = await startTestServer({ scenario: scenario() });
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("get hpa -o wide: upstream's HPA columns have no wide-only ones", async () => {
      const rows = tableRows(kubectlOk(await run(["get", "hpa", "-o", "wide"]), "get hpa -o wide"));
      assert.deepEqual(rows[0], [
        "NAME",
        "REFERENCE",
        "TARGETS",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "AGE",
      ]);
      assert.deepEqual(
        rows.slice(1).map((r) => r.slice(0, 2)),
        [
          ["sample-app", "Deployment/sample-app"],
          ["web", "Deployment/web"],
          ["worker", "Deployment/worker"],
        ],
      );
    });

    it("get deployment -o wide: CONTAINERS, IMAGES and SELECTOR", async () => {
      const rows = tableRows(
        kubectlOk(await run(["get", "deployment", "plain", "-o", "wide"]), "get deploy -o wide"),
      );
      assert.deepEqual(rows[0], [
        "NAME",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
      ]);
      assert.deepEqual(rows[1]?.slice(5), ["app", "nginx:1.27", "app=plain"]);
    });

    it("get pod -o yaml and describe pod: a v1.34 pod, admitted and reported as upstream", async () => {
      const name = await pollUntil("a pod of plain", async () => {
        const out = await run(["get", "pods", "-l", "app=plain", "-o", "name"]);
        return out.stdout.split("\n")[0]?.replace("pod/", "") || undefined;
      });
      const pod = await pollUntil(`pod ${name} running`, async () => {
        const got = parseYaml(kubectlOk(await run(["get", "pod", name, "-o", "yaml"]), "get pod"));
        return got.status.phase === "Running" ? got : undefined;
      });
      assert.equal(pod.metadata.generation, 1);
      assert.equal(pod.spec.serviceAccountName, "default");
      assert.match(pod.spec.volumes[0].name, /^kube-api-access-/);
      assert.deepEqual(
        pod.spec.tolerations.map((t: { key: string }) => t.key),
        ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"],
      );
      assert.equal(pod.status.qosClass, "Burstable");
      assert.equal(pod.status.conditions[0].type, "PodReadyToStartContainers");
      const describe = kubectlOk(await run(["describe", "pod", name]), "describe pod");
      assert.match(describe, /QoS Class:\s+Burstable/);
      assert.match(describe, /node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s/);
      assert.match(describe, /kube-api-access-\w+:\s+Type:\s+Projected/);
      // The CA bundle the token volume mounts, published in every namespace.
      const configMaps = tableRows(
        kubectlOk(
          await run([
            "get",
            "configmaps",
            "-A",
            "--field-selector",
            "metadata.name=kube-root-ca.crt",
          ]),
          "get cm",
        ),
      );
      assert.deepEqual(
        configMaps
          .slice(1)
          .map((r) => r[0])
          .sort(),
        ["default", "kube-node-lease", "kube-public", "kube-system"],
      );
    });

    it("get hpa -A: a NAMESPACE column, every namespace's HPAs", async () => {
      kubectlOk(await run(["create", "namespace", "team-b"]), "create namespace");
      kubectlOk(await run(["apply", "-f", "-"], HPA_TEAM_B), "apply team-b hpa");
      const rows = tableRows(kubectlOk(await run(["get", "hpa", "-A"]), "get hpa -A"));
      assert.deepEqual(rows[0], [
        "NAMESPACE",
        "NAME",
        "REFERENCE",
        "TARGETS",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "AGE",
      ]);
      assert.deepEqual(
        rows.slice(1).map((r) => r.slice(0, 3)),
        [
          ["default", "sample-app", "Deployment/sample-app"],
          ["default", "web", "Deployment/web"],
          ["default", "worker", "Deployment/worker"],
          ["team-b", "api", "Deployment/api"],
        ],
      );
      assert.deepEqual(rows[4]?.slice(4, 6), ["2", "6"]);
    });

    it("get hpa -o json → edit → replace -f: the server takes its own output back", async () => {
      kubectlOk(await run(["apply", "-f", "-"], HPA_ROUND_TRIP), "apply rt");
      const before = JSON.parse(
        kubectlOk(await run(["get", "hpa", "rt", "-o", "json"]), "get -o json"),
      );
      assert.equal(before.apiVersion, "autoscaling/v2");
      const edited = structuredClone(before);
      edited.spec.maxReplicas = 5;
      // The controller may write status in between (a 409 a real cluster gives too): retry.
      const replaced = await pollUntil(
        "replace to succeed",
        async () => {
          const latest = JSON.parse(
            kubectlOk(await run(["get", "hpa", "rt", "-o", "json"]), "get"),
          );
          edited.metadata.resourceVersion = latest.metadata.resourceVersion;
          const r = await run(["replace", "-f", "-"], JSON.stringify(edited));
          return r.code === 0 ? r.stdout : undefined;
        },
        { timeoutMs: 15_000 },
      );
      assert.equal(replaced.trim(), "horizontalpodautoscaler.autoscaling/rt replaced");
      const afterReplace = JSON.parse(
        kubectlOk(await run(["get", "hpa", "rt", "-o", "json"]), "get"),
      );
      assert.deepEqual(afterReplace.spec, { ...before.spec, maxReplicas: 5 });
      assert.equal(afterReplace.metadata.uid, before.metadata.uid);
      // v1.34's HPA strategy keeps no generation (the HPAGeneration gate is 1.37's).
      assert.equal(afterReplace.metadata.generation, undefined);
      assert.deepEqual(afterReplace.metadata.labels, { test: "round-trip" });
    });

    it("replace with a stale resourceVersion → 409 Conflict, kubectl's text", async () => {
      const stale = JSON.parse(kubectlOk(await run(["get", "hpa", "rt", "-o", "json"]), "get"));
      // The test's own write makes `stale` stale. A patch carries no resourceVersion, so the
      // controller's status writes cannot make it conflict (a replace here could).
      kubectlOk(
        await run(["patch", "hpa", "rt", "--type=merge", "-p", '{"spec":{"minReplicas":2}}']),
        "patch",
      );
      stale.spec.maxReplicas = 7;
      const result = await run(["replace", "-f", "-"], JSON.stringify(stale));
      assert.equal(result.code, 1, result.stdout);
      assert.deepEqual(errLines(result.stderr), [
        'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling "rt": the object has been modified; please apply your changes to the latest version and try again',
      ]);
      const stored = server.up.cluster.store.get("HorizontalPodAutoscaler", "default", "rt");
      assert.equal((stored!.spec as { maxReplicas: number }).maxReplicas, 5);
      assert.equal((stored!.spec as { minReplicas: number }).minReplicas, 2);
    });

    it("top pods: each pod's CPU and memory once metrics exist", async () => {
      const out = await pollUntil(
        "top pods with every plain pod",
        async () => {
          const r = await run(["top", "pods", "-l", "app=plain"]);
          return r.code === 0 && /^plain-/m.test(r.stdout) ? r.stdout : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 300 },
      );
      const rows = tableRows(out);
      assert.deepEqual(rows[0], ["NAME", "CPU(cores)", "MEMORY(bytes)"]);
      // A workload the scenario lists no model for has the scenario's default usage: no CPU
      // at idle, 64Mi of memory (docs/scenarios.md).
      for (const row of rows.slice(1)) {
        assert.match(row[0]!, /^plain-[0-9a-z]+-[0-9a-z]{5}$/);
        assert.deepEqual(row.slice(1), ["0m", "64Mi"]);
      }
    });

    it("get --raw on custom.metrics.k8s.io/v1beta2: each sample-app pod's request rate", async () => {
      const path = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests";
      const list = await pollUntil(
        "two pods with a rate",
        async () => {
          const r = await run(["get", "--raw", path]);
          if (r.code !== 0) return undefined;
          const body = JSON.parse(r.stdout);
          return body.items?.length === 2 ? body : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 300 },
      );
      assert.equal(list.kind, "MetricValueList");
      assert.equal(list.apiVersion, "custom.metrics.k8s.io/v1beta2");
      for (const item of list.items) {
        assert.equal(item.describedObject.kind, "Pod");
        assert.equal(item.describedObject.apiVersion, "/v1");
        assert.match(item.describedObject.name, /^sample-app-/);
        assert.deepEqual(item.metric, { name: "http_requests", selector: null });
        assert.equal(item.windowSeconds, 2);
        // 4 requests/s over 2 ready pods.
        assert.equal(item.value, "2");
      }
      const missing = await run([
        "get",
        "--raw",
        "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/nope",
      ]);
      assert.equal(missing.code, 1);
      assert.deepEqual(errLines(missing.stderr), [
        "Error from server (NotFound): the server could not find the metric nope for pods",
      ]);
    });

    it("get --raw on external.metrics.k8s.io/v1beta1: the queue's length", async () => {
      const path =
        "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dworker_tasks";
      const body = JSON.parse(kubectlOk(await run(["get", "--raw", path]), "get --raw external"));
      assert.equal(body.kind, "ExternalMetricValueList");
      assert.equal(body.items.length, 1);
      assert.equal(body.items[0].metricName, "queue_messages_ready");
      assert.deepEqual(body.items[0].metricLabels, { queue: "worker_tasks" });
      // 10 messages/s arrive, 2 workers × 5/s drain them: the 100 stay.
      assert.equal(body.items[0].value, "100");
      // No series selected: an empty list, as the reference custom-metrics-apiserver provider
      // and prometheus-adapter answer (it was a 404 in the Stackdriver adapter's wording).
      const none = JSON.parse(
        kubectlOk(
          await run([
            "get",
            "--raw",
            "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dother",
          ]),
          "get --raw external, no series",
        ),
      );
      assert.equal(none.kind, "ExternalMetricValueList");
      assert.deepEqual(none.items, []);
    });

    it("get horizontalpodautoscalers.v1.autoscaling: Pods and External metrics in annotations", async () => {
      const status = await pollUntil(
        "current metrics of both HPAs",
        async () => {
          const r = await run(["get", "horizontalpodautoscalers.v1.autoscaling", "-o", "yaml"]);
          if (r.code !== 0) return undefined;
          const list = parseYaml(r.stdout);
          const byName = new Map(
            list.items.map((h: { metadata: { name: string } }) => [h.metadata.name, h]),
          );
          const sample = byName.get("sample-app") as
            | { metadata: { annotations?: Record<string, string> } }
            | undefined;
          const worker = byName.get("worker") as typeof sample;
          const ready =
            sample?.metadata.annotations?.["autoscaling.alpha.kubernetes.io/current-metrics"] &&
            worker?.metadata.annotations?.["autoscaling.alpha.kubernetes.io/current-metrics"];
          return ready ? { sample: sample, worker: worker, list } : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 300 },
      );
      assert.equal(status.list.items[0].apiVersion, "autoscaling/v1");
      const annotations = (h: { metadata: { annotations?: Record<string, string> } }) =>
        h.metadata.annotations ?? {};
      assert.deepEqual(
        JSON.parse(annotations(status.sample)["autoscaling.alpha.kubernetes.io/metrics"]!),
        [{ type: "Pods", pods: { metricName: "http_requests", targetAverageValue: "1" } }],
      );
      assert.deepEqual(
        JSON.parse(annotations(status.worker)["autoscaling.alpha.kubernetes.io/metrics"]!),
        [
          {
            type: "External",
            external: {
              metricName: "queue_messages_ready",
              metricSelector: { matchLabels: { queue: "worker_tasks" } },
              targetAverageValue: "30",
            },
          },
        ],
      );
      assert.deepEqual(
        JSON.parse(annotations(status.worker)["autoscaling.alpha.kubernetes.io/current-metrics"]!),
        [
          {
            type: "External",
            external: {
              metricName: "queue_messages_ready",
              metricSelector: { matchLabels: { queue: "worker_tasks" } },
              currentValue: "0",
              currentAverageValue: "50",
            },
          },
        ],
      );
      const conditions = JSON.parse(
        annotations(status.worker)["autoscaling.alpha.kubernetes.io/conditions"]!,
      ) as { type: string }[];
      assert.deepEqual(
        conditions.map((c) => c.type),
        ["AbleToScale", "ScalingActive", "ScalingLimited"],
      );
    });

    it("scale deployment plain --replicas 4: 4/4 ready", async () => {
      const out = kubectlOk(
        await run(["scale", "deployment", "plain", "--replicas", "4"]),
        "scale",
      );
      assert.equal(out.trim(), "deployment.apps/plain scaled");
      const rows = await pollUntil(
        "plain 4/4",
        async () => {
          const r = await run(["get", "deployment", "plain"]);
          const table = r.code === 0 ? tableRows(r.stdout) : [];
          return table[1]?.[1] === "4/4" ? table : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      assert.deepEqual(rows[1]?.slice(0, 4), ["plain", "4/4", "4", "4"]);
      assert.equal(specReplicas("plain"), 4);
    });

    it("set image, then rollout status waits for the rollout to finish", async () => {
      kubectlOk(await run(["set", "image", "deployment/roll", "app=nginx:1.28"]), "set image");
      const result = await kubectl(ctx, ["rollout", "status", "deployment/roll", "--timeout=30s"], {
        timeoutMs: 40_000,
      });
      const out = kubectlOk(result, "rollout status");
      assert.equal(out.trimEnd().split("\n").at(-1), 'deployment "roll" successfully rolled out');
      const deployment = server.up.cluster.store.get("Deployment", "default", "roll");
      const status = deployment?.status as { updatedReplicas?: number; readyReplicas?: number };
      assert.equal(status.updatedReplicas, 2);
      assert.equal(status.readyReplicas, 2);
    });

    it("describe hpa after the controller scaled: conditions and events as upstream prints them", async () => {
      const out = await pollUntil(
        "web scaled to 1 and settled",
        async () => {
          const r = await run(["describe", "hpa", "web"]);
          // Every state the assertions below read, each written by a later sync than the last.
          return r.code === 0 &&
            /ReadyForNewScale/.test(r.stdout) &&
            /SuccessfulRescale/.test(r.stdout) &&
            /TooFewReplicas/.test(r.stdout) &&
            /^Deployment pods:\s+1 current \/ 1 desired$/m.test(r.stdout)
            ? r.stdout
            : undefined;
        },
        { timeoutMs: 40_000, intervalMs: 300 },
      );
      const lines = out.split("\n").map((l) => l.trimEnd());
      const at = lines.indexOf("Conditions:");
      assert.ok(at > 0, out);
      // 0% CPU proposes 0 replicas: below minReplicas, so ScalingLimited is True (upstream's
      // normalizeDesiredReplicas: TooFewReplicas).
      assert.deepEqual(lines.slice(at, at + 6), [
        "Conditions:",
        "  Type            Status  Reason            Message",
        "  ----            ------  ------            -------",
        "  AbleToScale     True    ReadyForNewScale  recommended size matches current size",
        "  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
        "  ScalingLimited  True    TooFewReplicas    the desired replica count is less than the minimum replica count",
      ]);
      const events = lines.indexOf("Events:");
      assert.ok(events > at, out);
      // Before the pods run there are no metrics: upstream's warnings, aggregated by the event
      // recorder into one Event with a count ("12s (x4 over 15s)").
      const rows = lines.slice(events + 1, lines.indexOf("", events));
      assert.match(rows[0]!, /^ {2}Type {2,}Reason {2,}Age {2,}From {2,}Message$/);
      assert.match(rows[1]!, /^ {2}---- {2,}------ {2,}---- {2,}---- {2,}-------$/);
      const row =
        /^ {2}(Normal|Warning) {2,}(\w+) {2,}(\d+s(?: \(x\d+ over \d+s\))?) {2,}horizontal-pod-autoscaler {2}(.+)$/;
      const parsed = rows.slice(2).map((line) => {
        const m = row.exec(line);
        assert.ok(m, `not an event row: ${JSON.stringify(line)}\n${out}`);
        return { type: m[1], reason: m[2], age: m[3]!, message: m[4] };
      });
      assert.ok(
        parsed.some(
          (e) =>
            e.type === "Warning" &&
            e.reason === "FailedGetResourceMetric" &&
            /^\d+s \(x\d+ over \d+s\)$/.test(e.age) &&
            e.message ===
              "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
        ),
        out,
      );
      assert.deepEqual(
        parsed.filter((e) => e.type === "Normal").map((e) => [e.reason, e.message]),
        [["SuccessfulRescale", "New size: 1; reason: All metrics below target"]],
      );
      assert.match(out, /^Deployment pods:\s+1 current \/ 1 desired$/m);
      assert.match(
        out,
        /^ {2}resource cpu on pods {2}\(as a percentage of request\):\s+0% \(0\) \/ 50%$/m,
      );
    });

    for (const c of INVALID_HPAS) {
      it(`invalid HPA → 422 with field paths: ${c.name}`, async () => {
        const name = c.expected[0]!.match(/"([^"]+)"/)![1]!;
        const result = await run(["create", "-f", "-"], hpaJson(name, c.spec));
        assert.equal(result.code, 1, result.stdout + result.stderr);
        assert.deepEqual(errLines(result.stderr).slice(-c.expected.length), c.expected);
        assert.equal(
          server.up.cluster.store.get("HorizontalPodAutoscaler", "default", name),
          undefined,
        );
      });
    }

    it("an unknown field with --validate=strict → 400, kubectl's text", async () => {
      const body = hpaJson(
        "strict",
        {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          maxReplicas: 3,
        },
        { bogusField: true },
      );
      const result = await run(["create", "--validate=strict", "-f", "-"], body);
      assert.equal(result.code, 1, result.stdout);
      assert.deepEqual(errLines(result.stderr), [
        'Error from server (BadRequest): error when creating "STDIN": HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.bogusField"',
      ]);
      assert.equal(
        server.up.cluster.store.get("HorizontalPodAutoscaler", "default", "strict"),
        undefined,
      );
    });

    it("an unknown field with --validate=warn: created, with the server's warning", async () => {
      const body = hpaJson(
        "warned",
        {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          maxReplicas: 3,
        },
        { bogusField: true },
      );
      const result = await run(["create", "--validate=warn", "-f", "-"], body);
      assert.equal(
        kubectlOk(result, "create warn").trim(),
        "horizontalpodautoscaler.autoscaling/warned created",
      );
      assert.deepEqual(errLines(result.stderr), ['Warning: unknown field "spec.bogusField"']);
    });

    it("no bearer token (basic auth only) → 401, kubectl asks to log in", async () => {
      // With no credentials at all kubectl prompts on the terminal for a username and password
      // before sending anything; basic auth is what it sends then, and kube-apiserver (1.19+)
      // authenticates no one with it.
      const config = parseYaml(server.up.kubeconfig);
      config.users[0].user = { username: "nobody", password: "nothing" };
      const path = join(server.dir, `no-token-${binary.name}`);
      await writeKubeconfig(path, JSON.stringify(config));
      const result = await kubectl(server.context(binary, path), ["get", "hpa"]);
      assert.equal(result.code, 1);
      assert.equal(
        errLines(result.stderr).at(-1),
        "error: You must be logged in to the server (the server has asked for the client to provide credentials)",
      );
    });
  });
}

describe("malformed request bodies (no kubectl needed)", () => {
  const HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ controller: false });
    const created = await send("POST", HPAS, {
      contentType: "application/json",
      body: hpaJson("web", {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 3,
      }),
    });
    assert.equal(created.status, 201, created.body);
  });
  after(async () => {
    await server?.up.close();
  });

  function send(
    method: string,
    path: string,
    options: { body?: Buffer | string; contentType?: string; token?: string | null } = {},
  ): Promise<{ status: number; body: string }> {
    const config = parseYaml(server.up.kubeconfig);
    const ca = Buffer.from(config.clusters[0].cluster["certificate-authority-data"], "base64");
    const token = options.token === undefined ? server.up.token : options.token;
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.contentType) headers["content-type"] = options.contentType;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${server.up.url}${path}`, { method, ca, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end(options.body);
    });
  }

  const cases = [
    {
      name: "JSON that does not parse",
      method: "POST",
      path: HPAS,
      contentType: "application/json",
      body: Buffer.from('{"apiVersion": "autoscaling/v2", "kind": '),
      message: /^couldn't get version\/kind; json parse error: /,
    },
    {
      name: "JSON that is not an object",
      method: "POST",
      path: HPAS,
      contentType: "application/json",
      body: Buffer.from("[1, 2, 3]"),
      message: /./,
    },
    {
      name: "protobuf without the k8s\\0 envelope",
      method: "POST",
      path: HPAS,
      contentType: "application/vnd.kubernetes.protobuf",
      body: Buffer.from([0x0a, 0x05, 0x01, 0x02]),
      message: /./,
    },
    {
      name: "protobuf: the envelope, then truncated bytes",
      method: "POST",
      path: HPAS,
      contentType: "application/vnd.kubernetes.protobuf",
      body: Buffer.concat([Buffer.from("k8s\0"), Buffer.from([0x0a, 0x7f, 0x0a, 0x03, 0x61])]),
      message: /./,
    },
    {
      name: "a merge patch that does not parse",
      method: "PATCH",
      path: `${HPAS}/web`,
      contentType: "application/merge-patch+json",
      body: Buffer.from("{nope"),
      message: /./,
    },
  ];
  for (const c of cases) {
    it(`${c.name} → 400 BadRequest, and the server keeps answering`, async () => {
      const response = await send(c.method, c.path, { body: c.body, contentType: c.contentType });
      assert.equal(response.status, 400, response.body);
      const status = JSON.parse(response.body);
      assert.equal(status.kind, "Status");
      assert.equal(status.status, "Failure");
      assert.equal(status.reason, "BadRequest");
      assert.equal(status.code, 400);
      assert.match(status.message, c.message);
      const list = await send("GET", HPAS);
      assert.equal(list.status, 200, list.body);
      assert.equal(JSON.parse(list.body).kind, "HorizontalPodAutoscalerList");
    });
  }

  it("no token → 401 Unauthorized Status", async () => {
    const response = await send("GET", HPAS, { token: null });
    assert.equal(response.status, 401);
    assert.deepEqual(JSON.parse(response.body), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
  });
});
