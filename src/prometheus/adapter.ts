// The Prometheus adapter: custom.metrics.k8s.io (v1beta1, v1beta2) and external.metrics.k8s.io
// (v1beta1) answered from PromQL, with prometheus-adapter's semantics:
// - discovery: each rule's seriesQuery through /api/v1/series (series seen within maxAge),
//   filtered by seriesFilters and name.matches, named by name.as, attached to the resources
//   its labels name (overrides, template); refreshed on an interval;
// - a query: the rule's metricsQuery with <<.Series>>, <<.LabelMatchers>> (the namespace and
//   the objects asked for, plus the metric selector) and <<.GroupBy>> (the resource's label),
//   run as an instant query; each sample is matched to an object by that label;
// - errors are the Status objects custom-metrics-apiserver returns: NotFound "the server could
//   not find the metric X for pods", InternalError "unable to fetch metrics" when Prometheus
//   fails (the reason goes to the log, not to the client, as upstream).
import { Quantity } from "../api/quantity.js";
import { parseSelector, type Selector } from "../api/selector.js";
import type { KubeClient } from "../kube/types.js";
import type { AdapterConfig, AdapterRule } from "./adapter-config.js";
import { expandTemplate } from "./adapter-config.js";
import { type Labels, type PrometheusOptions, queryInstant, series } from "./client.js";
import {
  discoverResources,
  type GroupResource,
  groupResourceText,
  isRootScoped,
  type KnownResource,
  listPath,
  ResourceMapper,
} from "./resources.js";

const CUSTOM = "custom.metrics.k8s.io";
const EXTERNAL = "external.metrics.k8s.io";
export const CUSTOM_VERSIONS = ["v1beta2", "v1beta1"] as const;

export interface AdapterResponse {
  status: number;
  body: unknown;
}

export interface AdapterOptions {
  prometheus: PrometheusOptions;
  config: AdapterConfig;
  /** Lists the objects a `*` request selects (pods by label selector, ...). */
  kube: KubeClient;
  /** Wall clock in ms (default Date.now): query time and the discovery window. */
  now?: () => number;
  /** Series not seen for this long are not discovered (prometheus-adapter's --metrics-max-age). */
  maxAgeMs?: number;
  /** Discovery interval for `start()` (prometheus-adapter's --metrics-relist-interval). */
  relistIntervalMs?: number;
  log?: (line: string) => void;
}

interface CustomEntry {
  rule: AdapterRule;
  seriesName: string;
  resource: GroupResource;
  namespaced: boolean;
  metric: string;
}

interface ExternalEntry {
  rule: AdapterRule;
  seriesName: string;
}

function status(code: number, reason: string, message: string): AdapterResponse {
  return {
    status: code,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      code,
    },
  };
}

const ok = (body: unknown): AdapterResponse => ({ status: 200, body });
const pathNotFound = () =>
  status(404, "NotFound", "the server could not find the requested resource");
const notFound = (what: string, metric: string, name?: string) =>
  status(
    404,
    "NotFound",
    `the server could not find the metric ${metric} for ${what}${name !== undefined ? ` ${name}` : ""}`,
  );
// apierrors.NewInternalError: "Internal error occurred: <err>".
const internal = (message: string) =>
  status(500, "InternalError", `Internal error occurred: ${message}`);
const badRequest = (message: string) => status(400, "BadRequest", message);

/** A PromQL label matcher with the value as a string literal. */
function matcher(label: string, op: "=" | "!=" | "=~" | "!~", value: string): string {
  return `${label}${op}${JSON.stringify(value)}`;
}

/** A metric label selector as PromQL matchers (prometheus-adapter's rules: several values are a
 * regex alternation; `exists` is `!=""`, `!key` is `=""`; `>`/`<` are refused). */
function selectorMatchers(
  selector: Selector,
): { ok: true; exprs: string[]; values: Record<string, string> } | { ok: false; error: string } {
  const exprs: string[] = [];
  const values: Record<string, string> = {};
  for (const r of selector.requirements) {
    const many = r.values.length > 1;
    const value = r.values.join("|");
    switch (r.operator) {
      case "=":
        exprs.push(matcher(r.key, many ? "=~" : "=", value));
        break;
      case "!=":
        exprs.push(matcher(r.key, many ? "!~" : "!=", value));
        break;
      case "in":
        exprs.push(matcher(r.key, "=~", value));
        break;
      case "notin":
        exprs.push(matcher(r.key, "!~", value));
        break;
      case "exists":
        exprs.push(matcher(r.key, "!=", ""));
        break;
      case "!":
        exprs.push(matcher(r.key, "=", ""));
        break;
      default:
        return {
          ok: false,
          error: `operator ${String(r.operator)} is not supported in a metric selector`,
        };
    }
    values[r.key] = value;
  }
  return { ok: true, exprs, values };
}

/** The value as the adapter writes it: milli-units truncated toward zero; NaN is 0. */
function quantityText(value: number): string {
  if (Number.isNaN(value)) return "0";
  const milli = Number.isFinite(value)
    ? Math.trunc(value * 1000)
    : value > 0
      ? Number.MAX_SAFE_INTEGER
      : -Number.MAX_SAFE_INTEGER;
  return Quantity.fromMilli(BigInt(milli)).canonical();
}

export class PrometheusAdapter {
  readonly #options: AdapterOptions;
  readonly #now: () => number;
  #custom = new Map<string, CustomEntry>();
  #external = new Map<string, ExternalEntry>();
  #timer: NodeJS.Timeout | undefined;
  #mapper = new ResourceMapper();
  #lastError: string | null = null;
  #discovered = false;

  constructor(options: AdapterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether discovery has succeeded at least once, and its last error. */
  get state(): { discovered: boolean; lastError: string | null } {
    return { discovered: this.#discovered, lastError: this.#lastError };
  }

  /** The custom metrics discovered, as `resource/metric` (`pods/http_requests`). */
  customMetrics(): string[] {
    return [
      ...new Set(
        [...this.#custom.values()].map((e) => `${groupResourceText(e.resource)}/${e.metric}`),
      ),
    ].sort();
  }

  externalMetrics(): string[] {
    return [...this.#external.keys()].sort();
  }

  /** One discovery pass; on failure the previous metrics stay. */
  async refresh(): Promise<{ ok: true } | { ok: false; error: string }> {
    const { config } = this.#options;
    const now = this.#now() / 1000;
    const maxAge = (this.#options.maxAgeMs ?? 20 * 60_000) / 1000;
    const queries = [
      ...new Set([...config.rules, ...config.externalRules].map((r) => r.seriesQuery)),
    ];
    const found = new Map<string, Labels[]>();
    const answers = await Promise.all(
      queries.map(async (query) => ({
        query,
        answer: await series(this.#options.prometheus, [query], { start: now - maxAge, end: now }),
      })),
    );
    for (const { query, answer } of answers) {
      if (!answer.ok) {
        const error = `unable to update list of all metrics: unable to fetch metrics for query ${JSON.stringify(query)}: ${answer.message}`;
        this.#lastError = error;
        this.#options.log?.(error);
        return { ok: false, error };
      }
      found.set(query, answer.value);
    }
    // The cluster's resources, for labels and overrides that name custom resources.
    const served = await discoverResources((path) =>
      this.#options.kube.request({ method: "GET", path }),
    );
    if (served) this.#mapper = new ResourceMapper(served);
    const custom = new Map<string, CustomEntry>();
    for (const rule of config.rules) {
      for (const labels of this.#filtered(rule, found.get(rule.seriesQuery) ?? [])) {
        const name = labels.__name__!;
        const metric = this.#metricName(rule, name);
        if (metric === null) continue;
        for (const resource of this.#resourcesForSeries(rule, labels)) {
          const namespaced = !isRootScoped(resource);
          custom.set(key(resource, namespaced, metric), {
            rule,
            seriesName: name,
            resource,
            namespaced,
            metric,
          });
        }
      }
    }
    const external = new Map<string, ExternalEntry>();
    for (const rule of config.externalRules) {
      for (const labels of this.#filtered(rule, found.get(rule.seriesQuery) ?? [])) {
        const name = labels.__name__!;
        const metric = this.#metricName(rule, name);
        if (metric !== null) external.set(metric, { rule, seriesName: name });
      }
    }
    this.#custom = custom;
    this.#external = external;
    this.#lastError = null;
    this.#discovered = true;
    return { ok: true };
  }

  /** Discovery now and every relist interval until `stop()`. */
  async start(): Promise<void> {
    await this.refresh();
    const every = this.#options.relistIntervalMs ?? 60_000;
    this.#timer = setInterval(() => void this.refresh(), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #filtered(rule: AdapterRule, all: Labels[]): Labels[] {
    return all.filter(
      (labels) =>
        typeof labels.__name__ === "string" &&
        rule.filters.every((f) => f.regex.test(labels.__name__!) === f.positive),
    );
  }

  #metricName(rule: AdapterRule, seriesName: string): string | null {
    const match = new RegExp(rule.nameMatches.source, rule.nameMatches.flags.replace("g", "")).exec(
      seriesName,
    );
    if (!match) return null;
    return expandTemplate(rule.nameAs, match);
  }

  /** The resources a series' labels name: overrides first, then the template's form. */
  #resourcesForSeries(rule: AdapterRule, labels: Labels): GroupResource[] {
    const out: GroupResource[] = [];
    for (const label of Object.keys(labels)) {
      const override = rule.overrides.get(label);
      if (override) {
        out.push(this.#normalized(override));
        continue;
      }
      const match = rule.templateLabel?.exec(label);
      if (!match) continue;
      const group = (match.groups?.group ?? "").replace(/_/g, ".");
      const known = this.#mapper.normalize(group, match.groups?.resource ?? "");
      if (known) out.push({ group: known.group, resource: known.resource });
    }
    return out;
  }

  /** An override's resource as the cluster names it (a custom resource's plural). */
  #normalized(target: GroupResource): GroupResource {
    const known = this.#mapper.normalize(target.group, target.resource);
    return known ? { group: known.group, resource: known.resource } : target;
  }

  /** The label that carries a resource's object names in a rule's series. */
  #labelForResource(rule: AdapterRule, resource: GroupResource): string | null {
    for (const [label, target] of rule.overrides) {
      const normalized = this.#normalized(target);
      if (normalized.group === resource.group && normalized.resource === resource.resource) {
        return label;
      }
    }
    if (!rule.template) return null;
    const known = this.#mapper.normalize(resource.group, resource.resource);
    const label = rule.template.execute({
      Group: resource.group.replace(/[.-]/g, "_"),
      Resource: known?.singular ?? resource.resource,
    });
    return label === "" ? null : label;
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  /** Answers a GET under /apis/custom.metrics.k8s.io or /apis/external.metrics.k8s.io; null for
   * other paths. */
  async handle(
    method: string,
    path: string,
    query: URLSearchParams,
  ): Promise<AdapterResponse | null> {
    const segments = path
      .split("/")
      .filter((s) => s !== "")
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });
    if (segments[0] !== "apis" || (segments[1] !== CUSTOM && segments[1] !== EXTERNAL)) return null;
    if (method !== "GET") {
      return status(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      );
    }
    const version = segments[2];
    const rest = segments.slice(3);
    if (segments[1] === CUSTOM) {
      if (version === undefined) return ok(this.apiGroup(CUSTOM));
      if (!(CUSTOM_VERSIONS as readonly string[]).includes(version)) return pathNotFound();
      return this.#custom_(version, rest, query);
    }
    if (version === undefined) return ok(this.apiGroup(EXTERNAL));
    if (version !== "v1beta1") return pathNotFound();
    return this.#external_(rest, query);
  }

  /** The APIGroup discovery document of a group this adapter serves. */
  apiGroup(group: string): object {
    const versions = group === CUSTOM ? CUSTOM_VERSIONS : (["v1beta1"] as const);
    const list = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
    return {
      kind: "APIGroup",
      apiVersion: "v1",
      name: group,
      versions: list,
      preferredVersion: list[0],
    };
  }

  /** The APIResourceList of a served group version. */
  resourceList(group: string, version: string): object {
    if (group === CUSTOM) {
      return {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: `${CUSTOM}/${version}`,
        resources: [...this.#custom.values()]
          .map((e) => ({
            name: `${groupResourceText(e.resource)}/${e.metric}`,
            singularName: "",
            namespaced: e.namespaced,
            kind: "MetricValueList",
            verbs: ["get"],
          }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      };
    }
    return {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: `${EXTERNAL}/v1beta1`,
      resources: this.externalMetrics().map((name) => ({
        name,
        singularName: "",
        namespaced: true,
        kind: "ExternalMetricValueList",
        verbs: ["get"],
      })),
    };
  }

  async #custom_(
    version: string,
    rest: string[],
    query: URLSearchParams,
  ): Promise<AdapterResponse> {
    if (rest.length === 0) return ok(this.resourceList(CUSTOM, version));
    // namespaces/NS/RESOURCE/NAME/METRIC; RESOURCE/NAME/METRIC (root-scoped);
    // namespaces/NAME/metrics/METRIC (the namespace object's metric).
    let namespace: string | null = null;
    let resourceSegment: string;
    let name: string;
    let metric: string;
    if (rest.length === 4 && rest[0] === "namespaces" && rest[2] === "metrics") {
      [resourceSegment, name, metric] = ["namespaces", rest[1]!, rest[3]!];
    } else if (rest.length === 5 && rest[0] === "namespaces") {
      [namespace, resourceSegment, name, metric] = [rest[1]!, rest[2]!, rest[3]!, rest[4]!];
    } else if (rest.length === 3) {
      [resourceSegment, name, metric] = [rest[0]!, rest[1]!, rest[2]!];
    } else return pathNotFound();
    const known = this.#mapper.parseSegment(resourceSegment);
    const resource: GroupResource = known
      ? { group: known.group, resource: known.resource }
      : {
          group: resourceSegment.includes(".")
            ? resourceSegment.slice(resourceSegment.indexOf(".") + 1)
            : "",
          resource: resourceSegment.split(".")[0]!,
        };
    const what = groupResourceText(resource);
    const labels = parseSelector(query.get("labelSelector") ?? "");
    if (!labels.ok) return badRequest(labels.error);
    const metricSelector = parseSelector(query.get("metricLabelSelector") ?? "");
    if (!metricSelector.ok) return badRequest(metricSelector.error);

    const entry = this.#custom.get(key(resource, namespace !== null, metric));
    if (!entry) return notFound(what, metric);
    let names: string[];
    if (name === "*") {
      if (!known) return internal("unable to list matching resources");
      const listed = await this.#listNames(known, namespace, query.get("labelSelector") ?? "");
      if (listed === null) return internal("unable to list matching resources");
      names = listed;
    } else names = [name];
    // No objects: no query to make, as prometheus-adapter (the metric is "not found").
    if (names.length === 0) return notFound(what, metric);

    const groupLabel = this.#labelForResource(entry.rule, resource);
    const matchers = selectorMatchers(metricSelector.selector);
    if (!matchers.ok) return notFound(what, metric);
    const exprs = [...matchers.exprs];
    const values: Record<string, string> = { ...matchers.values };
    if (namespace !== null) {
      const nsLabel = this.#labelForResource(entry.rule, { group: "", resource: "namespaces" });
      if (nsLabel === null) return notFound(what, metric);
      exprs.push(matcher(nsLabel, "=", namespace));
      values[nsLabel] = namespace;
    }
    if (groupLabel === null) return notFound(what, metric);
    const target = names.join("|");
    exprs.push(matcher(groupLabel, names.length > 1 ? "=~" : "=", target));
    values[groupLabel] = target;
    const promql = entry.rule.metricsQuery.execute({
      Series: entry.seriesName,
      LabelMatchers: exprs.join(","),
      LabelValuesByName: values,
      GroupBy: groupLabel,
      GroupBySlice: [groupLabel],
    });
    const now = this.#now();
    const answer = await queryInstant(this.#options.prometheus, promql, now / 1000);
    if (!answer.ok) {
      this.#options.log?.(
        `unable to fetch metrics from prometheus: ${answer.message} (query ${promql})`,
      );
      return internal("unable to fetch metrics");
    }
    const byName = new Map<string, number>();
    for (const sample of answer.value) {
      byName.set(sample.metric[groupLabel] ?? "", sample.sample.value);
    }
    if (name !== "*" && !byName.has(name)) return notFound(what, metric, name);
    const selector = metricSelectorObject(query.get("metricLabelSelector") ?? "");
    const timestamp = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
    const apiVersion = known
      ? known.group
        ? `${known.group}/${known.version}`
        : `/${known.version}`
      : "";
    const items = names
      .filter((n) => byName.has(n))
      .map((objectName) => {
        const describedObject = {
          kind: known?.kind ?? "",
          ...(namespace !== null ? { namespace } : {}),
          name: objectName,
          apiVersion,
        };
        const value = quantityText(byName.get(objectName)!);
        return version === "v1beta1"
          ? {
              describedObject,
              metricName: metric,
              timestamp,
              value,
              ...(selector ? { selector } : {}),
            }
          : {
              describedObject,
              metric: { name: metric, ...(selector ? { selector } : {}) },
              timestamp,
              value,
            };
      });
    return ok({ kind: "MetricValueList", apiVersion: `${CUSTOM}/${version}`, metadata: {}, items });
  }

  async #listNames(
    known: KnownResource,
    namespace: string | null,
    labelSelector: string,
  ): Promise<string[] | null> {
    try {
      const response = await this.#options.kube.request<{
        items?: { metadata?: { name?: string } }[];
      }>({
        method: "GET",
        path: listPath(known, namespace),
        query: labelSelector ? { labelSelector } : {},
      });
      if (response.status !== 200 || !Array.isArray(response.body?.items)) {
        this.#options.log?.(`unable to list matching resource names: HTTP ${response.status}`);
        return null;
      }
      return response.body.items.flatMap((item) =>
        item.metadata?.name ? [item.metadata.name] : [],
      );
    } catch (error) {
      this.#options.log?.(`unable to list matching resource names: ${(error as Error).message}`);
      return null;
    }
  }

  async #external_(rest: string[], query: URLSearchParams): Promise<AdapterResponse> {
    if (rest.length === 0) return ok(this.resourceList(EXTERNAL, "v1beta1"));
    if (rest[0] !== "namespaces" || rest.length !== 3) return pathNotFound();
    const [, namespace, metric] = rest as [string, string, string];
    const selector = parseSelector(query.get("labelSelector") ?? "");
    if (!selector.ok) return badRequest(selector.error);
    // custom-metrics-apiserver names the namespace resource only for the default namespace.
    const what = namespace === "default" ? "namespaces" : "";
    const entry = this.#external.get(metric);
    if (!entry) return notFound(what, metric);
    const matchers = selectorMatchers(selector.selector);
    if (!matchers.ok) return badRequest(matchers.error);
    const exprs = [...matchers.exprs];
    const values: Record<string, string> = { ...matchers.values };
    if (entry.rule.namespaced) {
      const nsLabel = this.#labelForResource(entry.rule, { group: "", resource: "namespaces" });
      if (nsLabel !== null) {
        exprs.push(matcher(nsLabel, "=", namespace));
        values[nsLabel] = namespace;
      }
    }
    const promql = entry.rule.metricsQuery.execute({
      Series: entry.seriesName,
      LabelMatchers: exprs.join(","),
      LabelValuesByName: values,
      GroupBy: "",
      GroupBySlice: [],
    });
    const answer = await queryInstant(this.#options.prometheus, promql, this.#now() / 1000);
    if (!answer.ok) {
      this.#options.log?.(
        `unable to fetch metrics from prometheus: ${answer.message} (query ${promql})`,
      );
      return internal("unable to fetch metrics");
    }
    const items = answer.value.map((sample) => {
      const { __name__: _name, ...metricLabels } = sample.metric;
      return {
        metricName: metric,
        metricLabels,
        timestamp: new Date(sample.sample.t * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
        value: quantityText(sample.sample.value),
      };
    });
    return ok({
      kind: "ExternalMetricValueList",
      apiVersion: `${EXTERNAL}/v1beta1`,
      metadata: {},
      items,
    });
  }
}

const key = (resource: GroupResource, namespaced: boolean, metric: string) =>
  `${groupResourceText(resource)}|${namespaced}|${metric}`;

/** metav1.ParseToLabelSelector of the request's metric selector, for the answer. */
function metricSelectorObject(text: string): object | null {
  if (text.trim() === "") return null;
  const parsed = parseSelector(text);
  if (!parsed.ok || parsed.selector.requirements.length === 0) return null;
  const matchLabels: Record<string, string> = {};
  const matchExpressions: { key: string; operator: string; values?: string[] }[] = [];
  for (const r of parsed.selector.requirements) {
    if (r.operator === "=" && r.values.length === 1) matchLabels[r.key] = r.values[0]!;
    else if (r.operator === "in" || r.operator === "=")
      matchExpressions.push({ key: r.key, operator: "In", values: r.values });
    else if (r.operator === "notin" || r.operator === "!=")
      matchExpressions.push({ key: r.key, operator: "NotIn", values: r.values });
    else if (r.operator === "exists") matchExpressions.push({ key: r.key, operator: "Exists" });
    else if (r.operator === "!") matchExpressions.push({ key: r.key, operator: "DoesNotExist" });
  }
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}
