// The create-only APIs of authentication and authorization: TokenRequest (POST
// serviceaccounts/NAME/token, `kubectl create token`), SelfSubjectAccessReview (`kubectl auth
// can-i`), SelfSubjectRulesReview (`kubectl auth can-i --list`) and SelfSubjectReview (`kubectl
// auth whoami`). Nothing is stored: each answers about the request's own user. Bodies come as
// JSON, or protobuf from kubectl ≥ 1.32's typed clients.
import { isRecord } from "../../api/json.js";
import { type FieldError, invalid as invalidField } from "../../api/validation.js";
import { topLevel } from "../../kinds/meta.js";
import { i64, pb, ptr, str, strs, struct } from "../../kinds/schema.js";
import {
  type ApiError,
  badRequest,
  conflict,
  errorResponse,
  invalid,
  methodNotAllowed,
  notFound,
  unsupportedMediaType,
} from "../errors.js";
import type { Filter } from "../filters.js";
import {
  decodeEnvelope,
  decodeMessage,
  PROTOBUF_CONTENT_TYPE,
  ProtobufError,
  protoMessageOf,
} from "../protobuf.js";
import type { ApiRequest, ApiResponse } from "../types.js";
import {
  authorize,
  type PolicyRule,
  type RbacObjects,
  type RequestAttributes,
  rulesFor,
} from "./rbac.js";
import type { ServiceAccountTokens } from "./tokens.js";
import { SYSTEM_MASTERS, type UserInfo } from "./user.js";

export const AUTHENTICATION_GROUP = "authentication.k8s.io";
export const AUTHORIZATION_GROUP = "authorization.k8s.io";

// The request kinds' protobuf messages (metadata is field 1, spec 2, status 3).
const TOKEN_REQUEST = topLevel("v1.TokenRequest", {
  spec: pb(
    2,
    struct(
      {
        audiences: strs(1),
        boundObjectRef: pb(
          3,
          struct(
            { kind: str(1), apiVersion: str(2), name: str(3), uid: str(4) },
            { go: "v1.BoundObjectReference", ptr: true },
          ),
        ),
        expirationSeconds: i64(4, ptr),
      },
      { go: "v1.TokenRequestSpec" },
    ),
  ),
});

const ACCESS_REVIEW = topLevel("v1.SelfSubjectAccessReview", {
  spec: pb(
    2,
    struct(
      {
        resourceAttributes: pb(
          1,
          struct(
            {
              namespace: str(1),
              verb: str(2),
              group: str(3),
              version: str(4),
              resource: str(5),
              subresource: str(6),
              name: str(7),
            },
            { go: "v1.ResourceAttributes", ptr: true },
          ),
        ),
        nonResourceAttributes: pb(
          2,
          struct({ path: str(1), verb: str(2) }, { go: "v1.NonResourceAttributes", ptr: true }),
        ),
      },
      { go: "v1.SelfSubjectAccessReviewSpec" },
    ),
  ),
});

const RULES_REVIEW = topLevel("v1.SelfSubjectRulesReview", {
  spec: pb(2, struct({ namespace: str(1) }, { go: "v1.SelfSubjectRulesReviewSpec" })),
});

const SELF_REVIEW = topLevel("v1.SelfSubjectReview", {});

/** The request body as JSON (or protobuf); an error Status when it is neither. */
function decode(
  req: ApiRequest,
  schema: ReturnType<typeof topLevel>,
): Record<string, unknown> | ApiError {
  const contentType = (req.headers["content-type"] ?? "application/json").split(";")[0]!.trim();
  const body = req.body ?? Buffer.alloc(0);
  if (contentType === PROTOBUF_CONTENT_TYPE) {
    try {
      const envelope = decodeEnvelope(body);
      return {
        apiVersion: envelope.apiVersion,
        kind: envelope.kind,
        ...decodeMessage(envelope.raw, protoMessageOf(schema)),
      };
    } catch (error) {
      if (error instanceof ProtobufError) return badRequest(error.message);
      throw error;
    }
  }
  if (contentType !== "application/json" && contentType !== "")
    return unsupportedMediaType(contentType);
  if (body.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return isRecord(parsed) ? parsed : badRequest("the body must be a JSON object");
  } catch (error) {
    return badRequest(`the body of the request could not be decoded: ${(error as Error).message}`);
  }
}

const isError = (value: unknown): value is ApiError =>
  isRecord(value) && isRecord(value.status) && value.status.kind === "Status";

function created(body: unknown): ApiResponse {
  return { status: 201, headers: { "content-type": "application/json" }, body };
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

// ---------------------------------------------------------------------------------------------
// TokenRequest

const TOKEN_REQUEST_NAMES = {
  resource: "tokenrequests",
  group: AUTHENTICATION_GROUP,
  kind: "TokenRequest",
};
const SERVICE_ACCOUNTS = { resource: "serviceaccounts", group: "", kind: "ServiceAccount" };
/** The TokenRequest defaults: an hour; no less than ten minutes, no more than 2^32 seconds. */
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface TokenContext {
  tokens: ServiceAccountTokens;
  objects: RbacObjects;
  now: () => number;
}

async function tokenRequest(
  req: ApiRequest,
  namespace: string,
  name: string,
  context: TokenContext,
): Promise<ApiResponse> {
  const body = decode(req, TOKEN_REQUEST);
  if (isError(body)) return errorResponse(body);
  const account = context.objects.get("ServiceAccount", namespace, name);
  if (!account) return errorResponse(notFound(SERVICE_ACCOUNTS, name));
  const spec = isRecord(body.spec) ? body.spec : {};
  const expirationSeconds =
    spec.expirationSeconds === undefined || spec.expirationSeconds === null
      ? DEFAULT_EXPIRATION_SECONDS
      : Number(spec.expirationSeconds);
  const errors: FieldError[] = [];
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(
      invalidField(
        "spec.expirationSeconds",
        expirationSeconds,
        "may not specify a duration less than 10 minutes",
      ),
    );
  } else if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
    errors.push(
      invalidField(
        "spec.expirationSeconds",
        expirationSeconds,
        "may not specify a duration larger than 2^32 seconds",
      ),
    );
  }
  if (errors.length > 0) return errorResponse(invalid(TOKEN_REQUEST_NAMES, "", errors));
  const given = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  const audiences = given.length > 0 ? given : [...context.tokens.apiAudiences];
  const ref = isRecord(spec.boundObjectRef) ? spec.boundObjectRef : null;
  let bound: { kind: "Pod" | "Secret"; name: string; uid: string } | undefined;
  if (ref) {
    const found = boundObject(ref, namespace, name, context.objects);
    if (isError(found)) return errorResponse(found);
    bound = found;
  }
  const uid = account.metadata.uid ?? "";
  const now = context.now();
  const issued = await context.tokens.issue({
    namespace,
    serviceAccount: { name, uid },
    audiences,
    expirationSeconds,
    now,
    ...(bound ? { bound } : {}),
  });
  return created({
    kind: "TokenRequest",
    apiVersion: `${AUTHENTICATION_GROUP}/v1`,
    metadata: { name, namespace, creationTimestamp: null },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: ref
        ? {
            kind: text(ref.kind),
            apiVersion: text(ref.apiVersion),
            name: text(ref.name),
            uid: bound?.uid ?? "",
          }
        : null,
    },
    status: {
      token: issued.token,
      expirationTimestamp: new Date(issued.expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
    },
  });
}

/** The object a token is bound to: a Pod of the account, or a Secret, that exists now. */
function boundObject(
  ref: Record<string, unknown>,
  namespace: string,
  account: string,
  objects: RbacObjects,
): { kind: "Pod" | "Secret"; name: string; uid: string } | ApiError {
  const kind = text(ref.kind);
  const apiVersion = text(ref.apiVersion);
  if ((kind !== "Pod" && kind !== "Secret") || (apiVersion !== "v1" && apiVersion !== "")) {
    const gvk = `${apiVersion === "" ? "" : `/${apiVersion}`}, Kind=${kind}`;
    return badRequest(`cannot bind token to object of type ${gvk}`);
  }
  const name = text(ref.name);
  const object = objects.get(kind, namespace, name);
  const names = { resource: kind === "Pod" ? "pods" : "secrets", group: "", kind };
  if (!object) return notFound(names, name);
  const uid = object.metadata.uid ?? "";
  const wanted = text(ref.uid);
  if (wanted !== "" && wanted !== uid) {
    return conflict(
      { resource: kind, group: "", kind },
      name,
      `the UID in the bound object reference (${wanted}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (kind === "Pod") {
    const spec = isRecord(object.spec) ? object.spec : {};
    const runsAs = text(spec.serviceAccountName) || "default";
    if (runsAs !== account) {
      return badRequest(
        `cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`,
      );
    }
  }
  return { kind, name, uid };
}

// ---------------------------------------------------------------------------------------------
// Reviews

/** The review's spec as it came, with the answer. */
function review(kind: string, group: string, version: string, spec: unknown, status: unknown) {
  return {
    kind,
    apiVersion: `${group}/${version}`,
    metadata: { creationTimestamp: null },
    ...(spec === undefined ? {} : { spec }),
    status,
  };
}

const ACCESS_REVIEW_NAMES = {
  resource: "selfsubjectaccessreviews",
  group: AUTHORIZATION_GROUP,
  kind: "SelfSubjectAccessReview",
};

function accessReview(req: ApiRequest, user: UserInfo, objects: RbacObjects): ApiResponse {
  const body = decode(req, ACCESS_REVIEW);
  if (isError(body)) return errorResponse(body);
  const spec = isRecord(body.spec) ? body.spec : {};
  const resource = isRecord(spec.resourceAttributes) ? spec.resourceAttributes : null;
  const nonResource = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : null;
  if ((resource === null) === (nonResource === null)) {
    const error =
      resource === null
        ? invalidField(
            "spec.resourceAttributes",
            // A nil pointer prints as "null" (field.Error.ErrorBody).
            "null",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
          )
        : invalidField(
            "spec.nonResourceAttributes",
            nonResource,
            "cannot be specified in combination with resourceAttributes",
          );
    return errorResponse(invalid(ACCESS_REVIEW_NAMES, "", [error]));
  }
  const attrs: RequestAttributes = resource
    ? {
        resourceRequest: true,
        verb: text(resource.verb),
        apiGroup: text(resource.group),
        apiVersion: text(resource.version),
        resource: text(resource.resource),
        subresource: text(resource.subresource),
        namespace: text(resource.namespace),
        name: text(resource.name),
        path: "",
      }
    : {
        resourceRequest: false,
        verb: text(nonResource?.verb),
        apiGroup: "",
        apiVersion: "",
        resource: "",
        subresource: "",
        namespace: "",
        name: "",
        path: text(nonResource?.path),
      };
  const decision = user.groups.includes(SYSTEM_MASTERS)
    ? { allowed: true, reason: "" }
    : authorize(objects, user, attrs);
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason !== "") status.reason = decision.reason;
  return created(review("SelfSubjectAccessReview", AUTHORIZATION_GROUP, "v1", spec, status));
}

function rulesReview(req: ApiRequest, user: UserInfo, objects: RbacObjects): ApiResponse {
  const body = decode(req, RULES_REVIEW);
  if (isError(body)) return errorResponse(body);
  const spec = isRecord(body.spec) ? body.spec : {};
  const { rules, evaluationError } = rulesFor(objects, user, text(spec.namespace));
  const resourceRules: Record<string, unknown>[] = [];
  const nonResourceRules: Record<string, unknown>[] = [];
  for (const rule of rules) {
    if ((rule.nonResourceURLs ?? []).length > 0) {
      nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
    } else resourceRules.push(resourceRule(rule));
  }
  const status: Record<string, unknown> = {
    resourceRules,
    nonResourceRules,
    incomplete: evaluationError !== "",
  };
  if (evaluationError !== "") status.evaluationError = evaluationError;
  return created(review("SelfSubjectRulesReview", AUTHORIZATION_GROUP, "v1", spec, status));
}

/** A ResourceRule: empty lists left out, as Go's omitempty does. */
function resourceRule(rule: PolicyRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: rule.verbs };
  if ((rule.apiGroups ?? []).length > 0) out.apiGroups = rule.apiGroups;
  if ((rule.resources ?? []).length > 0) out.resources = rule.resources;
  if ((rule.resourceNames ?? []).length > 0) out.resourceNames = rule.resourceNames;
  return out;
}

function selfReview(req: ApiRequest, user: UserInfo, version: string): ApiResponse {
  const body = decode(req, SELF_REVIEW);
  if (isError(body)) return errorResponse(body);
  const userInfo: Record<string, unknown> = { username: user.name };
  if (user.uid) userInfo.uid = user.uid;
  userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  return created(
    review("SelfSubjectReview", AUTHENTICATION_GROUP, version, undefined, { userInfo }),
  );
}

// ---------------------------------------------------------------------------------------------
// Routing

/** The resources these APIs serve (discovery lists them): create only. */
export const AUTH_RESOURCES = [
  {
    group: AUTHENTICATION_GROUP,
    version: "v1",
    resource: "selfsubjectreviews",
    kind: "SelfSubjectReview",
  },
  {
    group: AUTHENTICATION_GROUP,
    version: "v1beta1",
    resource: "selfsubjectreviews",
    kind: "SelfSubjectReview",
  },
  {
    group: AUTHORIZATION_GROUP,
    version: "v1",
    resource: "selfsubjectaccessreviews",
    kind: "SelfSubjectAccessReview",
  },
  {
    group: AUTHORIZATION_GROUP,
    version: "v1",
    resource: "selfsubjectrulesreviews",
    kind: "SelfSubjectRulesReview",
  },
] as const;

function pathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const TOKEN_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)\/token\/?$/;

/** Answers the TokenRequest and review paths; passes every other request on. */
export function authApis(context: TokenContext): Filter {
  return (req, next) => {
    const token = TOKEN_PATH.exec(req.path);
    const served = token
      ? null
      : AUTH_RESOURCES.find(
          (r) => req.path.replace(/\/$/, "") === `/apis/${r.group}/${r.version}/${r.resource}`,
        );
    if (!token && !served) return next(req);
    if (req.method.toUpperCase() !== "POST") {
      return errorResponse(
        methodNotAllowed(
          token
            ? TOKEN_REQUEST_NAMES
            : { group: served!.group, resource: served!.resource, kind: served!.kind },
        ),
      );
    }
    const user = req.user ?? { name: "", groups: [] };
    if (token) {
      return tokenRequest(req, pathSegment(token[1]!), pathSegment(token[2]!), context);
    }
    switch (served!.resource) {
      case "selfsubjectaccessreviews":
        return accessReview(req, user, context.objects);
      case "selfsubjectrulesreviews":
        return rulesReview(req, user, context.objects);
      default:
        return selfReview(req, user, served!.version);
    }
  };
}
