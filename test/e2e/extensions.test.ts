// End-to-end: the horizon.dev/ extensions with `horizon up` (in-process, 1 s sync period) and
// the real kubectl: annotate an HPA, watch the effect on the Deployment, the conditions and the
// Events, remove the annotation and see upstream's behaviour return; the apply-time warning for
// an unknown key and the 422 for a malformed value or contradictory ones, as kubectl prints them. Without kubectl the
// tests skip with the reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  findKubectls,
  type KubectlContext,
  type KubectlResult,
  kubectl,
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

function ok(result: KubectlResult, what: string): string {
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe("horizon.dev extensions with horizon up and kubectl", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string) =>
    kubectl(ctx, args, stdin === undefined ? {} : { stdin });
  const replicas = async () =>
    Number(
      ok(
        await run(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]),
        "get deployment",
      ),
    );
  const ableToScale = async () =>
    ok(
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
    ok(await run(["apply", "-f", "-"], DEPLOYMENT), "apply deployment");
    ok(await run(["apply", "-f", "-"], HPA), "apply hpa");
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
    ok(
      await run(["annotate", "hpa", "web", "horizon.dev/paused-replicas=3"]),
      "annotate paused-replicas",
    );
    await waitReplicas(3, "the hold at 3");
    await pollUntil(
      "AbleToScale Paused",
      async () => ((await ableToScale()) === "Paused" ? true : undefined),
      TIMEOUT,
    );
    const describeOut = ok(await run(["describe", "hpa", "web"]), "describe hpa");
    assert.match(
      describeOut,
      /AbleToScale\s+False\s+Paused\s+scaling is paused by horizon\.dev\/paused-replicas/,
    );
    ok(await run(["annotate", "hpa", "web", "horizon.dev/paused-replicas-"]), "remove annotation");
    await waitReplicas(1, "upstream's scale-down to minReplicas");
    await pollUntil(
      "AbleToScale back to upstream's reasons",
      async () => ((await ableToScale()) !== "Paused" ? true : undefined),
      TIMEOUT,
    );
  });

  it("dry-run: a DryRun event, the scale untouched; without it upstream acts", async (t) => {
    if (!binary) return t.skip("no kubectl");
    ok(await run(["annotate", "hpa", "web", "horizon.dev/dry-run=true"]), "annotate dry-run");
    ok(await run(["scale", "deployment", "web", "--replicas=4"]), "scale to 4");
    const events = await pollUntil(
      "a DryRun event",
      async () => {
        const out = ok(
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
    ok(await run(["annotate", "hpa", "web", "horizon.dev/dry-run-"]), "remove dry-run");
    await waitReplicas(1, "upstream's scale-down once the dry run ends");
  });

  const eventMessages = async (reason: string) => {
    const out = ok(
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
    ok(
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
    ok(
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
    const describeOut = ok(await run(["describe", "hpa", "web"]), "describe hpa");
    assert.match(describeOut, /ScalingLimited\s+True\s+ScheduledMinimum/);
    assert.match(describeOut, /ScheduleActive/);
    ok(await run(["annotate", "hpa", "web", "horizon.dev/schedule-"]), "remove schedule");
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
    ok(await run(["annotate", "hpa", "web", "horizon.dev/tolerance=0.2"]), "annotate tolerance");
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
    ok(await run(["annotate", "hpa", "web", "horizon.dev/tolerance-"]), "remove tolerance");
    await waitEvent("Override", /no per-HPA overrides any more: the controller's flags apply/);
    await pollUntil(
      "ScalingActive as upstream words it",
      async () => (!(await condition("ScalingActive")).includes("per-HPA") ? true : undefined),
      TIMEOUT,
    );
  });

  it("an unknown horizon.dev key is applied with a warning; a malformed value is refused", async (t) => {
    if (!binary) return t.skip("no kubectl");
    const warned = ok(
      await run(["annotate", "hpa", "web", "horizon.dev/pause=true"]),
      "annotate unknown key",
    );
    const result = await run(["annotate", "hpa", "web", "horizon.dev/colour=blue"]);
    ok(result, "annotate another unknown key");
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
    const stored = JSON.parse(ok(await run(["get", "hpa", "web", "-o", "json"]), "get hpa"));
    assert.equal(stored.metadata.annotations["horizon.dev/paused"], undefined);
    assert.equal(stored.metadata.annotations["horizon.dev/dry-run"], undefined);
  });
});
