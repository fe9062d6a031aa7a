// A restart of `horizon up --data-dir` rewrites nothing unchanged: a Deployment (with its
// ReplicaSet and pods) keeps its resourceVersion, as across a restart of kube-apiserver; pods
// keep their IPs and Services their ClusterIPs, and new objects never get an address in use.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { usageBanner } from "../../src/cli/up.js";
import { NETWORK_FILE, type StartUpOptions, startUp } from "../../src/up/up.js";
import { deployment } from "../cluster/builders.js";
import { pollUntil } from "../e2e/helpers.js";

type Json = ReturnType<typeof JSON.parse>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

const PODS = "/api/v1/namespaces/default/pods";
const SERVICES = "/api/v1/namespaces/default/services";

const svc = (name: string) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "default" },
  spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
});

async function up(dataDir: string | undefined, options: StartUpOptions = {}) {
  const started = await startUp({
    port: 0,
    insecureHttp: true,
    controller: false,
    kubeconfigOut: null,
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...options,
  });
  if (!started.ok) throw new Error(started.error);
  const running = started.value;
  const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  return { running, call };
}

describe("horizon up --data-dir restart", () => {
  it("keeps a Deployment's resourceVersion and its pods", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-restart-")), "data");
    const first = await up(dataDir);
    let before: Json;
    let pods: string[];
    try {
      await first.call("POST", DEPLOYMENTS, deployment({ replicas: 2 }));
      before = await pollUntil("web ready", async () => {
        const web = await first.call("GET", `${DEPLOYMENTS}/web`);
        return web.status?.readyReplicas === 2 ? web : undefined;
      });
      pods = (await first.call("GET", "/api/v1/namespaces/default/pods")).items
        .map((p: Json) => `${p.metadata.name} ${p.metadata.resourceVersion}`)
        .sort();
    } finally {
      await first.running.close();
    }
    const second = await up(dataDir);
    try {
      // A few ticks of the restarted cluster's loop.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await second.running.driver.tick();
      const after = await second.call("GET", `${DEPLOYMENTS}/web`);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(after, before);
      const podsAfter = (await second.call("GET", "/api/v1/namespaces/default/pods")).items
        .map((p: Json) => `${p.metadata.name} ${p.metadata.resourceVersion}`)
        .sort();
      assert.deepEqual(podsAfter, pods);
    } finally {
      await second.running.close();
    }
  });

  it("keeps pod IPs and ClusterIPs; new pods and Services get free addresses only", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-restart-")), "data");
    type Call = Awaited<ReturnType<typeof up>>["call"];
    const podIps = async (call: Call) =>
      Object.fromEntries(
        (await call("GET", PODS)).items.map((p: Json) => [p.metadata.name, p.status.podIP]),
      ) as Record<string, string | undefined>;
    const clusterIps = async (call: Call) =>
      Object.fromEntries(
        (await call("GET", SERVICES)).items.map((s: Json) => [s.metadata.name, s.spec.clusterIP]),
      ) as Record<string, string>;
    const first = await up(dataDir);
    let pods: Record<string, string | undefined>;
    let services: Record<string, string>;
    try {
      await first.call("POST", DEPLOYMENTS, deployment({ replicas: 3 }));
      for (const name of ["a", "b", "c"]) await first.call("POST", SERVICES, svc(name));
      // Holes below the addresses in use: the first Service and the lowest pod go.
      await first.call("DELETE", `${SERVICES}/a`);
      const three = await pollUntil("three pods with IPs", async () => {
        const ips = await podIps(first.call);
        return Object.values(ips).filter(Boolean).length === 3 ? ips : undefined;
      });
      const victim = Object.keys(three).sort((x, y) => three[x]!.localeCompare(three[y]!))[0]!;
      await first.call("DELETE", `${PODS}/${victim}?gracePeriodSeconds=0`);
      pods = await pollUntil("the replacement pod with an IP", async () => {
        const ips = await podIps(first.call);
        return !(victim in ips) && Object.values(ips).filter(Boolean).length === 3
          ? ips
          : undefined;
      });
      services = await clusterIps(first.call);
      assert.ok(!("a" in services) && "b" in services && "c" in services, JSON.stringify(services));
    } finally {
      await first.running.close();
    }
    const second = await up(dataDir);
    try {
      assert.deepEqual(await podIps(second.call), pods);
      assert.deepEqual(await clusterIps(second.call), services);
      // New objects: none may take an address a restored object holds.
      const scale = await second.call("GET", `${DEPLOYMENTS}/web/scale`);
      const scaled = await second.call("PUT", `${DEPLOYMENTS}/web/scale`, {
        ...scale,
        spec: { replicas: 6 },
      });
      assert.equal(scaled.spec?.replicas, 6, JSON.stringify(scaled));
      for (const name of ["d", "e"]) await second.call("POST", SERVICES, svc(name));
      const after = await pollUntil("six pods with IPs", async () => {
        const ips = await podIps(second.call);
        return Object.values(ips).filter(Boolean).length === 6 ? ips : undefined;
      });
      for (const [name, ip] of Object.entries(pods)) assert.equal(after[name], ip, name);
      const podAddresses = Object.values(after);
      assert.equal(new Set(podAddresses).size, 6, podAddresses.join(" "));
      const serviceAddresses = Object.values(await clusterIps(second.call));
      assert.equal(serviceAddresses.length, Object.keys(services).length + 2);
      assert.equal(
        new Set(serviceAddresses).size,
        serviceAddresses.length,
        serviceAddresses.join(" "),
      );
    } finally {
      await second.running.close();
    }
  });

  it("says what the restored store holds", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-restart-")), "data");
    const first = await up(dataDir);
    try {
      const banner = usageBanner(first.running, {}, "empty").join("\n");
      assert.match(
        banner,
        /cluster: empty; store: .* \(durable; \d+ objects?, resourceVersion \d+ at start\)/,
      );
      await first.call("POST", SERVICES, svc("a"));
    } finally {
      await first.running.close();
    }
    const second = await up(dataDir);
    try {
      let count = 0;
      for (const _ of second.running.cluster.store.objects()) count++;
      assert.ok(second.running.startObjectCount > 1);
      assert.ok(second.running.startObjectCount <= count);
      const banner = usageBanner(second.running, {}, "scenario x.yaml (3 objects)").join("\n");
      assert.match(
        banner,
        new RegExp(
          `cluster: restored \\(scenario x\\.yaml not applied: it seeds a fresh --data-dir only\\); store: .* \\(durable; ${second.running.startObjectCount} objects, resourceVersion`,
        ),
      );
    } finally {
      await second.running.close();
    }
  });

  it("refuses other --pod-cidr or --service-cidr than the data directory's", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "horizon-up-restart-")), "data");
    const first = await up(dataDir, { podCidr: "127.70.0.0/16", serviceCidr: "127.71.0.0/16" });
    await first.running.close();
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, NETWORK_FILE), "utf8")), {
      podCidr: "127.70.0.0/16",
      serviceCidr: "127.71.0.0/16",
    });
    for (const [options, flag, kept] of [
      [{ serviceCidr: "127.71.0.0/16" }, "--pod-cidr", "127.70.0.0/16"],
      [
        { podCidr: "127.70.0.0/16", serviceCidr: "127.72.0.0/16" },
        "--service-cidr",
        "127.71.0.0/16",
      ],
    ] as const) {
      const refused = await startUp({
        port: 0,
        insecureHttp: true,
        controller: false,
        kubeconfigOut: null,
        dataDir,
        ...options,
      });
      assert.equal(refused.ok, false);
      if (refused.ok) continue;
      assert.equal(refused.usage, true);
      assert.ok(refused.error.startsWith(`${flag} `), refused.error);
      assert.ok(refused.error.includes(`start with ${flag} ${kept}`), refused.error);
      assert.ok(refused.error.includes("a new --data-dir"), refused.error);
    }
    // The refusals left the directory unlocked: the stored ranges start.
    const again = await up(dataDir, { podCidr: "127.70.0.0/16", serviceCidr: "127.71.0.0/16" });
    await again.running.close();
    // A directory from before the ranges were kept takes this run's, and keeps them.
    rmSync(join(dataDir, NETWORK_FILE));
    const older = await up(dataDir);
    await older.running.close();
    assert.ok(existsSync(join(dataDir, NETWORK_FILE)));
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, NETWORK_FILE), "utf8")), {
      podCidr: "127.64.0.0/16",
      serviceCidr: "127.65.0.0/16",
    });
  });
});

describe("horizon up generated names", () => {
  const podNames = async (call: Awaited<ReturnType<typeof up>>["call"], n: number) =>
    pollUntil(`${n} pods`, async () => {
      const items = (await call("GET", PODS)).items as Json[];
      const live = items.filter((p) => !p.metadata.deletionTimestamp);
      return live.length === n && items.length === n
        ? live.map((p) => p.metadata.name as string).sort()
        : undefined;
    });

  it("are new in every run and after a delete and re-create, and so are uids", async () => {
    const runs: string[][] = [];
    const uids: string[] = [];
    for (let run = 0; run < 2; run++) {
      const server = await up(undefined);
      try {
        uids.push(
          (await server.call("POST", DEPLOYMENTS, deployment({ replicas: 3 }))).metadata.uid,
        );
        runs.push(await podNames(server.call, 3));
        await server.call("DELETE", `${DEPLOYMENTS}/web?propagationPolicy=Foreground`);
        await server.call("DELETE", `${PODS}?gracePeriodSeconds=0`);
        await pollUntil("no pods", async () =>
          (await server.call("GET", PODS)).items.length === 0 ? true : undefined,
        );
        await pollUntil("no Deployment", async () =>
          (await server.call("GET", `${DEPLOYMENTS}/web`)).kind === "Status" ? true : undefined,
        );
        uids.push(
          (await server.call("POST", DEPLOYMENTS, deployment({ replicas: 3 }))).metadata.uid,
        );
        runs.push(await podNames(server.call, 3));
      } finally {
        await server.running.close();
      }
    }
    const all = runs.flat();
    assert.equal(new Set(all).size, all.length, JSON.stringify(runs));
    // The Deployment web of each run and each re-create: four uids, none another's.
    assert.equal(new Set(uids).size, 4, JSON.stringify(uids));
  });
});
