// The create and update rules the four workload kinds share (apps/v1 and core/v1 strategies):
// defaulting on every write, and a create never carries a status (only controllers write it).
import type { KubeObject } from "../api/types.js";
import { applyWorkloadDefaults } from "../api/workload-defaults.js";
import { checked, type KindStrategy } from "./types.js";
import { validateWorkload } from "./workloadvalidation.js";

export const WORKLOAD_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const { status: _status, ...rest } = applyWorkloadDefaults(object);
    const errors = validateWorkload(rest as KubeObject);
    return checked(rest as KubeObject, errors);
  },
  prepareForUpdate(next, current) {
    const value = applyWorkloadDefaults(next);
    const errors = validateWorkload(value, current);
    return checked(value, errors);
  },
};
