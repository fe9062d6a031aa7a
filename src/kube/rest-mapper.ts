// Kind → resource through discovery, as client-go's DeferredDiscoveryRESTMapper answers
// RESTMappings(GroupKind) for the HPA controller and the custom metrics client: the group's
// versions from /api and /apis (preferred first), each version's APIResourceList from
// /api/v1 or /apis/GROUP/VERSION, the top-level resources whose `kind` matches exactly.
// Discovery is cached and fetched lazily per group-version; a miss refreshes it, at most once
// every `minRefreshMs` (kube-controller-manager resets its mapper every 30s; the deferred
// mapper refetches on a miss when its cache is not fresh).
import { requestJson } from "./api-errors.js";
import type { KubeClient } from "./types.js";

export interface ResourceMapping {
  group: string;
  version: string;
  /** Plural resource name, as in URLs. */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Subresources the version lists for this resource ("scale", "status"). */
  subresources: string[];
}

export type MappingResult =
  | { ok: true; mappings: ResourceMapping[] }
  | { ok: false; error: string; status?: number };

export interface RestMapperOptions {
  client: KubeClient;
  /** Epoch milliseconds (default Date.now). */
  now?: () => number;
  /** A miss refetches discovery at most this often (default 30s, as kube-controller-manager). */
  minRefreshMs?: number;
  /** Deadline of each discovery request (default 30s). */
  timeoutMs?: number;
}

interface Groups {
  /** Group → versions, preferred first. */
  groups: Map<string, string[]>;
  /** Discovery errors of /api ("core") and /apis ("named"). */
  failures: { core?: string; named?: string };
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced?: boolean;
}

/** schema.ParseGroupVersion: "" and "v1" are core; more than one "/" is an error. */
export function parseGroupVersion(
  apiVersion: string | undefined,
): { ok: true; group: string; version: string } | { ok: false; error: string } {
  const text = apiVersion ?? "";
  if (text === "" || text === "/") return { ok: true, group: "", version: "" };
  const parts = text.split("/");
  if (parts.length === 1) return { ok: true, group: "", version: parts[0]! };
  if (parts.length === 2) return { ok: true, group: parts[0]!, version: parts[1]! };
  return { ok: false, error: `unexpected GroupVersion string: ${text}` };
}

/** meta.NoKindMatchError for a search without versions. */
export function noKindMatch(group: string, kind: string): string {
  return `no matches for kind ${JSON.stringify(kind)} in group ${JSON.stringify(group)}`;
}

/** schema.GroupKind.String(): `Ingress.networking.k8s.io`, or the bare kind for core. */
export function groupKindString(group: string, kind: string): string {
  return group === "" ? kind : `${kind}.${group}`;
}

/** schema.GroupResource.String(). */
export function groupResourceString(mapping: { group: string; resource: string }): string {
  return mapping.group === "" ? mapping.resource : `${mapping.resource}.${mapping.group}`;
}

/** The URL prefix of a group-version: /api/v1 or /apis/GROUP/VERSION. */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

export class DiscoveryRestMapper {
  readonly #client: KubeClient;
  readonly #now: () => number;
  readonly #minRefreshMs: number;
  readonly #timeoutMs: number;
  /** Group → versions, preferred first (null until fetched). */
  #groups: Promise<Groups> | null = null;
  readonly #resources = new Map<string, Promise<ApiResource[] | string>>();
  #fetchedAt = Number.NEGATIVE_INFINITY;
  /** Discovery requests made (for tests and the request budget). */
  requests = 0;

  constructor(options: RestMapperOptions) {
    this.#client = options.client;
    this.#now = options.now ?? Date.now;
    this.#minRefreshMs = options.minRefreshMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Drops everything; the next lookup refetches. */
  reset(): void {
    this.#groups = null;
    this.#resources.clear();
  }

  async #get<T>(path: string): Promise<{ ok: true; body: T } | { ok: false; error: string }> {
    this.requests++;
    const answer = await requestJson<T>(
      this.#client,
      { method: "GET", path },
      { verb: "get" },
      { timeoutMs: this.#timeoutMs },
    );
    return answer.ok ? { ok: true, body: answer.body } : { ok: false, error: answer.error };
  }

  #loadGroups(): Promise<Groups> {
    if (this.#groups) return this.#groups;
    this.#fetchedAt = this.#now();
    const load = async (): Promise<Groups> => {
      const groups = new Map<string, string[]>();
      const [core, named] = await Promise.all([
        this.#get<{ versions?: string[] }>("/api"),
        this.#get<{
          groups?: {
            name: string;
            versions?: { version: string }[];
            preferredVersion?: { version?: string };
          }[];
        }>("/apis"),
      ]);
      if (core.ok && core.body.versions?.length) groups.set("", [...core.body.versions]);
      for (const group of named.ok ? (named.body.groups ?? []) : []) {
        const versions = (group.versions ?? []).map((v) => v.version);
        const preferred = group.preferredVersion?.version;
        if (preferred && versions.includes(preferred)) {
          versions.splice(versions.indexOf(preferred), 1);
          versions.unshift(preferred);
        }
        groups.set(group.name, versions);
      }
      const failures: Groups["failures"] = {};
      if (!core.ok) failures.core = core.error;
      if (!named.ok) failures.named = named.error;
      // A failed fetch is not cached: the next lookup asks again.
      if (!core.ok || !named.ok) this.#groups = null;
      return { groups, failures };
    };
    const promise = load();
    this.#groups = promise;
    return promise;
  }

  #loadResources(group: string, version: string): Promise<ApiResource[] | string> {
    const key = `${group}/${version}`;
    let entry = this.#resources.get(key);
    if (!entry) {
      entry = this.#get<{ resources?: ApiResource[] }>(groupVersionPath(group, version)).then(
        (list) => {
          if (list.ok) return list.body.resources ?? [];
          // A group-version that failed discovery is tried again on the next lookup.
          this.#resources.delete(key);
          return list.error;
        },
      );
      this.#resources.set(key, entry);
    }
    return entry;
  }

  async #lookup(group: string, kind: string): Promise<MappingResult> {
    const { groups, failures } = await this.#loadGroups();
    const versions = groups.get(group) ?? [];
    const lists = await Promise.all(versions.map((v) => this.#loadResources(group, v)));
    const mappings: ResourceMapping[] = [];
    let error: string | undefined;
    versions.forEach((version, i) => {
      const list = lists[i]!;
      if (typeof list === "string") {
        error ??= list;
        return;
      }
      for (const r of list) {
        if (r.kind !== kind || r.name.includes("/")) continue;
        const subresources = list
          .filter((s) => s.name.startsWith(`${r.name}/`))
          .map((s) => s.name.slice(r.name.length + 1));
        mappings.push({
          group,
          version,
          resource: r.name,
          kind,
          namespaced: r.namespaced ?? true,
          subresources,
        });
      }
    });
    if (mappings.length > 0) return { ok: true, mappings };
    // Without discovery there is no answer: say why, as the deferred mapper returns its error.
    const discoveryError = error ?? (group === "" ? failures.core : failures.named);
    if (discoveryError !== undefined) return { ok: false, error: discoveryError };
    return { ok: false, error: noKindMatch(group, kind), status: 404 };
  }

  /** RESTMappings(GroupKind): every version's mapping of the kind, preferred version first. */
  async mappings(group: string, kind: string): Promise<MappingResult> {
    let result = await this.#lookup(group, kind);
    if (!result.ok && this.#now() - this.#fetchedAt >= this.#minRefreshMs) {
      this.reset();
      result = await this.#lookup(group, kind);
    }
    return result;
  }

  /** The group's served versions, preferred first (empty when the server does not serve it). */
  async versions(group: string): Promise<string[]> {
    return [...((await this.#loadGroups()).groups.get(group) ?? [])];
  }
}
