// The seed book's custom-metrics walkthrough end to end, in real time with short flags: the
// book's Deployment, Service, ServiceMonitor and HPA applied with real kubectl to `horizon up
// --prometheus` (pods listening on loopback, Debian's Prometheus scraping them through the
// ServiceMonitor, the adapter with the book's rule); about 10 requests/s of real HTTP through the
// Service; `kubectl get --raw` shows each pod's rate from Prometheus; the HPA climbs 1 → 4 → 8 →
// 10 as upstream's legacy scale-up limit allows, and returns to 1 after the (shortened)
// downscale window once the load stops (Prometheus going away is prometheus-up.test.ts').
// The time is the book rule's: rate(...[1m]) needs a minute of load to show the full 10/s and a
// minute without to fall to 0, so the run takes about 2.5 minutes; every wait is bounded so the
// whole test stays within BUDGET_MS, below the runner's 300 s per test file, and a stall fails
// naming the step instead of being cut by the runner.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { Quantity } from "../../src/api/quantity.js";
import { parsePrometheusFlags } from "../../src/cli/up-prometheus.js";
import { prometheusSkip } from "../prometheus/real-prometheus.js";
import {
  fastScenario,
  type KubectlContext,
  kubectl,
  kubectlRequired,
  pollUntil,
  spawnHorizon,
  startTestServer,
  type TestServer,
  whichKubectl,
} from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
/** The book's manifests, as examples/custom-metrics.yaml holds them (its Scenario document is
 * the simulator's, not kubectl's). */
const BOOK = parseAllDocuments(readFileSync(join(ROOT, "examples", "custom-metrics.yaml"), "utf8"))
  .map((d) => d.toJS() as { kind: string })
  .filter((d) => d && d.kind !== "Scenario");
const manifests = (keep: (kind: string) => boolean) =>
  BOOK.filter((d) => keep(d.kind))
    .map((d) => JSON.stringify(d))
    .join("\n");

const kubectlPath = whichKubectl();
const skip =
  prometheusSkip("book-walkthrough") ||
  (kubectlPath || kubectlRequired() ? false : "kubectl not on PATH; skipped outside CI");

/** A /24 of each loopback range of its own, so parallel test processes never share an address. */
function ranges(): { podCidr: string; serviceCidr: string } {
  const a = 66 + Math.floor(Math.random() * 60);
  const b = Math.floor(Math.random() * 256);
  return { podCidr: `127.${a}.${b}.0/24`, serviceCidr: `127.${a + 60}.${b}.0/24` };
}

/** One GET through the Service's ClusterIP, no keep-alive (the docs' wget loop). */
function hit(host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host, port: 80, path: "/", agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

/** `horizon load` (the real CLI, in its own process) in the foreground until stopped. */
function horizonLoad(args: string[]) {
  return spawnHorizon(["load", ...args]);
}

/** Progress of the steps, so a slow run shows where its time went. */
const T0 = Date.now();
const mark = (what: string) =>
  console.log(`# book-walkthrough: ${what} at ${((Date.now() - T0) / 1000).toFixed(1)} s`);
const BUDGET_MS = 270_000;
/** A step's deadline: its own, or what is left of the budget. */
const upTo = (ms: number) => Math.max(1000, Math.min(ms, T0 + BUDGET_MS - Date.now()));

describe("the book's Prometheus walkthrough on horizon up", { skip }, () => {
  let server: TestServer;
  let ctx: KubectlContext;
  before(async () => {
    assert.ok(kubectlPath, "CI=true requires kubectl on PATH");
    const prometheus = parsePrometheusFlags({ prometheus: true, prometheusScrapeInterval: "1s" });
    assert.ok(prometheus.ok && prometheus.value);
    const scenario = fastScenario();
    scenario.spec.controllerFlags = {
      "horizontal-pod-autoscaler-downscale-stabilization": "15s",
    };
    server = await startTestServer({
      scenario,
      prometheus: prometheus.value,
      listeners: true,
      ...ranges(),
      syncPeriodMs: 2000,
    });
    ctx = server.context({ name: "kubectl", path: kubectlPath });
  });
  after(async () => {
    await server?.up.close();
  });

  const replicas = async () => {
    const got = await kubectl(ctx, [
      "get",
      "deployment",
      "sample-app",
      "-o",
      "jsonpath={.spec.replicas}",
    ]);
    return Number(got.stdout);
  };
  const rescales = async () => {
    const got = await kubectl(ctx, [
      "get",
      "events",
      "--field-selector",
      "reason=SuccessfulRescale",
      "-o",
      "json",
    ]);
    const events = JSON.parse(got.stdout).items as {
      message: string;
      metadata: { resourceVersion: string };
    }[];
    // In the order they were recorded (resourceVersions grow).
    return events
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => Number(/New size: (\d+)/.exec(e.message)?.[1]));
  };

  test("10 requests/s from horizon load: the adapter's rate per pod, and the HPA climbs 1 → 4 → 8 → 10 then returns to 1", async () => {
    mark("started");
    // Steps (4) and (5) of the book: the app, its Service and the ServiceMonitor.
    const applied = await kubectl(ctx, ["apply", "-f", "-"], {
      stdin: manifests((kind) => kind !== "HorizontalPodAutoscaler"),
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /servicemonitor.monitoring.coreos.com\/sample-app created/);
    const clusterIP = await pollUntil("the Service's ClusterIP", async () => {
      const got = await kubectl(ctx, [
        "get",
        "service",
        "sample-app",
        "-o",
        "jsonpath={.spec.clusterIP}",
      ]);
      return got.stdout || undefined;
    });
    await pollUntil(
      "a Ready pod behind the Service",
      async () => ((await hit(clusterIP)) === 200 ? true : undefined),
      { timeoutMs: upTo(30_000), intervalMs: 250 },
    );
    mark("a pod answers through the ClusterIP");

    // The book's load generator: about 10 requests/s through the Service, from the real CLI.
    const load = horizonLoad([
      "sample-app",
      "--rps",
      "10",
      "--foreground",
      "--kubeconfig",
      server.up.kubeconfigPath!,
    ]);
    try {
      await pollUntil(
        "horizon load's first progress line",
        () => (/^1s: sent \d+, answered [1-9]/m.test(load.stdout()) ? true : undefined),
        { timeoutMs: upTo(30_000), intervalMs: 100 },
      );
      mark("horizon load answered");
      // The metrics API shows the pod's rate from Prometheus, up to the full 10/s once the
      // rule's one-minute rate window holds only load.
      const item = await pollUntil(
        "kubectl get --raw to show about 10 requests/s for the pod",
        async () => {
          const raw = await kubectl(ctx, [
            "get",
            "--raw",
            "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests?labelSelector=app%3Dsample-app",
          ]);
          if (raw.code !== 0) return undefined;
          const list = JSON.parse(raw.stdout) as {
            items: { describedObject: { name: string }; value: string }[];
          };
          const first = list.items[0];
          return first && Quantity.parse(first.value).asApproximateFloat64() >= 9
            ? first
            : undefined;
        },
        { timeoutMs: upTo(120_000), intervalMs: 1000 },
      );
      mark(`the custom metrics API shows ${item.value} for ${item.describedObject.name}`);
      assert.match(item.describedObject.name, /^sample-app-/);
      assert.ok(Quantity.parse(item.value).asApproximateFloat64() <= 11, item.value);
      // Step (6): the HPA, on a steady rate: the legacy scale-up limit max(2 × current, 4).
      const hpa = await kubectl(ctx, ["apply", "-f", "-"], {
        stdin: manifests((kind) => kind === "HorizontalPodAutoscaler"),
      });
      assert.equal(hpa.code, 0, hpa.stderr);
      await pollUntil("10 replicas", async () => ((await replicas()) === 10 ? true : undefined), {
        timeoutMs: upTo(60_000),
        intervalMs: 1000,
      });
      mark("10 replicas");
    } finally {
      load.child.kill("SIGINT");
    }
    assert.equal(await load.exited, 0, load.stderr());
    assert.match(
      load.stdout(),
      /load on service\/sample-app \(namespace default\) ended after .*: sent \d+, answered [1-9]\d* \(200: /,
    );
    assert.deepEqual((await rescales()).slice(0, 3), [4, 8, 10]);
    await pollUntil(
      "back to 1 replica",
      async () => ((await replicas()) === 1 ? true : undefined),
      { timeoutMs: upTo(120_000), intervalMs: 1000 },
    );
    mark("back to 1 replica");
  });
});
