// Error texts as client-go's REST client produces them, so that conditions and events written by
// Horizon read as upstream's: a non-2xx answer with a Status body (status "Failure") becomes
// that Status's message (errors.FromObject); any other body becomes the generic message of
// errors.NewGenericServerResponse for the HTTP code, followed by `(verb resource name)`.
// Also the request helper with a deadline that every port adapter uses.
import type { KubeClient, KubeRequest, KubeResponse } from "./types.js";

/** What client-go knows of the request when it words a generic error: `(get pods.metrics.k8s.io)`. */
export interface RequestContext {
  verb: string;
  /** schema.GroupResource.String() of the REST client's resource ("" when it has none). */
  groupResource?: string;
  name?: string;
}

/** errors.NewGenericServerResponse's message for a status code. */
function genericMessage(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return "the server reported a conflict";
    case 404:
      return "the server could not find the requested resource";
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return "the server does not allow access to the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 406:
      return "the server was unable to respond with a content type that the client supports";
    case 415:
      return "the server does not support the media type transmitted in the request";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    default:
      if (code >= 500)
        return `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}

function isFailureStatus(body: unknown): body is { message?: unknown } {
  if (!body || typeof body !== "object") return false;
  const status = body as { kind?: unknown; status?: unknown };
  // client-go decodes the body with kind defaulted to Status and keeps it only on "Failure".
  return (status.kind === undefined || status.kind === "Status") && status.status === "Failure";
}

/** The error text client-go gives for a non-2xx answer. */
export function clientErrorText(response: KubeResponse, context: RequestContext): string {
  const body = response.body;
  if (isFailureStatus(body)) return typeof body.message === "string" ? body.message : "";
  const serverMessage =
    typeof body === "string" && body.trim() !== "" ? body.trim().slice(0, 1024) : "unknown";
  let message = genericMessage(response.status, serverMessage);
  const resource = context.groupResource ?? "";
  if (resource !== "" && context.name) {
    message = `${message} (${context.verb} ${resource} ${context.name})`;
  } else if (resource !== "") {
    message = `${message} (${context.verb} ${resource})`;
  }
  return message;
}

/** A request error as the Go HTTP client words it: `Get "/path?query": ...`. */
function urlOf(req: KubeRequest): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const query = params.toString();
  return query === "" ? req.path : `${req.path}?${query}`;
}

function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

export type Answer<T> =
  | { ok: true; response: KubeResponse<T> }
  | { ok: false; error: string; status?: number };

export interface DeadlineOptions {
  /** Abort the request after this many milliseconds (0 or undefined: no deadline). */
  timeoutMs?: number;
  /** The caller's own cancellation (a sync's deadline). */
  signal?: AbortSignal;
}

/**
 * One request with an optional deadline. Thrown errors (connection failures, aborts) become
 * error texts: a deadline reads as Go's `context deadline exceeded`, as client-go reports a
 * request whose context timed out.
 */
export async function requestWithDeadline<T>(
  client: KubeClient,
  req: KubeRequest,
  options: DeadlineOptions = {},
): Promise<Answer<T>> {
  const timeoutMs = options.timeoutMs ?? 0;
  const signals: AbortSignal[] = [];
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const controller = new AbortController();
  if (timeoutMs > 0) {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    signals.push(controller.signal);
  }
  if (options.signal) signals.push(options.signal);
  if (req.signal) signals.push(req.signal);
  const signal =
    signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  const deadlineError = () =>
    `${goMethod(req.method)} ${JSON.stringify(urlOf(req))}: context deadline exceeded`;
  let onAbort: (() => void) | undefined;
  try {
    const request = client.request<T>(signal ? { ...req, signal } : req);
    // A client that ignores the signal still answers the caller on time.
    const aborted = signal
      ? new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason);
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        })
      : undefined;
    if (aborted) {
      aborted.catch(() => {});
      request.catch(() => {});
    }
    const response = await (aborted ? Promise.race([request, aborted]) : request);
    return { ok: true, response };
  } catch (error) {
    if (timedOut) return { ok: false, error: deadlineError() };
    if (options.signal?.aborted || req.signal?.aborted) {
      return {
        ok: false,
        error: `${goMethod(req.method)} ${JSON.stringify(urlOf(req))}: context canceled`,
      };
    }
    const status = (error as { status?: unknown }).status;
    const message = error instanceof Error ? error.message : String(error);
    return typeof status === "number"
      ? { ok: false, error: message, status }
      : { ok: false, error: message };
  } finally {
    if (timer) clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** A 2xx answer's body, or the client-go error text of the answer. */
export async function requestJson<T>(
  client: KubeClient,
  req: KubeRequest,
  context: RequestContext,
  options: DeadlineOptions = {},
): Promise<
  { ok: true; body: T; response: KubeResponse<T> } | { ok: false; error: string; status?: number }
> {
  const answer = await requestWithDeadline<T>(client, req, options);
  if (!answer.ok) return answer;
  const { response } = answer;
  if (response.status < 200 || response.status > 206) {
    return { ok: false, error: clientErrorText(response, context), status: response.status };
  }
  return { ok: true, body: response.body, response };
}
