// Chaos tests of `horizon controller` (issue 40), bounded in time, on loopback, with short
// periods set by flags:
// 1. `horizon up --data-dir` killed with SIGKILL and restarted on its directory: the re-listed
//    Events and statuses are Horizon's own, not another controller's; it keeps scaling.
// 2. Failover: the leader frozen (SIGSTOP) past its lease, a standby takes over, the old one
//    resumed (SIGCONT) writes nothing more and exits; the new leader never takes a write of
//    Horizon's field manager for another controller's (and still tells a real one).
// 3. SIGTERM with --leader-elect while the API server is gone: exit within seconds, ports freed.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LOAD_ANNOTATION } from "../../src/cluster/load.js";
import {
  type ApiFront,
  apiRequest,
  type ControllerProcess,
  isLeaseWrite,
  killAll,
  type RecordedRequest,
  removeDir,
  scenarioFromYaml,
  spawnController,
  startApiFront,
} from "./controller-helpers.js";
import { type HorizonProcess, pollUntil, spawnHorizon } from "./helpers.js";

const HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:port any more. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function deployment(name: string, replicas: number): string {
  return `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - {name: ${name}, image: registry.k8s.io/hpa-example, resources: {requests: {cpu: 200m}}}
---
apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec: {selector: {app: ${name}}, ports: [{port: 80}]}
---`;
}

function hpa(name: string, maxReplicas: number, annotations: Record<string, string>): unknown {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name, namespace: "default", annotations },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
      minReplicas: 1,
      maxReplicas,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        },
      ],
    },
  };
}

function scenarioYaml(name: string, deployments: string, workloads: string[]): string {
  return `${deployments}
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: ${name}}
spec:
  cluster: {metricsResolution: 1s}
  workloads:
${workloads
  .map(
    (w) => `  - target: Deployment/${w}
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
    usage: {cpu: {base: 10m, perRps: 1m}}`,
  )
  .join("\n")}
`;
}

const logText = (p: ControllerProcess) => p.logs.map((l) => JSON.stringify(l)).join("\n");
const foreignWarnings = (p: ControllerProcess) =>
  p.logs.filter((l) => /another controller/.test(String(l.msg)));

// --- 1 and 3: a real `horizon up --data-dir` process, killed and restarted ------------------

interface UpProcess extends HorizonProcess {
  url: string;
  /** When its banner said it serves. */
  readyAt: number;
}

async function startUp(args: { dir: string; port: number; scenario?: string }): Promise<UpProcess> {
  const up = spawnHorizon([
    "up",
    ...(args.scenario ? [args.scenario] : []),
    "--insecure-http",
    "--port",
    String(args.port),
    "--no-controller",
    "--data-dir",
    join(args.dir, "data"),
    "--kubeconfig-out",
    join(args.dir, "kubeconfig"),
    "--dashboard-bind-address",
    "0",
  ]);
  let exitCode: number | null | undefined;
  void up.exited.then((code) => {
    exitCode = code;
  });
  const url = await pollUntil(
    "horizon up's banner",
    () => {
      if (exitCode !== undefined) {
        throw new Error(`horizon up exited (${exitCode}):\n${up.stdout()}\n${up.stderr()}`);
      }
      if (!/^ {2}cluster: .*; store: /m.test(up.stdout())) return undefined;
      return up.stdout().match(/listening on (http:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
    },
    { timeoutMs: 60_000 },
  );
  return { ...up, url, readyAt: Date.now() };
}

async function http(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
}

async function replicasAt(url: string, name: string): Promise<number> {
  const got = await http(url, "GET", `/apis/apps/v1/namespaces/default/deployments/${name}/scale`);
  return (got.body.spec as { replicas: number }).replicas;
}

async function conditionsAt(
  url: string,
  name: string,
): Promise<{ type: string; status: string }[]> {
  const got = await http(url, "GET", `${HPA_PATH}/${name}`);
  return ((got.body.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions ?? []) as { type: string; status: string }[];
}

function controllerFlags(kubeconfig: string, extra: string[]): string[] {
  return [
    "--kubeconfig",
    kubeconfig,
    "--horizontal-pod-autoscaler-sync-period",
    "1s",
    "--horizontal-pod-autoscaler-downscale-stabilization",
    "3s",
    "--metrics-bind-address",
    "127.0.0.1:0",
    "--dashboard-bind-address",
    "127.0.0.1:0",
    "-v",
    "4",
    ...extra,
  ];
}

describe("chaos: horizon up --data-dir killed with SIGKILL and restarted under a running controller", () => {
  const dir = mkdtempSync(join(tmpdir(), "horizon-chaos-"));
  const controllers: ControllerProcess[] = [];
  let up: UpProcess | null = null;
  let port = 0;
  before(async () => {
    port = await freePort();
    const scenario = join(dir, "scenario.yaml");
    writeFileSync(
      scenario,
      scenarioYaml("restart", `${deployment("web", 3)}${deployment("api", 2)}`, ["web", "api"]),
    );
    up = await startUp({ dir, port, scenario });
    // Created through the API, so the server tracks who writes them (managedFields).
    for (const h of [
      hpa("web", 6, { "horizon.dev/downscale-stabilization": "3s" }),
      hpa("api", 4, {}),
    ]) {
      const created = await http(up.url, "POST", HPA_PATH, h);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });
  after(async () => {
    await killAll(controllers);
    up?.child.kill("SIGKILL");
    await up?.exited;
    removeDir(dir);
  });

  it("the re-listed Events and statuses are Horizon's own: no ForeignWriter, no warning, it keeps scaling", async () => {
    const ctl = spawnController(
      "restart",
      controllerFlags(join(dir, "kubeconfig"), ["--leader-elect=false"]),
    );
    controllers.push(ctl);
    // Before the kill: both scaled down (10m of 200m used), each with Horizon's Events.
    await pollUntil(
      "web and api scaled down",
      async () =>
        (await replicasAt(up!.url, "web")) === 1 && (await replicasAt(up!.url, "api")) === 1
          ? true
          : undefined,
      { timeoutMs: 40_000, intervalMs: 200 },
    );
    const events = await http(up!.url, "GET", "/api/v1/namespaces/default/events");
    const hpaEvents = (events.body.items as { involvedObject: { name: string }; reason: string }[])
      .filter((e) => e.reason === "SuccessfulRescale" || e.reason === "Override")
      .map((e) => `${e.involvedObject.name} ${e.reason}`);
    assert.ok(hpaEvents.includes("web SuccessfulRescale"), hpaEvents.join(", "));
    assert.ok(hpaEvents.includes("api SuccessfulRescale"), hpaEvents.join(", "));

    up!.child.kill("SIGKILL");
    assert.equal(await up!.exited, null);
    up = await startUp({ dir, port });
    const restartedAt = up.readyAt;
    const firstDecision = await pollUntil(
      "a decision after the restart",
      () =>
        ctl.logs.find(
          (l) => l.msg === "Proposing desired replicas" && Date.parse(String(l.ts)) > restartedAt,
        ),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // A higher floor after the restart: Horizon (not yielding to itself) scales web up to it.
    const before = await replicasAt(up.url, "web");
    const raised = await http(
      up.url,
      "PATCH",
      `${HPA_PATH}/web`,
      { spec: { minReplicas: 2 } },
      "application/merge-patch+json",
    );
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    await pollUntil(
      "web scaled after the restart",
      async () => ((await replicasAt(up!.url, "web")) > before ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const scaledAt = Date.now();
    console.log(
      `# restart: first decision ${Date.parse(String(firstDecision.ts)) - restartedAt} ms after the restarted server served, web ${before} -> ${await replicasAt(up.url, "web")} ${scaledAt - restartedAt} ms after it`,
    );
    // A few more syncs, then: no HPA marked, no warning (with or without annotations).
    const mark = ctl.logs.length;
    await pollUntil(
      "three more syncs",
      () =>
        ctl.logs.slice(mark).filter((l) => l.msg === "Proposing desired replicas").length >= 6
          ? true
          : undefined,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    for (const name of ["web", "api"]) {
      const conditions = await conditionsAt(up!.url, name);
      const foreign = conditions.filter((c) => c.type === "ForeignWriter");
      assert.deepEqual(foreign, [], `${name}: ${JSON.stringify(foreign)}`);
    }
    assert.deepEqual(foreignWarnings(ctl), [], logText(ctl));
    ctl.kill("SIGTERM");
    assert.equal(await ctl.exited, 0, logText(ctl));
  });

  it("SIGTERM with --leader-elect while the API server is gone: exit 0 within seconds, ports freed", async () => {
    const ctl = spawnController(
      "sigterm",
      controllerFlags(join(dir, "kubeconfig"), ["--leader-elect"]),
    );
    controllers.push(ctl);
    await pollUntil(
      "the controller leading and syncing",
      () => (ctl.logs.some((l) => l.msg === "Proposing desired replicas") ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const urls = ctl.logs
      .filter(
        (l) => l.msg === "serving /metrics, /healthz, /readyz" || l.msg === "serving the dashboard",
      )
      .map((l) => new URL(String(l.url)));
    assert.equal(urls.length, 2, logText(ctl));
    up!.child.kill("SIGKILL");
    assert.equal(await up!.exited, null);
    up = null;
    const signalled = Date.now();
    ctl.kill("SIGTERM");
    const exited = await Promise.race([
      ctl.exited,
      new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 10_000)),
    ]);
    const tookMs = Date.now() - signalled;
    console.log(`# SIGTERM with the API server gone: exit ${exited} after ${tookMs} ms`);
    assert.equal(exited, 0, `${tookMs} ms\n${logText(ctl)}`);
    for (const url of urls) assert.ok(await portFree(Number(url.port)), `${url} still held`);
  });
});

// --- 2: failover, the old leader frozen and resumed ------------------------------------------

function haArgs(front: ApiFront, name: string): string[] {
  return [
    ...controllerFlags(front.kubeconfigFile(name), [
      "--leader-elect",
      "--leader-elect-lease-duration",
      "4s",
      "--leader-elect-renew-deadline",
      "3s",
      "--leader-elect-retry-period",
      "500ms",
    ]),
  ];
}

/** Successful writes of what only a leader may write: scale, HPA status, HPA Events. */
function isLeaderWrite(r: RecordedRequest): boolean {
  if (r.status >= 300) return false;
  if (r.method === "PUT" && (r.path.endsWith("/scale") || r.path.endsWith("/status"))) return true;
  return (
    (r.method === "POST" || r.method === "PATCH") &&
    /^\/api\/v1\/namespaces\/default\/events/.test(r.path)
  );
}

/** PUT of the HPA's status with `userAgent` (a write of another client, as the server sees it). */
async function writeStatusAs(front: ApiFront, userAgent: string, message: string): Promise<number> {
  const got = await apiRequest(front, "GET", `${HPA_PATH}/web`);
  const object = got.body as { status?: { conditions?: { type: string; message: string }[] } };
  const status = object.status ?? {};
  status.conditions = (status.conditions ?? []).map((c) =>
    c.type === "AbleToScale" ? { ...c, message } : c,
  );
  const payload = JSON.stringify({ ...object, status });
  return new Promise((resolve, reject) => {
    const req = request(
      `${front.url}${HPA_PATH}/web/status`,
      {
        method: "PUT",
        ca: front.caCert,
        headers: {
          Authorization: `Bearer ${front.token}`,
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(payload),
          "User-Agent": userAgent,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("chaos: the leader frozen past its lease (SIGSTOP), a standby takes over, the old one resumes (SIGCONT)", () => {
  let front: ApiFront;
  const processes: ControllerProcess[] = [];
  before(async () => {
    front = await startApiFront({
      scenario: scenarioFromYaml(scenarioYaml("failover", deployment("web", 1), ["web"])),
    });
    const created = await apiRequest(
      front,
      "POST",
      HPA_PATH,
      hpa("web", 5, { "horizon.dev/downscale-stabilization": "3s" }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => {
    await killAll(processes);
    await front?.close();
  });

  const holderOf = (r: RecordedRequest) =>
    (r.response as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity ?? "";
  const replicas = () =>
    (front.up.cluster.store.get("Deployment", "default", "web")!.spec as { replicas: number })
      .replicas;

  it("the resumed leader writes nothing and exits; the new leader sees no foreign writer", async () => {
    const byName = new Map<string, ControllerProcess>();
    for (const name of ["ctrl-a", "ctrl-b"]) {
      const p = spawnController(name, haArgs(front, name));
      processes.push(p);
      byName.set(name, p);
    }
    const first = await pollUntil(
      "a leader",
      () => front.requests.find((r) => isLeaseWrite(r) && holderOf(r) !== ""),
      { timeoutMs: 60_000 },
    );
    const leader = byName.get(first.user!)!;
    const standby = byName.get(first.user === "ctrl-a" ? "ctrl-b" : "ctrl-a")!;
    const patch = async (rps: number | null) => {
      const patched = await apiRequest(
        front,
        "PATCH",
        "/api/v1/namespaces/default/services/web",
        {
          metadata: {
            annotations: { [LOAD_ANNOTATION]: rps === null ? null : JSON.stringify({ rps }) },
          },
        },
        "application/merge-patch+json",
      );
      assert.equal(patched.status, 200);
    };
    await patch(400);
    await pollUntil("the leader scaling up", () => (replicas() >= 3 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });

    // Frozen: the load goes, the standby takes the lease and holds the replicas for its
    // stabilization window (3 s from its start), while the old leader's window (its memory from
    // before the freeze) has run out by the time it resumes: it would scale down at once.
    // Frozen between writes: a write already sent when SIGSTOP lands still arrives after
    // SIGCONT (there is no fencing), so the freeze waits for a quiet moment of the leader.
    await pollUntil(
      "a quiet moment of the leader",
      () => {
        const last = front.requests
          .filter((r) => r.user === leader.name && isLeaderWrite(r))
          .at(-1);
        return last && Date.now() - last.receivedAt > 1_500 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    leader.kill("SIGSTOP");
    const stoppedAt = Date.now();
    await patch(null);
    const takeover = await pollUntil(
      "the standby taking the lease",
      () =>
        front.requests.find(
          (r) => isLeaseWrite(r) && r.user === standby.name && holderOf(r) !== "",
        ),
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    await pollUntil("4 s frozen", () => (Date.now() - stoppedAt >= 4_000 ? true : undefined), {
      timeoutMs: 10_000,
    });
    const resumedAt = Date.now();
    let exitedAfterMs = Number.NaN;
    leader.kill("SIGCONT");
    const code = await Promise.race([
      leader.exited.then((exit) => {
        exitedAfterMs = Date.now() - resumedAt;
        return exit;
      }),
      new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 15_000)),
    ]);
    assert.equal(
      code,
      1,
      `the deposed leader exits as kube-controller-manager does\n${logText(leader)}`,
    );
    const deposedWrites = front.requests.filter(
      (r) => r.user === leader.name && r.receivedAt >= resumedAt && isLeaderWrite(r),
    );
    console.log(
      `# failover: takeover ${takeover.receivedAt - stoppedAt} ms after SIGSTOP; ${deposedWrites.length} writes by the deposed leader after SIGCONT, its exit ${exitedAfterMs} ms after it`,
    );
    assert.deepEqual(
      deposedWrites.map(
        (r) => `${r.method} ${r.path} ${r.receivedAt - resumedAt} ms after SIGCONT`,
      ),
      [],
      logText(leader),
    );

    // The new leader's own writes after the takeover; no warning, no ForeignWriter.
    await pollUntil(
      "the new leader syncing",
      () =>
        standby.logs.filter((l) => l.msg === "Proposing desired replicas").length >= 3
          ? true
          : undefined,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.deepEqual(foreignWarnings(standby), [], logText(standby));

    // A status write by Horizon's field manager (another replica's, e.g. a deposed leader's
    // last one in flight) is not another controller's ...
    assert.equal(await writeStatusAs(front, "horizon-controller/v0.1.0", "replica write"), 200);
    const mark = standby.logs.length;
    await pollUntil(
      "three more syncs",
      () =>
        standby.logs.slice(mark).filter((l) => l.msg === "Proposing desired replicas").length >= 3
          ? true
          : undefined,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.deepEqual(foreignWarnings(standby), [], logText(standby));
    const got = await apiRequest(front, "GET", `${HPA_PATH}/web`);
    const conditions = (got.body.status as { conditions: { type: string }[] }).conditions;
    assert.equal(conditions.filter((c) => c.type === "ForeignWriter").length, 0);

    // ... while kube-controller-manager's is.
    assert.equal(
      await writeStatusAs(front, "kube-controller-manager/v1.34.0 (linux/amd64)", "kcm write"),
      200,
    );
    await pollUntil(
      "the foreign writer told",
      () => (foreignWarnings(standby).length > 0 ? true : undefined),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    standby.kill("SIGTERM");
    assert.equal(await standby.exited, 0, logText(standby));
  });
});
