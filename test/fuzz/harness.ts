// The API server fuzz harness (fast-check, seeded): for every served kind and write verb
// (create, update, merge / JSON / strategic merge patch, server-side apply), a valid object is
// mutated (wrong types, nulls, huge and negative numbers, deep nesting, unknown fields, removed
// fields, oversize strings) and sent over HTTP. Invariants, as issue #14 lists them:
// - never a 5xx;
// - a non-2xx answer stores nothing (the store's resourceVersion does not move: no controller
//   runs in the background while the cases run);
// - every stored object can be read, read as a Table, listed (in its namespace and across all),
//   and watched;
// - afterwards `kubectl get -o json` and `kubectl describe` work on every kind, and the embedded
//   cluster's controllers and Horizon's HPA controller run over the stored objects without an
//   error.
// Used by test/fuzz/fuzz.test.ts (a short run in `npm test`) and scripts/fuzz.ts (long runs).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { setMember } from "../../src/api/json.js";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import { renderKubeconfig } from "../../src/apiserver/kubeconfig.js";
import { MAX_REQUEST_BODY_BYTES } from "../../src/apiserver/limits.js";
import { TABLE_CONTENT_TYPE } from "../../src/apiserver/tables.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { RealtimeDriver } from "../../src/cluster/realtime.js";
import { defaultControllerConfig } from "../../src/core/config.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario } from "../cluster/builders.js";
import { type KubectlBinary, kubectl } from "../e2e/helpers.js";

export const NAMESPACE = "fuzz";

type Json = ReturnType<typeof JSON.parse>;

interface KindCase {
  kind: string;
  /** URL prefix of the collection (namespaced kinds in NAMESPACE). */
  collection: string;
  /** Across all namespaces (namespaced kinds only). */
  allNamespaces?: string;
  /** kubectl's name for it (resource.group). */
  resource: string;
  apiVersion: string;
  valid: (name: string) => Record<string, unknown>;
  /**
   * An admission policy of its namespace (LimitRange, ResourceQuota): each case gets a namespace
   * of its own, so what it stores (a quota of 0 cpu) cannot refuse another case's valid object.
   */
  ownNamespace?: true;
}

const container = { name: "c", image: "nginx:1.27", resources: { requests: { cpu: "100m" } } };
const template = {
  metadata: { labels: { app: "fuzz" } },
  spec: { containers: [container] },
};
const at = "2026-01-01T00:00:00Z";

/** Every served kind that takes writes, with a valid object of it. */
export const KIND_CASES: readonly KindCase[] = [
  {
    kind: "Namespace",
    collection: "/api/v1/namespaces",
    resource: "namespaces",
    apiVersion: "v1",
    valid: (name) => ({ metadata: { name, labels: { team: "a" } } }),
  },
  {
    kind: "Pod",
    collection: `/api/v1/namespaces/${NAMESPACE}/pods`,
    allNamespaces: "/api/v1/pods",
    resource: "pods",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name, labels: { app: "fuzz" } },
      spec: { containers: [container] },
    }),
  },
  {
    kind: "Service",
    collection: `/api/v1/namespaces/${NAMESPACE}/services`,
    allNamespaces: "/api/v1/services",
    resource: "services",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      spec: { selector: { app: "fuzz" }, ports: [{ port: 80, targetPort: 8080 }] },
    }),
  },
  {
    kind: "Event",
    collection: `/api/v1/namespaces/${NAMESPACE}/events`,
    allNamespaces: "/api/v1/events",
    resource: "events",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      involvedObject: { kind: "Pod", name: "p", namespace: NAMESPACE },
      reason: "Fuzzed",
      message: "a message",
      type: "Normal",
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: "fuzz" },
    }),
  },
  {
    kind: "ReplicationController",
    collection: `/api/v1/namespaces/${NAMESPACE}/replicationcontrollers`,
    allNamespaces: "/api/v1/replicationcontrollers",
    resource: "replicationcontrollers",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      spec: { replicas: 1, selector: { app: "fuzz" }, template },
    }),
  },
  ...(["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"] as const).map((kind) => ({
    kind,
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/${kind.toLowerCase()}s`,
    allNamespaces: `/apis/apps/v1/${kind.toLowerCase()}s`,
    resource: `${kind.toLowerCase()}s.apps`,
    apiVersion: "apps/v1",
    valid: (name: string) => ({
      metadata: { name },
      spec: {
        ...(kind === "DaemonSet" ? {} : { replicas: 1 }),
        selector: { matchLabels: { app: "fuzz" } },
        template,
        ...(kind === "StatefulSet" ? { serviceName: "fuzz" } : {}),
      },
    }),
  })),
  {
    kind: "HorizontalPodAutoscaler",
    collection: `/apis/autoscaling/v2/namespaces/${NAMESPACE}/horizontalpodautoscalers`,
    allNamespaces: "/apis/autoscaling/v2/horizontalpodautoscalers",
    resource: "horizontalpodautoscalers.autoscaling",
    apiVersion: "autoscaling/v2",
    valid: (name) => ({
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      },
    }),
  },
  {
    kind: "HorizontalPodAutoscaler",
    collection: `/apis/autoscaling/v1/namespaces/${NAMESPACE}/horizontalpodautoscalers`,
    allNamespaces: "/apis/autoscaling/v1/horizontalpodautoscalers",
    resource: "horizontalpodautoscalers.autoscaling",
    apiVersion: "autoscaling/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 50,
      },
    }),
  },
  {
    kind: "ConfigMap",
    collection: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    allNamespaces: "/api/v1/configmaps",
    resource: "configmaps",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      data: { "app.properties": "a=1", key: "value" },
      binaryData: { blob: "AAEC" },
    }),
  },
  {
    kind: "Secret",
    collection: `/api/v1/namespaces/${NAMESPACE}/secrets`,
    allNamespaces: "/api/v1/secrets",
    resource: "secrets",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      type: "Opaque",
      data: { password: "c2VjcmV0" },
      stringData: { user: "admin" },
    }),
  },
  {
    kind: "ServiceAccount",
    collection: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`,
    allNamespaces: "/api/v1/serviceaccounts",
    resource: "serviceaccounts",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      secrets: [{ name: "token" }],
      imagePullSecrets: [{ name: "registry" }],
      automountServiceAccountToken: false,
    }),
  },
  {
    kind: "Role",
    collection: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/roles`,
    allNamespaces: "/apis/rbac.authorization.k8s.io/v1/roles",
    resource: "roles.rbac.authorization.k8s.io",
    apiVersion: "rbac.authorization.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
    }),
  },
  {
    kind: "ClusterRole",
    collection: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    resource: "clusterroles.rbac.authorization.k8s.io",
    apiVersion: "rbac.authorization.k8s.io/v1",
    valid: (name) => ({
      metadata: { name: `fuzz:${name}` },
      rules: [
        { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["get", "update"] },
        { nonResourceURLs: ["/healthz"], verbs: ["get"] },
      ],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { aggregate: "fuzz" } }] },
    }),
  },
  ...(["RoleBinding", "ClusterRoleBinding"] as const).map((kind) => {
    const namespaced = kind === "RoleBinding";
    const plural = `${kind.toLowerCase()}s`;
    return {
      kind,
      collection: namespaced
        ? `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/${plural}`
        : `/apis/rbac.authorization.k8s.io/v1/${plural}`,
      ...(namespaced ? { allNamespaces: `/apis/rbac.authorization.k8s.io/v1/${plural}` } : {}),
      resource: `${plural}.rbac.authorization.k8s.io`,
      apiVersion: "rbac.authorization.k8s.io/v1",
      valid: (name: string) => ({
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [
          { kind: "ServiceAccount", name: "app", namespace: NAMESPACE },
          { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" },
        ],
      }),
    };
  }),
  {
    kind: "Ingress",
    collection: `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/ingresses`,
    allNamespaces: "/apis/networking.k8s.io/v1/ingresses",
    resource: "ingresses.networking.k8s.io",
    apiVersion: "networking.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        ingressClassName: "nginx",
        tls: [{ hosts: ["app.example.com"], secretName: "tls" }],
        rules: [
          {
            host: "app.example.com",
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "web", port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    }),
  },
  {
    kind: "IngressClass",
    collection: "/apis/networking.k8s.io/v1/ingressclasses",
    resource: "ingressclasses.networking.k8s.io",
    apiVersion: "networking.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      spec: { controller: "example.com/ingress", parameters: { kind: "Config", name: "c" } },
    }),
  },
  {
    kind: "NetworkPolicy",
    collection: `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies`,
    allNamespaces: "/apis/networking.k8s.io/v1/networkpolicies",
    resource: "networkpolicies.networking.k8s.io",
    apiVersion: "networking.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        podSelector: { matchLabels: { app: "fuzz" } },
        ingress: [
          {
            from: [{ namespaceSelector: { matchLabels: { team: "a" } } }],
            ports: [{ protocol: "TCP", port: 8080 }],
          },
        ],
        policyTypes: ["Ingress"],
      },
    }),
  },
  {
    kind: "Job",
    collection: `/apis/batch/v1/namespaces/${NAMESPACE}/jobs`,
    allNamespaces: "/apis/batch/v1/jobs",
    resource: "jobs.batch",
    apiVersion: "batch/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        completions: 2,
        parallelism: 1,
        backoffLimit: 1,
        template: {
          metadata: { annotations: { "horizon.dev/run-duration": "1s" } },
          spec: { restartPolicy: "Never", containers: [container] },
        },
      },
    }),
  },
  {
    kind: "CronJob",
    collection: `/apis/batch/v1/namespaces/${NAMESPACE}/cronjobs`,
    allNamespaces: "/apis/batch/v1/cronjobs",
    resource: "cronjobs.batch",
    apiVersion: "batch/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        schedule: "*/5 * * * *",
        timeZone: "Europe/Paris",
        concurrencyPolicy: "Forbid",
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: "OnFailure", containers: [container] } } },
        },
      },
    }),
  },
  {
    kind: "PodDisruptionBudget",
    collection: `/apis/policy/v1/namespaces/${NAMESPACE}/poddisruptionbudgets`,
    allNamespaces: "/apis/policy/v1/poddisruptionbudgets",
    resource: "poddisruptionbudgets.policy",
    apiVersion: "policy/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        minAvailable: "50%",
        selector: { matchLabels: { app: "fuzz" } },
        unhealthyPodEvictionPolicy: "AlwaysAllow",
      },
    }),
  },
  {
    kind: "LimitRange",
    collection: `/api/v1/namespaces/${NAMESPACE}/limitranges`,
    allNamespaces: "/api/v1/limitranges",
    ownNamespace: true,
    resource: "limitranges",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        limits: [
          {
            type: "Container",
            max: { cpu: "4" },
            min: { cpu: "10m" },
            defaultRequest: { cpu: "100m" },
          },
        ],
      },
    }),
  },
  {
    kind: "ResourceQuota",
    collection: `/api/v1/namespaces/${NAMESPACE}/resourcequotas`,
    allNamespaces: "/api/v1/resourcequotas",
    ownNamespace: true,
    resource: "resourcequotas",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      // The fuzzed pods name a CPU request: the quota admits them (ResourceQuota admission).
      spec: { hard: { pods: "1M", "requests.cpu": "1M", "count/configmaps": "1M" } },
    }),
  },
  {
    kind: "PriorityClass",
    collection: "/apis/scheduling.k8s.io/v1/priorityclasses",
    resource: "priorityclasses.scheduling.k8s.io",
    apiVersion: "scheduling.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      value: 1000,
      description: "fuzz",
      preemptionPolicy: "Never",
    }),
  },
  {
    kind: "ServiceMonitor",
    collection: `/apis/monitoring.coreos.com/v1/namespaces/${NAMESPACE}/servicemonitors`,
    allNamespaces: "/apis/monitoring.coreos.com/v1/servicemonitors",
    resource: "servicemonitors.monitoring.coreos.com",
    apiVersion: "monitoring.coreos.com/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: "fuzz" } },
        endpoints: [{ port: "http", interval: "15s", path: "/metrics" }],
      },
    }),
  },
  {
    // The name must be <plural>.<group>: the generated name becomes the plural.
    kind: "CustomResourceDefinition",
    collection: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    resource: "customresourcedefinitions.apiextensions.k8s.io",
    apiVersion: "apiextensions.k8s.io/v1",
    valid: (name) => ({
      metadata: { name: `${name}s.fuzz.example.com` },
      spec: {
        group: "fuzz.example.com",
        names: { plural: `${name}s`, singular: name, kind: `K${name}`, listKind: `K${name}List` },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { n: { type: "integer" } } } },
              },
            },
          },
        ],
      },
    }),
  },
  {
    // The name must be <version>.<group>: the generated name becomes the group's first label.
    kind: "APIService",
    collection: "/apis/apiregistration.k8s.io/v1/apiservices",
    resource: "apiservices.apiregistration.k8s.io",
    apiVersion: "apiregistration.k8s.io/v1",
    valid: (name) => ({
      metadata: { name: `v1.${name}.fuzz.example.com` },
      spec: {
        group: `${name}.fuzz.example.com`,
        version: "v1",
        service: { namespace: NAMESPACE, name: "api", port: 443 },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    }),
  },
  {
    kind: "Endpoints",
    collection: `/api/v1/namespaces/${NAMESPACE}/endpoints`,
    allNamespaces: "/api/v1/endpoints",
    resource: "endpoints",
    apiVersion: "v1",
    valid: (name) => ({
      metadata: { name },
      subsets: [
        {
          addresses: [{ ip: "10.1.0.5", hostname: "db-0", nodeName: "horizon-node" }],
          notReadyAddresses: [{ ip: "10.1.0.6" }],
          ports: [
            { name: "pg", port: 5432, protocol: "TCP" },
            { name: "metrics", port: 9187, protocol: "TCP", appProtocol: "http" },
          ],
        },
      ],
    }),
  },
  {
    kind: "EndpointSlice",
    collection: `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices`,
    allNamespaces: "/apis/discovery.k8s.io/v1/endpointslices",
    resource: "endpointslices.discovery.k8s.io",
    apiVersion: "discovery.k8s.io/v1",
    valid: (name) => ({
      metadata: { name, labels: { "kubernetes.io/service-name": "db" } },
      addressType: "IPv4",
      endpoints: [
        {
          addresses: ["10.1.0.5"],
          conditions: { ready: true, serving: true, terminating: false },
          hostname: "db-0",
          nodeName: "horizon-node",
          zone: "z1",
          hints: { forZones: [{ name: "z1" }] },
        },
      ],
      ports: [{ name: "pg", port: 5432, protocol: "TCP", appProtocol: "postgresql" }],
    }),
  },
  {
    kind: "ControllerRevision",
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/controllerrevisions`,
    allNamespaces: "/apis/apps/v1/controllerrevisions",
    resource: "controllerrevisions.apps",
    apiVersion: "apps/v1",
    valid: (name) => ({
      metadata: { name, labels: { app: "fuzz" } },
      data: { spec: { template: { ...template, $patch: "replace" } } },
      revision: 1,
    }),
  },
  {
    kind: "Lease",
    collection: `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`,
    allNamespaces: "/apis/coordination.k8s.io/v1/leases",
    resource: "leases.coordination.k8s.io",
    apiVersion: "coordination.k8s.io/v1",
    valid: (name) => ({
      metadata: { name },
      spec: {
        holderIdentity: "fuzz",
        leaseDurationSeconds: 15,
        renewTime: "2026-01-01T00:00:00.000000Z",
      },
    }),
  },
];

/** Where the case's objects are stored: cluster-scoped kinds have no all-namespaces list. */
const namespaceOf = (kind: KindCase) =>
  kind.allNamespaces ? (kind.collection.match(/\/namespaces\/([^/]+)\//)?.[1] ?? NAMESPACE) : "";

export const VERBS = ["create", "update", "merge", "json", "strategic", "apply"] as const;
export type Verb = (typeof VERBS)[number];

// --- hostile values -----------------------------------------------------------------------------

/** JSON nested `depth` deep, spliced in as text (JSON.stringify cannot write it). */
class Deep {
  constructor(readonly depth: number) {
    Object.freeze(this);
  }
}

/** A string of `length` characters, made only when the body is written. */
class Big {
  // Frozen: the instances are shared between cases, and a mutation must not reach into one.
  constructor(readonly length: number) {
    Object.freeze(this);
  }
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, -1, "", "x", [], {}) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 53 + 1,
      2 ** 63,
      -(2 ** 63),
      4294967296,
      0.5,
      -0.000001,
    ),
  },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "1Gi",
      "100m",
      "-5",
      "1e3",
      "0x10",
      "2026-13-45T99:00:00Z",
      "a/b",
      "..",
      "UPPER",
      "a".repeat(254),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)), {
      maxLength: 4,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null)),
      { maxKeys: 3, noNullPrototype: true },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(50, 999, 1001, 5_000, 10_001).map((d) => new Deep(d)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(70_000, 300_000, 1_600_000, 3_200_000).map((n) => new Big(n)),
  },
);

type Path = (string | number)[];

/** Every path of a JSON value (the root included), containers and leaves. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  // Placeholders are leaves.
  if (value instanceof Deep || value instanceof Big) return out;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pathsOf(value[i], [...prefix, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
}

type Mutation =
  | { op: "set"; at: number; value: unknown }
  | { op: "delete"; at: number }
  | { op: "unknown"; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: hostileValue }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("unknown" as const),
      at: fc.nat(),
      key: fc.oneof(
        // "__proto__" and "constructor": JSON members named as Object.prototype's.
        fc.constantFrom(
          "x",
          "status",
          "metadata",
          "apiVersion",
          "kind",
          "spec",
          "__proto__",
          "constructor",
        ),
        fc.string({ maxLength: 8 }),
      ),
      value: hostileValue,
    }),
  },
);

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function setAt(root: Record<string, unknown>, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  let cur: unknown = root;
  for (const part of path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[part];
  (cur as Record<string | number, unknown>)[path[path.length - 1]!] = value;
  return root;
}

function deleteAt(root: Record<string, unknown>, path: Path): unknown {
  if (path.length === 0) return {};
  let cur: unknown = root;
  for (const part of path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[part];
  const last = path[path.length - 1]!;
  if (Array.isArray(cur)) cur.splice(last as number, 1);
  else delete (cur as Record<string, unknown>)[last as string];
  return root;
}

function valueAt(root: unknown, path: Path): unknown {
  let cur = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[part];
  }
  return cur;
}

/** The valid object with the mutations applied (paths picked among the current ones). */
export function mutate(valid: Record<string, unknown>, mutations: readonly Mutation[]): unknown {
  let value: unknown = clone(valid);
  for (const original of mutations) {
    const leaf = value === null || typeof value !== "object";
    if (leaf || value instanceof Deep || value instanceof Big) break;
    // A fresh copy: constants ({}, []) are shared between cases, and later mutations write
    // into what earlier ones inserted.
    const inserted =
      "value" in original && !(original.value instanceof Deep || original.value instanceof Big)
        ? clone(original.value)
        : (original as { value?: unknown }).value;
    const m = { ...original, value: inserted } as Mutation;
    const paths = pathsOf(value);
    const path = paths[m.at % paths.length]!;
    const root = value as Record<string, unknown>;
    if (m.op === "set") {
      value = setAt(root, path, m.value);
    } else if (m.op === "delete") {
      value = deleteAt(root, path);
    } else {
      const target = valueAt(root, path);
      const placeholder = target instanceof Deep || target instanceof Big;
      if (target !== null && typeof target === "object" && !Array.isArray(target) && !placeholder) {
        setMember(target as Record<string, unknown>, m.key, m.value);
      }
    }
  }
  return value;
}

/** JSON text of a value holding Deep and Big placeholders. */
export function encode(value: unknown): string {
  const spliced: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Deep || v instanceof Big) {
      spliced.push(
        v instanceof Deep
          ? "[".repeat(v.depth) + "]".repeat(v.depth)
          : JSON.stringify("b".repeat(v.length)),
      );
      return `\u0000SPLICE${spliced.length - 1}\u0000`;
    }
    return v;
  });
  if (text === undefined) return "null";
  return text.replace(/"\\u0000SPLICE(\d+)\\u0000"/g, (_m, i: string) => spliced[Number(i)]!);
}

function pointer(path: Path): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

type PatchOp = { op: string; at: number; from: number; value: unknown; append: boolean };

const patchOp: fc.Arbitrary<PatchOp> = fc.record({
  op: fc.constantFrom("add", "replace", "remove", "move", "copy", "test", "bogus"),
  at: fc.nat(),
  from: fc.nat(),
  value: hostileValue,
  append: fc.boolean(),
});

/** A JSON patch over paths of the valid object. */
function jsonPatch(valid: Record<string, unknown>, ops: readonly PatchOp[]): unknown[] {
  const paths = pathsOf(valid);
  return ops.map((o) => {
    const path = paths[o.at % paths.length]!;
    const text = o.append ? `${pointer(path)}/-` : pointer(path);
    const op: Record<string, unknown> = { op: o.op, path: text };
    if (o.op === "move" || o.op === "copy") op.from = pointer(paths[o.from % paths.length]!);
    if (o.op !== "remove") op.value = o.value;
    return op;
  });
}

// --- one case -----------------------------------------------------------------------------------

export interface FuzzCase {
  kind: number;
  verb: Verb;
  mutations: Mutation[];
  patch: PatchOp[];
  strict: boolean;
}

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  kind: fc.nat({ max: KIND_CASES.length - 1 }),
  verb: fc.constantFrom(...VERBS),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  patch: fc.array(patchOp, { minLength: 1, maxLength: 3 }),
  strict: fc.boolean(),
});

export interface FuzzServer {
  url: string;
  kubeconfig: string;
  cluster: EmbeddedCluster;
  /** What the embedded cluster's controllers failed on. */
  controllerErrors: string[];
  close(): Promise<void>;
}

export async function startFuzzServer(): Promise<FuzzServer> {
  const cluster = new EmbeddedCluster({
    model: clusterModelOf(scenario()),
    startTime: Date.UTC(2026, 0, 1, 12),
  });
  const controllerErrors: string[] = [];
  // The embedded cluster's controllers react to each write; what they fail on is logged (as
  // `horizon up` does), and no case may make them fail.
  cluster.store.onListenerError((error, event) => {
    const { kind, metadata } = event.object;
    controllerErrors.push(`${kind} ${metadata.name}: ${(error as Error).stack ?? String(error)}`);
  });
  const server = await serveHttp(createApiHandler({ cluster }), { port: 0 });
  const url = `http://127.0.0.1:${server.port}`;
  const res = await fetch(`${url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } }),
  });
  if (res.status !== 201) throw new Error(`cannot create namespace ${NAMESPACE}: ${res.status}`);
  return {
    url,
    kubeconfig: renderKubeconfig({ server: url, insecureSkipTlsVerify: true }),
    cluster,
    controllerErrors,
    close: () => server.close(),
  };
}

interface Answer {
  status: number;
  text: string;
}

async function send(
  server: FuzzServer,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
  accept = "application/json",
): Promise<Answer> {
  if (body !== undefined && Buffer.byteLength(body) > MAX_REQUEST_BODY_BYTES) {
    // A connection of its own: the server closes one whose body it refused (413) a moment
    // later, which a keep-alive pool could otherwise pick for the next request.
    return oneShot(server, method, path, body, contentType);
  }
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": contentType, accept },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, text: await res.text() };
}

function oneShot(
  server: FuzzServer,
  method: string,
  path: string,
  body: string,
  contentType: string,
): Promise<Answer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: { "content-type": contentType, connection: "close" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    // The server answers before it has read the body, and may close while it is being sent.
    req.on("error", (error) => reject(error));
    req.end(body);
  });
}

/** The first watch event of one object, from resourceVersion 0. */
async function watchFirst(server: FuzzServer, path: string): Promise<Json> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const res = await fetch(`${server.url}${path}`, { signal: controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`watch answered ${res.status}`);
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      const newline = buffer.indexOf("\n");
      if (newline >= 0) return JSON.parse(buffer.slice(0, newline));
    }
    throw new Error("the watch ended without an event");
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

export class InvariantError extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}

let counter = 0;

/** Runs one case against the server; throws InvariantError when an invariant breaks. */
export async function runCase(server: FuzzServer, c: FuzzCase): Promise<{ stored: boolean }> {
  const id = `f${(counter++).toString(36)}`;
  let kind = KIND_CASES[c.kind]!;
  if (kind.ownNamespace) {
    const ns = `${NAMESPACE}-${id}`;
    const made = await send(
      server,
      "POST",
      "/api/v1/namespaces",
      JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }),
    );
    check(made.status === 201, `namespace ${ns} was refused: ${made.status} ${made.text}`);
    kind = {
      ...kind,
      collection: kind.collection.replace(`/namespaces/${NAMESPACE}/`, `/namespaces/${ns}/`),
    };
  }
  const valid: Record<string, unknown> = {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    ...kind.valid(id),
  };
  const name = (valid.metadata as { name: string }).name;
  const itemPath = `${kind.collection}/${name}`;
  const query = c.strict ? "?fieldValidation=Strict" : "";
  const store = server.cluster.store;
  if (c.verb !== "create" && c.verb !== "apply") {
    const made = await send(server, "POST", kind.collection, JSON.stringify(valid));
    check(made.status === 201, `the valid ${kind.kind} was refused: ${made.status} ${made.text}`);
  }
  let request: { method: string; path: string; body: string; contentType: string };
  const mutated = () => encode(mutate(valid, c.mutations));
  switch (c.verb) {
    case "create":
      request = {
        method: "POST",
        path: `${kind.collection}${query}`,
        body: mutated(),
        contentType: "application/json",
      };
      break;
    case "update":
      request = {
        method: "PUT",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/json",
      };
      break;
    case "merge":
      request = {
        method: "PATCH",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/merge-patch+json",
      };
      break;
    case "strategic":
      request = {
        method: "PATCH",
        path: `${itemPath}${query}`,
        body: mutated(),
        contentType: "application/strategic-merge-patch+json",
      };
      break;
    case "json":
      {
        request = {
          method: "PATCH",
          path: `${itemPath}${query}`,
          body: encode(jsonPatch(valid, c.patch)),
          contentType: "application/json-patch+json",
        };
      }
      break;
    case "apply":
      request = {
        method: "PATCH",
        path: `${itemPath}?fieldManager=fuzz${c.strict ? "&fieldValidation=Strict" : ""}`,
        body: mutated(),
        contentType: "application/apply-patch+yaml",
      };
      break;
  }
  const before = store.resourceVersion();
  const errorsBefore = server.controllerErrors.length;
  const storedBefore = store.get(kind.kind, namespaceOf(kind), name);
  const answer = await send(
    server,
    request.method,
    request.path,
    request.body,
    request.contentType,
  );
  const what = `${c.verb} ${kind.apiVersion} ${kind.kind} ${name}: ${answer.status}`;
  try {
    check(answer.status < 500, `${what} (never a 5xx): ${answer.text.slice(0, 600)}`);
    const failed = server.controllerErrors.slice(errorsBefore);
    check(
      failed.length === 0,
      `${what}: a controller failed on it: ${failed.join("\n").slice(0, 800)}`,
    );
    if (answer.status >= 300) {
      check(store.resourceVersion() === before, `${what}: a refused write changed the store`);
      const now = store.get(kind.kind, namespaceOf(kind), name);
      check(now === storedBefore, `${what}: a refused write changed the object`);
      return { stored: false };
    }
    // A create's mutations may have renamed it: what was stored is what the answer names.
    const storedName =
      c.verb === "create"
        ? (JSON.parse(answer.text) as { metadata: { name: string } }).metadata.name
        : name;
    await readsWork(server, kind, storedName, what);
    // Big objects go once checked: a few hundred of them would make every list too big.
    if (request.body.length > 64 * 1024) {
      store.delete(kind.kind, namespaceOf(kind), storedName);
    }
    return { stored: true };
  } finally {
    // Taken: what a controller failed on is reported once, by this case.
    server.controllerErrors.length = errorsBefore;
  }
}

/** GET, GET as a Table, LIST (namespace and all), WATCH of a stored object. */
async function readsWork(server: FuzzServer, kind: KindCase, name: string, what: string) {
  const itemPath = `${kind.collection}/${name}`;
  const got = await send(server, "GET", itemPath);
  check(
    got.status === 200,
    `${what}: GET of the stored object answered ${got.status}: ${got.text.slice(0, 400)}`,
  );
  JSON.parse(got.text);
  const table = await send(
    server,
    "GET",
    itemPath,
    undefined,
    "application/json",
    TABLE_CONTENT_TYPE,
  );
  check(
    table.status === 200,
    `${what}: GET as a Table answered ${table.status}: ${table.text.slice(0, 400)}`,
  );
  for (const collection of [kind.collection, kind.allNamespaces].filter((p) => p !== undefined)) {
    const list = await send(server, "GET", collection);
    check(
      list.status === 200,
      `${what}: LIST ${collection} answered ${list.status}: ${list.text.slice(0, 400)}`,
    );
    const items = (JSON.parse(list.text) as { items: { metadata: { name: string } }[] }).items;
    check(
      items.some((i) => i.metadata.name === name),
      `${what}: LIST ${collection} lacks it`,
    );
    const tables = await send(
      server,
      "GET",
      collection,
      undefined,
      "application/json",
      TABLE_CONTENT_TYPE,
    );
    check(
      tables.status === 200,
      `${what}: LIST ${collection} as a Table answered ${tables.status}`,
    );
  }
  const event = await watchFirst(
    server,
    `${kind.collection}?watch=1&resourceVersion=0&timeoutSeconds=5&fieldSelector=metadata.name%3D${name}`,
  );
  check(
    event.type === "ADDED" && event.object?.metadata?.name === name,
    `${what}: WATCH gave ${JSON.stringify(event).slice(0, 300)}`,
  );
}

/** The controllers over what was stored: the cluster advanced a few minutes, HPAs synced. */
export async function runControllers(server: FuzzServer): Promise<string[]> {
  const errors: string[] = [];
  let now = server.cluster.now;
  const config = defaultControllerConfig();
  config.syncPeriodMs = 15_000;
  const driver = new RealtimeDriver({
    cluster: server.cluster,
    controllerConfig: config,
    clock: () => now,
    onError: (error) => errors.push((error as Error).stack ?? String(error)),
  });
  try {
    for (let step = 1; step <= 8; step++) {
      now += 30_000;
      await driver.tick();
    }
  } catch (error) {
    errors.push((error as Error).stack ?? String(error));
  } finally {
    await driver.stop();
  }
  return errors;
}

export type { KubeObject };

/**
 * `kubectl get -A -o json` and `kubectl describe -A` of every fuzzed resource with a real
 * kubectl binary: the failures (empty when every stored object can be shown).
 */
export async function kubectlReads(server: FuzzServer, binary: KubectlBinary): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "horizon-fuzz-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, server.kubeconfig, { mode: 0o600 });
  const context = { binary, kubeconfig, cacheDir: join(dir, "cache") };
  const failures: string[] = [];
  try {
    for (const resource of new Set(KIND_CASES.map((k) => k.resource))) {
      for (const args of [
        ["get", resource, "-A", "-o", "json"],
        ["describe", resource, "-A"],
      ]) {
        const res = await kubectl(context, args, { timeoutMs: 60_000 });
        if (res.code !== 0)
          failures.push(`kubectl ${args.join(" ")}: ${res.stderr.slice(0, 2000)}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return failures;
}
