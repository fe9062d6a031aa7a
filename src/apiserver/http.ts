// The thin node:http(s) adapter: raw request bodies as Buffers (protobuf needs the bytes), JSON
// or raw replies, and watch streams flushed at once (kubectl and client-node informers wait for
// the headers) and written one JSON line per chunk until either side ends.
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { ApiRequest, ApiResponse } from "./types.js";

export interface ServeOptions {
  port: number;
  address?: string;
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function serve(
  handler: (req: ApiRequest) => Promise<ApiResponse>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const body = await readBody(req);
  const apiRequest: ApiRequest = {
    method: req.method ?? "GET",
    path: url.pathname,
    query: url.searchParams,
    headers,
  };
  if (body.length > 0) apiRequest.body = body;
  const response = await handler(apiRequest);
  const outHeaders: Record<string, string> = { ...(response.headers ?? {}) };
  if ("stream" in response) {
    delete outHeaders["transfer-encoding"];
    res.writeHead(response.status, outHeaders);
    res.flushHeaders();
    // res 'close' (not req 'close') tells that the watcher has gone.
    res.on("close", () => response.close());
    for await (const line of response.stream) {
      if (res.destroyed) break;
      res.write(line);
    }
    res.end();
    return;
  }
  let payload: Buffer | string;
  if ("raw" in response) payload = response.raw;
  else {
    payload = JSON.stringify(response.body);
    outHeaders["content-type"] ??= "application/json";
  }
  outHeaders["content-length"] = String(Buffer.byteLength(payload));
  res.writeHead(response.status, outHeaders);
  res.end(payload);
}

export function serveHttp(
  handler: (req: ApiRequest) => Promise<ApiResponse>,
  options: ServeOptions,
): Promise<RunningServer> {
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    serve(handler, req, res).catch((err: unknown) => {
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
  const server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : http.createServer(listener);
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
