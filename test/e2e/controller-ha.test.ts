// End to end: `horizon controller --leader-elect` as separate processes (`node src/cli/main.ts
// controller`) against the embedded API server behind a recording front. kill -9 of the
// leader: the standby takes over once the lease expired; SIGTERM: exit 0, the lease released,
// a standby takes over at once. Each process's kubeconfig carries `as: NAME`, so the front
// knows who sent every request.
//
// "No two controllers' scale writes overlap" is checked on the server's own order of commits:
// every successful write of a Lease, of a scale subresource and of an HPA status carries the
// resourceVersion the store gave it (one counter for all objects). Walking the writes in that
// order, the Lease's holder at each scale or status write must be the writer, and the holder's
// last lease write must be younger than the lease duration (it had not expired). So the
// writes of two controllers are separated by a change of holder, which client-go's rules only
// allow after expiry or release.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { SYSTEM_DISCOVERY } from "../../src/apiserver/auth/bootstrap.js";
import { allows, type PolicyRule, requestAttributes } from "../../src/apiserver/auth/rbac.js";
import { LOAD_ANNOTATION } from "../../src/cluster/load.js";
import {
  type ApiFront,
  apiRequest,
  type ControllerProcess,
  isControllerRequest,
  isControllerWrite,
  isLeaseWrite,
  killAll,
  type LeaseSpec,
  type RecordedRequest,
  ROOT,
  resourceVersionOf,
  spawnController,
  startApiFront,
  webScenario,
} from "./controller-helpers.js";
import { pollUntil } from "./helpers.js";

const LEASE_DURATION_MS = 2000;
const LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/horizon-controller";

function controllerArgs(front: ApiFront, name: string): string[] {
  return [
    "--kubeconfig",
    front.kubeconfigFile(name),
    "--leader-elect",
    "--leader-elect-lease-duration",
    "2s",
    "--leader-elect-renew-deadline",
    "1500ms",
    "--leader-elect-retry-period",
    "500ms",
    "--horizontal-pod-autoscaler-sync-period",
    "1s",
    "--horizontal-pod-autoscaler-downscale-stabilization",
    "3s",
    "--metrics-bind-address",
    "127.0.0.1:0",
    "--dashboard-bind-address",
    "127.0.0.1:0",
  ];
}

interface LeaseWrite {
  rv: number;
  at: number;
  receivedAt: number;
  user: string;
  holder: string;
  /** spec.renewTime as stored (RFC 3339 with microseconds). */
  renewTime: string;
}

function leaseWrites(front: { requests: RecordedRequest[] }): LeaseWrite[] {
  return front.requests.filter(isLeaseWrite).map((r) => ({
    rv: resourceVersionOf(r.response),
    at: r.at,
    receivedAt: r.receivedAt,
    user: r.user ?? "",
    holder: ((r.response as { spec?: LeaseSpec }).spec?.holderIdentity ?? "") as string,
    renewTime: ((r.response as { spec?: { renewTime?: string } }).spec?.renewTime ?? "") as string,
  }));
}

/** Identity (holderIdentity) of each process, from the leases it wrote as holder. */
function identities(front: { requests: RecordedRequest[] }): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of leaseWrites(front)) if (w.holder !== "") out.set(w.user, w.holder);
  return out;
}

function currentHolder(front: ApiFront): string | undefined {
  return leaseWrites(front).at(-1)?.holder;
}

/** The check described in the file comment; returns the writers in order of their first write. */
function assertWritesOnlyByValidHolder(front: { requests: RecordedRequest[] }): string[] {
  const ids = identities(front);
  type Entry =
    | { kind: "lease"; rv: number; at: number; holder: string }
    | { kind: "write"; rv: number; at: number; user: string; what: string };
  const entries: Entry[] = [
    ...leaseWrites(front).map((w) => ({ kind: "lease" as const, ...w })),
    ...front.requests.filter(isControllerWrite).map((r: RecordedRequest) => ({
      kind: "write" as const,
      rv: resourceVersionOf(r.response),
      at: r.at,
      user: r.user ?? "",
      what: `${r.method} ${r.path}`,
    })),
  ];
  for (const e of entries)
    assert.ok(Number.isFinite(e.rv), `no resourceVersion: ${JSON.stringify(e)}`);
  entries.sort((a, b) => a.rv - b.rv);
  let lease: { holder: string; at: number } | null = null;
  const writers: string[] = [];
  for (const e of entries) {
    if (e.kind === "lease") {
      lease = { holder: e.holder, at: e.at };
      continue;
    }
    const who = ids.get(e.user);
    assert.ok(lease, `${e.user} wrote (${e.what}) before any lease existed`);
    assert.equal(
      lease.holder,
      who,
      `${e.user} wrote (${e.what}, rv ${e.rv}) while ${lease.holder || "nobody"} held the lease`,
    );
    assert.ok(
      e.at - lease.at < LEASE_DURATION_MS,
      `${e.user} wrote (${e.what}) ${e.at - lease.at} ms after its last lease write`,
    );
    if (!writers.includes(e.user)) writers.push(e.user);
  }
  return writers;
}

function replicas(front: ApiFront): number {
  return (front.up.cluster.store.get("Deployment", "default", "web")!.spec as { replicas: number })
    .replicas;
}

async function setLoad(front: ApiFront, rps: number | null): Promise<void> {
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
}

describe("the overlap check itself", () => {
  const lease = (rv: number, at: number, user: string, holder: string): RecordedRequest => ({
    seq: rv,
    at,
    receivedAt: at,
    method: "PUT",
    path: LEASE_PATH,
    query: new URLSearchParams(),
    user,
    userAgent: "horizon-controller/test",
    status: 200,
    response: { metadata: { resourceVersion: String(rv) }, spec: { holderIdentity: holder } },
  });
  const scale = (rv: number, at: number, user: string): RecordedRequest => ({
    seq: rv,
    at,
    receivedAt: at,
    method: "PUT",
    path: "/apis/apps/v1/namespaces/default/deployments/web/scale",
    query: new URLSearchParams(),
    user,
    userAgent: "horizon-controller/test",
    status: 200,
    response: { metadata: { resourceVersion: String(rv) } },
  });
  const cases = [
    {
      name: "writes separated by a change of holder pass",
      requests: [
        lease(1, 0, "a", "A"),
        scale(2, 100, "a"),
        lease(3, 2500, "b", "B"),
        scale(4, 2600, "b"),
      ],
      fails: null,
    },
    {
      name: "a write of the standby while the other holds the lease fails",
      requests: [
        lease(1, 0, "a", "A"),
        lease(2, 10, "b", "B"),
        lease(3, 500, "a", "A"),
        scale(4, 600, "b"),
      ],
      fails: /b wrote .* while A held the lease/,
    },
    {
      name: "a write under an expired lease fails",
      requests: [lease(1, 0, "a", "A"), scale(2, 2500, "a")],
      fails: /2500 ms after its last lease write/,
    },
    {
      name: "a write after the release fails",
      requests: [lease(1, 0, "a", "A"), lease(2, 100, "a", ""), scale(3, 200, "a")],
      fails: /while nobody held the lease/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.fails) assert.throws(() => assertWritesOnlyByValidHolder(c), c.fails);
      else assert.deepEqual(assertWritesOnlyByValidHolder(c), ["a", "b"]);
    });
  }
});

describe("horizon controller --leader-elect: two processes, one leader", () => {
  let front: ApiFront;
  const processes: ControllerProcess[] = [];
  const byName = new Map<string, ControllerProcess>();
  const spawnNamed = (name: string) => {
    const p = spawnController(name, controllerArgs(front, name));
    processes.push(p);
    byName.set(name, p);
    return p;
  };
  const logsOf = (name: string) =>
    byName
      .get(name)!
      .logs.map((l) => JSON.stringify(l))
      .join("\n");

  before(async () => {
    front = await startApiFront({
      scenario: webScenario({
        name: "controller-ha",
        maxReplicas: 5,
        cpu: "10m",
        perRps: "1m",
        service: true,
      }),
    });
    await pollUntil("ready pods and a metrics scrape", () => {
      front.up.driver.catchUp();
      return front.up.cluster.metrics.scrapeIndex >= 2 ? true : undefined;
    });
  });
  after(async () => {
    await killAll(processes);
    await front?.close();
  });

  let leader = "";
  let standby = "";

  it("one of two leads; kill -9 of the leader: the other takes over after the lease expired", async () => {
    spawnNamed("ctrl-a");
    spawnNamed("ctrl-b");
    const holder = await pollUntil(
      "a leader",
      () => {
        const h = currentHolder(front);
        return h ? h : undefined;
      },
      { timeoutMs: 20_000 },
    );
    leader = [...identities(front)].find(([, id]) => id === holder)![0];
    standby = leader === "ctrl-a" ? "ctrl-b" : "ctrl-a";
    // The standby is running and watching the lease, but has not written it as holder.
    await pollUntil(
      "the standby polling the lease",
      () =>
        front.requests.some(
          (r) => r.user === standby && r.path === LEASE_PATH && r.method === "GET",
        )
          ? true
          : undefined,
      { timeoutMs: 20_000 },
    );
    assert.equal(identities(front).has(standby), false);

    // The leader scales web up.
    await setLoad(front, 400);
    await pollUntil("the leader scaling up", () => (replicas(front) > 1 ? true : undefined), {
      timeoutMs: 20_000,
    });
    assert.ok(
      front.requests.some(
        (r) => isControllerWrite(r) && r.user === leader && r.path.endsWith("/scale"),
      ),
    );
    const standbyWritesBefore = front.requests.filter(
      (r) => isControllerWrite(r) && r.user === standby,
    );
    assert.deepEqual(standbyWritesBefore, [], "the standby wrote while not leading");

    const killed = byName.get(leader)!;
    killed.kill("SIGKILL");
    assert.equal(await killed.exited, "SIGKILL");
    const writes = leaseWrites(front);
    const lastRenew = writes.at(-1)!;
    assert.equal(lastRenew.user, leader);
    // client-go compares lease records at second precision (metav1.Time), so a renewal in the
    // same second as the one before is no change to the standby: the expiry it judges counts
    // from the first renewal of the last renewal's second.
    const second = (time: string) => Math.floor(Date.parse(time) / 1000);
    let lastChange = lastRenew;
    for (let i = writes.length - 2; i >= 0; i--) {
      const w = writes[i]!;
      if (w.user !== leader || second(w.renewTime) !== second(lastRenew.renewTime)) break;
      lastChange = w;
    }

    const takeover = await pollUntil(
      "the standby taking the lease",
      () => leaseWrites(front).find((w) => w.user === standby && w.holder !== ""),
      { timeoutMs: 15_000 },
    );
    // client-go: a standby acquires only once the record has not changed for leaseDuration
    // (judged on its own clock from when it saw the last change). Measured between arrivals:
    // the renewal was stored after it arrived, and the standby sent its takeover after deciding;
    // when the front finished answering (`at`) varies with the machine's load.
    assert.ok(
      takeover.receivedAt - lastChange.receivedAt >= LEASE_DURATION_MS - 50,
      `took over ${takeover.receivedAt - lastChange.receivedAt} ms after the last change of the lease (${takeover.receivedAt - lastRenew.receivedAt} ms after the last renewal)`,
    );
    const got = await apiRequest(front, "GET", LEASE_PATH);
    const spec = got.body.spec as LeaseSpec;
    assert.equal(spec.holderIdentity, identities(front).get(standby));
    assert.equal(spec.leaseTransitions, 1);
    assert.equal(spec.leaseDurationSeconds, 2);
    // MicroTime with 6 fractional digits, as client-go writes it.
    assert.match(spec.renewTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // The new leader scales web down once the load is gone.
    await setLoad(front, null);
    await pollUntil(
      "the new leader scaling down",
      () => (replicas(front) === 1 ? true : undefined),
      {
        timeoutMs: 20_000,
      },
    );
    assert.deepEqual(assertWritesOnlyByValidHolder(front), [leader, standby], logsOf(standby));
  });

  it("SIGTERM: exit 0 after in-flight syncs, the lease released, a standby takes over at once", async () => {
    const third = spawnNamed("ctrl-c");
    await pollUntil(
      "the third controller polling the lease",
      () =>
        front.requests.some(
          (r) => r.user === "ctrl-c" && r.path === LEASE_PATH && r.method === "GET",
        )
          ? true
          : undefined,
      { timeoutMs: 20_000 },
    );
    // The leader keeps syncing: every sync reads the target's scale.
    const readsScale = (name: string) => (r: RecordedRequest) =>
      r.user === name && r.method === "GET" && r.path.endsWith("/scale");
    const mark = front.requests.length;
    await pollUntil(
      "a sync of the leader",
      () => (front.requests.slice(mark).some(readsScale(standby)) ? true : undefined),
      { timeoutMs: 10_000 },
    );
    const leaderProcess = byName.get(standby)!;
    leaderProcess.kill("SIGTERM");
    assert.equal(await leaderProcess.exited, 0, logsOf(standby));
    const messages = leaderProcess.logs.map((l) => l.msg);
    assert.ok(messages.includes("Shutting down HPA controller"), logsOf(standby));
    assert.equal(messages.at(-1), "stopped", logsOf(standby));
    assert.equal(leaderProcess.logs.filter((l) => l.level === "error").length, 0, logsOf(standby));

    // The release: holderIdentity emptied by the leader itself (client-go ReleaseOnCancel).
    const writes = leaseWrites(front);
    const release = writes.filter((w) => w.user === standby).at(-1)!;
    assert.equal(release.holder, "");
    const takeover = await pollUntil(
      "the third controller taking the lease",
      () => leaseWrites(front).find((w) => w.user === "ctrl-c" && w.holder !== ""),
      { timeoutMs: 10_000 },
    );
    // At once: well before a lease duration would have run out.
    assert.ok(
      takeover.at - release.at < LEASE_DURATION_MS,
      `took over ${takeover.at - release.at} ms after the release`,
    );
    await pollUntil(
      "the third controller syncing",
      () => (front.requests.some(readsScale("ctrl-c")) ? true : undefined),
      { timeoutMs: 10_000 },
    );
    third.kill("SIGTERM");
    assert.equal(await third.exited, 0, logsOf("ctrl-c"));
    // ctrl-c may have found nothing to write (the status unchanged): it is not required here.
    const writers = assertWritesOnlyByValidHolder(front);
    assert.deepEqual(writers.slice(0, 2), [leader, standby]);

    // client-go's LeaderElection events on the Lease: "became leader" at each acquisition,
    // "stopped leading" as a leader's renewal ends (the SIGKILLed one never got there).
    const ids = identities(front);
    const got = await apiRequest(front, "GET", "/api/v1/namespaces/kube-system/events");
    const events = (got.body.items as Record<string, unknown>[]).filter(
      (e) => e.reason === "LeaderElection",
    );
    assert.deepEqual(
      events.map((e) => e.message).sort(),
      [
        `${ids.get(leader)} became leader`,
        `${ids.get(standby)} became leader`,
        `${ids.get(standby)} stopped leading`,
        `${ids.get("ctrl-c")} became leader`,
        `${ids.get("ctrl-c")} stopped leading`,
      ].sort(),
    );
    for (const event of events) {
      const involved = event.involvedObject as Record<string, string>;
      assert.deepEqual(
        [event.type, involved.kind, involved.apiVersion, involved.namespace, involved.name],
        ["Normal", "Lease", "coordination.k8s.io/v1", "kube-system", "horizon-controller"],
      );
      assert.deepEqual(event.source, { component: "horizon-controller" });
    }
  });

  it("every request of the three controllers is allowed by deploy/rbac.yaml", () => {
    const rules = parseAllDocuments(readFileSync(join(ROOT, "deploy", "rbac.yaml"), "utf8"))
      .map((d) => d.toJS() as { rules?: PolicyRule[] })
      .flatMap((d) => d.rules ?? []);
    const requests = front.requests.filter(isControllerRequest);
    assert.ok(requests.length > 50);
    const denied = requests
      .map((r) => ({ r, attrs: requestAttributes(r.method, r.path, r.query) }))
      .filter(({ attrs }) => !allows([...rules, SYSTEM_DISCOVERY], attrs))
      .map(({ r }) => `${r.method} ${r.path}`);
    assert.deepEqual([...new Set(denied)], []);
  });
});
