// The HPAs the controller manages, from an informer over autoscaling/v2 (the server converts
// v1 objects): raw JSON, so fields client-node's models do not know (behavior.*.tolerance)
// survive to the status write. `--hpa-selector` becomes the list/watch labelSelector.
import type { HorizontalPodAutoscaler } from "../api/types.js";
import type { HpaSource } from "../controller/ports.js";
import { Informer, type InformerOptions, objectKey, type RawObject } from "./informer.js";
import type { KubeClient } from "./types.js";

export interface HpaInformerOptions
  extends Omit<InformerOptions<HorizontalPodAutoscaler>, "client" | "path" | "transform"> {
  client: KubeClient;
  /** Only this namespace (default: all namespaces). */
  namespace?: string;
}

/** Keeps the object as served, minus managedFields (an update that omits them keeps the server's). */
export function hpaFromObject(object: RawObject): HorizontalPodAutoscaler {
  const { managedFields: _managed, ...metadata } = (object.metadata ?? {}) as Record<
    string,
    unknown
  >;
  // List items carry no kind/apiVersion of their own; watch events do: make them alike.
  return {
    ...object,
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata,
  } as HorizontalPodAutoscaler;
}

/**
 * The managers of the newest `status` managedFields entries (times have second precision: all
 * those of the latest second), or undefined when the object has none.
 */
export function statusWritersOf(object: RawObject): string[] | undefined {
  const entries = (object.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  if (!Array.isArray(entries)) return undefined;
  let newest = Number.NEGATIVE_INFINITY;
  let writers: string[] = [];
  for (const entry of entries as { manager?: unknown; subresource?: unknown; time?: unknown }[]) {
    if (entry?.subresource !== "status" || typeof entry.manager !== "string") continue;
    const time = typeof entry.time === "string" ? Date.parse(entry.time) : Number.NaN;
    const at = Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
    if (at > newest) {
      newest = at;
      writers = [entry.manager];
    } else if (at === newest) writers.push(entry.manager);
  }
  return writers.length > 0 ? writers : undefined;
}

export class HpaInformer implements HpaSource {
  readonly informer: Informer<HorizontalPodAutoscaler>;
  /** statusWritersOf each HPA as last delivered, by namespace/name. */
  readonly #statusWriters = new Map<string, string[]>();

  constructor(options: HpaInformerOptions) {
    const { namespace, ...rest } = options;
    const transform = (object: RawObject) => {
      const writers = statusWritersOf(object);
      if (writers) this.#statusWriters.set(objectKey(object), writers);
      else this.#statusWriters.delete(objectKey(object));
      return hpaFromObject(object);
    };
    this.informer = new Informer<HorizontalPodAutoscaler>({
      name: "horizontalpodautoscalers",
      ...rest,
      path: namespace
        ? `/apis/autoscaling/v2/namespaces/${encodeURIComponent(namespace)}/horizontalpodautoscalers`
        : "/apis/autoscaling/v2/horizontalpodautoscalers",
      transform,
    });
    this.informer.subscribe((key, value) => {
      if (value === null) this.#statusWriters.delete(key);
    });
  }

  statusWriters(key: string): readonly string[] | undefined {
    return this.#statusWriters.get(key);
  }

  start(): void {
    this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.informer.waitForSync(signal);
  }

  list(): readonly HorizontalPodAutoscaler[] {
    return this.informer.list();
  }

  /** By `namespace/name`. */
  get(key: string): HorizontalPodAutoscaler | undefined {
    return this.informer.get(key);
  }

  subscribe(listener: (key: string, hpa: HorizontalPodAutoscaler | null) => void): () => void {
    return this.informer.subscribe((key, value) => listener(key, value));
  }
}
