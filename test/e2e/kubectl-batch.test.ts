// End-to-end: Jobs and CronJobs driven by the REAL kubectl (1.27 and 1.33) against `horizon
// up`: `kubectl create job|cronjob` (protobuf from 1.32), pods that complete after the template's
// run duration, `kubectl wait --for=condition=Complete|Failed`, `kubectl get jobs|cronjobs` with
// the columns the server sends (kubectl 1.27 prints STATUS too), `describe`, `kubectl create job
// --from=cronjob/…`, a CronJob's scheduled Job, and a Job refused with upstream's message. Every wait uses kubectl's own watch with a timeout. Without kubectl the tests skip
// with the reason, except under CI=true.
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

function jobManifest(
  name: string,
  spec: Json,
  annotations: Record<string, string>,
  restartPolicy: string | null = "Never",
): string {
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { annotations },
        spec: {
          ...(restartPolicy ? { restartPolicy } : {}),
          containers: [{ name: "work", image: "busybox:1.36", command: ["sh", "-c", "true"] }],
        },
      },
    },
  });
}

for (const binary of kubectlsUnderTest("kubectl-batch", { versionedOnly: true }))
  describeJobs(binary);

function describeJobs(binary: KubectlBinary): void {
  describe(`${binary.name}: Jobs against horizon up`, () => {
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

    it("kubectl create job: its pod runs 5 s and succeeds; wait --for=condition=Complete", async () => {
      kubectlOk(
        await run(["create", "job", "pi", "--image=perl:5.34", "--", "perl", "-e", "1"]),
        "create job",
      );
      const wait = kubectlOk(
        await run(["wait", "--for=condition=Complete", "job/pi", "--timeout=60s"]),
        "wait",
      );
      assert.equal(wait.trim(), "job.batch/pi condition met");
      const [header, row] = tableRows(kubectlOk(await run(["get", "jobs"]), "get jobs"));
      assert.deepEqual(header, ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
      assert.deepEqual(row?.slice(0, 4), ["pi", "Complete", "1/1", "5s"]);
      const job = JSON.parse(kubectlOk(await run(["get", "job", "pi", "-o", "json"]), "get job"));
      assert.deepEqual(
        job.status.conditions.map((c: Json) => [c.type, c.status, c.reason]),
        [
          ["SuccessCriteriaMet", "True", "CompletionsReached"],
          ["Complete", "True", "CompletionsReached"],
        ],
      );
      assert.equal(Date.parse(job.status.completionTime) - Date.parse(job.status.startTime), 5000);
      const pods = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "job-name=pi", "-o", "json"]), "get pods"),
      ).items as Json[];
      assert.equal(pods.length, 1);
      assert.equal(pods[0].status.phase, "Succeeded");
      assert.deepEqual(pods[0].spec.containers[0].command, ["perl", "-e", "1"]);
      const described = kubectlOk(await run(["describe", "job", "pi"]), "describe");
      assert.match(described, /Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed/);
      assert.match(described, /Normal\s+Completed\s+\S+\s+job-controller\s+Job completed/);
    });

    it("parallel pods until completions; a failing Job is Failed past its backoffLimit", async () => {
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          jobManifest(
            "batch",
            { completions: 4, parallelism: 2 },
            { "horizon.dev/run-duration": "1s" },
          ),
        ),
        "apply",
      );
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          jobManifest(
            "broken",
            { backoffLimit: 0 },
            { "horizon.dev/run-duration": "1s", "horizon.dev/exit-code": "2" },
          ),
        ),
        "apply broken",
      );
      kubectlOk(
        await run(["wait", "--for=condition=Complete", "job/batch", "--timeout=60s"]),
        "wait batch",
      );
      kubectlOk(
        await run(["wait", "--for=condition=Failed", "job/broken", "--timeout=60s"]),
        "wait broken",
      );
      const rows = tableRows(kubectlOk(await run(["get", "jobs", "batch", "broken"]), "get"));
      assert.deepEqual(
        rows.slice(1).map((r) => r.slice(0, 3)),
        [
          ["batch", "Complete", "4/4"],
          ["broken", "Failed", "0/1"],
        ],
      );
      const broken = JSON.parse(
        kubectlOk(await run(["get", "job", "broken", "-o", "json"]), "get broken"),
      );
      assert.equal(broken.status.failed, 1);
      assert.equal(
        broken.status.conditions.find((c: Json) => c.type === "Failed").reason,
        "BackoffLimitExceeded",
      );
      const pod = JSON.parse(
        kubectlOk(await run(["get", "pods", "-l", "job-name=broken", "-o", "json"]), "pods"),
      ).items[0];
      assert.equal(pod.status.phase, "Failed");
      assert.equal(pod.status.containerStatuses[0].state.terminated.exitCode, 2);
    });

    it("kubectl create cronjob; get cronjobs; create job --from=cronjob; a scheduled run", async () => {
      kubectlOk(
        await run([
          "create",
          "cronjob",
          "nightly",
          "--image=busybox:1.36",
          "--schedule=0 3 * * *",
          "--",
          "true",
        ]),
        "create cronjob",
      );
      const [header, row] = tableRows(kubectlOk(await run(["get", "cronjobs"]), "get cronjobs"));
      assert.deepEqual(header, [
        "NAME",
        "SCHEDULE",
        "TIMEZONE",
        "SUSPEND",
        "ACTIVE",
        "LAST SCHEDULE",
        "AGE",
      ]);
      assert.deepEqual(row?.slice(0, 6), [
        "nightly",
        "0 3 * * *",
        "<none>",
        "False",
        "0",
        "<none>",
      ]);
      kubectlOk(
        await run(["create", "job", "nightly-by-hand", "--from=cronjob/nightly"]),
        "create job --from",
      );
      const manual = JSON.parse(
        kubectlOk(await run(["get", "job", "nightly-by-hand", "-o", "json"]), "get job"),
      );
      assert.equal(manual.metadata.annotations["cronjob.kubernetes.io/instantiate"], "manual");
      assert.deepEqual(
        manual.metadata.ownerReferences.map((r: Json) => [r.kind, r.name]),
        [["CronJob", "nightly"]],
      );
      kubectlOk(
        await run(["wait", "--for=condition=Complete", "job/nightly-by-hand", "--timeout=60s"]),
        "wait manual",
      );
      // A schedule that is due at once: its Job is created on the cluster's clock and completes.
      kubectlOk(
        await run(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "batch/v1",
            kind: "CronJob",
            metadata: { name: "often" },
            spec: {
              schedule: "@every 1s",
              concurrencyPolicy: "Forbid",
              jobTemplate: {
                spec: JSON.parse(jobManifest("x", {}, { "horizon.dev/run-duration": "1s" })).spec,
              },
            },
          }),
        ),
        "apply cronjob",
      );
      const cron = await pollUntil(
        "the CronJob's first Job to complete",
        async () => {
          const got = JSON.parse(
            kubectlOk(await run(["get", "cronjob", "often", "-o", "json"]), "get cronjob"),
          );
          return got.status?.lastSuccessfulTime ? got : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.ok(cron.status.lastScheduleTime);
      const jobs = JSON.parse(kubectlOk(await run(["get", "jobs", "-o", "json"]), "get jobs"))
        .items as Json[];
      const scheduled = jobs.filter((j) => j.metadata.ownerReferences?.[0]?.name === "often");
      assert.ok(scheduled.length >= 1);
      assert.match(scheduled[0].metadata.name, /^often-\d+$/);
      const events = JSON.parse(
        kubectlOk(
          await run([
            "get",
            "events",
            "--field-selector",
            "involvedObject.kind=CronJob,involvedObject.name=often",
            "-o",
            "json",
          ]),
          "events",
        ),
      ).items as Json[];
      const reasons = events.map((e) => e.reason);
      assert.ok(reasons.includes("SuccessfulCreate"), reasons.join());
      assert.ok(reasons.includes("SawCompletedJob"), reasons.join());
    });

    it("a Job whose pods would restart forever is refused with upstream's message", async () => {
      const res = await run(["apply", "-f", "-"], jobManifest("forever", {}, {}, null));
      assert.notEqual(res.code, 0);
      assert.match(
        res.stderr,
        /spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"/,
      );
      const get = await run(["get", "job", "forever"]);
      assert.match(get.stderr, /jobs\.batch "forever" not found/);
    });
  });
}
