// Watchers that do not read: the server writes a watch stream only as fast as the client takes
// it, queues a bounded amount behind that, and drops a watcher that falls further behind (its
// connection is cut; a client re-watches or re-lists), while a reading watcher gets everything.
import assert from "node:assert/strict";
import http from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { KubeObject } from "../../src/api/types.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import { LineStream } from "../../src/apiserver/watch.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

const SERVICES = "/api/v1/namespaces/default/services";

describe("LineStream limits", () => {
  it("a reader within the limits gets every line", async () => {
    const stream = new LineStream({ maxLines: 3, maxBytes: 1000 });
    for (const line of ["a", "b", "c"]) stream.push(line);
    stream.end();
    const got: string[] = [];
    for await (const line of stream) got.push(String(line));
    assert.deepEqual(got, ["a", "b", "c"]);
    assert.equal(stream.unresponsive, false);
  });

  it("does not keep a line once it is read (a deferred line's object is let go)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const stream = new LineStream();
    const iterator = stream[Symbol.asyncIterator]();
    /** Queues a line made from an object only the line's closure holds; a WeakRef to it. */
    const queued = (note: string) => {
      const object = { note };
      stream.pushDeferred(() => JSON.stringify(object));
      return new WeakRef(object);
    };
    const read = queued("x".repeat(1000));
    const kept = { note: "still queued" };
    stream.pushDeferred(() => JSON.stringify(kept));
    assert.equal(String((await iterator.next()).value), JSON.stringify({ note: "x".repeat(1000) }));
    // A WeakRef's target stays alive until the job that made or read it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.equal(read.deref(), undefined, "the line already read is still held by the queue");
    assert.equal(String((await iterator.next()).value), JSON.stringify(kept));
  });

  for (const c of [
    { name: "lines", limits: { maxLines: 3, maxBytes: 1000 }, lines: ["a", "b", "c", "d"] },
    { name: "bytes", limits: { maxLines: 100, maxBytes: 10 }, lines: ["12345", "67890", "x"] },
  ]) {
    it(`past the ${c.name} limit the stream ends as unresponsive, its queue dropped`, async () => {
      const stream = new LineStream(c.limits);
      let ended = false;
      stream.onEnd(() => {
        ended = true;
      });
      for (const line of c.lines) stream.push(line);
      assert.equal(ended, true);
      assert.equal(stream.unresponsive, true);
      const got: string[] = [];
      for await (const line of stream) got.push(String(line));
      assert.deepEqual(got, []);
    });
  }
});

function service(annotation: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "big", namespace: "default", annotations: { blob: annotation } },
    spec: { ports: [{ port: 80 }] },
  };
}

/** A watch whose client reads everything; `lines()` counts the events so far. */
function readingWatch(port: number): { lines: () => number } {
  let lines = 0;
  http
    .get({ host: "127.0.0.1", port, path: `${SERVICES}?watch=true&resourceVersion=0` }, (res) => {
      res.on("data", (chunk: Buffer) => {
        for (const byte of chunk) if (byte === 0x0a) lines++;
      });
      res.on("error", () => {
        // cut when the server stops
      });
    })
    .on("error", () => {
      // cut when the server stops
    });
  return { lines: () => lines };
}

describe("a watcher that never reads", () => {
  it("is dropped (its connection cut mid-stream); a reading watcher gets every event", async () => {
    const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
    const server = await serveHttp(createApiHandler({ cluster, defaultWatchTimeoutSeconds: 60 }), {
      port: 0,
    });
    try {
      cluster.store.create(service("0"));
      // The stalled client: sends its watch request, then reads nothing until the flood is over.
      const stalled = connect(server.port, "127.0.0.1");
      await new Promise<void>((resolve) => stalled.on("connect", () => resolve()));
      stalled.pause();
      stalled.write(
        `GET ${SERVICES}?watch=true&resourceVersion=0&timeoutSeconds=60 HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      const reading = readingWatch(server.port);
      // Both watches registered before the flood.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const updates = 1500;
      const blob = "x".repeat(20_000);
      for (let i = 1; i <= updates; i++) {
        cluster.store.update(service(`${i}${blob}`));
        // Paced as separate requests would be, so that a reading client keeps up.
        if (i % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Now the stalled client reads what it was sent: the stream stops short, without the
      // chunked encoding's last chunk (the connection was cut, not ended).
      let received = "";
      const ended = new Promise<void>((resolve) => {
        stalled.on("data", (d: Buffer) => {
          received += d.toString("latin1");
        });
        stalled.on("close", () => resolve());
        stalled.on("error", () => resolve());
      });
      stalled.resume();
      const cut = await Promise.race([
        ended.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20_000)),
      ]);
      assert.ok(cut, "the stalled watcher's connection is still open");
      const events = received.split("\n").filter((l) => l.startsWith('{"type"')).length;
      assert.ok(received.startsWith("HTTP/1.1 200"), received.slice(0, 40));
      assert.ok(events < updates, `the stalled watcher got all ${events} events`);
      assert.equal(received.endsWith("\r\n0\r\n\r\n"), false);
      // The reading watcher: the ADDED, then every update.
      const deadline = Date.now() + 20_000;
      while (reading.lines() < updates + 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(reading.lines(), updates + 1);
    } finally {
      await server.close();
    }
  });
});
