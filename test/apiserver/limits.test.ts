// The API server's limits as kube-apiserver's: request bodies above 3 MiB get 413 without being
// read, stored objects above 1.5 MiB are refused, JSON nested deeper than the decoder allows is
// a 400, and a refused write stores nothing (no read of the collection breaks afterwards).
import assert from "node:assert/strict";
import http from "node:http";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import { MAX_REQUEST_BODY_BYTES, surelyFits } from "../../src/apiserver/limits.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { LineStream, startWatch } from "../../src/apiserver/watch.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { ObjectStore } from "../../src/registry/store.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (method: string, url: string, body?: string, contentType = "application/json") => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: { "content-type": contentType },
    };
    if (body !== undefined) req.body = Buffer.from(body);
    return handler(req);
  };
  return { cluster, call };
}

/** The response as a client reads it: the body must encode. */
function wire(res: ApiResponse): { status: number; body: Json } {
  assert.ok("body" in res, "expected a JSON body");
  return { status: res.status, body: JSON.parse(JSON.stringify(res.body)) };
}

/** A Deployment manifest whose container carries `extra` (raw JSON text spliced in). */
function deploymentText(name: string, extra: string): string {
  return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx",${extra}}]}}}}`;
}

const nested = (depth: number) => `"args":${"[".repeat(depth)}${"]".repeat(depth)}`;

/** Every read of the collection still works (GET, LIST, WATCH from 0) and encodes. */
async function readsWork(call: ReturnType<typeof setup>["call"], names: readonly string[]) {
  const list = wire(await call("GET", "/apis/apps/v1/deployments"));
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.items.map((i: Json) => i.metadata.name),
    names,
  );
  for (const name of names)
    assert.equal(wire(await call("GET", `${DEPLOYMENTS}/${name}`)).status, 200);
  const watch = await call("GET", `${DEPLOYMENTS}?watch=true&resourceVersion=0`);
  assert.ok("stream" in watch);
  const lines: Json[] = [];
  const iterator = watch.stream[Symbol.asyncIterator]();
  for (let i = 0; i < names.length; i++) {
    const next = await iterator.next();
    assert.equal(next.done, false);
    lines.push(JSON.parse(next.value as string));
  }
  watch.close();
  assert.deepEqual(
    lines.map((l) => [l.type, l.object.metadata.name]),
    names.map((n) => ["ADDED", n]),
  );
}

describe("deep JSON", () => {
  it("100,000 levels: 400 from the decoder, nothing stored, reads keep working", async () => {
    const { call } = setup();
    assert.equal(
      wire(await call("POST", DEPLOYMENTS, deploymentText("ok", '"args":["a"]'))).status,
      201,
    );
    const res = wire(await call("POST", DEPLOYMENTS, deploymentText("deep", nested(100_000))));
    assert.equal(res.status, 400);
    assert.equal(res.body.reason, "BadRequest");
    assert.equal(
      res.body.message,
      "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
    );
    assert.equal(wire(await call("GET", `${DEPLOYMENTS}/deep`)).status, 404);
    await readsWork(call, ["ok"]);
  });

  it("10,001 levels of objects is past the decoder's limit", async () => {
    const { call } = setup();
    const deep = `"x":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const res = wire(await call("POST", DEPLOYMENTS, deploymentText("deep", deep)));
    assert.equal(res.status, 400);
    assert.match(res.body.message, /invalid character '\{' exceeded max depth$/);
  });

  it("deeper than the server can store (but within the decoder's limit): 400, nothing stored", async () => {
    const { call } = setup();
    const res = wire(await call("POST", DEPLOYMENTS, deploymentText("deep", nested(5_000))));
    assert.equal(res.status, 400);
    assert.match(
      res.body.message,
      /^Deployment in version "v1" cannot be handled as a Deployment: nesting depth \d+ exceeds the server's limit of 1000$/,
    );
    await readsWork(call, []);
  });

  it("a patch that nests too deep is refused the same way", async () => {
    const { call } = setup();
    assert.equal(
      wire(await call("POST", DEPLOYMENTS, deploymentText("web", '"args":["a"]'))).status,
      201,
    );
    const patch = `{"metadata":{"annotations":{"a":"b"}},"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    const res = wire(
      await call("PATCH", `${DEPLOYMENTS}/web`, patch, "application/merge-patch+json"),
    );
    assert.equal(res.status, 400);
    const stored = wire(await call("GET", `${DEPLOYMENTS}/web`));
    assert.equal(stored.body.metadata.annotations, undefined);
    await readsWork(call, ["web"]);
  });

  // The YAML parser recursed per level and, 5,000 deep, ran the process out of memory.
  for (const [style, body] of [
    ["JSON", deploymentText("deep", nested(5_000))],
    [
      "YAML flow",
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: deep}\nx: ${nested(5_000)}\n`,
    ],
  ] as const) {
    it(`server-side apply of ${style} 5,000 deep: 400, nothing stored`, async () => {
      const { call } = setup();
      const res = wire(
        await call(
          "PATCH",
          `${DEPLOYMENTS}/deep?fieldManager=t`,
          body,
          "application/apply-patch+yaml",
        ),
      );
      assert.equal(res.status, 400);
      assert.equal(
        res.body.message,
        `Deployment in version "v1" cannot be handled as a Deployment: nesting depth ${style === "JSON" ? 5_006 : 5_000} exceeds the server's limit of 1000`,
      );
      await readsWork(call, []);
    });
  }
});

describe("stored object size (etcd's 1.5 MiB)", () => {
  const big = (bytes: number) => `"args":[${JSON.stringify("a".repeat(bytes))}]`;

  it("a create whose object passes 1.5 MiB is 413 and stores nothing", async () => {
    const { call } = setup();
    const res = wire(await call("POST", DEPLOYMENTS, deploymentText("big", big(2 * 1024 * 1024))));
    assert.equal(res.status, 413);
    assert.equal(res.body.reason, "RequestEntityTooLarge");
    assert.equal(res.body.message, "Request entity too large: etcdserver: request is too large");
    await readsWork(call, []);
  });

  it("the size bound that spares building the JSON never lets a bigger object through", () => {
    // Any JSON value, strings of any UTF-16 units (escapes, non-ASCII, lone surrogates).
    const values = fc.jsonValue({ maxDepth: 4, stringUnit: "binary" });
    fc.assert(
      fc.property(values, fc.integer({ min: 0, max: 2000 }), (value, limit) => {
        const size = Buffer.byteLength(JSON.stringify(value));
        if (surelyFits(value, limit)) assert.ok(size <= limit, `${size} bytes > ${limit}`);
      }),
      { seed: 1414, numRuns: 2000 },
    );
    assert.equal(surelyFits({ toJSON: () => "x".repeat(10) }, 1000), false, "toJSON: unsure");
    // A usual object (a 20 KB annotation) is decided by the bound, without its JSON.
    const usual = { metadata: { name: "web", annotations: { note: "x".repeat(20_000) } } };
    assert.equal(surelyFits(usual, 1.5 * 1024 * 1024), true);
  });

  it("an object just under the limit is stored", async () => {
    const { call } = setup();
    const res = wire(await call("POST", DEPLOYMENTS, deploymentText("fits", big(1024 * 1024))));
    assert.equal(res.status, 201);
  });

  it("an update or patch that grows it past the limit leaves the stored object as it was", async () => {
    const { call } = setup();
    const created = wire(await call("POST", DEPLOYMENTS, deploymentText("web", big(1024 * 1024))));
    assert.equal(created.status, 201);
    const rv = created.body.metadata.resourceVersion;
    const patch = JSON.stringify({
      metadata: { labels: { big: "x" } },
      spec: {
        template: { spec: { containers: [{ name: "c", command: ["b".repeat(700 * 1024)] }] } },
      },
    });
    const patched = wire(
      await call("PATCH", `${DEPLOYMENTS}/web`, patch, "application/strategic-merge-patch+json"),
    );
    assert.equal(patched.status, 413);
    const current = wire(await call("GET", `${DEPLOYMENTS}/web`));
    assert.equal(current.body.metadata.resourceVersion, rv);
    assert.equal(current.body.metadata.labels, undefined);
    const replaced = wire(
      await call("PUT", `${DEPLOYMENTS}/web`, deploymentText("web", big(2 * 1024 * 1024))),
    );
    assert.equal(replaced.status, 413);
    assert.equal(wire(await call("GET", `${DEPLOYMENTS}/web`)).body.metadata.resourceVersion, rv);
  });
});

describe("a watch that cannot encode an object", () => {
  it("ends with an ERROR event; the write that notified it succeeds", async () => {
    const store = new ObjectStore({ now: () => T0 });
    const res = startWatch({
      store,
      kind: "ConfigMap",
      matches: () => true,
      present: (object) => {
        if (object.metadata.name === "bad") throw new Error("cannot encode");
        return object;
      },
      apiVersion: "v1",
      resourceVersion: store.resourceVersion(),
      resourceVersionWaitMs: 1000,
      allowBookmarks: false,
      timeoutSeconds: 60,
      bookmarkIntervalMs: 60_000,
      initial: () => [],
    });
    assert.ok("stream" in res && res.stream instanceof LineStream);
    const stored = store.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bad" } });
    assert.equal(store.get("ConfigMap", "default", "bad"), stored);
    const lines: Json[] = [];
    for await (const line of res.stream) lines.push(JSON.parse(String(line)));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].type, "ERROR");
    assert.equal(lines[0].object.code, 500);
    assert.match(lines[0].object.message, /cannot encode/);
  });
});

// --- the HTTP edge ------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  body: string;
  /** Body bytes the client had written when the answer came. */
  sent: number;
}

/** Sends a request head, then body chunks until the server answers (or `total` is sent). */
function rawRequest(
  port: number,
  head: string,
  options: { total: number; chunk: number; chunked: boolean },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    let answeredAt = -1;
    socket.on("error", () => {
      // A reset after the answer is how an unread upload ends.
    });
    socket.on("data", (data) => {
      if (answeredAt < 0) answeredAt = sent;
      received += data.toString("latin1");
    });
    socket.on("close", () => {
      const match = /^HTTP\/1\.1 (\d+)/.exec(received);
      if (!match) {
        reject(new Error(`no HTTP answer (sent ${sent} bytes)`));
        return;
      }
      const body = received.slice(received.indexOf("\r\n\r\n") + 4);
      resolve({ status: Number(match[1]), body, sent: answeredAt });
    });
    const block = Buffer.alloc(options.chunk, "a");
    const pump = () => {
      while (answeredAt < 0 && sent < options.total && !socket.destroyed) {
        const framed = options.chunked
          ? Buffer.concat([
              Buffer.from(`${block.length.toString(16)}\r\n`),
              block,
              Buffer.from("\r\n"),
            ])
          : block;
        sent += block.length;
        if (!socket.write(framed)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    socket.on("connect", () => {
      socket.write(head);
      setImmediate(pump);
    });
  });
}

describe("request body limit (3 MiB)", () => {
  async function server() {
    let calls = 0;
    const running = await serveHttp(
      async (req) => {
        calls++;
        return { status: 200, body: { bytes: req.body?.length ?? 0 } };
      },
      { port: 0 },
    );
    return { running, calls: () => calls };
  }

  it("a declared Content-Length above it: 413 before the body is read", async () => {
    const { running, calls } = await server();
    try {
      const head = `POST ${DEPLOYMENTS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${256 * 1024 * 1024}\r\n\r\n`;
      // Nothing of the body is sent: the answer comes without it.
      const res = await rawRequest(running.port, head, { total: 0, chunk: 1, chunked: false });
      assert.equal(res.status, 413);
      const status = JSON.parse(res.body);
      assert.equal(status.reason, "RequestEntityTooLarge");
      assert.equal(status.message, `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`);
      assert.equal(calls(), 0);
    } finally {
      await running.close();
    }
  });

  it("a streamed (chunked) body: 413 once it passes the limit, the rest unread", async () => {
    const { running, calls } = await server();
    try {
      const head = `POST ${DEPLOYMENTS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const total = 256 * 1024 * 1024;
      const res = await rawRequest(running.port, head, { total, chunk: 64 * 1024, chunked: true });
      assert.equal(res.status, 413);
      assert.equal(calls(), 0);
      // Answered near the limit (socket buffers hold a few MiB more), long before the end.
      assert.ok(res.sent < 32 * 1024 * 1024, `answered after ${res.sent} bytes`);
    } finally {
      await running.close();
    }
  });

  it("a body at the limit is read whole", async () => {
    const { running, calls } = await server();
    try {
      const res = await fetch(`http://127.0.0.1:${running.port}${DEPLOYMENTS}`, {
        method: "POST",
        body: Buffer.alloc(MAX_REQUEST_BODY_BYTES, "a"),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { bytes: MAX_REQUEST_BODY_BYTES });
      assert.equal(calls(), 1);
    } finally {
      await running.close();
    }
  });

  // A keep-alive client reuses the connection once its upload is done: the server must not cut
  // it later (it did, a second after every 413).
  it("after a 413 whose body ended, the connection serves the client's next request", async () => {
    const { running, calls } = await server();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: Buffer, slowly = false) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          { host: "127.0.0.1", port: running.port, method: "POST", path: DEPLOYMENTS, agent },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        if (!slowly) {
          req.end(body);
          return;
        }
        // Half now, half after 1.5 s: the request spans the moment the old code cut it.
        req.write(body.subarray(0, 1));
        setTimeout(() => req.end(body.subarray(1)), 1500);
      });
    const sockets = new Set<unknown>();
    agent.on("free", (socket) => sockets.add(socket));
    try {
      assert.equal(await post(Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, "a")), 413);
      assert.equal(await post(Buffer.from('{"a":1}'), true), 200);
      assert.equal(calls(), 1);
      assert.equal(sockets.size, 1, "one connection served both");
    } finally {
      agent.destroy();
      await running.close();
    }
  });
});
