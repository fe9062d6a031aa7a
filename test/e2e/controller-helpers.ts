// Helpers of the `horizon controller` end-to-end tests: the embedded API server (`startUp`,
// no in-process controller) behind a recording HTTPS front, controllers started in-process
// (`startController`) or as `node src/cli/main.ts controller` processes, and the checks run
// over what the front recorded (RBAC coverage, who wrote while holding the Lease).
//
// Why a front: `startUp` offers no request hook, and it makes a new CA on every start, so a
// kubeconfig would not survive a restart. The front is the same handler (`createApiHandler`)
// over the same cluster, bound with the same `serveHttp`, on a certificate made once per test:
// a restarted server (same data dir, port and token) keeps its CA, as a real kube-apiserver
// keeps its serving certificate. Requests are recorded with the `Impersonate-User` header each
// process's kubeconfig carries (`as:`), which names the process sending them; the server runs
// them as that user, whom a binding gives full access (`grantImpersonatedUsers`).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { FeatureGates } from "../../src/api/featuregates.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import { kubeconfigObject } from "../../src/apiserver/kubeconfig.js";
import { generateServingCertificate } from "../../src/apiserver/tls.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { parseScenario } from "../../src/sim/scenario.js";
import type { Scenario } from "../../src/sim/scenario-types.js";
import { type RunningUp, startUp } from "../../src/up/up.js";

export const ROOT = join(import.meta.dirname, "..", "..");

/** One request as the front saw it. */
export interface RecordedRequest {
  /** Order of completion. */
  seq: number;
  /** Epoch ms when the answer was ready. */
  at: number;
  /** Epoch ms when the front received the request (before the API server handled it). */
  receivedAt: number;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The Impersonate-User header (which process sent it), or null. */
  user: string | null;
  /** The User-Agent header: `horizon-controller/...` for the controller's requests. */
  userAgent: string;
  status: number;
  /** Parsed request body of writes (leases, scale, status). */
  body?: unknown;
  /** JSON answer of writes. */
  response?: unknown;
}

export interface ApiFront {
  up: RunningUp;
  url: string;
  port: number;
  token: string;
  caCert: string;
  dir: string;
  requests: RecordedRequest[];
  /** Answers a request instead of the server (fault injection); undefined passes it on. */
  intercept: ((req: ApiRequest) => ApiResponse | undefined) | null;
  /** A kubeconfig file for this server, whose requests carry Impersonate-User: `user`. */
  kubeconfigFile(user: string): string;
  /** Closes the server and starts it again on the same port, token, CA and data dir. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The controller tests' app: Deployment `web` (1 replica, each pod requesting 200m of CPU and
 * using `cpu`, ready at once), optionally its Service, and an HPA on 50% CPU, 1 to maxReplicas.
 */
export function webScenario(options: {
  name: string;
  maxReplicas: number;
  cpu: string;
  perRps?: string;
  service?: boolean;
}): Scenario {
  const service = options.service
    ? `
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
---`
    : "";
  return scenarioFromYaml(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: registry.k8s.io/hpa-example, resources: {requests: {cpu: 200m}}}
---${service}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: ${options.maxReplicas}
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
apiVersion: horizon.dev/v1alpha1
kind: Scenario
metadata: {name: ${options.name}}
spec:
  cluster: {metricsResolution: 1s}
  workloads:
  - target: Deployment/web
    pod: {schedulingDelay: 0s, containerStartDelay: 0s, readinessDelay: 0s}
    usage: {cpu: {base: ${options.cpu}, perRps: ${options.perRps ?? "0m"}}}
`);
}

export function scenarioFromYaml(text: string): Scenario {
  const parsed = parseScenario(text, { file: "test.yaml", baseDir: ROOT });
  if (!parsed.ok) throw new Error(`bad test scenario: ${JSON.stringify(parsed.errors)}`);
  return parsed.scenario;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The embedded API server behind a recording front (see the file comment). */
export async function startApiFront(options: {
  scenario: Scenario;
  dataDir?: boolean;
}): Promise<ApiFront> {
  const dir = mkdtempSync(join(tmpdir(), "horizon-ctl-e2e-"));
  const dataDir = options.dataDir ? join(dir, "data") : undefined;
  const token = `test-token-${process.pid}-${Date.now()}`;
  const cert = await generateServingCertificate({ hosts: ["127.0.0.1"] });
  if (!cert.ok) throw new Error(cert.error);
  const requests: RecordedRequest[] = [];
  let seq = 0;

  let up: RunningUp | null = null;
  let server: { port: number; close(): Promise<void> } | null = null;
  let port = 0;
  const open = async () => {
    const started = await startUp({
      scenario: options.scenario,
      port: 0,
      address: "127.0.0.1",
      controller: false,
      kubeconfigOut: null,
      token,
      insecureHttp: false,
      ...(dataDir ? { dataDir } : {}),
    });
    if (!started.ok) throw new Error(`horizon up failed: ${started.error}`);
    const running = started.value;
    const api = createApiHandler({
      cluster: running.cluster,
      featureGates: FeatureGates.fromRecord(
        options.scenario.spec.featureGates,
        FeatureGates.defaults(options.scenario.spec.kubernetesVersion),
      ),
      token,
    });
    await grantImpersonatedUsers(api, token);
    const handler = async (req: ApiRequest): Promise<ApiResponse> => {
      const receivedAt = Date.now();
      running.driver.catchUp();
      const injected = front.intercept?.(req);
      const response = injected ?? (await api(req));
      const record: RecordedRequest = {
        seq: seq++,
        at: Date.now(),
        receivedAt,
        method: req.method,
        path: req.path,
        query: req.query,
        user: req.headers["impersonate-user"] ?? null,
        userAgent: req.headers["user-agent"] ?? "",
        status: response.status,
      };
      if (WRITE_METHODS.has(req.method)) {
        if (req.body) {
          try {
            record.body = JSON.parse(req.body.toString("utf8"));
          } catch {
            record.body = req.body.toString("utf8");
          }
        }
        if ("body" in response) record.response = response.body;
      }
      requests.push(record);
      return response;
    };
    server = await serveHttp(handler, {
      port,
      address: "127.0.0.1",
      tls: { key: cert.value.key, cert: cert.value.cert },
    });
    port = server.port;
    up = running;
  };
  const shut = async () => {
    await server?.close();
    server = null;
    await up?.close();
  };
  await open();

  const front: ApiFront = {
    get up() {
      return up!;
    },
    get url() {
      return `https://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    token,
    caCert: cert.value.caCert,
    dir,
    requests,
    intercept: null,
    kubeconfigFile(user) {
      const doc = kubeconfigObject({
        server: `https://127.0.0.1:${port}`,
        caCert: cert.value.caCert,
        token,
      }) as { users: { user: Record<string, unknown> }[] };
      doc.users[0]!.user.as = user;
      const file = join(dir, `kubeconfig-${user}`);
      writeFileSync(file, stringify(doc, { lineWidth: 0 }), { mode: 0o600 });
      return file;
    },
    async restart() {
      await shut();
      await open();
    },
    async close() {
      await shut();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return front;
}

/**
 * The processes' requests run as their `as:` users (the server impersonates them), each in
 * system:authenticated: a binding of cluster-admin to that group gives them the admin's access
 * (deploy/'s least privilege is checked over the recorded requests and in deploy-rbac.test.ts).
 */
async function grantImpersonatedUsers(
  api: (req: ApiRequest) => Promise<ApiResponse>,
  token: string,
): Promise<void> {
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "e2e-impersonated-controllers" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [
      { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "system:authenticated" },
    ],
  };
  const res = await api({
    method: "POST",
    path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    query: new URLSearchParams(),
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: Buffer.from(JSON.stringify(binding)),
  });
  // 409: kept in the data dir from before a restart.
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`binding the impersonated users: ${res.status} ${JSON.stringify(res)}`);
  }
}

/** Kubernetes API calls from the test itself (no impersonation: not counted as a controller's). */
export async function apiRequest(
  front: ApiFront,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${front.url}${path}`,
      {
        method,
        ca: front.caCert,
        headers: {
          Authorization: `Bearer ${front.token}`,
          Accept: "application/json",
          ...(payload !== undefined
            ? { "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: text === "" ? {} : JSON.parse(text) }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A `horizon controller` child process with its JSON log lines. */
export interface ControllerProcess {
  name: string;
  child: ChildProcess;
  /** stderr JSON lines, parsed (non-JSON lines as {msg: line}). */
  logs: Record<string, unknown>[];
  stdout(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  hasExited(): boolean;
  kill(signal: NodeJS.Signals): void;
}

/** Runs `node --import tsx src/cli/main.ts controller ARGS` (cwd: the repository). */
export function spawnController(name: string, args: readonly string[]): ControllerProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "src", "cli", "main.ts"), "controller", ...args],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, POD_IP: "" } },
  );
  const logs: Record<string, unknown>[] = [];
  let out = "";
  let pending = "";
  let exitedWith: number | string | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      if (line.trim() === "") continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => {
      exitedWith = code ?? signal ?? -1;
      resolve(exitedWith);
    }),
  );
  return {
    name,
    child,
    logs,
    stdout: () => out,
    exited,
    hasExited: () => exitedWith !== undefined,
    kill(signal) {
      if (exitedWith === undefined) child.kill(signal);
    },
  };
}

/** Kills what is still running (SIGKILL) and waits for it: for `after` hooks. */
export async function killAll(processes: readonly ControllerProcess[]): Promise<void> {
  for (const p of processes) p.kill("SIGKILL");
  await Promise.all(processes.map((p) => p.exited));
}

/** A Lease as the front answered a write of it. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  renewTime?: string;
  acquireTime?: string;
  leaseTransitions?: number;
}

export function isLeaseWrite(r: RecordedRequest): boolean {
  return (
    (r.method === "PUT" || r.method === "POST") &&
    r.path.startsWith("/apis/coordination.k8s.io/v1/") &&
    r.status < 300
  );
}

/** The scale and HPA status writes that succeeded: what a leader alone may do. */
export function isControllerWrite(r: RecordedRequest): boolean {
  return (
    r.status < 300 &&
    r.method === "PUT" &&
    (r.path.endsWith("/scale") ||
      (r.path.startsWith("/apis/autoscaling/") && r.path.endsWith("/status")))
  );
}

export function resourceVersionOf(body: unknown): number {
  const rv = (body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
    ?.resourceVersion;
  return rv === undefined ? Number.NaN : Number(rv);
}

/** A request of a controller (the tests' own calls carry no such User-Agent). */
export function isControllerRequest(r: RecordedRequest): boolean {
  return r.userAgent.startsWith("horizon-controller/");
}

/** Removes a temp dir, ignoring errors (cleanup in `after`). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
