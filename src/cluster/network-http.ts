// The pod network of `horizon up` on real sockets: each running pod listens on its IP at its
// containers' declared ports and answers as its app model (app.ts), and each ClusterIP port is
// a TCP proxy that sends every new connection to the next Ready backend (round robin, as
// kube-proxy's userspace mode). A listen that fails (the address is in use) is reported, not
// thrown: the container fails to start, as in the kubelet (an Event, CrashLoopBackOff).
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
} from "node:http";
import { connect, createServer as createTcpServer, type Server, type Socket } from "node:net";
import { PodApp } from "./app.js";
import type { Backend, ServiceRouting } from "./controllers/endpoints.js";
import type { NetworkPod, PodNetwork } from "./network.js";

export interface HttpPodNetworkOptions {
  /** A container of a pod could not serve its port (the message says why). */
  onPodError(podKey: string, container: string, message: string): void;
  /** A Service port could not be proxied. */
  onServiceError?(serviceKey: string, message: string): void;
  /** Requests a pod answered with 2xx, as they happen (the usage model follows them). */
  onServed?(podKey: string): void;
  /** A container's access log line (the app model's, for each request it answered). */
  onAccess?(podKey: string, container: string, line: string): void;
}

interface RunningPod {
  app: PodApp;
  servers: HttpServer[];
}

interface Proxy {
  server: Server;
  backends: Backend[];
  next: number;
  sockets: Set<Socket>;
}

export class HttpPodNetwork implements PodNetwork {
  readonly #options: HttpPodNetworkOptions;
  readonly #pods = new Map<string, RunningPod>();
  readonly #proxies = new Map<string, Proxy>();
  readonly #proxyKeys = new Map<string, string[]>();
  #closed = false;

  constructor(options: HttpPodNetworkOptions) {
    this.#options = options;
  }

  /** The app of a running pod (tests and the benchmark read its counters). */
  app(podKey: string): PodApp | undefined {
    return this.#pods.get(podKey)?.app;
  }

  podStarted(pod: NetworkPod): void {
    if (this.#closed || this.#pods.has(pod.key)) return;
    const onAccess = this.#options.onAccess;
    // A request's container is the one that declared the port it came in on.
    const containers = new Map(pod.ports.map((p) => [p.port, p.container]));
    const app = new PodApp({
      podName: pod.name,
      capacityRps: pod.capacityRps,
      onServed: () => this.#options.onServed?.(pod.key),
      ...(onAccess
        ? {
            onAccess: (line: string, request: IncomingMessage) =>
              onAccess(pod.key, containers.get(request.socket.localPort ?? 0) ?? "", line),
          }
        : {}),
    });
    const running: RunningPod = { app, servers: [] };
    this.#pods.set(pod.key, running);
    for (const port of pod.ports) {
      const server = createHttpServer((request, response) => app.handle(request, response));
      server.keepAliveTimeout = 5000;
      server.on("error", (error: NodeJS.ErrnoException) => {
        const why =
          error.code === "EADDRINUSE"
            ? "bind: address already in use"
            : error.code === "EACCES"
              ? "bind: permission denied"
              : error.message;
        this.#options.onPodError(
          pod.key,
          port.container,
          `listen tcp ${pod.ip}:${port.port}: ${why}`,
        );
      });
      server.listen(port.port, pod.ip);
      running.servers.push(server);
    }
  }

  podStopped(key: string): void {
    const running = this.#pods.get(key);
    if (!running) return;
    this.#pods.delete(key);
    running.app.stop();
    for (const server of running.servers) closeServer(server);
  }

  serviceRouting(key: string, routing: ServiceRouting | null): void {
    if (this.#closed) return;
    const wanted = new Map<string, Backend[]>();
    for (const port of routing?.ports ?? []) {
      if (port.protocol !== "TCP") continue;
      wanted.set(`${routing!.clusterIP}:${port.port}`, port.backends);
    }
    for (const address of this.#proxyKeys.get(key) ?? []) {
      if (wanted.has(address)) continue;
      const proxy = this.#proxies.get(address);
      if (proxy) {
        this.#proxies.delete(address);
        closeServer(proxy.server);
        for (const socket of proxy.sockets) socket.destroy();
      }
    }
    this.#proxyKeys.set(key, [...wanted.keys()]);
    if (wanted.size === 0) this.#proxyKeys.delete(key);
    for (const [address, backends] of wanted) {
      const proxy = this.#proxies.get(address);
      if (proxy) {
        proxy.backends = backends;
        continue;
      }
      this.#proxies.set(address, this.#openProxy(key, address, backends));
    }
  }

  #openProxy(key: string, address: string, backends: Backend[]): Proxy {
    const colon = address.lastIndexOf(":");
    const ip = address.slice(0, colon);
    const port = Number(address.slice(colon + 1));
    const proxy: Proxy = { server: createTcpServer(), backends, next: 0, sockets: new Set() };
    proxy.server.on("connection", (client) => {
      const backend = proxy.backends[proxy.next++ % Math.max(1, proxy.backends.length)];
      if (!backend) {
        // No Ready endpoint: refuse, as kube-proxy's REJECT rule does.
        client.resetAndDestroy();
        return;
      }
      const upstream = connect({ host: backend.ip, port: backend.port, noDelay: true });
      client.setNoDelay(true);
      proxy.sockets.add(client);
      const done = () => {
        proxy.sockets.delete(client);
        client.destroy();
        upstream.destroy();
      };
      client.on("error", done).on("close", done);
      upstream.on("error", () => client.resetAndDestroy()).on("close", done);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    proxy.server.on("error", (error: NodeJS.ErrnoException) => {
      this.#options.onServiceError?.(
        key,
        `cannot proxy ${address}: ${error.code === "EADDRINUSE" ? "address already in use" : error.message}`,
      );
    });
    proxy.server.listen(port, ip);
    return proxy;
  }

  /** Closes every listener and proxy. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing: Promise<void>[] = [];
    for (const key of [...this.#pods.keys()]) {
      const running = this.#pods.get(key)!;
      running.app.stop();
      for (const server of running.servers) closing.push(closeServer(server));
    }
    this.#pods.clear();
    for (const proxy of this.#proxies.values()) {
      for (const socket of proxy.sockets) socket.destroy();
      closing.push(closeServer(proxy.server));
    }
    this.#proxies.clear();
    this.#proxyKeys.clear();
    await Promise.all(closing);
  }
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    if ("closeAllConnections" in server) server.closeAllConnections();
  });
}
