// LimitRange, ResourceQuota and PriorityClass through the API handler: upstream's validation
// messages (nothing stored on a 422), defaulting (a Container item's default limit from max and
// default request from the default limit or min; a PriorityClass's preemption policy), the
// system priority classes, and the update rules.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { handlerOverCluster } from "./handler-call.js";

const setup = handlerOverCluster;

const LIMITS = "/api/v1/namespaces/default/limitranges";
const QUOTAS = "/api/v1/namespaces/default/resourcequotas";
const CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses";
const limitRange = (limits: unknown[]) => ({
  apiVersion: "v1",
  kind: "LimitRange",
  metadata: { name: "lr" },
  spec: { limits },
});
const quota = (spec: unknown) => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "q" },
  spec,
});
const priorityClass = (name: string, fields: Record<string, unknown>) => ({
  apiVersion: "scheduling.k8s.io/v1",
  kind: "PriorityClass",
  metadata: { name },
  ...fields,
});

const REFUSED: { name: string; path: string; body: unknown; message: string }[] = [
  {
    name: "LimitRange: min above max",
    path: LIMITS,
    body: limitRange([{ type: "Container", min: { cpu: "2" }, max: { cpu: "1" } }]),
    message: 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
  },
  {
    name: "LimitRange: default request above the default limit",
    path: LIMITS,
    body: limitRange([
      { type: "Container", default: { memory: "128Mi" }, defaultRequest: { memory: "256Mi" } },
    ]),
    message:
      'spec.limits[0].defaultRequest[memory]: Invalid value: "256Mi": default request value 256Mi is greater than default limit value 128Mi',
  },
  {
    name: "LimitRange: defaults on a Pod item",
    path: LIMITS,
    body: limitRange([{ type: "Pod", default: { cpu: "1" } }]),
    message: "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
  },
  {
    name: "LimitRange: an unknown type",
    path: LIMITS,
    body: limitRange([{ type: "Node", max: { cpu: "1" } }]),
    message:
      'spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified',
  },
  {
    name: "LimitRange: a resource containers do not have",
    path: LIMITS,
    body: limitRange([{ type: "Container", max: { pods: "1" } }]),
    message:
      'spec.limits[0].max[pods]: Invalid value: "pods": must be a standard resource for containers',
  },
  {
    name: "LimitRange: the same type twice",
    path: LIMITS,
    body: limitRange([
      { type: "Container", max: { cpu: "1" } },
      { type: "Container", max: { cpu: "2" } },
    ]),
    message: 'spec.limits[1].type: Duplicate value: "Container"',
  },
  {
    name: "ResourceQuota: an unknown resource",
    path: QUOTAS,
    body: quota({ hard: { cpus: "4" } }),
    message: 'spec.hard[cpus]: Invalid value: "cpus": must be a standard resource for quota',
  },
  {
    name: "ResourceQuota: a fraction of a pod",
    path: QUOTAS,
    body: quota({ hard: { pods: "1500m" } }),
    message: 'spec.hard[pods]: Invalid value: "1500m": must be an integer',
  },
  {
    name: "ResourceQuota: a negative quantity",
    path: QUOTAS,
    body: quota({ hard: { "requests.cpu": "-1" } }),
    message: 'spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0',
  },
  {
    name: "ResourceQuota: an unknown scope",
    path: QUOTAS,
    body: quota({ hard: { pods: "1" }, scopes: ["Cheap"] }),
    message: 'spec.scopes[0]: Unsupported value: "Cheap"',
  },
  {
    name: "PriorityClass: above the user maximum",
    path: CLASSES,
    body: priorityClass("huge", { value: 1_000_000_001 }),
    message: "value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
  },
  {
    name: "PriorityClass: a reserved name",
    path: CLASSES,
    body: priorityClass("system-mine", { value: 10 }),
    message:
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: name system-mine is not a known system priority class",
  },
  {
    name: "PriorityClass: an unknown preemption policy",
    path: CLASSES,
    body: priorityClass("p", { value: 10, preemptionPolicy: "Sometimes" }),
    message: 'preemptionPolicy: Unsupported value: "Sometimes"',
  },
];

describe("LimitRange, ResourceQuota, PriorityClass: refused as upstream", () => {
  for (const c of REFUSED) {
    it(c.name, async () => {
      const { call } = setup();
      const res = await call("POST", c.path, c.body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.ok(
        String(res.body.message).includes(c.message),
        `message ${JSON.stringify(res.body.message)} should include ${JSON.stringify(c.message)}`,
      );
      const list = await call("GET", c.path);
      const names = (list.body.items as { metadata: { name: string } }[]).map(
        (o) => o.metadata.name,
      );
      assert.deepEqual(
        names.filter((n) => !n.startsWith("system-")),
        [],
        "nothing stored",
      );
    });
  }
});

describe("defaults", () => {
  it("a Container item's default limit comes from max, its default request from the default or min", async () => {
    const { call } = setup();
    const res = await call(
      "POST",
      LIMITS,
      limitRange([
        { type: "Container", max: { cpu: "2" }, min: { memory: "64Mi" } },
        { type: "Pod", max: { cpu: "4" } },
      ]),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.spec.limits, [
      {
        type: "Container",
        max: { cpu: "2" },
        min: { memory: "64Mi" },
        default: { cpu: "2" },
        defaultRequest: { cpu: "2", memory: "64Mi" },
      },
      { type: "Pod", max: { cpu: "4" } },
    ]);
  });

  it("a PriorityClass preempts lower priorities unless told not to", async () => {
    const { call } = setup();
    const res = await call("POST", CLASSES, priorityClass("batch", { value: 100 }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.preemptionPolicy, "PreemptLowerPriority");
  });

  it("a quota's create carries no status (the quota controller writes it)", async () => {
    const { call } = setup();
    const res = await call("POST", QUOTAS, {
      ...quota({ hard: { pods: "10" } }),
      status: { hard: { pods: "99" }, used: { pods: "1" } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, undefined);
  });
});

describe("PriorityClass", () => {
  it("the two system classes exist from the start", async () => {
    const { call } = setup();
    const res = await call("GET", CLASSES);
    const items = res.body.items as { metadata: { name: string }; value: number }[];
    assert.deepEqual(
      items.map((c) => [c.metadata.name, c.value]),
      [
        ["system-cluster-critical", 2_000_000_000],
        ["system-node-critical", 2_000_001_000],
      ],
    );
  });

  it("value and preemption policy do not change in an update", async () => {
    const { call } = setup();
    const created = await call("POST", CLASSES, priorityClass("batch", { value: 100 }));
    assert.equal(created.status, 201);
    const res = await call("PUT", `${CLASSES}/batch`, {
      ...created.body,
      value: 200,
      preemptionPolicy: "Never",
      description: "changed",
    });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.match(res.body.message, /value: Forbidden: may not be changed in an update\./);
    assert.match(res.body.message, /preemptionPolicy: Invalid value: "Never": field is immutable/);
    const described = await call("PUT", `${CLASSES}/batch`, {
      ...created.body,
      description: "changed",
    });
    assert.equal(described.status, 200, JSON.stringify(described.body));
  });
});

describe("ResourceQuota status", () => {
  it("hard as the spec says, used counted from the namespace's pods and objects", async () => {
    const { call, cluster } = setup();
    const hard = {
      pods: "10",
      "requests.cpu": "2",
      "limits.memory": "1Gi",
      configmaps: "5",
      "count/deployments.apps": "3",
    };
    assert.equal((await call("POST", QUOTAS, quota({ hard }))).status, 201);
    const pod = (name: string, cpu: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: {
        // ResourceQuota admission: each container names what the quota counts.
        containers: [
          {
            name: "a",
            image: "nginx:1",
            resources: { requests: { cpu }, limits: { memory: "64Mi" } },
          },
          {
            name: "b",
            image: "nginx:1",
            resources: { requests: { cpu: "50m" }, limits: { memory: "32Mi" } },
          },
        ],
      },
    });
    for (const [name, cpu] of [
      ["p1", "100m"],
      ["p2", "250m"],
    ] as const) {
      const res = await call("POST", "/api/v1/namespaces/default/pods", pod(name, cpu));
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    // The controllers run (as horizon up's clock drives them).
    cluster.reconcile();
    const res = await call("GET", `${QUOTAS}/q`);
    assert.deepEqual(res.body.status, {
      hard,
      used: {
        configmaps: "0",
        "count/deployments.apps": "0",
        "limits.memory": "192Mi",
        pods: "2",
        "requests.cpu": "450m",
      },
    });
  });
});
