// Impersonation, as kube-apiserver's WithImpersonation filter: `kubectl --as USER --as-group G
// --as-uid U` send Impersonate-User, Impersonate-Group (once per group), Impersonate-Uid and
// Impersonate-Extra-KEY headers. Each thing asked for needs the `impersonate` verb on users,
// groups, serviceaccounts (a `system:serviceaccount:NS:NAME` user), uids or userextras/KEY;
// the request then runs as the user so made, for authorization, reviews and admission alike.
import { isDNS1123Label, isDNS1123Subdomain } from "../../api/validation.js";
import { errorResponse, forbidden } from "../errors.js";
import type { Filter } from "../filters.js";
import type { ApiRequest, ApiResponse } from "../types.js";
import { authorize, forbiddenMessage, type RbacObjects, type RequestAttributes } from "./rbac.js";
import {
  SERVICE_ACCOUNTS_GROUP,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  SYSTEM_UNAUTHENTICATED,
  type UserInfo,
} from "./user.js";

const USER_HEADER = "impersonate-user";
const GROUP_HEADER = "impersonate-group";
const UID_HEADER = "impersonate-uid";
const EXTRA_PREFIX = "impersonate-extra-";
const AUTHENTICATION_V1 = "authentication.k8s.io/v1";
const ANONYMOUS = "system:anonymous";
const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

/** One thing asked for (upstream builds a core/v1 ObjectReference per header value). */
interface ImpersonationRequest {
  kind: "User" | "ServiceAccount" | "Group" | "UserExtra" | "UID";
  namespace: string;
  name: string;
  /** `authentication.k8s.io/v1` for UserExtra and UID, "" for the core kinds. */
  apiVersion: string;
  /** The extra's key (upstream carries it in the reference's fieldPath). */
  fieldPath: string;
}

/** Every value of a header, as sent (a repeated header is one value per line, not joined). */
function headerValues(req: ApiRequest, name: string): string[] {
  const distinct = req.headerValues?.[name];
  if (distinct) return [...distinct];
  const value = req.headers[name];
  return value === undefined ? [] : [value];
}

/** serviceaccount.SplitUsername: namespace and name, or null when it is not an account's. */
function splitServiceAccount(username: string): { namespace: string; name: string } | null {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return null;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
  if (parts.length !== 2) return null;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return null;
  return { namespace, name };
}

/** url.PathUnescape, the key as sent when it does not decode. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function request(
  kind: ImpersonationRequest["kind"],
  name: string,
  more: Partial<ImpersonationRequest> = {},
): ImpersonationRequest {
  return { kind, namespace: "", name, apiVersion: "", fieldPath: "", ...more };
}

/** The things the headers ask for, in upstream's order (user, groups, extras, uid). */
function impersonationRequests(req: ApiRequest): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const user = headerValues(req, USER_HEADER)[0] ?? "";
  if (user !== "") {
    const account = splitServiceAccount(user);
    out.push(
      account
        ? request("ServiceAccount", account.name, { namespace: account.namespace })
        : request("User", user),
    );
  }
  for (const group of headerValues(req, GROUP_HEADER)) out.push(request("Group", group));
  for (const header of Object.keys(req.headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length).toLowerCase());
    for (const value of headerValues(req, header)) {
      out.push(request("UserExtra", value, { apiVersion: AUTHENTICATION_V1, fieldPath: key }));
    }
  }
  const uid = headerValues(req, UID_HEADER)[0] ?? "";
  if (uid !== "") out.push(request("UID", uid, { apiVersion: AUTHENTICATION_V1 }));
  return out;
}

/** An ObjectReference as Go's %v prints it (fields in order, blank ones kept). */
function goReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, "", r.apiVersion, "", r.fieldPath].join(" ")}}`;
}

/** responsewriters.InternalError: plain text, as upstream answers a malformed impersonation. */
function internalError(req: ApiRequest, message: string): ApiResponse {
  const query = req.query.toString();
  const uri = query === "" ? req.path : `${req.path}?${query}`;
  return {
    status: 500,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
    raw: `Internal Server Error: ${JSON.stringify(uri)}: ${message}\n`,
  };
}

/** The authorization attributes of impersonating one thing. */
function actingAs(r: ImpersonationRequest, path: string): RequestAttributes {
  const [group = "", version = ""] = r.apiVersion.includes("/") ? r.apiVersion.split("/") : [];
  const resource = {
    User: "users",
    ServiceAccount: "serviceaccounts",
    Group: "groups",
    UserExtra: "userextras",
    UID: "uids",
  }[r.kind];
  return {
    resourceRequest: true,
    verb: "impersonate",
    apiGroup: group,
    apiVersion: version,
    resource,
    subresource: r.kind === "UserExtra" ? r.fieldPath : "",
    namespace: r.namespace,
    name: r.name,
    path,
  };
}

/**
 * The impersonation filter (after authentication, before authorization): without Impersonate-*
 * headers the request passes as it is; otherwise each thing asked for is authorized for the
 * authenticated user (403 with upstream's message at the first refused) and the request goes
 * on as the impersonated user.
 */
export function impersonation(objects: RbacObjects): Filter {
  return (req, next) => {
    if (!hasImpersonationHeaders(req)) return next(req);
    const requests = impersonationRequests(req);
    if (requests.length === 0) return next(req);
    const hasUser = requests[0]!.kind === "User" || requests[0]!.kind === "ServiceAccount";
    if (!hasUser) {
      return internalError(
        req,
        `requested [${requests.map(goReference).join(" ")}] without impersonating a user`,
      );
    }
    const requestor = req.user;
    if (requestor === undefined) return internalError(req, "no user found for request");
    const groupsSpecified = headerValues(req, GROUP_HEADER).length > 0;
    let name = "";
    let uid: string | undefined;
    let groups: string[] = [];
    const extra: Record<string, string[]> = {};
    for (const r of requests) {
      const attrs = actingAs(r, req.path);
      if (!requestor.groups.includes(SYSTEM_MASTERS)) {
        const decision = authorize(objects, requestor, attrs);
        if (!decision.allowed) {
          const message = forbiddenMessage(requestor, attrs);
          const why = decision.reason === "" ? message : `${message}: ${decision.reason}`;
          return errorResponse(
            forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, why),
          );
        }
      }
      switch (r.kind) {
        case "ServiceAccount":
          name = `${SERVICE_ACCOUNT_PREFIX}${r.namespace}:${r.name}`;
          // An account's groups are known; given groups replace them.
          if (!groupsSpecified)
            groups = [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${r.namespace}`];
          break;
        case "User":
          name = r.name;
          break;
        case "Group":
          groups.push(r.name);
          break;
        case "UserExtra":
          extra[r.fieldPath] = [...(extra[r.fieldPath] ?? []), r.name];
          break;
        case "UID":
          uid = r.name;
          break;
      }
    }
    // system:authenticated is added unless a group says otherwise; the anonymous user is
    // in system:unauthenticated.
    if (name !== ANONYMOUS) {
      if (!groups.includes(SYSTEM_AUTHENTICATED) && !groups.includes(SYSTEM_UNAUTHENTICATED))
        groups.push(SYSTEM_AUTHENTICATED);
    } else if (!groups.includes(SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_UNAUTHENTICATED);
    const user: UserInfo = { name, groups };
    if (uid !== undefined) user.uid = uid;
    if (Object.keys(extra).length > 0) user.extra = extra;
    req.user = user;
    return next(req);
  };
}

/** A cheap test before the headers are read (most requests carry none). */
function hasImpersonationHeaders(req: ApiRequest): boolean {
  for (const header in req.headers) if (header.startsWith("impersonate-")) return true;
  return false;
}
