// `horizon explain` against `horizon controller` where a new user met "has it been synced yet?"
// for an HPA the controller had synced: after a restart with --data-dir (the dashboard's history
// is read back, so /debug/decisions has the same syncs), and through a standby (it says it is
// not the leader, and which address to ask).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { explainCommand } from "../../src/cli/explain.js";
import type { DecisionsDocument } from "../../src/controller/decisions.js";
import { silentLogger } from "../../src/controller/log.js";
import {
  type RunningController,
  startController,
} from "../../src/controller-manager/controller-manager.js";
import {
  type ControllerCommandOptions,
  parseControllerOptions,
} from "../../src/controller-manager/options.js";
import { type ApiFront, removeDir, startApiFront, webScenario } from "./controller-helpers.js";
import { pollUntil } from "./helpers.js";

const running: RunningController[] = [];

async function run(
  options: ControllerCommandOptions,
  identity?: string,
): Promise<RunningController> {
  const parsed = parseControllerOptions({
    metricsBindAddress: "127.0.0.1:0",
    dashboardBindAddress: "0",
    ...options,
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const started = await startController(parsed.value, {
    log: silentLogger,
    ...(identity ? { identity } : {}),
  });
  if (!started.ok) throw new Error(started.error);
  running.push(started.value);
  return started.value;
}

async function stop(controller: RunningController): Promise<void> {
  await controller.stop();
  running.splice(running.indexOf(controller), 1);
}

async function explainAt(address: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await explainCommand(
    "hpa/web",
    { address },
    { out: (text) => out.push(text), err: (line) => err.push(line) },
  );
  return { code, out: out.join(""), err: err.join("\n") };
}

async function decisionsAt(address: string): Promise<DecisionsDocument> {
  const response = await fetch(`${address}/debug/decisions?namespace=default&name=web`);
  return (await response.json()) as DecisionsDocument;
}

describe("horizon explain against horizon controller", () => {
  let front: ApiFront;
  let dataDir: string;

  before(async () => {
    front = await startApiFront({
      scenario: webScenario({ name: "controller-explain", maxReplicas: 3, cpu: "30m" }),
    });
    dataDir = mkdtempSync(join(tmpdir(), "horizon-explain-"));
  });
  after(async () => {
    for (const controller of [...running]) await controller.stop().catch(() => {});
    await front?.close();
    removeDir(dataDir);
  });

  it("after a restart with --data-dir, explains the syncs the dashboard restored", async () => {
    const first = await run({
      kubeconfig: front.kubeconfigFile("first"),
      leaderElect: "false",
      horizontalPodAutoscalerSyncPeriod: "1s",
      dataDir,
    });
    await pollUntil(
      "two syncs of web",
      () => (first.history.get("default", "web").length >= 2 ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await stop(first);
    const before = first.history.get("default", "web").map((r) => r.decisionJson());

    // An hour's sync period: the restarted controller does not sync web during the test.
    const second = await run({
      kubeconfig: front.kubeconfigFile("second"),
      leaderElect: "false",
      horizontalPodAutoscalerSyncPeriod: "1h",
      dataDir,
    });
    const address = second.server!.debugUrl!;
    const document = await decisionsAt(address);
    assert.equal(document.leader, undefined, "no leader election, no leader field");
    const restored = document.hpas[0]?.decisions ?? [];
    assert.deepEqual(
      restored.map((d) => JSON.stringify(d)),
      before.slice(-document.perHpa),
      "/debug/decisions has the dashboard's restored syncs",
    );
    const explained = await explainAt(address);
    assert.equal(explained.code, 0, explained.err);
    assert.match(explained.out, /^HPA default\/web — from the controller at /);
    assert.doesNotMatch(explained.out, /Note:/);
    await stop(second);
  });

  it("through a standby: says it is not the leader, and which address to ask", async () => {
    const leaderElection: ControllerCommandOptions = {
      leaderElect: "true",
      leaderElectResourceNamespace: "default",
      horizontalPodAutoscalerSyncPeriod: "1s",
    };
    const leader = await run(
      { ...leaderElection, kubeconfig: front.kubeconfigFile("leader") },
      "leader-pod_1",
    );
    await pollUntil("the leader leading", () => (leader.elector!.isLeading() ? true : undefined), {
      timeoutMs: 30_000,
    });
    const standby = await run(
      { ...leaderElection, kubeconfig: front.kubeconfigFile("standby") },
      "standby-pod_2",
    );
    const leaderAddress = leader.server!.debugUrl!;
    const standbyAddress = standby.server!.debugUrl!;
    await pollUntil(
      "the standby seeing the leader",
      () => (standby.elector!.getLeader() === "leader-pod_1" ? true : undefined),
      { timeoutMs: 30_000 },
    );
    await pollUntil(
      "a sync of web by the leader",
      async () => ((await decisionsAt(leaderAddress)).hpas.length > 0 ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    assert.deepEqual((await decisionsAt(standbyAddress)).leader, {
      lease: "default/horizon-controller",
      leading: false,
      holderIdentity: "leader-pod_1",
      debugAddress: leaderAddress,
    });
    assert.equal((await decisionsAt(leaderAddress)).leader?.leading, true);

    const viaStandby = await explainAt(standbyAddress);
    assert.equal(viaStandby.code, 1);
    assert.equal(
      viaStandby.err,
      [
        `error: no decision traces for hpa/web in namespace default from the controller at ${standbyAddress} (it is a standby, not the leader: a standby syncs no HPAs; leader-pod_1 leads)`,
        `hint: the leader leader-pod_1 serves /debug on its own loopback (${leaderAddress}); forward it first:`,
        `  kubectl port-forward -n default pod/leader-pod ${new URL(leaderAddress).port}:${new URL(leaderAddress).port}`,
        `then run: horizon explain hpa/web -n default --address ${leaderAddress}`,
      ].join("\n"),
    );
    const viaLeader = await explainAt(leaderAddress);
    assert.equal(viaLeader.code, 0, viaLeader.err);
    await stop(standby);
    await stop(leader);
  });

  it("a former leader restarted as a standby explains its restored syncs, saying so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "horizon-explain-"));
    try {
      const options = (name: string, dataDir?: string): ControllerCommandOptions => ({
        leaderElect: "true",
        leaderElectResourceNamespace: "default",
        leaderElectResourceName: "former",
        horizontalPodAutoscalerSyncPeriod: "1s",
        kubeconfig: front.kubeconfigFile(name),
        ...(dataDir ? { dataDir } : {}),
      });
      const a = await run(options("a", dir), "a-pod_1");
      await pollUntil(
        "a sync of web by a",
        () => (a.history.get("default", "web").length > 0 ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const b = await run(options("b"), "b-pod_2");
      await stop(a); // releases the Lease: b takes it at its next retry
      await pollUntil("b leading", () => (b.elector!.isLeading() ? true : undefined), {
        timeoutMs: 30_000,
      });
      const again = await run(options("a", dir), "a-pod_3");
      await pollUntil(
        "the restarted a seeing b lead",
        () => (again.elector!.getLeader() === "b-pod_2" ? true : undefined),
        { timeoutMs: 30_000 },
      );
      const explained = await explainAt(again.server!.debugUrl!);
      assert.equal(explained.code, 0, explained.err);
      const note =
        "this controller is a standby, not the leader (b-pod_2 leads): its syncs are from when it led";
      assert.match(explained.out, new RegExp(`\nNote: ${note.replace(/[()]/g, "\\$&")}.\n`));
      const bAddress = b.server!.debugUrl!;
      assert.ok(
        explained.err.startsWith(
          `warning: ${note}\nhint: the leader b-pod_2 serves /debug on its own loopback (${bAddress})`,
        ),
        explained.err,
      );
      await stop(again);
      await stop(b);
    } finally {
      removeDir(dir);
    }
  });
});
