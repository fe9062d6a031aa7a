// The what-if's edits: decoded as strictly as kube-apiserver decodes a `kubectl patch` (unknown
// fields and int32 overflow refused with 422, naming the field; a body nested too deep 400, a
// body too large 413), and the run made of the very merge patch it prints.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { setDefaultsHorizontalPodAutoscaler } from "../../src/api/defaults.js";
import { FeatureGates } from "../../src/api/featuregates.js";
import { mergePatch } from "../../src/api/patch/merge-patch.js";
import type { HorizontalPodAutoscaler } from "../../src/api/types.js";
import { DashboardData } from "../../src/web/data.js";
import { HpaHistory } from "../../src/web/history.js";
import {
  DashboardAuth,
  type RunningDashboard,
  startDashboardServer,
} from "../../src/web/server.js";
import type { WhatIfEdits } from "../../src/web/types.js";
import { editHpa, parseWhatIfEdits } from "../../src/web/whatif.js";

const GATES = FeatureGates.fromRecord({});

/** As stored: defaulted, with a scale-up of its own. */
function storedHpa(): HorizontalPodAutoscaler {
  return setDefaultsHorizontalPodAutoscaler({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "api", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      minReplicas: 2,
      maxReplicas: 20,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 30,
          selectPolicy: "Min",
          policies: [{ type: "Pods", value: 1, periodSeconds: 120 }],
        },
      },
    },
  } as HorizontalPodAutoscaler);
}

const SCALE_DOWN = {
  scaleDown: {
    stabilizationWindowSeconds: 600,
    policies: [{ type: "Pods" as const, value: 1, periodSeconds: 60 }],
  },
};

/** What `kubectl patch --type merge` makes of the stored HPA (the API server defaults it). */
function patched(hpa: HorizontalPodAutoscaler, patch: unknown): HorizontalPodAutoscaler {
  const out = setDefaultsHorizontalPodAutoscaler(
    structuredClone(mergePatch(hpa, patch)) as HorizontalPodAutoscaler,
  );
  delete out.status;
  return out;
}

describe("the what-if's HPA and its patch", () => {
  it("runs exactly the HPA its printed merge patch makes (the box is the whole behavior)", () => {
    const stored = storedHpa();
    const edit = editHpa(stored, { behavior: SCALE_DOWN }, GATES);
    assert.ok(edit.ok, JSON.stringify(edit));
    // The box held only scaleDown: the scale-up of its own is gone (upstream's default instead)…
    assert.equal(edit.hpa.spec.behavior?.scaleUp?.selectPolicy, "Max");
    assert.equal(edit.hpa.spec.behavior?.scaleDown?.stabilizationWindowSeconds, 600);
    // …and the patch says so: applied to the stored HPA it gives the HPA that ran.
    assert.deepEqual(edit.patch, { spec: { behavior: { ...SCALE_DOWN, scaleUp: null } } });
    assert.deepEqual(patched(stored, edit.patch), edit.hpa);
  });

  it("leaves out the nulls defaulting makes needless, and keeps min/max edits", () => {
    const stored = setDefaultsHorizontalPodAutoscaler({
      ...storedHpa(),
      spec: { ...storedHpa().spec, behavior: undefined },
    });
    const edits: WhatIfEdits = { maxReplicas: 8, behavior: SCALE_DOWN };
    const edit = editHpa(stored, edits, GATES);
    assert.ok(edit.ok);
    // The stored default scale-up and scaleDown.selectPolicy come back as they were.
    assert.deepEqual(edit.patch, { spec: { maxReplicas: 8, behavior: SCALE_DOWN } });
    assert.deepEqual(patched(stored, edit.patch), edit.hpa);
    const removed = editHpa(storedHpa(), { behavior: null }, GATES);
    assert.ok(removed.ok);
    assert.deepEqual(removed.patch, { spec: { behavior: null } });
    assert.deepEqual(patched(storedHpa(), removed.patch), removed.hpa);
  });
});

describe("the what-if's body, decoded as the API server decodes a patch", () => {
  it("refuses an unknown field in behavior with 422, naming it", () => {
    const parsed = parseWhatIfEdits({ behavior: { scaleDwn: SCALE_DOWN.scaleDown } }, "api");
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.equal(parsed.status, 422);
    assert.match(
      parsed.error,
      /^HorizontalPodAutoscaler\.autoscaling "api" is invalid: patch: strict decoding error: unknown field "spec\.behavior\.scaleDwn"$/,
    );
    assert.deepEqual(parsed.causes, [
      'spec.behavior.scaleDwn: strict decoding error: unknown field "spec.behavior.scaleDwn"',
    ]);
  });

  it("refuses a policy value or maxReplicas beyond int32 as encoding/json does", () => {
    const policy = parseWhatIfEdits(
      {
        behavior: {
          scaleUp: { policies: [{ type: "Pods", value: 2147483648, periodSeconds: 60 }] },
        },
      },
      "api",
    );
    assert.ok(!policy.ok && policy.status === 422, JSON.stringify(policy));
    assert.match(
      policy.causes![0]!,
      /^spec\.behavior\.scaleUp\.policies\[0\]\.value: json: cannot unmarshal number 2147483648 .* of type int32$/,
    );
    const max = parseWhatIfEdits({ maxReplicas: 2147483648 }, "api");
    assert.ok(!max.ok && max.status === 422);
    assert.match(
      max.error,
      /cannot unmarshal number 2147483648 into Go struct field HorizontalPodAutoscalerSpec\.spec\.maxReplicas of type int32/,
    );
    const text = parseWhatIfEdits({ minReplicas: "2" }, "api");
    assert.ok(!text.ok && text.status === 422);
    assert.match(
      text.error,
      /cannot unmarshal string into Go struct field .*minReplicas of type int32/,
    );
    assert.ok(parseWhatIfEdits({ maxReplicas: 2147483647, behavior: SCALE_DOWN }, "api").ok);
  });

  it("refuses a body nested past the server's limit with 400", () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const parsed = parseWhatIfEdits({ behavior: deep }, "api");
    assert.ok(!parsed.ok && parsed.status === 400, JSON.stringify(parsed).slice(0, 200));
    assert.match(parsed.error, /exceeded max depth|nesting depth/);
  });
});

describe("the what-if endpoint over HTTP", () => {
  const token = "t";
  let dashboard: RunningDashboard;
  let runs = 0;
  before(async () => {
    const data = new DashboardData({
      history: new HpaHistory({ capacity: 1, clock: { now: Date.now } }),
      hpas: { list: () => [], get: () => undefined, subscribe: () => () => {} },
      source: "simulation",
      whatIf: {
        kind: "simulation",
        run: async () => {
          runs++;
          return { ok: false, status: 404, error: "no such HPA" };
        },
      },
    });
    dashboard = await startDashboardServer({
      host: "127.0.0.1",
      port: 0,
      data,
      auth: new DashboardAuth(token),
    });
  });
  after(() => dashboard.close());

  /** A raw POST: the status and body the client reads, however the server ends the exchange. */
  function post(body: string | Buffer): Promise<{ status: number; body: string }> {
    const url = new URL(`${dashboard.url}/api/v1/namespaces/default/hpas/api/whatif`);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            Authorization: `Bearer ${token}`,
            "Content-Type": "application/json",
            "Content-Length": Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("answers 413 for a body over 64 KiB", async () => {
    for (const size of [70 * 1024, 1024 * 1024]) {
      const answer = await post(JSON.stringify({ behavior: { pad: "x".repeat(size) } }));
      assert.equal(answer.status, 413, `${size} bytes: ${answer.status} ${answer.body}`);
      assert.match(answer.body, /larger than 64 KiB/);
    }
    // The server still answers afterwards.
    assert.equal((await post(JSON.stringify({ maxReplicas: 3 }))).status, 404);
  });

  it("answers 400 for 10,000 levels of nesting, 422 for an unknown field, before any run", async () => {
    const before = runs;
    const deep = `{"behavior":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`;
    const nested = await post(deep);
    assert.equal(nested.status, 400, nested.body.slice(0, 300));
    const unknown = await post(JSON.stringify({ behavior: { scaleDwn: {} } }));
    assert.equal(unknown.status, 422);
    const document = JSON.parse(unknown.body) as { error: string; causes: string[] };
    assert.match(document.error, /unknown field "spec\.behavior\.scaleDwn"/);
    assert.equal(document.causes.length, 1);
    const overflow = await post(
      JSON.stringify({
        behavior: {
          scaleUp: { policies: [{ type: "Pods", value: 2147483648, periodSeconds: 60 }] },
        },
      }),
    );
    assert.equal(overflow.status, 422);
    assert.match(overflow.body, /of type int32/);
    assert.equal(runs, before);
  });
});
