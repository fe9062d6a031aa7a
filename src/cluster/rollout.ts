// The pure arithmetic of the workload controllers, as upstream's deployment and replica-set
// controllers do it (pkg/controller/deployment/util, pkg/controller/controller_utils.go):
// maxSurge / maxUnavailable fenceposts, how far a rolling update may go, proportional scaling
// of the active ReplicaSets, and the order in which a ReplicaSet deletes pods.

export type IntOrPercent = number | string;

/**
 * GetScaledValueFromIntOrPercent: an int as is, "N%" of `total` rounded up (maxSurge) or down
 * (maxUnavailable). Anything else counts as 0.
 */
export function scaledValue(
  value: IntOrPercent | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number") return value;
  const match = /^(\d+)%$/.exec(value.trim());
  if (!match) {
    const n = Number(value);
    return Number.isInteger(n) ? n : 0;
  }
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** ResolveFenceposts: both zero would deadlock the rollout, so maxUnavailable becomes 1. */
export function resolveFenceposts(
  maxSurge: IntOrPercent | undefined | null,
  maxUnavailable: IntOrPercent | undefined | null,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? "25%", desired, true);
  let unavailable = scaledValue(maxUnavailable ?? "25%", desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export interface RollingParams {
  replicas: number;
  maxSurge: number;
  /** Already capped at `replicas` (upstream MaxUnavailable). */
  maxUnavailable: number;
}

/** NewRSNewReplicas for RollingUpdate: grow the new ReplicaSet up to replicas + maxSurge in total. */
export function newReplicaSetReplicas(
  params: RollingParams,
  allSpecReplicas: number,
  newSpecReplicas: number,
): number {
  const maxTotal = params.replicas + params.maxSurge;
  if (allSpecReplicas >= maxTotal) return newSpecReplicas;
  const scaleUp = Math.min(maxTotal - allSpecReplicas, params.replicas - newSpecReplicas);
  return newSpecReplicas + scaleUp;
}

/** One ReplicaSet as the deployment controller's arithmetic sees it. */
export interface ReplicaSetInfo {
  name: string;
  /** creationTimestamp (epoch ms, second precision). */
  created: number;
  specReplicas: number;
  availableReplicas: number;
  /** The `deployment.kubernetes.io/max-replicas` annotation; null when absent or invalid. */
  maxReplicasAnnotation: number | null;
}

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: ReplicaSetInfo, b: ReplicaSetInfo): number {
  if (a.created !== b.created) return a.created - b.created;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * How many pods to take from each old ReplicaSet in a rolling update (reconcileOldReplicaSets):
 * first unhealthy replicas (oldest ReplicaSet first), then healthy ones while at least
 * replicas − maxUnavailable pods stay available. Returns the new size per old ReplicaSet name.
 */
export function scaleDownOld(
  params: RollingParams,
  newRs: ReplicaSetInfo | null,
  oldRss: readonly ReplicaSetInfo[],
): Map<string, number> {
  const sizes = new Map<string, number>();
  const old = [...oldRss].sort(byCreation);
  for (const rs of old) sizes.set(rs.name, rs.specReplicas);
  const oldPods = old.reduce((n, rs) => n + rs.specReplicas, 0);
  if (oldPods === 0) return sizes;
  const newSpec = newRs?.specReplicas ?? 0;
  const allPods = oldPods + newSpec;
  const minAvailable = params.replicas - params.maxUnavailable;
  const newUnavailable = newSpec - (newRs?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return sizes;

  // cleanupUnhealthyReplicas: unavailable pods of old ReplicaSets go first.
  let cleaned = 0;
  for (const rs of old) {
    if (cleaned >= maxScaledDown) break;
    const size = sizes.get(rs.name)!;
    if (size === 0 || size === rs.availableReplicas) continue;
    const take = Math.min(maxScaledDown - cleaned, size - rs.availableReplicas);
    sizes.set(rs.name, size - take);
    cleaned += take;
  }

  // scaleDownOldReplicaSetsForRollingUpdate: then available ones, keeping minAvailable.
  let available = newRs?.availableReplicas ?? 0;
  for (const rs of old) available += Math.min(rs.availableReplicas, sizes.get(rs.name)!);
  if (available <= minAvailable) return sizes;
  const total = available - minAvailable;
  let scaled = 0;
  for (const rs of old) {
    if (scaled >= total) break;
    const size = sizes.get(rs.name)!;
    if (size === 0) continue;
    const take = Math.min(size, total - scaled);
    sizes.set(rs.name, size - take);
    scaled += take;
  }
  return sizes;
}

/**
 * Proportional scaling (the deployment controller's `scale`): when a Deployment is resized in
 * the middle of a rollout, replicas + maxSurge minus what the active ReplicaSets already have
 * is shared out in proportion to each ReplicaSet's size relative to the deployment size it was
 * last scaled for (its max-replicas annotation), rounding each share; the leftover goes to the
 * largest ReplicaSet. Returns the new size per active ReplicaSet name.
 */
export function proportionalSizes(input: {
  replicas: number;
  maxSurge: number;
  /** The Deployment's status.replicas (fallback when an annotation is missing). */
  statusReplicas: number;
  active: readonly ReplicaSetInfo[];
}): Map<string, number> {
  const active = [...input.active];
  const current = active.reduce((n, rs) => n + rs.specReplicas, 0);
  const allowed = input.replicas > 0 ? input.replicas + input.maxSurge : 0;
  const toAdd = allowed - current;
  const sizes = new Map<string, number>();
  if (toAdd > 0) {
    // ReplicaSetsBySizeNewer: larger first; equal sizes, newer first.
    active.sort((a, b) =>
      a.specReplicas !== b.specReplicas ? b.specReplicas - a.specReplicas : byCreation(b, a),
    );
  } else if (toAdd < 0) {
    // ReplicaSetsBySizeOlder: larger first; equal sizes, older first.
    active.sort((a, b) =>
      a.specReplicas !== b.specReplicas ? b.specReplicas - a.specReplicas : byCreation(a, b),
    );
  }
  let added = 0;
  for (const rs of active) {
    let proportion = 0;
    if (toAdd !== 0 && rs.specReplicas !== 0 && toAdd !== added) {
      const fraction = replicaSetFraction(rs, input);
      const remaining = toAdd - added;
      proportion = toAdd > 0 ? Math.min(fraction, remaining) : Math.max(fraction, remaining);
    }
    sizes.set(rs.name, rs.specReplicas + proportion);
    added += proportion;
  }
  const largest = active[0];
  if (largest && toAdd !== 0) {
    const size = sizes.get(largest.name)! + (toAdd - added);
    sizes.set(largest.name, Math.max(0, size));
  }
  return sizes;
}

/** getReplicaSetFraction: the change of this ReplicaSet's size in a scaling event. */
function replicaSetFraction(
  rs: ReplicaSetInfo,
  input: { replicas: number; maxSurge: number; statusReplicas: number },
): number {
  if (input.replicas === 0) return -rs.specReplicas;
  const maxReplicas = input.replicas + input.maxSurge;
  let before = rs.maxReplicasAnnotation ?? 0;
  if (before === 0) {
    before = input.statusReplicas;
    if (before === 0) return 0;
  }
  // integer.RoundToInt32 rounds half away from zero, like math.Round.
  return goRound((rs.specReplicas * maxReplicas) / before) - rs.specReplicas;
}

/** Go's math.Round: half away from zero. */
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** A pod as ReplicaSet scale-down ranks it (ActivePodsWithRanks). */
export interface VictimInfo {
  uid: string;
  /** Bound to a node. */
  assigned: boolean;
  phase: string;
  ready: boolean;
  /** `controller.kubernetes.io/pod-deletion-cost`, 0 when absent. */
  deletionCost: number;
  /** The Ready condition's lastTransitionTime when ready (epoch ms, second precision). */
  readySince: number | null;
  restarts: number;
  /** creationTimestamp (epoch ms, second precision). */
  created: number;
}

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Upstream's LogarithmicScaleDown comparison: durations since the two instants, bucketed by
 * floor(log2(nanoseconds)); the pod in the lower bucket (more recent) goes first.
 */
function logRank(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.floor(Math.log2(d)) : -1;
}

/**
 * Negative when `a` should be deleted before `b`: unassigned, then Pending < Unknown < Running,
 * then not ready, then lower pod-deletion-cost, then more recently ready, then more restarts,
 * then newer (both times in logarithmic buckets, ties broken by UID).
 */
export function compareVictims(a: VictimInfo, b: VictimInfo, now: number): number {
  if (a.assigned !== b.assigned) return a.assigned ? 1 : -1;
  const pa = PHASE_ORDER[a.phase] ?? 0;
  const pb = PHASE_ORDER[b.phase] ?? 0;
  if (pa !== pb) return pa - pb;
  if (a.ready !== b.ready) return a.ready ? 1 : -1;
  if (a.deletionCost !== b.deletionCost) return a.deletionCost < b.deletionCost ? -1 : 1;
  const uidOrder = a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
  if (
    a.ready &&
    b.ready &&
    a.readySince !== null &&
    b.readySince !== null &&
    a.readySince !== b.readySince
  ) {
    const diff = logRank(a.readySince, now) - logRank(b.readySince, now);
    return diff !== 0 ? diff : uidOrder;
  }
  if (a.restarts !== b.restarts) return b.restarts - a.restarts;
  if (a.created !== b.created) {
    const diff = logRank(a.created, now) - logRank(b.created, now);
    return diff !== 0 ? diff : uidOrder;
  }
  return 0;
}

/** Parses the pod-deletion-cost annotation (an int32; invalid counts as 0). */
export function deletionCostOf(annotations: Record<string, string> | undefined): number {
  const raw = annotations?.["controller.kubernetes.io/pod-deletion-cost"];
  if (raw === undefined) return 0;
  const n = Number(raw);
  return Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : 0;
}
