// The seam between Horizon's Kubernetes bindings and the transport: every adapter in src/kube
// (informers, scale, metrics, status, events, leases) talks to the API server through a
// KubeClient. The real one (client.ts) goes over HTTP(S) with @kubernetes/client-node's
// KubeConfig for auth and TLS, rate limits and retries; tests may bind it to the in-process
// API handler. Bodies are raw JSON: never client-node's typed models, which drop fields they do
// not know (e.g. behavior.*.tolerance) and would lose data on a write.

export type KubeMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface KubeRequest {
  method: KubeMethod;
  /** Absolute API path, e.g. /apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Serialized as JSON (or sent as is when a string). */
  body?: unknown;
  /** Default application/json; patches name their patch type. */
  contentType?: string;
  signal?: AbortSignal;
}

export interface KubeResponse<T = unknown> {
  status: number;
  /** The parsed JSON body (a Status object on errors), or the raw text when it is not JSON. */
  body: T;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T = Record<string, unknown>> {
  type: WatchEventType;
  object: T;
}

export interface KubeWatchRequest {
  /** The collection path (without watch=true). */
  path: string;
  /** resourceVersion, labelSelector, fieldSelector, allowWatchBookmarks, timeoutSeconds... */
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
}

export interface KubeClient {
  /**
   * One request, rate limited. Answers every HTTP status (callers turn 4xx Status bodies into
   * results); 429 and transient failures (5xx, connection errors) are retried with backoff
   * first, and the last answer (or error) is what comes out.
   */
  request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>>;
  /**
   * A watch stream: `onEvent` for each event in order; resolves when the server ends the
   * stream (or `signal` aborts it), rejects when it cannot be opened (the error carries the
   * HTTP status as `status` when there was one).
   */
  watch(req: KubeWatchRequest, onEvent: (event: WatchEvent) => void): Promise<void>;
}

/** A Kubernetes API error status as a value (`status` from the HTTP answer, Status fields when present). */
export interface KubeApiError {
  status: number;
  reason?: string;
  message: string;
}

/** The Status of a non-2xx answer, as a KubeApiError. */
export function apiErrorOf(response: KubeResponse): KubeApiError {
  const body = response.body as { reason?: unknown; message?: unknown } | string | null;
  if (body && typeof body === "object") {
    const error: KubeApiError = {
      status: response.status,
      message:
        typeof body.message === "string" ? body.message : `the server answered ${response.status}`,
    };
    if (typeof body.reason === "string") error.reason = body.reason;
    return error;
  }
  return {
    status: response.status,
    message:
      typeof body === "string" && body !== "" ? body : `the server answered ${response.status}`,
  };
}
