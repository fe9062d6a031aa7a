// apps/v1 ControllerRevision: an immutable snapshot of a DaemonSet's or StatefulSet's pod
// template (`data`, a patch kubectl's `rollout undo` sends back) and its `revision` number.

import { semanticallyEqual } from "../api/json.js";
import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../api/validation.js";
import { invalid, required, validateObjectMetaUpdate } from "../api/validation.js";
import { topLevel } from "./meta.js";
import { AGE, col, NAME, since } from "./printing.js";
import { DEDUCED, i64, keep, pb } from "./schema.js";
import { checked, type KindDefinition, type KindStrategy, READ_WRITE } from "./types.js";

/** ValidateControllerRevision: data is mandatory, revision is not negative. */
function validateControllerRevision(object: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (object.data === undefined || object.data === null) {
    errs.push(required("data", "data is mandatory"));
  }
  const revision = object.revision;
  if (typeof revision === "number" && revision < 0) {
    errs.push(invalid("revision", revision, "must be greater than or equal to 0"));
  }
  return errs;
}

const CONTROLLER_REVISION_STRATEGY: KindStrategy = {
  prepareForCreate: (object) => checked(object, validateControllerRevision(object)),
  // ValidateControllerRevisionUpdate: the data never changes; the revision may (a rollback
  // renumbers the revision it returns to).
  prepareForUpdate: (next, current) => {
    const errs = [
      ...validateObjectMetaUpdate(next.metadata, current.metadata),
      ...validateControllerRevision(next),
    ];
    if (!semanticallyEqual(next.data, current.data)) {
      errs.push(invalid("data", next.data ?? null, "field is immutable", true));
    }
    return checked(next, errs);
  },
};

/** `daemonset.apps/agent`: the controller's kind and group in lower case, and its name. */
function controllerName(obj: KubeObject): string {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref) return "<none>";
  const slash = ref.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : ref.apiVersion.slice(0, slash);
  const kind = group ? `${ref.kind}.${group}` : ref.kind;
  return `${kind.toLowerCase()}/${ref.name}`;
}

export const controllerRevision: KindDefinition<"ControllerRevision"> = {
  kind: "ControllerRevision",
  resource: "controllerrevisions",
  singular: "controllerrevision",
  description:
    "A ControllerRevision is an immutable snapshot of a DaemonSet's or StatefulSet's pod template (data) with its revision number; kubectl rollout history and undo read them.",
  group: "apps",
  versions: [
    {
      version: "v1",
      schema: topLevel("v1.ControllerRevision", {
        // runtime.RawExtension: any JSON object.
        data: pb(2, DEDUCED),
        revision: i64(3, keep),
      }),
    },
  ],
  namespaced: true,
  verbs: READ_WRITE,
  subresources: [],
  gcPolicy: "None",
  fieldSelectors: [],
  strategy: CONTROLLER_REVISION_STRATEGY,
  printer: {
    columns: [
      NAME,
      col("Controller", "string", "Controller of the object"),
      col(
        "Revision",
        "string",
        "Revision indicates the revision of the state represented by Data.",
      ),
      AGE,
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      controllerName(obj),
      typeof obj.revision === "number" ? obj.revision : 0,
      since(obj.metadata.creationTimestamp, now),
    ],
  },
};
