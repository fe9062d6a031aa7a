// kube-apiserver's admission of a new Pod, for the plugins the cluster's objects drive, in
// upstream's order: LimitRanger (the namespace's LimitRanges default a container's requests
// and limits, then bound them), ServiceAccount (the pod's account must exist; its API token is
// mounted), Priority (spec.priority from the pod's PriorityClass or the global default),
// DefaultTolerationSeconds (5 minutes on a not-ready or unreachable node) and ResourceQuota (a
// pod that would take a quota past its hard limits is refused). The same admission serves a
// client's create and the cluster's controllers' pods. A refusal is the reason of upstream's
// 403: `pods "x" is forbidden: <reason>`.
import { isRecord } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import type { KubeObject } from "../api/types.js";
import { resourceList } from "../kinds/podvalidation.js";
import { quotaStatus } from "./quota.js";
import { randomSuffix, UNSEEDED } from "./random.js";
import { DEFAULT_SERVICE_ACCOUNT, syncServiceAccounts } from "./serviceaccounts.js";
import type { ObjectStore } from "./store.js";

type Json = Record<string, unknown>;
export type Admission = { ok: true; pod: KubeObject } | { ok: false; reason: string };

export const LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger";

/** Sorted entries of a ResourceList (Go's map order is random; upstream's messages sort). */
function quantities(list: unknown): [string, Quantity][] {
  return [...resourceList(list).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
}

interface Resources {
  requests: Map<string, Quantity>;
  limits: Map<string, Quantity>;
}

function resourcesOf(container: Json): Resources {
  const r = isRecord(container.resources) ? container.resources : {};
  return { requests: resourceList(r.requests), limits: resourceList(r.limits) };
}

function containersOf(spec: Json): { list: Json[]; prefix: string }[] {
  const list = (key: string) =>
    (Array.isArray(spec[key]) ? spec[key] : []).filter((c): c is Json => isRecord(c));
  return [
    { list: list("initContainers"), prefix: "init container" },
    { list: list("containers"), prefix: "container" },
  ];
}

// ---------------------------------------------------------------------------------------------
// LimitRanger

/** mergeContainerResources: the LimitRanges' defaults for what the container leaves unset. */
function defaultResources(
  spec: Json,
  ranges: readonly KubeObject[],
): { spec: Json; set: string[] } {
  const limits: [string, unknown][] = [];
  const requests: [string, unknown][] = [];
  for (const range of ranges) {
    const items = isRecord(range.spec) && Array.isArray(range.spec.limits) ? range.spec.limits : [];
    for (const item of items) {
      if (!isRecord(item) || item.type !== "Container") continue;
      if (isRecord(item.default)) limits.push(...Object.entries(item.default));
      if (isRecord(item.defaultRequest)) requests.push(...Object.entries(item.defaultRequest));
    }
  }
  if (limits.length === 0 && requests.length === 0) return { spec, set: [] };
  const set: string[] = [];
  const next: Json = { ...spec };
  for (const { list, prefix } of containersOf(spec)) {
    const key = prefix === "container" ? "containers" : "initContainers";
    if (!Array.isArray(spec[key])) continue;
    next[key] = list.map((container) => {
      const resources = isRecord(container.resources) ? container.resources : {};
      const have = {
        limits: { ...(isRecord(resources.limits) ? resources.limits : {}) },
        requests: { ...(isRecord(resources.requests) ? resources.requests : {}) },
      };
      const setLimits: string[] = [];
      const setRequests: string[] = [];
      for (const [name, value] of limits) {
        if (have.limits[name] !== undefined) continue;
        have.limits[name] = value;
        setLimits.push(name);
      }
      for (const [name, value] of requests) {
        if (have.requests[name] !== undefined) continue;
        have.requests[name] = value;
        setRequests.push(name);
      }
      if (setRequests.length > 0)
        set.push(`${setRequests.sort().join(", ")} request for ${prefix} ${container.name}`);
      if (setLimits.length > 0)
        set.push(`${setLimits.sort().join(", ")} limit for ${prefix} ${container.name}`);
      if (setLimits.length === 0 && setRequests.length === 0) return container;
      const out: Json = { ...resources };
      if (Object.keys(have.limits).length > 0) out.limits = have.limits;
      if (Object.keys(have.requests).length > 0) out.requests = have.requests;
      return { ...container, resources: out };
    });
  }
  return { spec: next, set };
}

/** minConstraint, maxConstraint and limitRequestRatioConstraint of one LimitRange item. */
function checkBounds(item: Json, kind: "Container" | "Pod", resources: Resources): string[] {
  const errors: string[] = [];
  for (const [name, min] of quantities(item.min)) {
    const request = resources.requests.get(name);
    const limit = resources.limits.get(name);
    const bound = `minimum ${name} usage per ${kind} is ${min.toString()}`;
    if (!request) errors.push(`${bound}.  No request is specified`);
    else if (request.cmp(min) < 0) errors.push(`${bound}, but request is ${request.toString()}`);
    else if (limit && limit.cmp(min) < 0) errors.push(`${bound}, but limit is ${limit.toString()}`);
  }
  for (const [name, max] of quantities(item.max)) {
    const request = resources.requests.get(name);
    const limit = resources.limits.get(name);
    const bound = `maximum ${name} usage per ${kind} is ${max.toString()}`;
    if (!limit) errors.push(`${bound}.  No limit is specified`);
    else if (limit.cmp(max) > 0) errors.push(`${bound}, but limit is ${limit.toString()}`);
    else if (request && request.cmp(max) > 0)
      errors.push(`${bound}, but request is ${request.toString()}`);
  }
  for (const [name, ratio] of quantities(item.maxLimitRequestRatio)) {
    const request = resources.requests.get(name);
    const limit = resources.limits.get(name);
    const bound = `${name} max limit to request ratio per ${kind} is ${ratio.toString()}`;
    if (!request || request.isZero()) {
      errors.push(`${bound}, but no request is specified or request is 0`);
    } else if (!limit || limit.isZero()) {
      errors.push(`${bound}, but no limit is specified or limit is 0`);
    } else {
      const observed = Number(limit.milliValue()) / Number(request.milliValue());
      if (observed * 1000 > Number(ratio.milliValue())) {
        errors.push(`${bound}, but provided ratio is ${observed.toFixed(6)}`);
      }
    }
  }
  return errors;
}

function sumInto(total: Map<string, Quantity>, add: Map<string, Quantity>): void {
  for (const [name, q] of add) total.set(name, total.get(name)?.add(q) ?? q);
}

/** PodValidateLimitFunc: each container within the Container items, the pod within Pod items. */
function validateLimits(spec: Json, ranges: readonly KubeObject[]): string[] {
  const errors: string[] = [];
  const containers = containersOf(spec).flatMap((c) => c.list);
  for (const range of ranges) {
    const items = isRecord(range.spec) && Array.isArray(range.spec.limits) ? range.spec.limits : [];
    for (const item of items) {
      if (!isRecord(item)) continue;
      if (item.type === "Container") {
        for (const container of containers) {
          errors.push(...checkBounds(item, "Container", resourcesOf(container)));
        }
      } else if (item.type === "Pod") {
        const pod: Resources = { requests: new Map(), limits: new Map() };
        for (const container of containers) {
          const r = resourcesOf(container);
          sumInto(pod.requests, r.requests);
          sumInto(pod.limits, r.limits);
        }
        errors.push(...checkBounds(item, "Pod", pod));
      }
    }
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Priority

function admitPriority(store: ObjectStore, spec: Json): { spec: Json } | { reason: string } {
  const name = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
  let priority = 0;
  let preemptionPolicy = "PreemptLowerPriority";
  let className = name;
  if (name === "") {
    // The global default with the lowest value, if any.
    const defaults = store
      .list("PriorityClass")
      .filter((c) => (c as Json).globalDefault === true)
      .sort((a, b) => Number((a as Json).value) - Number((b as Json).value));
    const chosen = defaults[0] as Json | undefined;
    if (chosen) {
      priority = Number(chosen.value);
      preemptionPolicy = String(chosen.preemptionPolicy ?? preemptionPolicy);
      className = (chosen.metadata as KubeObject["metadata"]).name;
    }
  } else {
    const found = store.get("PriorityClass", "", name) as Json | undefined;
    if (!found) return { reason: `no PriorityClass with name ${name} was found` };
    priority = Number(found.value);
    preemptionPolicy = String(found.preemptionPolicy ?? preemptionPolicy);
  }
  if (typeof spec.priority === "number" && spec.priority !== priority) {
    return {
      reason: `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    };
  }
  if (typeof spec.preemptionPolicy === "string" && spec.preemptionPolicy !== preemptionPolicy) {
    return {
      reason: `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
    };
  }
  return {
    spec: {
      ...spec,
      ...(className ? { priorityClassName: className } : {}),
      priority,
      preemptionPolicy,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// ResourceQuota

/** What one more pod adds to each quota resource it is counted in. */
function podUsage(spec: Json): Map<string, Quantity> {
  const usage = new Map<string, Quantity>([
    ["pods", Quantity.fromInt(1)],
    ["count/pods", Quantity.fromInt(1)],
  ]);
  const totals: Resources = { requests: new Map(), limits: new Map() };
  for (const container of containersOf(spec).find((c) => c.prefix === "container")!.list) {
    const r = resourcesOf(container);
    sumInto(totals.requests, r.requests);
    sumInto(totals.limits, r.limits);
  }
  for (const [name, q] of totals.requests) {
    usage.set(`requests.${name}`, q);
    if (name === "cpu" || name === "memory" || name === "ephemeral-storage") usage.set(name, q);
  }
  for (const [name, q] of totals.limits) usage.set(`limits.${name}`, q);
  return usage;
}

/** The compute resources a quota's hard list makes every container specify. */
function missingResources(hard: readonly string[], spec: Json): string[] {
  const missing = new Set<string>();
  for (const container of containersOf(spec).flatMap((c) => c.list)) {
    const r = resourcesOf(container);
    for (const resource of hard) {
      const [field, name] = resource.startsWith("limits.")
        ? (["limits", resource.slice(7)] as const)
        : resource.startsWith("requests.")
          ? (["requests", resource.slice(9)] as const)
          : (["requests", resource] as const);
      if (name !== "cpu" && name !== "memory") continue;
      if (!r[field].has(name)) missing.add(resource);
    }
  }
  return [...missing].sort();
}

const prettyPrint = (list: [string, Quantity][]) =>
  list.map(([name, q]) => `${name}=${q.toString()}`).join(",");

function admitQuota(store: ObjectStore, namespace: string, spec: Json): string | null {
  const usage = podUsage(spec);
  const quotas = store
    .list("ResourceQuota", namespace)
    .filter((q) => {
      const s = isRecord(q.spec) ? q.spec : {};
      // Scoped quotas (Terminating, BestEffort, PriorityClass…) are not enforced here.
      return !(Array.isArray(s.scopes) && s.scopes.length > 0) && !isRecord(s.scopeSelector);
    })
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const quota of quotas) {
    const hard = quantities(isRecord(quota.spec) ? quota.spec.hard : undefined);
    const missing = missingResources(
      hard.map(([name]) => name),
      spec,
    );
    if (missing.length > 0) {
      return `failed quota: ${quota.metadata.name}: must specify ${missing.join(",")}`;
    }
    const used = resourceList(quotaStatus(store, quota).used);
    const exceeded = hard.filter(([name, limit]) => {
      const requested = usage.get(name);
      if (!requested) return false;
      return (used.get(name) ?? Quantity.fromInt(0)).add(requested).cmp(limit) > 0;
    });
    if (exceeded.length > 0) {
      const names = exceeded.map(([name]) => name);
      const pick = (from: Map<string, Quantity>) =>
        names.map((n): [string, Quantity] => [n, from.get(n) ?? Quantity.fromInt(0)]);
      return `exceeded quota: ${quota.metadata.name}, requested: ${prettyPrint(pick(usage))}, used: ${prettyPrint(pick(used))}, limited: ${prettyPrint(exceeded)}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// ServiceAccount

const SERVICE_ACCOUNT_VOLUME_PREFIX = "kube-api-access-";
const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/** The bound token's lifetime the plugin asks for (3607 s: an hour, and a warning window). */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** names.SimpleNameGenerator's randomness (the cluster's seeded Random is the simulator's). */

/** The projected volume of the API token, the cluster's CA bundle and the pod's namespace. */
/** Frozen, all the way down: one object stands in every pod that shares it (memory). */
function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFrozen(member);
    Object.freeze(value);
  }
  return value;
}

/** The projection of the API token, the cluster's CA bundle and the pod's namespace. */
const TOKEN_PROJECTION = deepFrozen({
  sources: [
    { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
    { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
    {
      downwardAPI: {
        items: [
          { path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } },
        ],
      },
    },
  ],
  defaultMode: 0o644,
});

function tokenVolume(name: string): Json {
  return { name, projected: TOKEN_PROJECTION };
}

/**
 * The account (default: `default`) must exist; unless the pod or the account turns automounting
 * off, every container and init container without a mount at the token's path mounts the token
 * volume, added once (a volume already named kube-api-access-… is reused).
 */
function admitServiceAccount(
  store: ObjectStore,
  namespace: string,
  spec: Json,
): { spec: Json } | { reason: string } {
  const name =
    typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== ""
      ? spec.serviceAccountName
      : DEFAULT_SERVICE_ACCOUNT;
  let account = store.get("ServiceAccount", namespace, name);
  if (!account && name === DEFAULT_SERVICE_ACCOUNT) {
    // Upstream looks `default` up again for a second or so, as the service account controller
    // makes it as soon as the namespace exists: that controller's work, done now.
    syncServiceAccounts(store);
    account = store.get("ServiceAccount", namespace, name);
  }
  if (!account) {
    return {
      reason: `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`,
    };
  }
  // v1's deprecated serviceAccount mirrors serviceAccountName.
  const next: Json = { ...spec, serviceAccountName: name, serviceAccount: name };
  const automount =
    typeof spec.automountServiceAccountToken === "boolean"
      ? spec.automountServiceAccountToken
      : (account as { automountServiceAccountToken?: unknown }).automountServiceAccountToken !==
        false;
  if (!automount) return { spec: next };
  const volumes = (Array.isArray(spec.volumes) ? spec.volumes : []).filter(isRecord);
  const existing = volumes.find(
    (v) => typeof v.name === "string" && v.name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX),
  );
  const volumeName =
    (existing?.name as string | undefined) ??
    SERVICE_ACCOUNT_VOLUME_PREFIX + randomSuffix(UNSEEDED);
  const mount = { name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH };
  let mounted = false;
  for (const key of ["initContainers", "containers"]) {
    if (!Array.isArray(spec[key])) continue;
    next[key] = (spec[key] as unknown[]).map((container) => {
      if (!isRecord(container)) return container;
      const mounts = (Array.isArray(container.volumeMounts) ? container.volumeMounts : []).filter(
        isRecord,
      );
      if (mounts.some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) return container;
      mounted = true;
      return { ...container, volumeMounts: [...mounts, mount] };
    });
  }
  if (mounted && !existing) next.volumes = [...volumes, tokenVolume(volumeName)];
  return { spec: next };
}

// ---------------------------------------------------------------------------------------------
// DefaultTolerationSeconds

const NODE_TAINTS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];
const DEFAULT_TOLERATION_SECONDS = 300;

const DEFAULT_TOLERATIONS: readonly Json[] = deepFrozen(
  NODE_TAINTS.map((key) => ({
    key,
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
  })),
);

/**
 * The pod's tolerations with a NoExecute toleration of each node taint it does not already
 * tolerate (by key or all), or null when it tolerates both.
 */
function defaultTolerations(spec: Json): readonly Json[] | null {
  const tolerations = (Array.isArray(spec.tolerations) ? spec.tolerations : []).filter(isRecord);
  // The usual pod has none of its own: every such pod shares one list.
  if (tolerations.length === 0) return DEFAULT_TOLERATIONS;
  const added = DEFAULT_TOLERATIONS.filter(
    (d) =>
      !tolerations.some(
        (t) => (t.key === d.key || !t.key) && (t.effect === "NoExecute" || !t.effect),
      ),
  );
  return added.length === 0 ? null : [...tolerations, ...added];
}

// ---------------------------------------------------------------------------------------------

/** Which plugins run beside the ones every cluster has. */
export interface AdmissionOptions {
  /**
   * ServiceAccount: where kube-controller-manager's service account controller runs (`horizon
   * up`'s API server). `horizon simulate`'s cluster has no accounts to look pods up in.
   */
  serviceAccounts: boolean;
}

/** A new pod through the admission plugins: the pod to store, or why not. */
export function admitPod(
  store: ObjectStore,
  pod: KubeObject,
  options: AdmissionOptions = { serviceAccounts: false },
): Admission {
  const namespace = pod.metadata.namespace ?? "default";
  let spec = isRecord(pod.spec) ? pod.spec : {};
  let metadata = pod.metadata;
  const ranges = store.list("LimitRange", namespace);
  if (ranges.length > 0) {
    const defaulted = defaultResources(spec, ranges);
    if (defaulted.set.length > 0) {
      spec = defaulted.spec;
      metadata = {
        ...metadata,
        annotations: {
          ...(metadata.annotations ?? {}),
          [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${defaulted.set.join("; ")}`,
        },
      };
    }
    const errors = validateLimits(spec, ranges);
    if (errors.length > 0) return { ok: false, reason: aggregate(errors) };
  }
  if (options.serviceAccounts) {
    const account = admitServiceAccount(store, namespace, spec);
    if ("reason" in account) return { ok: false, reason: account.reason };
    spec = account.spec;
  }
  const priority = admitPriority(store, spec);
  if ("reason" in priority) return { ok: false, reason: priority.reason };
  // Priority's spec is this pod's own copy: DefaultTolerationSeconds sets its field in place.
  spec = priority.spec;
  const tolerations = defaultTolerations(spec);
  if (tolerations !== null) spec.tolerations = tolerations;
  const quota = admitQuota(store, namespace, spec);
  if (quota) return { ok: false, reason: quota };
  return { ok: true, pod: { ...pod, metadata, spec } };
}
