// `horizon up --data-dir` and @kubernetes/client-node 1.4.0's own informer (makeInformer): the
// server process is killed with SIGKILL and restarted on the same port and directory while an
// informer lists and watches HPAs; objects change after the restart; the informer must end with
// exactly the server's HPAs, each at its resourceVersion. The informer's KubeConfig is loaded
// once, before the kill: the restarted server keeps its CA and token in the data directory (as
// k3s does), so the same credentials and trust keep working.
//
// What the informer does after the restart: client-node's ListWatch stops on a connection
// error (its `error` callbacks run, and the documented pattern restarts it with `start()`),
// then watches again from the resourceVersion of the last event it saw. The restarted store
// keeps no watch history from before the restart (as a restarted kube-apiserver's watch cache
// starts at the current etcd revision), so:
// - when the informer had seen the newest write before the kill, its version is the restarted
//   store's start, the watch resumes there and replays the changes made since: no relist;
// - when writes it had not seen were journaled (a kill in the middle of a burst), its version
//   is older than the start: the watch answers one ERROR event with a 410 Expired Status, the
//   informer clears its version and relists (deleting what the list no longer holds).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import {
  AutoscalingV2Api,
  CoreV1Api,
  KubeConfig,
  type ListWatch,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1Service,
  type V2HorizontalPodAutoscaler,
} from "@kubernetes/client-node";
import { startUp } from "../../src/up/up.js";
import { pollUntil } from "./helpers.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const script = join(root, "src", "cli", "main.ts");
const NS = "default";
const HPAS = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

interface Server {
  child: ChildProcess;
  url: string;
  /** The resourceVersion the restarted store started from (the banner's). */
  startVersion: number;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** `horizon up` over HTTPS in a child process (so it can be killed with SIGKILL). */
async function startServer(dataDir: string, kubeconfig: string, port: number): Promise<Server> {
  const args = ["up", "--port", String(port), "--no-controller", "--data-dir", dataDir];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, ...args, "--kubeconfig-out", kubeconfig],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
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
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const banner = await pollUntil(
    "the server's banner",
    () => {
      if (exitCode !== undefined) {
        throw new Error(`horizon up exited (${exitCode}):\n${stdout}\n${stderr}`);
      }
      const url = stdout.match(/listening on (https:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
      const rv = stdout.match(/resourceVersion (\d+) at start/)?.[1];
      return url && rv ? { url, rv: Number(rv) } : undefined;
    },
    { timeoutMs: 30_000 },
  );
  return { child, exited, url: banner.url, startVersion: banner.rv, stdout: () => stdout };
}

function hpa(name: string, maxReplicas = 5): V2HorizontalPodAutoscaler {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name, namespace: NS },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
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

function service(name: string): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    spec: { ports: [{ port: 80 }] },
  };
}

/** name → resourceVersion. */
type Versions = Map<string, string>;

function versionsOf(items: readonly V2HorizontalPodAutoscaler[]): Versions {
  return new Map(items.map((h) => [h.metadata!.name!, h.metadata!.resourceVersion!]));
}

function sorted(versions: Versions): [string, string][] {
  return [...versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** client-node's informer over the server's HPAs, restarted after each error (its documented pattern). */
function hpaInformer(kc: KubeConfig) {
  const api = kc.makeApiClient(AutoscalingV2Api);
  let lists = 0;
  let stopped = false;
  const errors: unknown[] = [];
  // makeInformer's value is a ListWatch (typed as Informer & ObjectCache).
  const informer = makeInformer<V2HorizontalPodAutoscaler>(kc, HPAS, () => {
    lists++;
    return api.listNamespacedHorizontalPodAutoscaler({ namespace: NS });
  }) as ListWatch<V2HorizontalPodAutoscaler>;
  const added: string[] = [];
  const deleted: string[] = [];
  informer.on("add", (h) => added.push(h.metadata!.name!));
  informer.on("delete", (h) => deleted.push(h.metadata!.name!));
  informer.on("error", (error) => {
    if (stopped) return; // stop() aborts the watch: an AbortError
    errors.push(error);
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => {});
    }, 50);
  });
  return {
    api,
    informer,
    added,
    deleted,
    errors,
    lists: () => lists,
    versions: () => versionsOf(informer.list(NS)),
    async start() {
      await informer.start();
    },
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}

async function serverVersions(api: AutoscalingV2Api): Promise<{ items: Versions; rv: string }> {
  const list = await api.listNamespacedHorizontalPodAutoscaler({ namespace: NS });
  return { items: versionsOf(list.items), rv: list.metadata!.resourceVersion! };
}

/** Polls until the informer holds exactly the server's HPAs at their versions. */
async function converged(
  informer: ReturnType<typeof hpaInformer>,
  api: AutoscalingV2Api,
): Promise<Versions> {
  let last = "";
  try {
    return await pollUntil(
      "the informer to hold exactly the server's HPAs",
      async () => {
        const server = (await serverVersions(api)).items;
        const cached = informer.versions();
        last = JSON.stringify({ server: sorted(server), informer: sorted(cached) });
        return JSON.stringify(sorted(server)) === JSON.stringify(sorted(cached))
          ? server
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${last}`);
  }
}

/** The same changes after each restart: an update, a delete and a create. */
async function changeAfterRestart(api: AutoscalingV2Api, updated: string, removed: string) {
  await api.patchNamespacedHorizontalPodAutoscaler(
    { name: updated, namespace: NS, body: { spec: { maxReplicas: 9 } } },
    mergePatch,
  );
  await api.deleteNamespacedHorizontalPodAutoscaler({ name: removed, namespace: NS });
  await api.createNamespacedHorizontalPodAutoscaler({
    namespace: NS,
    body: hpa("after-restart"),
  });
}

async function killed(server: Server): Promise<void> {
  server.child.kill("SIGKILL");
  assert.equal(await server.exited, null);
}

async function stopped(server: Server): Promise<void> {
  server.child.kill("SIGINT");
  assert.equal(await server.exited, 0);
}

function setupDirs() {
  const dir = mkdtempSync(join(tmpdir(), "horizon-informer-"));
  return { dataDir: join(dir, "data"), kubeconfig: join(dir, "kubeconfig") };
}

describe("client-node informer across kill -9 and restart of horizon up --data-dir", () => {
  it("resumes its watch without a relist when it had seen the newest write", async (t: TestContext) => {
    const { dataDir, kubeconfig } = setupDirs();
    const first = await startServer(dataDir, kubeconfig, 0);
    const port = Number(new URL(first.url).port);
    const config = readFileSync(kubeconfig, "utf8");
    const kc = new KubeConfig();
    kc.loadFromString(config);
    const watcher = hpaInformer(kc);
    let second: Server | undefined;
    try {
      for (const name of ["a", "b", "c"]) {
        await watcher.api.createNamespacedHorizontalPodAutoscaler({
          namespace: NS,
          body: hpa(name),
        });
      }
      await watcher.start();
      await watcher.api.createNamespacedHorizontalPodAutoscaler({ namespace: NS, body: hpa("d") });
      // No write in flight: the informer's version is the newest one journaled.
      const before = await converged(watcher, watcher.api);
      const newest = (await serverVersions(watcher.api)).rv;
      assert.equal(watcher.informer.latestResourceVersion(), newest);
      await killed(first);

      second = await startServer(dataDir, kubeconfig, port);
      assert.equal(second.startVersion, Number(newest));
      // Same port, same CA and token: the kubeconfig written again is the same text.
      assert.equal(readFileSync(kubeconfig, "utf8"), config);
      await changeAfterRestart(watcher.api, "a", "b");
      const after = await converged(watcher, watcher.api);
      assert.deepEqual(
        sorted(after).map(([n]) => n),
        ["a", "after-restart", "c", "d"],
      );
      assert.equal(after.get("c"), before.get("c"));
      assert.notEqual(after.get("a"), before.get("a"));
      // Resumed: the one list was the first; the changes came as watch events.
      assert.equal(watcher.lists(), 1);
      assert.ok(watcher.errors.length >= 1, "the kill ended the watch with an error");
      assert.deepEqual(watcher.deleted, ["b"]);
      assert.equal(watcher.added.filter((n) => n === "after-restart").length, 1);
      t.diagnostic(`errors before the resume: ${watcher.errors.length}`);
    } finally {
      await watcher.stop();
      if (second) await stopped(second);
      else first.child.kill("SIGKILL");
    }
  });

  it("relists after a 410 when writes it did not see advanced the store before the kill", async () => {
    const { dataDir, kubeconfig } = setupDirs();
    const first = await startServer(dataDir, kubeconfig, 0);
    const port = Number(new URL(first.url).port);
    const kc = new KubeConfig();
    kc.loadFromString(readFileSync(kubeconfig, "utf8"));
    const watcher = hpaInformer(kc);
    let second: Server | undefined;
    try {
      for (const name of ["a", "b", "c"]) {
        await watcher.api.createNamespacedHorizontalPodAutoscaler({
          namespace: NS,
          body: hpa(name),
        });
      }
      await watcher.start();
      await converged(watcher, watcher.api);
      const seen = Number(watcher.informer.latestResourceVersion());
      // A write of a kind the informer does not watch: the store's version moves past its own.
      await kc
        .makeApiClient(CoreV1Api)
        .createNamespacedService({ namespace: NS, body: service("unwatched") });
      await killed(first);

      second = await startServer(dataDir, kubeconfig, port);
      assert.ok(seen < second.startVersion, `${seen} < ${second.startVersion}`);
      await changeAfterRestart(watcher.api, "a", "b");
      const after = await converged(watcher, watcher.api);
      assert.deepEqual(
        sorted(after).map(([n]) => n),
        ["a", "after-restart", "c"],
      );
      // The watch from the old version got 410 Expired: the informer listed again.
      assert.equal(watcher.lists(), 2);
      assert.deepEqual(watcher.deleted, ["b"]);
    } finally {
      await watcher.stop();
      if (second) await stopped(second);
      else first.child.kill("SIGKILL");
    }
  });

  it("keeps every acknowledged create of a burst and relists on 410 (or resumes) after kill -9", async (t: TestContext) => {
    const { dataDir, kubeconfig } = setupDirs();
    const first = await startServer(dataDir, kubeconfig, 0);
    const port = Number(new URL(first.url).port);
    const kc = new KubeConfig();
    kc.loadFromString(readFileSync(kubeconfig, "utf8"));
    const watcher = hpaInformer(kc);
    let second: Server | undefined;
    try {
      await watcher.api.createNamespacedHorizontalPodAutoscaler({
        namespace: NS,
        body: hpa("seed"),
      });
      await watcher.start();

      // The burst: 8 clients creating HPAs and Services (which the informer does not watch) as
      // fast as the server answers, killed mid-way.
      const core = kc.makeApiClient(CoreV1Api);
      const acknowledged = new Map<string, string>();
      const services = new Map<string, string>();
      let next = 0;
      let dead = false;
      const client = async (_: unknown, index: number) => {
        while (!dead) {
          const n = next++;
          try {
            if (index % 2 === 0) {
              const created = await watcher.api.createNamespacedHorizontalPodAutoscaler({
                namespace: NS,
                body: hpa(`burst-${n}`),
              });
              acknowledged.set(`burst-${n}`, created.metadata!.resourceVersion!);
            } else {
              const created = await core.createNamespacedService({
                namespace: NS,
                body: service(`svc-${n}`),
              });
              services.set(`svc-${n}`, created.metadata!.resourceVersion!);
            }
          } catch (error) {
            if (!dead) throw error;
          }
        }
      };
      const clients = Array.from({ length: 8 }, client);
      await pollUntil("60 acknowledged HPA creates", () =>
        acknowledged.size >= 60 ? true : undefined,
      );
      first.child.kill("SIGKILL");
      dead = true;
      await Promise.all(clients);
      assert.equal(await first.exited, null);
      // What the informer had seen when the server died.
      await pollUntil("the informer to notice the kill", () =>
        watcher.errors.length > 0 ? true : undefined,
      );
      const seen = Number(watcher.informer.latestResourceVersion());

      second = await startServer(dataDir, kubeconfig, port);
      const restored = (await serverVersions(watcher.api)).items;
      for (const [name, rv] of acknowledged) assert.equal(restored.get(name), rv, name);
      const restoredServices = await core.listNamespacedService({ namespace: NS });
      const serviceVersions = new Map(
        restoredServices.items.map((s) => [s.metadata!.name!, s.metadata!.resourceVersion!]),
      );
      for (const [name, rv] of services) assert.equal(serviceVersions.get(name), rv, name);
      const relist = seen < second.startVersion;
      t.diagnostic(
        `informer at ${seen}, restarted store at ${second.startVersion}: ${relist ? "410, relist" : "resume"}`,
      );

      await changeAfterRestart(watcher.api, "seed", "burst-0");
      const after = await converged(watcher, watcher.api);
      assert.ok(acknowledged.has("burst-0"), "client 0 creates HPAs");
      for (const [name, rv] of acknowledged) {
        if (name !== "burst-0") assert.equal(after.get(name), rv, name);
      }
      assert.equal(after.has("burst-0"), false);
      assert.ok(after.has("after-restart"));
      // One list at the start, one more after a 410.
      assert.equal(watcher.lists(), relist ? 2 : 1);
      assert.equal(watcher.deleted.filter((n) => n === "burst-0").length, 1);
    } finally {
      await watcher.stop();
      if (second) await stopped(second);
      else first.child.kill("SIGKILL");
    }
  });
});

describe("a data directory keeps the serving CA and the token", () => {
  it("serves a restart with the same CA and token (secrets mode 0600); in memory they change", async () => {
    const { dataDir } = setupDirs();
    const options = { port: 0, controller: false, kubeconfigOut: null, dataDir } as const;
    const first = await startUp(options);
    assert.ok(first.ok, first.ok ? "" : first.error);
    const port = first.value.port;
    await first.value.close();
    const second = await startUp({ ...options, port });
    assert.ok(second.ok, second.ok ? "" : second.error);
    try {
      assert.equal(second.value.caCert, first.value.caCert);
      assert.equal(second.value.token, first.value.token);
      assert.equal(second.value.kubeconfig, first.value.kubeconfig);
      for (const file of ["token", "tls/server-ca.key", "tls/server-ca.crt"]) {
        assert.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
      }
      assert.equal(readFileSync(join(dataDir, "token"), "utf8"), `${first.value.token}\n`);
      // The old kubeconfig's credentials work against the restarted server.
      const kc = new KubeConfig();
      kc.loadFromString(first.value.kubeconfig);
      const list = await kc
        .makeApiClient(AutoscalingV2Api)
        .listNamespacedHorizontalPodAutoscaler({ namespace: NS });
      assert.deepEqual(list.items, []);
    } finally {
      await second.value.close();
    }
    const memory = await startUp({ port: 0, controller: false, kubeconfigOut: null });
    assert.ok(memory.ok, memory.ok ? "" : memory.error);
    await memory.value.close();
    assert.notEqual(memory.value.caCert, first.value.caCert);
    assert.notEqual(memory.value.token, first.value.token);
  });

  it("a token given by the caller wins over the directory's, which stays", async () => {
    const { dataDir } = setupDirs();
    const options = { port: 0, controller: false, kubeconfigOut: null, dataDir } as const;
    const first = await startUp(options);
    assert.ok(first.ok, first.ok ? "" : first.error);
    await first.value.close();
    const given = await startUp({ ...options, token: "given-token" });
    assert.ok(given.ok, given.ok ? "" : given.error);
    await given.value.close();
    assert.equal(given.value.token, "given-token");
    assert.equal(given.value.caCert, first.value.caCert);
    assert.equal(readFileSync(join(dataDir, "token"), "utf8"), `${first.value.token}\n`);
  });
});
