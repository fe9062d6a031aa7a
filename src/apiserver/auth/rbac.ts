// The RBAC authorizer, as kube-apiserver's (plugin/pkg/auth/authorizer/rbac): a request's
// attributes (k8s.io/apiserver RequestInfoFactory), the rules of the ClusterRoles and Roles the
// user's bindings give them, and the first rule that allows it. One rule matcher serves the
// API server, the access and rules reviews, and the tests that check deploy/'s roles.
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import { serviceAccountUsername, type UserInfo } from "./user.js";

/** What authorization looks at in one request (authorizer.Attributes). */
export interface RequestAttributes {
  /** Non-resource requests (discovery, health) carry only their path and verb. */
  resourceRequest: boolean;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/** rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

const VERB_OF_METHOD: Record<string, string> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** Verbs a path may start with (`/api/v1/watch/pods`); these paths name no subresource. */
const PATH_VERBS = new Set(["proxy", "watch"]);

function isTrue(value: string | null): boolean {
  return value === "true" || value === "1";
}

/** `metadata.name=x` alone in a field selector (RequiresExactMatch), or "". */
function exactName(fieldSelector: string | null): string {
  if (!fieldSelector) return "";
  const terms = fieldSelector.split(",").filter((t) => t !== "");
  for (const term of terms) {
    const match = /^metadata\.name(==?)(.*)$/.exec(term);
    if (match && terms.length === 1) return match[2] ?? "";
  }
  return "";
}

/** The RBAC attributes of one request, as kube-apiserver's RequestInfoFactory derives them. */
export function requestAttributes(
  method: string,
  path: string,
  query: URLSearchParams,
): RequestAttributes {
  const verb = VERB_OF_METHOD[method.toUpperCase()] ?? "";
  const attrs: RequestAttributes = {
    resourceRequest: false,
    verb: method.toLowerCase(),
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
    path,
  };
  let parts = path
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .filter((p) => p !== "");
  if (parts[0] === "api" && parts.length >= 3) {
    attrs.apiVersion = parts[1]!;
    parts = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    attrs.apiGroup = parts[1]!;
    attrs.apiVersion = parts[2]!;
    parts = parts.slice(3);
  } else return attrs;
  attrs.resourceRequest = true;
  parts = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  let viaPath = false;
  if (PATH_VERBS.has(parts[0]!)) {
    attrs.verb = parts[0]!;
    parts = parts.slice(1);
    viaPath = true;
  } else attrs.verb = verb;
  if (parts[0] === "namespaces" && parts.length > 1) {
    attrs.namespace = parts[1]!;
    // namespaces/NS/status and /finalize are the Namespace's own subresources.
    if (parts.length > 2 && parts[2] !== "status" && parts[2] !== "finalize")
      parts = parts.slice(2);
  }
  attrs.resource = parts[0] ?? "";
  attrs.name = parts[1] ?? "";
  if (parts.length >= 3 && !viaPath) attrs.subresource = parts[2]!;
  if (attrs.name === "" && attrs.verb === "get") {
    attrs.verb = isTrue(query.get("watch")) ? "watch" : "list";
    attrs.name = exactName(query.get("fieldSelector"));
  }
  if (attrs.name === "" && attrs.verb === "delete") attrs.verb = "deletecollection";
  return attrs;
}

function matches(values: readonly string[] | undefined, value: string): boolean {
  return (values ?? []).some((v) => v === "*" || v === value);
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (r) => r === "*" || r === combined || (subresource !== "" && r === `*/${subresource}`),
  );
}

function nameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (url) =>
      url === "*" || url === path || (url.endsWith("*") && path.startsWith(url.slice(0, -1))),
  );
}

/** Whether the rule allows the request (non-resource URLs need a nonResourceURLs rule). */
export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (!matches(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) return urlMatches(rule, attrs.path);
  return (
    matches(rule.apiGroups, attrs.apiGroup) &&
    resourceMatches(rule, attrs.resource, attrs.subresource) &&
    nameMatches(rule, attrs.name)
  );
}

export function allows(rules: readonly PolicyRule[], attrs: RequestAttributes): boolean {
  return rules.some((rule) => ruleAllows(rule, attrs));
}

// ---------------------------------------------------------------------------------------------
// Bindings

/** What the authorizer reads of the store. */
export interface RbacObjects {
  get(kind: string, namespace: string, name: string): KubeObject | undefined;
  list(kind: string, namespace?: string): readonly KubeObject[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

export function policyRules(role: KubeObject): PolicyRule[] {
  const rules = Array.isArray(role.rules) ? role.rules : [];
  return rules.filter(isRecord).map((r) => {
    const rule: PolicyRule = { verbs: strings(r.verbs) };
    for (const key of ["apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const) {
      if (Array.isArray(r[key])) rule[key] = strings(r[key]);
    }
    return rule;
  });
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** The binding subject that names the user, described as upstream's reasons print it. */
function subjectFor(binding: KubeObject, user: UserInfo): string | null {
  const bindingNamespace = binding.metadata.namespace ?? "";
  const subjects = Array.isArray(binding.subjects) ? binding.subjects.filter(isRecord) : [];
  for (const s of subjects) {
    const name = text(s.name);
    switch (s.kind) {
      case "User":
        if (user.name === name) return `User "${name}"`;
        break;
      case "Group":
        if (user.groups.includes(name)) return `Group "${name}"`;
        break;
      case "ServiceAccount": {
        // A RoleBinding's subject without a namespace is in the binding's.
        const namespace = text(s.namespace) || bindingNamespace;
        if (namespace !== "" && user.name === serviceAccountUsername(namespace, name)) {
          return `ServiceAccount "${name}/${namespace}"`;
        }
        break;
      }
    }
  }
  return null;
}

/** One binding that applies to the user, with its role's rules (or why they could not be read). */
interface AppliedBinding {
  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`. */
  description: string;
  rules: PolicyRule[];
  error?: string;
}

/** The user's bindings: every ClusterRoleBinding, then the RoleBindings of `namespace`. */
function appliedBindings(
  objects: RbacObjects,
  user: UserInfo,
  namespace: string,
): AppliedBinding[] {
  const out: AppliedBinding[] = [];
  const bindings = [
    ...objects.list("ClusterRoleBinding"),
    ...(namespace !== "" ? objects.list("RoleBinding", namespace) : []),
  ];
  for (const binding of bindings) {
    const subject = subjectFor(binding, user);
    if (subject === null) continue;
    const ref = isRecord(binding.roleRef) ? binding.roleRef : {};
    const roleKind = text(ref.kind);
    const roleName = text(ref.name);
    const namespaced = binding.kind === "RoleBinding";
    const bindingName = namespaced
      ? `${binding.metadata.name}/${binding.metadata.namespace ?? ""}`
      : binding.metadata.name;
    const description = `${binding.kind} "${bindingName}" of ${roleKind} "${roleName}" to ${subject}`;
    const role =
      roleKind === "ClusterRole"
        ? objects.get("ClusterRole", "", roleName)
        : roleKind === "Role" && namespaced
          ? objects.get("Role", binding.metadata.namespace ?? "", roleName)
          : undefined;
    if (!role) {
      const resource = roleKind === "Role" ? "role" : "clusterrole";
      out.push({
        description,
        rules: [],
        error: `${resource}.rbac.authorization.k8s.io "${roleName}" not found`,
      });
      continue;
    }
    out.push({ description, rules: policyRules(role) });
  }
  return out;
}

export interface Decision {
  allowed: boolean;
  /** Why (allowed: the binding; denied: the bindings that could not be read), or "". */
  reason: string;
}

/** RBACAuthorizer.Authorize: allowed by the first binding whose role has a matching rule. */
export function authorize(
  objects: RbacObjects,
  user: UserInfo,
  attrs: RequestAttributes,
): Decision {
  const errors: string[] = [];
  for (const applied of appliedBindings(objects, user, attrs.namespace)) {
    if (applied.error) errors.push(applied.error);
    if (allows(applied.rules, attrs)) {
      return { allowed: true, reason: `RBAC: allowed by ${applied.description}` };
    }
  }
  if (errors.length === 0) return { allowed: false, reason: "" };
  return { allowed: false, reason: `RBAC: ${aggregate(errors)}` };
}

/** utilerrors.Aggregate's text: one error bare, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
}

/** RulesFor: every rule the user has in the namespace, and the errors met on the way. */
export function rulesFor(
  objects: RbacObjects,
  user: UserInfo,
  namespace: string,
): { rules: PolicyRule[]; evaluationError: string } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  for (const applied of appliedBindings(objects, user, namespace)) {
    if (applied.error) errors.push(applied.error);
    rules.push(...applied.rules);
  }
  return { rules, evaluationError: errors.length > 0 ? aggregate(errors) : "" };
}

/**
 * The Forbidden message (k8s.io/apiserver's forbiddenMessage): `User "u" cannot list resource
 * "pods" in API group "" in the namespace "ns"`, a path for non-resource requests.
 */
export function forbiddenMessage(user: UserInfo, attrs: RequestAttributes): string {
  if (!attrs.resourceRequest)
    return `User "${user.name}" cannot ${attrs.verb} path "${attrs.path}"`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace "${attrs.namespace}"` : "at the cluster scope";
  return `User "${user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${where}`;
}
