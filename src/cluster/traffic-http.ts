// A scenario's traffic as real requests (`horizon up --scenario-traffic requests`, the default
// with --prometheus): each workload with traffic models gets an open-loop load generator
// (loadgen.ts) at the models' rate on the real clock, sending to the ClusterIP of the Service
// that selects its pods, as the book's load-generator loop does. So the pods' app counts the
// requests (`http_requests_total` on /metrics, access lines in their logs) and Prometheus sees
// them. The workload is marked `trafficSent`: its pods' answers are its demand in the usage
// model, and the models are not added a second time. A workload no Service reaches, or whose
// pods declare no port, keeps its traffic modelled (said once in the log).
import type { KubeObject } from "../api/types.js";
import type { EmbeddedCluster } from "./cluster.js";
import { serviceSelects } from "./load.js";
import { type LoadCounts, LoadGenerator, type LoadTarget } from "./loadgen.js";
import type { Workload } from "./model.js";
import { trafficAt } from "./traffic.js";

/** Most requests in flight per workload (as `horizon load`'s default). */
export const SCENARIO_TRAFFIC_CONCURRENCY = 100;

export interface ScenarioTrafficOptions {
  cluster: EmbeddedCluster;
  /** Lines about where each workload's traffic goes. */
  log?: (line: string) => void;
  /** How often Services and workloads are looked at again (default 1 s). */
  refreshMs?: number;
  /** Epoch ms (default Date.now): the models' time is this minus the cluster's start. */
  clock?: () => number;
}

/** Where a workload's requests go: a Service's ClusterIP and port. */
export interface TrafficTarget {
  service: string;
  host: string;
  port: number;
}

interface Sender {
  workload: Workload;
  generator: LoadGenerator;
  target: TrafficTarget;
}

/**
 * The Service a workload's requests go to: the first (by name) in its namespace whose selector
 * selects its pod template's labels and that has a ClusterIP and a TCP port (the one named
 * `http`, else the first, as `horizon load` picks). Null: none.
 */
export function trafficTarget(
  workload: Pick<Workload, "namespace" | "obj">,
  services: readonly KubeObject[],
): TrafficTarget | null {
  const template = (workload.obj.spec as { template?: { metadata?: { labels?: object } } })
    ?.template;
  const labels = (template?.metadata?.labels ?? {}) as Record<string, string>;
  const sorted = [...services].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const service of sorted) {
    if ((service.metadata.namespace ?? "default") !== workload.namespace) continue;
    const spec = (service.spec ?? {}) as {
      selector?: Record<string, string>;
      clusterIP?: string;
      ports?: { name?: string; port?: number; protocol?: string }[];
    };
    if (!serviceSelects(spec.selector, labels)) continue;
    if (!spec.clusterIP || spec.clusterIP === "None") continue;
    const ports = (spec.ports ?? []).filter(
      (p) => (p.protocol ?? "TCP") === "TCP" && typeof p.port === "number",
    );
    const port = ports.find((p) => p.name === "http") ?? ports[0];
    if (!port) continue;
    return { service: service.metadata.name, host: spec.clusterIP, port: port.port! };
  }
  return null;
}

/**
 * Whether the workload's pods declare a TCP container port: pods without one listen on nothing,
 * so their traffic stays modelled rather than vanish in refused connections.
 */
export function podsListen(workload: Pick<Workload, "obj">): boolean {
  const template = (
    workload.obj.spec as {
      template?: {
        spec?: { containers?: { ports?: { containerPort?: number; protocol?: string }[] }[] };
      };
    }
  )?.template;
  return (template?.spec?.containers ?? []).some((c) =>
    (c.ports ?? []).some(
      (p) => typeof p.containerPort === "number" && (p.protocol ?? "TCP") === "TCP",
    ),
  );
}

export class ScenarioTraffic {
  readonly #cluster: EmbeddedCluster;
  readonly #log: (line: string) => void;
  readonly #refreshMs: number;
  readonly #clock: () => number;
  readonly #senders = new Map<Workload, Sender>();
  /** What the log last said of each workload (so each change is said once). */
  readonly #said = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: ScenarioTrafficOptions) {
    this.#cluster = options.cluster;
    this.#log = options.log ?? (() => {});
    this.#refreshMs = options.refreshMs ?? 1000;
    this.#clock = options.clock ?? Date.now;
  }

  start(): void {
    if (this.#timer || this.#stopped) return;
    this.refresh();
    this.#timer = setInterval(() => this.refresh(), this.#refreshMs);
  }

  /** The counts of the requests sent for a workload (`namespace/Kind/name`), or null. */
  counts(key: string): LoadCounts | null {
    for (const sender of this.#senders.values()) {
      if (sender.workload.key === key) return sender.generator.counts;
    }
    return null;
  }

  /** Starts, moves or stops each workload's requests as its traffic and Services are now. */
  refresh(): void {
    if (this.#stopped) return;
    const services = this.#cluster.store.list("Service");
    const seen = new Set<Workload>();
    for (const workload of this.#cluster.workloads()) {
      if (workload.removed || workload.traffic.length === 0) continue;
      seen.add(workload);
      const listens = podsListen(workload);
      const target = listens ? trafficTarget(workload, services) : null;
      const sender = this.#senders.get(workload);
      if (!target) {
        if (sender) this.#end(sender);
        this.#say(
          workload,
          listens
            ? "modelled: no Service with a ClusterIP and a TCP port selects its pods"
            : "modelled: its pods declare no TCP containerPort to send requests to",
        );
        continue;
      }
      const load: LoadTarget = { host: target.host, port: target.port, path: "/" };
      if (!sender) {
        const generator = new LoadGenerator({
          target: load,
          rps: () => trafficAt(workload.traffic, this.#clock() - this.#cluster.startTime),
          concurrency: SCENARIO_TRAFFIC_CONCURRENCY,
          timeoutMs: 5000,
          keepLatencies: false,
        });
        this.#senders.set(workload, { workload, generator, target });
        workload.trafficSent = true;
        generator.start();
      } else if (sender.target.host !== target.host || sender.target.port !== target.port) {
        sender.generator.retarget(load);
        sender.target = target;
      }
      const url = `http://${target.host}${target.port === 80 ? "" : `:${target.port}`}/`;
      this.#say(workload, `sent as HTTP requests to service/${target.service} at ${url}`);
    }
    for (const sender of [...this.#senders.values()]) {
      if (seen.has(sender.workload)) continue;
      // No traffic any more (a scenario event), or the workload is gone.
      this.#end(sender);
      this.#said.delete(sender.workload.key);
    }
  }

  #say(workload: Workload, what: string): void {
    if (this.#said.get(workload.key) === what) return;
    this.#said.set(workload.key, what);
    const kind = workload.kind.toLowerCase();
    this.#log(
      `scenario traffic of ${kind}/${workload.name} (namespace ${workload.namespace}): ${what}`,
    );
  }

  #end(sender: Sender): void {
    this.#senders.delete(sender.workload);
    sender.workload.trafficSent = false;
    void sender.generator.stop();
  }

  /** Stops sending; waits for the requests in flight (each ends by its 5 s timeout at the latest). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    const stopping = [...this.#senders.values()].map((sender) => {
      sender.workload.trafficSent = false;
      return sender.generator.stop();
    });
    this.#senders.clear();
    await Promise.all(stopping);
  }
}
