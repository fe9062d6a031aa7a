// networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy: stored and validated as upstream
// for what users commonly get wrong (backends, path types, hosts, ports, policy types), listed
// with upstream's columns. No ingress controller or network policy is enforced: Horizon's
// Services are reached through their ClusterIPs. One module for the three: they share a group
// and their port rules.
import { isRecord } from "../api/json.js";
import { formatLabelSelector } from "../api/scale.js";
import type { KubeObject, LabelSelector } from "../api/types.js";
import {
  child,
  type FieldError,
  index,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  notSupported,
  required,
} from "../api/validation.js";
import { LABEL_SELECTOR, root, topLevel } from "./meta.js";
import { isValidPortName, PROTOCOLS } from "./podvalidation.js";
import { AGE, asRecord, col, NAME, since, text } from "./printing.js";
import { atomicOf, DEDUCED, i32, intstr, pb, str, strs, struct } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";
import { validateLabelSelector } from "./workloadvalidation.js";

const GROUP = "networking.k8s.io";

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.map(asRecord) : [];

const portRange = (n: number) => n >= 1 && n <= 65535;
const PORT_RANGE = "must be between 1 and 65535, inclusive";

// ---------------------------------------------------------------------------------------------
// Ingress

const SERVICE_BACKEND = struct(
  {
    name: str(1),
    port: pb(
      2,
      struct({ name: str(1), number: i32(2) }, { go: "v1.ServiceBackendPort", atomic: true }),
    ),
  },
  { go: "v1.IngressServiceBackend" },
);

const INGRESS_BACKEND = struct(
  {
    service: pb(4, SERVICE_BACKEND, { ptr: true }),
    resource: pb(
      3,
      struct(
        { apiGroup: str(1, { ptr: true }), kind: str(2), name: str(3) },
        { go: "v1.TypedLocalObjectReference", atomic: true },
      ),
      { ptr: true },
    ),
  },
  { go: "v1.IngressBackend" },
);

const INGRESS_SPEC = struct(
  {
    ingressClassName: str(4, { ptr: true }),
    defaultBackend: pb(1, INGRESS_BACKEND, { ptr: true }),
    tls: atomicOf(struct({ hosts: strs(1), secretName: str(2) }, { go: "v1.IngressTLS" }), 2),
    rules: atomicOf(
      struct(
        {
          host: str(1),
          // IngressRuleValue is embedded (protobuf field 2 holds its http, field 1).
          ingressRuleValue: struct(
            {
              http: pb(
                1,
                struct(
                  {
                    paths: atomicOf(
                      struct(
                        {
                          path: str(1),
                          pathType: str(3, { ptr: true, go: "v1.PathType" }),
                          backend: pb(2, INGRESS_BACKEND),
                        },
                        { go: "v1.HTTPIngressPath" },
                      ),
                      1,
                    ),
                  },
                  { go: "v1.HTTPIngressRuleValue" },
                ),
                { ptr: true },
              ),
            },
            { go: "v1.IngressRuleValue", inline: true, proto: 2 },
          ),
        },
        { go: "v1.IngressRule" },
      ),
      3,
    ),
  },
  { go: "v1.IngressSpec" },
);

function validateBackend(backend: Record<string, unknown>, path: string): FieldError[] {
  const service = isRecord(backend.service) ? backend.service : undefined;
  const resource = isRecord(backend.resource) ? backend.resource : undefined;
  if (service && resource)
    return [invalid(path, "", "cannot set both resource and service backends")];
  if (resource) {
    const errs: FieldError[] = [];
    if (text(resource.kind) === "") errs.push(required(child(path, "resource.kind"), ""));
    if (text(resource.name) === "") errs.push(required(child(path, "resource.name"), ""));
    return errs;
  }
  if (!service) return [invalid(path, "", "resource or service backend is required")];
  const errs: FieldError[] = [];
  const name = text(service.name);
  if (name === "") errs.push(required(child(path, "service.name"), ""));
  else
    for (const msg of isDNS1123Label(name))
      errs.push(invalid(child(path, "service.name"), name, msg));
  const port = asRecord(service.port);
  const portName = text(port.name);
  const number = typeof port.number === "number" ? port.number : 0;
  if (portName !== "" && number !== 0) {
    errs.push(invalid(path, "", "cannot set both port name & port number"));
  } else if (portName !== "") {
    for (const msg of isValidPortName(portName)) {
      errs.push(invalid(child(path, "service.port.name"), portName, msg));
    }
  } else if (number !== 0) {
    if (!portRange(number))
      errs.push(invalid(child(path, "service.port.number"), number, PORT_RANGE));
  } else {
    errs.push(required(path, "port name or number is required"));
  }
  return errs;
}

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];

function validateIngress(object: KubeObject): FieldError[] {
  const spec = asRecord(object.spec);
  const errs: FieldError[] = [];
  const rules = list(spec.rules);
  if (rules.length === 0 && !isRecord(spec.defaultBackend)) {
    errs.push(invalid("spec", spec, "either `defaultBackend` or `rules` must be specified", true));
  }
  if (isRecord(spec.defaultBackend)) {
    errs.push(...validateBackend(spec.defaultBackend, "spec.defaultBackend"));
  }
  for (const [i, rule] of rules.entries()) {
    const at = index("spec.rules", i);
    const host = text(rule.host);
    if (host !== "") {
      const bare = host.startsWith("*.") ? host.slice(2) : host;
      for (const msg of isDNS1123Subdomain(bare)) errs.push(invalid(child(at, "host"), host, msg));
    }
    if (!isRecord(rule.http)) continue;
    const paths = list(rule.http.paths);
    if (paths.length === 0) errs.push(required(child(at, "http.paths"), ""));
    for (const [j, p] of paths.entries()) {
      const pathAt = index(child(at, "http.paths"), j);
      const type = p.pathType;
      if (type === undefined || type === null) {
        errs.push(required(child(pathAt, "pathType"), "pathType must be specified"));
      } else if (!PATH_TYPES.includes(text(type))) {
        errs.push(notSupported(child(pathAt, "pathType"), text(type), PATH_TYPES));
      } else if (type !== "ImplementationSpecific" && !text(p.path).startsWith("/")) {
        errs.push(invalid(child(pathAt, "path"), text(p.path), "must be an absolute path"));
      }
      errs.push(...validateBackend(asRecord(p.backend), child(pathAt, "backend")));
    }
  }
  for (const [i, tls] of list(spec.tls).entries()) {
    for (const [j, host] of (Array.isArray(tls.hosts) ? tls.hosts : []).entries()) {
      const bare = text(host).startsWith("*.") ? text(host).slice(2) : text(host);
      for (const msg of isDNS1123Subdomain(bare)) {
        errs.push(invalid(index(child(index("spec.tls", i), "hosts"), j), text(host), msg));
      }
    }
  }
  return errs;
}

const INGRESS_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const { status: _status, ...rest } = object;
    return checked(rest as KubeObject, validateIngress(rest as KubeObject));
  },
  prepareForUpdate: (next) => checked(next, validateIngress(next)),
};

export const ingress: KindDefinition<"Ingress"> = {
  kind: "Ingress",
  resource: "ingresses",
  singular: "ingress",
  description:
    "An Ingress routes HTTP(S) traffic from outside the cluster to Services, by host and path, for the ingress controller its class names.",
  group: GROUP,
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: root("v1.Ingress", pb(2, INGRESS_SPEC), DEDUCED),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: ["status"],
  shortNames: ["ing"],
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [],
  strategy: INGRESS_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Class", "string", "The IngressClass that serves it."),
      col("Hosts", "string", "Hosts the rules match."),
      col("Address", "string", "The load balancer's addresses."),
      col("Ports", "string", "Ports the load balancer serves."),
      AGE,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const hosts = list(spec.rules)
        .map((r) => text(r.host))
        .filter((h) => h !== "");
      const lb = list(asRecord(asRecord(obj.status).loadBalancer).ingress)
        .map((i) => text(i.ip) || text(i.hostname))
        .filter((a) => a !== "");
      return [
        obj.metadata.name,
        text(spec.ingressClassName) || "<none>",
        hosts.length > 0 ? hosts.join(",") : "*",
        lb.join(","),
        list(spec.tls).length > 0 ? "80, 443" : "80",
        since(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};

// ---------------------------------------------------------------------------------------------
// IngressClass

const INGRESS_CLASS_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => checked(object, validateIngressClass(object)),
  prepareForUpdate(next, current) {
    const errs = validateIngressClass(next);
    const controller = text(asRecord(next.spec).controller);
    if (controller !== text(asRecord(current.spec).controller)) {
      errs.push(invalid("spec.controller", controller, "field is immutable"));
    }
    return checked(next, errs);
  },
};

function validateIngressClass(object: KubeObject): FieldError[] {
  const controller = text(asRecord(object.spec).controller);
  if (controller === "") return [required("spec.controller", "")];
  if (controller.length > 250) {
    return [invalid("spec.controller", controller, "must be no more than 250 characters")];
  }
  return [];
}

export const ingressClass: KindDefinition<"IngressClass"> = {
  kind: "IngressClass",
  resource: "ingressclasses",
  singular: "ingressclass",
  description:
    "An IngressClass names the controller that serves the Ingresses of this class, with optional parameters for it.",
  group: GROUP,
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.IngressClass", {
        spec: pb(
          2,
          struct(
            {
              controller: str(1),
              parameters: pb(
                2,
                struct(
                  {
                    apiGroup: str(1, { ptr: true }),
                    kind: str(2),
                    name: str(3),
                    scope: str(4, { ptr: true }),
                    namespace: str(5, { ptr: true }),
                  },
                  { go: "v1.IngressClassParametersReference" },
                ),
                { ptr: true },
              ),
            },
            { go: "v1.IngressClassSpec" },
          ),
        ),
      }),
    },
  ],
  namespaced: false,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [],
  strategy: INGRESS_CLASS_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Controller", "string", "The controller that serves Ingresses of this class."),
      col("Parameters", "string", "The controller's parameters object."),
      AGE,
    ],
    cells: (obj, now) => {
      const spec = asRecord(obj.spec);
      const p = isRecord(spec.parameters) ? spec.parameters : undefined;
      const group = p && text(p.apiGroup) ? `.${text(p.apiGroup)}` : "";
      return [
        obj.metadata.name,
        text(spec.controller),
        p ? `${text(p.kind)}${group}/${text(p.name)}` : "<none>",
        since(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};

// ---------------------------------------------------------------------------------------------
// NetworkPolicy

const NP_PORT = struct(
  {
    protocol: str(1, { ptr: true, go: "v1.Protocol" }),
    port: intstr(2, { ptr: true }),
    endPort: i32(3, { ptr: true }),
  },
  { go: "v1.NetworkPolicyPort" },
);

const NP_PEER = struct(
  {
    podSelector: pb(1, LABEL_SELECTOR, { ptr: true }),
    namespaceSelector: pb(2, LABEL_SELECTOR, { ptr: true }),
    ipBlock: pb(3, struct({ cidr: str(1), except: strs(2) }, { go: "v1.IPBlock" }), { ptr: true }),
  },
  { go: "v1.NetworkPolicyPeer" },
);

const POLICY_TYPES = ["Egress", "Ingress"];

function validatePorts(ports: Record<string, unknown>[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, port] of ports.entries()) {
    const at = index(path, i);
    if (typeof port.protocol === "string" && !PROTOCOLS.includes(port.protocol)) {
      errs.push(notSupported(child(at, "protocol"), port.protocol, PROTOCOLS));
    }
    if (typeof port.port === "number" && !portRange(port.port)) {
      errs.push(invalid(child(at, "port"), port.port, PORT_RANGE));
    } else if (typeof port.port === "string") {
      for (const msg of isValidPortName(port.port))
        errs.push(invalid(child(at, "port"), port.port, msg));
    }
    if (typeof port.endPort === "number") {
      if (typeof port.port !== "number") {
        errs.push(required(child(at, "port"), "must be specified when endPort is specified"));
      } else if (port.endPort < port.port) {
        errs.push(
          invalid(child(at, "endPort"), port.endPort, "must be greater than or equal to `port`"),
        );
      }
    }
  }
  return errs;
}

function validatePeers(peers: Record<string, unknown>[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, peer] of peers.entries()) {
    const at = index(path, i);
    const selectors = ["podSelector", "namespaceSelector"].filter((k) => isRecord(peer[k]));
    if (isRecord(peer.ipBlock) && selectors.length > 0) {
      errs.push(invalid(at, peer, "may not specify both ipBlock and another peer", true));
    } else if (!isRecord(peer.ipBlock) && selectors.length === 0) {
      errs.push(required(at, "must specify a peer"));
    }
    for (const key of selectors) {
      errs.push(...validateLabelSelector(peer[key] as LabelSelector, child(at, key)));
    }
    if (isRecord(peer.ipBlock) && text(peer.ipBlock.cidr) === "") {
      errs.push(required(child(at, "ipBlock.cidr"), ""));
    }
  }
  return errs;
}

function validateNetworkPolicy(object: KubeObject): FieldError[] {
  const spec = asRecord(object.spec);
  const errs: FieldError[] = [];
  if (isRecord(spec.podSelector)) {
    errs.push(...validateLabelSelector(spec.podSelector as LabelSelector, "spec.podSelector"));
  }
  for (const [i, rule] of list(spec.ingress).entries()) {
    const at = index("spec.ingress", i);
    errs.push(...validatePorts(list(rule.ports), child(at, "ports")));
    errs.push(...validatePeers(list(rule.from), child(at, "from")));
  }
  for (const [i, rule] of list(spec.egress).entries()) {
    const at = index("spec.egress", i);
    errs.push(...validatePorts(list(rule.ports), child(at, "ports")));
    errs.push(...validatePeers(list(rule.to), child(at, "to")));
  }
  const types = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  for (const [i, type] of types.entries()) {
    if (!POLICY_TYPES.includes(text(type))) {
      errs.push(notSupported(index("spec.policyTypes", i), text(type), POLICY_TYPES));
    }
  }
  if (types.length > 2) {
    errs.push(
      invalid("spec.policyTypes", types, "may not specify more than two policyTypes", true),
    );
  }
  return errs;
}

const NETWORK_POLICY_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => checked(object, validateNetworkPolicy(object)),
  prepareForUpdate: (next) => checked(next, validateNetworkPolicy(next)),
};

export const networkPolicy: KindDefinition<"NetworkPolicy"> = {
  kind: "NetworkPolicy",
  resource: "networkpolicies",
  singular: "networkpolicy",
  description:
    "A NetworkPolicy says which traffic may reach (ingress) or leave (egress) the pods its podSelector picks, by peer and port.",
  group: GROUP,
  versions: [
    {
      version: "v1",
      protobuf: true,
      schema: topLevel("v1.NetworkPolicy", {
        spec: pb(
          2,
          struct(
            {
              podSelector: pb(1, LABEL_SELECTOR),
              ingress: atomicOf(
                struct(
                  { ports: atomicOf(NP_PORT, 1), from: atomicOf(NP_PEER, 2) },
                  { go: "v1.NetworkPolicyIngressRule" },
                ),
                2,
              ),
              egress: atomicOf(
                struct(
                  { ports: atomicOf(NP_PORT, 1), to: atomicOf(NP_PEER, 2) },
                  { go: "v1.NetworkPolicyEgressRule" },
                ),
                3,
              ),
              policyTypes: atomicOf(str(undefined, { go: "v1.PolicyType" }), 4),
            },
            { go: "v1.NetworkPolicySpec" },
          ),
        ),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  shortNames: ["netpol"],
  gcPolicy: "None",
  generation: "spec",
  fieldSelectors: [],
  strategy: NETWORK_POLICY_STRATEGY,
  printer: {
    columns: [NAME, col("Pod-Selector", "string", "The pods the policy applies to."), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      formatLabelSelector(asRecord(obj.spec).podSelector as LabelSelector | undefined),
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
