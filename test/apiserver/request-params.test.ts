// Request paths and list/watch query parameters as kube-apiserver checks them: names are
// percent-decoded and then must be one path segment; limit, timeoutSeconds, resourceVersion,
// resourceVersionMatch and field selectors that do not parse are refused; Exact lists and
// lists or watches from a resourceVersion not reached yet behave as the watch cache's.
import assert from "node:assert/strict";
import http from "node:http";
import { describe, it } from "node:test";
import { createApiHandler } from "../../src/apiserver/handler.js";
import { serveHttp } from "../../src/apiserver/http.js";
import type { ApiRequest, ApiResponse } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

const CONFIG = "/api/v1/namespaces/default/services";

function setup(resourceVersionWaitMs = 200) {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster, resourceVersionWaitMs });
  const call = (method: string, url: string, body?: unknown) => {
    // Split by hand: URL parsing would resolve `%2e` segments.
    const [path = "", search = ""] = url.split("?");
    const req: ApiRequest = {
      method,
      path,
      query: new URLSearchParams(search),
      headers: { "content-type": "application/json" },
    };
    if (body !== undefined) req.body = Buffer.from(JSON.stringify(body));
    return handler(req);
  };
  return { cluster, handler, call };
}

function json(res: ApiResponse): Json {
  assert.ok("body" in res, "expected a JSON body");
  return JSON.parse(JSON.stringify(res.body));
}

const service = (name: string) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { ports: [{ port: 80 }] },
});

/** GET over a real socket, the path sent as written (no client-side normalization). */
function rawGet(port: number, path: string): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path }, (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on("error", reject);
  });
}

describe("names in the path", () => {
  it("%2e%2e over HTTP is the name '..' (400), not the parent path", async () => {
    const { handler } = setup();
    const server = await serveHttp(handler, { port: 0 });
    try {
      for (const path of [`${CONFIG}/%2e%2e`, `${CONFIG}/%2E%2E`, `${CONFIG}/..`]) {
        const res = await rawGet(server.port, path);
        assert.equal(res.status, 400, path);
        assert.equal(res.body.reason, "BadRequest");
        assert.equal(res.body.message, `Name parameter invalid: "..": may not be '..'`);
      }
    } finally {
      await server.close();
    }
  });

  const cases = [
    {
      name: "a dot",
      path: `${CONFIG}/%2e`,
      message: `Name parameter invalid: ".": may not be '.'`,
    },
    {
      name: "an encoded slash",
      path: `${CONFIG}/a%2Fb`,
      message: `Name parameter invalid: "a/b": may not contain '/'`,
    },
    {
      name: "an encoded percent",
      path: `${CONFIG}/a%25b`,
      message: `Name parameter invalid: "a%b": may not contain '%'`,
    },
    {
      name: "both",
      path: `${CONFIG}/a%2F%25`,
      message: `Name parameter invalid: "a/%": may not contain '/';may not contain '%'`,
    },
  ];
  for (const c of cases) {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      it(`${c.name}: ${method} is 400`, async () => {
        const { call } = setup();
        const res = json(await call(method, c.path, method === "GET" ? undefined : {}));
        assert.equal(res.code, 400);
        assert.equal(res.message, c.message);
      });
    }
  }
});

describe("list and watch query parameters", () => {
  const bad = [
    { query: "limit=abc", code: 400, message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
    {
      query: "limit=99999999999999999999",
      code: 400,
      message: 'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    },
    {
      query: "timeoutSeconds=abc",
      code: 400,
      message: 'strconv.ParseInt: parsing "abc": invalid syntax',
    },
    {
      query: "resourceVersion=abc",
      code: 400,
      message:
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    },
    {
      query: "resourceVersion=-1",
      code: 400,
      message:
        'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax',
    },
    {
      query: "resourceVersion=1&resourceVersionMatch=Bogus",
      code: 422,
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    },
    {
      query: "resourceVersionMatch=Exact",
      code: 422,
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    },
    {
      query: "resourceVersion=0&resourceVersionMatch=Exact",
      code: 422,
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    },
    {
      query: "fieldSelector=metadata.name===",
      code: 400,
      message: "invalid field selector: unescaped character in value: 61",
    },
    {
      query: "fieldSelector=metadata.name=a\\b",
      code: 400,
      message: "invalid field selector: invalid escape sequence: \\b",
    },
    {
      query: "fieldSelector=metadata.name",
      code: 400,
      message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    },
  ];
  for (const c of bad) {
    it(`list with ${c.query}: ${c.code}`, async () => {
      const { call } = setup();
      const res = json(await call("GET", `${CONFIG}?${new URLSearchParams(c.query)}`));
      assert.equal(res.code, c.code);
      assert.equal(res.message, c.message);
    });
  }
  for (const c of bad.filter((b) => !b.query.includes("resourceVersionMatch"))) {
    it(`watch with ${c.query}: ${c.code}`, async () => {
      const { call } = setup();
      const res = await call("GET", `${CONFIG}?watch=true&${new URLSearchParams(c.query)}`);
      assert.ok("body" in res, "an error, not a stream");
      assert.equal(json(res).message, c.message);
    });
  }

  it("an escaped comma or equals sign in a field selector value is part of the value", async () => {
    const { call } = setup();
    assert.equal((await call("POST", CONFIG, service("web"))).status, 201);
    const res = json(
      await call(
        "GET",
        `${CONFIG}?fieldSelector=${encodeURIComponent("metadata.name!=a\\,b\\=c")}`,
      ),
    );
    assert.deepEqual(
      res.items.map((i: Json) => i.metadata.name),
      ["web"],
    );
  });
});

describe("resourceVersion on a list", () => {
  it("Exact at the current version lists; an older one is 410 Expired", async () => {
    const { call } = setup();
    const first = json(await call("POST", CONFIG, service("a")));
    const current = json(await call("POST", CONFIG, service("b"))).metadata.resourceVersion;
    const now = json(
      await call("GET", `${CONFIG}?resourceVersion=${current}&resourceVersionMatch=Exact`),
    );
    assert.equal(now.metadata.resourceVersion, current);
    assert.equal(now.items.length, 2);
    const old = json(
      await call(
        "GET",
        `${CONFIG}?resourceVersion=${first.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      ),
    );
    assert.equal(old.code, 410);
    assert.equal(old.reason, "Expired");
    assert.equal(old.message, "The resourceVersion for the provided list is too old.");
    // Without Exact an older version is "not older than": the current list.
    const notOlder = json(
      await call("GET", `${CONFIG}?resourceVersion=${first.metadata.resourceVersion}`),
    );
    assert.equal(notOlder.metadata.resourceVersion, current);
  });

  it("a future version is waited for, then 504 Too large resource version", async () => {
    const { call, cluster } = setup(300);
    const current = Number(cluster.store.resourceVersion());
    const started = Date.now();
    const res = json(await call("GET", `${CONFIG}?resourceVersion=${current + 50}`));
    assert.ok(Date.now() - started >= 250, "answered without waiting");
    assert.equal(res.code, 504);
    assert.equal(res.reason, "Timeout");
    assert.equal(res.message, `Too large resource version: ${current + 50}, current: ${current}`);
    assert.deepEqual(res.details, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    });
  });

  it("a future version reached while waiting is listed", async () => {
    const { call, cluster } = setup(5_000);
    const next = Number(cluster.store.resourceVersion()) + 1;
    const pending = call("GET", `${CONFIG}?resourceVersion=${next}&resourceVersionMatch=Exact`);
    assert.equal((await call("POST", CONFIG, service("late"))).status, 201);
    const res = json(await pending);
    assert.equal(res.metadata.resourceVersion, String(next));
    assert.deepEqual(
      res.items.map((i: Json) => i.metadata.name),
      ["late"],
    );
  });
});

describe("watch from a future resourceVersion", () => {
  async function lines(res: ApiResponse, count: number): Promise<Json[]> {
    assert.ok("stream" in res);
    const out: Json[] = [];
    for await (const line of res.stream) {
      out.push(JSON.parse(String(line)));
      if (out.length === count) break;
    }
    return out;
  }

  it("waits: changes up to it are not sent, later ones are", async () => {
    const { call, cluster } = setup(5_000);
    const from = Number(cluster.store.resourceVersion()) + 2;
    const res = await call("GET", `${CONFIG}?watch=true&resourceVersion=${from}`);
    for (const name of ["one", "two", "three"]) {
      assert.equal((await call("POST", CONFIG, service(name))).status, 201);
    }
    const events = await lines(res, 1);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [["ADDED", "three"]],
    );
  });

  it("ends with a 504 ERROR event when the version does not come", async () => {
    const { call, cluster } = setup(200);
    const current = Number(cluster.store.resourceVersion());
    const res = await call("GET", `${CONFIG}?watch=true&resourceVersion=${current + 10}`);
    const events = await lines(res, 2);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, "ERROR");
    assert.equal(events[0].object.code, 504);
    assert.equal(
      events[0].object.message,
      `Too large resource version: ${current + 10}, current: ${current}`,
    );
  });
});
