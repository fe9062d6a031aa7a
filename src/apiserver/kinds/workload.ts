// The create and update rules the four workload kinds share (apps/v1 and core/v1 strategies):
// defaulting on every write, and a create never carries a status (only controllers write it).
import type { KubeObject } from "../../api/types.js";
import { applyWorkloadDefaults } from "../../api/workload-defaults.js";
import type { KindStrategy } from "./types.js";

export const WORKLOAD_STRATEGY: KindStrategy = {
  prepareForCreate(object) {
    const { status: _status, ...rest } = applyWorkloadDefaults(object);
    return { ok: true, value: rest as KubeObject };
  },
  prepareForUpdate: (next) => ({ ok: true, value: applyWorkloadDefaults(next) }),
};
