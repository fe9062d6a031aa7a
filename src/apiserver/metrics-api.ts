// The metrics APIs over the embedded cluster's metrics pipeline, with the wire shapes of the
// servers a real cluster runs behind the aggregator:
// - metrics.k8s.io/v1beta1 (metrics-server): PodMetrics and NodeMetrics, what `kubectl top`
//   and the HPA's resource metrics client read;
// - custom.metrics.k8s.io/v1beta2 and v1beta1 (a Prometheus adapter built on
//   custom-metrics-apiserver): MetricValueList for pods and for described objects;
// - external.metrics.k8s.io/v1beta1: ExternalMetricValueList.
// Errors are Status objects worded as those servers word them (custom-metrics-apiserver's
// provider errors: "the server could not find the metric X for pods"); an outage is the
// aggregator's plain-text 503.

import { formatDuration } from "../api/duration.js";
import { Quantity } from "../api/quantity.js";
import { parseSelector, type Selector, selectorMatches } from "../api/selector.js";
import { rfc3339 } from "../api/time.js";
import type {
  KubeObject,
  LabelSelector,
  LabelSelectorRequirement,
  MetricSpec,
} from "../api/types.js";
import type { EmbeddedCluster } from "../cluster/cluster.js";
import type { ObjectMetricModel } from "../cluster/cluster-model.js";
import type { PodRecord } from "../cluster/model.js";
import { samplesByName } from "../core/replica-calculator.js";
import { groupOf, pluralOf } from "../kinds/catalog.js";
import { isTableRequest, toTable } from "./tables.js";
import type { ApiRequest, ApiResponse } from "./types.js";

const METRICS = "metrics.k8s.io";
const CUSTOM = "custom.metrics.k8s.io";
const EXTERNAL = "external.metrics.k8s.io";
/** The node pods are bound to when the store holds no Node objects (as the handler serves it). */
const DEFAULT_NODE = "horizon-node";
const UNAVAILABLE = "the server is currently unable to handle the request";

function ok(body: unknown): ApiResponse {
  return { status: 200, headers: { "content-type": "application/json" }, body };
}

function status(code: number, reason: string, message: string, details?: object): ApiResponse {
  const body: Record<string, unknown> = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  };
  if (details) body.details = details;
  body.code = code;
  return { status: code, headers: { "content-type": "application/json" }, body };
}

const pathNotFound = () =>
  status(404, "NotFound", "the server could not find the requested resource");
const metricNotFound = (message: string) => status(404, "NotFound", message);
/**
 * An outage of a metrics server is answered by kube-aggregator, not by the server: its proxy
 * handler writes Go's http.Error(w, "service unavailable", 503) for an APIService that is not
 * Available (kube-aggregator pkg/apiserver/handler_proxy.go), a text/plain body. client-go then
 * words the generic 503 error with the request: "... (get pods.metrics.k8s.io)".
 */
const unavailable = (): ApiResponse => ({
  status: 503,
  headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  raw: "service unavailable\n",
});

/** Selector query parameter; a malformed one is a 400 as kube-apiserver answers it. */
function selectorParam(
  req: ApiRequest,
  name: string,
): { ok: true; selector: Selector } | { ok: false; response: ApiResponse } {
  const parsed = parseSelector(req.query.get(name) ?? "");
  if (!parsed.ok) return { ok: false, response: status(400, "BadRequest", parsed.error) };
  return { ok: true, selector: parsed.selector };
}

const EVERYTHING = (() => {
  const parsed = parseSelector("");
  if (!parsed.ok) throw new Error("empty selector must parse");
  return parsed.selector;
})();

/** A parsed string selector as the metav1.LabelSelector the pipeline's External source takes. */
function toLabelSelector(selector: Selector): LabelSelector | null {
  if (selector.requirements.length === 0) return null;
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const r of selector.requirements) {
    switch (r.operator) {
      case "=":
        matchLabels[r.key] = r.values[0] ?? "";
        break;
      case "!=":
        matchExpressions.push({ key: r.key, operator: "NotIn", values: r.values });
        break;
      case "in":
        matchExpressions.push({ key: r.key, operator: "In", values: r.values });
        break;
      case "notin":
        matchExpressions.push({ key: r.key, operator: "NotIn", values: r.values });
        break;
      case "exists":
        matchExpressions.push({ key: r.key, operator: "Exists" });
        break;
      case "!":
        matchExpressions.push({ key: r.key, operator: "DoesNotExist" });
        break;
    }
  }
  const out: LabelSelector = {};
  if (Object.keys(matchLabels).length > 0) out.matchLabels = matchLabels;
  if (matchExpressions.length > 0) out.matchExpressions = matchExpressions;
  return out;
}

/** The pipeline reports an outage through its observations' error text. */
function isOutage(error: string): boolean {
  return error.includes(UNAVAILABLE);
}

function milliText(milli: number | bigint): string {
  return Quantity.fromMilli(BigInt(milli)).canonical();
}

/**
 * Answers a metrics API path (after percent-decoding its segments, as kubectl sends
 * `pods/%2A/metric`), or null when the path is not one of the three metrics groups.
 */
export function handleMetricsApi(req: ApiRequest, cluster: EmbeddedCluster): ApiResponse | null {
  const segments = req.path
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  if (segments[0] !== "apis") return null;
  const group = segments[1];
  if (group !== METRICS && group !== CUSTOM && group !== EXTERNAL) return null;
  if (req.method !== "GET") {
    return status(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
    );
  }
  const version = segments[2];
  const rest = segments.slice(3);
  if (group === METRICS && version === "v1beta1") return resourceMetrics(req, cluster, rest);
  if (group === CUSTOM && (version === "v1beta1" || version === "v1beta2"))
    return customMetrics(req, cluster, version, rest);
  if (group === EXTERNAL && version === "v1beta1") return externalMetrics(req, cluster, rest);
  return pathNotFound();
}

// ---------------------------------------------------------------------------------------------
// metrics.k8s.io

/** Namespaces that hold pods (the cluster-wide list walks them in order). */
function podNamespaces(cluster: EmbeddedCluster): string[] {
  const names = new Set<string>();
  for (const pod of cluster.store.list("Pod")) names.add(pod.metadata.namespace ?? "default");
  return [...names].sort();
}

/**
 * The pod records of a namespace that the latest scrape saw, sorted by name; only those the
 * selector picks (the cluster's cached selector entry: an HPA's query reads its own pods, not
 * the namespace's).
 */
function scrapedPods(
  cluster: EmbeddedCluster,
  namespace: string,
  selector: Selector = EVERYTHING,
): PodRecord[] {
  const out: PodRecord[] = [];
  for (const pod of cluster.selectorEntry(namespace, selector).members) {
    if (cluster.metrics.podItem(pod)) out.push(pod);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A PodMetrics object (metrics-server: cpu canonical from nanocores, memory in BinarySI bytes). */
function podMetrics(cluster: EmbeddedCluster, pod: PodRecord, now: number): KubeObject | null {
  const item = cluster.metrics.podItem(pod);
  if (!item) return null;
  const metadata: KubeObject["metadata"] = {
    name: pod.name,
    namespace: pod.namespace,
    // metrics-server stamps the object with the time it was served.
    creationTimestamp: rfc3339(now),
  };
  const labels = pod.obj?.metadata.labels;
  if (labels && Object.keys(labels).length > 0) metadata.labels = labels;
  return {
    kind: "PodMetrics",
    apiVersion: "metrics.k8s.io/v1beta1",
    metadata,
    timestamp: rfc3339(item.timestamp),
    window: formatDuration(item.window),
    containers: item.containers.map((c) => ({
      name: c.name,
      usage: {
        cpu: milliText(c.usage.cpu ?? 0),
        memory: Quantity.fromInt(
          BigInt(Math.round((c.usage.memory ?? 0) / 1000)),
          "BinarySI",
        ).canonical(),
      },
    })),
  };
}

function nodeNames(cluster: EmbeddedCluster): string[] {
  const stored = cluster.store.list("Node").map((n) => n.metadata.name);
  return stored.length > 0 ? stored : [DEFAULT_NODE];
}

/** A NodeMetrics object: the sum of the scraped pods bound to the node. */
function nodeMetrics(cluster: EmbeddedCluster, name: string, now: number): KubeObject {
  let cpuMilli = 0;
  let memoryBytes = 0;
  let timestamp = cluster.metrics.lastScrapeAt;
  const single = nodeNames(cluster).length === 1;
  for (const namespace of podNamespaces(cluster)) {
    for (const pod of scrapedPods(cluster, namespace)) {
      const nodeName = (pod.obj?.spec as { nodeName?: string } | undefined)?.nodeName;
      if (!single && nodeName !== name) continue;
      const item = cluster.metrics.podItem(pod)!;
      timestamp = item.timestamp;
      for (const c of item.containers) {
        cpuMilli += c.usage.cpu ?? 0;
        memoryBytes += Math.round((c.usage.memory ?? 0) / 1000);
      }
    }
  }
  return {
    kind: "NodeMetrics",
    apiVersion: "metrics.k8s.io/v1beta1",
    metadata: { name, creationTimestamp: rfc3339(now) },
    timestamp: rfc3339(Number.isFinite(timestamp) ? timestamp : now),
    window: formatDuration(cluster.metrics.resolution),
    usage: {
      cpu: milliText(cpuMilli),
      memory: Quantity.fromInt(BigInt(memoryBytes), "BinarySI").canonical(),
    },
  };
}

/** metrics-server answers an outage of the pipeline (scenario metricsOutage) with 503. */
function resourceApiDown(cluster: EmbeddedCluster): boolean {
  // Asked of the pipeline directly: observing a probe metric cost a pass over a namespace's pods
  // on every request.
  return cluster.metrics.isDown("resource");
}

function listBody(kind: string, apiVersion: string, items: KubeObject[]): object {
  // List items carry no kind/apiVersion, as the apiserver writes lists.
  return {
    kind,
    apiVersion,
    metadata: {},
    items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest),
  };
}

function fieldFilter(req: ApiRequest): ((obj: KubeObject) => boolean) | ApiResponse {
  const text = req.query.get("fieldSelector") ?? "";
  if (text === "") return () => true;
  const terms: { field: string; value: string; negate: boolean }[] = [];
  for (const term of text.split(",")) {
    const m = /^([^=!]+)(==|=|!=)(.*)$/.exec(term.trim());
    if (!m)
      return status(400, "BadRequest", `invalid selector: '${text}'; can't understand '${term}'`);
    const field = m[1]!.trim();
    if (field !== "metadata.name" && field !== "metadata.namespace") {
      return status(400, "BadRequest", `field label not supported: ${field}`);
    }
    terms.push({ field, value: m[3]!.trim(), negate: m[2] === "!=" });
  }
  return (obj) =>
    terms.every((t) => {
      const actual =
        t.field === "metadata.name" ? obj.metadata.name : (obj.metadata.namespace ?? "");
      return (actual === t.value) !== t.negate;
    });
}

function resourceMetrics(req: ApiRequest, cluster: EmbeddedCluster, rest: string[]): ApiResponse {
  // /apis/metrics.k8s.io/v1beta1 itself is discovery's.
  const now = cluster.now;
  const table = isTableRequest(req.headers.accept);
  let namespace: string | undefined;
  let path = rest;
  if (path[0] === "namespaces" && path.length >= 3) {
    namespace = path[1];
    path = path.slice(2);
  }
  const resource = path[0];
  const name = path[1];
  if (path.length > 2 || (resource !== "pods" && resource !== "nodes")) return pathNotFound();
  if (resource === "nodes" && namespace !== undefined) return pathNotFound();
  if (resourceApiDown(cluster)) return unavailable();

  const labels = selectorParam(req, "labelSelector");
  if (!labels.ok) return labels.response;
  const fields = fieldFilter(req);
  if (typeof fields !== "function") return fields;

  if (resource === "pods") {
    if (name !== undefined) {
      const ns = namespace ?? "default";
      const pod = scrapedPods(cluster, ns).find((p) => p.name === name);
      const object = pod ? podMetrics(cluster, pod, now) : null;
      if (!object) {
        // metrics-server names the pod namespace/name in its NotFound.
        return status(404, "NotFound", `podmetrics.${METRICS} "${ns}/${name}" not found`, {
          name: `${ns}/${name}`,
          group: METRICS,
          kind: "podmetrics",
        });
      }
      return table ? ok(toTable("PodMetrics", [object], { now })) : ok(object);
    }
    const items: KubeObject[] = [];
    for (const ns of namespace !== undefined ? [namespace] : podNamespaces(cluster)) {
      for (const pod of scrapedPods(cluster, ns, labels.selector)) {
        if (!selectorMatches(labels.selector, pod.obj?.metadata.labels ?? {})) continue;
        const object = podMetrics(cluster, pod, now);
        if (object && fields(object)) items.push(object);
      }
    }
    if (table) return ok(toTable("PodMetrics", items, { now, listMeta: {} }));
    return ok(listBody("PodMetricsList", `${METRICS}/v1beta1`, items));
  }

  const nodes = nodeNames(cluster);
  if (name !== undefined) {
    if (!nodes.includes(name)) {
      return status(404, "NotFound", `nodemetrics.${METRICS} "${name}" not found`, {
        name,
        group: METRICS,
        kind: "nodemetrics",
      });
    }
    const object = nodeMetrics(cluster, name, now);
    return table ? ok(toTable("NodeMetrics", [object], { now })) : ok(object);
  }
  const nodeLabels = new Map(
    cluster.store.list("Node").map((n) => [n.metadata.name, n.metadata.labels ?? {}]),
  );
  const items = nodes
    .filter((n) => selectorMatches(labels.selector, nodeLabels.get(n) ?? {}))
    .map((n) => nodeMetrics(cluster, n, now))
    .filter(fields);
  if (table) return ok(toTable("NodeMetrics", items, { now, listMeta: {} }));
  return ok(listBody("NodeMetricsList", `${METRICS}/v1beta1`, items));
}

// ---------------------------------------------------------------------------------------------
// custom.metrics.k8s.io

/** `ingresses.networking.k8s.io`: schema.GroupResource.String() of an object model's target. */
function objectResource(model: ObjectMetricModel): string {
  const group = groupOf(model.describedObject.apiVersion);
  const plural = pluralOf(model.describedObject.kind);
  return group ? `${plural}.${group}` : plural;
}

/** Whether a URL resource names the model's target (qualified or bare plural). */
function resourceMatches(resource: string, model: ObjectMetricModel): boolean {
  return resource === objectResource(model) || resource === pluralOf(model.describedObject.kind);
}

/** `group/version` as custom-metrics-apiserver writes describedObject.apiVersion ("/v1" for core). */
function describedApiVersion(apiVersion: string): string {
  return apiVersion.includes("/") ? apiVersion : `/${apiVersion}`;
}

function customResourceList(cluster: EmbeddedCluster, version: string): object {
  const names: { name: string; namespaced: boolean }[] = [];
  const add = (name: string) => {
    if (!names.some((n) => n.name === name)) names.push({ name, namespaced: true });
  };
  for (const m of cluster.model.metrics.pods) add(`pods/${m.name}`);
  for (const m of cluster.model.metrics.object) add(`${objectResource(m)}/${m.name}`);
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${CUSTOM}/${version}`,
    resources: names.map((n) => ({
      name: n.name,
      singularName: "",
      namespaced: n.namespaced,
      kind: "MetricValueList",
      verbs: ["get"],
    })),
  };
}

interface MetricValue {
  kind: string;
  apiVersion: string;
  namespace: string;
  name: string;
  metric: string;
  timestamp: number;
  windowMs: number;
  valueMilli: number | bigint;
}

/** One MetricValue in the version's shape (v1beta2: `metric` + `windowSeconds`; v1beta1: `metricName` + `window`). */
function metricValue(version: string, v: MetricValue, selector: LabelSelector | null): object {
  const describedObject = {
    kind: v.kind,
    namespace: v.namespace,
    name: v.name,
    apiVersion: describedApiVersion(v.apiVersion),
  };
  const timestamp = rfc3339(v.timestamp);
  const windowSeconds = Math.round(v.windowMs / 1000);
  const value = milliText(v.valueMilli);
  if (version === "v1beta1") {
    return {
      describedObject,
      metricName: v.metric,
      timestamp,
      window: windowSeconds,
      value,
      selector,
    };
  }
  return { describedObject, metric: { name: v.metric, selector }, timestamp, windowSeconds, value };
}

function metricValueList(version: string, items: object[]): ApiResponse {
  return ok({ kind: "MetricValueList", apiVersion: `${CUSTOM}/${version}`, metadata: {}, items });
}

function customMetrics(
  req: ApiRequest,
  cluster: EmbeddedCluster,
  version: string,
  rest: string[],
): ApiResponse {
  if (rest.length === 0) return ok(customResourceList(cluster, version));
  // Namespaced: namespaces/NS/RESOURCE/NAME|*/METRIC; nothing root-scoped is modelled.
  if (rest[0] !== "namespaces" || rest.length !== 5) {
    if (rest.length === 3)
      return metricNotFound(`the server could not find the metric ${rest[2]} for ${rest[0]}`);
    if (rest.length === 4 && rest[0] === "namespaces" && rest[2] === "metrics") {
      return metricNotFound(
        `the server could not find the metric ${rest[3]} for namespaces ${rest[1]}`,
      );
    }
    return pathNotFound();
  }
  const [, namespace, resource, name, metric] = rest as [string, string, string, string, string];
  const labels = selectorParam(req, "labelSelector");
  if (!labels.ok) return labels.response;
  const metricSelector = selectorParam(req, "metricLabelSelector");
  if (!metricSelector.ok) return metricSelector.response;
  const selector = toLabelSelector(metricSelector.selector);

  if (resource === "pods") {
    const model = cluster.model.metrics.pods.find(
      (m) => m.namespace === namespace && m.name === metric,
    );
    if (!model) return metricNotFound(`the server could not find the metric ${metric} for pods`);
    const spec: MetricSpec = {
      type: "Pods",
      pods: { metric: { name: metric }, target: { type: "AverageValue" } },
    };
    const observed = cluster.metrics.observe(namespace, spec, labels.selector);
    if (observed.kind === "error") {
      return isOutage(observed.error)
        ? unavailable()
        : metricNotFound(stripClientPrefix(observed.error));
    }
    if (observed.kind !== "pods") return pathNotFound();
    const samples = samplesByName(observed.samples);
    const names = [...samples.keys()].sort();
    if (name !== "*") {
      const sample = samples.get(name);
      if (!sample)
        return metricNotFound(`the server could not find the metric ${metric} for pods ${name}`);
      names.splice(0, names.length, name);
    }
    const items = names.map((podName) => {
      const sample = samples.get(podName)!;
      return metricValue(
        version,
        {
          kind: "Pod",
          apiVersion: "v1",
          namespace,
          name: podName,
          metric,
          timestamp: sample.timestamp,
          windowMs: sample.window,
          valueMilli: sample.value,
        },
        selector,
      );
    });
    return metricValueList(version, items);
  }

  const models = cluster.model.metrics.object.filter(
    (m) =>
      m.namespace === namespace &&
      m.name === metric &&
      resourceMatches(resource, m) &&
      (name === "*" || m.describedObject.name === name),
  );
  if (models.length === 0) {
    return metricNotFound(
      name === "*"
        ? `the server could not find the metric ${metric} for ${resource}`
        : `the server could not find the metric ${metric} for ${resource} ${name}`,
    );
  }
  const items: object[] = [];
  for (const model of models) {
    const spec: MetricSpec = {
      type: "Object",
      object: {
        describedObject: model.describedObject,
        metric: { name: metric },
        target: { type: "Value" },
      },
    };
    const observed = cluster.metrics.observe(namespace, spec, EVERYTHING);
    if (observed.kind === "error") {
      if (isOutage(observed.error)) return unavailable();
      if (name !== "*") return metricNotFound(stripClientPrefix(observed.error));
      continue;
    }
    if (observed.kind !== "object") continue;
    items.push(
      metricValue(
        version,
        {
          kind: model.describedObject.kind,
          apiVersion: model.describedObject.apiVersion,
          namespace,
          name: model.describedObject.name,
          metric,
          timestamp: observed.timestamp,
          windowMs: model.rateWindowMs,
          valueMilli: observed.valueMilli,
        },
        selector,
      ),
    );
  }
  return metricValueList(version, items);
}

/** The pipeline words errors as the HPA's client reports them; the server's part is after the prefix. */
function stripClientPrefix(error: string): string {
  const prefix = /^unable to fetch metrics from (custom|external) metrics API: /;
  return error.replace(prefix, "");
}

// ---------------------------------------------------------------------------------------------
// external.metrics.k8s.io

function externalMetrics(req: ApiRequest, cluster: EmbeddedCluster, rest: string[]): ApiResponse {
  if (rest.length === 0) {
    const names: string[] = [];
    for (const m of cluster.model.metrics.external) if (!names.includes(m.name)) names.push(m.name);
    return ok({
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: `${EXTERNAL}/v1beta1`,
      resources: names.map((name) => ({
        name,
        singularName: "",
        namespaced: true,
        kind: "ExternalMetricValueList",
        verbs: ["get"],
      })),
    });
  }
  if (rest[0] !== "namespaces" || rest.length !== 3) return pathNotFound();
  const [, namespace, metric] = rest as [string, string, string];
  const labels = selectorParam(req, "labelSelector");
  if (!labels.ok) return labels.response;
  // No series selected: an empty list, as custom-metrics-apiserver's reference provider
  // (test-adapter GetExternalMetric) and prometheus-adapter (an empty query vector) answer;
  // the HPA then reports "no metrics returned from external metrics API".
  const empty = () =>
    ok({
      kind: "ExternalMetricValueList",
      apiVersion: `${EXTERNAL}/v1beta1`,
      metadata: {},
      items: [],
    });
  // The series (queues) this query selects, in the pipeline's order.
  const series = cluster.model.metrics.external.filter(
    (m) =>
      m.namespace === namespace &&
      m.name === metric &&
      selectorMatches(labels.selector, m.selector?.matchLabels ?? {}),
  );
  if (series.length === 0) return empty();
  const spec: MetricSpec = {
    type: "External",
    external: {
      metric: { name: metric, selector: toLabelSelector(labels.selector) },
      target: { type: "Value" },
    },
  };
  const observed = cluster.metrics.observe(namespace, spec, EVERYTHING);
  if (observed.kind === "error") return isOutage(observed.error) ? unavailable() : empty();
  if (observed.kind !== "external") return empty();
  const timestamp = rfc3339(observed.timestamp);
  const items = observed.valuesMilli.map((value, i) => ({
    metricName: metric,
    metricLabels: { ...(series[i]?.selector?.matchLabels ?? {}) },
    timestamp,
    value: milliText(value),
  }));
  return ok({
    kind: "ExternalMetricValueList",
    apiVersion: `${EXTERNAL}/v1beta1`,
    metadata: {},
    items,
  });
}
