// monitoring.coreos.com/v1 ServiceMonitor (the Prometheus Operator's custom resource), served as
// the operator's CRD would: stored as sent, its spec checked against the fields of the CRD's
// schema that Horizon's scrape configuration reads (src/prometheus/servicemonitor.ts). A CRD has
// no strategic merge keys: its lists are atomic.
import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import { LABEL_SELECTOR, root } from "./meta.js";
import { AGE, NAME, since } from "./printing.js";
import {
  atomicList,
  atomicOf,
  bool,
  DEDUCED,
  deduced,
  i64,
  intstr,
  str,
  strs,
  struct,
} from "./schema.js";
import { type KindDefinition, type Prepared, READ_WRITE } from "./types.js";

// The fields of the operator's CRD (v0.93), so that an unknown one (a typo: `intervall`) is an
// unknown field as kube-apiserver reports it for a custom resource. Inline (a CRD's schema has no
// named definitions) and deduced: a custom resource's body is not decoded into Go types (the
// type errors below are the CRD schema's), its objects merge granularly and its lists are
// atomic. The parts Horizon does not read (TLS, authentication, relabelings) keep any field.
const ENDPOINT = struct({
  authorization: DEDUCED,
  basicAuth: DEDUCED,
  bearerTokenFile: str(),
  bearerTokenSecret: DEDUCED,
  enableHttp2: bool(),
  filterRunning: bool(),
  followRedirects: bool(),
  honorLabels: bool(),
  honorTimestamps: bool(),
  interval: str(),
  metricRelabelings: atomicList,
  noProxy: str(),
  oauth2: DEDUCED,
  params: DEDUCED,
  path: str(),
  port: str(),
  proxyConnectHeader: DEDUCED,
  proxyFromEnvironment: bool(),
  proxyUrl: str(),
  relabelings: atomicList,
  scheme: str(),
  scrapeTimeout: str(),
  targetPort: intstr(),
  tlsConfig: DEDUCED,
  trackTimestampsStaleness: bool(),
});
const SPEC = deduced(
  struct({
    attachMetadata: DEDUCED,
    bodySizeLimit: str(),
    convertClassicHistogramsToNHCB: bool(),
    endpoints: atomicOf(ENDPOINT),
    fallbackScrapeProtocol: str(),
    jobLabel: str(),
    keepDroppedTargets: i64(),
    labelLimit: i64(),
    labelNameLengthLimit: i64(),
    labelValueLengthLimit: i64(),
    namespaceSelector: struct({ any: bool(), matchNames: strs() }),
    nativeHistogramBucketLimit: i64(),
    nativeHistogramMinBucketFactor: intstr(),
    podTargetLabels: strs(),
    sampleLimit: i64(),
    scrapeClass: str(),
    scrapeClassicHistograms: bool(),
    scrapeNativeHistograms: bool(),
    scrapeProtocols: strs(),
    selector: LABEL_SELECTOR,
    selectorMechanism: str(),
    serviceDiscoveryRole: str(),
    targetLabels: strs(),
    targetLimit: i64(),
  }),
  undefined,
  { unstructured: true },
);

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A CRD schema type error, worded as kube-apiserver's OpenAPI validation words it. */
function typeError(field: string, value: unknown, expected: string): FieldError {
  const actual = Array.isArray(value)
    ? "array"
    : value === null
      ? "null"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : typeof value;
  return {
    type: "FieldValueInvalid",
    field,
    badValue: actual,
    detail: `${field} in body must be of type ${expected}: "${actual}"`,
  };
}

/** The CRD schema's types for the fields Horizon reads. */
export function validateServiceMonitor(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = (object as { spec?: unknown }).spec;
  if (!isObj(spec))
    return [{ type: "FieldValueRequired", field: "spec", detail: "Required value" }];
  if (!isObj(spec.selector)) {
    errors.push(
      spec.selector === undefined
        ? { type: "FieldValueRequired", field: "spec.selector", detail: "Required value" }
        : typeError("spec.selector", spec.selector, "object"),
    );
  }
  if (spec.endpoints !== undefined && !Array.isArray(spec.endpoints)) {
    errors.push(typeError("spec.endpoints", spec.endpoints, "array"));
  }
  (Array.isArray(spec.endpoints) ? spec.endpoints : []).forEach((endpoint: unknown, i) => {
    const at = `spec.endpoints[${i}]`;
    if (!isObj(endpoint)) {
      errors.push(typeError(at, endpoint, "object"));
      return;
    }
    for (const field of ["port", "path", "interval", "scrapeTimeout", "scheme"] as const) {
      const value = endpoint[field];
      if (value !== undefined && typeof value !== "string") {
        errors.push(typeError(`${at}.${field}`, value, "string"));
      }
    }
    const targetPort = endpoint.targetPort;
    if (
      targetPort !== undefined &&
      typeof targetPort !== "string" &&
      !Number.isInteger(targetPort)
    ) {
      errors.push(typeError(`${at}.targetPort`, targetPort, "integer or string"));
    }
    if (
      endpoint.scheme !== undefined &&
      endpoint.scheme !== "http" &&
      endpoint.scheme !== "https"
    ) {
      if (typeof endpoint.scheme === "string") {
        errors.push({
          type: "FieldValueNotSupported",
          field: `${at}.scheme`,
          badValue: endpoint.scheme,
          detail: 'supported values: "http", "https"',
        });
      }
    }
    for (const field of ["interval", "scrapeTimeout"] as const) {
      const value = endpoint[field];
      // The CRD's pattern for Prometheus durations.
      if (
        typeof value === "string" &&
        !/^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/.test(
          value,
        )
      ) {
        errors.push({
          type: "FieldValueInvalid",
          field: `${at}.${field}`,
          badValue: value,
          detail: 'should match a Prometheus duration such as "30s" or "1m"',
        });
      }
    }
  });
  if (spec.namespaceSelector !== undefined && !isObj(spec.namespaceSelector)) {
    errors.push(typeError("spec.namespaceSelector", spec.namespaceSelector, "object"));
  }
  return errors;
}

const prepare = (object: KubeObject): Prepared => {
  const errors = validateServiceMonitor(object);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: object };
};

export const serviceMonitor: KindDefinition<"ServiceMonitor"> = {
  kind: "ServiceMonitor",
  resource: "servicemonitors",
  singular: "servicemonitor",
  description:
    "A ServiceMonitor (prometheus-operator) tells Prometheus which Services' endpoints to scrape for metrics, and how.",
  group: "monitoring.coreos.com",
  versions: [{ version: "v1", schema: root("v1.ServiceMonitor", SPEC, DEDUCED) }],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["smon"],
  categories: ["prometheus-operator"],
  gcPolicy: "None",
  generation: "content",
  fieldSelectors: [],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: (next) => prepare(next),
  },
  printer: {
    columns: [NAME, AGE],
    cells: (obj, now) => [obj.metadata.name, since(obj.metadata.creationTimestamp, now)],
  },
};
