// Defaulting of the core kinds checked against vectors transcribed by hand from upstream's
// pkg/apis/apps/v1/defaults_test.go and pkg/apis/core/v1/defaults_test.go (kubernetes/
// kubernetes; the test each table row comes from is named in `upstream`). Inputs and expected
// values are upstream's; upstream compares whole specs for apps/v1 and single fields for core/v1,
// and so do these tables.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  defaultPodSpec,
  defaultPodSpecOfPod,
  defaultPodTemplate,
  imageTag,
} from "../../src/api/pod-defaults.js";
import { defaultServiceSpec } from "../../src/api/service-defaults.js";
import type { KubeObject } from "../../src/api/types.js";
import { applyWorkloadDefaults } from "../../src/api/workload-defaults.js";

type Json = Record<string, unknown>;

function object(kind: string, spec: Json, metadata: Json = {}): KubeObject {
  const apiVersion = kind === "ReplicationController" ? "v1" : "apps/v1";
  return { apiVersion, kind, metadata: { name: "x", ...metadata }, spec } as KubeObject;
}

const specOf = (o: KubeObject): Json => o.spec as Json;

/** upstream's `defaultTemplate`: an empty PodSpec after SetDefaults_PodSpec. */
const DEFAULT_POD_SPEC = {
  dnsPolicy: "ClusterFirst",
  restartPolicy: "Always",
  securityContext: {},
  terminationGracePeriodSeconds: 30,
  schedulerName: "default-scheduler",
};
const LABELS = { foo: "bar" };
const TEMPLATE_WITH_LABELS = { metadata: { labels: LABELS }, spec: DEFAULT_POD_SPEC };
const TEMPLATE = { spec: DEFAULT_POD_SPEC };
const ROLLING_25 = {
  type: "RollingUpdate",
  rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
};
const RETAIN = { whenDeleted: "Retain", whenScaled: "Retain" };

describe("apps/v1 TestSetDefaultDeployment", () => {
  const cases: { name: string; original: Json; expected: Json }[] = [
    {
      name: "empty Deployment",
      original: {},
      expected: {
        replicas: 1,
        strategy: ROLLING_25,
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        template: TEMPLATE,
      },
    },
    {
      name: "maxSurge set, type unset",
      original: { replicas: 5, strategy: { rollingUpdate: { maxSurge: 5 } } },
      expected: {
        replicas: 5,
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 5, maxUnavailable: "25%" } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        template: TEMPLATE,
      },
    },
    {
      name: "RollingUpdate with rollingUpdate nil",
      original: { replicas: 3, strategy: { type: "RollingUpdate", rollingUpdate: null } },
      expected: {
        replicas: 3,
        strategy: ROLLING_25,
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        template: TEMPLATE,
      },
    },
    {
      name: "Recreate, revisionHistoryLimit 0",
      original: { replicas: 5, strategy: { type: "Recreate" }, revisionHistoryLimit: 0 },
      expected: {
        replicas: 5,
        strategy: { type: "Recreate" },
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 600,
        template: TEMPLATE,
      },
    },
    {
      name: "Recreate, progressDeadlineSeconds 30, revisionHistoryLimit 2",
      original: {
        replicas: 5,
        strategy: { type: "Recreate" },
        progressDeadlineSeconds: 30,
        revisionHistoryLimit: 2,
      },
      expected: {
        replicas: 5,
        strategy: { type: "Recreate" },
        progressDeadlineSeconds: 30,
        revisionHistoryLimit: 2,
        template: TEMPLATE,
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(specOf(applyWorkloadDefaults(object("Deployment", c.original))), c.expected);
    });
  }

  test("TestDefaultDeploymentAvailability: the defaults keep a replica available", () => {
    const spec = specOf(applyWorkloadDefaults(object("Deployment", {})));
    const replicas = spec.replicas as number;
    const maxUnavailable = Math.floor((25 * replicas) / 100);
    assert.ok(replicas - maxUnavailable > 0);
  });
});

describe("apps/v1 TestSetDefaultStatefulSet", () => {
  // StatefulSetAutoDeletePVC is GA (always on) and MaxUnavailableStatefulSet is off by
  // default in v1.34, so the cases with the PVC gate disabled or maxUnavailable enabled are
  // not states this server can be in; the rest are here.
  const base = {
    replicas: 1,
    template: TEMPLATE_WITH_LABELS,
    podManagementPolicy: "OrderedReady",
    persistentVolumeClaimRetentionPolicy: RETAIN,
    revisionHistoryLimit: 10,
  };
  const partition = (p: number, maxUnavailable?: number) => ({
    type: "RollingUpdate",
    rollingUpdate:
      maxUnavailable === undefined ? { partition: p } : { partition: p, maxUnavailable },
  });
  const cases: { name: string; original: Json; expected: Json }[] = [
    {
      name: "labels and default update strategy",
      original: { template: TEMPLATE_WITH_LABELS },
      expected: { ...base, updateStrategy: partition(0) },
    },
    {
      name: "Alternate update strategy",
      original: { template: TEMPLATE_WITH_LABELS, updateStrategy: { type: "OnDelete" } },
      expected: { ...base, updateStrategy: { type: "OnDelete" } },
    },
    {
      name: "Parallel pod management policy",
      original: { template: TEMPLATE_WITH_LABELS, podManagementPolicy: "Parallel" },
      expected: { ...base, podManagementPolicy: "Parallel", updateStrategy: partition(0) },
    },
    {
      name: "UpdateStrategy.RollingUpdate.Partition is not lost when UpdateStrategy.Type is not set",
      original: {
        template: TEMPLATE_WITH_LABELS,
        updateStrategy: { rollingUpdate: { partition: 42 } },
      },
      expected: { ...base, updateStrategy: partition(42) },
    },
    {
      name: "PVC delete policy enabled, with scaledown policy specified",
      original: {
        template: TEMPLATE_WITH_LABELS,
        persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete" },
      },
      expected: {
        ...base,
        updateStrategy: partition(0),
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" },
      },
    },
    {
      name: "PVC delete policy enabled, with set deletion policy specified",
      original: {
        template: TEMPLATE_WITH_LABELS,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete" },
      },
      expected: {
        ...base,
        updateStrategy: partition(0),
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      },
    },
    {
      name: "MaxUnavailable disabled, with default maxUnavailable specified",
      original: {
        template: TEMPLATE_WITH_LABELS,
        updateStrategy: { rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      },
      expected: { ...base, updateStrategy: partition(0, 1) },
    },
    {
      name: "MaxUnavailable disabled, with non default maxUnavailable specified",
      original: {
        template: TEMPLATE_WITH_LABELS,
        updateStrategy: { rollingUpdate: { partition: 42, maxUnavailable: 3 } },
      },
      expected: { ...base, updateStrategy: partition(42, 3) },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(
        specOf(applyWorkloadDefaults(object("StatefulSet", c.original))),
        c.expected,
      );
    });
  }
});

describe("apps/v1 TestSetDefaultDaemonSetSpec", () => {
  const rolling = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
  const cases: { name: string; original: Json; expected: Json }[] = [
    {
      name: "Labels change/defaulting test",
      original: { template: TEMPLATE_WITH_LABELS },
      expected: {
        template: TEMPLATE_WITH_LABELS,
        updateStrategy: rolling,
        revisionHistoryLimit: 10,
      },
    },
    {
      name: "Labels change/defaulting test (revisionHistoryLimit set)",
      original: { template: TEMPLATE_WITH_LABELS, revisionHistoryLimit: 1 },
      expected: {
        template: TEMPLATE_WITH_LABELS,
        updateStrategy: rolling,
        revisionHistoryLimit: 1,
      },
    },
    {
      name: "OnDeleteDaemonSetStrategyType update strategy",
      original: { template: TEMPLATE, updateStrategy: { type: "OnDelete" } },
      expected: {
        template: TEMPLATE,
        updateStrategy: { type: "OnDelete" },
        revisionHistoryLimit: 10,
      },
    },
    {
      name: "Custom unique label key",
      original: {},
      expected: { template: TEMPLATE, updateStrategy: rolling, revisionHistoryLimit: 10 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(specOf(applyWorkloadDefaults(object("DaemonSet", c.original))), c.expected);
    });
  }
});

describe("batch/v1 TestSetDefaultJob", () => {
  // JobPodReplacementPolicy is on: podReplacementPolicy is defaulted in every case.
  const jobDefaults = {
    completionMode: "NonIndexed",
    suspend: false,
    podReplacementPolicy: "TerminatingOrFailed",
    manualSelector: false,
  };
  const cases: { name: string; original: Json; expected: Json; labels?: Json }[] = [
    {
      name: "All unspecified -> sets all to default values",
      original: { template: TEMPLATE_WITH_LABELS },
      expected: {
        ...jobDefaults,
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        template: TEMPLATE_WITH_LABELS,
      },
      labels: LABELS,
    },
    {
      name: "All unspecified -> all integers are defaulted and no default labels",
      original: { template: TEMPLATE },
      expected: {
        ...jobDefaults,
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        template: TEMPLATE,
      },
    },
    {
      name: "WQ: Parallelism explicitly 0 and completions unset -> BackoffLimit is defaulted",
      original: { parallelism: 0, template: TEMPLATE },
      expected: { ...jobDefaults, parallelism: 0, backoffLimit: 6, template: TEMPLATE },
    },
    {
      name: "WQ: Parallelism explicitly 2 and completions unset -> BackoffLimit is defaulted",
      original: { parallelism: 2, template: TEMPLATE },
      expected: { ...jobDefaults, parallelism: 2, backoffLimit: 6, template: TEMPLATE },
    },
    {
      name: "Completions explicitly 2 and others unset -> parallelism and BackoffLimit are defaulted",
      original: { completions: 2, template: TEMPLATE },
      expected: {
        ...jobDefaults,
        completions: 2,
        parallelism: 1,
        backoffLimit: 6,
        template: TEMPLATE,
      },
    },
    {
      name: "BackoffLimit explicitly 5 and others unset -> parallelism and completions are defaulted",
      original: { backoffLimit: 5, template: TEMPLATE },
      expected: {
        ...jobDefaults,
        completions: 1,
        parallelism: 1,
        backoffLimit: 5,
        template: TEMPLATE,
      },
    },
    {
      name: "BackoffLimitPerIndex specified, but backoffLimit not -> default to max int32",
      original: {
        completions: 4,
        parallelism: 2,
        backoffLimitPerIndex: 1,
        completionMode: "Indexed",
        template: TEMPLATE,
      },
      expected: {
        ...jobDefaults,
        completions: 4,
        parallelism: 2,
        backoffLimit: 2147483647,
        backoffLimitPerIndex: 1,
        completionMode: "Indexed",
        template: TEMPLATE,
      },
    },
    {
      name: "Pod failure policy rule with empty status -> status True; replacement policy Failed",
      original: {
        template: TEMPLATE,
        podFailurePolicy: {
          rules: [{ action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] }],
        },
      },
      expected: {
        ...jobDefaults,
        podReplacementPolicy: "Failed",
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        template: TEMPLATE,
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
          ],
        },
      },
    },
    {
      name: "All set -> no change",
      original: {
        completions: 8,
        parallelism: 9,
        backoffLimit: 10,
        completionMode: "NonIndexed",
        suspend: true,
        podReplacementPolicy: "Failed",
        manualSelector: true,
        template: TEMPLATE_WITH_LABELS,
      },
      expected: {
        completions: 8,
        parallelism: 9,
        backoffLimit: 10,
        completionMode: "NonIndexed",
        suspend: true,
        podReplacementPolicy: "Failed",
        manualSelector: true,
        template: TEMPLATE_WITH_LABELS,
      },
      labels: LABELS,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const defaulted = applyWorkloadDefaults({
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "x" },
        spec: c.original,
      } as KubeObject);
      assert.deepEqual(specOf(defaulted), c.expected);
      assert.deepEqual(defaulted.metadata.labels, c.labels);
    });
  }
});

describe("batch/v1 TestSetDefaultCronJob", () => {
  const cases: { name: string; original: Json; expected: Json }[] = [
    {
      name: "empty CronJob should be defaulted",
      original: {},
      expected: {
        concurrencyPolicy: "Allow",
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: TEMPLATE } },
      },
    },
    {
      name: "set fields should not be defaulted",
      original: {
        concurrencyPolicy: "Forbid",
        suspend: true,
        successfulJobsHistoryLimit: 5,
        failedJobsHistoryLimit: 5,
      },
      expected: {
        concurrencyPolicy: "Forbid",
        suspend: true,
        successfulJobsHistoryLimit: 5,
        failedJobsHistoryLimit: 5,
        jobTemplate: { spec: { template: TEMPLATE } },
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const defaulted = applyWorkloadDefaults({
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "x" },
        spec: c.original,
      } as KubeObject);
      assert.deepEqual(specOf(defaulted), c.expected);
    });
  }
});

describe("apps/v1 TestSetDefaultReplicaSetReplicas and TestDefaultRequestIsNotSetForReplicaSet", () => {
  const cases = [
    { name: "unset → 1", replicas: undefined, expectReplicas: 1 },
    { name: "0 stays 0", replicas: 0, expectReplicas: 0 },
    { name: "3 stays 3", replicas: 3, expectReplicas: 3 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const spec: Json = { template: { metadata: { labels: LABELS } } };
      if (c.replicas !== undefined) spec.replicas = c.replicas;
      assert.equal(
        specOf(applyWorkloadDefaults(object("ReplicaSet", spec))).replicas,
        c.expectReplicas,
      );
    });
  }
  test("a template's container limits do not become requests", () => {
    const rs = applyWorkloadDefaults(
      object("ReplicaSet", {
        replicas: 3,
        template: {
          metadata: { labels: LABELS },
          spec: { containers: [{ resources: { limits: { cpu: "100m" } } }] },
        },
      }),
    );
    const template = specOf(rs).template as { spec: { containers: Json[] } };
    const resources = template.spec.containers[0]!.resources as Json;
    assert.equal(resources.requests, undefined);
  });
});

describe("core/v1 TestSetDefaultReplicationController", () => {
  const template = { metadata: { labels: LABELS } };
  const cases = [
    {
      name: "no labels, no selector",
      labels: undefined,
      selector: undefined,
      expectLabels: true,
      expectSelector: true,
    },
    {
      name: "labels set",
      labels: { bar: "foo" },
      selector: undefined,
      expectLabels: false,
      expectSelector: true,
    },
    {
      name: "labels and selector set",
      labels: { bar: "foo" },
      selector: { some: "other" },
      expectLabels: false,
      expectSelector: false,
    },
    {
      name: "selector set",
      labels: undefined,
      selector: { some: "other" },
      expectLabels: true,
      expectSelector: false,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const spec: Json = { template };
      if (c.selector) spec.selector = c.selector;
      const rc = applyWorkloadDefaults(
        object("ReplicationController", spec, c.labels ? { labels: c.labels } : {}),
      );
      assert.equal(
        JSON.stringify(specOf(rc).selector) === JSON.stringify(LABELS),
        c.expectSelector,
        "selector equals the template's labels",
      );
      assert.equal(
        JSON.stringify(rc.metadata.labels) === JSON.stringify(LABELS),
        c.expectLabels,
        "labels equal the template's labels",
      );
    });
  }
  for (const [replicas, expected] of [
    [undefined, 1],
    [0, 0],
    [3, 3],
  ] as const) {
    test(`TestSetDefaultReplicationControllerReplicas: ${replicas} → ${expected}`, () => {
      const spec: Json = { template };
      if (replicas !== undefined) spec.replicas = replicas;
      assert.equal(
        specOf(applyWorkloadDefaults(object("ReplicationController", spec))).replicas,
        expected,
      );
    });
  }
});

describe("core/v1 TestSetDefaultReplicationControllerInitContainers", () => {
  const initOf = (container: Json): Json => {
    const rc = applyWorkloadDefaults(
      object("ReplicationController", { template: { spec: { initContainers: [container] } } }),
    );
    const t = specOf(rc).template as { spec: { initContainers: Json[] } };
    return t.spec.initContainers[0]!;
  };
  test("imagePullIPolicy", () => {
    assert.equal(initOf({ name: "install", image: "busybox" }).imagePullPolicy, "Always");
  });
  test("FieldRef", () => {
    const c = initOf({
      name: "fun",
      image: "alpine",
      env: [
        {
          name: "MY_POD_IP",
          valueFrom: { fieldRef: { apiVersion: "", fieldPath: "status.podIP" } },
        },
      ],
    });
    assert.deepEqual(c.env, [
      {
        name: "MY_POD_IP",
        valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" } },
      },
    ]);
  });
  test("ContainerPort", () => {
    const c = initOf({ name: "fun", image: "alpine", ports: [{ name: "default" }] });
    assert.deepEqual(c.ports, [{ name: "default", protocol: "TCP" }]);
  });
  test("Resources", () => {
    const resources = {
      limits: { cpu: "100m", memory: "100Mi" },
      requests: { cpu: "100m", memory: "100Mi" },
    };
    assert.deepEqual(initOf({ name: "fun", image: "alpine", resources }).resources, resources);
  });
  test("Probe", () => {
    const probe = { httpGet: { host: "localhost" } };
    const c = initOf({ name: "fun", image: "alpine", livenessProbe: probe, readinessProbe: probe });
    const expected = {
      httpGet: { host: "localhost", path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    };
    assert.deepEqual(c.livenessProbe, expected);
    assert.deepEqual(c.readinessProbe, expected);
  });
  test("LifeCycle", () => {
    const handler = { httpGet: { host: "localhost" } };
    const c = initOf({
      name: "fun",
      image: "alpine",
      ports: [{ name: "default" }],
      lifecycle: { postStart: handler, preStop: handler },
    });
    const expected = { httpGet: { host: "localhost", path: "/", scheme: "HTTP" } };
    assert.deepEqual(c.lifecycle, { postStart: expected, preStop: expected });
  });
});

describe("core/v1 TestWorkloadDefaults and TestPodDefaults", () => {
  // The detector fills every struct with an empty element; these are the defaults it reports
  // for the fields Horizon's kinds carry (image "" → IfNotPresent).
  const container = {
    env: [{ valueFrom: { fieldRef: {} } }],
    lifecycle: { postStart: { httpGet: {} }, preStop: { httpGet: {} } },
    livenessProbe: { httpGet: {} },
    readinessProbe: { httpGet: {} },
    ports: [{}],
    resources: { limits: { "": "0" } },
  };
  const probe = {
    httpGet: { path: "/", scheme: "HTTP" },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  };
  const expectedContainer = {
    env: [{ valueFrom: { fieldRef: { apiVersion: "v1" } } }],
    lifecycle: {
      postStart: { httpGet: { path: "/", scheme: "HTTP" } },
      preStop: { httpGet: { path: "/", scheme: "HTTP" } },
    },
    livenessProbe: probe,
    readinessProbe: probe,
    ports: [{ protocol: "TCP" }],
    imagePullPolicy: "IfNotPresent",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
  };
  const volumes = [
    { name: "a", configMap: {} },
    { name: "b", downwardAPI: { items: [{ fieldRef: {} }] } },
    { name: "c" },
    { name: "d", hostPath: { path: "/x" } },
    {
      name: "e",
      projected: {
        sources: [{ downwardAPI: { items: [{ fieldRef: {} }] } }, { serviceAccountToken: {} }],
      },
    },
    { name: "f", secret: {} },
  ];
  const expectedVolumes = [
    { name: "a", configMap: { defaultMode: 420 } },
    { name: "b", downwardAPI: { defaultMode: 420, items: [{ fieldRef: { apiVersion: "v1" } }] } },
    { name: "c", emptyDir: {} },
    { name: "d", hostPath: { path: "/x", type: "" } },
    {
      name: "e",
      projected: {
        defaultMode: 420,
        sources: [
          { downwardAPI: { items: [{ fieldRef: { apiVersion: "v1" } }] } },
          { serviceAccountToken: { expirationSeconds: 3600 } },
        ],
      },
    },
    { name: "f", secret: { defaultMode: 420 } },
  ];
  const spec = { containers: [container], initContainers: [container], volumes };

  test("a pod template: PodSpec defaults, no requests from limits, no enableServiceLinks", () => {
    const got = defaultPodTemplate({ spec }).spec as Json;
    const withLimits = { ...expectedContainer, resources: { limits: { "": "0" } } };
    assert.deepEqual(got, {
      ...DEFAULT_POD_SPEC,
      containers: [withLimits],
      initContainers: [withLimits],
      volumes: expectedVolumes,
    });
  });

  test("a Pod: also requests from limits and enableServiceLinks", () => {
    const got = defaultPodSpecOfPod(spec);
    const withRequests = {
      ...expectedContainer,
      resources: { limits: { "": "0" }, requests: { "": "0" } },
    };
    assert.deepEqual(got, {
      ...DEFAULT_POD_SPEC,
      enableServiceLinks: true,
      containers: [withRequests],
      initContainers: [withRequests],
      volumes: expectedVolumes,
    });
  });
});

describe("core/v1 Pod defaulting tests", () => {
  test("TestSetDefaultSecretVolumeSource / ConfigMap / DownwardAPI / Projected: mode 420", () => {
    for (const source of ["secret", "configMap", "downwardAPI", "projected"]) {
      const got = defaultPodSpecOfPod({ volumes: [{ [source]: {} }] });
      const volume = (got.volumes as Json[])[0]!;
      assert.equal((volume[source] as Json).defaultMode, 420, source);
    }
  });
  test("TestSetDefaultPodSpecHostNetwork: hostPort = containerPort", () => {
    const port = { containerPort: 8080 };
    const got = defaultPodSpecOfPod({
      hostNetwork: true,
      containers: [{ ports: [port] }],
      initContainers: [{ ports: [port] }],
    });
    for (const key of ["containers", "initContainers"]) {
      const c = (got[key] as Json[])[0]!;
      assert.equal((c.ports as Json[])[0]!.hostPort, 8080, key);
    }
  });
  test("without hostNetwork no hostPort is added", () => {
    const got = defaultPodSpecOfPod({ containers: [{ ports: [{ containerPort: 8080 }] }] });
    assert.equal(((got.containers as Json[])[0]!.ports as Json[])[0]!.hostPort, undefined);
  });
  test("TestSetDefaultObjectFieldSelectorAPIVersion", () => {
    const got = defaultPodSpecOfPod({ containers: [{ env: [{ valueFrom: { fieldRef: {} } }] }] });
    const env = ((got.containers as Json[])[0]!.env as Json[])[0]!;
    assert.equal(((env.valueFrom as Json).fieldRef as Json).apiVersion, "v1");
  });
  test("TestSetDefaultRequestsPod: limits become requests, an explicit request 0 stays", () => {
    const c = { resources: { requests: { memory: "0" }, limits: { cpu: "100m", memory: "1Gi" } } };
    const got = defaultPodSpecOfPod({ containers: [c], initContainers: [c] });
    for (const key of ["containers", "initContainers"]) {
      const resources = (got[key] as Json[])[0]!.resources as Json;
      assert.deepEqual(resources.requests, { memory: "0", cpu: "100m" }, key);
    }
  });
  test("TestSetDefaultRequestsPod: no limits, no requests", () => {
    const got = defaultPodSpecOfPod({ containers: [{}], initContainers: [{}] });
    assert.equal((got.containers as Json[])[0]!.resources, undefined);
    assert.equal((got.initContainers as Json[])[0]!.resources, undefined);
  });
  test("TestDefaultRequestIsNotSetForReplicationController", () => {
    const rc = applyWorkloadDefaults(
      object("ReplicationController", {
        replicas: 3,
        template: {
          metadata: { labels: LABELS },
          spec: { containers: [{ resources: { limits: { cpu: "100m" } } }] },
        },
      }),
    );
    const t = specOf(rc).template as { spec: { containers: Json[] } };
    assert.equal((t.spec.containers[0]!.resources as Json).requests, undefined);
  });
  test("TestSetDefaultProbe", () => {
    const got = defaultPodSpecOfPod({ containers: [{ livenessProbe: {} }] });
    assert.deepEqual((got.containers as Json[])[0]!.livenessProbe, {
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });
  test("TestSetDefaultSchedulerName", () => {
    assert.equal(defaultPodSpecOfPod({}).schedulerName, "default-scheduler");
  });
  test("TestSetDefaultHostPathVolumeSource", () => {
    const got = defaultPodSpecOfPod({ volumes: [{ hostPath: { path: "foo" } }] });
    assert.equal(((got.volumes as Json[])[0]!.hostPath as Json).type, "");
  });
  test("TestSetDefaultEnableServiceLinks", () => {
    assert.equal(defaultPodSpecOfPod({}).enableServiceLinks, true);
    assert.equal(defaultPodSpecOfPod({ enableServiceLinks: false }).enableServiceLinks, false);
  });
  test("values the client set are kept", () => {
    const spec = {
      dnsPolicy: "Default",
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 0,
      securityContext: { runAsUser: 1000 },
      schedulerName: "custom",
      containers: [
        {
          image: "nginx",
          imagePullPolicy: "Never",
          terminationMessagePolicy: "FallbackToLogsOnError",
        },
      ],
    };
    const got = defaultPodSpec(spec);
    assert.equal(got.dnsPolicy, "Default");
    assert.equal(got.restartPolicy, "Never");
    assert.equal(got.terminationGracePeriodSeconds, 0);
    assert.deepEqual(got.securityContext, { runAsUser: 1000 });
    assert.equal(got.schedulerName, "custom");
    const c = (got.containers as Json[])[0]!;
    assert.equal(c.imagePullPolicy, "Never");
    assert.equal(c.terminationMessagePolicy, "FallbackToLogsOnError");
  });
});

describe("SetDefaults_Container: imagePullPolicy from the image's tag (ParseImageName)", () => {
  const cases: [string, string][] = [
    ["busybox", "Always"],
    ["busybox:latest", "Always"],
    ["registry.k8s.io/hpa-example", "Always"],
    ["localhost:5000/app", "Always"],
    ["localhost:5000/app:latest", "Always"],
    ["nginx:1.27", "IfNotPresent"],
    ["localhost:5000/app:v2", "IfNotPresent"],
    [
      "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      "IfNotPresent",
    ],
    [
      "nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      "Always",
    ],
    ["", "IfNotPresent"],
    ["Not/Valid", "IfNotPresent"],
  ];
  for (const [image, policy] of cases) {
    test(`${JSON.stringify(image)} → ${policy}`, () => {
      const got = defaultPodSpec({ containers: [{ name: "c", image }] });
      assert.equal((got.containers as Json[])[0]!.imagePullPolicy, policy);
    });
  }
  test("imageTag", () => {
    assert.equal(imageTag("a/b/c:1.0"), "1.0");
    assert.equal(imageTag("host:5000/a"), "latest");
  });
});

describe("core/v1 Service defaulting", () => {
  test("TestSetDefaultService", () => {
    const spec = defaultServiceSpec({});
    assert.equal(spec.sessionAffinity, "None");
    assert.equal(spec.sessionAffinityConfig, undefined);
    assert.equal(spec.type, "ClusterIP");
  });
  const clientIP: [string, Json | null][] = [
    ["SessionAffinityConfig is empty", null],
    ["ClientIP is empty", { clientIP: null }],
    ["TimeoutSeconds is empty", { clientIP: { timeoutSeconds: null } }],
  ];
  for (const [name, config] of clientIP) {
    test(`TestSetDefaultServiceSessionAffinityConfig: ${name}`, () => {
      const spec = defaultServiceSpec({
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: config,
      });
      assert.deepEqual(spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    });
  }
  test("a ClientIP timeout the client set is kept", () => {
    const config = { clientIP: { timeoutSeconds: 60 } };
    const spec = defaultServiceSpec({ sessionAffinity: "ClientIP", sessionAffinityConfig: config });
    assert.deepEqual(spec.sessionAffinityConfig, config);
  });
  test("TestSetDefaulServiceTargetPort", () => {
    assert.deepEqual(defaultServiceSpec({ ports: [{ port: 1234 }] }).ports, [
      { port: 1234, protocol: "TCP", targetPort: 1234 },
    ]);
    assert.deepEqual(defaultServiceSpec({ ports: [{ port: 1234, targetPort: 5678 }] }).ports, [
      { port: 1234, targetPort: 5678, protocol: "TCP" },
    ]);
  });
  test("TestSetDefaultServicePort: unchanged if set", () => {
    const ports = [
      { protocol: "UDP", port: 9376, targetPort: "p" },
      { protocol: "UDP", port: 8675, targetPort: 309 },
    ];
    assert.deepEqual(defaultServiceSpec({ ports }).ports, ports);
  });
  test("TestSetDefaultServicePort: defaulted", () => {
    const ports = [
      { protocol: "", port: 9376, targetPort: "" },
      { protocol: "", port: 8675, targetPort: 0 },
    ];
    assert.deepEqual(defaultServiceSpec({ ports }).ports, [
      { protocol: "TCP", port: 9376, targetPort: 9376 },
      { protocol: "TCP", port: 8675, targetPort: 8675 },
    ]);
  });
  const external: [string, Json, string | undefined][] = [
    ["ClusterIP", {}, undefined],
    ["NodePort", { type: "NodePort" }, "Cluster"],
    ["LoadBalancer", { type: "LoadBalancer" }, "Cluster"],
  ];
  for (const [name, spec, expected] of external) {
    test(`TestSetDefaulServiceExternalTraffic: ${name}`, () => {
      assert.equal(defaultServiceSpec(spec).externalTrafficPolicy, expected);
    });
  }
  const internal: [string, Json, string | undefined][] = [
    ["must set default internalTrafficPolicy", {}, "Cluster"],
    [
      "must not set default internalTrafficPolicy when it's cluster",
      { internalTrafficPolicy: "Cluster" },
      "Cluster",
    ],
    [
      "must not set default internalTrafficPolicy when type is ExternalName",
      { type: "ExternalName" },
      undefined,
    ],
    [
      "must not set default internalTrafficPolicy when it's local",
      { internalTrafficPolicy: "Local" },
      "Local",
    ],
  ];
  for (const [name, spec, expected] of internal) {
    test(`TestSetDefaultServiceInternalTrafficPolicy: ${name}`, () => {
      assert.equal(defaultServiceSpec(spec).internalTrafficPolicy, expected);
    });
  }
  test("LoadBalancer: allocateLoadBalancerNodePorts true", () => {
    assert.equal(defaultServiceSpec({ type: "LoadBalancer" }).allocateLoadBalancerNodePorts, true);
    assert.equal(defaultServiceSpec({}).allocateLoadBalancerNodePorts, undefined);
  });
});

test("defaulting is idempotent (a second write of a stored object changes nothing)", () => {
  const deployment = object("Deployment", {
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "web",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 2 },
          },
        ],
      },
    },
  });
  const once = applyWorkloadDefaults(deployment);
  assert.deepEqual(applyWorkloadDefaults(once), once);
  const service = defaultServiceSpec({ ports: [{ port: 80 }], selector: { app: "web" } });
  assert.deepEqual(defaultServiceSpec(service), service);
  const pod = defaultPodSpecOfPod((specOf(once).template as Json).spec);
  assert.deepEqual(defaultPodSpecOfPod(pod), pod);
});
