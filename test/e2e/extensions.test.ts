// End-to-end: the horizon.dev/ extensions with `horizon up` (in-process, 1 s sync period) and
// the real kubectl: annotate an HPA, watch the effect on the Deployment, the conditions and the
// Events, remove the annotation and see upstream's behaviour return; the apply-time warning for
// an unknown key and the 422 for a malformed value or contradictory ones, as kubectl prints them;
// a fallback on an always-failing metric, and a queue worker scaled to zero and woken again. Without kubectl the
// tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseScenario } from "../../src/sim/scenario.js";
import {
  findKubectls,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlRequired,
  pollUntil,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const DEPLOYMENT = JSON.stringify({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "web",
            image: "registry.k8s.io/hpa-example",
            resources: { requests: { cpu: "200m" } },
          },
        ],
      },
    },
  },
});

// No load: upstream's HPA keeps the Deployment at minReplicas 1, and with no scale-down
// window brings it back there soon after something else scaled it up.
const HPA = JSON.stringify({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
  },
});

const search = findKubectls([]);
const binary = search.binaries[0];
const TIMEOUT = { timeoutMs: 60_000, intervalMs: 200 };

describe("horizon.dev extensions with horizon up and kubectl", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string) =>
    kubectl(ctx, args, stdin === undefined ? {} : { stdin });
  const replicas = async () =>
    Number(
      kubectlOk(
        await run(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]),
        "get deployment",
      ),
    );
  const ableToScale = async () =>
    kubectlOk(
      await run([
        "get",
        "hpa",
        "web",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="AbleToScale")].reason}',
      ]),
      "get hpa",
    );
  const waitReplicas = (want: number, what: string) =>
    pollUntil(what, async () => ((await replicas()) === want ? true : undefined), TIMEOUT);

  before(async () => {
    if (!binary) {
      const why = search.missing.join("; ");
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${why}`);
      console.log(`# skipping the extension e2e tests: ${why}`);
      return;
    }
    server = await startTestServer();
    ctx = server.context(binary);
    kubectlOk(await run(["apply", "-f", "-"], DEPLOYMENT), "apply deployment");
    kubectlOk(await run(["apply", "-f", "-"], HPA), "apply hpa");
    await pollUntil(
      "the HPA's first sync",
      async () => ((await ableToScale()) !== "" ? true : undefined),
      TIMEOUT,
    );
  });
  after(async () => {
    await server?.up.close();
  });

  it("paused-replicas holds the Deployment; removing it lets upstream scale back to 1", async (t) => {
    if (!binary) return t.skip("no kubectl");
    kubectlOk(
      await run(["annotate", "hpa", "web", "horizon.dev/paused-replicas=3"]),
      "annotate paused-replicas",
    );
    await waitReplicas(3, "the hold at 3");
    await pollUntil(
      "AbleToScale Paused",
      async () => ((await ableToScale()) === "Paused" ? true : undefined),
      TIMEOUT,
    );
    const describeOut = kubectlOk(await run(["describe", "hpa", "web"]), "describe hpa");
    assert.match(
      describeOut,
      /AbleToScale\s+False\s+Paused\s+scaling is paused by horizon\.dev\/paused-replicas/,
    );
    kubectlOk(
      await run(["annotate", "hpa", "web", "horizon.dev/paused-replicas-"]),
      "remove annotation",
    );
    await waitReplicas(1, "upstream's scale-down to minReplicas");
    await pollUntil(
      "AbleToScale back to upstream's reasons",
      async () => ((await ableToScale()) !== "Paused" ? true : undefined),
      TIMEOUT,
    );
  });

  it("dry-run: a DryRun event, the scale untouched; without it upstream acts", async (t) => {
    if (!binary) return t.skip("no kubectl");
    kubectlOk(
      await run(["annotate", "hpa", "web", "horizon.dev/dry-run=true"]),
      "annotate dry-run",
    );
    kubectlOk(await run(["scale", "deployment", "web", "--replicas=4"]), "scale to 4");
    const events = await pollUntil(
      "a DryRun event",
      async () => {
        const out = kubectlOk(
          await run(["get", "events", "--field-selector", "reason=DryRun", "-o", "json"]),
          "get events",
        );
        const items = JSON.parse(out).items as { message: string }[];
        return items.length > 0 ? items : undefined;
      },
      TIMEOUT,
    );
    assert.match(events[0]!.message, /would scale from 4 to 1; reason: All metrics below target/);
    assert.equal(await replicas(), 4);
    kubectlOk(await run(["annotate", "hpa", "web", "horizon.dev/dry-run-"]), "remove dry-run");
    await waitReplicas(1, "upstream's scale-down once the dry run ends");
  });

  const eventMessages = async (reason: string) => {
    const out = kubectlOk(
      await run(["get", "events", "--field-selector", `reason=${reason}`, "-o", "json"]),
      "get events",
    );
    return (JSON.parse(out).items as { message: string }[]).map((e) => e.message);
  };
  const waitEvent = (reason: string, pattern: RegExp) =>
    pollUntil(
      `an Event ${reason} matching ${pattern}`,
      async () => (await eventMessages(reason)).find((m) => pattern.test(m)),
      TIMEOUT,
    );
  const condition = async (type: string) =>
    kubectlOk(
      await run([
        "get",
        "hpa",
        "web",
        "-o",
        `jsonpath={.status.conditions[?(@.type=="${type}")].reason}: {.status.conditions[?(@.type=="${type}")].message}`,
      ]),
      "get hpa",
    );

  it("a schedule window open now raises the floor, said in a condition and Events; removed, upstream's again", async (t) => {
    if (!binary) return t.skip("no kubectl");
    // Opened every minute for an hour: open now, whatever the time.
    const schedule = JSON.stringify([{ cron: "* * * * *", duration: "1h", minReplicas: 3 }]);
    kubectlOk(
      await run(["annotate", "hpa", "web", `horizon.dev/schedule=${schedule}`]),
      "annotate schedule",
    );
    await waitReplicas(3, "the scheduled floor of 3");
    // No load: the metrics want 1, the floor holds 3.
    const limited = await pollUntil(
      "ScalingLimited ScheduledMinimum",
      async () => {
        const text = await condition("ScalingLimited");
        return text.startsWith("ScheduledMinimum:") ? text : undefined;
      },
      TIMEOUT,
    );
    assert.match(
      limited,
      /the desired replica count is less than the scheduled minimum replica count 3 \(a window of horizon\.dev\/schedule open until /,
    );
    await waitEvent(
      "ScheduleActive",
      /a window of horizon\.dev\/schedule open until .*: minReplicas is 3 \(spec: 1\)/,
    );
    const describeOut = kubectlOk(await run(["describe", "hpa", "web"]), "describe hpa");
    assert.match(describeOut, /ScalingLimited\s+True\s+ScheduledMinimum/);
    assert.match(describeOut, /ScheduleActive/);
    kubectlOk(await run(["annotate", "hpa", "web", "horizon.dev/schedule-"]), "remove schedule");
    await waitReplicas(1, "upstream's scale-down to minReplicas");
    await waitEvent(
      "ScheduleInactive",
      /horizon\.dev\/schedule was removed: minReplicas is 1 again/,
    );
    await pollUntil(
      "ScalingLimited back to upstream's reasons",
      async () =>
        !(await condition("ScalingLimited")).startsWith("ScheduledMinimum") ? true : undefined,
      TIMEOUT,
    );
  });

  it("a knob: an Override Event and the value in ScalingActive; removed, the flags apply again", async (t) => {
    if (!binary) return t.skip("no kubectl");
    kubectlOk(
      await run(["annotate", "hpa", "web", "horizon.dev/tolerance=0.2"]),
      "annotate tolerance",
    );
    await waitEvent(
      "Override",
      /per-HPA overrides of controller flags: horizon\.dev\/tolerance: --horizontal-pod-autoscaler-tolerance is 0\.2 for this HPA \(controller: 0\.1\)/,
    );
    await pollUntil(
      "ScalingActive names the tolerance",
      async () =>
        (await condition("ScalingActive")).includes(
          "(per-HPA tolerance 0.2: horizon.dev annotations)",
        )
          ? true
          : undefined,
      TIMEOUT,
    );
    kubectlOk(await run(["annotate", "hpa", "web", "horizon.dev/tolerance-"]), "remove tolerance");
    await waitEvent("Override", /no per-HPA overrides any more: the controller's flags apply/);
    await pollUntil(
      "ScalingActive as upstream words it",
      async () => (!(await condition("ScalingActive")).includes("per-HPA") ? true : undefined),
      TIMEOUT,
    );
  });

  it("fallback: a metric that always fails scales to the fallback count; removed, upstream freezes", async (t) => {
    if (!binary) return t.skip("no kubectl");
    const deployment = JSON.parse(DEPLOYMENT);
    deployment.metadata.name = "batch";
    deployment.spec.selector.matchLabels = { app: "batch" };
    deployment.spec.template.metadata.labels = { app: "batch" };
    kubectlOk(
      await run(["apply", "-f", "-"], JSON.stringify(deployment)),
      "apply deployment batch",
    );
    // An External metric with no series: every sync fails it (FailedGetExternalMetric).
    const hpa = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: {
        name: "batch",
        annotations: {
          "horizon.dev/fallback-replicas": "3",
          "horizon.dev/fallback-failure-threshold": "2",
        },
      },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "batch" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: "External",
            external: {
              metric: {
                name: "queue_messages_ready",
                selector: { matchLabels: { queue: "none" } },
              },
              target: { type: "AverageValue", averageValue: "10" },
            },
          },
        ],
      },
    };
    kubectlOk(await run(["apply", "-f", "-"], JSON.stringify(hpa)), "apply hpa batch");
    const batchReplicas = async () =>
      Number(
        kubectlOk(
          await run(["get", "deployment", "batch", "-o", "jsonpath={.spec.replicas}"]),
          "get deployment batch",
        ),
      );
    const scalingActive = async () =>
      kubectlOk(
        await run([
          "get",
          "hpa",
          "batch",
          "-o",
          'jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}',
        ]),
        "get hpa batch",
      );
    await pollUntil(
      "the fallback count 3",
      async () => ((await batchReplicas()) === 3 ? true : undefined),
      TIMEOUT,
    );
    await pollUntil(
      "ScalingActive False FallbackActive",
      async () => ((await scalingActive()) === "FallbackActive" ? true : undefined),
      TIMEOUT,
    );
    await waitEvent(
      "FallbackActive",
      /consecutive syncs with failed metrics \(threshold 2\): fallback to 3 replicas/,
    );
    kubectlOk(
      await run([
        "annotate",
        "hpa",
        "batch",
        "horizon.dev/fallback-replicas-",
        "horizon.dev/fallback-failure-threshold-",
      ]),
      "remove the fallback",
    );
    // Upstream's HPA freezes on a failing metric: the reason is the metric's again, the count stays.
    await pollUntil(
      "ScalingActive as upstream reports a failing metric",
      async () => ((await scalingActive()) === "FailedGetExternalMetric" ? true : undefined),
      TIMEOUT,
    );
    assert.equal(await batchReplicas(), 3);
    kubectlOk(await run(["delete", "hpa", "batch"]), "delete hpa batch");
    kubectlOk(await run(["delete", "deployment", "batch"]), "delete deployment batch");
  });

  it("an unknown horizon.dev key is applied with a warning; a malformed value is refused", async (t) => {
    if (!binary) return t.skip("no kubectl");
    const warned = kubectlOk(
      await run(["annotate", "hpa", "web", "horizon.dev/pause=true"]),
      "annotate unknown key",
    );
    const result = await run(["annotate", "hpa", "web", "horizon.dev/colour=blue"]);
    kubectlOk(result, "annotate another unknown key");
    assert.match(
      result.stderr,
      /Warning: metadata\.annotations\[horizon\.dev\/colour\]: unknown annotation: Horizon ignores it/,
    );
    assert.match(warned, /annotated/);
    const bad = await run(["annotate", "hpa", "web", "horizon.dev/paused=yes"]);
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /metadata\.annotations\[horizon\.dev\/paused\]: Invalid value: "yes": invalid value "yes": must be "true" or "false"/,
    );
    const contradictory = await run([
      "annotate",
      "hpa",
      "web",
      "horizon.dev/paused=true",
      "horizon.dev/dry-run=true",
    ]);
    assert.notEqual(contradictory.code, 0);
    assert.match(
      contradictory.stderr,
      /metadata\.annotations\[horizon\.dev\/dry-run\]: Invalid value: "true": contradicts horizon\.dev\/paused: a paused HPA decides nothing to try/,
    );
    const stored = JSON.parse(kubectlOk(await run(["get", "hpa", "web", "-o", "json"]), "get hpa"));
    assert.equal(stored.metadata.annotations["horizon.dev/paused"], undefined);
    assert.equal(stored.metadata.annotations["horizon.dev/dry-run"], undefined);
  });
});

// A queue whose first messages arrive 40 s after horizon up starts: time enough for the worker
// to be scaled to zero (2 s cooldown) before the first message activates it.
const QUEUE_SCENARIO = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  replicas: 1
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 100m}}
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: queue-to-zero}
spec:
  cluster: {metricsResolution: 1s}
  workloads:
  - target: Deployment/worker
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
  metrics:
    external:
    - name: queue_messages_ready
      selector: {matchLabels: {queue: tasks}}
      servedBy: Deployment/worker
      serviceRatePerPod: 5
      initialLength: 0
      arrivals:
      - {type: step, initial: 0, steps: [{at: 40s, rps: 50}]}
`;

const WORKER_HPA = JSON.stringify({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: {
    name: "worker",
    annotations: {
      "horizon.dev/min-replicas": "0",
      "horizon.dev/cooldown-period": "2s",
      "horizon.dev/activation.queue_messages_ready": "0",
    },
  },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "worker" },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: "External",
        external: {
          metric: { name: "queue_messages_ready", selector: { matchLabels: { queue: "tasks" } } },
          target: { type: "AverageValue", averageValue: "10" },
        },
      },
    ],
  },
});

describe("scale to zero with horizon up and kubectl", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string) =>
    kubectl(ctx, args, stdin === undefined ? {} : { stdin });
  const replicas = async () =>
    Number(
      kubectlOk(
        await run(["get", "deployment", "worker", "-o", "jsonpath={.spec.replicas}"]),
        "get deployment",
      ),
    );
  const scalingActive = async () =>
    kubectlOk(
      await run([
        "get",
        "hpa",
        "worker",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}',
      ]),
      "get hpa",
    );

  before(async () => {
    if (!binary) return;
    const parsed = parseScenario(QUEUE_SCENARIO, { file: "queue-to-zero.yaml", baseDir: "." });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    server = await startTestServer({ scenario: parsed.scenario });
    ctx = server.context(binary);
  });
  after(async () => {
    await server?.up.close();
  });

  it("an idle worker goes to zero after the cooldown, the first messages wake it; removed, upstream's floor of 1", async (t) => {
    if (!binary) return t.skip("no kubectl");
    kubectlOk(await run(["apply", "-f", "-"], WORKER_HPA), "apply hpa");
    await pollUntil(
      "the idle worker scaled to zero",
      async () => ((await replicas()) === 0 ? true : undefined),
      TIMEOUT,
    );
    await pollUntil(
      "ScalingActive False ScaledToZero",
      async () => ((await scalingActive()) === "ScaledToZero" ? true : undefined),
      TIMEOUT,
    );
    // The messages from 40 s: activated to max(1, minReplicas), then upstream's algorithm.
    await pollUntil(
      "activated by the first messages",
      async () => ((await replicas()) >= 1 ? true : undefined),
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const describeOut = kubectlOk(await run(["describe", "hpa", "worker"]), "describe hpa");
    assert.match(
      describeOut,
      /SuccessfulRescale\s+.*New size: 1; reason: activation: queue_messages_ready \d+/,
    );
    kubectlOk(
      await run([
        "annotate",
        "hpa",
        "worker",
        "horizon.dev/min-replicas-",
        "horizon.dev/cooldown-period-",
        "horizon.dev/activation.queue_messages_ready-",
      ]),
      "remove the annotations",
    );
    await pollUntil(
      "upstream's ValidMetricFound",
      async () => ((await scalingActive()) === "ValidMetricFound" ? true : undefined),
      TIMEOUT,
    );
    assert.ok((await replicas()) >= 1, "never below minReplicas 1 again");
  });
});
