// The scale subresource of whatever an HPA's scaleTargetRef names, over the Kubernetes API, as
// upstream's controller reaches it: schema.ParseGroupVersion of the ref's apiVersion, the
// RESTMapper's mappings of (group, kind) from discovery, then client-go's scale client: GET
// /…/RESOURCE/NAME/scale at the group's preferred version, decoded to autoscaling/v1 Scale.
// Errors carry client-go's texts (`no matches for kind "X" in group "Y"`, the server's
// Status message such as `deployments.apps "web" not found`).
//
// Update: PUT the Scale read in the same sync with the new spec.replicas (and its
// resourceVersion, as upstream sends the object it read); a 409 Conflict re-reads and retries
// as client-go's retry.RetryOnConflict with retry.DefaultRetry (5 steps, 10ms, factor 1,
// jitter 0.1).

import { selectorFromLabelSelector } from "../api/selector.js";
import type { CrossVersionObjectReference } from "../api/types.js";
import type { PortResult, ScaleTargetPort, ScaleView } from "../controller/ports.js";
import { type DeadlineOptions, requestJson } from "./api-errors.js";
import {
  DiscoveryRestMapper,
  groupVersionPath,
  parseGroupVersion,
  type ResourceMapping,
} from "./rest-mapper.js";
import type { KubeClient } from "./types.js";

/** wait.Backoff, as client-go's retry.DefaultRetry. */
export interface Backoff {
  steps: number;
  durationMs: number;
  factor: number;
  jitter: number;
}

export const DEFAULT_RETRY: Backoff = { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 };

export interface KubeScaleOptions {
  client: KubeClient;
  /** Shared with the metrics adapters (one discovery cache); made from `client` when absent. */
  mapper?: DiscoveryRestMapper;
  retry?: Backoff;
  /** Deadline of each request (default 30s). */
  timeoutMs?: number;
  /** Scales remembered between the GET and the PUT of a sync (default 100,000). */
  maxCachedScales?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

type RawScale = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string } & Record<
    string,
    unknown
  >;
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: unknown; targetSelector?: unknown };
};

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The scale's status.selector as autoscaling/v1 carries it: a string; older Scale versions
 * (apps/v1beta2, extensions/v1beta1) carry a map plus targetSelector, which the scale
 * converter turns into the string.
 */
function selectorOf(status: RawScale["status"]): string | undefined {
  if (typeof status?.selector === "string") return status.selector || undefined;
  if (typeof status?.targetSelector === "string" && status.targetSelector !== "")
    return status.targetSelector;
  if (status?.selector && typeof status.selector === "object") {
    const parsed = selectorFromLabelSelector({
      matchLabels: status.selector as Record<string, string>,
    });
    return parsed.ok && parsed.selector.text !== "" ? parsed.selector.text : undefined;
  }
  return undefined;
}

export function scaleViewOf(raw: RawScale): ScaleView {
  const view: ScaleView = {
    specReplicas: raw.spec?.replicas ?? 0,
    statusReplicas: raw.status?.replicas ?? 0,
  };
  const selector = selectorOf(raw.status);
  if (selector !== undefined) view.selector = selector;
  const rv = raw.metadata?.resourceVersion;
  if (typeof rv === "string" && rv !== "") view.resourceVersion = rv;
  return view;
}

function scalePath(mapping: ResourceMapping, namespace: string, name: string): string {
  const base = groupVersionPath(mapping.group, mapping.version);
  const scope = mapping.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${scope}/${mapping.resource}/${encodeURIComponent(name)}/scale`;
}

type Resolved =
  | { ok: true; mappings: ResourceMapping[] }
  | { ok: false; error: string; status?: number };

export class KubeScaleTargetPort implements ScaleTargetPort {
  readonly #client: KubeClient;
  readonly mapper: DiscoveryRestMapper;
  readonly #retry: Backoff;
  readonly #deadline: DeadlineOptions;
  readonly #maxCached: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  /** The last Scale read or written per target, for the PUT of the same sync. */
  readonly #scales = new Map<string, RawScale>();

  constructor(options: KubeScaleOptions) {
    this.#client = options.client;
    this.mapper = options.mapper ?? new DiscoveryRestMapper({ client: options.client });
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#deadline = { timeoutMs: options.timeoutMs ?? 30_000 };
    this.#maxCached = options.maxCachedScales ?? 100_000;
    this.#sleep = options.sleep ?? sleepMs;
    this.#random = options.random ?? Math.random;
  }

  async #resolve(ref: CrossVersionObjectReference): Promise<Resolved> {
    const gv = parseGroupVersion(ref.apiVersion);
    if (!gv.ok) return { ok: false, error: gv.error };
    const found = await this.mapper.mappings(gv.group, ref.kind);
    if (!found.ok) return found;
    // The scale client asks for the group-resource at its preferred version: one request per
    // distinct resource, however many versions map the kind.
    const seen = new Set<string>();
    const mappings = found.mappings.filter((m) => {
      if (seen.has(m.resource)) return false;
      seen.add(m.resource);
      return true;
    });
    return { ok: true, mappings };
  }

  #remember(key: string, raw: RawScale): void {
    this.#scales.delete(key);
    this.#scales.set(key, raw);
    if (this.#scales.size > this.#maxCached) {
      const oldest = this.#scales.keys().next().value;
      if (oldest !== undefined) this.#scales.delete(oldest);
    }
  }

  async #read(
    namespace: string,
    ref: CrossVersionObjectReference,
    mappings: ResourceMapping[],
  ): Promise<
    | { ok: true; raw: RawScale; mapping: ResourceMapping }
    | { ok: false; error: string; status?: number }
  > {
    // scaleForResourceMappings: the first mapping that answers wins; else the first error.
    let first: { ok: false; error: string; status?: number } | undefined;
    for (const mapping of mappings) {
      const answer = await requestJson<RawScale>(
        this.#client,
        { method: "GET", path: scalePath(mapping, namespace, ref.name) },
        { verb: "get", groupResource: mapping.resource, name: ref.name },
        this.#deadline,
      );
      if (answer.ok) {
        if (!answer.body || typeof answer.body !== "object") {
          first ??= {
            ok: false,
            error:
              "received an object from a /scale endpoint which was not convertible to autoscaling Scale",
          };
          continue;
        }
        return { ok: true, raw: answer.body, mapping };
      }
      first ??= answer;
    }
    return first ?? { ok: false, error: "unrecognized resource" };
  }

  async getScale(
    namespace: string,
    ref: CrossVersionObjectReference,
  ): Promise<PortResult<ScaleView>> {
    const resolved = await this.#resolve(ref);
    if (!resolved.ok) return { ...resolved, ok: false };
    const read = await this.#read(namespace, ref, resolved.mappings);
    if (!read.ok) return read;
    this.#remember(cacheKey(namespace, ref, read.mapping), read.raw);
    return { ok: true, value: scaleViewOf(read.raw) };
  }

  async updateScale(
    namespace: string,
    ref: CrossVersionObjectReference,
    replicas: number,
  ): Promise<PortResult<void>> {
    const resolved = await this.#resolve(ref);
    if (!resolved.ok) return { ...resolved, ok: false };
    // The scale client writes the group-resource of the scale it read (the first that answers).
    let mapping = resolved.mappings.find((m) => this.#scales.has(cacheKey(namespace, ref, m)));
    let duration = this.#retry.durationMs;
    let last: { ok: false; error: string; status?: number } | undefined;
    for (let step = 1; step <= Math.max(1, this.#retry.steps); step++) {
      let raw = mapping ? this.#scales.get(cacheKey(namespace, ref, mapping)) : undefined;
      if (!raw || !mapping) {
        const read = await this.#read(namespace, ref, resolved.mappings);
        if (!read.ok) return read;
        mapping = read.mapping;
        raw = read.raw;
      }
      const key = cacheKey(namespace, ref, mapping);
      const body: RawScale = {
        ...raw,
        apiVersion: raw.apiVersion ?? "autoscaling/v1",
        kind: raw.kind ?? "Scale",
        spec: { ...(raw.spec ?? {}), replicas },
      };
      const answer = await requestJson<RawScale>(
        this.#client,
        { method: "PUT", path: scalePath(mapping, namespace, ref.name), body },
        { verb: "put", groupResource: mapping.resource, name: ref.name },
        this.#deadline,
      );
      if (answer.ok) {
        if (answer.body && typeof answer.body === "object") this.#remember(key, answer.body);
        else this.#scales.delete(key);
        return { ok: true, value: undefined };
      }
      // Whatever failed, the next attempt (or sync) reads the scale afresh.
      this.#scales.delete(key);
      last = answer;
      if (answer.status !== 409) return answer;
      if (step >= this.#retry.steps) break;
      // wait.Backoff.Step: the duration with jitter, then multiplied by the factor.
      const jittered =
        this.#retry.jitter > 0 ? duration * (1 + this.#random() * this.#retry.jitter) : duration;
      if (this.#retry.factor !== 0) duration *= this.#retry.factor;
      await this.#sleep(jittered);
    }
    return last ?? { ok: false, error: "scale update failed" };
  }
}

function cacheKey(
  namespace: string,
  ref: CrossVersionObjectReference,
  mapping: ResourceMapping,
): string {
  return `${mapping.group}/${mapping.resource}/${namespace}/${ref.name}`;
}
