// RBAC's privilege-escalation prevention (k8s.io/kubernetes pkg/registry/rbac): a user may
// write a Role or ClusterRole only with rules they already hold (or the `escalate` verb on
// it), and a binding only to a role whose rules they hold (or the `bind` verb on it); setting
// an aggregationRule takes full authority. Otherwise the write is 403 with upstream's message
// listing the rules not held.
import { isDeepStrictEqual } from "node:util";
import { isRecord } from "../../api/json.js";
import type { KubeObject } from "../../api/types.js";
import { goQuote } from "../../api/validation.js";
import { type ApiError, forbidden } from "../errors.js";
import {
  authorize,
  type PolicyRule,
  policyRules,
  type RbacObjects,
  type RequestAttributes,
  rulesFor,
} from "./rbac.js";
import { SYSTEM_MASTERS, type UserInfo } from "./user.js";

const RBAC = "rbac.authorization.k8s.io";
const RESOURCE_OF: Record<string, string> = {
  Role: "roles",
  ClusterRole: "clusterroles",
  RoleBinding: "rolebindings",
  ClusterRoleBinding: "clusterrolebindings",
};

const has = (values: readonly string[] | undefined, value: string) =>
  (values ?? []).includes(value);

/** One servant rule per group, resource, verb (and name, or URL and verb): BreakdownRule. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0)
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) {
          out.push({
            apiGroups: [group],
            resources: [resource],
            resourceNames: [name],
            verbs: [verb],
          });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function resourceCovered(owner: readonly string[], resource: string): boolean {
  if (has(owner, "*") || has(owner, resource)) return true;
  const slash = resource.indexOf("/");
  return slash >= 0 && has(owner, `*/${resource.slice(slash + 1)}`);
}

function urlCovered(owner: readonly string[], url: string): boolean {
  return owner.some(
    (o) => o === "*" || o === url || (o.endsWith("*") && url.startsWith(o.slice(0, -1))),
  );
}

/** Whether the owner's rule covers one broken-down servant rule (ruleCovers). */
function covers(owner: PolicyRule, servant: PolicyRule): boolean {
  const verb = servant.verbs[0]!;
  if (!has(owner.verbs, "*") && !has(owner.verbs, verb)) return false;
  const url = servant.nonResourceURLs?.[0];
  if (url !== undefined) return urlCovered(owner.nonResourceURLs ?? [], url);
  const group = servant.apiGroups?.[0] ?? "";
  if (!has(owner.apiGroups, "*") && !has(owner.apiGroups, group)) return false;
  if (!resourceCovered(owner.resources ?? [], servant.resources?.[0] ?? "")) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const name = servant.resourceNames?.[0];
  return name !== undefined && ownerNames.includes(name);
}

/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (values: readonly string[]) => `[${values.map(goQuote).join(" ")}]`;

/** rbacv1helpers.CompactString. */
function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${quoteList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${quoteList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) {
    parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs!)}`);
  }
  if ((rule.resourceNames ?? []).length > 0) {
    parts.push(`ResourceNames:${quoteList(rule.resourceNames!)}`);
  }
  if (rule.verbs.length > 0) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** CompactRules: missing rules of one group and resource (no names) with their verbs merged. */
function compact(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    if (rule.nonResourceURLs || (rule.resourceNames ?? []).length > 0) {
      out.push(rule);
      continue;
    }
    const key = `${rule.apiGroups?.[0]}\u0000${rule.resources?.[0]}`;
    const seen = simple.get(key);
    if (seen) {
      if (!seen.verbs.includes(rule.verbs[0]!)) (seen.verbs as string[]).push(rule.verbs[0]!);
    } else {
      const copy = { ...rule, verbs: [...rule.verbs] };
      simple.set(key, copy);
      out.push(copy);
    }
  }
  return out;
}

/** ConfirmNoEscalation: the rules the user does not hold in `namespace`, as upstream lists them. */
function notHeld(
  objects: RbacObjects,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | null {
  const owner = rulesFor(objects, user, namespace).rules;
  const missing = rules.flatMap(breakdown).filter((r) => !owner.some((o) => covers(o, r)));
  if (missing.length === 0) return null;
  const lines = [...new Set(compact(missing).map(compactString))].sort();
  return `user ${goQuote(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
}

function allowedTo(
  objects: RbacObjects,
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  name: string,
): boolean {
  const attrs: RequestAttributes = {
    resourceRequest: true,
    verb,
    apiGroup: RBAC,
    apiVersion: "v1",
    resource,
    subresource: "",
    namespace,
    name,
    path: "",
  };
  return authorize(objects, user, attrs).allowed;
}

/** What a write of the kind grants: a role's rules and aggregation, a binding's role and subjects. */
function grants(object: KubeObject): unknown {
  return object.kind.endsWith("Binding")
    ? [object.roleRef, object.subjects]
    : [object.rules, object.aggregationRule];
}

/**
 * The 403 for a create or update of an RBAC object that would grant what the user does not hold,
 * or null (other kinds, system:masters, a write that grants nothing new).
 */
export function escalationError(
  objects: RbacObjects,
  user: UserInfo | undefined,
  object: KubeObject,
  current?: KubeObject,
): ApiError | null {
  const resource = RESOURCE_OF[object.kind];
  if (!resource || !user || user.groups.includes(SYSTEM_MASTERS)) return null;
  // Labels, annotations, finalizers: nothing is granted.
  if (current && isDeepStrictEqual(grants(object), grants(current))) return null;
  const name = object.metadata.name ?? "";
  const namespace = object.metadata.namespace ?? "";
  const deny = (why: string) => forbidden({ group: RBAC, resource }, name, why);
  if (object.kind === "Role" || object.kind === "ClusterRole") {
    if (allowedTo(objects, user, "escalate", resource, namespace, name)) return null;
    const why = notHeld(objects, user, namespace, policyRules(object));
    if (why) return deny(why);
    if (object.kind === "ClusterRole" && object.aggregationRule !== undefined) {
      const full = notHeld(objects, user, "", [
        { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
        { verbs: ["*"], nonResourceURLs: ["*"] },
      ]);
      if (full) return deny("must have cluster-admin privileges to use the aggregationRule");
    }
    return null;
  }
  const ref = isRecord(object.roleRef) ? object.roleRef : {};
  const refKind = typeof ref.kind === "string" ? ref.kind : "";
  const refName = typeof ref.name === "string" ? ref.name : "";
  const refResource = refKind === "Role" ? "roles" : "clusterroles";
  if (allowedTo(objects, user, "bind", refResource, namespace, refName)) return null;
  const role =
    refKind === "Role"
      ? objects.get("Role", namespace, refName)
      : objects.get("ClusterRole", "", refName);
  if (!role) {
    return deny(`${refResource.slice(0, -1)}.${RBAC} ${goQuote(refName)} not found`);
  }
  const why = notHeld(objects, user, namespace, policyRules(role));
  return why ? deny(why) : null;
}
