// The coordination.k8s.io/v1 Lease as client-go's resourcelock.LeaseLock: the leader election
// record lives in the Lease's spec; updates PUT the last object read or written, so the API
// server's resourceVersion check turns a lost race into a 409 Conflict. Raw JSON over the
// KubeClient. Times are MicroTime, written with exactly six fractional digits (the API server
// refuses other forms: RFC3339Micro).
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { InvolvedObject } from "../controller/events/correlator.js";
import type {
  LeaderElectionRecord,
  LockRead,
  LockResult,
  ResourceLock,
} from "../controller/leaderelection.js";
import type { SyncEvent } from "../core/sync.js";
import { apiErrorOf, type KubeApiError, type KubeClient } from "./types.js";

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  spec?: LeaseSpec;
}

/** metav1.MicroTime as JSON: UTC, six fractional digits (JS clocks give milliseconds). */
export function formatMicroTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-22T10:00:00.123Z
  return `${iso.slice(0, -1)}000Z`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time (any fractional digits) as epoch ms, truncated below the millisecond. */
export function parseMicroTime(text: string): number | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = "", zone = "Z"] = match;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return null;
  ms += Number(fraction.slice(0, 3).padEnd(3, "0"));
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return ms;
}

/** client-go's LeaderElectionRecordToLeaseSpec (the whole spec is replaced on write). */
export function leaseSpecFromRecord(record: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime === null ? null : formatMicroTime(record.acquireTime),
    renewTime: record.renewTime === null ? null : formatMicroTime(record.renewTime),
    leaseTransitions: record.leaseTransitions,
  };
  if (record.strategy) spec.strategy = record.strategy;
  if (record.preferredHolder) spec.preferredHolder = record.preferredHolder;
  return spec;
}

/** client-go's LeaseSpecToLeaderElectionRecord: absent fields read as zero values. */
export function recordFromLeaseSpec(spec: LeaseSpec | undefined): LeaderElectionRecord {
  const time = (text: string | null | undefined) =>
    typeof text === "string" ? parseMicroTime(text) : null;
  const record: LeaderElectionRecord = {
    holderIdentity: spec?.holderIdentity ?? "",
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: time(spec?.acquireTime),
    renewTime: time(spec?.renewTime),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
  if (spec?.strategy) record.strategy = spec.strategy;
  if (spec?.preferredHolder) record.preferredHolder = spec.preferredHolder;
  return record;
}

/** kube-controller-manager's identity: hostname, "_", a random UUID (unique per process). */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

export function leaseCollectionPath(namespace: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
}

export function leasePath(namespace: string, name: string): string {
  return `${leaseCollectionPath(namespace)}/${encodeURIComponent(name)}`;
}

export interface LeaseLockOptions {
  client: KubeClient;
  /** --leader-elect-resource-namespace */
  namespace: string;
  /** --leader-elect-resource-name */
  name: string;
  /** Default: defaultIdentity(). */
  identity?: string;
  /** Labels set on a Lease this lock creates. */
  labels?: Record<string, string>;
  /**
   * Annotations written with every record that names this candidate the holder (the leader's
   * debug address, so `horizon explain` can find it through the Lease).
   */
  holderAnnotations?: Record<string, string>;
  /**
   * Where the lock's events go (client-go's ResourceLockConfig.EventRecorder): `Normal
   * LeaderElection "<identity> became leader"` / `"... stopped leading"` on the Lease.
   */
  events?: LeaseEventRecorder;
  /** The events' clock (default Date.now). */
  now?: () => number;
}

export interface LeaseEventRecorder {
  recordFor(ref: InvolvedObject, event: SyncEvent, now: number): void;
}

/** The source component of the Lease's events (kube-controller-manager's: its own name). */
export const LEADER_ELECTION_COMPONENT = "horizon-controller";

function transportError(error: unknown): KubeApiError {
  return { status: 0, message: error instanceof Error ? error.message : String(error) };
}

export class LeaseLock implements ResourceLock {
  readonly identity: string;
  private readonly client: KubeClient;
  private readonly namespace: string;
  private readonly name: string;
  private readonly labels: Record<string, string> | undefined;
  /** The last Lease read or written: its resourceVersion guards the next update. */
  private lease: Lease | null = null;

  constructor(options: LeaseLockOptions) {
    this.client = options.client;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity ?? defaultIdentity();
    this.labels = options.labels;
    this.holderAnnotations = options.holderAnnotations ?? {};
    this.events = options.events ?? null;
    this.now = options.now ?? Date.now;
  }

  private readonly events: LeaseEventRecorder | null;
  private readonly now: () => number;

  /** client-go's LeaseLock.RecordEvent: on the Lease as last read or written. */
  recordEvent(what: string): void {
    if (!this.events) return;
    const metadata = this.lease?.metadata;
    this.events.recordFor(
      {
        kind: "Lease",
        apiVersion: "coordination.k8s.io/v1",
        namespace: this.namespace,
        name: this.name,
        uid: typeof metadata?.uid === "string" ? metadata.uid : undefined,
        resourceVersion: metadata?.resourceVersion,
      },
      { type: "Normal", reason: "LeaderElection", message: `${this.identity} ${what}` },
      this.now(),
    );
  }

  /** Annotations this candidate writes while it holds the lease (see LeaseLockOptions). */
  holderAnnotations: Record<string, string>;

  private annotated(metadata: Lease["metadata"], record: LeaderElectionRecord): Lease["metadata"] {
    if (record.holderIdentity !== this.identity || Object.keys(this.holderAnnotations).length === 0)
      return metadata;
    return { ...metadata, annotations: { ...metadata.annotations, ...this.holderAnnotations } };
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** The last Lease object seen (for /debug and `horizon explain` finding the leader). */
  current(): Lease | null {
    return this.lease;
  }

  async get(signal?: AbortSignal): Promise<LockRead> {
    try {
      const response = await this.client.request<Lease>({
        method: "GET",
        path: leasePath(this.namespace, this.name),
        ...(signal ? { signal } : {}),
      });
      if (response.status !== 200) return { ok: false, error: apiErrorOf(response) };
      this.lease = response.body;
      return { ok: true, record: recordFromLeaseSpec(response.body.spec) };
    } catch (error) {
      return { ok: false, error: transportError(error) };
    }
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockResult> {
    const body: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: this.annotated(
        {
          name: this.name,
          namespace: this.namespace,
          ...(this.labels ? { labels: this.labels } : {}),
        },
        record,
      ),
      spec: leaseSpecFromRecord(record),
    };
    return this.write("POST", leaseCollectionPath(this.namespace), body, signal);
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockResult> {
    if (!this.lease) {
      return {
        ok: false,
        error: { status: 0, message: "lease not initialized, call get or create first" },
      };
    }
    const body: Lease = {
      ...this.lease,
      metadata: this.annotated(this.lease.metadata, record),
      spec: leaseSpecFromRecord(record),
    };
    return this.write("PUT", leasePath(this.namespace, this.name), body, signal);
  }

  private async write(
    method: "POST" | "PUT",
    path: string,
    body: Lease,
    signal?: AbortSignal,
  ): Promise<LockResult> {
    try {
      const response = await this.client.request<Lease>({
        method,
        path,
        body,
        ...(signal ? { signal } : {}),
      });
      if (response.status !== 200 && response.status !== 201)
        return { ok: false, error: apiErrorOf(response) };
      this.lease = response.body;
      return { ok: true };
    } catch (error) {
      return { ok: false, error: transportError(error) };
    }
  }
}
