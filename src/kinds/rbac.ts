// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: stored
// and validated as upstream (rules with verbs, a binding's roleRef immutable), listed with
// upstream's columns. Horizon's admin token is not subject to them (nothing is enforced yet).
// One module for the four: they share their types and rules.
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import {
  child,
  type FieldError,
  index,
  invalid,
  isValidPathSegmentName,
  notSupported,
  required,
} from "../api/validation.js";
import { LABEL_SELECTOR, topLevel } from "./meta.js";
import { AGE, asRecord, col, DOC, NAME, since, text } from "./printing.js";
import { atomicOf, pb, str, strs, struct } from "./schema.js";
import {
  checked,
  type KindDefinition,
  type KindStrategy,
  READ_WRITE,
  type TableColumnDefinition,
} from "./types.js";

const GROUP = "rbac.authorization.k8s.io";

const POLICY_RULE = struct(
  {
    verbs: strs(1),
    apiGroups: strs(2),
    resources: strs(3),
    resourceNames: strs(4),
    nonResourceURLs: strs(5),
  },
  { go: "v1.PolicyRule" },
);

const SUBJECT = struct(
  { kind: str(1), apiGroup: str(2), name: str(3), namespace: str(4) },
  { go: "v1.Subject", atomic: true },
);

const ROLE_REF = struct(
  { apiGroup: str(1), kind: str(2), name: str(3) },
  { go: "v1.RoleRef", atomic: true, zero: true },
);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** ValidatePolicyRule. */
function validateRules(object: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const rules = Array.isArray(object.rules) ? object.rules : [];
  for (const [i, rule] of rules.entries()) {
    const at = index("rules", i);
    const r = asRecord(rule);
    if (strings(r.verbs).length === 0) {
      errs.push(required(child(at, "verbs"), "verbs must contain at least one value"));
    }
    const urls = strings(r.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) {
        errs.push(
          invalid(
            child(at, "nonResourceURLs"),
            urls,
            "namespaced rules cannot apply to non-resource URLs",
            true,
          ),
        );
      }
      if (strings(r.apiGroups).length > 0 || strings(r.resources).length > 0) {
        errs.push(
          invalid(
            child(at, "nonResourceURLs"),
            urls,
            "rules cannot apply to both regular resources and non-resource URLs",
            true,
          ),
        );
      }
      continue;
    }
    if (strings(r.resources).length === 0) {
      errs.push(
        required(child(at, "resources"), "resource rules must supply at least one resource"),
      );
    }
    if (strings(r.apiGroups).length === 0) {
      errs.push(
        required(child(at, "apiGroups"), "resource rules must supply at least one api group"),
      );
    }
  }
  return errs;
}

/** ValidateRoleBinding: the roleRef (kinds it may name), then each subject. */
function validateBinding(object: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asRecord(object.roleRef);
  if (ref.apiGroup !== GROUP) {
    errs.push(notSupported("roleRef.apiGroup", text(ref.apiGroup), [GROUP]));
  }
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(text(ref.kind))) {
    errs.push(notSupported("roleRef.kind", text(ref.kind), kinds));
  }
  const name = text(ref.name);
  if (name.length === 0) errs.push(required("roleRef.name", ""));
  else
    for (const msg of isValidPathSegmentName(name)) errs.push(invalid("roleRef.name", name, msg));
  const subjects = Array.isArray(object.subjects) ? object.subjects : [];
  for (const [i, subject] of subjects.entries()) {
    const at = index("subjects", i);
    const s = asRecord(subject);
    const subjectName = text(s.name);
    if (subjectName.length === 0) errs.push(required(child(at, "name"), ""));
    switch (s.kind) {
      case "ServiceAccount":
        if (s.apiGroup !== undefined && s.apiGroup !== "") {
          errs.push(notSupported(child(at, "apiGroup"), text(s.apiGroup), [""]));
        }
        if (!namespaced && text(s.namespace).length === 0) {
          errs.push(required(child(at, "namespace"), ""));
        }
        break;
      case "User":
      case "Group":
        if (s.apiGroup !== GROUP) {
          errs.push(notSupported(child(at, "apiGroup"), text(s.apiGroup), [GROUP]));
        }
        break;
      default:
        errs.push(
          notSupported(child(at, "kind"), text(s.kind), ["ServiceAccount", "User", "Group"]),
        );
    }
  }
  return errs;
}

function roleStrategy(namespaced: boolean): KindStrategy {
  return {
    prepareForCreate: (object) => checked(object, validateRules(object, namespaced)),
    prepareForUpdate: (next) => checked(next, validateRules(next, namespaced)),
  };
}

function bindingStrategy(namespaced: boolean): KindStrategy {
  return {
    prepareForCreate: (object) => checked(object, validateBinding(object, namespaced)),
    prepareForUpdate(next, current) {
      const errs = validateBinding(next, namespaced);
      if (JSON.stringify(sortedRef(next.roleRef)) !== JSON.stringify(sortedRef(current.roleRef))) {
        errs.push(invalid("roleRef", sortedRef(next.roleRef), "cannot change roleRef", true));
      }
      return checked(next, errs);
    },
  };
}

function sortedRef(ref: unknown) {
  const r = isRecord(ref) ? ref : {};
  return { apiGroup: text(r.apiGroup), kind: text(r.kind), name: text(r.name) };
}

const CREATED_AT = col("Created At", "date", DOC.creationTimestamp);

const rolePrinter = {
  columns: [NAME, CREATED_AT],
  cells: (obj: KubeObject) => [obj.metadata.name, text(obj.metadata.creationTimestamp)],
};

const bindingColumns: TableColumnDefinition[] = [
  NAME,
  col("Role", "string", "The role the binding grants: its kind and name."),
  AGE,
  col("Users", "string", "Users in the roleBinding", { priority: 1 }),
  col("Groups", "string", "Groups in the roleBinding", { priority: 1 }),
  col("ServiceAccounts", "string", "ServiceAccounts in the roleBinding", { priority: 1 }),
];

const bindingPrinter = {
  columns: bindingColumns,
  cells: (obj: KubeObject, now: number) => {
    const ref = asRecord(obj.roleRef);
    const subjects = (Array.isArray(obj.subjects) ? obj.subjects : []).map(asRecord);
    const named = (kind: string) =>
      subjects
        .filter((s) => s.kind === kind)
        .map((s) =>
          kind === "ServiceAccount" ? `${text(s.namespace)}/${text(s.name)}` : text(s.name),
        )
        .join(", ");
    return [
      obj.metadata.name,
      `${text(ref.kind)}/${text(ref.name)}`,
      since(obj.metadata.creationTimestamp, now),
      named("User"),
      named("Group"),
      named("ServiceAccount"),
    ];
  },
};

const common = {
  group: GROUP,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None" as const,
  fieldSelectors: [],
  // RBAC names are path segments (`system:aggregate-to-view`), not DNS subdomains.
  nameRule: "pathSegment" as const,
};

export const role: KindDefinition<"Role"> = {
  ...common,
  kind: "Role",
  resource: "roles",
  singular: "role",
  description:
    "A Role grants permissions (verbs on resources) within its namespace. A RoleBinding gives them to users, groups or service accounts.",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.Role", { rules: atomicOf(POLICY_RULE, 2) }),
    },
  ],
  namespaced: true,
  strategy: roleStrategy(true),
  printer: rolePrinter,
};

export const clusterRole: KindDefinition<"ClusterRole"> = {
  ...common,
  kind: "ClusterRole",
  resource: "clusterroles",
  singular: "clusterrole",
  description:
    "A ClusterRole grants permissions across the cluster: on cluster-scoped resources, non-resource URLs, or resources in every namespace. Bindings give them to subjects.",
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.ClusterRole", {
        rules: atomicOf(POLICY_RULE, 2),
        aggregationRule: pb(
          3,
          struct(
            { clusterRoleSelectors: atomicOf(LABEL_SELECTOR, 1) },
            { go: "v1.AggregationRule", ptr: true },
          ),
        ),
      }),
    },
  ],
  namespaced: false,
  strategy: roleStrategy(false),
  printer: rolePrinter,
};

const bindingSchema = (go: string) =>
  topLevel(go, { subjects: atomicOf(SUBJECT, 2), roleRef: pb(3, ROLE_REF) });

export const roleBinding: KindDefinition<"RoleBinding"> = {
  ...common,
  kind: "RoleBinding",
  resource: "rolebindings",
  singular: "rolebinding",
  description:
    "A RoleBinding gives the permissions of a Role or ClusterRole to users, groups or service accounts, within its namespace.",
  versions: [{ version: "v1", protobuf: true, schema: bindingSchema("v1.RoleBinding") }],
  namespaced: true,
  strategy: bindingStrategy(true),
  printer: bindingPrinter,
};

export const clusterRoleBinding: KindDefinition<"ClusterRoleBinding"> = {
  ...common,
  kind: "ClusterRoleBinding",
  resource: "clusterrolebindings",
  singular: "clusterrolebinding",
  description:
    "A ClusterRoleBinding gives the permissions of a ClusterRole to users, groups or service accounts in every namespace.",
  versions: [{ version: "v1", protobuf: true, schema: bindingSchema("v1.ClusterRoleBinding") }],
  namespaced: false,
  strategy: bindingStrategy(false),
  printer: bindingPrinter,
};
