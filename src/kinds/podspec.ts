// core/v1 PodSpec and PodTemplateSpec: a Pod's spec and every workload's template.
import { OBJECT_META } from "./meta.js";
import {
  applyUnlisted,
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
  stringMap,
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
const optional = () => bool(undefined, ptr);
const named = (go: string, extra: { keep?: true; ptr?: true } = {}) =>
  str(undefined, { go, ...extra });
/** A key of a ConfigMap or Secret (EnvVarSource). */
const keySelector = (go: string) =>
  struct({ name: str(), key: str(undefined, keep), optional: optional() }, { go, ptr: true });
const envSource = (go: string) => struct({ name: str(), optional: optional() }, { go, ptr: true });
const ENV_FROM_SOURCE = struct(
  {
    prefix: str(),
    configMapRef: envSource("v1.ConfigMapEnvSource"),
    secretRef: envSource("v1.SecretEnvSource"),
  },
  { go: "v1.EnvFromSource" },
);
const VOLUME_MOUNT = struct(
  {
    name: str(undefined, keep),
    readOnly: bool(),
    recursiveReadOnly: named("v1.RecursiveReadOnlyMode", ptr),
    mountPath: str(undefined, keep),
    subPath: str(),
    mountPropagation: named("v1.MountPropagationMode", ptr),
    subPathExpr: str(),
  },
  { go: "v1.VolumeMount" },
);
const VOLUME_DEVICE = struct(
  { name: str(undefined, keep), devicePath: str(undefined, keep) },
  { go: "v1.VolumeDevice" },
);
const RESIZE_POLICY = struct(
  {
    resourceName: named("v1.ResourceName", keep),
    restartPolicy: named("v1.ResourceResizeRestartPolicy", keep),
  },
  { go: "v1.ContainerResizePolicy" },
);
const SE_LINUX_OPTIONS = struct(
  { user: str(), role: str(), type: str(), level: str() },
  { go: "v1.SELinuxOptions", ptr: true },
);
const WINDOWS_OPTIONS = struct(
  {
    gmsaCredentialSpecName: str(undefined, ptr),
    gmsaCredentialSpec: str(undefined, ptr),
    runAsUserName: str(undefined, ptr),
    hostProcess: optional(),
  },
  { go: "v1.WindowsSecurityContextOptions", ptr: true },
);
const profile = (go: string) =>
  struct(
    { type: named(`${go}Type`, keep), localhostProfile: str(undefined, ptr) },
    { go, ptr: true },
  );
const SECURITY_CONTEXT = struct(
  {
    capabilities: struct(
      { add: atomicOf(named("v1.Capability")), drop: atomicOf(named("v1.Capability")) },
      { go: "v1.Capabilities", ptr: true },
    ),
    privileged: optional(),
    seLinuxOptions: SE_LINUX_OPTIONS,
    windowsOptions: WINDOWS_OPTIONS,
    runAsUser: i64(undefined, ptr),
    runAsGroup: i64(undefined, ptr),
    runAsNonRoot: optional(),
    readOnlyRootFilesystem: optional(),
    allowPrivilegeEscalation: optional(),
    procMount: named("v1.ProcMountType", ptr),
    seccompProfile: profile("v1.SeccompProfile"),
    appArmorProfile: profile("v1.AppArmorProfile"),
  },
  { go: "v1.SecurityContext", ptr: true },
);
const POD_SECURITY_CONTEXT = struct(
  {
    seLinuxOptions: SE_LINUX_OPTIONS,
    windowsOptions: WINDOWS_OPTIONS,
    runAsUser: i64(undefined, ptr),
    runAsGroup: i64(undefined, ptr),
    runAsNonRoot: optional(),
    supplementalGroups: atomicOf(i64()),
    supplementalGroupsPolicy: named("v1.SupplementalGroupsPolicy", ptr),
    fsGroup: i64(undefined, ptr),
    sysctls: atomicOf(
      struct({ name: str(undefined, keep), value: str(undefined, keep) }, { go: "v1.Sysctl" }),
    ),
    fsGroupChangePolicy: named("v1.PodFSGroupChangePolicy", ptr),
    seccompProfile: profile("v1.SeccompProfile"),
    appArmorProfile: profile("v1.AppArmorProfile"),
    seLinuxChangePolicy: named("v1.PodSELinuxChangePolicy", ptr),
  },
  { go: "v1.PodSecurityContext", ptr: true },
);
const EXEC = struct({ command: strs(1) }, { go: "v1.ExecAction", proto: 1, ptr: true });
const TCP_SOCKET = struct(
  { port: intstr(1, keep), host: str(2) },
  { go: "v1.TCPSocketAction", proto: 3, ptr: true },
);
const LIFECYCLE_HANDLER = struct(
  {
    exec: EXEC,
    httpGet: HTTP_GET,
    tcpSocket: TCP_SOCKET,
    sleep: struct({ seconds: i64(undefined, keep) }, { go: "v1.SleepAction", ptr: true }),
  },
  { go: "v1.LifecycleHandler", ptr: true },
);
const LIFECYCLE = struct(
  {
    postStart: LIFECYCLE_HANDLER,
    preStop: LIFECYCLE_HANDLER,
    stopSignal: named("v1.Signal", ptr),
  },
  { go: "v1.Lifecycle", ptr: true },
);
const RESOURCE_CLAIM = struct(
  { name: str(undefined, keep), request: str() },
  { go: "v1.ResourceClaim" },
);
/** ResourceRequirements: a container's (protobuf field 8) and the Pod's own. */
const resourceRequirements = (extra: { proto?: number; ptr?: boolean; zero?: boolean }) =>
  struct(
    {
      limits: mapOf(qty(), 1, RESOURCE_LIST),
      requests: mapOf(qty(), 2, RESOURCE_LIST),
      claims: mapList(["name"], deduced(RESOURCE_CLAIM)),
    },
    { go: "v1.ResourceRequirements", ...extra },
  );
const KEY_TO_PATH = struct(
  { key: str(undefined, keep), path: str(undefined, keep), mode: i32(undefined, ptr) },
  { go: "v1.KeyToPath" },
);
/** A Volume: its name and its VolumeSource (embedded), the common sources typed. */
const VOLUME = struct(
  {
    name: str(undefined, keep),
    source: struct(
      {
        hostPath: struct(
          { path: str(undefined, keep), type: named("v1.HostPathType", ptr) },
          { go: "v1.HostPathVolumeSource", ptr: true },
        ),
        emptyDir: struct(
          { medium: named("v1.StorageMedium"), sizeLimit: qty(undefined, ptr) },
          { go: "v1.EmptyDirVolumeSource", ptr: true },
        ),
        gcePersistentDisk: DEDUCED,
        awsElasticBlockStore: DEDUCED,
        gitRepo: DEDUCED,
        secret: struct(
          {
            secretName: str(),
            items: atomicOf(KEY_TO_PATH),
            defaultMode: i32(undefined, ptr),
            optional: optional(),
          },
          { go: "v1.SecretVolumeSource", ptr: true },
        ),
        nfs: struct(
          { server: str(undefined, keep), path: str(undefined, keep), readOnly: bool() },
          { go: "v1.NFSVolumeSource", ptr: true },
        ),
        iscsi: DEDUCED,
        glusterfs: DEDUCED,
        persistentVolumeClaim: struct(
          { claimName: str(undefined, keep), readOnly: bool() },
          { go: "v1.PersistentVolumeClaimVolumeSource", ptr: true },
        ),
        rbd: DEDUCED,
        flexVolume: DEDUCED,
        cinder: DEDUCED,
        cephfs: DEDUCED,
        flocker: DEDUCED,
        downwardAPI: struct(
          {
            items: atomicOf(
              struct(
                {
                  path: str(undefined, keep),
                  fieldRef: struct(
                    { apiVersion: str(), fieldPath: str(undefined, keep) },
                    { go: "v1.ObjectFieldSelector", ptr: true },
                  ),
                  resourceFieldRef: struct(
                    { containerName: str(), resource: str(undefined, keep), divisor: qty() },
                    { go: "v1.ResourceFieldSelector", ptr: true },
                  ),
                  mode: i32(undefined, ptr),
                },
                { go: "v1.DownwardAPIVolumeFile" },
              ),
            ),
            defaultMode: i32(undefined, ptr),
          },
          { go: "v1.DownwardAPIVolumeSource", ptr: true },
        ),
        fc: DEDUCED,
        azureFile: DEDUCED,
        configMap: struct(
          {
            name: str(),
            items: atomicOf(KEY_TO_PATH),
            defaultMode: i32(undefined, ptr),
            optional: optional(),
          },
          { go: "v1.ConfigMapVolumeSource", ptr: true },
        ),
        vsphereVolume: DEDUCED,
        quobyte: DEDUCED,
        azureDisk: DEDUCED,
        photonPersistentDisk: DEDUCED,
        projected: struct(
          { sources: atomicList, defaultMode: i32(undefined, ptr) },
          { go: "v1.ProjectedVolumeSource", ptr: true },
        ),
        portworxVolume: DEDUCED,
        scaleIO: DEDUCED,
        storageos: DEDUCED,
        csi: struct(
          {
            driver: str(undefined, keep),
            readOnly: optional(),
            fsType: str(undefined, ptr),
            volumeAttributes: stringMap,
            nodePublishSecretRef: DEDUCED,
          },
          { go: "v1.CSIVolumeSource", ptr: true },
        ),
        ephemeral: DEDUCED,
        image: struct(
          { reference: str(), pullPolicy: named("v1.PullPolicy") },
          { go: "v1.ImageVolumeSource", ptr: true },
        ),
      },
      { go: "v1.VolumeSource", inline: true },
    ),
  },
  { go: "v1.Volume" },
);
const LOCAL_OBJECT_REFERENCE = struct({ name: str() }, { go: "v1.LocalObjectReference" });

/** Probe, with its embedded ProbeHandler (protobuf field 1, inline in JSON). */
const PROBE = struct(
  {
    handler: struct(
      {
        exec: EXEC,
        httpGet: HTTP_GET,
        tcpSocket: TCP_SOCKET,
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
    configMapKeyRef: keySelector("v1.ConfigMapKeySelector"),
    secretKeyRef: keySelector("v1.SecretKeySelector"),
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
    envFrom: atomicOf(ENV_FROM_SOURCE),
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
    resources: resourceRequirements({ zero: true, proto: 8 }),
    resizePolicy: atomicOf(RESIZE_POLICY),
    restartPolicy: str(24, { ptr: true, go: "v1.ContainerRestartPolicy" }),
    volumeMounts: patchMerge(mapList(["mountPath"], deduced(VOLUME_MOUNT)), "mountPath"),
    volumeDevices: patchMerge(mapList(["devicePath"], deduced(VOLUME_DEVICE)), "devicePath"),
    livenessProbe: deduced(PROBE, 10, ptr),
    readinessProbe: deduced(PROBE, 11, ptr),
    startupProbe: deduced(PROBE, 22, ptr),
    lifecycle: deduced(LIFECYCLE),
    terminationMessagePath: str(13),
    terminationMessagePolicy: str(20, { go: "v1.TerminationMessagePolicy" }),
    imagePullPolicy: str(14, { go: "v1.PullPolicy" }),
    securityContext: deduced(SECURITY_CONTEXT),
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
    volumes: patchMerge(mapList(["name"], deduced(VOLUME)), "name", "merge,retainKeys"),
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
    securityContext: deduced(POD_SECURITY_CONTEXT),
    imagePullSecrets: patchMerge(mapList(["name"], deduced(LOCAL_OBJECT_REFERENCE)), "name"),
    hostname: str(16),
    subdomain: str(17),
    affinity: DEDUCED,
    schedulerName: str(19),
    tolerations: atomicOf(
      struct(
        {
          key: str(),
          operator: named("v1.TolerationOperator"),
          value: str(),
          effect: named("v1.TaintEffect"),
          tolerationSeconds: i64(undefined, ptr),
        },
        { go: "v1.Toleration" },
      ),
    ),
    hostAliases: patchMerge(
      mapList(
        ["ip"],
        deduced(struct({ ip: str(undefined, keep), hostnames: strs() }, { go: "v1.HostAlias" })),
      ),
      "ip",
    ),
    priorityClassName: str(),
    priority: i32(undefined, ptr),
    dnsConfig: deduced(
      struct(
        {
          nameservers: strs(),
          searches: strs(),
          options: atomicOf(
            struct({ name: str(), value: str(undefined, ptr) }, { go: "v1.PodDNSConfigOption" }),
          ),
        },
        { go: "v1.PodDNSConfig", ptr: true },
      ),
    ),
    readinessGates: atomicOf(
      struct({ conditionType: named("v1.PodConditionType", keep) }, { go: "v1.PodReadinessGate" }),
    ),
    runtimeClassName: str(undefined, ptr),
    enableServiceLinks: bool(undefined, ptr),
    preemptionPolicy: str(undefined, { ptr: true, go: "v1.PreemptionPolicy" }),
    overhead: mapOf(qty(), undefined, RESOURCE_LIST),
    topologySpreadConstraints: patchMerge(
      mapList(["topologyKey", "whenUnsatisfiable"], DEDUCED),
      "topologyKey",
    ),
    resourceClaims: patchMerge(mapList(["name"], DEDUCED), "name", "merge,retainKeys"),
    // Fields written down after the apply schema: SSA still sees them as undeclared.
    setHostnameAsFQDN: applyUnlisted(bool(undefined, ptr)),
    os: applyUnlisted(struct({ name: named("v1.OSName", keep) }, { go: "v1.PodOS", ptr: true })),
    hostUsers: applyUnlisted(bool(undefined, ptr)),
    schedulingGates: applyUnlisted(
      patchMerge(
        mapList(["name"], struct({ name: str(undefined, keep) }, { go: "v1.PodSchedulingGate" })),
        "name",
      ),
    ),
    resources: applyUnlisted(resourceRequirements({ ptr: true })),
  },
  { go: "v1.PodSpec", zero: true },
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
    allocatedResources: mapOf(qty(), undefined, RESOURCE_LIST),
    resources: resourceRequirements({ ptr: true }),
    volumeMounts: atomicOf(
      struct(
        {
          name: str(undefined, keep),
          mountPath: str(undefined, keep),
          readOnly: bool(),
          recursiveReadOnly: named("v1.RecursiveReadOnlyMode", ptr),
        },
        { go: "v1.VolumeMountStatus" },
      ),
    ),
    user: DEDUCED,
    allocatedResourcesStatus: atomicList,
    stopSignal: named("v1.Signal", ptr),
  },
  { go: "v1.ContainerStatus" },
);
