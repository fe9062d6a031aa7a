// What the workload controllers use of the embedded cluster: its store and clock, the records
// of the controllers that own pods, and the pod operations a controller asks for (create, a
// graceful delete, the final removal). EmbeddedCluster implements it; the controllers never
// see the rest of the cluster.
import type { KubeObject } from "../../api/types.js";
import type { ObjectStore } from "../../registry/store.js";
import type { PodOwner, PodRecord, Workload } from "../model.js";

export interface ControllerContext {
  readonly store: ObjectStore;
  /** The virtual time everything has run up to (epoch ms). */
  readonly now: number;
  /** The seed of a generated-name stream (a ReplicaSet's pods): ClusterOptions.nameSeed. */
  nameSeed(identity: string): number;
  /** Counts the cluster's advances of time: a controller's per-sync budgets renew with it. */
  readonly advance: number;
  /** A write by the cluster's own controllers: its store listener does not react to it. */
  write<T>(action: () => T): T;
  /** Writes `status` through the status subresource when it differs from the stored one. */
  writeStatus(target: { obj: KubeObject }, status: unknown): void;
  ownerByKey(key: string): PodOwner | undefined;
  /** A new pod owner (a Deployment's ReplicaSet): recorded and reconciled. */
  addOwner(owner: PodOwner): void;
  removeOwner(owner: PodOwner): void;
  /** The owner's controller runs again in this reconcile. */
  ownerChanged(owner: PodOwner): void;
  /** The owner's controller runs again at the cluster's next advance of time. */
  ownerDeferred(owner: PodOwner): void;
  /**
   * The workload's controller runs again at `at` (a Deployment's progress deadline, a Job's
   * active deadline or back-off), or not (null).
   */
  progressCheck(workload: Workload, at: number | null): void;
  /** The workload's controller runs again in this reconcile. */
  workloadChanged(workload: Workload): void;
  /** A standalone ReplicaSet's records at `key` give way to `workload`, which adopts it. */
  dropStandalone(key: string, workload: Workload): void;
  /** An Event (Normal unless given) about `object` from `component`, where the cluster records them. */
  event(
    object: KubeObject,
    component: string,
    reason: string,
    message: string,
    type?: "Normal" | "Warning",
  ): void;
  /**
   * Creates an object as a client of the API server would (a CronJob's Job): the cluster's
   * records and controllers follow it as they follow any client's write.
   */
  createAsClient(object: KubeObject): KubeObject;
  /** Deletes an object as a client would, its dependents in the background (a CronJob's Job). */
  deleteAsClient(object: KubeObject): void;
  /**
   * Creates a pod of the owner (StatefulSet: at `ordinal`; else -1), or null when admission
   * refuses it (a FailedCreate Event; the owner's controller runs again at the next advance).
   */
  createPod(owner: PodOwner, ordinal: number): PodRecord | null;
  /** A controller's graceful delete (default DeleteOptions). */
  deletePod(pod: PodRecord): void;
  /** The final delete: the pod leaves the store. */
  removePod(pod: PodRecord): void;
}
