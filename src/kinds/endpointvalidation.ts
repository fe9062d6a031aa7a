// Validation and defaulting of what clients write to Endpoints (core/v1) and EndpointSlices
// (discovery.k8s.io/v1), as kube-apiserver's ValidateEndpoints and ValidateEndpointSlice with
// their messages: addresses that are IPs a Service may route to (not loopback, link-local or
// unspecified), ports with DNS-label names and a supported protocol.
import { isRecord } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import {
  duplicate,
  type FieldError,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  notSupported,
  required,
} from "../api/validation.js";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;

const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.map((v) => (isRecord(v) ? v : {})) : [];
const text = (value: unknown): string => (typeof value === "string" ? value : "");

function tooMany(field: string, count: number, max: number): FieldError {
  return {
    type: "FieldValueTooMany",
    field,
    badValue: count,
    detail: `must have at most ${max} items`,
  };
}

/** 4 or 6 for an address Go's ParseIPSloppy reads (IPv4 octets may have leading zeros), else 0. */
function isIP(value: string): 0 | 4 | 6 {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255) ? 4 : 0;
  if (!value.includes(":") || /[^0-9a-fA-F:.]/.test(value)) return 0;
  try {
    new URL(`http://[${value}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/** IsValidIPForLegacyField: anything Go's ParseIPSloppy reads. */
function ipFormatErrors(field: string, ip: string): FieldError[] {
  return isIP(ip) === 0
    ? [invalid(field, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    : [];
}

/** The IPv6 address as eight 16-bit groups (for the range checks). */
function ipv6Groups(ip: string): number[] {
  const [head = "", tail] = ip.split("::");
  const part = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/** ValidateEndpointIP: an address a Service may send traffic to. */
export function endpointIpErrors(field: string, ip: string): FieldError[] {
  const family = isIP(ip);
  if (family === 0) return [invalid(field, ip, "must be a valid IP address")];
  const errs: FieldError[] = [];
  let unspecified: boolean;
  let loopback: boolean;
  let linkLocal: boolean;
  let linkLocalMulticast: boolean;
  if (family === 4) {
    const [a = 0, b = 0, c = 0] = ip.split(".").map(Number);
    unspecified = ip.split(".").every((o) => Number(o) === 0);
    loopback = a === 127;
    linkLocal = a === 169 && b === 254;
    linkLocalMulticast = a === 224 && b === 0 && c === 0;
  } else {
    const g = ipv6Groups(ip);
    unspecified = g.every((x) => x === 0);
    loopback = g.slice(0, 7).every((x) => x === 0) && g[7] === 1;
    linkLocal = ((g[0] ?? 0) & 0xffc0) === 0xfe80;
    linkLocalMulticast = ((g[0] ?? 0) & 0xff0f) === 0xff02;
  }
  if (unspecified) errs.push(invalid(field, ip, `may not be unspecified (${ip})`));
  if (loopback)
    errs.push(invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (linkLocal) {
    errs.push(invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  }
  if (linkLocalMulticast) {
    errs.push(
      invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"),
    );
  }
  return errs;
}

function labelErrors(field: string, value: string): FieldError[] {
  return isDNS1123Label(value).map((msg) => invalid(field, value, msg));
}

function nodeNameErrors(field: string, value: unknown): FieldError[] {
  if (typeof value !== "string") return [];
  return isDNS1123Subdomain(value).map((msg) => invalid(field, value, msg));
}

function appProtocolErrors(field: string, value: unknown): FieldError[] {
  if (typeof value !== "string") return [];
  return isQualifiedName(value).map((msg) => invalid(field, value, msg));
}

function protocolErrors(field: string, value: unknown): FieldError[] {
  if (value === undefined || value === null || value === "") return [required(field, "")];
  return PROTOCOLS.includes(text(value)) ? [] : [notSupported(field, value, PROTOCOLS)];
}

// ---------------------------------------------------------------------------------------------
// Endpoints

/** SetDefaults_Endpoints: a port's protocol is TCP. */
export function withEndpointsDefaults(object: KubeObject): KubeObject {
  if (!Array.isArray(object.subsets)) return object;
  const subsets = object.subsets.map((s) =>
    isRecord(s) && Array.isArray(s.ports)
      ? {
          ...s,
          ports: s.ports.map((p) =>
            isRecord(p) && (p.protocol === undefined || p.protocol === "")
              ? { ...p, protocol: "TCP" }
              : p,
          ),
        }
      : s,
  );
  return { ...object, subsets };
}

function endpointAddressErrors(at: string, address: Record<string, unknown>): FieldError[] {
  const ip = text(address.ip);
  const errs = ipFormatErrors(`${at}.ip`, ip);
  const hostname = text(address.hostname);
  if (hostname !== "") errs.push(...labelErrors(`${at}.hostname`, hostname));
  errs.push(...nodeNameErrors(`${at}.nodeName`, address.nodeName));
  errs.push(...endpointIpErrors(`${at}.ip`, ip));
  return errs;
}

/** ValidateEndpoints' subsets: each with addresses, valid IPs and ports. */
export function validateEndpoints(object: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  records(object.subsets).forEach((subset, i) => {
    const at = `subsets[${i}]`;
    const addresses = records(subset.addresses);
    const notReady = records(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) {
      errs.push(required(at, "must specify `addresses` or `notReadyAddresses`"));
    }
    addresses.forEach((a, j) => {
      errs.push(...endpointAddressErrors(`${at}.addresses[${j}]`, a));
    });
    notReady.forEach((a, j) => {
      errs.push(...endpointAddressErrors(`${at}.notReadyAddresses[${j}]`, a));
    });
    const ports = records(subset.ports);
    ports.forEach((port, j) => {
      const p = `${at}.ports[${j}]`;
      const name = text(port.name);
      if (ports.length > 1 && name === "") errs.push(required(`${p}.name`, ""));
      else if (name !== "") errs.push(...labelErrors(`${p}.name`, name));
      const number = typeof port.port === "number" ? port.port : 0;
      if (number < 1 || number > 65535) {
        errs.push(invalid(`${p}.port`, number, "must be between 1 and 65535, inclusive"));
      }
      errs.push(...protocolErrors(`${p}.protocol`, port.protocol));
      errs.push(...appProtocolErrors(`${p}.appProtocol`, port.appProtocol));
    });
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// EndpointSlice

/**
 * SetDefaults_EndpointPort (name "" and protocol TCP); an endpoint's `conditions` is a Go value
 * struct, always written (`{}` when none is set).
 */
export function withEndpointSliceDefaults(object: KubeObject): KubeObject {
  const out = { ...object };
  if (Array.isArray(object.ports)) {
    out.ports = object.ports.map((p) =>
      isRecord(p) ? { ...p, name: p.name ?? "", protocol: p.protocol ?? "TCP" } : p,
    );
  }
  if (Array.isArray(object.endpoints)) {
    out.endpoints = object.endpoints.map((e) =>
      isRecord(e) && !isRecord(e.conditions) ? { ...e, conditions: {} } : e,
    );
  }
  return out;
}

/** IsFullyQualifiedDomainName. */
function fqdnErrors(field: string, value: string): FieldError[] {
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  if (name === "") return [required(field, "")];
  const errs = isDNS1123Subdomain(name).map((msg) => invalid(field, value, msg));
  if (errs.length === 0 && name.split(".").length < 2) {
    errs.push(
      invalid(field, value, "should be a domain with at least two segments separated by dots"),
    );
  }
  return errs;
}

function sliceAddressErrors(field: string, address: string, addressType: string): FieldError[] {
  switch (addressType) {
    case "IPv4":
    case "IPv6": {
      const format = ipFormatErrors(field, address);
      if (format.length > 0) return format;
      const family = addressType === "IPv4" ? 4 : 6;
      // Upstream names the list here, not the entry.
      const field_ = field.replace(/\[\d+\]$/, "");
      const errs =
        isIP(address) === family
          ? []
          : [invalid(field_, address, `must be an ${addressType} address`)];
      return [...errs, ...endpointIpErrors(field, address)];
    }
    case "FQDN":
      return fqdnErrors(field, address);
    default:
      return [];
  }
}

/** ValidateEndpointSlice: the address type, each endpoint's addresses and the ports. */
export function validateEndpointSlice(object: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = text(object.addressType);
  if (addressType === "") errs.push(required("addressType", ""));
  else if (!ADDRESS_TYPES.includes(addressType)) {
    errs.push(notSupported("addressType", addressType, ADDRESS_TYPES));
  }
  const endpoints = records(object.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) {
    errs.push(tooMany("endpoints", endpoints.length, MAX_ENDPOINTS));
  } else {
    endpoints.forEach((endpoint, i) => {
      const at = `endpoints[${i}]`;
      const addresses = Array.isArray(endpoint.addresses) ? endpoint.addresses : [];
      if (addresses.length === 0) {
        errs.push(required(`${at}.addresses`, "must contain at least 1 address"));
      } else if (addresses.length > MAX_ADDRESSES) {
        errs.push(tooMany(`${at}.addresses`, addresses.length, MAX_ADDRESSES));
      }
      addresses.forEach((address, j) => {
        errs.push(...sliceAddressErrors(`${at}.addresses[${j}]`, text(address), addressType));
      });
      errs.push(...nodeNameErrors(`${at}.nodeName`, endpoint.nodeName));
      if (typeof endpoint.hostname === "string") {
        errs.push(...labelErrors(`${at}.hostname`, endpoint.hostname));
      }
    });
  }
  const ports = records(object.ports);
  if (ports.length > MAX_PORTS) {
    errs.push(tooMany("ports", ports.length, MAX_PORTS));
    return errs;
  }
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `ports[${i}]`;
    const name = text(port.name);
    if (name !== "") errs.push(...labelErrors(`${at}.name`, name));
    if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
    else names.add(name);
    errs.push(...protocolErrors(`${at}.protocol`, port.protocol));
    errs.push(...appProtocolErrors(`${at}.appProtocol`, port.appProtocol));
  });
  return errs;
}
