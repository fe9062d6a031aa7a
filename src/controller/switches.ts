// What the controller's scheduling does differently by Kubernetes version (docs/versions.md).
import { versionSwitches } from "../api/versions.js";

export const controllerSwitches = versionSwitches({
  // kubernetes/kubernetes#138294 (v1.37): a newly seen HPA is enqueued with Add, so its first
  // sync is at once; before, AddRateLimited put it one sync period away. (Reconciling a spec
  // change at once also needs the HPAGeneration gate, which Horizon does not have.)
  immediateFirstSync: "1.37",
});
