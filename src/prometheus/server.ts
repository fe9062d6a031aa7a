// `horizon adapter` on the wire: an aggregated API server for custom.metrics.k8s.io and
// external.metrics.k8s.io. Over HTTPS, requests under /apis must come from the aggregator:
// kube-apiserver presents its front-proxy client certificate, verified against the
// requestheader client CA (as custom-metrics-apiserver's delegated authentication does); the
// health endpoints answer anyone (kubelet probes carry no certificate).
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { PrometheusAdapter } from "./adapter.js";

export interface AdapterServerOptions {
  adapter: PrometheusAdapter;
  address: string;
  port: number;
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: { cert: string; key: string };
  /** PEM of the CA whose client certificates may call the API (the front proxy's). */
  clientCa?: string;
  log?: (line: string) => void;
}

export interface AdapterServer {
  port: number;
  close(): Promise<void>;
}

const GROUPS = ["custom.metrics.k8s.io", "external.metrics.k8s.io"];

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

const unauthorized = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

export function serveAdapter(options: AdapterServerOptions): Promise<AdapterServer> {
  const { adapter } = options;
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://adapter");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (path === "/healthz" || path === "/livez" || path === "/readyz") {
      // Ready once discovery has answered: before, every metric would be "not found".
      const ready = path !== "/readyz" || adapter.state.discovered;
      send(res, ready ? 200 : 503, ready ? "ok" : "discovery has not succeeded yet");
      return;
    }
    if (options.clientCa && !(req.socket as TLSSocket).authorized) {
      send(res, 401, unauthorized);
      return;
    }
    if (path === "/apis") {
      send(res, 200, {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: GROUPS.map((group) => adapter.apiGroup(group)),
      });
      return;
    }
    adapter.handle(req.method ?? "GET", path, url.searchParams).then(
      (answer) => {
        if (answer) send(res, answer.status, answer.body);
        else {
          send(res, 404, {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: "the server could not find the requested resource",
            reason: "NotFound",
            code: 404,
          });
        }
      },
      (error: unknown) => {
        options.log?.(`request ${path} failed: ${(error as Error).message}`);
        send(res, 500, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Internal error occurred: unable to fetch metrics",
          reason: "InternalError",
          code: 500,
        });
      },
    );
  };
  const server = options.tls
    ? https.createServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          ...(options.clientCa
            ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: false }
            : {}),
        },
        listener,
      )
    : http.createServer(listener);
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.address, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}
