// core/v1 PodSpec and PodTemplateSpec: a Pod's spec and every workload's template.
import { OBJECT_META } from "./meta.js";
import {
  atomicList,
  atomicMap,
  atomicOf,
  bool,
  DEDUCED,
  deduced,
  i32,
  i64,
  intstr,
  keep,
  mapList,
  mapOf,
  patchMerge,
  pb,
  ptr,
  qty,
  str,
  strs,
  struct,
  time,
  zero,
} from "./schema.js";

const RESOURCE_LIST = { go: "v1.ResourceList" };

const HTTP_GET = struct(
  {
    path: str(1),
    port: intstr(2, keep),
    host: str(3),
    scheme: str(4, { go: "v1.URIScheme" }),
    httpHeaders: atomicOf(
      struct({ name: str(1, keep), value: str(2, keep) }, { go: "v1.HTTPHeader" }),
      5,
    ),
  },
  { go: "v1.HTTPGetAction", proto: 2, ptr: true },
);
/** Probe, with its embedded ProbeHandler (protobuf field 1, inline in JSON). */
const PROBE = struct(
  {
    handler: struct(
      {
        exec: struct({ command: strs(1) }, { go: "v1.ExecAction", proto: 1, ptr: true }),
        httpGet: HTTP_GET,
        tcpSocket: struct(
          { port: intstr(1, keep), host: str(2) },
          { go: "v1.TCPSocketAction", proto: 3, ptr: true },
        ),
        grpc: struct(
          { port: i32(1, keep), service: str(2, ptr) },
          { go: "v1.GRPCAction", proto: 4, ptr: true },
        ),
      },
      { go: "v1.ProbeHandler", inline: true, proto: 1 },
    ),
    initialDelaySeconds: i32(2),
    timeoutSeconds: i32(3),
    periodSeconds: i32(4),
    successThreshold: i32(5),
    failureThreshold: i32(6),
    terminationGracePeriodSeconds: i64(7, ptr),
  },
  { go: "v1.Probe" },
);

const ENV_VAR_SOURCE = struct(
  {
    fieldRef: struct(
      { apiVersion: str(1), fieldPath: str(2, keep) },
      { go: "v1.ObjectFieldSelector", proto: 1, ptr: true },
    ),
    resourceFieldRef: struct(
      { containerName: str(1), resource: str(2, keep), divisor: qty(3) },
      { go: "v1.ResourceFieldSelector", proto: 2, ptr: true },
    ),
  },
  { go: "v1.EnvVarSource" },
);

export const CONTAINER = struct(
  {
    name: str(1, keep),
    image: str(2),
    command: strs(3),
    args: strs(4),
    workingDir: str(5),
    ports: pb(
      6,
      patchMerge(
        mapList(
          ["containerPort", "protocol"],
          struct(
            {
              name: str(1),
              hostPort: i32(2),
              containerPort: i32(3, keep),
              protocol: str(4, { go: "v1.Protocol" }),
              hostIP: str(5),
            },
            { go: "v1.ContainerPort" },
          ),
          { protocol: "TCP" },
        ),
        "containerPort",
      ),
    ),
    envFrom: atomicList,
    env: pb(
      7,
      patchMerge(
        mapList(
          ["name"],
          struct(
            { name: str(1, keep), value: str(2), valueFrom: deduced(ENV_VAR_SOURCE, 3, ptr) },
            { go: "v1.EnvVar" },
          ),
        ),
        "name",
      ),
    ),
    resources: struct(
      {
        limits: mapOf(qty(), 1, RESOURCE_LIST),
        requests: mapOf(qty(), 2, RESOURCE_LIST),
        claims: mapList(["name"], DEDUCED),
      },
      { go: "v1.ResourceRequirements", zero: true, proto: 8 },
    ),
    resizePolicy: atomicList,
    restartPolicy: str(24, { ptr: true, go: "v1.ContainerRestartPolicy" }),
    volumeMounts: patchMerge(mapList(["mountPath"], DEDUCED), "mountPath"),
    volumeDevices: patchMerge(mapList(["devicePath"], DEDUCED), "devicePath"),
    livenessProbe: deduced(PROBE, 10, ptr),
    readinessProbe: deduced(PROBE, 11, ptr),
    startupProbe: deduced(PROBE, 22, ptr),
    lifecycle: DEDUCED,
    terminationMessagePath: str(13),
    terminationMessagePolicy: str(20, { go: "v1.TerminationMessagePolicy" }),
    imagePullPolicy: str(14, { go: "v1.PullPolicy" }),
    securityContext: DEDUCED,
    stdin: bool(16),
    stdinOnce: bool(17),
    tty: bool(18),
  },
  { go: "v1.Container" },
);

/** EphemeralContainer: the fields of a Container (EphemeralContainerCommon) and its target. */
const EPHEMERAL_CONTAINER = struct(
  { ...CONTAINER.fields, targetContainerName: str() },
  { go: "v1.EphemeralContainer" },
);

export const POD_SPEC = struct(
  {
    volumes: patchMerge(mapList(["name"], DEDUCED), "name", "merge,retainKeys"),
    initContainers: pb(20, patchMerge(mapList(["name"], CONTAINER), "name")),
    containers: pb(2, patchMerge(mapList(["name"], CONTAINER), "name")),
    ephemeralContainers: patchMerge(mapList(["name"], EPHEMERAL_CONTAINER), "name"),
    restartPolicy: str(3, { go: "v1.RestartPolicy" }),
    terminationGracePeriodSeconds: i64(4, ptr),
    activeDeadlineSeconds: i64(5, ptr),
    dnsPolicy: str(6, { go: "v1.DNSPolicy" }),
    nodeSelector: pb(7, atomicMap),
    serviceAccountName: str(8),
    serviceAccount: str(9),
    automountServiceAccountToken: bool(undefined, ptr),
    nodeName: str(10),
    hostNetwork: bool(11),
    hostPID: bool(),
    hostIPC: bool(),
    shareProcessNamespace: bool(undefined, ptr),
    securityContext: DEDUCED,
    imagePullSecrets: patchMerge(mapList(["name"], DEDUCED), "name"),
    hostname: str(16),
    subdomain: str(17),
    affinity: DEDUCED,
    schedulerName: str(19),
    tolerations: atomicList,
    hostAliases: patchMerge(mapList(["ip"], DEDUCED), "ip"),
    priorityClassName: str(),
    priority: i32(undefined, ptr),
    dnsConfig: DEDUCED,
    readinessGates: atomicList,
    runtimeClassName: str(undefined, ptr),
    enableServiceLinks: bool(undefined, ptr),
    preemptionPolicy: str(undefined, { ptr: true, go: "v1.PreemptionPolicy" }),
    overhead: mapOf(qty(), undefined, RESOURCE_LIST),
    topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"], DEDUCED),
    resourceClaims: patchMerge(mapList(["name"], DEDUCED), "name", "merge,retainKeys"),
  },
  { go: "v1.PodSpec", zero: true, preserveUnknownFields: true },
);

export const POD_TEMPLATE = struct(
  { metadata: OBJECT_META, spec: pb(2, POD_SPEC) },
  { go: "v1.PodTemplateSpec" },
);
/** A workload's `spec.template`: a Go value field. */
export const WORKLOAD_TEMPLATE = zero(POD_TEMPLATE);

const CONTAINER_STATE = struct(
  {
    waiting: struct(
      { reason: str(), message: str() },
      { go: "v1.ContainerStateWaiting", ptr: true },
    ),
    running: struct({ startedAt: time() }, { go: "v1.ContainerStateRunning", ptr: true }),
    terminated: struct(
      {
        exitCode: i32(undefined, keep),
        signal: i32(),
        reason: str(),
        message: str(),
        startedAt: time(),
        finishedAt: time(),
        containerID: str(),
      },
      { go: "v1.ContainerStateTerminated", ptr: true },
    ),
  },
  { go: "v1.ContainerState" },
);
/** ContainerStatus (typed as far as its Time fields). */
export const CONTAINER_STATUS = struct(
  {
    name: str(undefined, keep),
    state: CONTAINER_STATE,
    lastState: CONTAINER_STATE,
    ready: bool(undefined, keep),
    restartCount: i32(undefined, keep),
    image: str(undefined, keep),
    imageID: str(undefined, keep),
    containerID: str(),
    started: bool(undefined, ptr),
  },
  { go: "v1.ContainerStatus", preserveUnknownFields: true },
);
