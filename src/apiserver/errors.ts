// Kubernetes `Status` errors, built in one place (k8s.io/apimachinery/pkg/api/errors): every
// failure the API server answers with goes through these constructors, so the shapes
// (kind/apiVersion/metadata/status/message/reason/details/code) match kube-apiserver's.
import { type FieldError, fieldErrorBody, fieldErrorMessage, goQuote } from "../api/validation.js";
import type { ApiResponse } from "./types.js";

export interface StatusCause {
  reason: string;
  message: string;
  /** Left out when the cause names no field. */
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A failure the handler returns as data (not thrown). */
export interface ApiError {
  status: Status;
  /** Extra response headers (e.g. Warning). */
  headers?: Record<string, string>;
}

/** What errors need to know about the resource: plural, group, Kind. */
export interface ResourceNames {
  resource: string;
  group: string;
  kind: string;
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): ApiError {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  // Go's omitempty: details are left out when empty; so are empty group/name fields.
  if (details) {
    const d: StatusDetails = {};
    if (details.name) d.name = details.name;
    if (details.group) d.group = details.group;
    if (details.kind) d.kind = details.kind;
    if (details.uid) d.uid = details.uid;
    if (details.causes && details.causes.length > 0) d.causes = details.causes;
    if (details.retryAfterSeconds) d.retryAfterSeconds = details.retryAfterSeconds;
    status.details = d;
    // The order the fields print in matches upstream's struct order (details before code).
    const { code: c, ...rest } = status;
    return { status: { ...rest, code: c } as Status };
  }
  return { status };
}

/** `horizontalpodautoscalers.autoscaling`, `pods`: schema.GroupResource.String(). */
export function qualifiedResource(r: ResourceNames): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** `HorizontalPodAutoscaler.autoscaling`, `Pod`: schema.GroupKind.String(). */
export function qualifiedKind(r: ResourceNames): string {
  return r.group ? `${r.kind}.${r.group}` : r.kind;
}

export function notFound(r: ResourceNames, name: string): ApiError {
  return failure(404, "NotFound", `${qualifiedResource(r)} "${name}" not found`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** An unknown path or resource: the generic NotFound kube-apiserver answers. */
export function pathNotFound(): ApiError {
  return failure(404, "NotFound", "the server could not find the requested resource", {});
}

export function alreadyExists(r: ResourceNames, name: string): ApiError {
  return failure(409, "AlreadyExists", `${qualifiedResource(r)} "${name}" already exists`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** Optimistic concurrency failure (NewConflict with the registry's standard wording). */
export function conflict(r: ResourceNames, name: string, why?: string): ApiError {
  const reason =
    why ??
    "the object has been modified; please apply your changes to the latest version and try again";
  return failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${reason}`,
    { name, group: r.group, kind: r.resource },
  );
}

/**
 * NewInvalid: `Kind.group "name" is invalid: <errors>`, one error printed bare and several as
 * `[e1, e2]` (utilerrors.Aggregate), each also listed as a cause with its field path.
 */
export function invalid(r: ResourceNames, name: string, errors: readonly FieldError[]): ApiError {
  const messages = errors.map(fieldErrorMessage);
  const joined = messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
  return failure(422, "Invalid", `${qualifiedKind(r)} "${name}" is invalid: ${joined}`, {
    name,
    group: r.group,
    kind: r.kind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}

export function badRequest(message: string): ApiError {
  return failure(400, "BadRequest", message);
}

export function unauthorized(): ApiError {
  return failure(401, "Unauthorized", "Unauthorized");
}

/**
 * NewForbidden: `pods is forbidden: <why>`, `pods "p" is forbidden: <why>`, or `forbidden: <why>`
 * for a request that names no resource (a non-resource path).
 */
export function forbidden(
  r: { group: string; resource: string } | null,
  name: string,
  why: string,
): ApiError {
  const subject = r === null ? "" : qualifiedResource({ ...r, kind: "" });
  const message =
    subject === ""
      ? `forbidden: ${why}`
      : name === ""
        ? `${subject} is forbidden: ${why}`
        : `${subject} ${goQuote(name)} is forbidden: ${why}`;
  return failure(403, "Forbidden", message, {
    name,
    group: r?.group ?? "",
    kind: r?.resource ?? "",
  });
}

export function methodNotAllowed(r?: ResourceNames, name?: string): ApiError {
  return failure(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    r ? { name, group: r.group, kind: r.resource } : undefined,
  );
}

/**
 * What Horizon does not do by design (a pod's exec, attach, port-forward): 501 Not Implemented,
 * as a virtual kubelet without the streaming calls answers. kubectl prints
 * `Error from server (NotImplemented): MESSAGE` (exec, attach) and `error upgrading
 * connection: MESSAGE` (port-forward).
 */
export function notSupported(message: string, details?: StatusDetails): ApiError {
  return failure(501, "NotImplemented", message, details);
}

/** The watch cache's answer to a resourceVersion older than what it keeps (410 Gone). */
export function expired(message: string): ApiError {
  return failure(410, "Expired", message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return failure(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got "${contentType}")`,
  );
}

/** The patch content type is not one of the four kube-apiserver accepts. */
export function unsupportedPatchType(contentType: string): ApiError {
  return failure(
    415,
    "UnsupportedMediaType",
    `the server does not support the patch type "${contentType}"; supported: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`,
  );
}

/** A patch type a custom resource does not take (strategic merge: CRDs have no merge keys). */
export function unsupportedCustomPatchType(): ApiError {
  return failure(
    415,
    "UnsupportedMediaType",
    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
  );
}

/**
 * The watch cache's answer to a resourceVersion it has not reached after waiting (504 with the
 * ResourceVersionTooLarge cause; clients retry after a second).
 */
export function tooLargeResourceVersion(requested: string, current: string): ApiError {
  return {
    status: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Too large resource version: ${requested}, current: ${current}`,
      reason: "Timeout",
      details: {
        causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      },
      code: 504,
    },
  };
}

/** NewRequestEntityTooLargeError: a body or a stored object above the server's limits (413). */
export function requestEntityTooLarge(message: string): ApiError {
  return failure(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);
}

export function internalError(message: string): ApiError {
  return failure(500, "InternalError", `Internal error occurred: ${message}`);
}

/** `status: Success` with the deleted object's identity, as the generic registry's delete returns. */
export function deleteSuccess(r: ResourceNames, name: string, uid: string | undefined): Status {
  const details: StatusDetails = { name };
  if (r.group) details.group = r.group;
  details.kind = r.resource;
  if (uid) details.uid = uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details } as Status;
}

export function errorResponse(error: ApiError): ApiResponse {
  const headers: Record<string, string> = { "content-type": "application/json" };
  Object.assign(headers, error.headers);
  return { status: error.status.code, headers, body: error.status };
}

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    "status" in value &&
    (value as { status: { kind?: unknown } }).status?.kind === "Status"
  );
}
