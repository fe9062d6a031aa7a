// The resources the API server serves, and the parsing of a request path into
// group/version/resource/namespace/name/subresource (k8s.io/apiserver RequestInfoFactory).

import { customGeneration } from "../kinds/custom.js";
import { KIND_LIST, servedDefinitions } from "../kinds/registry.js";
import type { KindDefinition, Subresource } from "../kinds/types.js";
import type { ResourceNames } from "./errors.js";

export type { Subresource } from "../kinds/types.js";

export interface ResourceInfo extends ResourceNames {
  /** Versions served, preferred first. */
  versions: readonly string[];
  namespaced: boolean;
  subresources: readonly Subresource[];
  /** Node: a view of the simulated capacity, not writable. */
  readOnly?: boolean;
  /** Upstream returns the deleted object (ReturnDeletedObject) instead of a Success Status. */
  returnsDeletedObject?: boolean;
  shortNames?: readonly string[];
  singular: string;
  verbs: readonly string[];
  /** Discovery categories; "all" is what `kubectl get all` expands. */
  categories?: readonly string[];
  /** The warning every request gets, by version, where upstream deprecated the version. */
  deprecations?: Readonly<Record<string, string>>;
}

function resourceInfoOf(d: KindDefinition): ResourceInfo {
  const info: ResourceInfo = {
    resource: d.resource,
    singular: d.singular,
    group: d.group,
    kind: d.kind,
    versions: d.versions.map((v) => v.version),
    namespaced: d.namespaced,
    subresources: d.subresources,
    verbs: d.verbs,
  };
  if (d.shortNames) info.shortNames = d.shortNames;
  if (d.categories) info.categories = d.categories;
  if (d.readOnly) info.readOnly = true;
  if (d.returnsDeletedObject) info.returnsDeletedObject = true;
  for (const v of d.versions) {
    if (!v.deprecated) continue;
    // k8s.io/apiserver's deprecation warning, for a version with no removal release set.
    const apiVersion = d.group === "" ? v.version : `${d.group}/${v.version}`;
    const warning = `${apiVersion} ${d.kind} is deprecated in v${v.deprecated.since}+; use ${v.deprecated.replacement}`;
    info.deprecations = { ...info.deprecations, [v.version]: warning };
  }
  return info;
}

/** The built-in catalogue: a view of the kinds registry, in its order. */
export const RESOURCES: readonly ResourceInfo[] = KIND_LIST.map(resourceInfoOf);

let served = { generation: 0, list: RESOURCES, byGroupResource: byGroupResource(RESOURCES) };

function byGroupResource(list: readonly ResourceInfo[]): Map<string, ResourceInfo> {
  return new Map(list.map((r) => [`${r.group}/${r.resource}`, r]));
}

/** Every served resource: the built-in ones, then the established custom resources. */
export function servedResources(): readonly ResourceInfo[] {
  const generation = customGeneration();
  if (served.generation !== generation) {
    const list = servedDefinitions().map(resourceInfoOf);
    served = { generation, list, byGroupResource: byGroupResource(list) };
  }
  return served.list;
}

export function findResource(group: string, version: string, resource: string) {
  servedResources();
  const info = served.byGroupResource.get(`${group}/${resource}`);
  return info?.versions.includes(version) ? info : undefined;
}

export function resourceOfKind(kind: string): ResourceInfo | undefined {
  return servedResources().find((r) => r.kind === kind);
}

/** `apps/v1`, `v1`. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export interface RequestTarget {
  group: string;
  version: string;
  /** The plural resource name as written in the path. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** A `/watch/` path (deprecated upstream, still served). */
  watchPath: boolean;
}

/**
 * Splits `/api/v1/...` or `/apis/GROUP/VERSION/...` into its parts; null when the path is not
 * a resource path (discovery, unknown prefix). Segments are percent-decoded one by one.
 */
export function parseResourcePath(path: string): RequestTarget | null {
  let segments: string[];
  try {
    segments = path
      .split("/")
      .filter((s) => s !== "")
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  let group: string;
  let version: string;
  if (segments[0] === "api" && segments.length >= 3) {
    group = "";
    version = segments[1]!;
    segments = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    segments = segments.slice(3);
  } else {
    return null;
  }
  let watchPath = false;
  if (segments[0] === "watch") {
    watchPath = true;
    segments = segments.slice(1);
  }
  let namespace: string | undefined;
  // `namespaces/NS/RESOURCE...` is namespaced; `namespaces/NS` alone is the Namespace object.
  // `namespaces/NS/status` and `/finalize` are subresources of the Namespace itself.
  if (
    segments[0] === "namespaces" &&
    segments.length >= 3 &&
    segments[2] !== "status" &&
    segments[2] !== "finalize"
  ) {
    namespace = segments[1];
    segments = segments.slice(2);
  }
  if (segments.length === 0 || segments.length > 3) return null;
  const target: RequestTarget = { group, version, resource: segments[0]!, watchPath };
  if (namespace !== undefined) target.namespace = namespace;
  if (segments[1] !== undefined) target.name = segments[1];
  if (segments[2] !== undefined) target.subresource = segments[2];
  return target;
}

/** path.IsValidPathSegmentName: a name must be usable as one segment of a storage key. */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  return ["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}
