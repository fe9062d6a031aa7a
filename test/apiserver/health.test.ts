// /healthz, /livez and /readyz (src/apiserver/health.ts): the built-in checks, and the readiness
// checks that parts started beside the server add (a failed one makes /readyz 500 and is listed
// as `[-]name failed: why`, as k8s.io/apiserver's healthz handler lists it).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { handleHealth, ReadinessChecks } from "../../src/apiserver/health.js";
import type { ApiRequest } from "../../src/apiserver/types.js";

const get = (path: string, query = "") =>
  ({ method: "GET", path, query: new URLSearchParams(query) }) as unknown as ApiRequest;

function checks(prometheus: string | null): ReadinessChecks {
  const readiness = new ReadinessChecks();
  readiness.add("prometheus", () => prometheus);
  return readiness;
}

const cases = [
  {
    name: "readyz with every check passing",
    path: "/readyz",
    query: "",
    prometheus: null,
    status: 200,
    body: "ok",
  },
  {
    name: "readyz?verbose lists the added check after the built-in ones",
    path: "/readyz",
    query: "verbose",
    prometheus: null,
    status: 200,
    body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]prometheus ok\nreadyz check passed\n",
  },
  {
    name: "a failed check: 500 and the list, verbose or not",
    path: "/readyz",
    query: "",
    prometheus: "prometheus killed by SIGKILL; restarting",
    status: 500,
    body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]prometheus failed: prometheus killed by SIGKILL; restarting\nreadyz check failed\n",
  },
  {
    name: "the failed check alone",
    path: "/readyz/prometheus",
    query: "",
    prometheus: "down",
    status: 500,
    body: "internal server error: prometheus: down\n",
  },
  {
    name: "another check alone still passes",
    path: "/readyz/ping",
    query: "",
    prometheus: "down",
    status: 200,
    body: "ok",
  },
  {
    name: "liveness does not depend on a readiness check",
    path: "/livez",
    query: "verbose",
    prometheus: "down",
    status: 200,
    body: "[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n",
  },
];

describe("health endpoints with readiness checks", () => {
  for (const { name, path, query, prometheus, status, body } of cases) {
    it(name, () => {
      const answer = handleHealth(get(path, query), checks(prometheus));
      assert.ok(answer);
      assert.equal(answer.status, status);
      assert.equal("raw" in answer ? answer.raw : undefined, body);
    });
  }

  it("an added check is not a path of livez", () => {
    assert.equal(handleHealth(get("/livez/prometheus"), checks(null)), null);
  });
});
