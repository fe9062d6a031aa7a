// End-to-end: deletion with the REAL kubectl against `horizon up` started in-process —
// cascading deletes (background, orphan, foreground), finalizers, namespace deletion, graceful
// pod deletion (--grace-period, --now, --force). Pods here have a 2 s termination grace period,
// so "Terminating" is visible and the tests stay short. Without kubectl the tests skip with the
// reason, except under CI=true, where that fails.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  findKubectls,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlRequired,
  pollUntil,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const search = findKubectls([]);
const binary = search.binaries[0];

function deploymentYaml(name: string, namespace = "default", replicas = 2): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      terminationGracePeriodSeconds: 2
      containers: [{name: app, image: nginx}]
`;
}

const POD = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: bare}}
spec:
  terminationGracePeriodSeconds: 30
  containers: [{name: app, image: nginx}]
`;

describe("kubectl delete against horizon up", () => {
  let server: TestServer;
  let ctx: KubectlContext;
  const run = (args: string[], stdin?: string, timeoutMs = 20_000) =>
    kubectl(ctx, args, stdin === undefined ? { timeoutMs } : { stdin, timeoutMs });
  const podNames = async (selector: string, namespace = "default") => {
    const out = kubectlOk(
      await run(["get", "pods", "-n", namespace, "-l", selector, "-o", "name"]),
      "get pods",
    );
    return out.trim() === "" ? [] : out.trim().split("\n");
  };
  const runningPods = (selector: string, count: number, namespace = "default") =>
    pollUntil(`${count} running pods ${selector}`, async () => {
      const out = kubectlOk(
        await run([
          "get",
          "pods",
          "-n",
          namespace,
          "-l",
          selector,
          "-o",
          "jsonpath={range .items[*]}{.status.phase}{'\\n'}{end}",
        ]),
        "get pods",
      );
      const phases = out.trim() === "" ? [] : out.trim().split("\n");
      return phases.length === count && phases.every((p) => p === "Running") ? true : undefined;
    });

  before(async () => {
    if (!binary) {
      const reason = search.missing.join("; ");
      if (kubectlRequired()) assert.fail(`CI=true and kubectl is missing: ${reason}`);
      console.log(`# skipping kubectl delete tests: ${reason}`);
      return;
    }
    server = await startTestServer();
    ctx = server.context(binary);
  });
  after(async () => {
    await server?.up.close();
  });

  const skip = () => binary === undefined;

  it("delete deployment: the Deployment goes, its pods show Terminating, then go", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    kubectlOk(await run(["apply", "-f", "-"], deploymentYaml("web")), "apply");
    await runningPods("app=web", 2);
    const out = kubectlOk(await run(["delete", "deployment", "web"]), "delete deployment");
    assert.match(out, /^deployment\.apps "web" deleted/);
    await pollUntil("pods shown Terminating", async () => {
      const table = kubectlOk(await run(["get", "pods", "-l", "app=web"]), "get pods");
      return /\sTerminating\s/.test(table) ? true : undefined;
    });
    await pollUntil("the pods gone", async () =>
      (await podNames("app=web")).length === 0 ? true : undefined,
    );
    assert.equal(
      kubectlOk(await run(["get", "rs", "-l", "app=web", "-o", "name"]), "get rs").trim(),
      "",
    );
  });

  it("delete --cascade=orphan: the ReplicaSet and its pods stay, without the ownerReference", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    kubectlOk(await run(["apply", "-f", "-"], deploymentYaml("orphaned")), "apply");
    await runningPods("app=orphaned", 2);
    const out = kubectlOk(
      await run(["delete", "deployment", "orphaned", "--cascade=orphan"]),
      "delete --cascade=orphan",
    );
    assert.match(out, /^deployment\.apps "orphaned" deleted/);
    const refs = kubectlOk(
      await run([
        "get",
        "rs",
        "-l",
        "app=orphaned",
        "-o",
        "jsonpath={.items[*].metadata.name}:{.items[*].metadata.ownerReferences}",
      ]),
      "get rs",
    );
    assert.match(refs, /^orphaned-\S+:$/);
    await runningPods("app=orphaned", 2);
  });

  it("delete --cascade=foreground: kubectl returns once the pods and ReplicaSet are gone", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    kubectlOk(await run(["apply", "-f", "-"], deploymentYaml("fg")), "apply");
    await runningPods("app=fg", 2);
    const started = Date.now();
    const out = kubectlOk(
      await run(["delete", "deployment", "fg", "--cascade=foreground"]),
      "delete --cascade=foreground",
    );
    assert.match(out, /^deployment\.apps "fg" deleted/);
    // The Deployment waited for its pods' 2 s grace period.
    assert.ok(Date.now() - started >= 1500, `returned after ${Date.now() - started} ms`);
    assert.deepEqual(await podNames("app=fg"), []);
    assert.equal(
      kubectlOk(await run(["get", "rs", "-l", "app=fg", "-o", "name"]), "get rs").trim(),
      "",
    );
  });

  it("a finalizer holds a deleted object until it is removed", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    const held = `apiVersion: v1
kind: Service
metadata: {name: held, finalizers: [example.com/hold]}
spec: {ports: [{port: 80}]}
`;
    kubectlOk(await run(["apply", "-f", "-"], held), "apply");
    const out = kubectlOk(await run(["delete", "service", "held", "--wait=false"]), "delete");
    assert.match(out, /^service "held" deleted/);
    const stamp = kubectlOk(
      await run(["get", "service", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"]),
      "get",
    );
    assert.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const patched = kubectlOk(
      await run([
        "patch",
        "service",
        "held",
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
      ]),
      "patch",
    );
    assert.match(patched, /^service\/held patched/);
    const gone = await run(["get", "service", "held"]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): services "held" not found/);
  });

  it("delete namespace: Terminating, no new content, everything in it deleted, then gone", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    kubectlOk(await run(["create", "namespace", "team"]), "create namespace");
    kubectlOk(await run(["apply", "-f", "-"], deploymentYaml("app", "team")), "apply");
    await runningPods("app=app", 2, "team");
    // A finalizer the test removes keeps the namespace Terminating for as long as the checks
    // below take (the pods' 2 s grace period alone is a race on a loaded machine).
    const held =
      "apiVersion: v1\nkind: Service\nmetadata: {name: held, namespace: team, finalizers: [example.com/hold]}\nspec: {ports: [{port: 80}]}\n";
    kubectlOk(await run(["apply", "-f", "-"], held), "apply held");
    const out = kubectlOk(await run(["delete", "namespace", "team", "--wait=false"]), "delete ns");
    assert.match(out, /^namespace "team" deleted/);
    const phase = kubectlOk(
      await run(["get", "namespace", "team", "-o", "jsonpath={.status.phase}"]),
      "get ns",
    );
    assert.equal(phase, "Terminating");
    const late =
      "apiVersion: v1\nkind: Service\nmetadata: {name: late, namespace: team}\nspec: {ports: [{port: 80}]}\n";
    const refused = await run(["create", "-f", "-"], late);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): error when creating "STDIN": services "late" is forbidden: unable to create new content in namespace team because it is being terminated/,
    );
    kubectlOk(
      await run([
        "patch",
        "service",
        "held",
        "-n",
        "team",
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
      ]),
      "release held",
    );
    await pollUntil(
      "the namespace gone",
      async () => ((await run(["get", "namespace", "team"])).code === 1 ? true : undefined),
      { timeoutMs: 15_000 },
    );
    const system = await run(["delete", "namespace", "default"]);
    assert.equal(system.code, 1);
    assert.match(
      system.stderr,
      /Error from server \(Forbidden\): namespaces "default" is forbidden: this namespace may not be deleted/,
    );
  });

  it("delete pod --grace-period: Terminating for that long; --now and --force shorten it", async (t) => {
    if (skip()) return t.skip(`kubectl missing: ${search.missing.join("; ")}`);
    kubectlOk(
      await run(["apply", "-f", "-"], `${POD("slow")}---\n${POD("quick")}---\n${POD("forced")}`),
      "apply",
    );
    await runningPods("app=bare", 3);
    kubectlOk(
      await run(["delete", "pod", "slow", "--grace-period=20", "--wait=false"]),
      "delete slow",
    );
    const marked = kubectlOk(
      await run(["get", "pod", "slow", "-o", "jsonpath={.metadata.deletionGracePeriodSeconds}"]),
      "get slow",
    );
    assert.equal(marked, "20");
    const table = kubectlOk(await run(["get", "pod", "slow"]), "get slow table");
    assert.match(table, /^slow\s+\S+\s+Terminating\s/m);

    // --now is a 1 s grace period; kubectl waits for the pod to go.
    const now = kubectlOk(await run(["delete", "pod", "quick", "--now"]), "delete --now");
    assert.match(now, /^pod "quick" deleted/);
    assert.equal((await run(["get", "pod", "quick"])).code, 1);

    const forced = await run(["delete", "pod", "forced", "--force", "--grace-period=0"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^pod "forced" force deleted/);
    assert.equal((await run(["get", "pod", "forced"])).code, 1);

    // A shorter grace period for the pod already terminating takes it away at once.
    kubectlOk(await run(["delete", "pod", "slow", "--force", "--grace-period=0"]), "force slow");
    assert.equal((await run(["get", "pod", "slow"])).code, 1);
  });
});
