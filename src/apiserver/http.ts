// The thin node:http(s) adapter: raw request bodies as Buffers (protobuf needs the bytes), JSON
// or raw replies, and watch streams flushed at once (kubectl and client-node informers wait for
// the headers) and written one JSON line per chunk until either side ends.
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { requestEntityTooLarge } from "./errors.js";
import { isHealthProbe } from "./health.js";
import { MAX_REQUEST_BODY_BYTES } from "./limits.js";
import type { ApiRequest, ApiResponse } from "./types.js";

export interface ServeOptions {
  port: number;
  address?: string;
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Request bodies above this get 413 (kube-apiserver: 3 MiB). */
  maxRequestBodyBytes?: number;
  /** Connection timeouts (tests shorten them); defaults as kube-apiserver's HTTP server. */
  timeouts?: Partial<ConnectionTimeouts>;
}

export interface ConnectionTimeouts {
  /** From the connection's start to the end of the request headers, TLS handshake included. */
  headersMs: number;
  /** To receive a whole request, body included. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often connections are checked against the timeouts above. */
  checkIntervalMs: number;
}

/**
 * kube-apiserver's http.Server: ReadHeaderTimeout 32 s (just under the 34 s request timeout
 * upper bound), IdleTimeout 90 s; the whole request within the 60 s --request-timeout.
 */
export const CONNECTION_TIMEOUTS: ConnectionTimeouts = {
  headersMs: 32_000,
  requestMs: 60_000,
  keepAliveMs: 90_000,
  checkIntervalMs: 1_000,
};

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The body, or "TooLarge" past `limit` bytes: a declared Content-Length above it is refused
 * before a byte is read, a streamed body as soon as it passes it (kube-apiserver's
 * limitedReadBody), and what was read is dropped.
 */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | "TooLarge"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve("TooLarge");
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      chunks = [];
      req.off("data", onData);
      req.pause();
      resolve("TooLarge");
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** 413, the rest of the body thrown away unread for a moment, then the connection closed. */
function refuseBody(req: http.IncomingMessage, res: http.ServerResponse, limit: number): void {
  const payload = JSON.stringify(requestEntityTooLarge(`limit is ${limit}`).status);
  res.writeHead(413, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(payload)),
  });
  // Closing at once, with the upload unread, resets the connection before the client has
  // read the answer: the rest of the body is discarded (flowing with no reader), and the
  // connection is closed only if it is still coming a second later. A body that ends in time
  // leaves the connection clean for the client's next request.
  req.removeAllListeners("data");
  req.resume();
  res.end(payload, () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), 1000).unref();
    req.once("end", () => clearTimeout(timer));
  });
}

/** Resolves once the response can take more (or is gone). */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Requests take turns: one handler starts per event-loop turn, so the loop reads the sockets
 * between two handlers and a health probe (exempt, never queued) waits for at most one
 * request's work, not for every request that arrived before it.
 */
class Turns {
  #waiting: (() => void)[] = [];
  #next = 0;
  #scheduled = false;

  take(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#release);
      }
    });
  }

  #release = (): void => {
    const resolve = this.#waiting[this.#next++];
    if (this.#next === this.#waiting.length) {
      this.#waiting = [];
      this.#next = 0;
      this.#scheduled = false;
    } else setImmediate(this.#release);
    resolve?.();
  };
}

async function serve(
  handler: (req: ApiRequest) => Promise<ApiResponse>,
  turns: Turns,
  limit: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  // The path as sent: WHATWG URL parsing would resolve `%2e%2e` segments (a name) as `..`.
  const target = req.url ?? "/";
  const mark = target.indexOf("?");
  const url = {
    pathname: mark < 0 ? target : target.slice(0, mark),
    searchParams: new URLSearchParams(mark < 0 ? "" : target.slice(mark + 1)),
  };
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const body = await readBody(req, limit);
  if (body === "TooLarge") {
    refuseBody(req, res, limit);
    return;
  }
  const apiRequest: ApiRequest = {
    method: req.method ?? "GET",
    path: url.pathname,
    query: url.searchParams,
    headers,
  };
  if (body.length > 0) apiRequest.body = body;
  // Impersonate-Group repeats once per group: its values must not be joined.
  if (headers["impersonate-user"] !== undefined) apiRequest.headerValues = req.headersDistinct;
  if (!isHealthProbe(apiRequest.path)) await turns.take();
  const response = await handler(apiRequest);
  const outHeaders: Record<string, string> = { ...(response.headers ?? {}) };
  if ("stream" in response) {
    delete outHeaders["transfer-encoding"];
    res.writeHead(response.status, outHeaders);
    res.flushHeaders();
    // res 'close' (not req 'close') tells that the watcher has gone.
    res.on("close", () => response.close());
    // The stream's end wakes a wait for the socket. One waiter at a time: racing each wait with
    // a promise as old as the watch added a reaction to that promise per wait, kept until the end.
    let ended = false;
    let wake: (() => void) | null = null;
    response.onEnd?.(() => {
      ended = true;
      wake?.();
    });
    for await (const line of response.stream) {
      if (res.destroyed) break;
      // Backpressure: the next line waits until the socket took this one; meanwhile events
      // queue in the stream, which drops a watcher that falls too far behind.
      if (!res.write(line) && !ended) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          void drained(res).then(resolve);
        });
        wake = null;
      }
    }
    // A dropped watcher's connection is cut: a graceful end would wait on a client that does
    // not read, holding what is buffered for it.
    if (response.unresponsive?.()) res.destroy();
    else res.end();
    return;
  }
  let chunks: (Buffer | string)[];
  if ("raw" in response) chunks = [response.raw];
  else {
    chunks = response.encode ? response.encode() : [JSON.stringify(response.body)];
    outHeaders["content-type"] ??= "application/json";
  }
  let length = 0;
  for (const chunk of chunks) length += Buffer.byteLength(chunk);
  outHeaders["content-length"] = String(length);
  res.writeHead(response.status, outHeaders);
  // Corked: a LIST's item Buffers go out in one writev, not one write each.
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
}

export function serveHttp(
  handler: (req: ApiRequest) => Promise<ApiResponse>,
  options: ServeOptions,
): Promise<RunningServer> {
  const limit = options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const turns = new Turns();
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    // A request came: the connection's first-request deadline (below) no longer applies.
    req.socket.setTimeout(0);
    serve(handler, turns, limit, req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`,
            reason: "InternalError",
            code: 500,
          }),
        );
      } else res.destroy();
    });
  };
  const timeouts = { ...CONNECTION_TIMEOUTS, ...options.timeouts };
  // A slowloris client (a header byte now and then) is cut at headersMs.
  const serverOptions: http.ServerOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
    maxHeaderSize: 1 << 20,
  };
  const server = options.tls
    ? https.createServer(
        {
          ...serverOptions,
          key: options.tls.key,
          cert: options.tls.cert,
          handshakeTimeout: timeouts.headersMs,
        },
        listener,
      )
    : http.createServer(serverOptions, listener);
  // Every accepted socket, TLS handshakes included: closeAllConnections() knows only the
  // connections the HTTP layer has seen, so a client reconnecting while the server stops (an
  // informer's retry) could otherwise open a watch that holds close() open for ever.
  const sockets = new Set<Socket>();
  let closing = false;
  server.on("connection", (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // Go's ReadHeaderTimeout runs from the connection's start: one that sends no request at all
  // is closed too (Node's header timer starts with the first byte).
  server.on(options.tls ? "secureConnection" : "connection", (socket: Socket) => {
    socket.setTimeout(timeouts.headersMs, () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.address ?? "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            server.close(() => done());
            server.closeAllConnections();
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}
