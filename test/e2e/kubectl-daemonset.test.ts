// End-to-end: DaemonSets driven by the REAL kubectl (1.27 and 1.33) against `horizon up`: one
// pod on the node, `kubectl get ds` with upstream's columns, `rollout status` to the end of a
// rollout of a new image, the daemonset-controller's Events, `rollout history` / `undo` over
// its ControllerRevisions and `get controllerrevisions`, a bad DaemonSet refused, and an HPA
// that targets a DaemonSet failing as upstream's does (no scale subresource). Every wait
// polls or uses kubectl's own watch with a timeout. Without kubectl the tests skip with the
// reason, except under CI=true.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type KubectlBinary,
  type KubectlContext,
  kubectl,
  kubectlOk,
  kubectlsUnderTest,
  pollUntil,
  startTestServer,
  type TestServer,
  tableRows,
} from "./helpers.js";

type Json = ReturnType<typeof JSON.parse>;

function agent(image: string, options: { restartPolicy?: string } = {}): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent" },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: {
          ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
          nodeSelector: { "kubernetes.io/os": "linux" },
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "agent",
              image,
              readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 1 },
            },
          ],
        },
      },
    },
  });
}

for (const binary of kubectlsUnderTest("kubectl-daemonset", { versionedOnly: true }))
  describeDaemonSets(binary);

function describeDaemonSets(binary: KubectlBinary): void {
  describe(`${binary.name}: DaemonSets against horizon up`, () => {
    let server: TestServer;
    let ctx: KubectlContext;
    const run = (args: string[], stdin?: string) =>
      kubectl(ctx, args, stdin === undefined ? {} : { stdin });

    before(async () => {
      server = await startTestServer();
      ctx = server.context(binary);
    });
    after(async () => {
      await server?.up.close();
    });

    it("runs one pod on the node; get ds prints upstream's columns; rollout status ends", async () => {
      kubectlOk(await run(["apply", "-f", "-"], agent("fluentd:1.16")), "apply");
      const status = kubectlOk(
        await run(["rollout", "status", "daemonset/agent", "--timeout=60s"]),
        "rollout status",
      );
      assert.match(status, /daemon set "agent" successfully rolled out\n$/);
      const [header, row] = tableRows(kubectlOk(await run(["get", "ds", "agent"]), "get ds"));
      assert.deepEqual(header, [
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "NODE SELECTOR",
        "AGE",
      ]);
      assert.deepEqual(row?.slice(0, 7), [
        "agent",
        "1",
        "1",
        "1",
        "1",
        "1",
        "kubernetes.io/os=linux",
      ]);
      const wide = tableRows(kubectlOk(await run(["get", "ds", "agent", "-o", "wide"]), "wide"));
      assert.deepEqual(wide[1]?.slice(8), ["agent", "fluentd:1.16", "app=agent"]);
      const pods = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "app=agent", "-o", "json"]), "get pods"),
      ).items as Json[];
      assert.equal(pods.length, 1);
      assert.equal(pods[0].spec.nodeName, "horizon-node");
      assert.equal(pods[0].metadata.ownerReferences[0].kind, "DaemonSet");
    });

    it("a new image rolls out: the old pod goes, rollout status follows it to the end", async () => {
      const before = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "app=agent", "-o", "json"]), "get pods"),
      ).items as Json[];
      kubectlOk(await run(["set", "image", "ds/agent", "agent=fluentd:1.17"]), "set image");
      const status = kubectlOk(
        await run(["rollout", "status", "ds/agent", "--timeout=60s"]),
        "rollout status",
      );
      assert.match(status, /daemon set "agent" successfully rolled out\n$/);
      const pods = await pollUntil(
        "the old pod to go",
        async () => {
          const items = JSON.parse(
            kubectlOk(await run(["get", "pods", "-l", "app=agent", "-o", "json"]), "get pods"),
          ).items as Json[];
          return items.length === 1 ? items : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.equal(pods[0].spec.containers[0].image, "fluentd:1.17");
      assert.notEqual(pods[0].metadata.name, before[0].metadata.name);
      // The new template's count, on the DaemonSet as apps/v1 writes it and on its pod.
      const ds = JSON.parse(kubectlOk(await run(["get", "ds", "agent", "-o", "json"]), "get ds"));
      assert.equal(ds.metadata.annotations["deprecated.daemonset.template.generation"], "2");
      assert.equal(pods[0].metadata.labels["pod-template-generation"], "2");
      const events = JSON.parse(
        kubectlOk(
          await run([
            "get",
            "events",
            "--field-selector",
            "involvedObject.kind=DaemonSet,involvedObject.name=agent",
            "-o",
            "json",
          ]),
          "get events",
        ),
      ).items as Json[];
      assert.deepEqual(
        events.map((e) => [e.reason, e.source.component, e.message]),
        [
          ["SuccessfulCreate", "daemonset-controller", `Created pod: ${before[0].metadata.name}`],
          ["SuccessfulDelete", "daemonset-controller", `Deleted pod: ${before[0].metadata.name}`],
          ["SuccessfulCreate", "daemonset-controller", `Created pod: ${pods[0].metadata.name}`],
        ],
      );
    });

    it("rollout history lists the ControllerRevisions; get controllerrevisions prints upstream's columns", async () => {
      const history = kubectlOk(await run(["rollout", "history", "ds/agent"]), "history");
      assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
      assert.match(history, /^1\s+<none>$/m);
      assert.match(history, /^2\s+<none>$/m);
      const pods = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "app=agent", "-o", "json"]), "get pods"),
      ).items as Json[];
      const hash = pods[0].metadata.labels["controller-revision-hash"];
      const [header, ...rows] = tableRows(
        kubectlOk(await run(["get", "controllerrevisions"]), "get controllerrevisions"),
      );
      assert.deepEqual(header, ["NAME", "CONTROLLER", "REVISION", "AGE"]);
      assert.deepEqual(rows.map((r) => r.slice(1, 3)).sort(), [
        ["daemonset.apps/agent", "1"],
        ["daemonset.apps/agent", "2"],
      ]);
      assert.ok(rows.some((r) => r[0] === `agent-${hash}` && r[2] === "2"));
      const revision = JSON.parse(
        kubectlOk(await run(["get", "controllerrevision", `agent-${hash}`, "-o", "json"]), "get"),
      );
      assert.equal(revision.data.spec.template.$patch, "replace");
      assert.equal(revision.data.spec.template.spec.containers[0].image, "fluentd:1.17");
    });

    it("rollout undo brings the old image back; history then shows 2 and 3", async () => {
      const undo = kubectlOk(await run(["rollout", "undo", "ds/agent"]), "undo");
      assert.equal(undo.trim(), "daemonset.apps/agent rolled back");
      await pollUntil(
        "the old image back on the only pod",
        async () => {
          const items = JSON.parse(
            kubectlOk(await run(["get", "pods", "-l", "app=agent", "-o", "json"]), "get pods"),
          ).items as Json[];
          return items.length === 1 && items[0].spec.containers[0].image === "fluentd:1.16"
            ? items
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const history = kubectlOk(await run(["rollout", "history", "ds/agent"]), "history");
      assert.deepEqual(
        history
          .split("\n")
          .filter((l) => /^\d/.test(l))
          .map((l) => l.split(/\s+/)[0]),
        ["2", "3"],
      );
      const third = kubectlOk(
        await run(["rollout", "history", "ds/agent", "--revision=3"]),
        "history --revision=3",
      );
      assert.match(third, /Image:\s+fluentd:1\.16/);
    });

    it("a DaemonSet whose pods would not restart is refused with upstream's message", async () => {
      const res = await run(
        ["apply", "-f", "-"],
        agent("fluentd:1.16", { restartPolicy: "Never" }).replace('"agent"', '"bad"'),
      );
      assert.notEqual(res.code, 0);
      assert.match(
        res.stderr,
        /spec\.template\.spec\.restartPolicy: Unsupported value: "Never": supported values: "Always"/,
      );
      const get = await run(["get", "ds", "bad"]);
      assert.match(get.stderr, /daemonsets\.apps "bad" not found/);
    });

    it("an HPA targeting a DaemonSet cannot get its scale, as upstream", async () => {
      const hpa = JSON.stringify({
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "agent" },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "DaemonSet", name: "agent" },
          minReplicas: 1,
          maxReplicas: 3,
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
            },
          ],
        },
      });
      kubectlOk(await run(["apply", "-f", "-"], hpa), "apply hpa");
      const condition = await pollUntil(
        "the HPA's AbleToScale condition",
        async () => {
          const got = JSON.parse(
            kubectlOk(await run(["get", "hpa", "agent", "-o", "json"]), "get hpa"),
          );
          return (got.status?.conditions as Json[] | undefined)?.find(
            (c) => c.type === "AbleToScale",
          );
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.deepEqual(
        [condition.status, condition.reason, condition.message],
        [
          "False",
          "FailedGetScale",
          "the HPA controller was unable to get the target's current scale: the server could not find the requested resource",
        ],
      );
    });
  });
}
