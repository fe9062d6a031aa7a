// The node:http(s) edge: stopping the server ends every connection, including one whose TLS
// handshake had not finished (an informer reconnecting while `horizon up` stops), and one that
// arrives after the stop began. Requests take turns, and a health probe never waits in that queue.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { serveHttp } from "../../src/apiserver/http.js";
import { generateServingCertificate } from "../../src/apiserver/tls.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";

const handler = async (_req: ApiRequest): Promise<ApiResponse> => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: "{}",
});

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Resolves with how the promise ended, or "pending" after `ms` (a deadline, not a wait). */
function within<T>(promise: Promise<T>, ms: number): Promise<"done" | "pending"> {
  return Promise.race([
    promise.then(() => "done" as const),
    new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms).unref()),
  ]);
}

describe("serveHttp close", () => {
  for (const tls of [true, false]) {
    it(`ends a connection that never spoke (${tls ? "HTTPS, mid-handshake" : "HTTP"})`, async () => {
      const cert = await generateServingCertificate();
      assert.ok(cert.ok);
      const server = await serveHttp(handler, {
        port: 0,
        ...(tls ? { tls: { key: cert.value.key, cert: cert.value.cert } } : {}),
      });
      const silent = await opened(server.port);
      const ended = new Promise<void>((resolve) => silent.on("close", () => resolve()));
      // Without ending it, close() waits for the TLS handshake timeout (120 s).
      assert.equal(await within(server.close(), 10_000), "done");
      assert.equal(await within(ended, 10_000), "done");
    });
  }
});

describe("serveHttp turns", () => {
  it("answers a health probe after at most a turn's work, not after every queued request", async () => {
    const slow = 10;
    let completed = 0;
    let completedAtProbe = -1;
    const busy = async (req: ApiRequest): Promise<ApiResponse> => {
      if (req.path === "/healthz") completedAtProbe = completed;
      else if (req.path !== "/livez") {
        // A request's synchronous work (decoding, merging, encoding), 30 ms of it.
        const until = performance.now() + 30;
        while (performance.now() < until);
        completed++;
      }
      return { status: 200, headers: { "content-type": "application/json" }, body: "{}" };
    };
    const server = await serveHttp(busy, { port: 0 });
    try {
      const sockets = await Promise.all(
        Array.from({ length: slow + 1 }, () => opened(server.port)),
      );
      const send = async (path: (i: number) => string) => {
        const answered = sockets.map(
          (socket) => new Promise<void>((resolve) => socket.once("data", () => resolve())),
        );
        // All written in one tick: the last socket's request arrives last.
        sockets.forEach((socket, i) => {
          socket.write(`GET ${path(i)} HTTP/1.1\r\nHost: x\r\n\r\n`);
        });
        await Promise.all(answered);
      };
      // Kept-alive connections, as clients hold them (a new one is read only once accepted).
      await send(() => "/livez");
      await send((i) => (i === slow ? "/healthz" : `/api/v1/namespaces/default/pods/p${i}`));
      assert.ok(
        completedAtProbe >= 0 && completedAtProbe < slow,
        `the probe was answered after ${completedAtProbe} of ${slow} queued requests`,
      );
      for (const socket of sockets) socket.destroy();
    } finally {
      await server.close();
    }
  });
});
