// Load driven at a Service (`horizon load`): the annotation's format, the load model, and the
// embedded cluster adding it to the demand of the workloads the Service selects.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../../src/api/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import {
  formatLoadAnnotation,
  LOAD_ANNOTATION,
  loadRpsAt,
  loadTraffic,
  parseLoadAnnotation,
  ServiceLoads,
  serviceSelects,
} from "../../src/cluster/load.js";
import { trafficAt } from "../../src/cluster/traffic.js";
import { applyScenarioEvent, clusterModelOf } from "../../src/sim/cluster.js";
import type { TrafficModel } from "../../src/sim/scenario-types.js";
import { at, deployment, scenario, T0, WEB, workloadModel } from "./builders.js";

function service(
  options: {
    name?: string;
    namespace?: string;
    selector?: Record<string, string> | null;
    load?: string;
  } = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: options.name ?? "web",
      namespace: options.namespace ?? "default",
      ...(options.load !== undefined ? { annotations: { [LOAD_ANNOTATION]: options.load } } : {}),
    },
    spec: {
      ...(options.selector === null ? {} : { selector: options.selector ?? { app: "web" } }),
      ports: [{ port: 80 }],
    },
  };
}

describe("parseLoadAnnotation", () => {
  const cases = [
    { name: "rps only: no expiry", text: '{"rps":50}', load: { rps: 50, untilMs: null } },
    {
      name: "rps and an RFC 3339 expiry",
      text: '{"rps":12.5,"until":"2026-01-01T12:05:00.000Z"}',
      load: { rps: 12.5, untilMs: at(300) },
    },
    {
      name: "an expiry with a zone offset",
      text: '{"rps":1,"until":"2026-01-01T13:00:00+01:00"}',
      load: { rps: 1, untilMs: T0 },
    },
    {
      name: "until null: no expiry",
      text: '{"rps":3,"until":null}',
      load: { rps: 3, untilMs: null },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(parseLoadAnnotation(c.text), { ok: true, load: c.load });
    });
  }

  const errors = [
    { name: "not JSON", text: "50", error: /must be a JSON object/ },
    { name: "garbage", text: "{rps:50}", error: /not JSON/ },
    { name: "an array", text: "[50]", error: /must be a JSON object/ },
    { name: "rps missing", text: "{}", error: /rps must be a number > 0/ },
    { name: "rps zero", text: '{"rps":0}', error: /rps must be a number > 0/ },
    { name: "rps negative", text: '{"rps":-1}', error: /rps must be a number > 0/ },
    { name: "rps a string", text: '{"rps":"50"}', error: /rps must be a number > 0/ },
    { name: "unknown field", text: '{"rps":5,"for":"1m"}', error: /unknown field "for"/ },
    { name: "until not a time", text: '{"rps":5,"until":"soon"}', error: /RFC 3339/ },
    {
      name: "until without a zone",
      text: '{"rps":5,"until":"2026-01-01T12:00:00"}',
      error: /RFC 3339/,
    },
  ];
  for (const c of errors) {
    it(`rejects ${c.name}`, () => {
      const parsed = parseLoadAnnotation(c.text);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.error, c.error);
    });
  }

  it("format then parse gives the load back (ms-precision expiries)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
        (rps, untilMs) => {
          const load = { rps, untilMs };
          assert.deepEqual(parseLoadAnnotation(formatLoadAnnotation(load)), { ok: true, load });
        },
      ),
    );
  });
});

describe("the load model", () => {
  const cases = [
    { name: "no expiry: always on", load: { rps: 40, untilMs: null }, now: at(1e6), rps: 40 },
    { name: "before the expiry", load: { rps: 40, untilMs: at(60) }, now: at(59.999), rps: 40 },
    { name: "at the expiry: off", load: { rps: 40, untilMs: at(60) }, now: at(60), rps: 0 },
    { name: "after the expiry", load: { rps: 40, untilMs: at(60) }, now: at(61), rps: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(loadRpsAt(c.load, c.now), c.rps);
    });
  }

  it("the traffic model gives loadRpsAt on the scenario clock", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
        fc.option(fc.integer({ min: -100_000, max: 100_000 }), { nil: null }),
        fc.integer({ min: -200_000, max: 200_000 }),
        (rps, untilOffset, tOffset) => {
          const load = { rps, untilMs: untilOffset === null ? null : T0 + untilOffset };
          const model = loadTraffic(load, T0);
          assert.equal(trafficAt([model], tOffset), loadRpsAt(load, T0 + tOffset));
        },
      ),
    );
  });
});

describe("serviceSelects", () => {
  const cases: {
    name: string;
    selector: Record<string, string> | undefined;
    labels: Record<string, string>;
    selects: boolean;
  }[] = [
    { name: "equal labels", selector: { app: "web" }, labels: { app: "web" }, selects: true },
    {
      name: "a subset of the pod's labels",
      selector: { app: "web" },
      labels: { app: "web", "pod-template-hash": "abc" },
      selects: true,
    },
    { name: "a different value", selector: { app: "web" }, labels: { app: "api" }, selects: false },
    {
      name: "a key the pod lacks",
      selector: { app: "web", tier: "fe" },
      labels: { app: "web" },
      selects: false,
    },
    {
      name: "no selector selects nothing",
      selector: undefined,
      labels: { app: "web" },
      selects: false,
    },
    {
      name: "an empty selector selects nothing",
      selector: {},
      labels: { app: "web" },
      selects: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(serviceSelects(c.selector, c.labels), c.selects);
    });
  }
});

describe("ServiceLoads", () => {
  const own: TrafficModel = { type: "constant", rps: 7 };

  it("adds a Service's load to the traffic of matching pods, in its namespace only", () => {
    const loads = new ServiceLoads(T0);
    assert.equal(loads.update("ADDED", service({ load: '{"rps":30}' })), true);
    const traffic = loads.withLoads([own], "default", { app: "web" });
    assert.equal(trafficAt(traffic, 0), 37);
    assert.deepEqual(loads.withLoads([own], "other", { app: "web" }), [own]);
    assert.deepEqual(loads.withLoads([own], "default", { app: "api" }), [own]);
    assert.deepEqual(loads.loadsFor("default", { app: "web" }), [{ rps: 30, untilMs: null }]);
  });

  it("replaces its own models on change and keeps the workload's", () => {
    const loads = new ServiceLoads(T0);
    loads.update("ADDED", service({ load: '{"rps":30}' }));
    let traffic = loads.withLoads([own], "default", { app: "web" });
    // The same state again: the very same array, nothing reallocated.
    assert.equal(loads.withLoads(traffic, "default", { app: "web" }), traffic);
    assert.equal(loads.update("MODIFIED", service({ load: '{"rps":30}' })), false);
    assert.equal(loads.update("MODIFIED", service({ load: '{"rps":5}' })), true);
    traffic = loads.withLoads(traffic, "default", { app: "web" });
    assert.equal(trafficAt(traffic, 0), 12);
    assert.equal(traffic.length, 2);
    assert.equal(loads.update("MODIFIED", service({})), true);
    traffic = loads.withLoads(traffic, "default", { app: "web" });
    assert.deepEqual(traffic, [own]);
  });

  it("two Services selecting the same pods add up; deleting one removes its load", () => {
    const loads = new ServiceLoads(T0);
    loads.update("ADDED", service({ name: "a", load: '{"rps":10}' }));
    loads.update("ADDED", service({ name: "b", load: '{"rps":20}' }));
    assert.equal(trafficAt(loads.withLoads([], "default", { app: "web" }), 0), 30);
    assert.equal(loads.update("DELETED", service({ name: "a", load: '{"rps":10}' })), true);
    assert.equal(trafficAt(loads.withLoads([], "default", { app: "web" }), 0), 20);
  });

  it("a malformed annotation is no load; a Service without a selector loads nobody", () => {
    const loads = new ServiceLoads(T0);
    assert.equal(loads.update("ADDED", service({ load: "fifty" })), false);
    loads.update("ADDED", service({ name: "headless", selector: null, load: '{"rps":9}' }));
    assert.deepEqual(loads.withLoads([own], "default", { app: "web" }), [own]);
  });

  it("an expiring load steps to zero at `until`", () => {
    const loads = new ServiceLoads(T0);
    loads.update("ADDED", service({ load: formatLoadAnnotation({ rps: 8, untilMs: at(60) }) }));
    const traffic = loads.withLoads([], "default", { app: "web" });
    assert.equal(trafficAt(traffic, 59_999), 8);
    assert.equal(trafficAt(traffic, 60_000), 0);
  });
});

describe("the embedded cluster with Service loads", () => {
  const cluster = (traffic: TrafficModel[] = []) => {
    const c = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [workloadModel({ traffic })] })),
      startTime: T0,
    });
    c.create(deployment({ replicas: 2 }));
    return c;
  };

  it("a Service's load adds to the scenario's traffic of the workload it selects", () => {
    const c = cluster([{ type: "constant", rps: 5 }]);
    c.advanceTo(at(10));
    assert.equal(c.snapshot(WEB).demandRps, 5);
    c.store.create(service({ load: '{"rps":40}' }));
    assert.equal(c.snapshot(WEB).demandRps, 45);
    // Removing the annotation (horizon load --stop) removes the load.
    const current = c.store.get("Service", "default", "web")!;
    c.store.update({
      ...current,
      metadata: { ...current.metadata, annotations: {}, resourceVersion: undefined },
    });
    assert.equal(c.snapshot(WEB).demandRps, 5);
  });

  it("the load ends at its expiry, and CPU usage follows", () => {
    const c = cluster();
    c.store.create(service({ load: formatLoadAnnotation({ rps: 100, untilMs: at(120) }) }));
    c.advanceTo(at(60));
    assert.equal(c.snapshot(WEB).demandRps, 100);
    // 2 ready pods share 100 rps: 50m base + 10m × 50 rps each, over a 100m request.
    assert.equal(c.snapshot(WEB).cpuUtilization, 550);
    c.advanceTo(at(130));
    assert.equal(c.snapshot(WEB).demandRps, 0);
    assert.equal(c.snapshot(WEB).cpuUtilization, 50);
  });

  it("a workload created after the Service gets its load; one with other labels does not", () => {
    const c = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [] })),
      startTime: T0,
    });
    c.store.create(service({ load: '{"rps":15}' }));
    c.create(deployment({ name: "web" }));
    c.create(deployment({ name: "api" }));
    assert.equal(c.snapshot(WEB).demandRps, 15);
    assert.equal(c.snapshot({ ...WEB, name: "api" }).demandRps, 0);
  });

  it("a setTraffic event keeps the Service's load", () => {
    const c = cluster([{ type: "constant", rps: 5 }]);
    c.store.create(service({ load: '{"rps":40}' }));
    applyScenarioEvent(
      {
        atMs: 0,
        type: "setTraffic",
        workload: WEB,
        traffic: [{ type: "constant", rps: 1 }],
      },
      { cluster: c, controller: null, now: c.now },
    );
    assert.equal(c.snapshot(WEB).demandRps, 41);
  });

  it("a store restored with an annotated Service starts with its load", () => {
    const first = cluster();
    first.store.create(service({ load: '{"rps":25}' }));
    const restored = new EmbeddedCluster({
      model: clusterModelOf(scenario({ workloads: [workloadModel()] })),
      startTime: T0,
      store: first.store,
    });
    assert.equal(restored.snapshot(WEB).demandRps, 25);
  });
});
