// End-to-end: horizon.dev/predictive with `horizon up` (in-process, 1 s sync period) and the
// real kubectl: the PredictiveActive condition and its Event as kubectl shows them while the
// model has too little history (a day), a malformed key refused with a 422 naming it, and the
// condition gone with the annotation. Without kubectl the tests skip with the reason, except
// under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
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

const HPA = JSON.stringify({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", annotations: { "horizon.dev/predictive": "true" } },
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
  },
});

const search = findKubectls([]);
const binary = search.binaries[0];
const TIMEOUT = { timeoutMs: 60_000, intervalMs: 200 };

describe("horizon.dev/predictive with horizon up and kubectl", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string) =>
    kubectl(ctx, args, stdin === undefined ? {} : { stdin });
  const condition = async () =>
    kubectlOk(
      await run([
        "get",
        "hpa",
        "web",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="PredictiveActive")].status} {.status.conditions[?(@.type=="PredictiveActive")].reason}: {.status.conditions[?(@.type=="PredictiveActive")].message}',
      ]),
      "get hpa",
    );

  before(async () => {
    if (!binary) {
      const why = search.missing.join("; ");
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${why}`);
      console.log(`# skipping the predictive e2e tests: ${why}`);
      return;
    }
    server = await startTestServer();
    ctx = server.context(binary);
    kubectlOk(await run(["apply", "-f", "-"], DEPLOYMENT), "apply deployment");
    kubectlOk(await run(["apply", "-f", "-"], HPA), "apply hpa");
  });
  after(async () => {
    await server?.up.close();
  });

  it("too little history: PredictiveActive False InsufficientHistory, one Event; bad keys refused; removed, gone", async (t) => {
    if (!binary) return t.skip("no kubectl");
    const text = await pollUntil(
      "the PredictiveActive condition",
      async () => {
        const c = await condition();
        return c.includes("InsufficientHistory") ? c : undefined;
      },
      TIMEOUT,
    );
    assert.match(
      text,
      /^False InsufficientHistory: cpu: \d+s of history, the model needs one full season \(1d\): reactive$/,
    );
    const out = kubectlOk(
      await run(["get", "events", "--field-selector", "reason=PredictiveInactive", "-o", "json"]),
      "get events",
    );
    const events = JSON.parse(out).items as { message: string; count?: number }[];
    // An Event when the reason changes, not one per sync: one for InsufficientHistory (from
    // v1.37 the first sync comes at once, before the pods' metrics, with a reason of its own).
    const insufficient = events.filter((e) => e.message.startsWith("InsufficientHistory: cpu: "));
    assert.equal(insufficient.length, 1, JSON.stringify(events.map((e) => e.message)));
    assert.equal(insufficient[0]!.count ?? 1, 1);
    const reasons = events.map((e) => e.message.split(":")[0]);
    assert.equal(new Set(reasons).size, reasons.length, `one Event per reason: ${reasons}`);

    const bad = await run(["annotate", "hpa", "web", "horizon.dev/predictive-seasons=1d,36h"]);
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /metadata\.annotations\[horizon\.dev\/predictive-seasons\]: Invalid value: "1d,36h": invalid value "1d,36h": each longer season must be a whole multiple of the shortest/,
    );

    kubectlOk(await run(["annotate", "hpa", "web", "horizon.dev/predictive-"]), "remove");
    await pollUntil(
      "the condition gone",
      async () => ((await condition()).trim() === ":" ? true : undefined),
      TIMEOUT,
    );
  });
});
