// core/v1 PodSpec and PodTemplateSpec: a Pod's spec and every workload's template.
import { OBJECT_META } from "./meta.js";
import {
  atomicList,
  atomicMap,
  DEDUCED,
  mapList,
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
  ports: mapList(
    ["containerPort", "protocol"],
    scalars("name", "hostPort", "containerPort", "protocol", "hostIP"),
    { protocol: "TCP" },
  ),
  envFrom: atomicList,
  env: mapList(["name"], struct({ name: S, value: S, valueFrom: DEDUCED })),
  resources: struct(
    { limits: stringMap, requests: stringMap, claims: mapList(["name"], DEDUCED) },
    { zero: true },
  ),
  resizePolicy: atomicList,
  restartPolicy: S,
  volumeMounts: mapList(["mountPath"], DEDUCED),
  volumeDevices: mapList(["devicePath"], DEDUCED),
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

export const POD_SPEC = struct(
  {
    volumes: mapList(["name"], DEDUCED),
    initContainers: mapList(["name"], CONTAINER),
    containers: mapList(["name"], CONTAINER),
    ephemeralContainers: mapList(["name"], DEDUCED),
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
    imagePullSecrets: mapList(["name"], DEDUCED),
    hostname: S,
    subdomain: S,
    affinity: DEDUCED,
    schedulerName: S,
    tolerations: atomicList,
    hostAliases: mapList(["ip"], DEDUCED),
    priorityClassName: S,
    priority: S,
    dnsConfig: DEDUCED,
    readinessGates: atomicList,
    runtimeClassName: S,
    enableServiceLinks: S,
    preemptionPolicy: S,
    overhead: stringMap,
    topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"], DEDUCED),
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
