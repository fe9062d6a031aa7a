// Discovery, /version and OpenAPI: what kubectl and client-go read before any resource request.
// Shapes follow kube-apiserver v1.34 (legacy APIVersions / APIGroupList / APIResourceList, and
// aggregated discovery apidiscovery.k8s.io v2 and v2beta1, chosen by the Accept header), and
// ../shared/reference/kubectl-protocol.md §1–§3 (what each kubectl version asks for).
//
// The per-version view of the handler's resource catalogue (resources.ts) is built here.
import { createHash } from "node:crypto";
import { DEFAULT_KUBERNETES_VERSION } from "../api/versions.js";
import { customGeneration } from "../kinds/custom.js";
import { AUTH_RESOURCES, AUTHENTICATION_GROUP } from "./auth/apis.js";
import { openapiSchemas } from "./openapi.js";
import { RESOURCES as SERVED, type ResourceInfo as Served, servedResources } from "./resources.js";
import type { ApiRequest, ApiResponse } from "./types.js";

export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural resource name, as in URLs. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  /** Served subresources: "status", "scale". */
  subresources?: string[];
  /** Lower-case singular ("" for aggregated metrics APIs, as metrics-server reports). */
  singular: string;
  /** Discovery categories; "all" is what `kubectl get all` expands. */
  categories?: string[];
}

const SUBRESOURCE_VERBS = ["get", "patch", "update"];
/** A subresource's verbs: pods/log is only read, serviceaccounts/token only created. */
const subresourceVerbs = (sub: string) =>
  sub === "log" ? ["get"] : sub === "token" ? ["create"] : SUBRESOURCE_VERBS;

/** The subresources whose kind is not the parent's: Scale, TokenRequest. */
function subresourceKind(sub: string): { group: string; version: string; kind: string } | null {
  if (sub === "scale") return { group: "autoscaling", version: "v1", kind: "Scale" };
  if (sub === "token") return { group: AUTHENTICATION_GROUP, version: "v1", kind: "TokenRequest" };
  return null;
}

// The reviews of authentication.k8s.io and authorization.k8s.io: create only, nothing stored.
const AUTH_API_RESOURCES: ResourceInfo[] = AUTH_RESOURCES.map((r) => ({
  ...r,
  namespaced: false,
  verbs: ["create"],
  singular: r.kind.toLowerCase(),
}));

// metrics-server's resources: get and list only, no singular names.
const METRICS_RESOURCES: ResourceInfo[] = [
  {
    group: "metrics.k8s.io",
    version: "v1beta1",
    resource: "nodes",
    kind: "NodeMetrics",
    namespaced: false,
    verbs: ["get", "list"],
    singular: "",
  },
  {
    group: "metrics.k8s.io",
    version: "v1beta1",
    resource: "pods",
    kind: "PodMetrics",
    namespaced: true,
    verbs: ["get", "list"],
    singular: "",
  },
];

function perVersion(r: Served): ResourceInfo[] {
  return r.versions.map(
    (version): ResourceInfo => ({
      group: r.group,
      version,
      resource: r.resource,
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: [...r.verbs],
      ...(r.shortNames ? { shortNames: [...r.shortNames] } : {}),
      ...(r.subresources.length > 0 ? { subresources: [...r.subresources] } : {}),
      singular: r.singular,
      ...(r.categories ? { categories: [...r.categories] } : {}),
    }),
  );
}

/** One entry per built-in group-version-resource, from the handler's catalogue (preferred version first). */
export const RESOURCES: ResourceInfo[] = [
  ...SERVED.flatMap(perVersion),
  ...AUTH_API_RESOURCES,
  ...METRICS_RESOURCES,
];

let current = { generation: 0, resources: RESOURCES, groups: [] as GroupInfo[] };

/** The built-in entries, then the established custom resources' (CRDs come and go). */
function served(): { resources: ResourceInfo[]; groups: GroupInfo[] } {
  const generation = customGeneration();
  if (current.generation !== generation || current.groups.length === 0) {
    const custom = servedResources().slice(SERVED.length).flatMap(perVersion);
    const resources = [...RESOURCES, ...custom];
    current = { generation, resources, groups: servedGroups(resources) };
  }
  return current;
}

/**
 * Group-versions whose resource lists are dynamic (one entry per metric, like a Prometheus
 * adapter's): `handleMetricsApi` serves their APIResourceList; discovery lists the versions.
 */
export const METRICS_ADAPTER_GROUP_VERSIONS: { group: string; versions: string[] }[] = [
  { group: "custom.metrics.k8s.io", versions: ["v1beta2", "v1beta1"] },
  { group: "external.metrics.k8s.io", versions: ["v1beta1"] },
];

/** The resource served at group/version/resource, if any. */
export function findResource(
  group: string,
  version: string,
  resource: string,
): ResourceInfo | undefined {
  return served().resources.find(
    (r) => r.group === group && r.version === version && r.resource === resource,
  );
}

// ---------------------------------------------------------------------------------------------
// /version

/**
 * The version.Info of the Kubernetes version reproduced (`--kubernetes-version`; its git version
 * as given, e.g. `v1.37.2`). kubectl on PATH here is gcloud's dispatcher, which runs the kubectl
 * matching `minor` when it has one (kubectl-protocol.md §1.3); for 34 to 37 it has none and uses
 * its built-in kubectl. The build fields are placeholders, the same for every version.
 */
export function versionInfo(gitVersion: string): typeof VERSION_INFO {
  const [major = "1", minor = "0"] = gitVersion.replace(/^v/, "").split(".");
  return {
    ...VERSION_INFO,
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Number(minor) - 1),
    gitVersion,
  };
}

/** The default version's (src/api/versions.ts) version.Info. */
export const VERSION_INFO = {
  major: "1",
  minor: DEFAULT_KUBERNETES_VERSION.split(".")[1]!,
  emulationMajor: "1",
  emulationMinor: DEFAULT_KUBERNETES_VERSION.split(".")[1]!,
  minCompatibilityMajor: "1",
  minCompatibilityMinor: String(Number(DEFAULT_KUBERNETES_VERSION.split(".")[1]) - 1),
  gitVersion: `v${DEFAULT_KUBERNETES_VERSION}.0`,
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-08-27T00:00:00Z",
  goVersion: "go1.24.6",
  compiler: "gc",
  platform: "linux/amd64",
};

// ---------------------------------------------------------------------------------------------
// Groups

interface GroupInfo {
  name: string;
  /** Preferred first. */
  versions: string[];
}

function servedGroups(resources: readonly ResourceInfo[]): GroupInfo[] {
  const groups: GroupInfo[] = [];
  for (const r of resources) {
    if (r.group === "") continue;
    let g = groups.find((x) => x.name === r.group);
    if (!g) {
      g = { name: r.group, versions: [] };
      groups.push(g);
    }
    if (!g.versions.includes(r.version)) g.versions.push(r.version);
  }
  for (const m of METRICS_ADAPTER_GROUP_VERSIONS)
    groups.push({ name: m.group, versions: m.versions });
  return groups;
}

/** Every group-version served ("" v1 first, then the groups as /apis lists them). */
export function servedGroupVersions(): { group: string; version: string }[] {
  return [
    { group: "", version: "v1" },
    ...served().groups.flatMap((g) => g.versions.map((version) => ({ group: g.name, version }))),
  ];
}

function groupVersion(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

function apiGroup(g: GroupInfo): object {
  const versions = g.versions.map((v) => ({ groupVersion: groupVersion(g.name, v), version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

// ---------------------------------------------------------------------------------------------
// Legacy discovery

/** APIResource entries of one group-version: each resource, then its subresources. */
function apiResources(group: string, version: string): object[] {
  const out: object[] = [];
  for (const r of served().resources) {
    if (r.group !== group || r.version !== version) continue;
    const entry: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
    };
    if (r.shortNames) entry.shortNames = r.shortNames;
    if (r.categories) entry.categories = r.categories;
    out.push(entry);
    for (const sub of r.subresources ?? []) {
      const subEntry: Record<string, unknown> = {
        name: `${r.resource}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
      };
      // The scale subresource is an autoscaling/v1 Scale whatever the parent's group.
      const other = subresourceKind(sub);
      if (other) Object.assign(subEntry, other);
      else subEntry.kind = r.kind;
      subEntry.verbs = subresourceVerbs(sub);
      out.push(subEntry);
    }
  }
  return out;
}

function json(body: unknown, contentType = "application/json"): ApiResponse {
  return { status: 200, headers: { "content-type": contentType }, body };
}

// ---------------------------------------------------------------------------------------------
// Aggregated discovery

type AggregatedVersion = "v2" | "v2beta1";

/**
 * Which aggregated discovery version the Accept header asks for, or null for the legacy form.
 * Media types are taken in order; only JSON ones count (the reply is always JSON), and a plain
 * `application/json` or `*\/*` before any aggregated type means legacy.
 */
export function aggregatedDiscoveryVersion(accept: string | undefined): AggregatedVersion | null {
  if (!accept) return null;
  for (const mediaType of accept.split(",")) {
    const [type, ...rawParams] = mediaType.split(";").map((s) => s.trim());
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    if (type === "application/json" && params.get("as") === "APIGroupDiscoveryList") {
      const v = params.get("v");
      if (params.get("g") === "apidiscovery.k8s.io" && (v === "v2" || v === "v2beta1")) return v;
      continue;
    }
    if (params.has("as")) continue;
    if (type === "application/json" || type === "*/*" || type === "application/*") return null;
  }
  return null;
}

function discoveryResources(group: string, version: string): object[] {
  const out: object[] = [];
  for (const r of served().resources) {
    if (r.group !== group || r.version !== version) continue;
    // responseKind's group/version are empty unless they differ from the group-version's
    // (as kube-apiserver converts its APIResource list).
    const entry: Record<string, unknown> = {
      resource: r.resource,
      responseKind: { group: "", version: "", kind: r.kind },
      scope: r.namespaced ? "Namespaced" : "Cluster",
      singularResource: r.singular,
      verbs: r.verbs,
    };
    if (r.shortNames) entry.shortNames = r.shortNames;
    if (r.categories) entry.categories = r.categories;
    if (r.subresources && r.subresources.length > 0) {
      entry.subresources = r.subresources.map((sub) => ({
        subresource: sub,
        responseKind: subresourceKind(sub) ?? { group: "", version: "", kind: r.kind },
        verbs: subresourceVerbs(sub),
      }));
    }
    out.push(entry);
  }
  return out;
}

function discoveryGroup(name: string | undefined, versions: string[]): object {
  const metadata: Record<string, unknown> = { creationTimestamp: null };
  if (name) metadata.name = name;
  return {
    metadata,
    versions: versions.map((v) => ({
      version: v,
      resources: discoveryResources(name ?? "", v),
      freshness: "Current",
    })),
  };
}

function aggregatedList(version: AggregatedVersion, items: object[]): ApiResponse {
  return json(
    {
      kind: "APIGroupDiscoveryList",
      apiVersion: `apidiscovery.k8s.io/${version}`,
      metadata: {},
      items,
    },
    `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
  );
}

// ---------------------------------------------------------------------------------------------
// OpenAPI

/** OpenAPI path of a resource's item (cluster-scoped ones have no namespace segment). */
function itemPath(r: ResourceInfo): string {
  const prefix = r.group === "" ? "/api/v1" : `/apis/${r.group}/${r.version}`;
  return r.namespaced
    ? `${prefix}/namespaces/{namespace}/${r.resource}/{name}`
    : `${prefix}/${r.resource}/{name}`;
}

const QUERY_PARAMS = ["dryRun", "fieldManager", "fieldValidation", "force"].map((name) => ({
  name,
  in: "query",
  schema: { type: name === "force" ? "boolean" : "string" },
  uniqueItems: true,
}));

/**
 * A per-group-version OpenAPI v3 document with a PATCH operation per resource that declares
 * `fieldValidation`: what kubectl's query-param verifier looks for before `create`/`apply` send
 * `fieldValidation=Strict` (kubectl-protocol.md §3), and the kinds' schemas (openapi.ts), which
 * `kubectl explain` reads.
 */
function openapiV3Doc(group: string, version: string): object {
  const { schemas, kinds } = openapiSchemas(group, version);
  const paths: Record<string, unknown> = {};
  for (const r of served().resources) {
    if (r.group !== group || r.version !== version) continue;
    const gvk = { group, version, kind: r.kind };
    const definition = kinds.get(r.kind);
    const operations: Record<string, unknown> = {};
    // kubectl explain finds a resource's kind by its item path's GET operation.
    if (definition && r.verbs.includes("get")) {
      operations.get = {
        operationId: `read${r.kind}`,
        "x-kubernetes-action": "get",
        "x-kubernetes-group-version-kind": gvk,
        responses: {
          "200": {
            description: "OK",
            content: {
              "application/json": { schema: { $ref: `#/components/schemas/${definition}` } },
            },
          },
        },
      };
    }
    if (r.verbs.includes("patch")) {
      operations.patch = {
        operationId: `patch${r.kind}`,
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": gvk,
        parameters: QUERY_PARAMS,
        responses: { "200": { description: "OK" } },
      };
    }
    if (Object.keys(operations).length > 0) paths[itemPath(r)] = operations;
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: VERSION_INFO.gitVersion },
    paths,
    components: { schemas },
  };
}

function openapiV3Key(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * Group-versions with writable resources (the ones create/apply validate against) or kinds
 * (`kubectl explain`).
 */
function openapiGroupVersions(
  resources: readonly ResourceInfo[],
): { group: string; version: string }[] {
  const out: { group: string; version: string }[] = [];
  const kinds = servedResources();
  for (const r of resources) {
    if (!r.verbs.includes("patch") && !kinds.some((s) => s.kind === r.kind)) continue;
    if (!out.some((gv) => gv.group === r.group && gv.version === r.version))
      out.push({ group: r.group, version: r.version });
  }
  return out;
}

function openapiV3Entry(group: string, version: string): { doc: object; hash: string } {
  const doc = openapiV3Doc(group, version);
  const hash = createHash("sha512")
    .update(JSON.stringify(doc))
    .digest("hex")
    .slice(0, 128)
    .toUpperCase();
  return { doc, hash };
}

/** The built-in group-versions' documents, computed once. */
const BUILT_IN_OPENAPI_V3 = new Map(
  openapiGroupVersions(RESOURCES).map(({ group, version }) => [
    openapiV3Key(group, version),
    openapiV3Entry(group, version),
  ]),
);

let openapiCurrent = { generation: 0, docs: BUILT_IN_OPENAPI_V3 };

/** Every group-version's document: the built-in ones, and the custom resources' (CRDs come and go). */
function openapiV3Docs(): Map<string, { doc: object; hash: string }> {
  const generation = customGeneration();
  if (openapiCurrent.generation !== generation) {
    const docs = new Map(BUILT_IN_OPENAPI_V3);
    const custom = served().resources.slice(RESOURCES.length);
    for (const { group, version } of openapiGroupVersions(custom)) {
      docs.set(openapiV3Key(group, version), openapiV3Entry(group, version));
    }
    openapiCurrent = { generation, docs };
  }
  return openapiCurrent.docs;
}

/**
 * kubectl 1.27 rejects the `…spec.v2@v1.0+protobuf` spelling in a reply, so the protobuf
 * OpenAPI v2 document goes out as `…spec.v2.v1.0+protobuf` (kubectl-protocol.md §3).
 */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

function openapiV2(req: ApiRequest): ApiResponse {
  const accept = req.headers.accept ?? "";
  if (accept.includes("protobuf") || !/json|\*\/\*/.test(accept)) {
    // An empty body is a valid, empty protobuf Document: enough for create/apply to proceed.
    return { status: 200, headers: { "content-type": OPENAPI_V2_PROTOBUF }, raw: Buffer.alloc(0) };
  }
  return json({
    swagger: "2.0",
    info: { title: "Kubernetes", version: VERSION_INFO.gitVersion },
    paths: {},
    definitions: {},
  });
}

// ---------------------------------------------------------------------------------------------
// The handler

/**
 * Answers /version, /api, /apis, /api/v1, /apis/G, /apis/G/V (legacy or aggregated as the
 * Accept asks), /openapi/v2 and /openapi/v3[/...]; null for any other path. The resource lists
 * of the custom and external metrics group-versions are `handleMetricsApi`'s (dynamic), so
 * those paths also get null here.
 */
export function handleDiscovery(
  req: ApiRequest,
  version: typeof VERSION_INFO = VERSION_INFO,
): ApiResponse | null {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
  const accept = req.headers.accept;

  if (path === "/version") return json(version);

  if (path === "/api") {
    const aggregated = aggregatedDiscoveryVersion(accept);
    if (aggregated) return aggregatedList(aggregated, [discoveryGroup(undefined, ["v1"])]);
    const host = req.headers.host ?? "127.0.0.1";
    return json({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
    });
  }

  const groups = served().groups;
  if (path === "/apis") {
    const aggregated = aggregatedDiscoveryVersion(accept);
    if (aggregated) {
      return aggregatedList(
        aggregated,
        groups.map((g) => discoveryGroup(g.name, g.versions)),
      );
    }
    return json({ kind: "APIGroupList", apiVersion: "v1", groups: groups.map(apiGroup) });
  }

  if (path === "/api/v1") {
    return json({ kind: "APIResourceList", groupVersion: "v1", resources: apiResources("", "v1") });
  }

  if (path.startsWith("/apis/")) {
    const parts = path.slice("/apis/".length).split("/");
    const group = groups.find((g) => g.name === parts[0]);
    if (!group) return null;
    if (parts.length === 1) return json({ kind: "APIGroup", apiVersion: "v1", ...apiGroup(group) });
    if (parts.length !== 2 || !group.versions.includes(parts[1]!)) return null;
    if (METRICS_ADAPTER_GROUP_VERSIONS.some((m) => m.group === group.name)) return null;
    return json({
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: `${group.name}/${parts[1]}`,
      resources: apiResources(group.name, parts[1]!),
    });
  }

  if (path === "/openapi/v2") return openapiV2(req);

  if (path === "/openapi/v3") {
    const paths: Record<string, unknown> = {};
    for (const [key, { hash }] of openapiV3Docs()) {
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
    return json({ paths });
  }

  if (path.startsWith("/openapi/v3/")) {
    const entry = openapiV3Docs().get(path.slice("/openapi/v3/".length));
    if (!entry) return null;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      etag: `"${entry.hash}"`,
    };
    // Hashed URLs are immutable, as kube-apiserver marks them.
    if (req.query.get("hash") === entry.hash) headers["cache-control"] = "public, immutable";
    return { status: 200, headers, body: entry.doc };
  }

  return null;
}
