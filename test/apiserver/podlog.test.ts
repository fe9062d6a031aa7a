// GET pods/NAME/log through the API handler, on a fake clock: the app model's start-up line
// once the container runs, access lines as they are written, the container parameter as
// kube-apiserver validates it, a pod not yet bound (nothing) or still creating (400), tailLines,
// sinceSeconds, timestamps, limitBytes, and follow=true streaming until the pod goes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { PodLogBook } from "../../src/cluster/podlogs.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { at, deployment, scenario, T0 } from "../cluster/builders.js";

function setup() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = (url: string, method = "GET"): Promise<ApiResponse> => {
    const parsed = new URL(url, "http://x");
    const req: ApiRequest = {
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: {},
    };
    return handler(req);
  };
  return { cluster, call };
}

function text(res: ApiResponse): string {
  assert.ok("raw" in res, `expected a text body, got ${JSON.stringify(res)}`);
  return String(res.raw);
}

function message(res: ApiResponse): string {
  assert.ok("body" in res, "expected a Status");
  return (res.body as { message: string }).message;
}

const PODS = "/api/v1/namespaces/default/pods";

describe("pods/log", () => {
  it("the start-up line once the container runs; tail, since, timestamps, limitBytes", async () => {
    const { cluster, call } = setup();
    cluster.create(deployment({ replicas: 1 }));
    const pod = cluster.store.list("Pod")[0]!.metadata.name;
    // Not bound yet (the scheduler's delay): nothing to read.
    assert.equal(text(await call(`${PODS}/${pod}/log`)), "");
    cluster.advanceTo(at(2));
    const creating = await call(`${PODS}/${pod}/log`);
    assert.equal(creating.status, 400);
    assert.equal(
      message(creating),
      `container "app" in pod "${pod}" is waiting to start: ContainerCreating`,
    );
    cluster.advanceTo(at(10));
    assert.equal(text(await call(`${PODS}/${pod}/log`)), `${pod}: started\n`);
    cluster.advanceTo(at(20));
    cluster.podLogLine(`default/${pod}`, "app", "line 2");
    cluster.advanceTo(at(30));
    cluster.podLogLine(`default/${pod}`, "app", "line 3");
    assert.equal(text(await call(`${PODS}/${pod}/log?tailLines=2`)), "line 2\nline 3\n");
    assert.equal(text(await call(`${PODS}/${pod}/log?sinceSeconds=5`)), "line 3\n");
    assert.equal(
      text(await call(`${PODS}/${pod}/log?tailLines=1&timestamps=true`)),
      "2026-01-01T12:00:30.000000000Z line 3\n",
    );
    assert.equal(text(await call(`${PODS}/${pod}/log?tailLines=1&limitBytes=4`)), "line");
  });

  it("the container parameter and bad numbers are refused as kube-apiserver refuses them", async () => {
    const { cluster, call } = setup();
    cluster.create(deployment({ replicas: 1 }));
    const pod = cluster.store.list("Pod")[0]!.metadata.name;
    const wrong = await call(`${PODS}/${pod}/log?container=db`);
    assert.equal(wrong.status, 400);
    assert.equal(message(wrong), `container db is not valid for pod ${pod}`);
    const tail = await call(`${PODS}/${pod}/log?tailLines=-1`);
    assert.equal(tail.status, 400);
    assert.match(message(tail), /tailLines: Invalid value: -1: must be greater than or equal to 0/);
    assert.equal((await call(`${PODS}/nope/log`)).status, 404);
    assert.equal((await call(`${PODS}/${pod}/log`, "PUT")).status, 405);
  });

  it("follow=true streams new lines and ends when the pod goes", async () => {
    const { cluster, call } = setup();
    cluster.create(deployment({ replicas: 1 }));
    cluster.advanceTo(at(10));
    const pod = cluster.store.list("Pod")[0]!.metadata.name;
    const res = await call(`${PODS}/${pod}/log?follow=true`);
    assert.ok("stream" in res, "a stream");
    const chunks: string[] = [];
    const done = (async () => {
      for await (const chunk of res.stream) chunks.push(String(chunk));
    })();
    cluster.podLogLine(`default/${pod}`, "app", "GET / 200");
    const current = cluster.store.get("Deployment", "default", "web")!;
    cluster.update({
      ...current,
      metadata: { ...current.metadata, resourceVersion: undefined },
      spec: { ...(current.spec as object), replicas: 0 },
    });
    cluster.advanceTo(at(120));
    await done;
    assert.deepEqual(chunks, [`${pod}: started\n`, "GET / 200\n"]);
  });
});

describe("PodLogBook", () => {
  it("keeps the last lines of each container; forgetting a pod ends its followers", () => {
    const book = new PodLogBook();
    for (let i = 0; i < 1005; i++) book.append("ns/p", "a", i, `l${i}`);
    book.append("ns/p", "b", 0, "other");
    const a = book.lines("ns/p", "a");
    assert.deepEqual([a.length, a[0]?.text, a.at(-1)?.text], [1000, "l5", "l1004"]);
    const seen: (string | null)[] = [];
    book.follow("ns/p", "b", (line) => seen.push(line ? line.text : null));
    book.append("ns/p", "b", 1, "next");
    book.forget("ns/p");
    assert.deepEqual(seen, ["next", null]);
    assert.deepEqual(book.lines("ns/p", "a"), []);
  });
});
