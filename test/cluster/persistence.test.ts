import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import {
  type DataDir,
  JOURNAL_FILE,
  LOCK_FILE,
  openDataDir,
  SNAPSHOT_FILE,
} from "../../src/cluster/persistence.js";
import { ObjectStore } from "../../src/registry/store.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import {
  at,
  deployment,
  lifecycle,
  scenario,
  statefulSet,
  T0,
  WEB,
  workloadModel,
} from "./builders.js";

/** A pid no process has any more (a server killed with kill -9 leaves one in LOCK). */
const DEAD_PID = (() => {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid;
})();

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "horizon-persistence-"));
}

function open(dir: string, options: { compactEvery?: number; pid?: number } = {}): DataDir {
  const opened = openDataDir(dir, options);
  if (!opened.ok) throw new Error(opened.error);
  return opened.value;
}

/** Opens as a process that later "dies": its lock is stale, its journal never closed. */
function openAsDoomed(dir: string, compactEvery = 0): { data: DataDir; store: ObjectStore } {
  const data = open(dir, { pid: DEAD_PID, compactEvery });
  const store = new ObjectStore({ now: () => T0, journal: data.journal, initial: data.state() });
  return { data, store };
}

function reopen(dir: string): { data: DataDir; store: ObjectStore } {
  const data = open(dir, { pid: DEAD_PID, compactEvery: 0 });
  return {
    data,
    store: new ObjectStore({ now: () => T0, journal: data.journal, initial: data.state() }),
  };
}

function service(name: string, port = 80): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: { ports: [{ port }] },
  };
}

function namespace(name: string): KubeObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

/** Every object of a store as `kind/namespace/name → object`, for comparisons. */
function contents(store: ObjectStore): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  for (const object of store.objects()) {
    out.set(`${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`, object);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe("data directory: journal", () => {
  const cases = [
    {
      name: "creates survive with uid, resourceVersion and creationTimestamp",
      writes: (s: ObjectStore) => {
        s.create(service("a"));
        s.create(service("b"));
      },
      expected: { resourceVersion: "3", names: ["Service/default/a", "Service/default/b"] },
    },
    {
      name: "an update and a status update survive with their resourceVersions",
      writes: (s: ObjectStore) => {
        s.create(service("a"));
        s.update(service("a", 8080));
        s.updateStatus("Service", "default", "a", { loadBalancer: {} });
      },
      expected: { resourceVersion: "4", names: ["Service/default/a"] },
    },
    {
      name: "a delete is a tombstone, and the counter keeps the delete's resourceVersion",
      writes: (s: ObjectStore) => {
        s.create(service("a"));
        s.create(service("b"));
        s.delete("Service", "default", "a");
      },
      expected: { resourceVersion: "4", names: ["Service/default/b"] },
    },
    {
      name: "cluster-scoped objects survive without a namespace",
      writes: (s: ObjectStore) => {
        s.create(namespace("team-a"));
      },
      expected: { resourceVersion: "2", names: ["Namespace//team-a"] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const dir = tempDir();
      const before = openAsDoomed(dir).store;
      c.writes(before);
      const after = reopen(dir).store;
      assert.equal(after.resourceVersion(), c.expected.resourceVersion);
      assert.deepEqual([...contents(after).keys()], c.expected.names);
      assert.deepEqual(contents(after), contents(before));
    });
  }

  test("new writes after a restart get higher resourceVersions", () => {
    const dir = tempDir();
    const first = openAsDoomed(dir).store;
    first.create(service("a"));
    first.create(service("b"));
    const second = reopen(dir).store;
    const created = second.create(service("c"));
    assert.equal(created.metadata.resourceVersion, "4");
    assert.equal(second.update(service("a", 81)).metadata.resourceVersion, "5");
  });

  test("a name re-created after a restart gets a new uid", () => {
    const dir = tempDir();
    const first = openAsDoomed(dir).store;
    const original = first.create(service("a"));
    first.delete("Service", "default", "a");
    const second = reopen(dir).store;
    const again = second.create(service("a"));
    assert.notEqual(again.metadata.uid, original.metadata.uid);
  });

  test("a restored store emits no watch events and starts its history at the loaded version", () => {
    const dir = tempDir();
    const first = openAsDoomed(dir).store;
    first.create(service("a"));
    first.create(service("b"));
    const { store } = reopen(dir);
    const events: string[] = [];
    store.watch((event) => events.push(event.type));
    assert.deepEqual(events, []);
    // Older versions cannot be replayed (410, clients relist); the current one can.
    assert.equal(store.changesSince("2"), "Expired");
    assert.deepEqual(store.changesSince("3"), []);
  });

  test("a journal that throws fails the write and leaves the store unchanged", () => {
    let fail = false;
    const store = new ObjectStore({
      now: () => T0,
      journal: () => {
        if (fail) throw new Error("ENOSPC: no space left on device");
      },
    });
    const a = store.create(service("a"));
    fail = true;
    const events: string[] = [];
    store.watch((event) => events.push(event.type));
    assert.throws(() => store.create(service("b")), /ENOSPC/);
    assert.throws(() => store.update(service("a", 81)), /ENOSPC/);
    assert.throws(() => store.updateStatus("Service", "default", "a", {}), /ENOSPC/);
    assert.throws(() => store.delete("Service", "default", "a"), /ENOSPC/);
    assert.equal(store.resourceVersion(), "2");
    assert.equal(store.get("Service", "default", "a"), a);
    assert.equal(store.get("Service", "default", "b"), undefined);
    assert.deepEqual(events, []);
    fail = false;
    // The failed create did not use up the name's incarnation: its uid is the first one's.
    const b = store.create(service("b"));
    assert.equal(b.metadata.resourceVersion, "3");
  });

  test("every acknowledged write is in the file when the journal hook returns", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    store.create(service("a"));
    const lines = readFileSync(join(dir, JOURNAL_FILE), "utf8").split("\n");
    assert.equal(lines.length, 2);
    assert.equal(lines[1], "");
    const record = JSON.parse(lines[0]!);
    assert.equal(record.rv, 2);
    assert.equal(record.type, "put");
    assert.equal(record.object.metadata.name, "a");
  });
});

describe("data directory: torn and corrupt journals", () => {
  const cases = [
    {
      name: "a last line without its newline is ignored",
      tail: '{"rv":4,"type":"put","object":{"kind":"Serv',
      expected: { ok: true, resourceVersion: "3" },
    },
    {
      name: "a last line that is not JSON (half a multi-byte write) is ignored",
      tail: '{"rv":4,"type":"pu\n',
      expected: { ok: true, resourceVersion: "3" },
    },
    {
      name: "a corrupt line followed by whole lines is an error, not silent loss",
      tail: 'garbage\n{"rv":4,"type":"delete","kind":"Service","namespace":"default","name":"a"}\n',
      expected: { ok: false, error: /journal\.jsonl:3: corrupt journal line/ },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const dir = tempDir();
      const { store } = openAsDoomed(dir);
      store.create(service("a"));
      store.create(service("b"));
      appendFileSync(join(dir, JOURNAL_FILE), c.tail);
      const opened = openDataDir(dir, { pid: DEAD_PID, compactEvery: 0 });
      if (!c.expected.ok) {
        assert.equal(opened.ok, false);
        if (!opened.ok) assert.match(opened.error, c.expected.error!);
        // A failed open leaves the directory unlocked.
        assert.equal(existsSync(join(dir, LOCK_FILE)), false);
        return;
      }
      assert.ok(opened.ok);
      const restored = new ObjectStore({
        journal: opened.value.journal,
        initial: opened.value.state(),
      });
      assert.equal(restored.resourceVersion(), c.expected.resourceVersion);
      // The torn tail is cut off, so the next append is a line of its own.
      restored.create(service("c"));
      const after = reopen(dir).store;
      assert.equal(after.resourceVersion(), "4");
      assert.ok(after.get("Service", "default", "c"));
    });
  }

  test("a crash mid-append at any byte loses only that unacknowledged line", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    store.create(service("a"));
    store.create(service("b"));
    const path = join(dir, JOURNAL_FILE);
    const whole = statSync(path).size;
    store.update(service("b", 81));
    const full = readFileSync(path);
    fc.assert(
      fc.property(fc.integer({ min: whole, max: full.length - 1 }), (cut) => {
        writeFileSync(path, full.subarray(0, cut));
        const opened = openDataDir(dir, { pid: DEAD_PID, compactEvery: 0 });
        assert.ok(opened.ok);
        const state = new ObjectStore({ initial: opened.value.state() });
        assert.equal(state.resourceVersion(), "3");
        assert.equal(
          (state.get("Service", "default", "b")!.spec as { ports: { port: number }[] }).ports[0]!
            .port,
          80,
        );
        assert.equal(statSync(path).size, whole);
      }),
      { numRuns: 40 },
    );
  });
});

describe("data directory: compaction", () => {
  test("compact writes a snapshot and empties the journal; a reopen sees the same objects", () => {
    const dir = tempDir();
    const { data, store } = openAsDoomed(dir);
    store.create(service("a"));
    store.create(service("b"));
    store.delete("Service", "default", "a");
    data.compact();
    assert.equal(statSync(join(dir, JOURNAL_FILE)).size, 0);
    assert.equal(data.journalLines(), 0);
    store.create(service("c"));
    const after = reopen(dir).store;
    assert.equal(after.resourceVersion(), "5");
    assert.deepEqual(contents(after), contents(store));
  });

  test("a compaction cut short after the rename: journal lines the snapshot holds are skipped", () => {
    const dir = tempDir();
    const { data, store } = openAsDoomed(dir);
    store.create(service("a"));
    store.create(service("b"));
    const journal = readFileSync(join(dir, JOURNAL_FILE));
    data.compact();
    // As if the process died before emptying the journal.
    writeFileSync(join(dir, JOURNAL_FILE), journal);
    store.delete("Service", "default", "a");
    const after = reopen(dir).store;
    assert.equal(after.resourceVersion(), "4");
    assert.deepEqual([...contents(after).keys()], ["Service/default/b"]);
  });

  test("a temp snapshot left by a crash mid-compaction is ignored", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    store.create(service("a"));
    writeFileSync(join(dir, `${SNAPSHOT_FILE}.tmp`), "{half");
    const after = reopen(dir).store;
    assert.equal(after.resourceVersion(), "2");
    assert.ok(after.get("Service", "default", "a"));
    assert.equal(existsSync(join(dir, `${SNAPSHOT_FILE}.tmp`)), false);
  });

  test("compaction runs by itself after compactEvery journal lines", async () => {
    const dir = tempDir();
    const { data, store } = openAsDoomed(dir, 5);
    for (let i = 0; i < 5; i++) store.create(service(`s${i}`));
    assert.equal(data.journalLines(), 5);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(data.journalLines(), 0);
    assert.ok(existsSync(join(dir, SNAPSHOT_FILE)));
    assert.equal(reopen(dir).store.resourceVersion(), "6");
  });

  test("a clean close compacts and releases the lock", () => {
    const dir = tempDir();
    const data = open(dir);
    const store = new ObjectStore({ journal: data.journal, initial: data.state() });
    store.create(service("a"));
    data.close();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    assert.equal(statSync(join(dir, JOURNAL_FILE)).size, 0);
    const again = open(dir);
    assert.equal(again.fresh, false);
    assert.equal(again.resourceVersion(), 2);
    again.close();
  });

  test("property: any writes with compactions anywhere reopen to the same objects and counter", () => {
    const op = fc.oneof(
      fc.record({ type: fc.constant("create" as const), name: fc.constantFrom("a", "b", "c") }),
      fc.record({ type: fc.constant("update" as const), name: fc.constantFrom("a", "b", "c") }),
      fc.record({ type: fc.constant("status" as const), name: fc.constantFrom("a", "b", "c") }),
      fc.record({ type: fc.constant("delete" as const), name: fc.constantFrom("a", "b", "c") }),
      fc.record({ type: fc.constant("compact" as const) }),
      fc.record({ type: fc.constant("restart" as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const dir = tempDir();
        let { data, store } = openAsDoomed(dir);
        let port = 1;
        for (const o of ops) {
          try {
            if (o.type === "create") store.create(service(o.name));
            else if (o.type === "update") store.update(service(o.name, port++));
            else if (o.type === "status")
              store.updateStatus("Service", "default", o.name, { n: port++ });
            else if (o.type === "delete") store.delete("Service", "default", o.name);
            else if (o.type === "compact") data.compact();
            else ({ data, store } = reopen(dir));
          } catch (error) {
            if (!/already exists|not found/.test((error as Error).message)) throw error;
          }
        }
        const after = reopen(dir).store;
        assert.equal(after.resourceVersion(), store.resourceVersion());
        assert.deepEqual(contents(after), contents(store));
      }),
      { numRuns: 60 },
    );
  });
});

describe("data directory: lock", () => {
  test("a second server on the same directory gets a clear error", () => {
    const dir = tempDir();
    const first = open(dir);
    const second = openDataDir(dir);
    assert.deepEqual(second, {
      ok: false,
      error: `data directory ${dir} is in use by another horizon (pid ${process.pid}); stop it or use another --data-dir`,
    });
    first.close();
    const third = openDataDir(dir);
    assert.ok(third.ok);
    if (third.ok) third.value.close();
  });

  test("a lock left by a killed server is taken over", () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), `${DEAD_PID}\n`);
    const opened = open(dir);
    assert.equal(readFileSync(join(dir, LOCK_FILE), "utf8"), `${process.pid}\n`);
    opened.close();
  });

  test("a fresh directory is created and says so", () => {
    const dir = join(tempDir(), "nested", "data");
    const opened = open(dir);
    assert.equal(opened.fresh, true);
    assert.equal(opened.resourceVersion(), 1);
    opened.close();
  });
});

describe("restart of the simulated runtime", () => {
  /** A cluster on a restored store, as `horizon up --data-dir` starts one. */
  function restarted(dir: string, startTime: number, workloads = scenario({ workloads: [] })) {
    const { store } = reopen(dir);
    const cluster = new EmbeddedCluster({ model: clusterModelOf(workloads), startTime, store });
    return { store, cluster };
  }

  test("workloads, their ReplicaSets and pods are taken up as they were: nothing unchanged is written", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    const cluster = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [] })),
      startTime: T0,
      store,
    });
    cluster.create(deployment({ name: "web", replicas: 2 }));
    cluster.create(statefulSet({ name: "db", replicas: 2 }));
    store.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "bare", namespace: "default" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    cluster.advanceTo(at(30));
    const before = contents(store);
    assert.equal(store.list("Pod", "default").length, 5);
    const rv = store.resourceVersion();

    const again = restarted(dir, at(60));
    again.cluster.advanceTo(at(120));
    again.cluster.reconcile();
    // A Deployment's resourceVersion (and every other object's) stays: no rewrite, no event.
    assert.equal(again.store.resourceVersion(), rv);
    assert.deepEqual(contents(again.store), before);
    assert.equal(again.cluster.snapshot({ ...WEB, name: "web" }).readyPods, 2);
    // The restored records are live: a scale-down deletes one of the restored pods.
    again.cluster.scaleWorkload("default", "Deployment", "web", 1);
    again.cluster.advanceTo(at(200));
    const web = again.store
      .list("Pod", "default")
      .filter((p) => p.metadata.name.startsWith("web-"));
    assert.equal(web.length, 1);
    assert.ok(before.has(`Pod/default/${web[0]!.metadata.name}`));
    assert.deepEqual(contents(reopen(dir).store), contents(again.store));
  });

  test("pods in the middle of their lifecycle go on from their stage; terminating pods finish", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    const spec = scenario({ workloads: [workloadModel({ pod: lifecycle() })] });
    const cluster = new EmbeddedCluster({ model: clusterModelOf(spec), startTime: T0, store });
    cluster.create(deployment({ name: "web", replicas: 3 }));
    cluster.advanceTo(at(20));
    const ready = store.list("Pod", "default").map((p) => p.metadata.name);
    assert.equal(ready.length, 3);
    // One pod marked for deletion (grace 30 s), and a scale-up whose pods are being created.
    const victim = store.get("Pod", "default", ready[0]!)!;
    store.update({
      ...victim,
      metadata: {
        ...victim.metadata,
        deletionTimestamp: "2026-01-01T12:00:50Z",
        deletionGracePeriodSeconds: 30,
      },
    });
    cluster.scaleWorkload("default", "Deployment", "web", 4);
    cluster.advanceTo(at(22));
    const starting = store
      .list("Pod", "default")
      .filter((p) => !ready.includes(p.metadata.name))
      .map((p) => p.metadata.name)
      .sort();
    assert.equal(starting.length, 2, "the scale-up and the replacement");

    const again = restarted(dir, at(22), spec);
    assert.equal(again.store.get("Pod", "default", ready[0]!), undefined, "terminated");
    again.cluster.advanceTo(at(60));
    const pods = again.store.list("Pod", "default");
    assert.deepEqual(
      pods.map((p) => p.metadata.name).sort(),
      [...ready.slice(1), ...starting].sort(),
      "the same pods, none re-created",
    );
    const snapshot = again.cluster.snapshot(WEB);
    assert.equal(snapshot.readyPods, 4);
    const status = again.store.get("Deployment", "default", "web")!.status as {
      readyReplicas: number;
    };
    assert.equal(status.readyReplicas, 4);
  });
});

describe("restart of the batch and daemon workloads", () => {
  test("a finished Job, a DaemonSet and a CronJob are taken up as they were: nothing is rewritten", () => {
    const dir = tempDir();
    const { store } = openAsDoomed(dir);
    const cluster = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [] })),
      startTime: T0,
      store,
    });
    const template = (restartPolicy: string) => ({
      metadata: { labels: { app: "x" }, annotations: { "horizon.dev/run-duration": "5s" } },
      spec: { restartPolicy, containers: [{ name: "c", image: "busybox" }] },
    });
    cluster.create({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "once", namespace: "default", uid: "uid-once" },
      spec: { template: template("Never") },
    });
    cluster.create({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "agent", namespace: "default" },
      spec: { selector: { matchLabels: { app: "x" } }, template: template("Always") },
    });
    cluster.create({
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "hourly", namespace: "default" },
      spec: { schedule: "@hourly", jobTemplate: { spec: { template: template("OnFailure") } } },
    });
    cluster.advanceTo(at(30));
    const job = store.get("Job", "default", "once")!;
    assert.equal((job.status as { succeeded?: number }).succeeded, 1);
    const rv = store.resourceVersion();
    const { store: again } = reopen(dir);
    const restarted = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [] })),
      startTime: at(60),
      store: again,
    });
    restarted.advanceTo(at(120));
    restarted.reconcile();
    assert.equal(again.resourceVersion(), rv, "nothing unchanged is written again");
    // The CronJob goes on from its clock: its first Job at 13:00.
    restarted.advanceTo(at(3600));
    assert.deepEqual(
      again
        .list("Job", "default")
        .map((j) => j.metadata.name)
        .sort(),
      ["hourly-29454540", "once"],
    );
  });
});

describe("data directory: modes", () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  test("a new directory is 0700 and every file Horizon writes in it 0600", () => {
    const dir = join(tempDir(), "new");
    const { data, store } = openAsDoomed(dir);
    store.create(service("a"));
    data.compact();
    store.create(service("b"));
    assert.equal(mode(dir), 0o700);
    for (const file of [JOURNAL_FILE, SNAPSHOT_FILE, LOCK_FILE]) {
      assert.equal(mode(join(dir, file)), 0o600, file);
    }
  });

  test("an existing directory and its files (subdirectories too) are restricted on open", () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, JOURNAL_FILE), "", { mode: 0o644 });
    writeFileSync(join(dir, `${SNAPSHOT_FILE}.tmp`), "{half", { mode: 0o666 });
    mkdirSync(join(dir, "tls"), { mode: 0o755 });
    writeFileSync(join(dir, "tls", "ca.key"), "key", { mode: 0o644 });
    writeFileSync(join(dir, "token"), "t\n", { mode: 0o644 });
    open(dir, { pid: DEAD_PID });
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(join(dir, "tls")), 0o700);
    for (const file of [JOURNAL_FILE, "token", join("tls", "ca.key")]) {
      assert.equal(mode(join(dir, file)), 0o600, file);
    }
  });
});
