// rest.BeforeUpdate's metadata rules of the registry store: the deletion mark carried over from
// the stored object, and ValidateObjectMetaUpdate's deletion rules.

import type { KubeObject } from "../api/types.js";
import { type FieldError, goQuote } from "../api/validation.js";
import { finalizersOf } from "./delete.js";

/**
 * rest.BeforeUpdate's rule that an update never removes or changes a deletion mark: the
 * deletionTimestamp (and a missing deletionGracePeriodSeconds) come from the stored object.
 */
export function carryDeletionFields(next: KubeObject, current: KubeObject): KubeObject {
  const stamp = current.metadata.deletionTimestamp;
  const grace = current.metadata.deletionGracePeriodSeconds;
  if (!stamp && grace === undefined) return next;
  const metadata = { ...next.metadata };
  if (stamp) metadata.deletionTimestamp = stamp;
  if (grace !== undefined && metadata.deletionGracePeriodSeconds === undefined)
    metadata.deletionGracePeriodSeconds = grace;
  return { ...next, metadata };
}

/**
 * ValidateObjectMetaUpdate's deletion rules: no new finalizers on a terminating object, and
 * deletionTimestamp / deletionGracePeriodSeconds are immutable (after carryDeletionFields only
 * a client setting them on a live object, or changing the grace, trips these).
 */
export function deletionUpdateErrors(next: KubeObject, current: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  if (current.metadata.deletionTimestamp) {
    const old = new Set(finalizersOf(current));
    const extra = [...new Set(finalizersOf(next))].filter((f) => !old.has(f)).sort();
    if (extra.length > 0) {
      errors.push({
        type: "FieldValueForbidden",
        field: "metadata.finalizers",
        badValue: "",
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(", ")}}`,
      });
    }
  }
  const stamp = next.metadata.deletionTimestamp ?? null;
  if (stamp !== (current.metadata.deletionTimestamp ?? null)) {
    errors.push({
      type: "FieldValueInvalid",
      field: "metadata.deletionTimestamp",
      badValue: stamp,
      badValueJSON: true,
      detail: "field is immutable",
    });
  }
  const grace = next.metadata.deletionGracePeriodSeconds ?? null;
  if (grace !== (current.metadata.deletionGracePeriodSeconds ?? null)) {
    errors.push({
      type: "FieldValueInvalid",
      field: "metadata.deletionGracePeriodSeconds",
      badValue: grace,
      detail: "field is immutable",
    });
  }
  return errors;
}
