// Just enough of kube-apiserver's request-info parsing and RBAC rule matching to check
// deploy/rbac.yaml against the requests a running controller sends (k8s.io/apiserver
// RequestInfoFactory and rbac/v1 helpers: "*" matches every group, resource or verb, "*/scale"
// every resource's scale subresource).

export interface RequestAttributes {
  /** Non-resource requests (discovery) carry only their path. */
  resourceRequest: boolean;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  path: string;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

const VERB_OF_METHOD: Record<string, string> = {
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The RBAC attributes of one request, as kube-apiserver derives them. */
export function requestAttributes(
  method: string,
  path: string,
  query: URLSearchParams,
): RequestAttributes {
  const parts = path.split("/").filter((p) => p !== "");
  const nonResource = {
    resourceRequest: false,
    verb: method.toLowerCase(),
    apiGroup: "",
    resource: "",
    subresource: "",
    namespace: "",
    path,
  };
  let rest: string[];
  let apiGroup = "";
  if (parts[0] === "api" && parts.length >= 3) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 4) {
    apiGroup = parts[1]!;
    rest = parts.slice(3);
  } else return nonResource;
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [resource = "", name = "", ...sub] = rest;
  let verb = VERB_OF_METHOD[method.toUpperCase()] ?? "get";
  if (verb === "get" && name === "") verb = query.get("watch") === "true" ? "watch" : "list";
  if (verb === "delete" && name === "") verb = "deletecollection";
  return {
    resourceRequest: true,
    verb,
    apiGroup,
    resource,
    subresource: sub.join("/"),
    namespace,
    path,
  };
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

/** Whether any rule allows the request (non-resource URLs need a nonResourceURLs rule). */
export function allows(rules: readonly PolicyRule[], attrs: RequestAttributes): boolean {
  return rules.some((rule) => ruleAllows(rule, attrs));
}

export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (!matches(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some(
      (url) => url === attrs.path || (url.endsWith("*") && attrs.path.startsWith(url.slice(0, -1))),
    );
  }
  return (
    matches(rule.apiGroups, attrs.apiGroup) &&
    resourceMatches(rule, attrs.resource, attrs.subresource)
  );
}

/** The default system:discovery role every authenticated user has. */
export const SYSTEM_DISCOVERY: PolicyRule = {
  verbs: ["get"],
  nonResourceURLs: [
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/healthz",
    "/livez",
    "/readyz",
    "/version",
    "/version/",
  ],
};
