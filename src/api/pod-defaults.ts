// core/v1 defaulting of a PodSpec, as kube-apiserver applies it when it decodes a Pod or any
// object embedding a pod template (pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec,
// _Container, _ContainerPort, _Probe, _HTTPGetAction, _Volume and the volume sources,
// _ObjectFieldSelector; SetDefaults_Pod for what only a Pod gets). Functions return new
// objects and never mutate their input; a field the client set is never changed.

import { isRecord } from "./json.js";

type Obj = Record<string, unknown>;

export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_SCHEDULER_NAME = "default-scheduler";
/** 0644: secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_VOLUME_MODE = 420;
const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

function record(value: unknown): Obj | undefined {
  return isRecord(value) ? value : undefined;
}

/** Go's zero value: what `omitempty` leaves out and a `== ""` / `== 0` check defaults. */
function unset(value: unknown): boolean {
  return value === undefined || value === null || value === "" || value === 0;
}

/** Maps each element of a list that is there; anything else is left as it is. */
function eachOf(list: unknown, fn: (item: Obj) => Obj): unknown {
  return Array.isArray(list) ? list.map((item) => (isRecord(item) ? fn(item) : item)) : list;
}

/**
 * The tag ParseImageName finds: `latest` when the reference names neither a tag nor a digest,
 * "" when it has only a digest or does not parse (upstream ignores the error).
 */
export function imageTag(image: string): string {
  if (image === "") return "";
  const at = image.indexOf("@");
  const named = at >= 0 ? image.slice(0, at) : image;
  const slash = named.lastIndexOf("/");
  const colon = named.lastIndexOf(":");
  const tag = colon > slash ? named.slice(colon + 1) : "";
  const repository = colon > slash ? named.slice(0, colon) : named;
  // The domain may be upper case; the path never is (distribution's reference grammar).
  const firstSlash = repository.indexOf("/");
  const head = firstSlash >= 0 ? repository.slice(0, firstSlash) : "";
  const domain = /[.:]/.test(head) || head === "localhost" ? head : "";
  const path = domain ? repository.slice(domain.length + 1) : repository;
  if (
    path === "" ||
    !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(
      path,
    )
  )
    return "";
  if (tag !== "" && !/^[\w][\w.-]{0,127}$/.test(tag)) return "";
  if (tag === "" && at < 0) return "latest";
  return tag;
}

function defaultHttpGet(action: unknown): unknown {
  const httpGet = record(action);
  if (!httpGet) return action;
  const out = { ...httpGet };
  if (unset(out.path)) out.path = "/";
  if (unset(out.scheme)) out.scheme = "HTTP";
  return out;
}

function defaultHandler(handler: unknown): unknown {
  const h = record(handler);
  if (!h || h.httpGet === undefined) return handler;
  return { ...h, httpGet: defaultHttpGet(h.httpGet) };
}

function defaultProbe(value: unknown): unknown {
  const probe = record(value);
  if (!probe) return value;
  const out = { ...probe };
  if (unset(out.timeoutSeconds)) out.timeoutSeconds = 1;
  if (unset(out.periodSeconds)) out.periodSeconds = 10;
  if (unset(out.successThreshold)) out.successThreshold = 1;
  if (unset(out.failureThreshold)) out.failureThreshold = 3;
  if (out.httpGet !== undefined) out.httpGet = defaultHttpGet(out.httpGet);
  return out;
}

function defaultFieldRef(value: unknown): unknown {
  const ref = record(value);
  if (!ref || !unset(ref.apiVersion)) return value;
  return { ...ref, apiVersion: "v1" };
}

function defaultEnvVar(env: Obj): Obj {
  const from = record(env.valueFrom);
  if (!from || from.fieldRef === undefined) return env;
  return { ...env, valueFrom: { ...from, fieldRef: defaultFieldRef(from.fieldRef) } };
}

/** Container fields every kind of container gets (ports, env, probes, lifecycle). */
function defaultContainerCommon(container: Obj): Obj {
  const out = { ...container };
  if (out.ports !== undefined)
    out.ports = eachOf(out.ports, (p) => (unset(p.protocol) ? { ...p, protocol: "TCP" } : p));
  if (out.env !== undefined) out.env = eachOf(out.env, defaultEnvVar);
  for (const key of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    if (out[key] !== undefined) out[key] = defaultProbe(out[key]);
  }
  const lifecycle = record(out.lifecycle);
  if (lifecycle) {
    const l = { ...lifecycle };
    if (l.postStart !== undefined) l.postStart = defaultHandler(l.postStart);
    if (l.preStop !== undefined) l.preStop = defaultHandler(l.preStop);
    out.lifecycle = l;
  }
  return out;
}

/** SetDefaults_Container: the pull policy from the image's tag, the termination message. */
function defaultContainer(container: Obj): Obj {
  const out = defaultContainerCommon(container);
  if (unset(out.imagePullPolicy)) {
    const image = typeof out.image === "string" ? out.image : "";
    out.imagePullPolicy = imageTag(image) === "latest" ? "Always" : "IfNotPresent";
  }
  if (unset(out.terminationMessagePath)) out.terminationMessagePath = "/dev/termination-log";
  if (unset(out.terminationMessagePolicy)) out.terminationMessagePolicy = "File";
  return out;
}

/** hostNetwork: a port without hostPort listens on the node at its containerPort. */
function defaultHostNetworkPorts(container: Obj): Obj {
  if (!Array.isArray(container.ports)) return container;
  return {
    ...container,
    ports: eachOf(container.ports, (p) =>
      unset(p.hostPort) ? { ...p, hostPort: p.containerPort } : p,
    ),
  };
}

const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
];

function withMode(source: unknown): unknown {
  const s = record(source);
  if (!s || s.defaultMode !== undefined) return source;
  return { ...s, defaultMode: DEFAULT_VOLUME_MODE };
}

function defaultDownwardApiItems(source: Obj): Obj {
  if (source.items === undefined) return source;
  return {
    ...source,
    items: eachOf(source.items, (item) =>
      item.fieldRef === undefined ? item : { ...item, fieldRef: defaultFieldRef(item.fieldRef) },
    ),
  };
}

function defaultProjection(projection: Obj): Obj {
  const out = { ...projection };
  const downward = record(out.downwardAPI);
  if (downward) out.downwardAPI = defaultDownwardApiItems(downward);
  const token = record(out.serviceAccountToken);
  if (token && token.expirationSeconds === undefined)
    out.serviceAccountToken = { ...token, expirationSeconds: DEFAULT_TOKEN_EXPIRATION_SECONDS };
  return out;
}

/** SetDefaults_Volume and the defaults of its source. */
function defaultVolume(volume: Obj): Obj {
  const out = { ...volume };
  if (!VOLUME_SOURCES.some((key) => out[key] !== undefined && out[key] !== null)) out.emptyDir = {};
  if (out.secret !== undefined) out.secret = withMode(out.secret);
  if (out.configMap !== undefined) out.configMap = withMode(out.configMap);
  const downward = record(out.downwardAPI);
  if (downward) out.downwardAPI = defaultDownwardApiItems(withMode(downward) as Obj);
  const projected = record(out.projected);
  if (projected) {
    const p = withMode(projected) as Obj;
    out.projected =
      p.sources === undefined ? p : { ...p, sources: eachOf(p.sources, defaultProjection) };
  }
  const hostPath = record(out.hostPath);
  if (hostPath && (hostPath.type === undefined || hostPath.type === null))
    out.hostPath = { ...hostPath, type: "" };
  return out;
}

/** SetDefaults_PodSpec with the defaults of everything inside it: what a pod template gets. */
export function defaultPodSpec(value: unknown): Obj {
  const out: Obj = { ...(record(value) ?? {}) };
  if (unset(out.dnsPolicy)) out.dnsPolicy = "ClusterFirst";
  if (unset(out.restartPolicy)) out.restartPolicy = "Always";
  if (out.terminationGracePeriodSeconds === undefined || out.terminationGracePeriodSeconds === null)
    out.terminationGracePeriodSeconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if (out.securityContext === undefined || out.securityContext === null) out.securityContext = {};
  if (unset(out.schedulerName)) out.schedulerName = DEFAULT_SCHEDULER_NAME;
  const hostNetwork = out.hostNetwork === true;
  for (const key of ["containers", "initContainers"]) {
    if (out[key] === undefined) continue;
    out[key] = eachOf(out[key], (c) => {
      const defaulted = defaultContainer(c);
      return hostNetwork ? defaultHostNetworkPorts(defaulted) : defaulted;
    });
  }
  if (out.ephemeralContainers !== undefined)
    out.ephemeralContainers = eachOf(out.ephemeralContainers, defaultContainerCommon);
  if (out.volumes !== undefined) out.volumes = eachOf(out.volumes, defaultVolume);
  return out;
}

/** A pod template (PodTemplateSpec): its spec defaulted, metadata as sent. */
export function defaultPodTemplate(value: unknown): Obj {
  const template = record(value) ?? {};
  return { ...template, spec: defaultPodSpec(template.spec) };
}

/** Requests left out where a limit is set default to the limit (SetDefaults_Pod, Pods only). */
function requestsFromLimits(container: Obj): Obj {
  const resources = record(container.resources);
  const limits = record(resources?.limits);
  if (!resources || !limits) return container;
  const requests = { ...(record(resources.requests) ?? {}) };
  let changed = false;
  for (const [name, limit] of Object.entries(limits)) {
    if (requests[name] === undefined) {
      requests[name] = limit;
      changed = true;
    }
  }
  return changed ? { ...container, resources: { ...resources, requests } } : container;
}

/**
 * What a Pod's spec gets beyond a template's (SetDefaults_Pod): container requests from limits
 * and `enableServiceLinks: true`. These are not applied to templates, so a workload's template
 * does not change when defaulting changes (upstream's TestWorkloadDefaults).
 */
export function defaultPodOnlySpec(spec: Obj): Obj {
  const out = { ...spec };
  for (const key of ["containers", "initContainers"]) {
    if (out[key] !== undefined) out[key] = eachOf(out[key], requestsFromLimits);
  }
  if (out.enableServiceLinks === undefined || out.enableServiceLinks === null)
    out.enableServiceLinks = true;
  return out;
}

/** A Pod's spec with every default a Pod gets. */
export function defaultPodSpecOfPod(value: unknown): Obj {
  return defaultPodOnlySpec(defaultPodSpec(value));
}
