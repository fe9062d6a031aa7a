// `--shared-reads-max-age` > 0: the scales of the kinds Horizon knows (apps/v1 Deployments,
// StatefulSets, ReplicaSets; v1 ReplicationControllers) are read from watches of those kinds,
// derived as their scale subresource is (src/api/scale.ts), instead of a GET of /scale per sync.
// Anything else — another kind or group, an object the watch has not seen, a watch not yet
// synced — and every update go to the scale subresource as upstream's controller does, so
// errors keep upstream's texts.
import { scaleOf, type WorkloadScale } from "../api/scale.js";
import type { CrossVersionObjectReference, KubeObject } from "../api/types.js";
import type { PortResult, ScaleTargetPort, ScaleView } from "../controller/ports.js";
import { Informer, type InformerOptions, type RawObject } from "./informer.js";
import { parseGroupVersion } from "./rest-mapper.js";
import type { KubeClient } from "./types.js";

/** group/kind → the collection watched. */
const WATCHED: Record<string, string> = {
  "apps/Deployment": "/apis/apps/v1/deployments",
  "apps/StatefulSet": "/apis/apps/v1/statefulsets",
  "apps/ReplicaSet": "/apis/apps/v1/replicasets",
  "/ReplicationController": "/api/v1/replicationcontrollers",
};

export interface InformerScaleOptions
  extends Omit<InformerOptions<WorkloadScale>, "client" | "path" | "transform" | "equals"> {
  client: KubeClient;
  /** The scale subresource client: updates, and reads the watches cannot answer. */
  subresource: ScaleTargetPort;
}

export class InformerScaleTargetPort implements ScaleTargetPort {
  readonly informers = new Map<string, Informer<WorkloadScale>>();
  readonly #subresource: ScaleTargetPort;
  /** Reads answered from a watch, and from the subresource (for tests and metrics). */
  readonly reads = { watched: 0, subresource: 0 };

  constructor(options: InformerScaleOptions) {
    const { subresource, ...informerOptions } = options;
    this.#subresource = subresource;
    for (const [key, path] of Object.entries(WATCHED)) {
      this.informers.set(
        key,
        new Informer<WorkloadScale>({
          name: key.replace(/^\//, ""),
          ...informerOptions,
          path,
          transform: (object: RawObject) =>
            scaleOf({
              ...(object as unknown as KubeObject),
              kind: key.slice(key.indexOf("/") + 1),
            }),
          equals: (a, b) =>
            a.specReplicas === b.specReplicas &&
            a.statusReplicas === b.statusReplicas &&
            a.selector === b.selector &&
            a.resourceVersion === b.resourceVersion,
        }),
      );
    }
  }

  start(): void {
    for (const informer of this.informers.values()) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const synced = await Promise.all(
      [...this.informers.values()].map((i) => i.waitForSync(signal)),
    );
    return synced.every(Boolean);
  }

  getScale(
    namespace: string,
    ref: CrossVersionObjectReference,
  ): PortResult<ScaleView> | Promise<PortResult<ScaleView>> {
    const gv = parseGroupVersion(ref.apiVersion);
    const informer = gv.ok ? this.informers.get(`${gv.group}/${ref.kind}`) : undefined;
    const scale = informer?.hasSynced() ? informer.get(`${namespace}/${ref.name}`) : undefined;
    if (!scale) {
      this.reads.subresource++;
      return this.#subresource.getScale(namespace, ref);
    }
    this.reads.watched++;
    // The Scale's status.selector is left out when empty; "<none>" is what the server writes.
    const view: ScaleView = {
      specReplicas: scale.specReplicas,
      statusReplicas: scale.statusReplicas,
    };
    if (scale.selector !== "" && scale.selector !== "<none>") view.selector = scale.selector;
    if (scale.resourceVersion !== undefined) view.resourceVersion = scale.resourceVersion;
    return { ok: true, value: view };
  }

  updateScale(
    namespace: string,
    ref: CrossVersionObjectReference,
    replicas: number,
  ): ReturnType<ScaleTargetPort["updateScale"]> {
    return this.#subresource.updateScale(namespace, ref, replicas);
  }
}
