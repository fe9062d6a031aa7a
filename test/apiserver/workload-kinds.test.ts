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
