// core/v1 PodSpec and PodTemplateSpec: a Pod's spec and every workload's template.
import { OBJECT_META } from "./meta.js";
import type { ProtoMessage } from "./proto.js";
import * as pb from "./proto.js";
import {
  atomicList,
  atomicMap,
  DEDUCED,
  mapList,
  patchMerge,
  S,
  scalars,
  stringMap,
  struct,
  type TimeTree,
  zero,
} from "./types.js";

export const CONTAINER = struct({
  name: S,
  image: S,
  command: atomicList,
  args: atomicList,
  workingDir: S,
  ports: patchMerge(
    mapList(
      ["containerPort", "protocol"],
      scalars("name", "hostPort", "containerPort", "protocol", "hostIP"),
      { protocol: "TCP" },
    ),
    "containerPort",
  ),
  envFrom: atomicList,
  env: patchMerge(mapList(["name"], struct({ name: S, value: S, valueFrom: DEDUCED })), "name"),
  resources: struct(
    { limits: stringMap, requests: stringMap, claims: mapList(["name"], DEDUCED) },
    { zero: true },
  ),
  resizePolicy: atomicList,
  restartPolicy: S,
  volumeMounts: patchMerge(mapList(["mountPath"], DEDUCED), "mountPath"),
  volumeDevices: patchMerge(mapList(["devicePath"], DEDUCED), "devicePath"),
  livenessProbe: DEDUCED,
  readinessProbe: DEDUCED,
  startupProbe: DEDUCED,
  lifecycle: DEDUCED,
  terminationMessagePath: S,
  terminationMessagePolicy: S,
  imagePullPolicy: S,
  securityContext: DEDUCED,
  stdin: S,
  stdinOnce: S,
  tty: S,
});

/** EphemeralContainer: the fields of a Container (EphemeralContainerCommon) and its target. */
const EPHEMERAL_CONTAINER = struct({ ...CONTAINER.fields, targetContainerName: S });

export const POD_SPEC = struct(
  {
    volumes: patchMerge(mapList(["name"], DEDUCED), "name", "merge,retainKeys"),
    initContainers: patchMerge(mapList(["name"], CONTAINER), "name"),
    containers: patchMerge(mapList(["name"], CONTAINER), "name"),
    ephemeralContainers: patchMerge(mapList(["name"], EPHEMERAL_CONTAINER), "name"),
    restartPolicy: S,
    terminationGracePeriodSeconds: S,
    activeDeadlineSeconds: S,
    dnsPolicy: S,
    nodeSelector: atomicMap,
    serviceAccountName: S,
    serviceAccount: S,
    automountServiceAccountToken: S,
    nodeName: S,
    hostNetwork: S,
    hostPID: S,
    hostIPC: S,
    shareProcessNamespace: S,
    securityContext: DEDUCED,
    imagePullSecrets: patchMerge(mapList(["name"], DEDUCED), "name"),
    hostname: S,
    subdomain: S,
    affinity: DEDUCED,
    schedulerName: S,
    tolerations: atomicList,
    hostAliases: patchMerge(mapList(["ip"], DEDUCED), "ip"),
    priorityClassName: S,
    priority: S,
    dnsConfig: DEDUCED,
    readinessGates: atomicList,
    runtimeClassName: S,
    enableServiceLinks: S,
    preemptionPolicy: S,
    overhead: stringMap,
    topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"], DEDUCED),
    resourceClaims: patchMerge(mapList(["name"], DEDUCED), "name", "merge,retainKeys"),
  },
  { zero: true },
);

export const POD_TEMPLATE = struct({ metadata: OBJECT_META, spec: POD_SPEC });
/** A workload's `spec.template`: a Go value field. */
export const WORKLOAD_TEMPLATE = zero(POD_TEMPLATE);

const CONTAINER_STATE_TIMES: TimeTree = {
  running: { startedAt: "Time" },
  terminated: { startedAt: "Time", finishedAt: "Time" },
};
export const CONTAINER_STATUSES_TIMES: [TimeTree] = [
  { state: CONTAINER_STATE_TIMES, lastState: CONTAINER_STATE_TIMES },
];

// Protobuf field numbers.
const HTTP_GET_PROTO: ProtoMessage = {
  1: pb.str("path"),
  2: pb.f("port", "intOrString", { keep: true }),
  3: pb.str("host"),
  4: pb.str("scheme"),
  5: pb.list("httpHeaders", {
    1: pb.str("name", { keep: true }),
    2: pb.str("value", { keep: true }),
  }),
};
/** ProbeHandler is embedded in Probe: its fields appear inline in JSON. */
const PROBE_HANDLER_PROTO: ProtoMessage = {
  1: pb.msg("exec", { 1: pb.strs("command") }, pb.ptr),
  2: pb.msg("httpGet", HTTP_GET_PROTO, pb.ptr),
  3: pb.msg(
    "tcpSocket",
    { 1: pb.f("port", "intOrString", { keep: true }), 2: pb.str("host") },
    pb.ptr,
  ),
  4: pb.msg("grpc", { 1: pb.i32("port", { keep: true }), 2: pb.str("service", pb.ptr) }, pb.ptr),
};
const PROBE_PROTO: ProtoMessage = {
  1: pb.f("handler", { message: PROBE_HANDLER_PROTO, inline: true }),
  2: pb.i32("initialDelaySeconds"),
  3: pb.i32("timeoutSeconds"),
  4: pb.i32("periodSeconds"),
  5: pb.i32("successThreshold"),
  6: pb.i32("failureThreshold"),
  7: pb.f("terminationGracePeriodSeconds", "int64", pb.ptr),
};
const ENV_VAR_PROTO: ProtoMessage = {
  1: pb.str("name", { keep: true }),
  2: pb.str("value"),
  3: pb.msg(
    "valueFrom",
    {
      1: pb.msg(
        "fieldRef",
        { 1: pb.str("apiVersion"), 2: pb.str("fieldPath", { keep: true }) },
        pb.ptr,
      ),
      2: pb.msg(
        "resourceFieldRef",
        {
          1: pb.str("containerName"),
          2: pb.str("resource", { keep: true }),
          3: pb.f("divisor", "quantity"),
        },
        pb.ptr,
      ),
    },
    pb.ptr,
  ),
};
const CONTAINER_PROTO: ProtoMessage = {
  1: pb.str("name", { keep: true }),
  2: pb.str("image"),
  3: pb.strs("command"),
  4: pb.strs("args"),
  5: pb.str("workingDir"),
  6: pb.list("ports", {
    1: pb.str("name"),
    2: pb.i32("hostPort"),
    3: pb.i32("containerPort", { keep: true }),
    4: pb.str("protocol"),
    5: pb.str("hostIP"),
  }),
  7: pb.list("env", ENV_VAR_PROTO),
  8: pb.msg("resources", {
    1: pb.f("limits", { map: "quantity" }),
    2: pb.f("requests", { map: "quantity" }),
  }),
  10: pb.msg("livenessProbe", PROBE_PROTO, pb.ptr),
  11: pb.msg("readinessProbe", PROBE_PROTO, pb.ptr),
  13: pb.str("terminationMessagePath"),
  14: pb.str("imagePullPolicy"),
  16: pb.f("stdin", "bool"),
  17: pb.f("stdinOnce", "bool"),
  18: pb.f("tty", "bool"),
  20: pb.str("terminationMessagePolicy"),
  22: pb.msg("startupProbe", PROBE_PROTO, pb.ptr),
  24: pb.str("restartPolicy", pb.ptr),
};
export const POD_SPEC_PROTO: ProtoMessage = {
  2: pb.list("containers", CONTAINER_PROTO),
  3: pb.str("restartPolicy"),
  4: pb.f("terminationGracePeriodSeconds", "int64", pb.ptr),
  5: pb.f("activeDeadlineSeconds", "int64", pb.ptr),
  6: pb.str("dnsPolicy"),
  7: pb.f("nodeSelector", { map: "string" }),
  8: pb.str("serviceAccountName"),
  9: pb.str("serviceAccount"),
  10: pb.str("nodeName"),
  11: pb.f("hostNetwork", "bool"),
  16: pb.str("hostname"),
  17: pb.str("subdomain"),
  19: pb.str("schedulerName"),
  20: pb.list("initContainers", CONTAINER_PROTO),
};
