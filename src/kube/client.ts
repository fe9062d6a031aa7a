// The KubeClient over HTTP(S): node:https/http with keep-alive agents, raw JSON bodies (never
// client-node's typed models, which drop unknown fields), client-go's client-side token bucket
// (--kube-api-qps / --kube-api-burst), and retries.
//
// Retry policy (client-go's rest.Request retries up to 10 times, waiting what Retry-After says,
// on 429 and 5xx answers that carry Retry-After, and on connection resets/EOF for GETs only —
// "we are not automatically retrying write operations, as they are not idempotent"):
// - 429 and 5xx answers with Retry-After: every method, after Retry-After; without it the
//   answer comes out at once, as client-go's checkWait (a metrics API outage must reach the
//   controller's conditions in this sync, not ten backoffs later);
// - connection refused / DNS failures (nothing was sent): every method, backoff;
// - resets, "socket hang up", timeouts (the request may have been processed): GET only;
// - 401: once, at once, when the credentials changed (a rotated service account token).
// The backoff doubles from `initialBackoffMs` to `maxBackoffMs` (+0–20 % jitter); every
// attempt goes through the rate limiter again, as client-go's. The last answer (or error)
// comes out.
import { isAscii } from "node:buffer";
import * as http from "node:http";
import * as https from "node:https";
import type { KubeConnection } from "./config.js";
import type {
  KubeClient,
  KubeMethod,
  KubeRequest,
  KubeResponse,
  KubeWatchRequest,
  WatchEvent,
} from "./types.js";

/** kube-controller-manager's --kube-api-qps and --kube-api-burst defaults. */
export const DEFAULT_QPS = 20;
export const DEFAULT_BURST = 30;

export interface RetryOptions {
  /** Retries after the first attempt (client-go: 10). */
  maxRetries?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Longest Retry-After honoured (longer answers wait this long). */
  maxRetryAfterMs?: number;
}

export interface RequestRecord {
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  /** resource[.group][/subresource], or the path of a non-resource request (discovery). */
  resource: string;
  method: KubeMethod;
  path: string;
  /** null when no answer came (connection error). */
  status: number | null;
  error?: string;
  /** 0 for the first attempt. */
  attempt: number;
  durationMs: number;
  /** Time spent waiting for the rate limiter before this attempt. */
  throttledMs: number;
}

export interface KubeClientOptions {
  /** Requests per second (default 20); ≤ 0 or Infinity: no client-side limit. */
  qps?: number;
  /** Token bucket size (default 30). */
  burst?: number;
  /** Per-attempt timeout for plain requests, and for a watch's response headers (default 30 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  userAgent?: string;
  /** Called after every attempt (metrics, "API requests per HPA per sync"). */
  onRequest?: (record: RequestRecord) => void;
  /** Idle keep-alive sockets kept per host (client-go's MaxIdleConnsPerHost: 25). */
  maxFreeSockets?: number;
  /**
   * Asked right before a write (any method but GET) goes out, after the rate limiter: false
   * fails it unsent (KubeTransportError code ENOTLEADER), e.g. a leader whose lease renewal is
   * overdue. Default: always.
   */
  mayWrite?: () => boolean;
}

export interface KubeClientStats {
  /** HTTP requests sent (every attempt, watches included). */
  requests: number;
  retries: number;
  /** Total time requests waited for the rate limiter. */
  throttledMs: number;
  /** `verb resource` → requests. */
  byVerbResource: Record<string, number>;
  /** HTTP status (or "error") → requests. */
  byStatus: Record<string, number>;
}

export interface HttpKubeClient extends KubeClient {
  readonly server: string;
  stats(): KubeClientStats;
  /** Destroys the keep-alive sockets. */
  close(): void;
}

/** An error of the transport (no usable answer), with the HTTP status when there was one. */
export class KubeTransportError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "KubeTransportError";
  }
}

/**
 * client-go's flowcontrol token bucket (x/time/rate): starts full with `burst` tokens, refills
 * at `qps` per second; a caller that finds it empty reserves the next token and waits for it
 * (callers are served in order), rather than failing.
 */
export class TokenBucket {
  #tokens: number;
  #last: number;
  readonly #now: () => number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    now: () => number = () => performance.now(),
  ) {
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Reserves a token; returns how long to wait (ms) before using it. */
  reserve(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) * this.qps) / 1000);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.qps;
  }

  /** Gives back a reserved token that was not used (an aborted wait). */
  cancel(): void {
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  /** Waits for a token; resolves with the time waited. */
  async take(signal?: AbortSignal): Promise<number> {
    const wait = this.reserve();
    if (wait <= 0) return 0;
    try {
      await sleep(wait, signal);
    } catch (error) {
      this.cancel();
      throw error;
    }
    return wait;
  }
}

function abortError(): Error {
  const error = new Error("the request was aborted");
  error.name = "AbortError";
  return error;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Verb and resource of a request path, as the API server's RequestInfo names them. */
export function describeRequest(
  method: KubeMethod,
  path: string,
  watch = false,
): { verb: string; resource: string } {
  const parts = path
    .split("?")[0]!
    .split("/")
    .filter((p) => p !== "");
  let group = "";
  let rest: string[] = [];
  if (parts[0] === "api" && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1]!;
    rest = parts.slice(3);
  }
  let resource = "";
  let name: string | undefined;
  let sub: string[] = [];
  if (rest[0] === "namespaces" && rest.length >= 3) {
    resource = rest[2]!;
    name = rest[3];
    sub = rest.slice(4);
  } else if (rest.length > 0) {
    resource = rest[0]!;
    name = rest[1];
    sub = rest.slice(2);
  }
  const verbs: Record<KubeMethod, string> = {
    GET: name === undefined ? "list" : "get",
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: name === undefined ? "deletecollection" : "delete",
  };
  const verb = watch ? "watch" : verbs[method];
  if (resource === "") return { verb: watch ? "watch" : "get", resource: `/${parts.join("/")}` };
  const qualified = group === "" ? resource : `${resource}.${group}`;
  return { verb, resource: sub.length > 0 ? `${qualified}/${sub.join("/")}` : qualified };
}

// Connection failures where the request never reached the server.
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
// Failures after the request may have been sent (a retry could repeat a write).
const MAYBE_SENT = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ECONNABORTED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  if (error instanceof Error && /socket hang up/i.test(error.message)) return "ECONNRESET";
  return undefined;
}

/** Retry-After in ms (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function queryString(query: KubeRequest["query"]): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function headersOf(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseBody(text: string): unknown {
  if (text === "") return "";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A body's text. An ASCII body is decoded as latin1, the same text: Node makes a long one (over
 * ~1 MB, such as a namespace's PodMetrics list) an external string, outside the V8 heap, where the
 * garbage collector neither copies nor promotes it while it is being parsed.
 */
function textOf(body: Buffer): string {
  return body.toString(isAscii(body) ? "latin1" : "utf8");
}

/** The whole body, within `timeoutMs` (the rest of the attempt's time). */
function readAll(res: http.IncomingMessage, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => {
        const error = new KubeTransportError("the answer did not finish in time", "ETIMEDOUT");
        res.destroy(error);
        reject(error);
      },
      Math.max(0, timeoutMs),
    );
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("end", () => {
      clearTimeout(timer);
      resolve(textOf(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    });
    res.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    res.on("close", () => {
      clearTimeout(timer);
      if (!res.complete) reject(new KubeTransportError("the answer was cut short", "ECONNRESET"));
    });
  });
}

type Attempt =
  | { kind: "response"; res: http.IncomingMessage }
  | { kind: "error"; error: Error; code: string | undefined };

/** A KubeClient over the connection's server. */
export function createKubeClient(
  connection: KubeConnection,
  options: KubeClientOptions = {},
): HttpKubeClient {
  const base = new URL(connection.server);
  const isHttps = base.protocol === "https:";
  const prefix = base.pathname.replace(/\/+$/, "");
  const qps = options.qps ?? DEFAULT_QPS;
  const bucket =
    qps > 0 && Number.isFinite(qps)
      ? new TokenBucket(qps, Math.max(1, Math.floor(options.burst ?? DEFAULT_BURST)))
      : null;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = options.retry?.maxRetries ?? 10;
  const initialBackoffMs = options.retry?.initialBackoffMs ?? 100;
  const maxBackoffMs = options.retry?.maxBackoffMs ?? 2_000;
  const maxRetryAfterMs = options.retry?.maxRetryAfterMs ?? 60_000;
  const userAgent = options.userAgent ?? `horizon/0 (${process.platform}/${process.arch})`;
  const agentOptions = {
    keepAlive: true,
    maxFreeSockets: options.maxFreeSockets ?? 25,
    ...connection.tls,
  };
  const agent: http.Agent =
    connection.proxyAgent ??
    (isHttps ? new https.Agent(agentOptions) : new http.Agent(agentOptions));
  // close() ends every request still waiting, retrying or in flight: a stopping process must
  // not be held by retries against an API server that is gone.
  const live = new Set<AbortController>();
  const stats: KubeClientStats = {
    requests: 0,
    retries: 0,
    throttledMs: 0,
    byVerbResource: {},
    byStatus: {},
  };

  function record(entry: RequestRecord): void {
    stats.requests++;
    if (entry.attempt > 0) stats.retries++;
    stats.throttledMs += entry.throttledMs;
    const key = `${entry.verb} ${entry.resource}`;
    stats.byVerbResource[key] = (stats.byVerbResource[key] ?? 0) + 1;
    const status = entry.status === null ? "error" : String(entry.status);
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    options.onRequest?.(entry);
  }

  /** One HTTP exchange up to the response headers. */
  async function send(
    method: KubeMethod,
    url: string,
    body: Buffer | undefined,
    contentType: string,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    let auth: Record<string, string>;
    try {
      auth = await connection.authHeaders();
    } catch (error) {
      return { kind: "error", error: error as Error, code: "EAUTH" };
    }
    const headers: Record<string, string | number> = {
      Accept: "application/json",
      "User-Agent": userAgent,
      ...auth,
    };
    if (body !== undefined) {
      headers["Content-Type"] = contentType;
      headers["Content-Length"] = body.length;
    }
    if (signal?.aborted) return { kind: "error", error: abortError(), code: "ABORT_ERR" };
    // As late as can be: a process frozen before this point sends nothing once it resumes.
    if (method !== "GET" && options.mayWrite && !options.mayWrite()) {
      const error = new KubeTransportError(
        `${method} ${url}: not sent: this replica's leader lease is not renewed in time`,
        "ENOTLEADER",
      );
      return { kind: "error", error, code: "ENOTLEADER" };
    }
    return new Promise((resolve) => {
      const req = (isHttps ? https : http).request(url, { method, headers, agent });
      let settled = false;
      const finish = (attempt: Attempt) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(attempt);
      };
      const onAbort = () => {
        req.destroy(abortError());
        finish({ kind: "error", error: abortError(), code: "ABORT_ERR" });
      };
      const timer = setTimeout(() => {
        const error = new KubeTransportError(`no answer within ${timeoutMs} ms`, "ETIMEDOUT");
        req.destroy(error);
        finish({ kind: "error", error, code: "ETIMEDOUT" });
      }, timeoutMs);
      req.on("response", (res) => finish({ kind: "response", res }));
      req.on("error", (error) => finish({ kind: "error", error, code: errorCode(error) }));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.end(body);
    });
  }

  function backoff(retry: number): number {
    const ms = Math.min(maxBackoffMs, initialBackoffMs * 2 ** retry);
    return ms * (1 + Math.random() * 0.2);
  }

  /**
   * Sends with rate limiting and retries until an answer worth returning: the final response
   * (headers read, body not yet) or the final error.
   */
  async function exchange(
    method: KubeMethod,
    path: string,
    query: KubeRequest["query"],
    body: Buffer | undefined,
    contentType: string,
    requestSignal: AbortSignal | undefined,
    watch: boolean,
    timeoutReadsBody: boolean,
  ): Promise<{ res: http.IncomingMessage; text: string | null }> {
    const local = new AbortController();
    const onAbort = () => local.abort();
    if (requestSignal?.aborted) local.abort();
    requestSignal?.addEventListener("abort", onAbort, { once: true });
    live.add(local);
    try {
      return await exchangeOnce(
        method,
        path,
        query,
        body,
        contentType,
        local.signal,
        watch,
        timeoutReadsBody,
      );
    } finally {
      live.delete(local);
      requestSignal?.removeEventListener("abort", onAbort);
    }
  }

  async function exchangeOnce(
    method: KubeMethod,
    path: string,
    query: KubeRequest["query"],
    body: Buffer | undefined,
    contentType: string,
    signal: AbortSignal,
    watch: boolean,
    timeoutReadsBody: boolean,
  ): Promise<{ res: http.IncomingMessage; text: string | null }> {
    const url = `${base.origin}${prefix}${path}${queryString(query)}`;
    const { verb, resource } = describeRequest(method, path, watch);
    let authRetried = false;
    for (let attempt = 0; ; attempt++) {
      const throttledMs = bucket ? await bucket.take(signal) : 0;
      const started = performance.now();
      const outcome = await send(method, url, body, contentType, signal);
      let text: string | null = null;
      let status: number | null = null;
      let failure: { error: Error; code: string | undefined } | null = null;
      if (outcome.kind === "response") {
        status = outcome.res.statusCode ?? 0;
        // Error answers are small: read them to decide (and to free the socket).
        if (timeoutReadsBody || status !== 200) {
          try {
            text = await readAll(outcome.res, timeoutMs - (performance.now() - started));
          } catch (error) {
            failure = { error: error as Error, code: errorCode(error) ?? "ECONNRESET" };
          }
        }
      } else failure = { error: outcome.error, code: outcome.code };
      const entry: RequestRecord = {
        verb,
        resource,
        method,
        path,
        status: failure ? null : status,
        attempt,
        durationMs: performance.now() - started,
        throttledMs,
      };
      if (failure) entry.error = failure.error.message;
      record(entry);

      if (failure) {
        if (failure.code === "ABORT_ERR" || signal?.aborted) throw abortError();
        const retryable =
          failure.code !== undefined &&
          (NOT_SENT.has(failure.code) || (method === "GET" && MAYBE_SENT.has(failure.code)));
        if (!retryable || attempt >= maxRetries) {
          if (failure.error instanceof KubeTransportError) throw failure.error;
          throw new KubeTransportError(`${method} ${path}: ${failure.error.message}`, failure.code);
        }
        await sleep(backoff(attempt), signal);
        continue;
      }
      const res = (outcome as { res: http.IncomingMessage }).res;
      if (status === 401 && !authRetried) {
        authRetried = true;
        if (await connection.refreshCredentials()) continue;
      }
      const after = retryAfterMs(res.headers["retry-after"] as string | undefined);
      const retryable = (status === 429 || status! >= 500) && after !== null;
      if (retryable && attempt < maxRetries) {
        await sleep(Math.min(after, maxRetryAfterMs), signal);
        continue;
      }
      return { res, text };
    }
  }

  const client: HttpKubeClient = {
    server: connection.server,

    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      const body =
        req.body === undefined
          ? undefined
          : Buffer.from(typeof req.body === "string" ? req.body : JSON.stringify(req.body));
      const { res, text } = await exchange(
        req.method,
        req.path,
        req.query,
        body,
        req.contentType ?? "application/json",
        req.signal,
        false,
        true,
      );
      return {
        status: res.statusCode ?? 0,
        body: parseBody(text ?? "") as T,
        headers: headersOf(res),
      };
    },

    async watch(req: KubeWatchRequest, onEvent: (event: WatchEvent) => void): Promise<void> {
      const { res, text } = await exchange(
        "GET",
        req.path,
        { ...req.query, watch: "true" },
        undefined,
        "application/json",
        req.signal,
        true,
        false,
      );
      if (res.statusCode !== 200) {
        const parsed = parseBody(text ?? "") as { message?: unknown; reason?: unknown };
        const message =
          parsed && typeof parsed === "object" && typeof parsed.message === "string"
            ? parsed.message
            : `the server answered ${res.statusCode}`;
        throw new KubeTransportError(
          `watch ${req.path}: ${message}`,
          undefined,
          res.statusCode,
          parsed,
        );
      }
      await streamEvents(res, onEvent, req.signal);
    },

    stats() {
      return {
        ...stats,
        byVerbResource: { ...stats.byVerbResource },
        byStatus: { ...stats.byStatus },
      };
    },

    close() {
      for (const request of live) request.abort();
      agent.destroy();
    },
  };
  return client;
}

/**
 * Reads a watch body: one JSON event per line, lines split across chunks put back together.
 * Resolves at the end of the stream or when `signal` aborts; rejects when the connection
 * breaks or a line is not JSON.
 */
function streamEvents(
  res: http.IncomingMessage,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = "";
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      signal?.removeEventListener("abort", onAbort);
      if (error) {
        res.destroy();
        reject(error);
      } else resolve();
    };
    const onAbort = () => {
      finish();
      res.destroy();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (done) return;
      pending += chunk;
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
        if (line === "") continue;
        let event: WatchEvent;
        try {
          event = JSON.parse(line) as WatchEvent;
        } catch {
          return finish(new KubeTransportError(`malformed watch event: ${line.slice(0, 200)}`));
        }
        onEvent(event);
        if (done) return;
      }
    });
    res.on("end", () => {
      const last = pending.trim();
      if (last !== "" && !done) {
        try {
          onEvent(JSON.parse(last) as WatchEvent);
        } catch {
          return finish(new KubeTransportError(`malformed watch event: ${last.slice(0, 200)}`));
        }
      }
      finish();
    });
    res.on("aborted", () =>
      finish(new KubeTransportError("the watch connection broke", "ECONNRESET")),
    );
    res.on("error", (error) => {
      if (signal?.aborted) return finish();
      finish(
        new KubeTransportError(`the watch connection broke: ${error.message}`, errorCode(error)),
      );
    });
    res.on("close", () => {
      if (!res.complete && !signal?.aborted) {
        finish(new KubeTransportError("the watch connection broke", "ECONNRESET"));
      } else finish();
    });
  });
}
