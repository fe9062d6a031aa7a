// Small real-socket servers and connections for the src/kube transport tests: a plain
// node:http (or https) server whose handler a test scripts (429s, resets, stalled or broken
// watches), a connection to it, temp folders, and polling with a deadline.
import { mkdtempSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import type { KubeConnection } from "../../src/kube/config.js";

export { pollUntil } from "../e2e/helpers.js";

export interface TinyServer {
  url: string;
  port: number;
  /** Requests seen, as `METHOD path?query`. */
  seen: string[];
  close(): Promise<void>;
}

export async function tinyServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  tls?: { key: string; cert: string },
): Promise<TinyServer> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const wrapped = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  };
  const server = tls ? https.createServer(tls, wrapped) : http.createServer(wrapped);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A connection with no credentials to a test server (plain HTTP). */
export function plainConnection(url: string): KubeConnection {
  return {
    server: url,
    source: "--kubeconfig",
    origin: "test",
    namespace: null,
    kubeConfig: new KubeConfig(),
    tls: {},
    authHeaders: async () => ({}),
    refreshCredentials: async () => false,
  };
}

export function tempDir(prefix = "horizon-kube-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
