// Server-side apply and metadata.managedFields, as kube-apiserver v1.34 does them with
// sigs.k8s.io/structured-merge-diff (SMD) and k8s.io/apimachinery's managedfields package:
// field paths and FieldsV1 (fieldpath.ts), objects read through their kind's apply schema
// (typed.ts), merge and prune (merge.ts), managedFields entries, Update tracking and Apply
// (managers.ts), the Status of an apply conflict (conflicts.ts) and the field manager's name
// (name.ts). Pure: no I/O, time is passed in.

export {
  conflictStatus,
  describeManager,
} from "./conflicts.js";
export {
  decodeFieldsV1,
  difference,
  emptySet,
  encodeFieldsV1,
  type FieldPath,
  type FieldSet,
  type FieldsV1,
  fieldElement,
  hasAtOrBelow,
  hasPath,
  insertPath,
  intersection,
  isEmptySet,
  memberPaths,
  pathString,
  type Result,
  recursiveDifference,
  setOf,
  setsEqual,
  union,
} from "./fieldpath.js";
export {
  type ApplyResult,
  allowedFromLastApplied,
  applyConfig,
  type Conflict,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  type ManagedFieldsEntry,
  type Manager,
  managerKey,
  type Operation,
  serverSideApply,
  trackScale,
  trackUpdate,
  type Versions,
  type VersionView,
  type WriteContext,
} from "./managers.js";
export { merge } from "./merge.js";
export {
  type FieldManagerError,
  managerFromUserAgent,
  validateFieldManager,
} from "./name.js";
export {
  type Comparison,
  compare,
  type Schema,
  schemaFor,
  toFieldSet,
} from "./typed.js";
