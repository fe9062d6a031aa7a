// Every served kind maps to its definition; the compiler checks that none is missing and that
// each module defines the kind it is listed under. Discovery lists them in this order.
import { apiService } from "./apiservice.js";
import { configMap } from "./configmap.js";
import { controllerRevision } from "./controllerrevision.js";
import { cronJob } from "./cronjob.js";
import { customDefinition, customDefinitions, reserveBuiltIn } from "./custom.js";
import { customResourceDefinition } from "./customresourcedefinition.js";
import { daemonSet } from "./daemonset.js";
import { deployment } from "./deployment.js";
import { endpoints } from "./endpoints.js";
import { endpointSlice } from "./endpointslice.js";
import { event } from "./event.js";
import { horizontalPodAutoscaler } from "./horizontalpodautoscaler.js";
import { job } from "./job.js";
import { lease } from "./lease.js";
import { limitRange } from "./limitrange.js";
import { namespace } from "./namespace.js";
import { ingress, ingressClass, networkPolicy } from "./networking.js";
import { node } from "./node.js";
import { pod } from "./pod.js";
import { podDisruptionBudget } from "./poddisruptionbudget.js";
import { priorityClass } from "./priorityclass.js";
import { clusterRole, clusterRoleBinding, role, roleBinding } from "./rbac.js";
import { replicaSet } from "./replicaset.js";
import { replicationController } from "./replicationcontroller.js";
import { resourceQuota } from "./resourcequota.js";
import { secret } from "./secret.js";
import { service } from "./service.js";
import { serviceAccount } from "./serviceaccount.js";
import { serviceMonitor } from "./servicemonitor.js";
import { statefulSet } from "./statefulset.js";
import type { KindDefinition, ServedKind } from "./types.js";

export const KINDS: { readonly [K in ServedKind]: KindDefinition<K> } = {
  Namespace: namespace,
  Pod: pod,
  Service: service,
  ConfigMap: configMap,
  Secret: secret,
  ServiceAccount: serviceAccount,
  LimitRange: limitRange,
  ResourceQuota: resourceQuota,
  Endpoints: endpoints,
  Event: event,
  Node: node,
  ReplicationController: replicationController,
  // /apis lists apiregistration.k8s.io first, as kube-aggregator does.
  APIService: apiService,
  Deployment: deployment,
  ReplicaSet: replicaSet,
  StatefulSet: statefulSet,
  DaemonSet: daemonSet,
  ControllerRevision: controllerRevision,
  HorizontalPodAutoscaler: horizontalPodAutoscaler,
  Job: job,
  CronJob: cronJob,
  Ingress: ingress,
  IngressClass: ingressClass,
  NetworkPolicy: networkPolicy,
  PodDisruptionBudget: podDisruptionBudget,
  Role: role,
  ClusterRole: clusterRole,
  RoleBinding: roleBinding,
  ClusterRoleBinding: clusterRoleBinding,
  PriorityClass: priorityClass,
  Lease: lease,
  EndpointSlice: endpointSlice,
  CustomResourceDefinition: customResourceDefinition,
  ServiceMonitor: serviceMonitor,
};

/** The built-in definitions in registry order. */
export const KIND_LIST: readonly KindDefinition[] = Object.values(KINDS);
reserveBuiltIn(KIND_LIST);

/** Every served definition: the built-in ones, then the established custom resources. */
export function servedDefinitions(): readonly KindDefinition[] {
  return [...KIND_LIST, ...customDefinitions()];
}

export function isServedKind(kind: string): kind is ServedKind {
  return Object.hasOwn(KINDS, kind);
}

/** The definition of a served kind (built in or custom), or undefined. */
export function kindDefinition(kind: string): KindDefinition | undefined {
  return isServedKind(kind) ? KINDS[kind] : customDefinition(kind);
}
