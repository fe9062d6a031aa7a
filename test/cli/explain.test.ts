// `horizon explain`: from a simulation's JSON (the simulator run on an example scenario), from a
// running controller's /debug/decisions (a server started here), and through the leader's
// Lease on Horizon's embedded API server; the wording of each branch; exit codes.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { CoordinationV1Api, KubeConfig } from "@kubernetes/client-node";
import { controllerDebugAddressOf, renderKubeconfig } from "../../src/apiserver/kubeconfig.js";
import { type ExplainOptions, explainCommand } from "../../src/cli/explain.js";
import { simulateCommand } from "../../src/cli/simulate.js";
import { DecisionStore, decisionRecordOf } from "../../src/controller/decisions.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import {
  DEBUG_ADDRESS_ANNOTATION,
  type RunningObservabilityServer,
  startObservabilityServer,
  syncObserver,
} from "../../src/controller/server.js";
import { explainDecision, formatExplanation } from "../../src/explain/decisions.js";
import type { SyncRecord } from "../../src/sim/timeline.js";
import { type RunningUp, startUp } from "../../src/up/up.js";
import { type ReportInput, syncReport } from "../controller/sync-reports.js";
import { cpuUtilization, t } from "../core/builders.js";

const dir = mkdtempSync(join(tmpdir(), "horizon-explain-"));

/** No KUBECONFIG and an empty home directory unless a test gives them: this machine's are not read. */
const emptyHome = mkdtempSync(join(tmpdir(), "horizon-explain-home-"));

/** The debug address of a controller that was serving and has stopped. */
async function goneControllerUrl(): Promise<string> {
  const closed = await startObservabilityServer({
    metricsAddress: null,
    debugAddress: { host: "127.0.0.1", port: 0 },
    metrics: new ControllerMetrics({ processMetrics: false }),
    decisions: new DecisionStore(),
  });
  const url = closed.debugUrl!;
  await closed.close();
  return url;
}

async function explain(
  target: string,
  options: ExplainOptions,
  stdin?: NodeJS.ReadableStream,
  where: { env?: Record<string, string | undefined>; homeDir?: string } = {},
) {
  let out = "";
  const err: string[] = [];
  const code = await explainCommand(target, options, {
    out: (text) => {
      out += text;
    },
    err: (line) => err.push(line),
    now: () => t(75),
    ...(stdin ? { stdin } : {}),
    env: where.env ?? {},
    homeDir: where.homeDir ?? emptyHome,
  });
  return { code, out, err: err.join("\n") };
}

describe("from a simulation's JSON", () => {
  const file = join(dir, "run.jsonl");
  let syncs: SyncRecord[] = [];

  before(async () => {
    let text = "";
    const code = await simulateCommand(
      "examples/scale-down-policies.yaml",
      // Pinned at v1.34: the sync times below are one period after the HPA is seen.
      {
        set: [],
        compareSet: [],
        assert: [],
        output: "json",
        quiet: true,
        kubernetesVersion: "1.34",
      },
      {
        out: (chunk) => {
          text += chunk;
          return undefined;
        },
        err: () => {},
        interactive: false,
      },
    );
    assert.equal(code, 0);
    writeFileSync(file, text);
    syncs = text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((r) => r.type === "sync" && r.hpa === "default/web");
    assert.ok(syncs.length > 10);
  });

  it("explains the latest sync", async () => {
    const latest = syncs[syncs.length - 1]!;
    const answer = await explain("hpa/web", { fromSimulation: file });
    assert.equal(answer.code, 0, answer.err);
    assert.ok(answer.out.startsWith(`HPA default/web — from the simulation ${file}\n`));
    assert.ok(answer.out.includes(`Latest sync: ${latest.trace.time} (`));
    assert.ok(answer.out.includes("\nWhy:\n"));
    assert.ok(answer.out.includes(`Recent syncs (10 of ${syncs.length}, oldest first):`));
    for (const condition of latest.conditions) {
      assert.match(
        answer.out,
        new RegExp(`\\n  ${condition.type} +${condition.status} +${condition.reason}`),
      );
    }
  });

  it("--at picks the last sync at or before a time: a rate-limited scale-down", async () => {
    const limited = syncs.find((s) => s.scaled && s.trace.limit?.reason === "ScaleDownLimit");
    assert.ok(limited, "the example has a policy-limited scale-down");
    const answer = await explain("hpa/web", {
      fromSimulation: file,
      at: `${limited.t}s`,
      history: "3",
    });
    assert.equal(answer.code, 0, answer.err);
    const l = limited.trace.limit!;
    for (const text of [
      `Scaled from ${limited.currentReplicas} to ${limited.desiredReplicas} replicas (reason: All metrics below target).`,
      `selectPolicy ${l.selectPolicy} takes`,
      `: ${l.policyLimit} (ScaleDownLimit).`,
      "limited by spec.behavior.scaleDown.policies",
      `the tolerance band is [0.9, 1.1]`,
      "Recent syncs (3 of",
      "SuccessfulRescale",
    ]) {
      assert.ok(answer.out.includes(text), `missing ${text} in\n${answer.out}`);
    }
  });

  it("-o json prints the raw decision records up to --at", async () => {
    const target = syncs[5]!;
    const answer = await explain("hpa/web", {
      fromSimulation: file,
      at: String(target.t),
      output: "json",
    });
    assert.equal(answer.code, 0, answer.err);
    const body = JSON.parse(answer.out);
    assert.equal(body.namespace, "default");
    assert.equal(body.name, "web");
    assert.equal(body.decisions.length, 6);
    assert.deepEqual(body.decisions[5].trace, target.trace);
    assert.deepEqual(body.decisions[5].conditions, target.conditions);
    assert.equal(body.decisions[5].t, target.t);
  });

  it("reads standard input with -", async () => {
    const answer = await explain(
      "hpa/web",
      { fromSimulation: "-" },
      Readable.from([readFileSync(file, "utf8")]),
    );
    assert.equal(answer.code, 0, answer.err);
    assert.ok(answer.out.includes("from the simulation on standard input"));
  });

  const failures = [
    {
      name: "unknown HPA",
      target: "hpa/nope",
      options: {},
      // The HPAs the file holds, to pick from.
      err: /^error: no HPA hpa\/nope in namespace default in the simulation \S+run\.jsonl; it holds hpa\/web -n default$/,
    },
    {
      name: "other namespace",
      target: "hpa/web",
      options: { namespace: "shop" },
      err: /^error: no HPA hpa\/web in namespace shop in the simulation \S+run\.jsonl; it holds hpa\/web -n default$/,
    },
    {
      name: "before the first sync",
      target: "hpa/web",
      options: { at: "1s" },
      err: /up to --at 1s/,
    },
  ];
  for (const c of failures) {
    it(`exit 1: ${c.name}`, async () => {
      const answer = await explain(c.target, { fromSimulation: file, ...c.options });
      assert.equal(answer.code, 1);
      assert.match(answer.err, c.err);
      assert.equal(answer.out, "");
    });
  }

  it("exit 2: --at after the end of the run (it would explain the last sync)", async () => {
    for (const at of ["21m", "3600", "2026-01-01T00:20:01Z"]) {
      const answer = await explain("hpa/web", { fromSimulation: file, at });
      assert.equal(answer.code, 2, `${at}: ${answer.err}`);
      assert.equal(
        answer.err,
        `error: --at ${at}: after the end of the simulation (20m0s, 2026-01-01T00:20:00Z)`,
      );
      assert.equal(answer.out, "");
    }
    // The end itself is the last sync's time.
    assert.equal((await explain("hpa/web", { fromSimulation: file, at: "20m" })).code, 0);
  });

  it("exit 1: a missing file, a directory, or not simulation JSON", async () => {
    const missing = await explain("hpa/web", { fromSimulation: join(dir, "nope.jsonl") });
    assert.equal(missing.code, 1);
    assert.match(missing.err, /cannot read .*nope\.jsonl: no such file or directory$/);
    const directory = await explain("hpa/web", { fromSimulation: dir });
    assert.equal(directory.code, 1);
    assert.equal(
      directory.err,
      `error: --from-simulation: cannot read ${dir}: is a directory`,
      "an error naming the flag and the file, not a stack trace",
    );
    const yaml = join(dir, "not.json");
    writeFileSync(yaml, "kind: Scenario\n");
    const wrong = await explain("hpa/web", { fromSimulation: yaml });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /line 1: not JSON/);
  });
});

describe("from a running controller", () => {
  const decisions = new DecisionStore();
  let server: RunningObservabilityServer;

  before(async () => {
    const observe = syncObserver({ decisions });
    observe(syncReport({ replicas: 2, cpuPerPodMilli: 50, seconds: 30 }));
    observe(syncReport({ replicas: 2, cpuPerPodMilli: 100, seconds: 45 }));
    observe(syncReport({ replicas: 4, cpuPerPodMilli: 50, seconds: 60 }));
    server = await startObservabilityServer({
      metricsAddress: { host: "127.0.0.1", port: 0 },
      debugAddress: { host: "127.0.0.1", port: 0 },
      metrics: new ControllerMetrics({ processMetrics: false }),
      decisions,
    });
  });
  after(() => server.close());

  it("explains the latest sync, and the last rescale", async () => {
    const answer = await explain("hpa/web", { address: server.debugUrl! });
    assert.equal(answer.code, 0, answer.err);
    for (const text of [
      `HPA default/web — from the controller at ${server.debugUrl}`,
      "Latest sync: 2026-01-01T12:01:00Z (15s ago)",
      "Did not scale: kept 4 replicas.",
      "The ratio is within the band, so it proposes keeping the current 4 replicas.",
      "Last rescale: 2026-01-01T12:00:45Z (30s ago): 2 → 4 (cpu resource utilization (percentage of request) above target).",
      "Recent syncs (3 of 3, oldest first):",
    ]) {
      assert.ok(answer.out.includes(text), `missing ${text} in\n${answer.out}`);
    }
  });

  it("--at an RFC 3339 time", async () => {
    const answer = await explain("hpa/web", {
      address: server.debugUrl!,
      at: "2026-01-01T12:00:50Z",
    });
    assert.equal(answer.code, 0, answer.err);
    assert.ok(answer.out.includes("Scaled from 2 to 4 replicas"));
    assert.ok(answer.out.includes("proposes ceil(2 × 2 ready pods) = 4"));
  });

  it("exit 1: an HPA without traces, or no controller there", async () => {
    const none = await explain("hpa/api", { address: server.debugUrl! });
    assert.equal(none.code, 1);
    assert.match(none.err, /no decision traces for hpa\/api/);
    const url = await goneControllerUrl();
    const unreachable = await explain("hpa/web", { address: url });
    assert.equal(unreachable.code, 1);
    assert.match(
      unreachable.err,
      /cannot reach the controller at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });
});

describe("through the leader's Lease", () => {
  let up: RunningUp;
  let server: RunningObservabilityServer;
  let kubeconfig = "";
  let leases: CoordinationV1Api;

  before(async () => {
    const started = await startUp({
      port: 0,
      controller: false,
      kubeconfigOut: join(dir, "kubeconfig"),
    });
    if (!started.ok) throw new Error(started.error);
    up = started.value;
    kubeconfig = join(dir, "kubeconfig");
    const kc = new KubeConfig();
    kc.loadFromString(up.kubeconfig);
    leases = kc.makeApiClient(CoordinationV1Api);
    const decisions = new DecisionStore();
    decisions.record(decisionRecordOf(syncReport({ replicas: 2, cpuPerPodMilli: 100 }).result!));
    server = await startObservabilityServer({
      metricsAddress: { host: "127.0.0.1", port: 0 },
      debugAddress: { host: "127.0.0.1", port: 0 },
      metrics: new ControllerMetrics({ processMetrics: false }),
      decisions,
    });
  });
  after(async () => {
    await server.close();
    await up.close();
  });

  const lease = (name: string, annotations: Record<string, string>, holder = "horizon-7d9f_0b1c") =>
    leases.createNamespacedLease({
      namespace: "kube-system",
      body: {
        metadata: { name, annotations },
        spec: { holderIdentity: holder, leaseDurationSeconds: 15 },
      },
    });

  it("finds the leader's debug address on its Lease", async () => {
    await lease("horizon-controller", { [DEBUG_ADDRESS_ANNOTATION]: server.debugUrl! });
    const answer = await explain("hpa/web", { kubeconfig });
    assert.equal(answer.code, 0, answer.err);
    assert.ok(
      answer.out.startsWith(
        `HPA default/web — from the leader horizon-7d9f_0b1c at ${server.debugUrl}\n`,
      ),
    );
    assert.ok(answer.out.includes("Scaled from 2 to 4 replicas"));
  });

  it("exit 1 with the reason: no annotation, no lease, unreachable loopback address", async () => {
    await lease("no-annotation", {});
    const bare = await explain("hpa/web", { kubeconfig, leaseName: "no-annotation" });
    assert.equal(bare.code, 1);
    assert.match(bare.err, /has no horizon\.dev\/debug-address annotation/);
    const missing = await explain("hpa/web", { kubeconfig, leaseNamespace: "default" });
    assert.equal(missing.code, 1);
    assert.match(missing.err, /lease default\/horizon-controller not found/);
    await lease("in-pod", { [DEBUG_ADDRESS_ANNOTATION]: "http://127.0.0.1:1" });
    const inPod = await explain("hpa/web", { kubeconfig, leaseName: "in-pod" });
    assert.equal(inPod.code, 1);
    assert.match(inPod.err, /kubectl port-forward -n kube-system pod\/horizon-7d9f 1:1/);
  });

  it("loads the kubeconfig as every command does (src/kube/config.ts): its errors name the file", async () => {
    const missing = join(dir, "no-such-kubeconfig");
    const answer = await explain("hpa/web", { kubeconfig: missing });
    assert.equal(answer.code, 1);
    assert.match(
      answer.err,
      new RegExp(`cannot load the kubeconfig: --kubeconfig ${missing}: no such file`),
    );
  });
});

describe("through the kubeconfig `horizon up` wrote", () => {
  let server: RunningObservabilityServer;
  // No API server behind it: the address comes from the file alone.
  const written = (debug?: string) => {
    const file = join(dir, `up-kubeconfig-${Math.random().toString(36).slice(2)}`);
    writeFileSync(
      file,
      renderKubeconfig({
        server: "https://127.0.0.1:1",
        token: "t0k",
        insecureSkipTlsVerify: true,
        ...(debug !== undefined ? { controllerDebugAddress: debug } : {}),
      }),
    );
    return file;
  };

  before(async () => {
    const decisions = new DecisionStore();
    decisions.record(decisionRecordOf(syncReport({ replicas: 2, cpuPerPodMilli: 100 }).result!));
    server = await startObservabilityServer({
      metricsAddress: { host: "127.0.0.1", port: 0 },
      debugAddress: { host: "127.0.0.1", port: 0 },
      metrics: new ControllerMetrics({ processMetrics: false }),
      decisions,
    });
  });
  after(() => server.close());

  it("reads the controller's address from the kubeconfig: no Lease needed", async () => {
    const answer = await explain("hpa/web", { kubeconfig: written(server.debugUrl!) });
    assert.equal(answer.code, 0, answer.err);
    assert.ok(
      answer.out.startsWith(
        `HPA default/web — from the controller of \`horizon up\` at ${server.debugUrl}\n`,
      ),
      answer.out,
    );
    assert.ok(answer.out.includes("Scaled from 2 to 4 replicas"));
  });

  it("without --address or --kubeconfig: the controller KUBECONFIG names (as `horizon up` says to export)", async () => {
    const other = renderKubeconfig({ server: "https://127.0.0.1:1" });
    const plain = join(dir, "plain-kubeconfig");
    writeFileSync(plain, other);
    // A list, as clientcmd reads it: the first file naming a controller.
    const env = { KUBECONFIG: `${join(dir, "missing")}:${plain}:${written(server.debugUrl!)}` };
    const answer = await explain("hpa/web", {}, undefined, { env });
    assert.equal(answer.code, 0, answer.err);
    assert.ok(
      answer.out.startsWith(
        `HPA default/web — from the controller of \`horizon up\` at ${server.debugUrl}\n`,
      ),
      answer.out,
    );
  });

  it("then ~/.kube/config, then ~/.horizon/kubeconfig (where `horizon up` writes it)", async () => {
    for (const path of [
      [".kube", "config"],
      [".horizon", "kubeconfig"],
    ]) {
      const home = mkdtempSync(join(tmpdir(), "horizon-explain-home-"));
      mkdirSync(join(home, path[0]!));
      writeFileSync(join(home, ...path), readFileSync(written(server.debugUrl!)));
      const answer = await explain("hpa/web", {}, undefined, { homeDir: home });
      assert.equal(answer.code, 0, answer.err);
      assert.ok(answer.out.includes(`from the controller of \`horizon up\` at ${server.debugUrl}`));
    }
    // KUBECONFIG naming no controller: ~/.horizon/kubeconfig still does.
    const home = mkdtempSync(join(tmpdir(), "horizon-explain-home-"));
    mkdirSync(join(home, ".horizon"));
    writeFileSync(join(home, ".horizon", "kubeconfig"), readFileSync(written(server.debugUrl!)));
    const plain = join(dir, "plain-kubeconfig-2");
    writeFileSync(plain, renderKubeconfig({ server: "https://127.0.0.1:1" }));
    const answer = await explain("hpa/web", {}, undefined, {
      env: { KUBECONFIG: plain },
      homeDir: home,
    });
    assert.equal(answer.code, 0, answer.err);
  });

  it("a controller the implicit kubeconfig names but that is gone: the hint names the file", async () => {
    const url = await goneControllerUrl();
    const file = written(url);
    const answer = await explain("hpa/web", {}, undefined, { env: { KUBECONFIG: file } });
    assert.equal(answer.code, 1);
    assert.ok(
      answer.err.includes(
        `hint: ${file} names the controller of \`horizon up\` at ${url}: is it still running?`,
      ),
      answer.err,
    );
  });

  it("--lease-* flags still look for the Lease", async () => {
    const answer = await explain("hpa/web", {
      kubeconfig: written(server.debugUrl!),
      leaseName: "horizon-controller",
    });
    assert.equal(answer.code, 1);
    assert.match(answer.err, /cannot read lease kube-system\/horizon-controller/);
  });

  it("exit 1 with a hint when that controller is gone", async () => {
    const url = await goneControllerUrl();
    const answer = await explain("hpa/web", { kubeconfig: written(url) });
    assert.equal(answer.code, 1);
    assert.ok(
      answer.err.includes(`cannot reach the controller at ${url}: ECONNREFUSED`),
      answer.err,
    );
    assert.ok(
      answer.err.includes(`names the controller of \`horizon up\` at ${url}: is it still running?`),
      answer.err,
    );
  });

  const notOurs = [
    { name: "no extension", text: renderKubeconfig({ server: "https://127.0.0.1:1" }) },
    { name: "not YAML", text: "{ [" },
    { name: "not a kubeconfig", text: "- 1\n- 2\n" },
    { name: "empty", text: "" },
    {
      name: "the extension on a cluster other than the current context's",
      text: renderKubeconfig({
        server: "https://127.0.0.1:1",
        controllerDebugAddress: "http://127.0.0.1:8085",
      }).replace("current-context: horizon", "current-context: other"),
    },
  ];
  for (const c of notOurs) {
    it(`no address in the kubeconfig: ${c.name}`, () => {
      assert.equal(controllerDebugAddressOf(c.text), null);
    });
  }
  it("the address is the current context's cluster's extension", () => {
    const text = renderKubeconfig({
      server: "https://127.0.0.1:1",
      controllerDebugAddress: "http://127.0.0.1:8085",
    });
    assert.equal(controllerDebugAddressOf(text), "http://127.0.0.1:8085");
  });
});

describe("the recent syncs' table", () => {
  it("a failed sync keeps the replicas: no arrow to the status's old desired count", () => {
    const records = [30, 45].map((seconds) => {
      const report = syncReport({
        replicas: 1,
        seconds,
        observations: [{ kind: "error", error: "metrics API down" }],
      });
      const record = decisionRecordOf(report.result!);
      // A new HPA's status: desiredReplicas 0 until a sync computes one.
      return { ...record, trace: { ...record.trace, desiredReplicas: 0 } };
    });
    assert.equal(records[1]!.trace.outcome, "failed");
    const page = formatExplanation("default", "web", { description: "a test", records }, 10, t(60));
    const rows = page.split("\n").filter((line) => /^\s+\S+Z\s/.test(line));
    assert.equal(rows.length, 2, page);
    for (const row of rows) assert.match(row, /Z\s+1\s+failed\s/, row);
  });
});

describe("explainDecision words each branch", () => {
  const table: { name: string; report: ReportInput; includes: string[] }[] = [
    {
      name: "scale unreadable",
      report: { scaleError: 'deployments.apps "web" not found' },
      includes: [
        'The target\'s scale subresource could not be read: deployments.apps "web" not found.',
      ],
    },
    {
      name: "scaling disabled",
      report: { replicas: 0, minReplicas: 1 },
      includes: ["autoscaling is disabled until something scales the target up (ScalingDisabled)"],
    },
    {
      name: "above maxReplicas",
      report: { replicas: 12, maxReplicas: 10 },
      includes: [
        "The target is above maxReplicas: the HPA moves it to 10 without reading metrics.",
      ],
    },
    {
      name: "every metric failed",
      report: { observations: [{ kind: "error", error: "metrics API down" }] },
      includes: [
        "Metric 1 (Resource): failed with FailedGetResourceMetric:",
        "No metric could be computed, so the HPA does not scale.",
      ],
    },
    {
      name: "legacy scale-down held by the downscale window",
      report: { replicas: 4, cpuPerPodMilli: 10 },
      includes: [
        "the controller's 5m0s downscale window",
        "holds the count at 4 instead of 1 (ScaleDownStabilized)",
      ],
    },
    {
      name: "legacy scale-up limit",
      report: { replicas: 2, cpuPerPodMilli: 500 },
      includes: ["max(2 × 2, 4) = 4 (ScaleUpLimit)", "proposes ceil(10 × 2 ready pods) = 20"],
    },
    {
      name: "maxReplicas caps a scale-up",
      report: { replicas: 4, cpuPerPodMilli: 100, maxReplicas: 5 },
      includes: ["Limits: capped at maxReplicas 5 (TooManyReplicas)."],
    },
    {
      name: "behavior scale-up policy",
      report: {
        replicas: 4,
        cpuPerPodMilli: 200,
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: 0,
            selectPolicy: "Max",
            policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
          },
        },
      },
      includes: [
        "Pods 1 per 60s allows 5 (from 4 at the start of its period)",
        "selectPolicy Max takes the largest change: 5 (ScaleUpLimit)",
        "Desired 5 differs from current 4: the scale is updated.",
      ],
    },
    {
      name: "two metrics: the highest proposal wins",
      report: {
        replicas: 2,
        cpuPerPodMilli: 100,
        metrics: [cpuUtilization(50), cpuUtilization(100)],
      },
      includes: [
        "With several metrics the HPA takes the highest proposal: 4, from cpu resource utilization (percentage of request).",
      ],
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const result = syncReport(c.report).result!;
      const text = explainDecision(decisionRecordOf(result)).join("\n");
      for (const phrase of c.includes)
        assert.ok(text.includes(phrase), `missing ${phrase} in\n${text}`);
    });
  }
});

describe("flags", () => {
  const table: { name: string; target: string; options: ExplainOptions; err: RegExp }[] = [
    {
      name: "not an HPA",
      target: "deployment/web",
      options: {},
      err: /works on HorizontalPodAutoscalers/,
    },
    {
      name: "bad name",
      target: "hpa/Web_1",
      options: {},
      err: /not a valid HorizontalPodAutoscaler name/,
    },
    {
      name: "bad output",
      target: "hpa/web",
      options: { output: "yaml" },
      err: /--output: must be text or json/,
    },
    {
      name: "bad history",
      target: "hpa/web",
      options: { history: "0" },
      err: /--history: must be a positive integer/,
    },
    { name: "bad --at", target: "hpa/web", options: { at: "soon" }, err: /--at: expected seconds/ },
    {
      name: "an offset without a simulation",
      target: "hpa/web",
      options: { at: "5m" },
      err: /offsets are for --from-simulation/,
    },
    {
      name: "a simulation and an address",
      target: "hpa/web",
      options: { fromSimulation: "x.jsonl", address: "http://127.0.0.1:8085" },
      err: /does not go with --address/,
    },
    {
      name: "an address and a kubeconfig",
      target: "hpa/web",
      options: { address: "http://127.0.0.1:8085", kubeconfig: "k" },
      err: /give one/,
    },
    {
      name: "not a URL",
      target: "hpa/web",
      options: { address: "127.0.0.1:8085" },
      err: /--address: expected a URL/,
    },
  ];
  for (const c of table) {
    it(`exit 2: ${c.name}`, async () => {
      const answer = await explain(c.target, c.options);
      assert.equal(answer.code, 2);
      assert.match(answer.err, c.err);
    });
  }

  const cli = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "src/cli/main.ts", "explain", ...args],
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }),
      );
    });

  it("through the CLI: --help exits 0, an unknown flag 2", async () => {
    const help = await cli(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: horizon explain \[options\] <hpa>/);
    assert.match(help.stdout, /--from-simulation <file>/);
    assert.match(help.stdout, /Exit codes: 0 explained, 1 no decision traces/);
    const unknown = await cli(["hpa/web", "--bogus"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option '--bogus'/);
    const choice = await cli(["hpa/web", "-o", "yaml"]);
    assert.equal(choice.code, 2);
  });
});
