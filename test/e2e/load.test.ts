// End-to-end: `horizon load` against `horizon up` started in-process (HTTPS + bearer token),
// over the Kubernetes API only. The docs' walkthrough: load at the php-apache Service makes
// the HPA scale the Deployment up through the controller; stopping the load scales it down.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../../src/api/types.js";
import { type LoadCommandOptions, loadCommand, parseLoadOptions } from "../../src/cli/load.js";
import { LOAD_ANNOTATION, parseLoadAnnotation } from "../../src/cluster/load.js";
import { pollUntil, startTestServer, type TestServer } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

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
  spec: { selector: { run: "php-apache" }, ports: [{ port: 80 }] },
};

/** A Service whose selector matches nothing (the warning case). */
const LONELY: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "lonely", namespace: "default" },
  spec: { selector: { run: "nobody" }, ports: [{ port: 80 }] },
};

/** The walkthrough's HPA (50% CPU, 1–10), with no scale-down window so the test sees it fall. */
const HPA = setDefaultsHorizontalPodAutoscaler({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "php-apache", namespace: "default" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "php-apache" },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
  },
} as HorizontalPodAutoscaler) as unknown as KubeObject;

interface Captured {
  out: string[];
  err: string[];
}

function capture(): Captured & {
  out: string[];
  err: string[];
  io: Parameters<typeof loadCommand>[2];
} {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

describe("horizon load against horizon up", () => {
  let server: TestServer;
  let kubeconfig: string;
  const annotation = () =>
    server.up.cluster.store.get("Service", "default", "php-apache")?.metadata.annotations?.[
      LOAD_ANNOTATION
    ];
  const specReplicas = () =>
    (
      server.up.cluster.store.get("Deployment", "default", "php-apache")!.spec as {
        replicas: number;
      }
    ).replicas;
  const load = (
    options: LoadCommandOptions,
    extra: Partial<Parameters<typeof loadCommand>[2]> = {},
  ) => {
    const c = capture();
    const done = loadCommand("php-apache", { kubeconfig, ...options }, { ...c.io, ...extra });
    return { ...c, done };
  };

  before(async () => {
    server = await startTestServer();
    kubeconfig = server.up.kubeconfigPath!;
    server.up.cluster.create(PHP_APACHE);
    server.up.cluster.create(SERVICE);
    server.up.cluster.create(LONELY);
    server.up.cluster.create(HPA);
    server.up.driver.catchUp();
  });
  after(async () => {
    await server?.up.close();
  });

  it("no load: the HPA holds the Deployment at minReplicas", async () => {
    await pollUntil(
      "a first HPA status",
      () => {
        const hpa = server.up.cluster.store.get("HorizontalPodAutoscaler", "default", "php-apache");
        return (hpa?.status as { currentMetrics?: unknown[] } | undefined)?.currentMetrics
          ? true
          : undefined;
      },
      { timeoutMs: 15_000 },
    );
    assert.equal(specReplicas(), 1);
  });

  it("--rps sets the annotation; the controller scales up; --stop removes it; it scales down", async () => {
    const started = load({ rps: "300" });
    assert.equal(await started.done, 0, started.err.join("\n"));
    assert.deepEqual(started.out, [
      "load on service/php-apache (namespace default): 300 rps until stopped (horizon load php-apache --stop)",
    ]);
    assert.deepEqual(started.err, []);
    assert.deepEqual(parseLoadAnnotation(annotation()!), {
      ok: true,
      load: { rps: 300, untilMs: null },
    });
    // 1 pod × 200m: 305m of CPU is 152% of the request against a 50% target.
    const up = await pollUntil(
      "the HPA scaling php-apache up",
      () => (specReplicas() > 1 ? specReplicas() : undefined),
      { timeoutMs: 20_000 },
    );
    assert.ok(up >= 2);
    assert.ok(
      server.up.cluster.snapshot({
        namespace: "default",
        kind: "Deployment",
        name: "php-apache",
      }).demandRps === 300,
    );

    const stopped = load({ stop: true });
    assert.equal(await stopped.done, 0, stopped.err.join("\n"));
    assert.deepEqual(stopped.out, ["load on service/php-apache (namespace default) stopped"]);
    assert.equal(annotation(), undefined);
    await pollUntil(
      "the HPA scaling php-apache back to 1",
      () => (specReplicas() === 1 ? true : undefined),
      { timeoutMs: 20_000 },
    );
  });

  it("--for: progress until it ends by itself, then the annotation is gone", async () => {
    // Progress every 100 ms: at least two lines in the 1.5 s even when the machine is loaded
    // (the patch before the loop, or a stalled timer, can take a good part of it).
    const run = load({ rps: "40", for: "1500ms" }, { progressEveryMs: 100 });
    await pollUntil("the annotation", () => annotation());
    const value = parseLoadAnnotation(annotation()!);
    assert.ok(value.ok && value.load.rps === 40 && value.load.untilMs !== null);
    assert.equal(await run.done, 0, run.err.join("\n"));
    assert.equal(annotation(), undefined);
    assert.match(
      run.out[0]!,
      /^load on service\/php-apache \(namespace default\): 40 rps for 1\.5s, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(Ctrl-C stops it\)$/,
    );
    const progress = run.out.slice(1, -1);
    assert.ok(progress.length >= 2, run.out.join("\n"));
    for (const line of progress) assert.match(line, /^php-apache: 40 rps, [12]s left$/);
    assert.equal(run.out.at(-1), "load on service/php-apache (namespace default) ended after 1.5s");
  });

  it("Ctrl-C (the abort signal) during --for removes the load at once", async () => {
    const controller = new AbortController();
    const run = load({ rps: "300", for: "10m" }, { signal: controller.signal });
    await pollUntil("the annotation", () => annotation());
    await pollUntil("the scale-up", () => (specReplicas() > 1 ? true : undefined), {
      timeoutMs: 20_000,
    });
    controller.abort();
    assert.equal(await run.done, 0, run.err.join("\n"));
    assert.equal(annotation(), undefined);
    assert.match(
      run.out.at(-1)!,
      /^interrupted: load on service\/php-apache \(namespace default\) stopped after \d+s$/,
    );
    await pollUntil(
      "the scale-down after Ctrl-C",
      () => (specReplicas() === 1 ? true : undefined),
      { timeoutMs: 20_000 },
    );
  });

  it("a load replaced by someone else is left in place at the end of --for", async () => {
    // 3 s: room for the other load's patch to land first on a loaded machine.
    const run = load({ rps: "5", for: "3s" }, { progressEveryMs: 60_000 });
    await pollUntil("the first annotation", () => annotation());
    const other = load({ rps: "7" });
    assert.equal(await other.done, 0);
    assert.equal(await run.done, 0);
    assert.deepEqual(parseLoadAnnotation(annotation()!), {
      ok: true,
      load: { rps: 7, untilMs: null },
    });
    assert.deepEqual(run.err, [
      "service/php-apache (namespace default) carries another load now (set by someone else); leaving it",
    ]);
    assert.equal(await load({ rps: "0" }).done, 0);
    assert.equal(annotation(), undefined);
  });

  it("a Service that selects no pods gets the load, with a warning", async () => {
    const c = capture();
    const code = await loadCommand("lonely", { kubeconfig, rps: "10" }, c.io);
    assert.equal(code, 0);
    assert.deepEqual(c.err, [
      "Warning: service/lonely selects no pods (run=nobody) yet: its load reaches the workloads whose pods it selects once they exist",
    ]);
    assert.equal(await loadCommand("lonely", { kubeconfig, stop: true }, capture().io), 0);
  });

  it("a missing --kubeconfig: exit 1, the one loader's error naming the file", async () => {
    const c = capture();
    const missing = `${kubeconfig}.missing`;
    assert.equal(await loadCommand("php-apache", { kubeconfig: missing, rps: "10" }, c.io), 1);
    assert.deepEqual(c.err, [
      `error: cannot load the kubeconfig: --kubeconfig ${missing}: no such file`,
    ]);
  });

  it("a Service that does not exist: exit 1, kubectl's NotFound text", async () => {
    const c = capture();
    const code = await loadCommand("nope", { kubeconfig, rps: "10" }, c.io);
    assert.equal(code, 1);
    assert.deepEqual(c.err, ['Error from server (NotFound): services "nope" not found']);
    const other = capture();
    assert.equal(
      await loadCommand("php-apache", { kubeconfig, rps: "10", namespace: "elsewhere" }, other.io),
      1,
    );
    assert.deepEqual(other.err, ['Error from server (NotFound): services "php-apache" not found']);
  });

  describe("as a process (node --import tsx src/cli/main.ts load ...)", () => {
    function horizon(args: string[]) {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(ROOT, "src", "cli", "main.ts"), "load", ...args],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr += c;
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      return { child, exited, stdout: () => stdout, stderr: () => stderr };
    }

    const refusals = [
      {
        name: "--rps that is not a number: exit 2",
        args: ["php-apache", "--rps", "lots"],
        code: 2,
        stderr: /^error: --rps: must be a number of requests per second >= 0, got "lots"\n$/,
      },
      {
        name: "--for that is not a Go duration: exit 2",
        args: ["php-apache", "--rps", "5", "--for", "5 minutes"],
        code: 2,
        // The parser's own words (Go's time.ParseDuration), after the flag's name.
        stderr: /^error: --for: time: [^\n]*"5 minutes"[^\n]*\n$/,
      },
      {
        name: "a Service that does not exist: exit 1",
        args: ["ghost", "--rps", "5"],
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

    it("SIGINT during --for removes the load and exits 0", async () => {
      const run = horizon(["php-apache", "--rps", "20", "--for", "5m", "--kubeconfig", kubeconfig]);
      try {
        await pollUntil(
          "the start line",
          () => (/Ctrl-C stops it/.test(run.stdout()) ? true : undefined),
          {
            timeoutMs: 15_000,
          },
        );
        assert.ok(annotation());
      } finally {
        run.child.kill("SIGINT");
      }
      assert.equal(await run.exited, 0, run.stderr());
      assert.equal(annotation(), undefined);
      assert.match(
        run.stdout(),
        /^interrupted: load on service\/php-apache \(namespace default\) stopped after \d+s$/m,
      );
    });
  });
});

describe("horizon load flags", () => {
  const cases = [
    {
      name: "--rps and --for",
      flags: { rps: "50", for: "1m30s" },
      plan: { action: "set", rps: 50, durationMs: 90_000 },
    },
    {
      name: "fractional --rps, no --for",
      flags: { rps: "2.5" },
      plan: { action: "set", rps: 2.5, durationMs: null },
    },
    { name: "--rps 0 stops", flags: { rps: "0" }, plan: { action: "stop", durationMs: null } },
    { name: "--stop", flags: { stop: true }, plan: { action: "stop", durationMs: null } },
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
