// Pod spec validation: the part of upstream's ValidatePodSpec that a stored pod or pod template
// needs to be usable by the cluster (the kubelet model listens on the containers' ports): the
// containers are present, named as unique DNS labels, have an image, their ports are valid and
// their resource quantities are not negative, requests within limits.
// Absent fields count as Go zero values, as upstream validates the decoded struct. Fields that
// upstream's defaulting fills (protocol, imagePullPolicy, terminationMessagePolicy) are checked
// only when set.
import { isRecord, semanticallyEqual } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import type { KubeObject } from "../api/types.js";
import {
  child,
  duplicate,
  type FieldError,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  notSupported,
  required,
} from "../api/validation.js";

const PORT_NAME_MAX = 15;
/** The protocols a port may name (v1.Protocol). */
export const PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** IsValidPortName (an IANA_SVC_NAME). */
export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > PORT_NAME_MAX) errs.push(`must be no more than ${PORT_NAME_MAX} characters`);
  if (!/^[-a-z0-9]+$/.test(name)) {
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  } else if (!/[a-z]/.test(name)) {
    errs.push("must contain at least one letter (a-z)");
  } else if (name.includes("--")) {
    errs.push("must not contain consecutive hyphens");
  } else if (name.startsWith("-") || name.endsWith("-")) {
    errs.push("must not begin or end with a hyphen");
  }
  return errs;
}

function validatePorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, port] of (Array.isArray(ports) ? ports : []).entries()) {
    const at = index(path, i);
    const p = isRecord(port) ? port : {};
    const name = typeof p.name === "string" ? p.name : "";
    if (name.length > 0) {
      const msgs = isValidPortName(name);
      for (const msg of msgs) errs.push(invalid(child(at, "name"), name, msg));
      if (msgs.length === 0 && names.has(name)) errs.push(duplicate(child(at, "name"), name));
      names.add(name);
    }
    const containerPort = typeof p.containerPort === "number" ? p.containerPort : 0;
    if (containerPort === 0) errs.push(required(child(at, "containerPort"), ""));
    else if (containerPort < 1 || containerPort > 65535) {
      errs.push(
        invalid(
          child(at, "containerPort"),
          containerPort,
          "must be between 1 and 65535, inclusive",
        ),
      );
    }
    const hostPort = typeof p.hostPort === "number" ? p.hostPort : 0;
    if (hostPort !== 0 && (hostPort < 1 || hostPort > 65535)) {
      errs.push(invalid(child(at, "hostPort"), hostPort, "must be between 1 and 65535, inclusive"));
    }
    if (typeof p.protocol === "string" && !PROTOCOLS.includes(p.protocol)) {
      errs.push(notSupported(child(at, "protocol"), p.protocol, PROTOCOLS, true));
    }
  }
  return errs;
}

/** A resource list's quantities (decoding has made them valid). */
export function resourceList(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isRecord(list)) return out;
  for (const [name, value] of Object.entries(list)) {
    const parsed = Quantity.tryParse(value);
    if (parsed.ok) out.set(name, parsed.quantity);
  }
  return out;
}

/** ValidateResourceRequirements: quantities not negative, requests within limits. */
function validateResources(resources: unknown, path: string): FieldError[] {
  const r = isRecord(resources) ? resources : {};
  const errs: FieldError[] = [];
  const limitsPath = child(path, "limits");
  const requestsPath = child(path, "requests");
  const limits = resourceList(r.limits);
  for (const [name, quantity] of limits) {
    if (quantity.sign() < 0) {
      errs.push(invalid(`${limitsPath}[${name}]`, quantity.toString(), NEGATIVE));
    }
  }
  for (const [name, quantity] of resourceList(r.requests)) {
    if (quantity.sign() < 0) {
      errs.push(invalid(`${requestsPath}[${name}]`, quantity.toString(), NEGATIVE));
    }
    const limit = limits.get(name);
    if (limit && quantity.cmp(limit) > 0) {
      errs.push(
        invalid(
          requestsPath,
          quantity.toString(),
          `must be less than or equal to ${name} limit of ${limit.toString()}`,
        ),
      );
    }
  }
  return errs;
}

const NEGATIVE = "must be greater than or equal to 0";

function validateContainerList(
  list: unknown,
  path: string,
  names: Set<string>,
  needed: boolean,
): FieldError[] {
  const containers = Array.isArray(list) ? list : [];
  if (needed && containers.length === 0) return [required(path, "")];
  const errs: FieldError[] = [];
  for (const [i, container] of containers.entries()) {
    const at = index(path, i);
    const c = isRecord(container) ? container : {};
    const name = typeof c.name === "string" ? c.name : "";
    if (name.length === 0) errs.push(required(child(at, "name"), ""));
    else for (const msg of isDNS1123Label(name)) errs.push(invalid(child(at, "name"), name, msg));
    if (typeof c.image !== "string" || c.image.length === 0) {
      errs.push(required(child(at, "image"), ""));
    }
    errs.push(...validatePorts(c.ports, child(at, "ports")));
    errs.push(...validateResources(c.resources, child(at, "resources")));
    if (name.length > 0 && names.has(name)) errs.push(duplicate(child(at, "name"), name));
    names.add(name);
  }
  return errs;
}

/** The containers of a pod spec (or a template's), at `path` (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const s = isRecord(spec) ? spec : {};
  const names = new Set<string>();
  return [
    ...validateContainerList(s.initContainers, child(path, "initContainers"), names, false),
    ...validateContainerList(s.containers, child(path, "containers"), names, true),
  ];
}

const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/** The spec with the fields a pod update may change set to the old spec's values. */
function withMutableFieldsOf(spec: Record<string, unknown>, old: Record<string, unknown>) {
  const images = (list: unknown, from: unknown) =>
    Array.isArray(list)
      ? list.map((c, i) => {
          const before = Array.isArray(from) ? from[i] : undefined;
          return isRecord(c) && isRecord(before) ? { ...c, image: before.image } : c;
        })
      : list;
  const out: Record<string, unknown> = {
    ...spec,
    containers: images(spec.containers, old.containers),
    initContainers: images(spec.initContainers, old.initContainers),
    activeDeadlineSeconds: old.activeDeadlineSeconds,
    terminationGracePeriodSeconds: old.terminationGracePeriodSeconds,
  };
  // Tolerations may only be added to.
  const oldTolerations = Array.isArray(old.tolerations) ? old.tolerations : [];
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const prefix = tolerations.slice(0, oldTolerations.length);
  if (JSON.stringify(prefix) === JSON.stringify(oldTolerations)) {
    out.tolerations = old.tolerations;
  }
  return out;
}

/** ValidatePodUpdate's spec rule: only images, deadlines and added tolerations change. */
export function validatePodUpdate(next: KubeObject, current: KubeObject): FieldError[] {
  const spec = isRecord(next.spec) ? next.spec : {};
  const old = isRecord(current.spec) ? current.spec : {};
  const errs = validatePodSpec(spec, "spec");
  if (errs.length > 0) return errs;
  if (!semanticallyEqual(withMutableFieldsOf(spec, old), old)) {
    return [forbidden("spec", POD_UPDATE_FORBIDDEN)];
  }
  return [];
}
