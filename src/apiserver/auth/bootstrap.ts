// The bootstrap RBAC policy kube-apiserver creates at startup (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy): the roles users rely on and their default bindings. The user-facing `admin`,
// `edit` and `view` are aggregated from the `system:aggregate-to-*` roles, whose rules are
// upstream's for the kinds Horizon serves (the clusterrole aggregation controller,
// src/cluster/controllers/clusterroleaggregation.ts, fills them in).
import type { KubeObject } from "../../api/types.js";
import type { PolicyRule } from "./rbac.js";
import { SYSTEM_AUTHENTICATED, SYSTEM_MASTERS, SYSTEM_UNAUTHENTICATED } from "./user.js";

const RBAC = "rbac.authorization.k8s.io";
const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const READ_WRITE = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});

const PUBLIC_INFO_URLS = ["/healthz", "/livez", "/readyz", "/version", "/version/"];

/** What system:discovery grants every authenticated user: the discovery and OpenAPI paths. */
export const SYSTEM_DISCOVERY: PolicyRule = {
  verbs: ["get"],
  nonResourceURLs: [
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/openapi",
    "/openapi/*",
    ...PUBLIC_INFO_URLS,
  ],
};

const AGGREGATE_TO = (role: string) => `${RBAC}/aggregate-to-${role}`;

const VIEW_RULES: PolicyRule[] = [
  rule(
    READ,
    [""],
    [
      "pods",
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "serviceaccounts",
      "services",
      "services/status",
      "endpoints",
      "persistentvolumeclaims",
      "persistentvolumeclaims/status",
      "configmaps",
    ],
  ),
  rule(
    READ,
    [""],
    [
      "limitranges",
      "resourcequotas",
      "bindings",
      "events",
      "pods/status",
      "resourcequotas/status",
      "namespaces/status",
      "replicationcontrollers/status",
      "pods/log",
    ],
  ),
  rule(READ, [""], ["namespaces"]),
  rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
  rule(
    READ,
    ["apps"],
    [
      "controllerrevisions",
      "statefulsets",
      "statefulsets/scale",
      "statefulsets/status",
      "daemonsets",
      "daemonsets/status",
      "deployments",
      "deployments/scale",
      "deployments/status",
      "replicasets",
      "replicasets/scale",
      "replicasets/status",
    ],
  ),
  rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
  rule(READ, ["batch"], ["jobs", "jobs/status", "cronjobs", "cronjobs/status"]),
  rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
  rule(READ, ["networking.k8s.io"], ["networkpolicies", "ingresses", "ingresses/status"]),
];

const EDIT_RULES: PolicyRule[] = [
  rule(
    READ,
    [""],
    ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"],
  ),
  rule(["impersonate"], [""], ["serviceaccounts"]),
  rule(WRITE, [""], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
  rule(["create"], [""], ["pods/eviction"]),
  rule(
    WRITE,
    [""],
    [
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "serviceaccounts",
      "services",
      "services/proxy",
      "persistentvolumeclaims",
      "configmaps",
      "secrets",
      "events",
    ],
  ),
  rule(["create"], [""], ["serviceaccounts/token"]),
  rule(
    WRITE,
    ["apps"],
    [
      "statefulsets",
      "statefulsets/scale",
      "daemonsets",
      "deployments",
      "deployments/scale",
      "deployments/rollback",
      "replicasets",
      "replicasets/scale",
    ],
  ),
  rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
  rule(WRITE, ["batch"], ["jobs", "cronjobs"]),
  rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
  rule(WRITE, ["networking.k8s.io"], ["networkpolicies", "ingresses"]),
  rule(READ_WRITE, ["coordination.k8s.io"], ["leases"]),
];

const ADMIN_RULES: PolicyRule[] = [
  rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
  rule(READ_WRITE, [RBAC], ["roles", "rolebindings"]),
];

function clusterRole(
  name: string,
  rules: PolicyRule[],
  options: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): KubeObject {
  const role: KubeObject = {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: {
      name,
      labels: { "kubernetes.io/bootstrapping": "rbac-defaults", ...options.labels },
      annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
    },
    rules,
  };
  if (options.aggregateFrom) {
    role.aggregationRule = {
      clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(options.aggregateFrom)]: "true" } }],
    };
  }
  return role;
}

function clusterRoleBinding(name: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: {
      name,
      labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
      annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
    },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name },
    subjects: groups.map((group) => ({ kind: "Group", apiGroup: RBAC, name: group })),
  };
}

// admin takes in edit, which takes in view.
const labelled = (role: string) => ({ [AGGREGATE_TO(role)]: "true" });

/** The bootstrap roles, then their bindings. */
export function bootstrapPolicy(): KubeObject[] {
  return [
    clusterRole("cluster-admin", [
      rule(["*"], ["*"], ["*"]),
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ]),
    clusterRole("admin", [], { aggregateFrom: "admin" }),
    clusterRole("edit", [], { aggregateFrom: "edit", labels: labelled("admin") }),
    clusterRole("view", [], { aggregateFrom: "view", labels: labelled("edit") }),
    clusterRole("system:aggregate-to-admin", ADMIN_RULES, { labels: labelled("admin") }),
    clusterRole("system:aggregate-to-edit", EDIT_RULES, { labels: labelled("edit") }),
    clusterRole("system:aggregate-to-view", VIEW_RULES, { labels: labelled("view") }),
    clusterRole("system:discovery", [SYSTEM_DISCOVERY]),
    clusterRole("system:basic-user", [
      rule(
        ["create"],
        ["authorization.k8s.io"],
        ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
      ),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [
      { verbs: ["get"], nonResourceURLs: PUBLIC_INFO_URLS },
    ]),
    {
      // Aggregated API servers (deploy/adapter) read the front proxy's CA with it.
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: {
        name: "extension-apiserver-authentication-reader",
        namespace: "kube-system",
        labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
        annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
      },
      rules: [
        {
          verbs: READ,
          apiGroups: [""],
          resources: ["configmaps"],
          resourceNames: ["extension-apiserver-authentication"],
        },
      ],
    },
    clusterRoleBinding("cluster-admin", [SYSTEM_MASTERS]),
    clusterRoleBinding("system:discovery", [SYSTEM_AUTHENTICATED]),
    clusterRoleBinding("system:basic-user", [SYSTEM_AUTHENTICATED]),
    clusterRoleBinding("system:public-info-viewer", [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED]),
  ];
}
