import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { KubeObject, MetricSpec, MetricStatus } from "../../src/api/types.js";
import {
  columnsFor,
  formatHPAMetrics,
  humanDuration,
  isTableRequest,
  type Table,
  toTable,
} from "../../src/apiserver/tables.js";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
/** Fields of a test object; metadata is merged over name "x" in "default", created 5 minutes ago. */
type ObjFields = Omit<Partial<KubeObject>, "metadata"> & {
  metadata?: Partial<KubeObject["metadata"]>;
};
/** RFC 3339 of NOW minus some seconds. */
const ago = (seconds: number) => `${new Date(NOW - seconds * 1000).toISOString().slice(0, 19)}Z`;

function obj(kind: string, fields: ObjFields = {}): KubeObject {
  const { metadata, ...rest } = fields;
  return {
    apiVersion: "v1",
    kind,
    ...rest,
    metadata: { name: "x", namespace: "default", creationTimestamp: ago(300), ...metadata },
  };
}

function cells(o: KubeObject): unknown[] {
  const table = toTable(o.kind, [o], { now: NOW });
  return table.rows[0]!.cells;
}

/** The row as a record keyed by column name (lower-case), for named-field expectations. */
function row(o: KubeObject): Record<string, unknown> {
  const columns = columnsFor(o.kind);
  const values = cells(o);
  return Object.fromEntries(columns.map((c, i) => [c.name.toLowerCase(), values[i]]));
}

// ---------------------------------------------------------------------------------------------

describe("isTableRequest", () => {
  const cases = [
    {
      name: "kubectl get",
      accept:
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
      table: true,
    },
    {
      name: "parameters in another order",
      accept: "application/json;g=meta.k8s.io;v=v1;as=Table",
      table: true,
    },
    { name: "plain JSON", accept: "application/json", table: false },
    {
      name: "typed client",
      accept: "application/vnd.kubernetes.protobuf,application/json",
      table: false,
    },
    {
      name: "v1beta1 only",
      accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
      table: false,
    },
    { name: "no Accept", accept: undefined, table: false },
  ];
  for (const c of cases) test(c.name, () => assert.equal(isTableRequest(c.accept), c.table));
});

describe("humanDuration (AGE)", () => {
  const cases = [
    { name: "now", seconds: 0, text: "0s" },
    { name: "one second of clock skew", seconds: -1.5, text: "0s" },
    { name: "more skew", seconds: -2, text: "<invalid>" },
    { name: "seconds up to two minutes", seconds: 119, text: "119s" },
    { name: "two minutes", seconds: 120, text: "2m" },
    { name: "minutes and seconds under ten minutes", seconds: 312, text: "5m12s" },
    { name: "ten minutes", seconds: 600, text: "10m" },
    { name: "minutes up to three hours", seconds: 179 * 60 + 59, text: "179m" },
    { name: "three hours", seconds: 3 * 3600, text: "3h" },
    { name: "hours and minutes under eight hours", seconds: 3 * 3600 + 5 * 60, text: "3h5m" },
    { name: "hours up to two days", seconds: 47 * 3600 + 59 * 60, text: "47h" },
    { name: "two days", seconds: 48 * 3600, text: "2d" },
    { name: "days and hours under eight days", seconds: 50 * 3600, text: "2d2h" },
    { name: "days up to two years", seconds: 400 * 86400, text: "400d" },
    { name: "two years", seconds: 730 * 86400, text: "2y" },
    { name: "years and days", seconds: 733 * 86400, text: "2y3d" },
    { name: "eight years and more", seconds: 8 * 365 * 86400 + 5 * 86400, text: "8y" },
  ];
  for (const c of cases) test(c.name, () => assert.equal(humanDuration(c.seconds * 1000), c.text));

  test("property: a duration never prints longer than its next unit boundary allows", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 * 365 * 86400 }), (seconds) => {
        const text = humanDuration(seconds * 1000);
        assert.match(text, /^(\d+[smhdy])+$/);
        // Monotone in the leading unit: one more second never prints a smaller leading number of the same unit.
        const next = humanDuration((seconds + 1) * 1000);
        const lead = (t: string) => /^(\d+)([smhdy])/.exec(t)!;
        const [a, b] = [lead(text), lead(next)];
        if (a[2] === b[2]) assert.ok(Number(b[1]) >= Number(a[1]), `${text} → ${next}`);
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// HPA TARGETS

const cpu = (averageUtilization?: number): MetricSpec => ({
  type: "Resource",
  resource: {
    name: "cpu",
    target: {
      type: "Utilization",
      ...(averageUtilization !== undefined ? { averageUtilization } : {}),
    },
  },
});
const cpuNow = (averageUtilization: number, averageValue = "72m"): MetricStatus => ({
  type: "Resource",
  resource: { name: "cpu", current: { averageUtilization, averageValue } },
});
const memory: MetricSpec = {
  type: "Resource",
  resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
};
const pods = (target: string): MetricSpec => ({
  type: "Pods",
  pods: {
    metric: { name: "http_requests" },
    target: { type: "AverageValue", averageValue: target },
  },
});
const podsNow = (averageValue: string): MetricStatus => ({
  type: "Pods",
  pods: { metric: { name: "http_requests" }, current: { averageValue } },
});
const object = (target: { value?: string; averageValue?: string }): MetricSpec => ({
  type: "Object",
  object: {
    describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main-route" },
    metric: { name: "requests-per-second" },
    target: { type: target.value !== undefined ? "Value" : "AverageValue", ...target },
  },
});
const objectNow = (current: { value?: string; averageValue?: string }): MetricStatus => ({
  type: "Object",
  object: {
    describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main-route" },
    metric: { name: "requests-per-second" },
    current,
  },
});
const external = (target: { value?: string; averageValue?: string }): MetricSpec => ({
  type: "External",
  external: {
    metric: { name: "queue_messages_ready" },
    target: { type: target.value !== undefined ? "Value" : "AverageValue", ...target },
  },
});
const externalNow = (current: { value?: string; averageValue?: string }): MetricStatus => ({
  type: "External",
  external: { metric: { name: "queue_messages_ready" }, current },
});

describe("formatHPAMetrics (TARGETS)", () => {
  const cases: {
    name: string;
    specs: MetricSpec[] | undefined;
    statuses?: MetricStatus[];
    text: string;
  }[] = [
    { name: "no metrics", specs: undefined, text: "<none>" },
    { name: "empty metrics", specs: [], text: "<none>" },
    { name: "cpu utilization", specs: [cpu(80)], statuses: [cpuNow(72)], text: "cpu: 72%/80%" },
    { name: "cpu before the first status", specs: [cpu(80)], text: "cpu: <unknown>/80%" },
    {
      name: "utilization without a target",
      specs: [cpu()],
      statuses: [cpuNow(72)],
      text: "cpu: 72%/<auto>",
    },
    {
      name: "memory average value",
      specs: [memory],
      statuses: [
        { type: "Resource", resource: { name: "memory", current: { averageValue: "80Mi" } } },
      ],
      text: "memory: 80Mi/100Mi",
    },
    {
      name: "average value with a Resource status lacking averageValue (a nil Quantity)",
      specs: [memory],
      statuses: [
        { type: "Resource", resource: { name: "memory", current: { averageUtilization: 5 } } },
      ],
      text: "memory: <nil>/100Mi",
    },
    { name: "memory average value unknown", specs: [memory], text: "memory: <unknown>/100Mi" },
    { name: "pods metric", specs: [pods("1")], statuses: [podsNow("500m")], text: "500m/1" },
    { name: "pods metric unknown", specs: [pods("1")], text: "<unknown>/1" },
    {
      name: "quantities print as Quantity.String()",
      specs: [pods("0.5")],
      statuses: [podsNow("1000m")],
      text: "1/500m",
    },
    {
      name: "object value",
      specs: [object({ value: "10k" })],
      statuses: [objectNow({ value: "12k" })],
      text: "12k/10k",
    },
    { name: "object value unknown", specs: [object({ value: "10k" })], text: "<unknown>/10k" },
    {
      name: "object average value",
      specs: [object({ averageValue: "5" })],
      statuses: [objectNow({ averageValue: "3" })],
      text: "3/5 (avg)",
    },
    {
      name: "object average value with only a value in status",
      specs: [object({ averageValue: "5" })],
      statuses: [objectNow({ value: "3" })],
      text: "<unknown>/5 (avg)",
    },
    {
      name: "external average value",
      specs: [external({ averageValue: "30" })],
      statuses: [externalNow({ averageValue: "25" })],
      text: "25/30 (avg)",
    },
    { name: "external value unknown", specs: [external({ value: "100" })], text: "<unknown>/100" },
    {
      name: "container resource utilization",
      specs: [
        {
          type: "ContainerResource",
          containerResource: {
            name: "cpu",
            container: "app",
            target: { type: "Utilization", averageUtilization: 60 },
          },
        },
      ],
      statuses: [
        {
          type: "ContainerResource",
          containerResource: { name: "cpu", container: "app", current: { averageUtilization: 75 } },
        },
      ],
      text: "cpu: 75%/60%",
    },
    {
      name: "statuses pair by index, not by type",
      specs: [cpu(80), pods("1")],
      statuses: [podsNow("2"), cpuNow(72)],
      text: "cpu: <unknown>/80%, <unknown>/1",
    },
    {
      name: "two metrics",
      specs: [cpu(80), pods("1")],
      statuses: [cpuNow(72), podsNow("500m")],
      text: "cpu: 72%/80%, 500m/1",
    },
    {
      name: "three metrics: the first two and a count",
      specs: [cpu(80), pods("1"), memory],
      statuses: [cpuNow(72), podsNow("500m")],
      text: "cpu: 72%/80%, 500m/1 + 1 more...",
    },
    {
      name: "four metrics",
      specs: [cpu(80), pods("1"), memory, external({ value: "100" })],
      text: "cpu: <unknown>/80%, <unknown>/1 + 2 more...",
    },
    { name: "unknown type", specs: [{ type: "Bogus" }], text: "<unknown type>" },
  ];
  for (const c of cases)
    test(c.name, () => assert.equal(formatHPAMetrics(c.specs, c.statuses), c.text));
});

// ---------------------------------------------------------------------------------------------
// Columns per kind

describe("column definitions", () => {
  const cases = [
    {
      kind: "HorizontalPodAutoscaler",
      columns: ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
      wide: [],
    },
    {
      kind: "Pod",
      columns: ["Name", "Ready", "Status", "Restarts", "Age"],
      wide: ["IP", "Node", "Nominated Node", "Readiness Gates"],
    },
    {
      kind: "Deployment",
      columns: ["Name", "Ready", "Up-to-date", "Available", "Age"],
      wide: ["Containers", "Images", "Selector"],
    },
    {
      kind: "ReplicaSet",
      columns: ["Name", "Desired", "Current", "Ready", "Age"],
      wide: ["Containers", "Images", "Selector"],
    },
    {
      kind: "ReplicationController",
      columns: ["Name", "Desired", "Current", "Ready", "Age"],
      wide: ["Containers", "Images", "Selector"],
    },
    { kind: "StatefulSet", columns: ["Name", "Ready", "Age"], wide: ["Containers", "Images"] },
    {
      kind: "Service",
      columns: ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age"],
      wide: ["Selector"],
    },
    {
      kind: "Node",
      columns: ["Name", "Status", "Roles", "Age", "Version"],
      wide: ["Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"],
    },
    {
      kind: "Event",
      columns: ["Last Seen", "Type", "Reason", "Object", "Message"],
      wide: ["Subobject", "Source", "First Seen", "Count", "Name"],
    },
    { kind: "Namespace", columns: ["Name", "Status", "Age"], wide: [] },
    { kind: "Lease", columns: ["Name", "Holder", "Age"], wide: [] },
    { kind: "PodMetrics", columns: ["Name", "Created At"], wide: [] },
  ];
  for (const c of cases) {
    test(c.kind, () => {
      const defs = columnsFor(c.kind);
      assert.deepEqual(
        defs.filter((d) => d.priority === 0).map((d) => d.name),
        c.columns,
      );
      assert.deepEqual(
        defs.filter((d) => d.priority === 1).map((d) => d.name),
        c.wide,
      );
      // kubectl prefixes kind/ to the `name`-format column when printing several kinds.
      assert.equal(defs.filter((d) => d.format === "name").length, 1);
      for (const d of defs) assert.ok(d.description.length > 0, `${c.kind} ${d.name}`);
    });
  }

  test("HPA cell types: MinPods a string (it may be <unset>), the counts integers", () => {
    const values = cells(
      obj("HorizontalPodAutoscaler", {
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "web" },
          minReplicas: 2,
          maxReplicas: 10,
        },
        status: { currentReplicas: 3, desiredReplicas: 3 },
      }),
    );
    assert.deepEqual(values.slice(3, 6), ["2", 10, 3]);
  });
});

// ---------------------------------------------------------------------------------------------
// Rows per kind

describe("rows", () => {
  test("HPA", () => {
    assert.deepEqual(
      row(
        obj("HorizontalPodAutoscaler", {
          metadata: { name: "web", creationTimestamp: ago(3600) },
          spec: {
            scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "foo" },
            minReplicas: 2,
            maxReplicas: 10,
            metrics: [cpu(50), pods("100")],
          },
          status: {
            currentReplicas: 2,
            desiredReplicas: 3,
            currentMetrics: [cpuNow(72), podsNow("150")],
          },
        }),
      ),
      {
        name: "web",
        reference: "Deployment/foo",
        targets: "cpu: 72%/50%, 150/100",
        minpods: "2",
        maxpods: 10,
        replicas: 2,
        age: "60m",
      },
    );
  });

  test("HPA without minReplicas or status", () => {
    const r = row(
      obj("HorizontalPodAutoscaler", {
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "foo" },
          maxReplicas: 5,
          metrics: [cpu(80)],
        },
      }),
    );
    assert.equal(r.minpods, "<unset>");
    assert.equal(r.replicas, 0);
    assert.equal(r.targets, "cpu: <unknown>/80%");
  });

  const container = (
    name: string,
    state: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => ({
    name,
    ready: false,
    restartCount: 0,
    state,
    ...extra,
  });
  const podCases: {
    name: string;
    pod: ObjFields;
    expect: Record<string, unknown>;
  }[] = [
    {
      name: "running and ready",
      pod: {
        spec: { nodeName: "horizon-node", containers: [{ name: "app" }] },
        status: {
          phase: "Running",
          podIPs: [{ ip: "10.1.0.5" }],
          conditions: [{ type: "Ready", status: "True" }],
          containerStatuses: [
            container("app", { running: { startedAt: ago(200) } }, { ready: true }),
          ],
        },
      },
      expect: {
        ready: "1/1",
        status: "Running",
        restarts: "0",
        age: "5m",
        ip: "10.1.0.5",
        node: "horizon-node",
        "nominated node": "<none>",
        "readiness gates": "<none>",
      },
    },
    {
      name: "pending, not yet scheduled",
      pod: { spec: { containers: [{ name: "app" }] }, status: { phase: "Pending" } },
      expect: { ready: "0/1", status: "Pending", ip: "<none>", node: "<none>" },
    },
    {
      name: "containers being created",
      pod: {
        spec: { nodeName: "n", containers: [{ name: "app" }, { name: "side" }] },
        status: {
          phase: "Pending",
          containerStatuses: [
            container("app", { waiting: { reason: "ContainerCreating" } }),
            container("side", { waiting: { reason: "ContainerCreating" } }),
          ],
        },
      },
      expect: { ready: "0/2", status: "ContainerCreating" },
    },
    {
      name: "terminating",
      pod: {
        metadata: { deletionTimestamp: ago(0) },
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Running",
          containerStatuses: [container("app", { running: {} }, { ready: true })],
        },
      },
      expect: { ready: "1/1", status: "Terminating" },
    },
    {
      name: "failed with an error",
      pod: {
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Failed",
          containerStatuses: [container("app", { terminated: { exitCode: 1, reason: "Error" } })],
        },
      },
      expect: { ready: "0/1", status: "Error" },
    },
    {
      name: "terminated without a reason: the exit code",
      pod: {
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Failed",
          containerStatuses: [container("app", { terminated: { exitCode: 137 } })],
        },
      },
      expect: { status: "ExitCode:137" },
    },
    {
      name: "restarts with the last restart's age",
      pod: {
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Running",
          containerStatuses: [
            container(
              "app",
              { running: {} },
              {
                ready: true,
                restartCount: 3,
                lastState: { terminated: { exitCode: 1, finishedAt: ago(150) } },
              },
            ),
          ],
        },
      },
      expect: { restarts: "3 (2m30s ago)", status: "Running" },
    },
    {
      name: "an init container still running",
      pod: {
        spec: { initContainers: [{ name: "init" }], containers: [{ name: "app" }] },
        status: {
          phase: "Pending",
          initContainerStatuses: [container("init", { running: {} })],
          containerStatuses: [container("app", { waiting: { reason: "PodInitializing" } })],
        },
      },
      expect: { ready: "0/1", status: "Init:0/1" },
    },
    {
      name: "a crash-looping init container",
      pod: {
        spec: { initContainers: [{ name: "init" }], containers: [{ name: "app" }] },
        status: {
          phase: "Pending",
          initContainerStatuses: [
            container("init", { waiting: { reason: "CrashLoopBackOff" } }, { restartCount: 4 }),
          ],
        },
      },
      expect: { status: "Init:CrashLoopBackOff", restarts: "4" },
    },
    {
      name: "a sidecar (restartable init container) counts as a container",
      pod: {
        spec: {
          initContainers: [{ name: "proxy", restartPolicy: "Always" }],
          containers: [{ name: "app" }],
        },
        status: {
          phase: "Running",
          conditions: [{ type: "Initialized", status: "True" }],
          initContainerStatuses: [
            container("proxy", { running: {} }, { ready: true, started: true }),
          ],
          containerStatuses: [container("app", { running: {} }, { ready: true })],
        },
      },
      expect: { ready: "2/2", status: "Running" },
    },
    {
      name: "completed but a container still runs, not ready",
      pod: {
        spec: { containers: [{ name: "a" }, { name: "b" }] },
        status: {
          phase: "Running",
          containerStatuses: [
            container("a", { running: {} }, { ready: true }),
            container("b", { terminated: { exitCode: 0, reason: "Completed" } }),
          ],
        },
      },
      expect: { ready: "1/2", status: "NotReady" },
    },
    {
      name: "readiness gates",
      pod: {
        spec: {
          containers: [{ name: "app" }],
          readinessGates: [{ conditionType: "lb/ready" }, { conditionType: "x/ok" }],
        },
        status: { phase: "Running", conditions: [{ type: "lb/ready", status: "True" }] },
      },
      expect: { "readiness gates": "1/2" },
    },
    {
      name: "scheduling gated",
      pod: {
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Pending",
          conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }],
        },
      },
      expect: { status: "SchedulingGated" },
    },
  ];
  for (const c of podCases) {
    test(`Pod: ${c.name}`, () => {
      const r = row(obj("Pod", c.pod));
      for (const [k, v] of Object.entries(c.expect)) assert.equal(r[k], v, k);
    });
  }

  test("Pod rows of finished pods carry a Completed condition", () => {
    const table = toTable(
      "Pod",
      [obj("Pod", { spec: { containers: [] }, status: { phase: "Succeeded" } })],
      { now: NOW },
    );
    assert.deepEqual(table.rows[0]!.conditions, [
      {
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      },
    ]);
  });

  const template = {
    metadata: { labels: { app: "web" } },
    spec: {
      containers: [
        { name: "app", image: "nginx:1.27" },
        { name: "side", image: "envoy:1.30" },
      ],
    },
  };
  const workloadCases: { name: string; o: KubeObject; expect: Record<string, unknown> }[] = [
    {
      name: "Deployment",
      o: obj("Deployment", {
        spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      }),
      expect: {
        name: "x",
        ready: "2/3",
        "up-to-date": 3,
        available: 2,
        age: "5m",
        containers: "app,side",
        images: "nginx:1.27,envoy:1.30",
        selector: "app=web",
      },
    },
    {
      name: "Deployment without status",
      o: obj("Deployment", {
        spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template },
      }),
      expect: { ready: "0/2", "up-to-date": 0, available: 0 },
    },
    {
      name: "ReplicaSet with set-based selector",
      o: obj("ReplicaSet", {
        spec: {
          replicas: 3,
          selector: {
            matchLabels: { app: "web" },
            matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
          },
          template,
        },
        status: { replicas: 3, readyReplicas: 1 },
      }),
      expect: { desired: 3, current: 3, ready: 1, selector: "app=web,tier in (a,b)" },
    },
    {
      name: "ReplicationController",
      o: obj("ReplicationController", {
        spec: { replicas: 2, selector: { app: "web", tier: "fe" }, template },
        status: { replicas: 2, readyReplicas: 2 },
      }),
      expect: { desired: 2, current: 2, ready: 2, selector: "app=web,tier=fe" },
    },
    {
      name: "StatefulSet",
      o: obj("StatefulSet", { spec: { replicas: 2, template }, status: { readyReplicas: 1 } }),
      expect: { ready: "1/2", containers: "app,side" },
    },
    {
      name: "Service ClusterIP",
      o: obj("Service", {
        spec: {
          type: "ClusterIP",
          clusterIP: "10.96.0.10",
          clusterIPs: ["10.96.0.10"],
          ports: [
            { port: 80, protocol: "TCP" },
            { port: 53, protocol: "UDP" },
          ],
          selector: { app: "web" },
        },
      }),
      expect: {
        type: "ClusterIP",
        "cluster-ip": "10.96.0.10",
        "external-ip": "<none>",
        "port(s)": "80/TCP,53/UDP",
        selector: "app=web",
      },
    },
    {
      name: "Service NodePort",
      o: obj("Service", {
        spec: {
          type: "NodePort",
          clusterIPs: ["10.96.0.11"],
          ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }],
        },
      }),
      expect: { "port(s)": "80:30080/TCP", selector: "<none>" },
    },
    {
      name: "Service LoadBalancer waiting for an address",
      o: obj("Service", { spec: { type: "LoadBalancer", clusterIPs: ["10.96.0.12"], ports: [] } }),
      expect: { "external-ip": "<pending>", "port(s)": "<none>" },
    },
    {
      name: "Service ExternalName",
      o: obj("Service", { spec: { type: "ExternalName", externalName: "db.example.com" } }),
      expect: { "cluster-ip": "<none>", "external-ip": "db.example.com" },
    },
    {
      name: "Node",
      o: obj("Node", {
        metadata: {
          namespace: undefined,
          labels: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker" },
        },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: "Ready", status: "True" }],
          addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
          nodeInfo: { kubeletVersion: "v1.34.0" },
        },
      }),
      expect: {
        status: "Ready,SchedulingDisabled",
        roles: "control-plane,worker",
        version: "v1.34.0",
        "internal-ip": "10.0.0.1",
        "external-ip": "<none>",
        "os-image": "<unknown>",
      },
    },
    {
      name: "Node without conditions",
      o: obj("Node", { status: {} }),
      expect: { status: "Unknown", roles: "<none>" },
    },
    {
      name: "Namespace",
      o: obj("Namespace", { status: { phase: "Active" } }),
      expect: { status: "Active", age: "5m" },
    },
    {
      name: "Lease",
      o: obj("Lease", { spec: { holderIdentity: "horizon-controller-1" } }),
      expect: { holder: "horizon-controller-1" },
    },
  ];
  for (const c of workloadCases) {
    test(c.name, () => {
      const r = row(c.o);
      for (const [k, v] of Object.entries(c.expect)) assert.equal(r[k], v, k);
    });
  }

  const eventCases: {
    name: string;
    event: Record<string, unknown>;
    expect: Record<string, unknown>;
  }[] = [
    {
      name: "a core/v1 event",
      event: {
        type: "Normal",
        reason: "SuccessfulRescale",
        message:
          "New size: 3; reason: cpu resource utilization (percentage of request) above target\n",
        involvedObject: { kind: "HorizontalPodAutoscaler", name: "web" },
        source: { component: "horizontal-pod-autoscaler" },
        firstTimestamp: ago(600),
        lastTimestamp: ago(30),
        count: 4,
      },
      expect: {
        "last seen": "30s",
        type: "Normal",
        reason: "SuccessfulRescale",
        object: "horizontalpodautoscaler/web",
        source: "horizontal-pod-autoscaler",
        message:
          "New size: 3; reason: cpu resource utilization (percentage of request) above target",
        "first seen": "10m",
        count: 4,
      },
    },
    {
      name: "an events.k8s.io-style event: eventTime, no count, reporting controller and instance",
      event: {
        type: "Warning",
        reason: "FailedGetResourceMetric",
        message: "m",
        involvedObject: { kind: "HorizontalPodAutoscaler", name: "web" },
        eventTime: "2026-01-01T11:58:00.000000Z",
        reportingComponent: "horizon",
        reportingInstance: "horizon-0",
      },
      expect: { "last seen": "2m", "first seen": "2m", count: 1, source: "horizon, horizon-0" },
    },
    {
      name: "a series",
      event: {
        involvedObject: { kind: "Pod" },
        eventTime: ago(600),
        series: { count: 7, lastObservedTime: ago(5) },
      },
      expect: { "last seen": "5s", count: 7, object: "pod" },
    },
  ];
  for (const c of eventCases) {
    test(`Event: ${c.name}`, () => {
      const r = row(obj("Event", c.event as Partial<KubeObject>));
      for (const [k, v] of Object.entries(c.expect)) assert.equal(r[k], v, k);
    });
  }

  test("a missing creationTimestamp prints <unknown>", () => {
    assert.equal(
      row(obj("Namespace", { metadata: { creationTimestamp: undefined } })).age,
      "<unknown>",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The Table object

describe("toTable", () => {
  const hpa = obj("HorizontalPodAutoscaler", {
    apiVersion: "autoscaling/v2",
    metadata: { name: "web", uid: "u-1", resourceVersion: "1005", labels: { team: "a" } },
    spec: { scaleTargetRef: { kind: "Deployment", name: "foo" }, maxReplicas: 3 },
  });

  const cases: { name: string; include?: "None" | "Object" | "Metadata"; object: unknown }[] = [
    {
      name: "default: PartialObjectMetadata (what -A and --show-labels need)",
      object: {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: hpa.metadata,
      },
    },
    {
      name: "Metadata",
      include: "Metadata",
      object: {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: hpa.metadata,
      },
    },
    { name: "Object", include: "Object", object: hpa },
    { name: "None", include: "None", object: undefined },
  ];
  for (const c of cases) {
    test(`includeObject ${c.name}`, () => {
      const table = toTable("HorizontalPodAutoscaler", [hpa], {
        now: NOW,
        ...(c.include ? { includeObject: c.include } : {}),
      });
      assert.deepEqual(table.rows[0]!.object, c.object);
      assert.equal("object" in table.rows[0]!, c.object !== undefined);
    });
  }

  test("a list's metadata comes from listMeta", () => {
    const table: Table = toTable("HorizontalPodAutoscaler", [hpa, hpa], {
      now: NOW,
      listMeta: { resourceVersion: "2000", continue: "abc" },
    });
    assert.equal(table.kind, "Table");
    assert.equal(table.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(table.metadata, { resourceVersion: "2000", continue: "abc" });
    assert.equal(table.rows.length, 2);
  });

  test("one object without listMeta: its resourceVersion", () => {
    assert.deepEqual(toTable("HorizontalPodAutoscaler", [hpa], { now: NOW }).metadata, {
      resourceVersion: "1005",
    });
  });

  test("an empty list keeps the column definitions", () => {
    const table = toTable("Pod", [], { now: NOW, listMeta: { resourceVersion: "7" } });
    assert.deepEqual(table.rows, []);
    assert.equal(table.columnDefinitions.length, 9);
  });

  test("kinds without a printer get Name and Created At", () => {
    const table = toTable(
      "PodMetrics",
      [obj("PodMetrics", { metadata: { creationTimestamp: "2026-01-01T11:00:00Z" } })],
      { now: NOW },
    );
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type]),
      [
        ["Name", "string"],
        ["Created At", "date"],
      ],
    );
    assert.deepEqual(table.rows[0]!.cells, ["x", "2026-01-01T11:00:00Z"]);
  });

  test("property: every row has one cell per column, for any HPA metric mix", () => {
    const specArb = fc.constantFrom<MetricSpec>(
      cpu(80),
      memory,
      pods("1"),
      object({ value: "1" }),
      external({ averageValue: "2" }),
    );
    fc.assert(
      fc.property(
        fc.array(specArb, { maxLength: 6 }),
        fc.integer({ min: 0, max: 1e9 }),
        (metrics, age) => {
          const o = obj("HorizontalPodAutoscaler", {
            metadata: { creationTimestamp: ago(age) },
            spec: { scaleTargetRef: { kind: "Deployment", name: "w" }, maxReplicas: 2, metrics },
          });
          const table = toTable(o.kind, [o], { now: NOW });
          assert.equal(table.rows[0]!.cells.length, table.columnDefinitions.length);
          const targets = table.rows[0]!.cells[2] as string;
          if (metrics.length > 2) assert.ok(targets.endsWith(`+ ${metrics.length - 2} more...`));
          else assert.ok(!targets.includes("more..."));
        },
      ),
    );
  });
});
