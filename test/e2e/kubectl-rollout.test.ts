// End-to-end: Deployment rollouts as the deployment controller does them, driven by the REAL
// kubectl (1.27 and 1.33) against `horizon up`: `rollout status` waits for the pods to be Ready
// (the readiness probe's initialDelaySeconds) and for the old ReplicaSet to drain, `wait
// --for=condition=Available`, `rollout history`, `undo`, `restart`, `pause` / `resume`, and a rollout past its
// progressDeadlineSeconds failing `rollout status`. Delays are a few seconds; every wait polls
// or uses kubectl's own watch with a timeout. Without kubectl the tests skip with the reason,
// except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  kubectlWatch,
  startTestServer,
  type TestServer,
} from "./helpers.js";

type Json = ReturnType<typeof JSON.parse>;

function app(name: string, image: string, options: { readyAfter: number; deadline?: number }) {
  const spec: Json = {
    replicas: 3,
    selector: { matchLabels: { app: name } },
    strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: "app",
            image,
            readinessProbe: {
              httpGet: { path: "/", port: 80 },
              initialDelaySeconds: options.readyAfter,
            },
          },
        ],
      },
    },
  };
  if (options.deadline !== undefined) spec.progressDeadlineSeconds = options.deadline;
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, annotations: { "kubernetes.io/change-cause": `deploy ${image}` } },
    spec,
  });
}

for (const binary of kubectlsUnderTest("kubectl-rollout", { versionedOnly: true }))
  describeRollout(binary);

function describeRollout(binary: KubectlBinary): void {
  describe(`${binary.name}: rollouts against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });
    const get = async (kind: string, name: string): Promise<Json> =>
      JSON.parse(kubectlOk(await run(["get", kind, name, "-o", "json"]), `get ${kind} ${name}`));
    const replicaSets = async (name: string): Promise<Json[]> =>
      (
        JSON.parse(kubectlOk(await run(["get", "rs", "-l", `app=${name}`, "-o", "json"]), "get rs"))
          .items as Json[]
      ).sort(
        (a, b) =>
          Number(a.metadata.annotations["deployment.kubernetes.io/revision"]) -
          Number(b.metadata.annotations["deployment.kubernetes.io/revision"]),
      );

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("rollout status waits for the pods' readiness, then reports success", async () => {
      kubectlOk(
        await run(["apply", "-f", "-"], app("shop", "nginx:1.27", { readyAfter: 2 })),
        "apply",
      );
      const status = kubectlOk(
        await run(["rollout", "status", "deployment/shop", "--timeout=60s"]),
        "rollout status",
      );
      assert.match(status, /deployment "shop" successfully rolled out\n$/);
      const pods = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "app=shop", "-o", "json"]), "get pods"),
      ).items as Json[];
      assert.equal(pods.length, 3);
      for (const pod of pods) {
        const started = Date.parse(pod.status.containerStatuses[0].state.running.startedAt);
        const ready = pod.status.conditions.find((c: Json) => c.type === "Ready");
        assert.equal(ready.status, "True");
        // Second-precision times: Ready at least initialDelaySeconds (2 s) after the start.
        assert.ok(Date.parse(ready.lastTransitionTime) - started >= 1000, pod.metadata.name);
      }
      const deployment = await get("deployment", "shop");
      const conditions = Object.fromEntries(
        deployment.status.conditions.map((c: Json) => [c.type, `${c.status} ${c.reason}`]),
      );
      assert.deepEqual(conditions, {
        Available: "True MinimumReplicasAvailable",
        Progressing: "True NewReplicaSetAvailable",
      });
      assert.equal(deployment.metadata.annotations["deployment.kubernetes.io/revision"], "1");
      const wait = kubectlOk(
        await run(["wait", "--for=condition=Available", "deployment/shop", "--timeout=30s"]),
        "wait",
      );
      assert.equal(wait.trim(), "deployment.apps/shop condition met");
      // The components' Events tell the story, as on a real cluster.
      const rs = deployment.metadata.name;
      const described = kubectlOk(await run(["describe", "deployment", "shop"]), "describe");
      assert.match(
        described,
        new RegExp(
          `Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+Scaled up replica set ${rs}-[a-z0-9]+ from 0 to 3`,
        ),
      );
      const pod = pods[0].metadata.name;
      const podEvents = kubectlOk(
        await run([
          "get",
          "events",
          "--field-selector",
          `involvedObject.name=${pod}`,
          "-o",
          "json",
        ]),
        "get events",
      );
      assert.deepEqual(
        (JSON.parse(podEvents).items as Json[]).map((e) => [e.reason, e.source.component]),
        [
          ["Scheduled", "default-scheduler"],
          ["Pulled", "kubelet"],
          ["Created", "kubelet"],
          ["Started", "kubelet"],
        ],
      );
    });

    it("kubectl logs: a pod's start-up line, by deployment, with timestamps, and -f until the pod goes", async () => {
      kubectlOk(
        await run(["apply", "-f", "-"], app("logs", "nginx:1.27", { readyAfter: 0 })),
        "apply",
      );
      kubectlOk(
        await run(["rollout", "status", "deployment/logs", "--timeout=60s"]),
        "rollout status",
      );
      const pods = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "app=logs", "-o", "json"]), "get pods"),
      ).items as Json[];
      const pod = pods[0].metadata.name as string;
      assert.equal(kubectlOk(await run(["logs", pod]), "logs"), `${pod}: started\n`);
      const byDeployment = kubectlOk(await run(["logs", "deployment/logs"]), "logs deployment");
      assert.match(byDeployment, /^logs-[a-z0-9]+-[a-z0-9]+: started\n$/);
      assert.match(
        kubectlOk(await run(["logs", pod, "--timestamps"]), "logs --timestamps"),
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S+: started\n$/,
      );
      const missing = await run(["logs", pod, "-c", "sidecar"]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /container sidecar is not valid for pod/);
      const follow = kubectlWatch(ctx, ["logs", "-f", pod]);
      await follow.waitFor((out) => out.includes("started"), 20_000);
      kubectlOk(
        await run(["delete", "pod", pod, "--grace-period=1", "--wait=false"]),
        "delete pod",
      );
      const ended = await follow.exited(30_000);
      assert.equal(ended.code, 0, ended.stderr);
      assert.equal(ended.stdout, `${pod}: started\n`);
    });

    it("a new image rolls out: rollout status follows it to the end, the old ReplicaSet drains", async () => {
      kubectlOk(
        await run(["apply", "-f", "-"], app("shop", "nginx:1.28", { readyAfter: 2 })),
        "apply v2",
      );
      const status = kubectlOk(
        await run(["rollout", "status", "deployment/shop", "--timeout=90s"]),
        "rollout status",
      );
      assert.match(status, /Waiting for deployment "shop" rollout to finish: /);
      assert.match(status, /deployment "shop" successfully rolled out\n$/);
      const sets = await replicaSets("shop");
      assert.deepEqual(
        sets.map((rs) => [
          rs.metadata.annotations["deployment.kubernetes.io/revision"],
          rs.spec.replicas,
          rs.spec.template.spec.containers[0].image,
          rs.metadata.name === `shop-${rs.metadata.labels["pod-template-hash"]}`,
        ]),
        [
          ["1", 0, "nginx:1.27", true],
          ["2", 3, "nginx:1.28", true],
        ],
      );
    });

    it("rollout history lists both revisions with their change-cause", async () => {
      const history = kubectlOk(await run(["rollout", "history", "deployment/shop"]), "history");
      assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
      assert.match(history, /^1\s+deploy nginx:1\.27$/m);
      assert.match(history, /^2\s+deploy nginx:1\.28$/m);
    });

    it("rollout undo returns to revision 1's template, renumbered 3", async () => {
      const undo = kubectlOk(await run(["rollout", "undo", "deployment/shop"]), "undo");
      assert.equal(undo.trim(), "deployment.apps/shop rolled back");
      kubectlOk(
        await run(["rollout", "status", "deployment/shop", "--timeout=90s"]),
        "rollout status",
      );
      const deployment = await get("deployment", "shop");
      assert.equal(deployment.spec.template.spec.containers[0].image, "nginx:1.27");
      assert.equal(deployment.metadata.annotations["deployment.kubernetes.io/revision"], "3");
      const sets = await replicaSets("shop");
      assert.deepEqual(
        sets.map((rs) => [
          rs.metadata.annotations["deployment.kubernetes.io/revision"],
          rs.spec.replicas,
          rs.spec.template.spec.containers[0].image,
        ]),
        [
          ["2", 0, "nginx:1.28"],
          ["3", 3, "nginx:1.27"],
        ],
      );
    });

    it("rollout restart makes a new ReplicaSet of the same image", async () => {
      const restart = kubectlOk(await run(["rollout", "restart", "deployment/shop"]), "restart");
      assert.equal(restart.trim(), "deployment.apps/shop restarted");
      kubectlOk(
        await run(["rollout", "status", "deployment/shop", "--timeout=90s"]),
        "rollout status",
      );
      const sets = await replicaSets("shop");
      assert.equal(sets.length, 3);
      const newest = sets[sets.length - 1]!;
      assert.equal(newest.metadata.annotations["deployment.kubernetes.io/revision"], "4");
      assert.equal(newest.spec.replicas, 3);
      assert.ok(newest.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]);
    });

    it("rollout pause holds a template change until rollout resume", async () => {
      kubectlOk(await run(["rollout", "pause", "deployment/shop"]), "pause");
      kubectlOk(await run(["set", "image", "deployment/shop", "app=nginx:1.29"]), "set image");
      const paused = await get("deployment", "shop");
      const progressing = paused.status.conditions.find((c: Json) => c.type === "Progressing");
      assert.deepEqual(
        [progressing.status, progressing.reason, progressing.message],
        ["Unknown", "DeploymentPaused", "Deployment is paused"],
      );
      assert.equal((await replicaSets("shop")).length, 3, "no ReplicaSet while paused");
      kubectlOk(await run(["rollout", "resume", "deployment/shop"]), "resume");
      kubectlOk(
        await run(["rollout", "status", "deployment/shop", "--timeout=90s"]),
        "rollout status",
      );
      const sets = await replicaSets("shop");
      assert.equal(sets.length, 4);
      assert.equal(sets[3]!.spec.template.spec.containers[0].image, "nginx:1.29");
    });

    it("a rollout past progressDeadlineSeconds fails rollout status", async () => {
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          app("stuck", "nginx:1.27", { readyAfter: 3600, deadline: 2 }),
        ),
        "apply stuck",
      );
      const status = await run(["rollout", "status", "deployment/stuck", "--timeout=60s"]);
      assert.equal(status.code, 1, `${status.stdout}\n${status.stderr}`);
      assert.match(status.stderr, /deployment "stuck" exceeded its progress deadline/);
      const deployment = await get("deployment", "stuck");
      const progressing = deployment.status.conditions.find((c: Json) => c.type === "Progressing");
      assert.equal(progressing.status, "False");
      assert.equal(progressing.reason, "ProgressDeadlineExceeded");
      assert.match(
        progressing.message,
        /^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/,
      );
    });
  });
}
