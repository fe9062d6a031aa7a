// A KubeClient bound to the in-process API handler (no sockets): lets adapter tests in
// test/kube run against the real handler core and embedded cluster. The HTTP client
// (src/kube/client.ts) is tested against real sockets in its own tests.
import { createApiHandler } from "../../src/apiserver/handler.js";
import { EmbeddedCluster } from "../../src/cluster/cluster.js";
import type {
  KubeClient,
  KubeRequest,
  KubeResponse,
  KubeWatchRequest,
  WatchEvent,
} from "../../src/kube/types.js";
import { clusterModelOf } from "../../src/sim/cluster.js";
import { emptyScenario } from "../../src/up/up.js";

function queryOf(query: KubeRequest["query"]): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  return params;
}

export interface Harness {
  cluster: EmbeddedCluster;
  client: KubeClient;
  /** Every request the client made, as `METHOD path`. */
  calls: string[];
}

/** An empty embedded cluster (or the one given) behind the handler, and a client over it. */
export function inProcessClient(cluster?: EmbeddedCluster): Harness {
  const theCluster =
    cluster ?? new EmbeddedCluster({ model: clusterModelOf(emptyScenario().spec), startTime: 0 });
  const handler = createApiHandler({ cluster: theCluster });
  const calls: string[] = [];
  const client: KubeClient = {
    async request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
      calls.push(`${req.method} ${req.path}`);
      const body =
        req.body === undefined
          ? undefined
          : Buffer.from(typeof req.body === "string" ? req.body : JSON.stringify(req.body));
      const response = await handler({
        method: req.method,
        path: req.path,
        query: queryOf(req.query),
        headers: {
          accept: "application/json",
          "content-type": req.contentType ?? "application/json",
        },
        ...(body ? { body } : {}),
      });
      const headers = { ...(response.headers ?? {}) };
      if ("stream" in response) {
        response.close();
        throw new Error(`${req.path}: a watch answered a plain request`);
      }
      if ("raw" in response) {
        const text = response.raw.toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {}
        return { status: response.status, body: parsed as T, headers };
      }
      // Round-trip through JSON, as a socket would.
      return {
        status: response.status,
        body: JSON.parse(JSON.stringify(response.body)) as T,
        headers,
      };
    },
    async watch(req: KubeWatchRequest, onEvent: (event: WatchEvent) => void): Promise<void> {
      calls.push(`WATCH ${req.path}`);
      const query = queryOf(req.query);
      query.set("watch", "true");
      const response = await handler({
        method: "GET",
        path: req.path,
        query,
        headers: { accept: "application/json" },
      });
      if (!("stream" in response)) {
        const error = new Error(`watch ${req.path}: the server answered ${response.status}`);
        (error as Error & { status: number }).status = response.status;
        throw error;
      }
      const abort = () => response.close();
      // Aborted while the watch was being set up: end it at once.
      if (req.signal?.aborted) abort();
      req.signal?.addEventListener("abort", abort, { once: true });
      try {
        for await (const line of response.stream) {
          for (const part of String(line).split("\n")) {
            if (part.trim() !== "") onEvent(JSON.parse(part) as WatchEvent);
          }
        }
      } finally {
        req.signal?.removeEventListener("abort", abort);
      }
    },
  };
  return { cluster: theCluster, client, calls };
}
