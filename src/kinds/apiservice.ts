// apiregistration.k8s.io/v1 APIService: which server answers one group-version. Stored,
// defaulted and validated as kube-aggregator's registry (name `version.group`, priorities, a
// service reference or none for a Local one); listed with upstream's columns. Horizon answers
// every group it serves itself and proxies to no service: ../apiservices.ts registers the
// Local ones and writes each one's Available condition.
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import {
  type FieldError,
  invalid,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  notSupported,
  regexError,
  required,
} from "../api/validation.js";
import { condition as conditionOf, conditions, root } from "./meta.js";
import { AGE, asRecord, col, NAME, since } from "./printing.js";
import { bool, i32, pb, ptr, str, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

const bytes = { kind: "scalar", type: "bytes" } as const;
const STATUSES = ["True", "False", "Unknown"];

/** IsDNS1035Label (an API version: a letter first). */
function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?",
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}

/** ValidateAPIService: the name is version.group, and the spec as kube-aggregator checks it. */
function validateApiService(object: KubeObject): FieldError[] {
  const spec = asRecord(object.spec);
  const group = typeof spec.group === "string" ? spec.group : "";
  const version = typeof spec.version === "string" ? spec.version : "";
  const errs: FieldError[] = [];
  const name = object.metadata.name ?? "";
  const requiredName = `${version}.${group}`;
  // A name that is no path segment has those errors alone (the store's, by nameRule).
  if (name !== "" && isValidPathSegmentName(name).length === 0 && name !== requiredName) {
    errs.push(
      invalid("metadata.name", name, `must be \`spec.version+"."+spec.group\`: "${requiredName}"`),
    );
  }
  if (group === "" && version !== "v1") {
    errs.push(
      required("spec.group", "only v1 may have an empty group and it better be legacy kube"),
    );
  }
  if (group !== "") {
    for (const msg of isDNS1123Subdomain(group)) errs.push(invalid("spec.group", group, msg));
  }
  for (const msg of dns1035LabelErrors(version)) errs.push(invalid("spec.version", version, msg));
  const groupPriority =
    typeof spec.groupPriorityMinimum === "number" ? spec.groupPriorityMinimum : 0;
  if (groupPriority <= 0 || groupPriority > 20000) {
    errs.push(
      invalid("spec.groupPriorityMinimum", groupPriority, "must be positive and less than 20000"),
    );
  }
  const versionPriority = typeof spec.versionPriority === "number" ? spec.versionPriority : 0;
  if (versionPriority <= 0 || versionPriority > 1000) {
    errs.push(
      invalid("spec.versionPriority", versionPriority, "must be positive and less than 1000"),
    );
  }
  const caBundle = typeof spec.caBundle === "string" ? Buffer.from(spec.caBundle, "base64") : null;
  const skipVerify = spec.insecureSkipTLSVerify === true;
  const service = isRecord(spec.service) ? spec.service : null;
  if (service === null) {
    if (caBundle && caBundle.length > 0) {
      errs.push(
        invalid(
          "spec.caBundle",
          `${caBundle.length} bytes`,
          "local APIServices may not have a caBundle",
        ),
      );
    }
    if (skipVerify) {
      errs.push(
        invalid(
          "spec.insecureSkipTLSVerify",
          true,
          "local APIServices may not have insecureSkipTLSVerify",
        ),
      );
    }
    return errs;
  }
  if (typeof service.namespace !== "string" || service.namespace === "") {
    errs.push(required("spec.service.namespace", ""));
  }
  if (typeof service.name !== "string" || service.name === "") {
    errs.push(required("spec.service.name", ""));
  }
  const port = typeof service.port === "number" ? service.port : 0;
  if (port < 1 || port > 65535) {
    errs.push(
      invalid(
        "spec.service.port",
        port,
        "port is not valid: must be between 1 and 65535, inclusive",
      ),
    );
  }
  if (skipVerify && caBundle && caBundle.length > 0) {
    errs.push(
      invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"),
    );
  }
  return errs;
}

/** ValidateAPIServiceStatus: each condition's status is True, False or Unknown. */
function validateStatus(object: KubeObject): FieldError[] {
  const list = asRecord(object.status).conditions;
  if (!Array.isArray(list)) return [];
  const errs: FieldError[] = [];
  list.forEach((c, i) => {
    const status = isRecord(c) ? c.status : undefined;
    if (typeof status !== "string" || !STATUSES.includes(status)) {
      errs.push(notSupported(`status.conditions[${i}].status`, status ?? "", STATUSES));
    }
  });
  return errs;
}

/** SetDefaults_ServiceReference: port 443. */
function withDefaults(object: KubeObject): KubeObject {
  const spec = asRecord(object.spec);
  if (!isRecord(spec.service) || spec.service.port !== undefined) return object;
  return { ...object, spec: { ...spec, service: { ...spec.service, port: 443 } } };
}

const API_SERVICE_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    // The availability check writes the status.
    const { status: _status, ...rest } = withDefaults(object);
    const created = rest as KubeObject;
    return checked(created, validateApiService(created));
  },
  prepareForUpdate(next) {
    const defaulted = withDefaults(next);
    return checked(defaulted, validateApiService(defaulted));
  },
  validateStatusUpdate: (next) => validateStatus(next),
};

/** The Available condition, or undefined. */
export function availableCondition(obj: KubeObject): Record<string, unknown> | undefined {
  const list = asRecord(obj.status).conditions;
  if (!Array.isArray(list)) return undefined;
  return list.find((c): c is Record<string, unknown> => isRecord(c) && c.type === "Available");
}

export const apiService: KindDefinition<"APIService"> = {
  kind: "APIService",
  resource: "apiservices",
  singular: "apiservice",
  description:
    "An APIService says which server answers one API group-version (its name is version.group): a Service's, or this API server itself (a Local one, with no service).",
  group: "apiregistration.k8s.io",
  versions: [
    {
      version: "v1",
      schema: root(
        "v1.APIService",
        pb(
          2,
          struct(
            {
              service: pb(
                1,
                struct(
                  { namespace: str(1), name: str(2), port: i32(3, ptr) },
                  { go: "v1.ServiceReference", ptr: true },
                ),
              ),
              group: str(2),
              version: str(3),
              insecureSkipTLSVerify: bool(4),
              caBundle: pb(5, bytes),
              groupPriorityMinimum: i32(7, { keep: true }),
              versionPriority: i32(8, { keep: true }),
            },
            { go: "v1.APIServiceSpec" },
          ),
        ),
        pb(
          3,
          struct(
            {
              conditions: pb(1, conditions(conditionOf("v1.APIServiceCondition"))),
            },
            { go: "v1.APIServiceStatus" },
          ),
        ),
      ),
    },
  ],
  namespaced: false,
  verbs: READ_WRITE,
  subresources: ["status"],
  categories: ["api-extensions"],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: API_SERVICE_STRATEGY,
  nameRule: "pathSegment",
  printer: {
    columns: [
      NAME,
      col("Service", "string", "The reference to the service that hosts this API endpoint."),
      col("Available", "string", "Whether this service is available."),
      AGE,
    ],
    cells: (obj, now) => {
      const service = asRecord(obj.spec).service;
      const where = isRecord(service)
        ? `${service.namespace ?? ""}/${service.name ?? ""}`
        : "Local";
      const available = availableCondition(obj);
      const status = typeof available?.status === "string" ? available.status : "Unknown";
      const reason = typeof available?.reason === "string" ? available.reason : "";
      const cell = status === "True" || reason === "" ? status : `${status} (${reason})`;
      return [obj.metadata.name, where, cell, since(obj.metadata.creationTimestamp, now)];
    },
  },
};
