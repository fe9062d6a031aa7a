// An embedded cluster (the default test scenario) behind the API handler, and `call`: one JSON
// request through it, answered with its status and parsed body.
import { createApiHandler } from "../../src/apiserver/handler.js";
import type { ApiRequest } from "../../src/apiserver/types.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { scenario, T0 } from "../cluster/builders.js";

type Json = ReturnType<typeof JSON.parse>;

export function handlerOverCluster() {
  const cluster = new EmbeddedCluster({ model: clusterModelOf(scenario()), startTime: T0 });
  const handler = createApiHandler({ cluster });
  const call = async (method: string, path: string, body?: unknown) => {
    const req: ApiRequest = {
      method,
      path,
      query: new URLSearchParams(),
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    };
    const res = await handler(req);
    return { status: res.status, body: ("body" in res ? res.body : {}) as Json };
  };
  return { cluster, call };
}
