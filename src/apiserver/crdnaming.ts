// apiextensions' naming controller, the part that runs after the write: when a CRD is deleted
// or changes, the CRDs whose names were not accepted are looked at again, and one whose names
// are free now is accepted and established (served).

import { reconsideredNames } from "../kinds/customresourcedefinition.js";
import type { ObjectStore } from "../registry/store.js";

const CRD = "CustomResourceDefinition";

/** Re-runs the naming of unaccepted CRDs after each CRD change (a microtask). Returns stop. */
export function startCrdNaming(store: ObjectStore, now: () => number): () => void {
  let queued = false;
  const sync = () => {
    queued = false;
    for (const crd of store.list(CRD)) {
      const next = reconsideredNames(crd, now());
      if (next) store.update(next);
    }
  };
  return store.watch((event) => {
    if (event.object.kind !== CRD || queued) return;
    queued = true;
    queueMicrotask(sync);
  });
}
