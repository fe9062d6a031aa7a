// End-to-end: `horizon load` sends real HTTP requests to a Service's ClusterIP of `horizon up`
// (listeners on, its own address ranges), found through the Kubernetes API. The docs'
// walkthrough on real traffic: the pods answer, their CPU follows the rate they serve, the
// HPA scales the Deployment up through the controller, and back down once the load ends.
// Also: progress once a second, a background load ended by --stop, SIGINT, and bad input.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../../src/api/types.js";
import { type LoadCommandOptions, loadCommand, parseLoadOptions } from "../../src/cli/load.js";
import { lifecycle, usage, workloadModel } from "../cluster/builders.js";
import {
  fastScenario,
  pollUntil,
  spawnHorizon,
  startTestServer,
  type TestServer,
} from "./helpers.js";
import { get, testRanges } from "./network-helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = [process.execPath, "--import", "tsx", join(ROOT, "src", "cli", "main.ts")];

const PHP_APACHE: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "php-apache", namespace: "default" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { run: "php-apache" } },
    template: {
      metadata: { labels: { run: "php-apache" } },
      spec: {
        containers: [
          {
            name: "php-apache",
            image: "registry.k8s.io/hpa-example",
            // Ports above 1024: the test needs no privilege to bind them.
            ports: [{ containerPort: 8080 }],
            resources: { requests: { cpu: "200m" }, limits: { cpu: "500m" } },
          },
        ],
      },
    },
  },
};

const SERVICE: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "php-apache", namespace: "default", labels: { run: "php-apache" } },
  spec: { selector: { run: "php-apache" }, ports: [{ port: 8080 }] },
};

const HEADLESS: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "headless", namespace: "default" },
  spec: { clusterIP: "None", selector: { run: "php-apache" }, ports: [{ port: 8080 }] },
};

/** The walkthrough's HPA (50% CPU), 1–5, with no scale-down window so the test sees it fall. */
const HPA = setDefaultsHorizontalPodAutoscaler({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "php-apache", namespace: "default" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "php-apache" },
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
} as HorizontalPodAutoscaler) as unknown as KubeObject;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

describe("horizon load: real HTTP through horizon up's ClusterIP", () => {
  let server: TestServer;
  let kubeconfig: string;
  const stateDir = mkdtempSync(join(tmpdir(), "horizon-loads-"));
  const specReplicas = () =>
    (
      server.up.cluster.store.get("Deployment", "default", "php-apache")!.spec as {
        replicas: number;
      }
    ).replicas;
  const clusterIP = () =>
    (server.up.cluster.store.get("Service", "default", "php-apache")!.spec as { clusterIP: string })
      .clusterIP;
  const load = (options: LoadCommandOptions) => {
    const c = capture();
    const done = loadCommand(
      "php-apache",
      { kubeconfig, ...options },
      { ...c.io, stateDir, cli: CLI, progressEveryMs: 1000 },
    );
    return { ...c, done };
  };

  before(async () => {
    // Each request costs the pod 10m of CPU: 40 requests/s on one pod is 405m, 202% of its request.
    const scenario = fastScenario();
    scenario.spec.workloads = [
      workloadModel({
        target: { namespace: "default", kind: "Deployment", name: "php-apache" },
        pod: lifecycle({
          schedulingDelayMs: 0,
          containerStartDelayMs: 0,
          readinessDelayMs: 500,
          terminationGracePeriodMs: 1000,
        }),
        usage: usage({ cpu: { baseMilli: 5, milliPerRps: 10, limitMilli: null } }),
        traffic: [],
      }),
    ];
    server = await startTestServer({ scenario, listeners: true, ...testRanges() });
    kubeconfig = server.up.kubeconfigPath!;
    server.up.cluster.create(PHP_APACHE);
    server.up.cluster.create(SERVICE);
    server.up.cluster.create(HEADLESS);
    server.up.cluster.create(HPA);
    server.up.driver.catchUp();
    await pollUntil("the pod answering through the ClusterIP", async () => {
      const answer = await get(clusterIP(), 8080).catch(() => null);
      return answer?.status === 200 ? true : undefined;
    });
  });
  after(async () => {
    await server?.up.close();
  });

  it("--for: real requests, progress every second; CPU follows them and the HPA scales up, then down", async () => {
    // Room for 100 in flight: on a loaded machine answers can take long enough that 20 would be
    // full, and a request due then counts as an error (this test wants none).
    const run = load({ rps: "40", for: "12s", concurrency: "100" });
    const scaledUp = await pollUntil(
      "the HPA scaling up",
      () => (specReplicas() > 1 ? specReplicas() : undefined),
      {
        timeoutMs: 12_000,
        intervalMs: 200,
      },
    );
    assert.ok(scaledUp > 1);
    assert.equal(await run.done, 0, run.err.join("\n"));
    assert.match(
      run.out[0]!,
      /^load on service\/php-apache \(namespace default\) at http:\/\/127\.\d+\.\d+\.\d+:8080\/: 40 requests\/s for 12s \(at most 100 in flight; Ctrl-C stops it\)$/,
    );
    const progress = run.out.filter((l) => /^\d+s: sent /.test(l));
    assert.ok(progress.length >= 10, run.out.join("\n"));
    assert.match(
      progress[0]!,
      /^1s: sent \d+, answered \d+ \(200: \d+\), errors 0, p50 [\d.]+ms, p99 [\d.]+ms$/,
    );
    const summary = run.out.at(-1)!;
    const sent = Number(/sent (\d+)/.exec(summary)?.[1]);
    // 12 s at 40/s, give or take the timer's last tick.
    assert.ok(sent >= 470 && sent <= 490, summary);
    assert.match(summary, /ended after 12s: sent \d+, answered \d+ \(200: \d+\), errors 0, /);
    // The pods counted what they answered (scrapes of /metrics are not counted).
    let counted = 0;
    for (const pod of server.up.cluster.store.list("Pod", "default")) {
      const ip = (pod.status as { podIP?: string }).podIP;
      if (!ip || pod.metadata.deletionTimestamp) continue;
      const metrics = await get(ip, 8080, "/metrics").catch(() => null);
      const match = /http_requests_total\{method="get",code="200"\} (\d+)/.exec(
        metrics?.body ?? "",
      );
      counted += Number(match?.[1] ?? 0);
    }
    // At most what was sent, plus the one GET of before() (pods that left took their counts).
    assert.ok(counted > 0 && counted <= sent + 1, `pods counted ${counted} of ${sent} + 1`);
    await pollUntil("the HPA back at 1 replica", () => (specReplicas() === 1 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
  });

  it("without --for: a background process; --stop ends it", async () => {
    const started = load({ rps: "10" });
    assert.equal(await started.done, 0, started.err.join("\n"));
    assert.match(
      started.out.join("\n"),
      /10 requests\/s in the background \(pid \d+, log .*default\.php-apache\.log\); stop it with: horizon load php-apache --stop$/,
    );
    const record = JSON.parse(readFileSync(join(stateDir, "default.php-apache.json"), "utf8"));
    const log = record.log as string;
    await pollUntil(
      "progress in the background load's log",
      () => (/^\d+s: sent \d+, answered [1-9]/m.test(readFileSync(log, "utf8")) ? true : undefined),
      { timeoutMs: 20_000 },
    );
    const stopped = load({ stop: true });
    assert.equal(await stopped.done, 0, stopped.err.join("\n"));
    assert.match(
      stopped.out[0]!,
      /^load on service\/php-apache \(namespace default\) stopped \(pid \d+; its log: /,
    );
    assert.equal(existsSync(join(stateDir, "default.php-apache.json")), false);
    assert.throws(() => process.kill(record.pid, 0), "the background process has exited");
    assert.match(readFileSync(log, "utf8"), /^interrupted: load on .* ended after \d+s: sent \d+/m);
    const again = load({ stop: true });
    assert.equal(await again.done, 1);
    assert.match(
      again.err[0]!,
      /^error: no background load on service\/php-apache \(namespace default\)/,
    );
  });

  it("a Service that cannot be loaded: NotFound, headless", async () => {
    const missing = capture();
    assert.equal(
      await loadCommand("ghost", { kubeconfig, rps: "5", for: "1s" }, { ...missing.io, stateDir }),
      1,
    );
    assert.deepEqual(missing.err, ['Error from server (NotFound): services "ghost" not found']);
    const headless = capture();
    assert.equal(
      await loadCommand(
        "headless",
        { kubeconfig, rps: "5", for: "1s" },
        { ...headless.io, stateDir },
      ),
      1,
    );
    assert.match(
      headless.err[0]!,
      /^error: service\/headless \(namespace default\) has no ClusterIP .*headless/,
    );
  });

  describe("as a process (node --import tsx src/cli/main.ts load ...)", () => {
    const horizon = (args: string[]) => spawnHorizon(["load", ...args]);

    const refusals = [
      {
        name: "--rps that is not a number: exit 2",
        args: ["php-apache", "--rps", "lots"],
        code: 2,
        stderr: /^error: --rps: must be a number of requests per second > 0, got "lots"\n$/,
      },
      {
        name: "--concurrency 0: exit 2",
        args: ["php-apache", "--rps", "5", "--concurrency", "0"],
        code: 2,
        stderr: /^error: --concurrency: must be a whole number of requests >= 1, got "0"\n$/,
      },
      {
        name: "a Service that does not exist: exit 1",
        args: ["ghost", "--rps", "5", "--for", "1s"],
        code: 1,
        stderr: /^Error from server \(NotFound\): services "ghost" not found\n$/,
      },
    ];
    for (const c of refusals) {
      it(c.name, async () => {
        const run = horizon([...c.args, "--kubeconfig", kubeconfig]);
        assert.equal(await run.exited, c.code, run.stderr());
        assert.match(run.stderr(), c.stderr);
        assert.equal(run.stdout(), "");
      });
    }

    it("SIGINT during --for ends the load with its summary, exit 0", async () => {
      const run = horizon(["php-apache", "--rps", "10", "--for", "5m", "--kubeconfig", kubeconfig]);
      try {
        await pollUntil(
          "a progress line",
          () => (/^1s: sent/m.test(run.stdout()) ? true : undefined),
          {
            timeoutMs: 15_000,
          },
        );
      } finally {
        run.child.kill("SIGINT");
      }
      assert.equal(await run.exited, 0, run.stderr());
      assert.match(
        run.stdout(),
        /^interrupted: load on service\/php-apache \(namespace default\) ended after \d+s: sent \d+, answered \d+ \(200: \d+\), errors 0, /m,
      );
    });
  });
});

describe("horizon load flags", () => {
  const cases = [
    {
      name: "--rps and --for: in the foreground",
      flags: { rps: "50", for: "1m30s" },
      plan: { action: "run", rps: 50, durationMs: 90_000, concurrency: 100, foreground: true },
    },
    {
      name: "fractional --rps, no --for: in the background",
      flags: { rps: "2.5" },
      plan: { action: "run", rps: 2.5, durationMs: null, concurrency: 100, foreground: false },
    },
    {
      name: "--foreground and --concurrency",
      flags: { rps: "5", foreground: true, concurrency: "8" },
      plan: { action: "run", rps: 5, durationMs: null, concurrency: 8, foreground: true },
    },
    { name: "--rps 0 stops", flags: { rps: "0" }, plan: { action: "stop" } },
    { name: "--stop", flags: { stop: true }, plan: { action: "stop" } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(parseLoadOptions(c.flags), { ok: true, plan: c.plan });
    });
  }
  const errors = [
    { name: "no --rps", flags: {}, error: /^--rps is required/ },
    { name: "negative --rps", flags: { rps: "-5" }, error: /^--rps: must be a number/ },
    { name: "--rps with a unit", flags: { rps: "5/s" }, error: /^--rps: / },
    { name: "empty --rps", flags: { rps: "" }, error: /^--rps: / },
    { name: "--rps Infinity", flags: { rps: "1e999" }, error: /^--rps: / },
    {
      name: "--concurrency 1.5",
      flags: { rps: "5", concurrency: "1.5" },
      error: /^--concurrency: /,
    },
    {
      name: "--for zero",
      flags: { rps: "5", for: "0s" },
      error: /^--for: must be a positive duration/,
    },
    {
      name: "--for negative",
      flags: { rps: "5", for: "-1m" },
      error: /^--for: must be a positive/,
    },
    {
      name: "--for with --stop",
      flags: { stop: true, for: "1m" },
      error: /^--for: has no effect with --stop$/,
    },
    {
      name: "--for with --rps 0",
      flags: { rps: "0", for: "1m" },
      error: /^--for: has no effect with --rps 0$/,
    },
    {
      name: "--rps with --stop",
      flags: { rps: "5", stop: true },
      error: /cannot be used together/,
    },
  ];
  for (const c of errors) {
    it(`refuses ${c.name}`, () => {
      const parsed = parseLoadOptions(c.flags);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.error, c.error);
    });
  }
});
