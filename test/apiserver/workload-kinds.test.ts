// Validation of the workload kinds beyond Deployments through the API handler, with upstream's
// 422 messages and nothing stored; the cases follow upstream's TestValidateDaemonSet and
// TestValidateRollingUpdateDaemonSet (pkg/apis/apps/validation/validation_test.go) error cases.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = Record<string, unknown>;

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, path: string, body: unknown, contentType?: string) => {
    const req: ApiRequest = {
      method,
      path,
      query: new URLSearchParams(),
      headers: { "content-type": contentType ?? "application/json" },
      body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
    };
    const res = await handler(req);
    const json = ("body" in res ? res.body : {}) as Json;
    return { status: res.status, message: (json.message as string | undefined) ?? "", json };
  };
  return { cluster, call };
}

const container = { name: "app", image: "fluentd:1.16" };
const template = (spec: Json = {}) => ({
  metadata: { labels: { app: "agent" } },
  spec: { containers: [container], ...spec },
});

describe("DaemonSet validation", () => {
  const PATH = "/apis/apps/v1/namespaces/default/daemonsets";
  const daemonSet = (spec: unknown) => ({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent" },
    spec,
  });
  const selector = { matchLabels: { app: "agent" } };
  const cases: { name: string; spec: unknown; message: string }[] = [
    {
      name: "nil selector",
      spec: { template: template() },
      message: "spec.selector: Required value",
    },
    {
      name: "empty selector",
      spec: { selector: {}, template: template() },
      message: "spec.selector: Invalid value: {}: empty selector is invalid for daemonset",
    },
    {
      name: "selector_doesnt_match",
      spec: { selector: { matchLabels: { foo: "bar" } }, template: template() },
      message:
        'spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`',
    },
    {
      name: "invalid restart policy 1",
      spec: { selector, template: template({ restartPolicy: "OnFailure" }) },
      message:
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    },
    {
      name: "invalid restart policy 2",
      spec: { selector, template: template({ restartPolicy: "Never" }) },
      message:
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    },
    {
      name: "activeDeadlineSeconds",
      spec: { selector, template: template({ activeDeadlineSeconds: 10 }) },
      message:
        "spec.template.spec.activeDeadlineSeconds: Invalid value: 10: activeDeadlineSeconds in DaemonSet is not Supported",
    },
    {
      name: "negative minReadySeconds",
      spec: { selector, template: template(), minReadySeconds: -1 },
      message: "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "negative revisionHistoryLimit",
      spec: { selector, template: template(), revisionHistoryLimit: -1 },
      message: "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "an update strategy type that does not exist",
      spec: { selector, template: template(), updateStrategy: { type: "Recreate" } },
      message:
        'spec.updateStrategy: Unsupported value: {"Type":"Recreate","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"',
    },
    {
      name: "maxUnavailable negative",
      spec: {
        selector,
        template: template(),
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: -1 } },
      },
      message:
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "maxUnavailable above 100%",
      spec: {
        selector,
        template: template(),
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "101%" } },
      },
      message:
        'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%',
    },
    {
      name: "both zero",
      spec: {
        selector,
        template: template(),
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } },
      },
      message:
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
    },
    {
      name: "both non-zero",
      spec: {
        selector,
        template: template(),
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: 1, maxSurge: "10%" },
        },
      },
      message:
        'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: 422 and nothing stored`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", PATH, daemonSet(c.spec));
      assert.equal(res.status, 422, res.message);
      assert.equal(res.message, `DaemonSet.apps "agent" is invalid: ${c.message}`);
      assert.equal(cluster.store.get("DaemonSet", "default", "agent"), undefined);
    });
  }

  it("is defaulted on create and keeps its selector on update", async () => {
    const { call } = setup();
    const created = await call("POST", PATH, daemonSet({ selector, template: template() }));
    assert.equal(created.status, 201, created.message);
    const spec = created.json.spec as Json;
    assert.deepEqual(spec.updateStrategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(((spec.template as Json).spec as Json).restartPolicy, "Always");
    const res = await call(
      "PATCH",
      `${PATH}/agent`,
      { spec: { selector: { matchLabels: { app: "agent", tier: "a" } } } },
      "application/merge-patch+json",
    );
    assert.equal(res.status, 422);
    assert.match(res.message, /spec\.selector: Invalid value: .*: field is immutable/);
  });

  it("has no scale subresource, so an HPA cannot scale it", async () => {
    const { call } = setup();
    assert.equal(
      (await call("POST", PATH, daemonSet({ selector, template: template() }))).status,
      201,
    );
    const res = await call("GET", `${PATH}/agent/scale`, undefined);
    assert.equal(res.status, 404);
  });
});

describe("Job validation", () => {
  const PATH = "/apis/batch/v1/namespaces/default/jobs";
  const jobOf = (spec: Json, templateSpec: Json = { restartPolicy: "Never" }, meta: Json = {}) => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi" },
    spec: {
      ...spec,
      template: { metadata: meta, spec: { containers: [container], ...templateSpec } },
    },
  });
  const cases: { name: string; body: unknown; message: string }[] = [
    {
      name: "no restartPolicy (defaulted to Always)",
      body: jobOf({}, {}),
      message:
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    },
    {
      name: "restartPolicy Always",
      body: jobOf({}, { restartPolicy: "Always" }),
      message:
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    },
    {
      name: "negative completions",
      body: jobOf({ completions: -1 }),
      message: "spec.completions: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "negative parallelism",
      body: jobOf({ parallelism: -1 }),
      message: "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "negative backoffLimit",
      body: jobOf({ backoffLimit: -1 }),
      message: "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "an unknown completion mode",
      body: jobOf({ completionMode: "Foo" }),
      message:
        'spec.completionMode: Unsupported value: "Foo": supported values: "NonIndexed", "Indexed"',
    },
    {
      name: "Indexed without completions",
      body: jobOf({ completionMode: "Indexed", parallelism: 2 }),
      message: "spec.completions: Required value: when completion mode is Indexed",
    },
    {
      name: "a manual selector that does not select the template",
      body: jobOf(
        { manualSelector: true, selector: { matchLabels: { app: "x" } } },
        { restartPolicy: "Never" },
        { labels: { app: "y" } },
      ),
      message:
        'spec.template.metadata.labels: Invalid value: {"app":"y"}: `selector` does not match template `labels`',
    },
    {
      name: "a run duration that is not a duration",
      body: jobOf(
        {},
        { restartPolicy: "Never" },
        { annotations: { "horizon.dev/run-duration": "soon" } },
      ),
      message:
        'spec.template.metadata.annotations[horizon.dev/run-duration]: Invalid value: "soon": time: invalid duration "soon" (expected e.g. 15s, 5m0s, 1h30m, 300ms)',
    },
    {
      name: "an exit code out of range",
      body: jobOf(
        {},
        { restartPolicy: "Never" },
        { annotations: { "horizon.dev/exit-code": "256" } },
      ),
      message:
        'spec.template.metadata.annotations[horizon.dev/exit-code]: Invalid value: "256": must be an exit code from 0 to 255',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: 422 and nothing stored`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", PATH, c.body);
      assert.equal(res.status, 422, res.message);
      assert.equal(res.message, `Job.batch "pi" is invalid: ${c.message}`);
      assert.equal(cluster.store.get("Job", "default", "pi"), undefined);
    });
  }

  it("is created with its generated selector and defaults; template and completions stay fixed", async () => {
    const { call } = setup();
    const created = await call("POST", PATH, jobOf({}));
    assert.equal(created.status, 201, created.message);
    const metadata = created.json.metadata as Json;
    const uid = metadata.uid as string;
    const spec = created.json.spec as Json;
    assert.deepEqual(spec.selector, { matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
    const labels = {
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": "pi",
      "controller-uid": uid,
      "job-name": "pi",
    };
    assert.deepEqual(((spec.template as Json).metadata as Json).labels, labels);
    // A Job without labels takes its template's, as a real server's read back shows.
    assert.deepEqual(metadata.labels, labels);
    assert.deepEqual(
      [spec.completions, spec.parallelism, spec.backoffLimit, spec.completionMode, spec.suspend],
      [1, 1, 6, "NonIndexed", false],
    );
    const patch = async (body: Json) =>
      call("PATCH", `${PATH}/pi`, body, "application/strategic-merge-patch+json");
    const image = await patch({
      spec: { template: { spec: { containers: [{ name: "app", image: "perl:5.36" }] } } },
    });
    assert.equal(image.status, 422);
    assert.match(image.message, /spec\.template: Invalid value: .*: field is immutable/);
    const completions = await patch({ spec: { completions: 3 } });
    assert.equal(completions.status, 422);
    assert.match(completions.message, /spec\.completions: Invalid value: 3: field is immutable/);
    // What may change: parallelism, suspend.
    const parallelism = await patch({ spec: { parallelism: 0 } });
    assert.equal(parallelism.status, 200, parallelism.message);
  });
});

describe("CronJob validation", () => {
  const PATH = "/apis/batch/v1/namespaces/default/cronjobs";
  const cronJobOf = (spec: Json, jobSpec: Json = {}, name = "tick") => ({
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name },
    spec: {
      schedule: "*/5 * * * *",
      ...spec,
      jobTemplate: {
        spec: {
          ...jobSpec,
          template: { spec: { restartPolicy: "OnFailure", containers: [container] } },
        },
      },
    },
  });
  const cases: { name: string; body: unknown; message: string; object?: string }[] = [
    {
      name: "no schedule",
      body: cronJobOf({ schedule: "" }),
      message: "spec.schedule: Required value",
    },
    {
      name: "a schedule with six fields",
      body: cronJobOf({ schedule: "0 */5 * * * *" }),
      message:
        'spec.schedule: Invalid value: "0 */5 * * * *": expected exactly 5 fields, found 6: [0 */5 * * * *]',
    },
    {
      name: "a minute out of range",
      body: cronJobOf({ schedule: "61 * * * *" }),
      message:
        'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    },
    {
      name: "an unknown descriptor",
      body: cronJobOf({ schedule: "@sometimes" }),
      message: 'spec.schedule: Invalid value: "@sometimes": unrecognized descriptor: @sometimes',
    },
    {
      name: "TZ in the schedule",
      body: cronJobOf({ schedule: "TZ=UTC 0 * * * *" }),
      message:
        'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    },
    {
      name: "an unknown time zone",
      body: cronJobOf({ timeZone: "Mars/Olympus" }),
      message: 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    },
    {
      name: "the Local time zone",
      body: cronJobOf({ timeZone: "Local" }),
      message:
        'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    },
    {
      name: "an unknown concurrency policy",
      body: cronJobOf({ concurrencyPolicy: "Sometimes" }),
      message:
        'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    },
    {
      name: "a negative history limit",
      body: cronJobOf({ failedJobsHistoryLimit: -1 }),
      message: "spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
    },
    {
      name: "a job template with a selector",
      body: cronJobOf({}, { selector: { matchLabels: { a: "b" } } }),
      message:
        'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
    },
    {
      name: "a name too long for its Jobs' names",
      body: cronJobOf({}, {}, "a".repeat(53)),
      object: "a".repeat(53),
      message: `metadata.name: Invalid value: "${"a".repeat(53)}": must be no more than 52 characters`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: 422 and nothing stored`, async () => {
      const { cluster, call } = setup();
      const res = await call("POST", PATH, c.body);
      assert.equal(res.status, 422, res.message);
      assert.equal(res.message, `CronJob.batch "${c.object ?? "tick"}" is invalid: ${c.message}`);
      assert.equal(cluster.store.list("CronJob").length, 0);
    });
  }

  it("a job template whose pods would restart Always is refused", async () => {
    const { call } = setup();
    const body = cronJobOf({});
    (body.spec.jobTemplate.spec.template.spec as Json).restartPolicy = "Always";
    const res = await call("POST", PATH, body);
    assert.equal(res.status, 422);
    assert.equal(
      res.message,
      'CronJob.batch "tick" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
  });

  it("is defaulted on create; @hourly and a time zone are accepted", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      PATH,
      cronJobOf({ schedule: "@hourly", timeZone: "Europe/Paris" }),
    );
    assert.equal(res.status, 201, res.message);
    const spec = res.json.spec as Json;
    assert.deepEqual(
      [
        spec.concurrencyPolicy,
        spec.suspend,
        spec.successfulJobsHistoryLimit,
        spec.failedJobsHistoryLimit,
      ],
      ["Allow", false, 3, 1],
    );
    const template = ((spec.jobTemplate as Json).spec as Json).template as Json;
    assert.equal((template.spec as Json).dnsPolicy, "ClusterFirst");
  });
});
