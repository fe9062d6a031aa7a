// End-to-end: the pod network of `horizon up` (listeners on): pod IPs and ClusterIPs from
// their loopback ranges, Endpoints and EndpointSlices read with real kubectl as pods become
// ready and terminate, real HTTP to a pod and through its Service's ClusterIP, `/metrics` in
// Prometheus text, and a pod port already in use: the container fails to start as with the
// kubelet (CrashLoopBackOff, an Event, not Ready) until the port is free.
import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { createServer, type Server } from "node:net";
import { after, before, describe, it } from "node:test";
import type { KubeObject } from "../../src/api/types.js";
import {
  findKubectls,
  type KubectlContext,
  kubectl,
  kubectlRequired,
  pollUntil,
  startTestServer,
  type TestServer,
} from "./helpers.js";
import { get, testRanges } from "./network-helpers.js";

function app(name: string, replicas: number, port: number): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: "app",
              image: "luxas/autoscale-demo:v0.1.2",
              ports: [{ name: "http", containerPort: port }],
            },
          ],
        },
      },
    },
  };
}

function service(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", labels: { app: name } },
    spec: { selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  };
}

const search = findKubectls([]);

describe("the pod network of horizon up", () => {
  if (search.binaries.length === 0) {
    if (kubectlRequired())
      it("kubectl is required under CI=true", () => assert.fail(search.missing.join("; ")));
    else it("skipped: no kubectl on PATH", { skip: search.missing.join("; ") }, () => {});
    return;
  }
  let server: TestServer;
  let ctx: KubectlContext;
  const ranges = testRanges();
  const podPrefix = ranges.podCidr.slice(0, ranges.podCidr.lastIndexOf(".") + 1);
  const servicePrefix = ranges.serviceCidr.slice(0, ranges.serviceCidr.lastIndexOf(".") + 1);
  let blocker: Server | null = null;

  before(async () => {
    server = await startTestServer({ listeners: true, ...ranges, endpointIntervalMs: 200 });
    ctx = server.context(search.binaries[0]!);
  });
  after(async () => {
    blocker?.close();
    await server?.up.close();
  });

  const json = async (args: string[]) => {
    const result = await kubectl(ctx, [...args, "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  it("gives the Service a ClusterIP in --service-cidr and each pod an IP in --pod-cidr", async () => {
    const apply = await kubectl(ctx, ["apply", "-f", "-"], {
      stdin: JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [app("web", 2, 8080), service("web")],
      }),
    });
    assert.equal(apply.code, 0, apply.stderr);
    const svc = await json(["get", "service", "web"]);
    // The first address is the kubernetes Service's.
    assert.equal(svc.spec.clusterIP, `${servicePrefix}2`);
    assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP]);
    const ips = await pollUntil("two pods with IPs", async () => {
      const pods = await json(["get", "pods", "-l", "app=web"]);
      const got = pods.items.map((p: { status: { podIP?: string } }) => p.status.podIP);
      return got.length === 2 && got.every(Boolean) ? got.sort() : undefined;
    });
    assert.deepEqual(ips, [`${podPrefix}1`, `${podPrefix}2`]);
  });

  it("lists the Ready pods in Endpoints and the EndpointSlice (kubectl get)", async () => {
    const endpoints = await pollUntil("two ready addresses", async () => {
      const ep = await json(["get", "endpoints", "web"]);
      return ep.subsets?.[0]?.addresses?.length === 2 ? ep : undefined;
    });
    assert.deepEqual(endpoints.subsets[0].ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    assert.equal(endpoints.subsets[0].addresses[0].targetRef.kind, "Pod");
    const slices = await json(["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]);
    assert.equal(slices.items.length, 1);
    const slice = slices.items[0];
    assert.equal(slice.addressType, "IPv4");
    assert.equal(slice.metadata.ownerReferences[0].kind, "Service");
    assert.deepEqual(slice.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    assert.deepEqual(
      slice.endpoints.map((e: { conditions: unknown }) => e.conditions),
      [
        { ready: true, serving: true, terminating: false },
        { ready: true, serving: true, terminating: false },
      ],
    );
    const table = await kubectl(ctx, ["get", "endpoints", "web"]);
    assert.match(table.stdout, new RegExp(`${podPrefix.replaceAll(".", "\\.")}1:8080,`));
  });

  it("serves / and /metrics on each pod and through the ClusterIP", async () => {
    const svc = await json(["get", "service", "web"]);
    const names = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const answer = await get(svc.spec.clusterIP, 80);
      assert.equal(answer.status, 200);
      names.add(answer.body);
    }
    // Round robin over both Ready endpoints.
    assert.equal(names.size, 2, [...names].join(" | "));
    const direct = await get(`${podPrefix}1`, 8080, "/metrics");
    assert.equal(direct.status, 200);
    const count = /http_requests_total\{method="get",code="200"\} (\d+)/.exec(direct.body);
    assert.ok(count, direct.body);
    assert.equal(Number(count[1]), 3);
    const missing = await get(`${podPrefix}1`, 8080, "/nothing");
    assert.equal(missing.status, 404);
    // Each answer is an access line in the container's log (kubectl logs); scrapes are not.
    const pods = (await json(["get", "pods", "-l", "app=web"])).items as {
      metadata: { name: string };
      status: { podIP: string };
    }[];
    const first = pods.find((p) => p.status.podIP === `${podPrefix}1`)!;
    const logs = await kubectl(ctx, ["logs", first.metadata.name]);
    assert.equal(logs.code, 0, logs.stderr);
    const access = logs.stdout.split("\n").filter((l) => l.includes('" 2') || l.includes('" 4'));
    assert.equal(access.length, 4, logs.stdout);
    assert.match(
      access[0]!,
      /^127\.0\.0\.1 - - \[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET \/ HTTP\/1\.1" 200 \d+$/,
    );
    assert.match(access[3]!, /"GET \/nothing HTTP\/1\.1" 404 19$/);
  });

  it("drops a terminating pod from Endpoints at once and from the slice once gone", async () => {
    const pods = await json(["get", "pods", "-l", "app=web"]);
    const victim = pods.items[0].metadata.name;
    const victimIp = pods.items[0].status.podIP;
    const del = await kubectl(ctx, ["delete", "pod", victim, "--wait=false"]);
    assert.equal(del.code, 0, del.stderr);
    await pollUntil("the terminating pod out of Endpoints", async () => {
      const ep = await json(["get", "endpoints", "web"]);
      const ips = (ep.subsets ?? []).flatMap((s: { addresses?: { ip: string }[] }) =>
        (s.addresses ?? []).map((a) => a.ip),
      );
      return ips.includes(victimIp) ? undefined : true;
    });
    const svc = await json(["get", "service", "web"]);
    for (let i = 0; i < 4; i++) {
      const answer = await get(svc.spec.clusterIP, 80);
      assert.equal(answer.status, 200);
      assert.ok(!answer.body.includes(victim), "the proxy still sends to the terminating pod");
    }
  });

  it("a pod port already in use: the container fails to start (not Ready, out of Endpoints, an Event, the status says why), and recovers once it is free", async () => {
    // The next pod IP is the lowest free one: hold its port before the pod starts.
    const pods = await json(["get", "pods", "-l", "app=web"]);
    const used = new Set(pods.items.map((p: { status: { podIP?: string } }) => p.status.podIP));
    let next = 1;
    while (used.has(`${podPrefix}${next}`)) next++;
    const ip = `${podPrefix}${next}`;
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(9090, ip, resolve));
    const apply = await kubectl(ctx, ["apply", "-f", "-"], {
      stdin: JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [app("busy", 1, 9090), service("busy")],
      }),
    });
    assert.equal(apply.code, 0, apply.stderr);
    const event = await pollUntil(
      "the Failed event",
      async () => {
        const events = await json(["get", "events", "--field-selector", "reason=Failed"]);
        return events.items.find((e: { message: string }) => e.message.includes(`${ip}:9090`));
      },
      { timeoutMs: 15_000 },
    );
    assert.equal(event.type, "Warning");
    assert.equal(event.involvedObject.kind, "Pod");
    assert.match(event.message, /listen tcp .*:9090: bind: address already in use/);
    const pod = await pollUntil("the pod in CrashLoopBackOff", async () => {
      const list = await json(["get", "pods", "-l", "app=busy"]);
      const got = list.items[0];
      return got?.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff"
        ? got
        : undefined;
    });
    assert.equal(pod.status.podIP, ip);
    const ready = pod.status.conditions.find((c: { type: string }) => c.type === "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.message, "containers with unready status: [app]");
    assert.equal(
      pod.status.containerStatuses[0].lastState.terminated.message,
      `listen tcp ${ip}:9090: bind: address already in use`,
    );
    const endpoints = await json(["get", "endpoints", "busy"]);
    assert.equal(endpoints.subsets?.[0]?.addresses, undefined);
    assert.deepEqual(
      endpoints.subsets[0].notReadyAddresses.map((a: { ip: string }) => a.ip),
      [ip],
    );
    const table = await kubectl(ctx, ["get", "pods", "-l", "app=busy"]);
    assert.match(table.stdout, /busy-\S+\s+0\/1\s+CrashLoopBackOff\s/);
    // The server keeps running.
    const version = await kubectl(ctx, ["get", "--raw", "/version"]);
    assert.equal(version.code, 0);

    // Freed: the kubelet's restart after its 10 s back-off binds, and the pod serves.
    await new Promise<void>((resolve) => blocker!.close(() => resolve()));
    blocker = null;
    const recovered = await pollUntil(
      "the pod Ready in Endpoints after its restart",
      async () => {
        const ep = await json(["get", "endpoints", "busy"]);
        return ep.subsets?.[0]?.addresses?.[0]?.ip === ip ? ep : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    assert.equal(recovered.subsets[0].notReadyAddresses, undefined);
    const restarted = (await json(["get", "pods", "-l", "app=busy"])).items[0];
    assert.equal(restarted.status.containerStatuses[0].restartCount, 1);
    assert.equal((await get(ip, 9090)).status, 200);
  });

  it("the kubernetes Service: the first ClusterIP, https 443 → the API server (Endpoints, slice, proxy)", async () => {
    const wide = await pollUntil("the kubernetes Service", async () => {
      const result = await kubectl(ctx, ["get", "svc", "kubernetes", "-o", "wide"]);
      return result.code === 0 ? result.stdout : undefined;
    });
    const row = wide.trim().split("\n")[1]!.split(/\s+/);
    // NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR
    assert.deepEqual(
      [row[0], row[1], row[2], row[3], row[4], row[6]],
      ["kubernetes", "ClusterIP", `${servicePrefix}1`, "<none>", "443/TCP", "<none>"],
    );
    const svc = await json(["get", "svc", "kubernetes"]);
    assert.deepEqual(svc.metadata.labels, { component: "apiserver", provider: "kubernetes" });
    assert.equal(svc.spec.ports[0].targetPort, server.up.port);
    const endpoints = await json(["get", "endpoints", "kubernetes"]);
    assert.deepEqual(endpoints.subsets, [
      {
        addresses: [{ ip: "127.0.0.1" }],
        ports: [{ name: "https", port: server.up.port, protocol: "TCP" }],
      },
    ]);
    const slice = await json(["get", "endpointslice", "kubernetes"]);
    assert.deepEqual(slice.metadata.labels, { "kubernetes.io/service-name": "kubernetes" });
    // curl --cacert ca.crt https://<first ClusterIP>/version: proxied to the API server, and
    // its certificate names that address.
    const version = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: `${servicePrefix}1`,
          port: 443,
          path: "/version",
          ca: server.up.caCert ?? undefined,
          headers: { authorization: `Bearer ${server.up.token}` },
          agent: false,
          timeout: 5000,
        },
        (res) => {
          let body = "";
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.end();
    });
    assert.equal(version.status, 200, version.body);
    // The default Kubernetes version (src/api/versions.ts).
    assert.equal(JSON.parse(version.body).gitVersion, "v1.37.0");
  });
});
