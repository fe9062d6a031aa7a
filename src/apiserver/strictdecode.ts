// A manifest as `kubectl create` (strict field validation, its default) has kube-apiserver
// decode it: the first value of the wrong JSON type (that stops the decode), else every field
// the kind's Go types do not have. For readers of manifest files that are not requests
// (`horizon simulate`, `horizon validate`): the same checks as ./endpoints/decode.ts, in order.
import { kindDefinition } from "../kinds/registry.js";
import { decodeTyped } from "./typeddecode.js";
import { unknownFields } from "./unknownfields.js";

export interface DecodeProblem {
  /** Where in the object (list indexes included). */
  path: (string | number)[];
  /** kube-apiserver's text: encoding/json's type error, or the strict decoder's unknown field. */
  message: string;
  unknownField: boolean;
}

/**
 * The decode problems of `object` in `apiVersion` (`group/version`); none for a version or
 * kind that is not served (legacy versions are read by their conversion). `typed: false`:
 * unknown fields only, for a reader that checks the JSON types itself.
 */
export function strictDecodeProblems(
  kind: string,
  apiVersion: string,
  object: Record<string, unknown>,
  options: { typed?: boolean } = {},
): DecodeProblem[] {
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  if (!kindDefinition(kind)?.versions.some((v) => v.version === version)) return [];
  let value = object;
  if (options.typed !== false) {
    const typed = decodeTyped(kind, version, object);
    if (!typed.ok) return [{ path: typed.path, message: typed.error, unknownField: false }];
    value = typed.value;
  }
  return unknownFields(kind, version, value).map((f) => ({
    path: [...f.path],
    message: `strict decoding error: unknown field ${JSON.stringify(f.name)}`,
    unknownField: true,
  }));
}
