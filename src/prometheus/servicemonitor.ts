// The scrape configuration the Prometheus Operator generates for ServiceMonitors
// (monitoring.coreos.com/v1), on top of Horizon's HTTP service discovery instead of
// kubernetes_sd_configs: one job per endpoint, `serviceMonitor/<namespace>/<name>/<index>`,
// keeping the targets of the selected Services' Endpoints in the selected namespaces on the
// named port, and relabelling them to the `namespace`, `service`, `pod`, `container`, `job` and
// `endpoint` labels the operator gives (so prometheus-adapter rules keyed on namespace/pod work).
import { stringify } from "yaml";
import type { KubeObject } from "../api/types.js";
import { sanitizeLabelName } from "./sd.js";

export interface DiscoveryAccess {
  /** The HTTP SD endpoint for the `endpoints` role. */
  url: string;
  /** Bearer token of the API server, when it has one. */
  token?: string;
  /** The API server's CA, as a file Prometheus reads. */
  caFile?: string;
  refreshInterval: string;
}

export interface GlobalSettings {
  scrapeInterval: string;
  evaluationInterval?: string;
}

type Obj = Record<string, unknown>;
type Relabel = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const META = "__meta_kubernetes";
/** Prometheus' relabel replacement for the first capture group. */
const FIRST_GROUP = "$" + "{1}";
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Keep/drop rules of a Service label selector, as the operator writes them. */
function selectorRelabels(selector: Obj): Relabel[] {
  const out: Relabel[] = [];
  const labels = isObj(selector.matchLabels) ? selector.matchLabels : {};
  for (const key of Object.keys(labels).sort()) {
    const name = sanitizeLabelName(key);
    out.push({
      action: "keep",
      source_labels: [`${META}_service_label_${name}`, `${META}_service_labelpresent_${name}`],
      regex: `(${escapeRegex(String(labels[key]))});true`,
    });
  }
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const expression of expressions.filter(isObj)) {
    const name = sanitizeLabelName(String(expression.key));
    const values = (Array.isArray(expression.values) ? expression.values : []).map((v) =>
      escapeRegex(String(v)),
    );
    const both = [`${META}_service_label_${name}`, `${META}_service_labelpresent_${name}`];
    switch (expression.operator) {
      case "In":
        out.push({ action: "keep", source_labels: both, regex: `(${values.join("|")});true` });
        break;
      case "NotIn":
        out.push({ action: "drop", source_labels: both, regex: `(${values.join("|")});true` });
        break;
      case "Exists":
        out.push({ action: "keep", source_labels: [both[1]], regex: "true" });
        break;
      case "DoesNotExist":
        out.push({ action: "drop", source_labels: [both[1]], regex: "true" });
        break;
    }
  }
  return out;
}

/** One scrape job per endpoint of each ServiceMonitor. */
export function serviceMonitorJobs(monitors: readonly KubeObject[], sd: DiscoveryAccess): Obj[] {
  const jobs: Obj[] = [];
  const sorted = [...monitors].sort((a, b) =>
    `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`
      ? -1
      : 1,
  );
  for (const monitor of sorted) {
    const spec = isObj((monitor as Obj).spec) ? ((monitor as Obj).spec as Obj) : {};
    const namespace = monitor.metadata.namespace ?? "default";
    const nsSelector = isObj(spec.namespaceSelector) ? spec.namespaceSelector : {};
    const namespaces =
      nsSelector.any === true
        ? null
        : Array.isArray(nsSelector.matchNames) && nsSelector.matchNames.length > 0
          ? nsSelector.matchNames.map(String)
          : [namespace];
    const endpoints = Array.isArray(spec.endpoints) ? spec.endpoints.filter(isObj) : [];
    endpoints.forEach((endpoint, i) => {
      const relabels: Relabel[] = [
        { source_labels: ["job"], target_label: "__tmp_prometheus_job_name" },
      ];
      if (namespaces) {
        relabels.push({
          action: "keep",
          source_labels: [`${META}_namespace`],
          regex: `(${namespaces.map(escapeRegex).join("|")})`,
        });
      }
      relabels.push(...selectorRelabels(isObj(spec.selector) ? spec.selector : {}));
      const port = typeof endpoint.port === "string" ? endpoint.port : undefined;
      const targetPort = endpoint.targetPort;
      if (port !== undefined) {
        relabels.push({
          action: "keep",
          source_labels: [`${META}_endpoint_port_name`],
          regex: escapeRegex(port),
        });
      } else if (typeof targetPort === "number") {
        relabels.push({
          action: "keep",
          source_labels: [`${META}_pod_container_port_number`],
          regex: String(targetPort),
        });
      } else if (typeof targetPort === "string") {
        relabels.push({
          action: "keep",
          source_labels: [`${META}_pod_container_port_name`],
          regex: escapeRegex(targetPort),
        });
      }
      const targetOf = `${META}_endpoint_address_target_kind`;
      relabels.push(
        {
          source_labels: [targetOf, `${META}_endpoint_address_target_name`],
          separator: ";",
          regex: "Node;(.*)",
          replacement: FIRST_GROUP,
          target_label: "node",
        },
        {
          source_labels: [targetOf, `${META}_endpoint_address_target_name`],
          separator: ";",
          regex: "Pod;(.*)",
          replacement: FIRST_GROUP,
          target_label: "pod",
        },
        { source_labels: [`${META}_namespace`], target_label: "namespace" },
        { source_labels: [`${META}_service_name`], target_label: "service" },
        { source_labels: [`${META}_pod_name`], target_label: "pod" },
        { source_labels: [`${META}_pod_container_name`], target_label: "container" },
        { action: "drop", source_labels: [`${META}_pod_phase`], regex: "(Failed|Succeeded)" },
        { source_labels: [`${META}_service_name`], target_label: "job", replacement: FIRST_GROUP },
      );
      if (typeof spec.jobLabel === "string" && spec.jobLabel !== "") {
        relabels.push({
          source_labels: [`${META}_service_label_${sanitizeLabelName(spec.jobLabel)}`],
          target_label: "job",
          regex: "(.+)",
          replacement: FIRST_GROUP,
        });
      }
      const endpointName = port ?? (targetPort !== undefined ? String(targetPort) : undefined);
      if (endpointName !== undefined) {
        relabels.push({ target_label: "endpoint", replacement: endpointName });
      }
      const job: Obj = {
        job_name: `serviceMonitor/${namespace}/${monitor.metadata.name}/${i}`,
        honor_labels: endpoint.honorLabels === true,
        metrics_path: typeof endpoint.path === "string" ? endpoint.path : "/metrics",
        scheme: typeof endpoint.scheme === "string" ? endpoint.scheme : "http",
        http_sd_configs: [
          {
            url: sd.url,
            refresh_interval: sd.refreshInterval,
            ...(sd.token ? { authorization: { type: "Bearer", credentials: sd.token } } : {}),
            ...(sd.caFile ? { tls_config: { ca_file: sd.caFile } } : {}),
          },
        ],
        relabel_configs: relabels,
      };
      if (typeof endpoint.interval === "string") job.scrape_interval = endpoint.interval;
      if (typeof endpoint.scrapeTimeout === "string") job.scrape_timeout = endpoint.scrapeTimeout;
      jobs.push(job);
    });
  }
  return jobs;
}

/** The whole prometheus.yml. */
export function prometheusConfig(
  monitors: readonly KubeObject[],
  sd: DiscoveryAccess,
  global: GlobalSettings,
): string {
  return stringify({
    global: {
      scrape_interval: global.scrapeInterval,
      evaluation_interval: global.evaluationInterval ?? global.scrapeInterval,
    },
    scrape_configs: serviceMonitorJobs(monitors, sd),
  });
}
