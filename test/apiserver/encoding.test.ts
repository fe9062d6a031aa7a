// The kept encodings (src/apiserver/encoding.ts): every GET, LIST and watch line made from them
// is byte for byte the UTF-8 of serializing the response body, for every served kind and after
// each change; only stored versions are kept, and a change or deletion drops the old JSON.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import { ObjectEncodings } from "../../src/apiserver/encoding.js";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { ObjectStore } from "../../src/registry/store.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";
import { KIND_CASES, NAMESPACE } from "../fuzz/harness.js";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (method: string, url: string, body?: unknown, contentType?: string) => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: contentType ? { "content-type": contentType } : {},
    };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    return handler(req);
  };
  return { cluster, call, handler };
}

/** The bytes the HTTP adapter sends for a JSON answer, and the body they must encode. */
function sent(res: ApiResponse): { text: string; body: unknown } {
  assert.ok("body" in res, `expected a JSON body, got status ${res.status}`);
  assert.ok(res.encode, "expected kept encodings for this answer");
  return { text: Buffer.concat(res.encode()).toString("utf8"), body: res.body };
}

async function firstLine(res: ApiResponse): Promise<string> {
  assert.ok("stream" in res, "expected a watch stream");
  const next = await res.stream[Symbol.asyncIterator]().next();
  res.close();
  assert.ok(!next.done, "expected a watch event");
  return String(next.value);
}

describe("kept encodings are the serialized answer", () => {
  for (const kind of KIND_CASES) {
    it(`${kind.kind}: GET, LIST and a watch line, before and after a change`, async () => {
      const { call } = setup();
      const created = await call("POST", `/api/v1/namespaces`, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NAMESPACE },
      });
      assert.ok(created.status < 300 || created.status === 409, `namespace: ${created.status}`);
      const valid = kind.valid(kind.kind === "Namespace" ? "enc-ns" : "enc");
      const made = await call("POST", kind.collection, {
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        ...valid,
      });
      assert.ok(made.status === 201, `create ${kind.kind}: ${made.status} ${JSON.stringify(made)}`);
      const createdAnswer = sent(made);
      assert.equal(createdAnswer.text, JSON.stringify(createdAnswer.body), "the create's answer");
      // Some kinds' valid objects are named after the given name (a CRD's <plural>.<group>).
      const name = (valid.metadata as { name: string }).name;
      const check = async (when: string) => {
        const got = sent(await call("GET", `${kind.collection}/${name}`));
        assert.equal(got.text, JSON.stringify(got.body), `${when}: GET`);
        for (const path of [kind.collection, kind.allNamespaces].filter((p) => p !== undefined)) {
          const listed = sent(await call("GET", path));
          assert.equal(listed.text, JSON.stringify(listed.body), `${when}: LIST ${path}`);
          // Twice: the second answer is made from what the first kept.
          assert.equal(sent(await call("GET", path)).text, listed.text, `${when}: LIST again`);
        }
        const line = await firstLine(
          await call("GET", `${kind.collection}?watch=1&fieldSelector=metadata.name=${name}`),
        );
        assert.equal(line, `${JSON.stringify({ type: "ADDED", object: got.body })}\n`, when);
        return got.body as KubeObject;
      };
      const before = await check("created");
      const patched = await call(
        "PATCH",
        `${kind.collection}/${name}`,
        { metadata: { labels: { changed: "yes" } } },
        "application/merge-patch+json",
      );
      assert.equal(patched.status, 200, `patch ${kind.kind}: ${JSON.stringify(patched)}`);
      const patchedAnswer = sent(patched);
      assert.equal(patchedAnswer.text, JSON.stringify(patchedAnswer.body), "the patch's answer");
      const after = await check("patched");
      assert.deepEqual(after, patchedAnswer.body, "the patch answered the version it stored");
      assert.equal(
        after.metadata.labels?.changed,
        "yes",
        "the answer after a change is the new version",
      );
      assert.notEqual(after.metadata.resourceVersion, before.metadata.resourceVersion);
    });
  }

  it("an HPA is kept per served version (autoscaling/v1 and v2 differ)", async () => {
    const { call } = setup();
    const hpa = KIND_CASES.find((k) => k.kind === "HorizontalPodAutoscaler");
    assert.ok(hpa, "KIND_CASES has the HPA");
    await call("POST", "/api/v1/namespaces", { metadata: { name: NAMESPACE } });
    const made = await call("POST", hpa.collection, {
      apiVersion: hpa.apiVersion,
      kind: hpa.kind,
      ...hpa.valid("h"),
    });
    assert.equal(made.status, 201, JSON.stringify(made));
    const v1 = hpa.collection.replace("autoscaling/v2", "autoscaling/v1");
    const texts = [];
    for (const path of [`${hpa.collection}/h`, `${v1}/h`, hpa.collection, v1]) {
      const got = sent(await call("GET", path));
      assert.equal(got.text, JSON.stringify(got.body), path);
      texts.push(got.text);
    }
    assert.notEqual(texts[0], texts[1], "v1 and v2 are different answers");
  });
});

describe("a write's answer", () => {
  it("reuses the bytes its watch event was sent as; a dry run's answer is its own", async () => {
    const { call } = setup();
    const collection = "/api/v1/namespaces/default/configmaps";
    assert.equal((await call("POST", collection, { metadata: { name: "w" } })).status, 201);
    const watch = await call("GET", `${collection}?watch=1&resourceVersion=0`);
    assert.ok("stream" in watch, "a watch stream");
    const lines = watch.stream[Symbol.asyncIterator]();
    await lines.next(); // ADDED w
    const patch = { data: { a: "b" } };
    const patched = await call("PATCH", `${collection}/w`, patch, "application/merge-patch+json");
    const event = await lines.next();
    watch.close();
    assert.ok(!event.done && Buffer.isBuffer(event.value), "the event line is kept bytes");
    const answer = sent(patched).text;
    assert.equal(String(event.value), `{"type":"MODIFIED","object":${answer}}\n`);
    const [kept] = "encode" in patched && patched.encode ? patched.encode() : [];
    const read = await call("GET", `${collection}/w`);
    const [got] = "encode" in read && read.encode ? read.encode() : [];
    assert.ok(kept !== undefined && kept === got, "the answer and a GET send the same kept bytes");
    const dry = await call("PUT", `${collection}/w?dryRun=All`, {
      ...(sent(patched).body as object),
      data: { a: "dry" },
    });
    assert.equal(dry.status, 200, JSON.stringify(dry));
    assert.equal(sent(dry).text, JSON.stringify(sent(dry).body), "a dry run's answer");
    const stored = sent(await call("GET", `${collection}/w`));
    assert.equal(stored.text, answer, "the dry run changed nothing stored or kept");
  });
});

describe("a change fanned out to watchers", () => {
  it("is one line, the same bytes sent to every watcher", async () => {
    const { call } = setup();
    const collection = "/api/v1/namespaces/default/configmaps";
    assert.equal((await call("POST", collection, { metadata: { name: "f" } })).status, 201);
    const watchers: { watch: { close(): void }; lines: AsyncIterator<unknown> }[] = [];
    for (let i = 0; i < 3; i++) {
      const watch = await call("GET", `${collection}?watch=1&resourceVersion=0`);
      assert.ok("stream" in watch, "a watch stream");
      const lines = watch.stream[Symbol.asyncIterator]();
      await lines.next(); // ADDED f
      watchers.push({ watch, lines });
    }
    const patch = { data: { k: "v" } };
    assert.equal(
      (await call("PATCH", `${collection}/f`, patch, "application/merge-patch+json")).status,
      200,
    );
    const got: unknown[] = [];
    for (const { watch, lines } of watchers) {
      const next = await lines.next();
      watch.close();
      assert.ok(!next.done, "a MODIFIED event");
      got.push(next.value);
    }
    assert.ok(
      got.every((line) => line === got[0]),
      "the same Buffer for every watcher",
    );
    const event = JSON.parse(String(got[0]));
    assert.equal(event.type, "MODIFIED");
    assert.deepEqual(event.object.data, { k: "v" });
  });
});

describe("kept encodings over HTTP", () => {
  it("non-ASCII objects: Content-Length counts bytes, GET and LIST parse to the same objects", async () => {
    const { call, handler } = setup();
    const server = await serveHttp(handler, { port: 0 });
    try {
      const data = { greeting: "héllo ✓ 🚀", plain: "x" };
      for (const name of ["a", "b"]) {
        const made = await call("POST", "/api/v1/namespaces/default/configmaps", {
          metadata: { name },
          data,
        });
        assert.equal(made.status, 201, JSON.stringify(made));
      }
      for (const path of [
        "/api/v1/namespaces/default/configmaps",
        "/api/v1/namespaces/default/configmaps/a",
      ]) {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
        const bytes = Buffer.from(await res.arrayBuffer());
        assert.equal(res.headers.get("content-length"), String(bytes.length), path);
        const inProcess = await call("GET", path);
        assert.ok("body" in inProcess, path);
        assert.deepEqual(JSON.parse(bytes.toString("utf8")), inProcess.body, path);
      }
    } finally {
      await server.close();
    }
  });
});

describe("ObjectEncodings keeps stored versions only", () => {
  const service = (name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: { ports: [{ port: 80 }] },
  });
  const encode = (encodings: ObjectEncodings, object: KubeObject) =>
    encodings.bytes(object, "v1", "object", () => object).toString("utf8");

  it("a change or a deletion drops the old version's JSON; old versions are not kept", () => {
    const store = new ObjectStore({ now: () => T0 });
    const encodings = new ObjectEncodings(store);
    const stored = Array.from({ length: 20 }, (_, i) => store.create(service(`s${i}`)));
    for (const object of stored) encode(encodings, object);
    assert.equal(encodings.size, 20);
    const old = stored[0]!;
    const updated = store.update({ ...old, metadata: { ...old.metadata, labels: { a: "b" } } });
    assert.equal(encodings.size, 19, "the replaced version's JSON is dropped");
    // The old version (a replayed change) is encoded, not kept.
    assert.equal(encode(encodings, old), JSON.stringify(old));
    assert.equal(encodings.size, 19);
    assert.equal(encode(encodings, updated), JSON.stringify(updated));
    assert.equal(encodings.size, 20);
    for (let i = 0; i < 20; i++) store.delete("Service", "default", `s${i}`);
    assert.equal(encodings.size, 0, "deleted objects keep nothing");
  });

  it("the same stored version is serialized once per apiVersion and form", () => {
    const store = new ObjectStore({ now: () => T0 });
    const encodings = new ObjectEncodings(store);
    const object = store.create(service("a"));
    const { kind: _k, apiVersion: _a, ...item } = object;
    let made = 0;
    const counted = (value: unknown) => () => {
      made++;
      return value;
    };
    for (let i = 0; i < 3; i++) encodings.bytes(object, "v2", "item", counted(item));
    for (let i = 0; i < 3; i++) encodings.bytes(object, "v1", "object", counted(object));
    assert.equal(made, 2);
    // A list item is the whole object's JSON without its leading apiVersion and kind.
    const listed = encodings.bytes(object, "v1", "item", counted(item));
    assert.equal(made, 2, "the item was made from the object's bytes");
    assert.equal(listed.toString("utf8"), JSON.stringify(item));
  });

  it("kept bytes own their memory: none is a slice of a shared Buffer pool", () => {
    const store = new ObjectStore({ now: () => T0 });
    const encodings = new ObjectEncodings(store);
    const object = store.create(service("c"));
    const { kind: _k, apiVersion: _a, ...item } = object;
    const whole = encodings.bytes(object, "v1", "object", () => object);
    const listed = encodings.bytes(object, "v1", "item", () => item);
    for (const bytes of [whole, listed]) {
      assert.equal(bytes.byteOffset, 0);
      assert.equal(bytes.buffer.byteLength, bytes.length);
    }
    assert.equal(listed.toString("utf8"), JSON.stringify(item));
  });

  it("an object whose JSON does not begin with its apiVersion and kind: its item is serialized", () => {
    const store = new ObjectStore({ now: () => T0 });
    const encodings = new ObjectEncodings(store);
    const { kind, apiVersion, ...rest } = service("b");
    const object = store.create({ ...rest, kind, apiVersion } as KubeObject);
    const item = { ...object, kind: undefined, apiVersion: undefined };
    encodings.bytes(object, "v1", "object", () => object);
    const listed = encodings.bytes(object, "v1", "item", () => item);
    assert.equal(listed.toString("utf8"), JSON.stringify(item));
  });
});
