// The API server handler core: a fetch-style function from ApiRequest to ApiResponse over the
// embedded cluster's store. The filter chain (filters.ts: auth, health, discovery, the metrics
// APIs) runs first; then routing, content negotiation, the verbs (get, list, watch, create,
// update, patch, delete), the scale and status subresources, and the HPA's per-request
// conversion (stored once as autoscaling/v2; v1 reads and writes go through src/api/conversion).

import { randomUUID } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { readHorizontalPodAutoscaler, writeHorizontalPodAutoscaler } from "../api/conversion.js";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { FeatureGates } from "../api/featuregates.js";
import { isRecord } from "../api/json.js";
import { mergePatch } from "../api/patch/merge-patch.js";
import { strategicMergePatch } from "../api/patch/strategic-merge-patch.js";
import type { HorizontalPodAutoscaler, KubeObject } from "../api/types.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  type FieldError,
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatusUpdate,
  validateObjectMeta,
} from "../api/validation.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import { applyWorkloadDefaults } from "../cluster/defaults.js";
import {
  carryDeletionFields,
  type DeleteOptions,
  defaultGcPolicy,
  deleteFromStore,
  deletionUpdateErrors,
  IMMORTAL_NAMESPACES,
  markNamespace,
  namespaceTerminating,
  parseDeleteOptions,
  prepareNamespaceCreate,
  prepareNamespaceUpdate,
  shouldDeleteDuringUpdate,
} from "../cluster/gc.js";
import { scaleOf } from "../cluster/ports.js";
import { StoreError } from "../cluster/store.js";
import { rfc3339 } from "../cluster/time.js";
import { parseSelector, type Selector, selectorMatches } from "../core/selector.js";
import { handleDiscovery } from "./discovery.js";
import {
  type ApiError,
  alreadyExists,
  badRequest,
  conflict,
  deleteSuccess,
  errorResponse,
  invalid,
  methodNotAllowed,
  notFound,
  pathNotFound,
  unsupportedMediaType,
  unsupportedPatchType,
} from "./errors.js";
import {
  conflictStatus,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  type ManagedFieldsEntry,
  schemaFor as managedSchemaFor,
  managerFromUserAgent,
  serverSideApply,
  setOf,
  trackScale,
  trackUpdate,
  type Versions,
  validateFieldManager,
} from "./fieldmanager/index.js";
import { fieldValue, parseFieldSelector } from "./fieldselectors.js";
import { authentication, chain, discovery, type Handler, health, metricsApis } from "./filters.js";
import { patchMetaOf } from "./kinds/patchmeta.js";
import { handleMetricsApi } from "./metrics-api.js";
import { normalizeTimes, type TimeDecodeContext, timeDecodeFailure } from "./microtime.js";
import { jsonPatch, type PatchResult } from "./patch.js";
import { decodeProtobufObject, PROTOBUF_CONTENT_TYPE } from "./protobuf.js";
import {
  apiVersionOf,
  findResource,
  parseResourcePath,
  RESOURCES,
  type RequestTarget,
  type ResourceInfo,
} from "./resources.js";
import { isTableRequest, TABLE_CONTENT_TYPE, toTable } from "./tables.js";
import type { ApiRequest, ApiResponse } from "./types.js";
import { dropPath, unknownFields } from "./unknownfields.js";
import { startWatch } from "./watch.js";

/** The sibling modules (discovery, tables, metrics APIs); injectable so tests can stub them. */
export interface ApiExtensions {
  handleDiscovery(req: ApiRequest): ApiResponse | null;
  toTable(
    kind: string,
    objects: KubeObject[],
    options: {
      includeObject?: "None" | "Object" | "Metadata";
      listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
    },
  ): object;
  isTableRequest(accept: string): boolean;
  handleMetricsApi(
    req: ApiRequest,
    cluster: EmbeddedCluster,
  ): Promise<ApiResponse> | ApiResponse | null;
}

export interface ApiHandlerOptions {
  cluster: EmbeddedCluster;
  featureGates?: FeatureGates;
  /** Bearer token every request must carry (none: no authentication). */
  token?: string;
  extensions?: Partial<ApiExtensions>;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (upstream: about a minute). */
  bookmarkIntervalMs?: number;
  /** Watch length without timeoutSeconds (upstream: --min-request-timeout, 1800 s). */
  defaultWatchTimeoutSeconds?: number;
}

type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

const JSON_HEADERS = { "content-type": "application/json" };
/** Namespaces kube-apiserver creates at startup (the system namespaces controller). */
const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];
const NODE_NAME = "horizon-node";

function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}
function fail<T>(error: ApiError): Result<T> {
  return { ok: false, error };
}

export function createApiHandler(options: ApiHandlerOptions): Handler {
  const extensions: Partial<ApiExtensions> = {
    handleDiscovery,
    toTable,
    isTableRequest,
    handleMetricsApi,
    ...options.extensions,
  };
  const server = new ApiServer(options);
  server.extensions = extensions;
  const handler = chain(
    [
      authentication(options.token),
      health,
      discovery(extensions.handleDiscovery),
      metricsApis(options.cluster, extensions.handleMetricsApi),
    ],
    (req) => server.handle(req),
  );
  return async (req) => {
    try {
      return await handler(req);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return errorResponse({
        status: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `Internal error occurred: ${message}`,
          reason: "InternalError",
          code: 500,
        },
      });
    }
  };
}

interface Ctx {
  req: ApiRequest;
  target: RequestTarget;
  info: ResourceInfo;
  namespace: string;
  apiVersion: string;
  dryRun: boolean;
  warnings: string[];
  /** managedFields already computed by server-side apply (src/apiserver/fieldmanager/). */
  managed?: ManagedFieldsEntry[];
}

class ApiServer {
  readonly cluster: EmbeddedCluster;
  readonly gates: FeatureGates;
  readonly bookmarkIntervalMs: number;
  readonly watchTimeout: number;
  extensions: Partial<ApiExtensions> = {};
  #nameCounter = 0;
  /** Who writes through scale now: a /scale request's manager, else the in-process controller. */
  #scaleManager = "kube-controller-manager";

  constructor(options: ApiHandlerOptions) {
    this.cluster = options.cluster;
    this.cluster.scaleManagedFields = (current, replicas) => this.scaleOwnership(current, replicas);
    this.gates = options.featureGates ?? FeatureGates.defaults();
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.watchTimeout = options.defaultWatchTimeoutSeconds ?? 1800;
    const store = this.cluster.store;
    for (const name of SYSTEM_NAMESPACES) {
      if (!store.get("Namespace", "", name)) {
        store.create({
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name, labels: { "kubernetes.io/metadata.name": name } },
          spec: { finalizers: ["kubernetes"] },
          status: { phase: "Active" },
        });
      }
    }
  }

  /** The resource endpoints: /api/v1/... and /apis/<group>/<version>/... */
  async handle(req: ApiRequest): Promise<ApiResponse> {
    const target = parseResourcePath(req.path);
    if (!target) return errorResponse(pathNotFound());
    const info = findResource(target.group, target.version, target.resource);
    if (!info) return errorResponse(pathNotFound());
    if (info.namespaced === false && target.namespace !== undefined) {
      return errorResponse(pathNotFound());
    }
    if (info.namespaced && target.name !== undefined && target.namespace === undefined) {
      return errorResponse(pathNotFound());
    }
    if (
      target.subresource !== undefined &&
      !info.subresources.includes(target.subresource as "status")
    ) {
      return errorResponse(pathNotFound());
    }
    const ctx: Ctx = {
      req,
      target,
      info,
      namespace: target.namespace ?? "",
      apiVersion: apiVersionOf(info.group, target.version),
      dryRun: req.query.getAll("dryRun").includes("All"),
      warnings: [],
    };
    const result = await this.dispatch(ctx);
    if (ctx.warnings.length > 0) {
      const warning = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ");
      result.headers = { ...(result.headers ?? {}), warning };
    }
    return result;
  }

  async dispatch(ctx: Ctx): Promise<ApiResponse> {
    const { req, target, info } = ctx;
    const method = req.method.toUpperCase();
    const invalidManager = this.checkFieldManager(ctx, method);
    if (invalidManager) return errorResponse(invalidManager);
    const watch =
      target.watchPath || req.query.get("watch") === "true" || req.query.get("watch") === "1";
    if (info.readOnly && method !== "GET")
      return errorResponse(methodNotAllowed(info, target.name));
    if (target.name === undefined) {
      if (method === "GET") return watch ? this.watch(ctx) : this.list(ctx);
      if (method === "POST") return this.respond(this.create(ctx));
      if (method === "DELETE") return this.respond(this.deleteCollection(ctx));
      return errorResponse(methodNotAllowed(info));
    }
    if (watch && method === "GET") {
      // A watch on one object: the same as a field selector on its name.
      const query = new URLSearchParams(req.query);
      const field = query.get("fieldSelector");
      query.set("fieldSelector", `metadata.name=${target.name}${field ? `,${field}` : ""}`);
      const { name: _name, ...collection } = target;
      return this.watch({ ...ctx, req: { ...req, query }, target: collection });
    }
    if (target.subresource === "scale") return this.scale(ctx, method);
    switch (method) {
      case "GET":
        return this.get(ctx);
      case "PUT":
        return this.respond(this.update(ctx));
      case "PATCH":
        return this.respond(this.patch(ctx));
      case "DELETE":
        return this.respond(this.delete(ctx));
      default:
        return errorResponse(methodNotAllowed(info, target.name));
    }
  }

  respond(result: Result<{ status: number; body: unknown }>): ApiResponse {
    if (!result.ok) return errorResponse(result.error);
    return { status: result.value.status, headers: { ...JSON_HEADERS }, body: result.value.body };
  }

  // -------------------------------------------------------------------------------------------
  // Field ownership (metadata.managedFields; the model is src/apiserver/fieldmanager/)

  /** `?fieldManager=` must be ≤ 128 bytes of printable characters (422 on the *Options kind). */
  checkFieldManager(ctx: Ctx, method: string): ApiError | null {
    const name = ctx.req.query.get("fieldManager");
    const kind = { POST: "CreateOptions", PUT: "UpdateOptions", PATCH: "PatchOptions" }[method];
    if (name === null || kind === undefined) return null;
    const errors = validateFieldManager(name);
    if (errors.length === 0) return null;
    const names = { resource: `${kind.toLowerCase()}s`, group: "meta.k8s.io", kind };
    return invalid(names, "", errors);
  }

  /** The writer: `?fieldManager=`, else the User-Agent's program name (prefixFromUserAgent). */
  managerName(ctx: Ctx): string {
    return (
      ctx.req.query.get("fieldManager") || managerFromUserAgent(ctx.req.headers["user-agent"] ?? "")
    );
  }

  /** An object of the request's version seen in another served version (the HPA's v1⇄v2). */
  versions(ctx: Ctx): Versions {
    const kind = ctx.info.kind;
    return (apiVersion) => {
      const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
      if (group !== ctx.info.group) return undefined;
      const schema = managedSchemaFor(kind, apiVersion);
      if (apiVersion === ctx.apiVersion) return { schema, view: (o) => o };
      if (kind !== "HorizontalPodAutoscaler") return undefined;
      return {
        schema,
        view: (o) => {
          const read = readHorizontalPodAutoscaler(o);
          if (!read.ok) return o;
          return writeHorizontalPodAutoscaler(
            read.value.hpa,
            apiVersion as "autoscaling/v1" | "autoscaling/v2",
          );
        },
      };
    };
  }

  /** Fields the endpoint's strategy resets: status on the main resource, spec on status. */
  ignoredFields(ctx: Ctx) {
    if (!ctx.info.subresources.includes("status")) return undefined;
    return setOf([[ctx.target.subresource === "status" ? "f:spec" : "f:status"]]);
  }

  /**
   * `next` with the managedFields of an Update by this request: from the request's own
   * managedFields when it sets them (`[]` or `[{}]` resets), else from the live object's.
   */
  withManagedFields(ctx: Ctx, live: KubeObject | undefined, next: KubeObject): KubeObject {
    let entries: ManagedFieldsEntry[];
    if (ctx.managed) {
      entries = ctx.managed;
    } else {
      const requested = next.metadata.managedFields;
      const fromLive = () => {
        const decoded = decodeManagedFields(live?.metadata.managedFields);
        return decoded.ok ? decoded.value : [];
      };
      let managed: ReturnType<typeof fromLive>;
      if (ctx.target.subresource !== undefined) managed = fromLive();
      else if (isResetManagedFields(requested)) managed = [];
      else {
        const decoded = decodeManagedFields(requested);
        managed = decoded.ok && decoded.value.length > 0 ? decoded.value : fromLive();
      }
      const tracked = trackUpdate(
        live ? this.present(ctx, live) : undefined,
        this.present(ctx, next),
        managed,
        {
          manager: this.managerName(ctx),
          apiVersion: ctx.apiVersion,
          subresource: ctx.target.subresource ?? "",
          now: rfc3339(this.cluster.now),
          versions: this.versions(ctx),
          ignored: this.ignoredFields(ctx),
        },
      );
      entries = encodeManagedFields(tracked);
    }
    const metadata = { ...next.metadata };
    if (entries.length > 0) metadata.managedFields = entries;
    else delete metadata.managedFields;
    return { ...next, metadata };
  }

  /** managedFields after spec.replicas is written through scale (upstream's ScaleHandler). */
  scaleOwnership(current: KubeObject, replicas: number): unknown {
    const decoded = decodeManagedFields(current.metadata.managedFields);
    if (!decoded.ok || decoded.value.length === 0) return current.metadata.managedFields;
    const spec = current.spec as { replicas?: number } | undefined;
    const tracked = trackScale(decoded.value, (spec?.replicas ?? 1) !== replicas, {
      manager: this.#scaleManager,
      apiVersion: current.apiVersion,
      now: rfc3339(this.cluster.now),
    });
    return encodeManagedFields(tracked);
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`): the applied configuration merged over
   * the live object with field ownership; conflicts are 409 unless `force=true`.
   */
  serverApply(
    ctx: Ctx,
    current: KubeObject | undefined,
  ): Result<{ status: number; body: unknown }> {
    const body = this.decodeBody(ctx, ["application/apply-patch+yaml"]);
    if (!body.ok) return body;
    const config = body.value;
    if (!isRecord(config)) {
      return fail(badRequest("error decoding YAML: the applied configuration is not an object"));
    }
    const meta = isRecord(config.metadata) ? config.metadata : {};
    if (meta.managedFields !== undefined && meta.managedFields !== null) {
      return fail(badRequest("metadata.managedFields must be nil"));
    }
    if (typeof config.apiVersion === "string" && config.apiVersion !== ctx.apiVersion) {
      return fail(
        badRequest(
          `Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion}, expected: ${ctx.apiVersion}`,
        ),
      );
    }
    const live = current ? this.present(ctx, current) : undefined;
    const decoded = decodeManagedFields(current?.metadata.managedFields);
    const force = ctx.req.query.get("force") === "true";
    const applied = serverSideApply(live, config, decoded.ok ? decoded.value : [], {
      manager: this.managerName(ctx),
      apiVersion: ctx.apiVersion,
      subresource: ctx.target.subresource ?? "",
      now: rfc3339(this.cluster.now),
      versions: this.versions(ctx),
      ignored: this.ignoredFields(ctx),
      force,
    });
    if (!applied.ok) {
      if ("conflicts" in applied) return fail({ status: conflictStatus(applied.conflicts) });
      return fail(badRequest(`failed to create typed patch object: ${applied.error}`));
    }
    const entries = encodeManagedFields(applied.managers);
    const merged = applied.object as Record<string, unknown>;
    if (!current) {
      const metadata = isRecord(merged.metadata) ? merged.metadata : {};
      merged.metadata = { ...metadata, name: ctx.target.name };
      return this.create({ ...ctx, managed: entries }, merged);
    }
    // Nothing changed, not even ownership: no write (the storage skips identical updates).
    if (
      !applied.changed &&
      JSON.stringify(entries) === JSON.stringify(current.metadata.managedFields ?? [])
    ) {
      return ok({ status: 200, body: this.present(ctx, current) });
    }
    return this.update({ ...ctx, managed: entries }, merged);
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  /** Stored objects of the resource in the request's namespace (all namespaces when none). */
  objects(ctx: Ctx): readonly KubeObject[] {
    if (ctx.info.kind === "Node") return this.nodes();
    const ns = ctx.info.namespaced ? ctx.target.namespace : undefined;
    return this.cluster.store.list(ctx.info.kind, ns);
  }

  lookup(ctx: Ctx, name: string): KubeObject | undefined {
    if (ctx.info.kind === "Node") return this.nodes().find((n) => n.metadata.name === name);
    return this.cluster.store.get(ctx.info.kind, ctx.namespace, name);
  }

  /** The Node list: stored Nodes, or one node carrying the simulated cluster's capacity. */
  nodes(): readonly KubeObject[] {
    const stored = this.cluster.store.list("Node");
    if (stored.length > 0) return stored;
    const capacity = {
      cpu: "64",
      memory: "256Gi",
      pods: String(this.cluster.model.capacityPods ?? 110),
    };
    const since = rfc3339(this.cluster.startTime);
    return [
      {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: NODE_NAME,
          uid: "00000000-0000-0000-0000-000000000001",
          resourceVersion: "1",
          creationTimestamp: since,
          labels: {
            "kubernetes.io/hostname": NODE_NAME,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
          },
        },
        spec: {},
        status: {
          capacity,
          allocatable: capacity,
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "KubeletReady",
              message: "kubelet is posting ready status",
              lastHeartbeatTime: since,
              lastTransitionTime: since,
            },
          ],
          nodeInfo: { kubeletVersion: "v1.34.0", operatingSystem: "linux", architecture: "amd64" },
        },
      },
    ];
  }

  /** The object as served in the request's version. */
  present(ctx: Ctx, object: KubeObject): KubeObject {
    if (ctx.info.kind === "HorizontalPodAutoscaler") {
      return writeHorizontalPodAutoscaler(
        object as unknown as HorizontalPodAutoscaler,
        ctx.apiVersion as "autoscaling/v1" | "autoscaling/v2",
      ) as KubeObject;
    }
    return { ...object, apiVersion: ctx.apiVersion, kind: ctx.info.kind };
  }

  isTable(ctx: Ctx): boolean {
    const accept = ctx.req.headers.accept ?? "";
    const check = this.extensions.isTableRequest;
    return this.extensions.toTable !== undefined && check?.(accept) === true;
  }

  table(ctx: Ctx, objects: KubeObject[], listMeta?: Record<string, unknown>): ApiResponse {
    const include = ctx.req.query.get("includeObject") as "None" | "Object" | "Metadata" | null;
    // A list Table carries the list's resourceVersion: `kubectl get -w` watches from it.
    const body = this.extensions.toTable!(ctx.info.kind, objects, {
      ...(include ? { includeObject: include } : {}),
      ...(listMeta ? { listMeta } : {}),
    });
    return { status: 200, headers: { ...JSON_HEADERS }, body };
  }

  get(ctx: Ctx): ApiResponse {
    const name = ctx.target.name!;
    const object = this.lookup(ctx, name);
    if (!object) return errorResponse(notFound(ctx.info, name));
    if (ctx.target.subresource === undefined && this.isTable(ctx)) return this.table(ctx, [object]);
    return { status: 200, headers: { ...JSON_HEADERS }, body: this.present(ctx, object) };
  }

  /** The filter of a list or watch: namespace, label and field selectors. */
  filter(ctx: Ctx): Result<(object: KubeObject) => boolean> {
    const labelText = ctx.req.query.get("labelSelector") ?? "";
    let labels: Selector | null = null;
    if (labelText.trim() !== "") {
      const parsed = parseSelector(labelText);
      if (!parsed.ok) return fail(badRequest(`unable to parse requirement: ${parsed.error}`));
      labels = parsed.selector;
    }
    const fields = parseFieldSelector(ctx.info.kind, ctx.req.query.get("fieldSelector") ?? "");
    if (!fields.ok) return fields;
    const namespace = ctx.info.namespaced ? ctx.target.namespace : undefined;
    return ok((object: KubeObject) => {
      if (namespace !== undefined && (object.metadata.namespace ?? "") !== namespace) return false;
      if (labels && !selectorMatches(labels, object.metadata.labels ?? {})) return false;
      return fields.value.every((term) => {
        const actual = fieldValue(object, term.field);
        return term.equal ? actual === term.value : actual !== term.value;
      });
    });
  }

  list(ctx: Ctx): ApiResponse {
    const filter = this.filter(ctx);
    if (!filter.ok) return errorResponse(filter.error);
    const rv = this.cluster.store.resourceVersion();
    let items = this.objects(ctx).filter(filter.value);
    const limitText = ctx.req.query.get("limit");
    const continueText = ctx.req.query.get("continue");
    const metadata: Record<string, unknown> = { resourceVersion: rv };
    if (continueText) {
      const start = decodeContinue(continueText);
      if (start === null) {
        return errorResponse(
          badRequest(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
          ),
        );
      }
      items = items.filter((o) => objectKey(o) > start);
    }
    const limit = limitText ? Number(limitText) : 0;
    if (Number.isInteger(limit) && limit > 0 && items.length > limit) {
      const remaining = items.length - limit;
      items = items.slice(0, limit);
      metadata.continue = encodeContinue(rv, objectKey(items[items.length - 1]!));
      // Upstream counts the rest only when no selector filters the list.
      if (!ctx.req.query.get("labelSelector") && !ctx.req.query.get("fieldSelector")) {
        metadata.remainingItemCount = remaining;
      }
    }
    if (this.isTable(ctx)) return this.table(ctx, items, metadata);
    const body = {
      kind: `${ctx.info.kind}List`,
      apiVersion: ctx.apiVersion,
      metadata,
      // Items of a typed list carry no kind/apiVersion of their own.
      items: items.map((o) => {
        const { kind: _k, apiVersion: _a, ...rest } = this.present(ctx, o);
        return rest;
      }),
    };
    return { status: 200, headers: { ...JSON_HEADERS }, body };
  }

  watch(ctx: Ctx): ApiResponse {
    const filter = this.filter(ctx);
    if (!filter.ok) return errorResponse(filter.error);
    const timeout = Number(ctx.req.query.get("timeoutSeconds") ?? "");
    const allow = ctx.req.query.get("allowWatchBookmarks");
    // `kubectl get -w` asks for Tables: each event then carries a one-row Table.
    const asTable = this.isTable(ctx);
    const include = ctx.req.query.get("includeObject") as "None" | "Object" | "Metadata" | null;
    return startWatch({
      store: this.cluster.store,
      kind: ctx.info.kind,
      matches: filter.value,
      present: asTable
        ? (object) =>
            this.extensions.toTable!(
              ctx.info.kind,
              [object],
              include ? { includeObject: include } : {},
            )
        : (object) => this.present(ctx, object),
      contentType: asTable ? TABLE_CONTENT_TYPE : "application/json",
      apiVersion: ctx.apiVersion,
      resourceVersion: ctx.req.query.get("resourceVersion") ?? "",
      allowBookmarks: allow === "true" || allow === "1",
      timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : this.watchTimeout,
      bookmarkIntervalMs: this.bookmarkIntervalMs,
      initial: () => this.objects(ctx).filter(filter.value),
    });
  }

  // -------------------------------------------------------------------------------------------
  // Decoding request bodies

  /**
   * The request body as JSON, YAML or Kubernetes protobuf (kubectl ≥ 1.32's typed clients send
   * protobuf with no fallback): 415 for other media types, 400 when malformed.
   */
  decodeBody(
    ctx: Ctx,
    allowed: readonly string[] = ["application/json", "application/yaml", PROTOBUF_CONTENT_TYPE],
  ): Result<unknown> {
    const contentType = (ctx.req.headers["content-type"] ?? "application/json")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (
      !allowed.includes(contentType) &&
      !(contentType === "" && allowed.includes("application/json"))
    ) {
      if (ctx.req.method.toUpperCase() === "PATCH") return fail(unsupportedPatchType(contentType));
      return fail(unsupportedMediaType(contentType));
    }
    if (contentType === PROTOBUF_CONTENT_TYPE) {
      const decoded = decodeProtobufObject(ctx.req.body ?? Buffer.alloc(0), ctx.info.kind);
      return decoded.ok ? ok(decoded.value) : fail(badRequest(decoded.error));
    }
    const text = ctx.req.body?.toString("utf8") ?? "";
    try {
      if (contentType === "application/yaml" || contentType === "application/apply-patch+yaml") {
        return ok(parseYaml(text));
      }
      return ok(JSON.parse(text));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return fail(badRequest(`couldn't get version/kind; json parse error: ${message}`));
    }
  }

  /**
   * A decoded body as an object of the request's resource in the stored version: type and
   * version checks, unknown fields (Strict: 400, Warn: warnings), HPA conversion to v2.
   */
  toStored(ctx: Ctx, body: unknown): Result<KubeObject> {
    if (!isRecord(body)) {
      return fail(
        badRequest(`the object provided is unrecognized (must be of type ${ctx.info.kind})`),
      );
    }
    const object: Record<string, unknown> = { ...body };
    object.apiVersion ??= ctx.apiVersion;
    object.kind ??= ctx.info.kind;
    if (object.kind !== ctx.info.kind || object.apiVersion !== ctx.apiVersion) {
      return fail(
        badRequest(
          `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${ctx.apiVersion})`,
        ),
      );
    }
    if (!isRecord(object.metadata)) object.metadata = {};
    // Time/MicroTime fields decode and re-encode as upstream's (a bad one fails the decode
    // before unknown fields are looked at).
    const times = normalizeTimes(ctx.info.kind, object);
    if (!times.ok) return fail(timeDecodeFailure(this.decodeContext(ctx, body), times.error));
    Object.assign(object, times.value);
    const unknown = unknownFields(ctx.info.kind, ctx.target.version, object);
    if (unknown.length > 0) {
      const mode = ctx.req.query.get("fieldValidation") ?? "Warn";
      const texts = unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
      if (mode === "Strict") {
        return fail(
          badRequest(
            `${ctx.info.kind} in version ${JSON.stringify(ctx.target.version)} cannot be handled as a ${ctx.info.kind}: strict decoding error: ${texts.join(", ")}`,
          ),
        );
      }
      if (mode === "Warn") ctx.warnings.push(...texts);
      for (const path of unknown) dropPath(object, path);
    }
    if (ctx.info.kind === "HorizontalPodAutoscaler") {
      const read = readHorizontalPodAutoscaler(object);
      if (!read.ok) return fail(badRequest(read.error));
      ctx.warnings.push(...read.value.warnings);
      return ok(read.value.hpa as unknown as KubeObject);
    }
    return ok(object as unknown as KubeObject);
  }

  /** What a decode error's Status depends on: the kind, version and, for a PATCH, the patch. */
  decodeContext(ctx: Ctx, patched: unknown): TimeDecodeContext {
    const context: TimeDecodeContext = { kind: ctx.info.kind, version: ctx.target.version };
    if (ctx.req.method.toUpperCase() !== "PATCH") return context;
    const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    let patchBody: unknown = null;
    try {
      patchBody = JSON.parse(ctx.req.body?.toString("utf8") ?? "");
    } catch {
      // Only a strategic merge patch's map is printed; the patch decoded before.
    }
    context.patch = { contentType, body: patchBody, patched };
    return context;
  }

  /** Namespace of the body against the URL's (upstream: 400 when they differ). */
  placeNamespace(ctx: Ctx, object: KubeObject): Result<KubeObject> {
    if (!ctx.info.namespaced) {
      const { namespace: _ns, ...metadata } = object.metadata;
      return ok({ ...object, metadata: metadata as KubeObject["metadata"] });
    }
    const given = object.metadata.namespace;
    if (given && given !== ctx.namespace) {
      return fail(
        badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        ),
      );
    }
    return ok({ ...object, metadata: { ...object.metadata, namespace: ctx.namespace } });
  }

  storeError(ctx: Ctx, err: unknown, name: string): ApiError {
    if (err instanceof StoreError) {
      if (err.reason === "AlreadyExists") return alreadyExists(ctx.info, name);
      if (err.reason === "NotFound") return notFound(ctx.info, name);
      return conflict(ctx.info, name);
    }
    throw err;
  }

  // -------------------------------------------------------------------------------------------
  // Writing

  create(ctx: Ctx, decoded?: unknown): Result<{ status: number; body: unknown }> {
    let body = decoded;
    if (body === undefined) {
      const parsed = this.decodeBody(ctx);
      if (!parsed.ok) return parsed;
      body = parsed.value;
    }
    const stored = this.toStored(ctx, body);
    if (!stored.ok) return stored;
    const placed = this.placeNamespace(ctx, stored.value);
    if (!placed.ok) return placed;
    let object = placed.value;
    if (ctx.info.namespaced && !this.cluster.store.get("Namespace", "", ctx.namespace)) {
      const namespaces = RESOURCES.find((r) => r.kind === "Namespace")!;
      return fail(notFound(namespaces, ctx.namespace));
    }
    if (ctx.info.namespaced && namespaceTerminating(this.cluster.store, ctx.namespace)) {
      // NamespaceLifecycle admission: named by the object's name, else its generateName.
      const given = object.metadata.name || (object.metadata.generateName as string) || "Unknown";
      const why = `unable to create new content in namespace ${ctx.namespace} because it is being terminated`;
      const cause = {
        reason: "NamespaceTerminating",
        message: `namespace ${ctx.namespace} is being terminated`,
        field: "metadata.namespace",
      };
      return fail(forbidden(ctx.info, given, why, [cause]));
    }
    // The name is generated before validation, as the registry's BeforeCreate does; a deletion
    // mark never comes with a new object.
    const metadata = { ...object.metadata };
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    // rest.FillObjectMetaSystemFields: the server sets uid and creationTimestamp on every
    // create, whatever the client sent (the store assigns them).
    delete metadata.uid;
    delete metadata.creationTimestamp;
    if (!metadata.name && typeof metadata.generateName === "string" && metadata.generateName) {
      metadata.name = this.generateName(ctx, metadata.generateName);
    }
    object = { ...object, metadata };
    const prepared = this.prepareCreate(ctx, object);
    if (!prepared.ok) return prepared;
    object = prepared.value;
    const name = object.metadata.name ?? "";
    const existing = this.lookup(ctx, name);
    if (existing) {
      const error = alreadyExists(ctx.info, name);
      // The generic registry's create says why the name is still taken.
      if (existing.metadata.deletionTimestamp)
        error.status.message = `object is being deleted: ${error.status.message}`;
      return fail(error);
    }
    object = this.withManagedFields(ctx, undefined, object);
    if (ctx.dryRun) {
      return ok({
        status: 201,
        body: this.present(ctx, {
          ...object,
          metadata: {
            ...object.metadata,
            uid: randomUUID(),
            creationTimestamp: rfc3339(this.cluster.now),
          },
        }),
      });
    }
    try {
      const created = this.cluster.store.create(object);
      return ok({ status: 201, body: this.present(ctx, created) });
    } catch (err) {
      return fail(this.storeError(ctx, err, name));
    }
  }

  generateName(ctx: Ctx, prefix: string): string {
    // Upstream: 5 random characters from an alphabet without vowels or look-alikes.
    const alphabet = "bcdfghjklmnpqrstvwxz2456789";
    for (;;) {
      let suffix = "";
      let n = ++this.#nameCounter * 7919 + Math.floor(Math.random() * 1e6);
      for (let i = 0; i < 5; i++) {
        suffix += alphabet[n % alphabet.length];
        n = Math.floor(n / alphabet.length) + i * 31;
      }
      const name = `${prefix}${suffix}`;
      if (!this.lookup(ctx, name)) return name;
    }
  }

  /** Strategy of a create: status reset, defaults, validation (422). */
  prepareCreate(ctx: Ctx, object: KubeObject): Result<KubeObject> {
    const name = object.metadata.name ?? "";
    if (ctx.info.kind === "HorizontalPodAutoscaler") {
      let hpa = object as unknown as HorizontalPodAutoscaler;
      hpa = dropDisabledHorizontalPodAutoscalerFields(hpa, undefined, this.gates);
      hpa = setDefaultsHorizontalPodAutoscaler(hpa);
      // PrepareForCreate clears the status: only the controller writes it.
      hpa.status = { desiredReplicas: 0 } as HorizontalPodAutoscaler["status"];
      const errors = validateHorizontalPodAutoscaler(hpa, { featureGates: this.gates });
      if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
      return ok(hpa as unknown as KubeObject);
    }
    const errors = metaErrors(ctx, object);
    if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
    let out = applyWorkloadDefaults(object);
    if (
      ["Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"].includes(ctx.info.kind)
    ) {
      const { status: _s, ...rest } = out;
      out = rest as KubeObject;
    }
    if (ctx.info.kind === "Namespace") out = prepareNamespaceCreate(out);
    return ok(out);
  }

  update(ctx: Ctx, decoded?: unknown): Result<{ status: number; body: unknown }> {
    let body = decoded;
    if (body === undefined) {
      const parsed = this.decodeBody(ctx);
      if (!parsed.ok) return parsed;
      body = parsed.value;
    }
    const stored = this.toStored(ctx, body);
    if (!stored.ok) return stored;
    const placed = this.placeNamespace(ctx, stored.value);
    if (!placed.ok) return placed;
    const object = placed.value;
    const name = ctx.target.name!;
    if (object.metadata.name !== name) {
      return fail(
        badRequest(
          `the name of the object (${object.metadata.name ?? ""}) does not match the name on the URL (${name})`,
        ),
      );
    }
    const current = this.lookup(ctx, name);
    if (!current) return fail(notFound(ctx.info, name));
    const expected = object.metadata.resourceVersion;
    if (expected && expected !== current.metadata.resourceVersion) {
      return fail(conflict(ctx.info, name));
    }
    // rest.BeforeUpdate: an update never removes or changes a deletion mark.
    const carried = carrySystemFields(carryDeletionFields(object, current), current);
    const prepared =
      ctx.target.subresource === "status"
        ? this.prepareStatusUpdate(ctx, carried, current)
        : this.prepareUpdate(ctx, carried, current);
    if (!prepared.ok) return prepared;
    if (ctx.target.subresource !== "status" && ctx.info.kind !== "HorizontalPodAutoscaler") {
      // (The HPA's validation already checks its metadata update.)
      const errors = deletionUpdateErrors(prepared.value, current);
      // ValidateObjectMetaUpdate: a uid other than the stored one is refused (after the
      // finalizer rule, before the deletion fields).
      const uid = prepared.value.metadata.uid ?? "";
      if (uid !== (current.metadata.uid ?? "")) {
        const at = errors.findIndex((e) => e.field !== "metadata.finalizers");
        errors.splice(at < 0 ? errors.length : at, 0, {
          type: "FieldValueInvalid",
          field: "metadata.uid",
          badValue: uid,
          // types.UID is not a plain string: json.Marshal quotes it.
          badValueJSON: true,
          detail: "field is immutable",
        });
      }
      if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
    }
    const next = this.withManagedFields(ctx, current, prepared.value);
    if (ctx.target.subresource !== "status" && shouldDeleteDuringUpdate(next, current)) {
      // The update emptied the finalizers of a terminating object: it is deleted, and the
      // answer is the object as the request left it.
      if (!ctx.dryRun) this.cluster.store.delete(ctx.info.kind, ctx.namespace, name);
      return ok({ status: 200, body: this.present(ctx, next) });
    }
    if (ctx.dryRun) return ok({ status: 200, body: this.present(ctx, next) });
    // A status write that changes managedFields stores the metadata too.
    const statusOnly =
      ctx.target.subresource === "status" &&
      JSON.stringify(next.metadata.managedFields) ===
        JSON.stringify(current.metadata.managedFields);
    try {
      const written = statusOnly
        ? this.cluster.store.updateStatus(ctx.info.kind, ctx.namespace, name, next.status)
        : this.cluster.store.update(next);
      return ok({ status: 200, body: this.present(ctx, written) });
    } catch (err) {
      return fail(this.storeError(ctx, err, name));
    }
  }

  /** Strategy of a spec update: the status subresource's fields stay as stored. */
  prepareUpdate(ctx: Ctx, object: KubeObject, current: KubeObject): Result<KubeObject> {
    const name = current.metadata.name;
    let next: KubeObject = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion },
    };
    if (ctx.info.subresources.includes("status")) {
      next = { ...next, status: current.status };
      if (current.status === undefined) delete next.status;
    }
    if (ctx.info.kind === "Namespace") next = prepareNamespaceUpdate(next, current);
    if (ctx.info.kind === "HorizontalPodAutoscaler") {
      const old = current as unknown as HorizontalPodAutoscaler;
      let hpa = next as unknown as HorizontalPodAutoscaler;
      hpa = dropDisabledHorizontalPodAutoscalerFields(hpa, old, this.gates);
      hpa = setDefaultsHorizontalPodAutoscaler(hpa);
      const errors = validateHorizontalPodAutoscaler(hpa, { featureGates: this.gates, old });
      if (errors.length > 0) return fail(invalid(ctx.info, name, errors));
      return ok(hpa as unknown as KubeObject);
    }
    return ok(applyWorkloadDefaults(next));
  }

  /** Strategy of a status update: only status changes. */
  prepareStatusUpdate(ctx: Ctx, object: KubeObject, current: KubeObject): Result<KubeObject> {
    const next: KubeObject = { ...current, status: object.status };
    if (ctx.info.kind === "HorizontalPodAutoscaler") {
      const errors = validateHorizontalPodAutoscalerStatusUpdate(
        next as unknown as HorizontalPodAutoscaler,
        current as unknown as HorizontalPodAutoscaler,
      );
      if (errors.length > 0) return fail(invalid(ctx.info, current.metadata.name, errors));
    }
    return ok(next);
  }

  /** The current object as the request's version sees it, patched by the request body. */
  applyPatch(ctx: Ctx, current: unknown): Result<{ patched: unknown; apply: boolean }> {
    const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const body = this.decodeBody(ctx, [contentType]);
    let result: PatchResult;
    // The merge keys of the object the request's version sees (a Scale has no lists).
    const schema =
      ctx.target.subresource === "scale"
        ? undefined
        : patchMetaOf(ctx.info.kind, ctx.target.version);
    switch (contentType) {
      case "application/merge-patch+json":
        if (!body.ok) return body;
        result = { ok: true, value: mergePatch(current, body.value) };
        break;
      case "application/json-patch+json":
        if (!body.ok) return body;
        result = jsonPatch(current, body.value);
        break;
      case "application/strategic-merge-patch+json":
        if (!body.ok) return body;
        result = strategicMergePatch(current, body.value, schema);
        break;
      case "application/apply-patch+yaml":
        if (!body.ok) return body;
        // Server-side apply without managedFields (a later slice): the applied configuration
        // is merged over the live object, with merge keys as in a strategic merge patch.
        result = strategicMergePatch(current, body.value, schema);
        break;
      default:
        return fail(unsupportedPatchType(contentType));
    }
    if (!result.ok) {
      return fail(
        result.code === 400
          ? badRequest(result.error)
          : {
              status: {
                kind: "Status",
                apiVersion: "v1",
                metadata: {},
                status: "Failure",
                message: result.error,
                reason: "Invalid",
                code: 422,
              },
            },
      );
    }
    return ok({ patched: result.value, apply: contentType === "application/apply-patch+yaml" });
  }

  patch(ctx: Ctx): Result<{ status: number; body: unknown }> {
    const name = ctx.target.name!;
    const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const isApply = contentType === "application/apply-patch+yaml";
    if (isApply && !ctx.req.query.get("fieldManager")) {
      return fail(
        invalid({ resource: "patchoptions", group: "meta.k8s.io", kind: "PatchOptions" }, "", [
          {
            type: "FieldValueRequired",
            field: "fieldManager",
            detail: "is required for apply patch",
          },
        ]),
      );
    }
    const current = this.lookup(ctx, name);
    // Server-side apply (fieldmanager/); it creates a missing object (201).
    if (isApply && (current || ctx.target.subresource === undefined)) {
      return this.serverApply(ctx, current);
    }
    if (!current) return fail(notFound(ctx.info, name));
    const patched = this.applyPatch(ctx, this.present(ctx, current));
    if (!patched.ok) return patched;
    return this.update(ctx, patched.value.patched);
  }

  delete(ctx: Ctx): Result<{ status: number; body: unknown }> {
    // DeleteOptions are decoded and validated before the object is looked up.
    const options = this.deleteOptions(ctx);
    if (!options.ok) return options;
    const name = ctx.target.name!;
    const current = this.lookup(ctx, name);
    if (!current) return fail(notFound(ctx.info, name));
    return this.deleteOne(ctx, current, options.value);
  }

  /** DeleteOptions from the body, or from the query when the body is empty (400 / 422). */
  deleteOptions(ctx: Ctx): Result<DeleteOptions> {
    const parsed = parseDeleteOptions(ctx.req.body?.toString("utf8") ?? "", ctx.req.query);
    if (!parsed.ok) {
      const error = parsed.error;
      if (error.reason === "BadRequest") return fail(badRequest(error.message));
      const names = { resource: "deleteoptions", group: "meta.k8s.io", kind: "DeleteOptions" };
      return fail(invalid(names, "", error.errors));
    }
    if (parsed.value.dryRun?.includes("All")) ctx.dryRun = true;
    return ok(parsed.value);
  }

  /**
   * The registry's delete (src/cluster/gc.ts): 200 with the object while it is only marked
   * (finalizers, a pod's grace period, a namespace being emptied), else 200 with the deleted
   * object or a Success Status per kind; 202 only for an unfinished delete that set the legacy
   * `orphanDependents: false`, as the delete handler does.
   */
  deleteOne(
    ctx: Ctx,
    current: KubeObject,
    options: DeleteOptions,
  ): Result<{ status: number; body: unknown }> {
    const name = current.metadata.name;
    const kind = ctx.info.kind;
    const pre = options.preconditions ?? {};
    const now = this.cluster.now;
    if (kind === "Namespace") {
      // NamespaceLifecycle admission, then the namespace REST's own preconditions and mark.
      if (IMMORTAL_NAMESPACES.has(name)) {
        return fail(forbidden(ctx.info, name, "this namespace may not be deleted"));
      }
      const uid = current.metadata.uid ?? "";
      if (pre.uid !== undefined && pre.uid !== uid) {
        const why = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`;
        return fail(conflict(ctx.info, name, why));
      }
      const rv = current.metadata.resourceVersion ?? "";
      if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) {
        const why = `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`;
        return fail(conflict(ctx.info, name, why));
      }
      const marked = markNamespace(current, options, now);
      if (marked) {
        const stored = ctx.dryRun
          ? marked
          : this.cluster.store.update({
              ...marked,
              metadata: { ...marked.metadata, resourceVersion: rv },
            });
        return ok({ status: 200, body: this.present(ctx, stored) });
      }
      const specFinalizers = (current.spec as { finalizers?: string[] } | undefined)?.finalizers;
      if ((specFinalizers ?? []).length > 0) {
        return ok({ status: 200, body: this.present(ctx, current) });
      }
    } else {
      // rest.BeforeDelete's preconditions (the conflict names the Kind, not the resource).
      const byKind = { resource: kind, group: ctx.info.group, kind };
      const uid = current.metadata.uid ?? "";
      if (pre.uid !== undefined && pre.uid !== uid) {
        const why = `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`;
        return fail(conflict(byKind, name, why));
      }
      const rv = current.metadata.resourceVersion ?? "";
      if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) {
        const why = `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${rv}). The object might have been modified`;
        return fail(conflict(byKind, name, why));
      }
    }
    const outcome = deleteFromStore(
      this.cluster.store,
      current,
      options,
      now,
      defaultGcPolicy(kind, ctx.apiVersion),
      ctx.dryRun,
    );
    const finished = outcome.deleted || outcome.pending;
    const body =
      !finished || ctx.info.returnsDeletedObject
        ? this.present(ctx, outcome.object)
        : deleteSuccess(ctx.info, name, outcome.object.metadata.uid);
    const status = !outcome.deleted && options.orphanDependents === false ? 202 : 200;
    return ok({ status, body });
  }

  /**
   * DELETE on a collection (deletecollection): the objects the label / field selectors list,
   * each deleted with the same options; answers with the list as it was before.
   */
  deleteCollection(ctx: Ctx): Result<{ status: number; body: unknown }> {
    if (
      !ctx.info.verbs.includes("deletecollection") ||
      (ctx.info.namespaced && ctx.target.namespace === undefined)
    ) {
      return fail(methodNotAllowed(ctx.info));
    }
    const options = this.deleteOptions(ctx);
    if (!options.ok) return options;
    const filter = this.filter(ctx);
    if (!filter.ok) return filter;
    const rv = this.cluster.store.resourceVersion();
    const items = this.objects(ctx).filter(filter.value);
    for (const item of items) {
      const current = this.lookup(ctx, item.metadata.name);
      if (!current) continue;
      const result = this.deleteOne(ctx, current, { ...options.value });
      if (!result.ok) return result;
    }
    return ok({
      status: 200,
      body: {
        kind: `${ctx.info.kind}List`,
        apiVersion: ctx.apiVersion,
        metadata: { resourceVersion: rv },
        items: items.map((o) => {
          const { kind: _k, apiVersion: _a, ...rest } = this.present(ctx, o);
          return rest;
        }),
      },
    });
  }

  // -------------------------------------------------------------------------------------------
  // The scale subresource (autoscaling/v1 Scale)

  scaleObject(object: KubeObject): Record<string, unknown> {
    const view = scaleOf(object);
    const metadata: Record<string, unknown> = {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
      creationTimestamp: object.metadata.creationTimestamp,
    };
    const status: Record<string, unknown> = { replicas: view.statusReplicas };
    if (view.selector !== "" && view.selector !== "<none>") status.selector = view.selector;
    return {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata,
      spec: { replicas: view.specReplicas },
      status,
    };
  }

  scale(ctx: Ctx, method: string): ApiResponse {
    const name = ctx.target.name!;
    const current = this.lookup(ctx, name);
    if (method !== "GET" && method !== "PUT" && method !== "PATCH") {
      return errorResponse(methodNotAllowed(ctx.info, name));
    }
    if (!current) return errorResponse(notFound(ctx.info, name));
    const scale = this.scaleObject(current);
    if (method === "GET") return { status: 200, headers: { ...JSON_HEADERS }, body: scale };
    let next: unknown;
    if (method === "PUT") {
      const body = this.decodeBody(ctx);
      if (!body.ok) return errorResponse(body.error);
      next = body.value;
    } else {
      const patched = this.applyPatch(ctx, scale);
      if (!patched.ok) return errorResponse(patched.error);
      next = patched.value.patched;
    }
    const scaleNames = { resource: "scales", group: "autoscaling", kind: "Scale" };
    const spec = isRecord(next) && isRecord(next.spec) ? next.spec : {};
    const meta = isRecord(next) && isRecord(next.metadata) ? next.metadata : {};
    const replicas = spec.replicas ?? 0;
    if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
      return errorResponse(
        badRequest(
          `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
        ),
      );
    }
    if (replicas < 0) {
      return errorResponse(
        invalid(scaleNames, name, [
          {
            type: "FieldValueInvalid",
            field: "spec.replicas",
            badValue: replicas,
            detail: "must be greater than or equal to 0",
          },
        ]),
      );
    }
    const expected = meta.resourceVersion;
    if (
      typeof expected === "string" &&
      expected !== "" &&
      expected !== current.metadata.resourceVersion
    ) {
      return errorResponse(conflict(ctx.info, name));
    }
    if (ctx.dryRun) {
      return { status: 200, headers: { ...JSON_HEADERS }, body: { ...scale, spec: { replicas } } };
    }
    // The request's manager owns spec.replicas after this write (scaleOwnership).
    const inProcess = this.#scaleManager;
    this.#scaleManager = this.managerName(ctx);
    const updated = this.cluster.scaleWorkload(ctx.namespace, ctx.info.kind, name, replicas);
    this.#scaleManager = inProcess;
    if (!updated) return errorResponse(notFound(ctx.info, name));
    return { status: 200, headers: { ...JSON_HEADERS }, body: this.scaleObject(updated) };
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * rest.BeforeUpdate: generation and creationTimestamp always come from the stored object, and
 * so does the uid when the client sent none (a different uid is then refused as immutable).
 */
function carrySystemFields(next: KubeObject, current: KubeObject): KubeObject {
  const metadata = { ...next.metadata };
  if (current.metadata.generation !== undefined) metadata.generation = current.metadata.generation;
  else delete metadata.generation;
  if (current.metadata.creationTimestamp)
    metadata.creationTimestamp = current.metadata.creationTimestamp;
  if (!metadata.uid && current.metadata.uid) metadata.uid = current.metadata.uid;
  return { ...next, metadata };
}

/** NewForbidden: `pods "x" is forbidden: <why>` (403), with optional causes. */
function forbidden(
  r: ResourceInfo,
  name: string,
  why: string,
  causes?: { reason: string; message: string; field: string }[],
): ApiError {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  const details: Record<string, unknown> = {};
  if (name) details.name = name;
  if (r.group) details.group = r.group;
  details.kind = r.resource;
  if (causes) details.causes = causes;
  return {
    status: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: name
        ? `${resource} "${name}" is forbidden: ${why}`
        : `${resource} is forbidden: ${why}`,
      reason: "Forbidden",
      details,
      code: 403,
    },
  };
}

function objectKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
}

/** Opaque continue token: the list's resourceVersion and the key the next page starts after. */
function encodeContinue(rv: string, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: Number(rv), start })).toString(
    "base64url",
  );
}

function decodeContinue(token: string): string | null {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (isRecord(parsed) && parsed.v === "meta.k8s.io/v1" && typeof parsed.start === "string") {
      return parsed.start;
    }
  } catch {
    // fall through
  }
  return null;
}

/** Metadata validation of kinds other than the HPA (name required, DNS subdomain names). */
function metaErrors(ctx: Ctx, object: KubeObject): FieldError[] {
  const errors = validateObjectMeta(object.metadata as never);
  // Cluster-scoped objects have no namespace to require.
  return ctx.info.namespaced ? errors : errors.filter((e) => e.field !== "metadata.namespace");
}
