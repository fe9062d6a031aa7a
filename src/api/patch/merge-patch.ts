// JSON merge patch (RFC 7386): kube-apiserver's application/merge-patch+json, a scenario's
// patchHpa event, and the merge behind `--set`-style edits.
import { isRecord, memberOf, setMember } from "../json.js";

/**
 * RFC 7386: objects merge key by key, `null` deletes, anything else (arrays included)
 * replaces. Neither argument is changed; the result shares the patch's values.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setMember(out, key, mergePatch(memberOf(out, key), value));
  }
  return out;
}
