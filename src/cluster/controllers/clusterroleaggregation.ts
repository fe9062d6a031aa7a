// The clusterrole aggregation controller of kube-controller-manager: a ClusterRole with an
// aggregationRule has as rules those of every other ClusterRole its selectors match (by name
// order, each rule once), kept up to date as they change. Like upstream's it works after the
// write that woke it (a microtask), and roles aggregated from aggregated roles settle in turn.
import { isDeepStrictEqual } from "node:util";
import { isRecord } from "../../api/json.js";
import { selectorFromLabelSelector, selectorMatches } from "../../api/selector.js";
import type { KubeObject, LabelSelector } from "../../api/types.js";
import type { ObjectStore } from "../../registry/store.js";

function selectors(role: KubeObject): LabelSelector[] | null {
  const rule = role.aggregationRule;
  if (!isRecord(rule) || !Array.isArray(rule.clusterRoleSelectors)) return null;
  return rule.clusterRoleSelectors.filter(isRecord) as LabelSelector[];
}

/** The rules `role` aggregates from the other ClusterRoles. */
function aggregatedRules(role: KubeObject, roles: readonly KubeObject[]): unknown[] {
  const rules: unknown[] = [];
  const sorted = [...roles].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const labelSelector of selectors(role) ?? []) {
    const parsed = selectorFromLabelSelector(labelSelector);
    if (!parsed.ok) continue;
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!selectorMatches(parsed.selector, other.metadata.labels ?? {})) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        if (!rules.some((r) => isDeepStrictEqual(r, rule))) rules.push(rule);
      }
    }
  }
  return rules;
}

/** Aggregated roles of aggregated roles (admin ← edit ← view) settle within this many passes. */
const MAX_PASSES = 8;

/** Writes the aggregated rules of every aggregating ClusterRole whose rules are out of date. */
export function aggregateClusterRoles(store: ObjectStore): void {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changed = false;
    for (const role of store.list("ClusterRole")) {
      if (selectors(role) === null) continue;
      const rules = aggregatedRules(role, store.list("ClusterRole"));
      const current = Array.isArray(role.rules) ? role.rules : [];
      if (isDeepStrictEqual(current, rules)) continue;
      store.update({ ...store.get("ClusterRole", "", role.metadata.name)!, rules });
      changed = true;
    }
    if (!changed) return;
  }
}

/** Runs the controller on the store from now on; returns its stop function. */
export function startClusterRoleAggregation(store: ObjectStore): () => void {
  let queued = false;
  const sync = () => {
    queued = false;
    aggregateClusterRoles(store);
  };
  aggregateClusterRoles(store);
  return store.watch((event) => {
    if (event.object.kind !== "ClusterRole" || queued) return;
    queued = true;
    queueMicrotask(sync);
  });
}
