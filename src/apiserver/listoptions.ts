// The query parameters of a list or watch (metav1.ListOptions), decoded and validated as
// kube-apiserver's parameter codec and ValidateListOptions do: numbers that do not parse are a
// 400, a resourceVersion must be a number, resourceVersionMatch one of the two matches (422).
import type { FieldError } from "../api/validation.js";
import type { ObjectStore } from "../registry/store.js";
import { type ApiError, badRequest, invalid } from "./errors.js";

export type ResourceVersionMatch = "" | "Exact" | "NotOlderThan";

export interface ListOptions {
  /** "" (most recent), "0" (any) or a number. */
  resourceVersion: string;
  resourceVersionMatch: ResourceVersionMatch;
  /** 0: no limit. */
  limit: number;
  /** Seconds; undefined when not given. */
  timeoutSeconds?: number;
  continue: string;
}

const LIST_OPTIONS = { resource: "listoptions", group: "meta.k8s.io", kind: "ListOptions" };

/** strconv.ParseInt(s, 10, 64), with Go's error text. */
function parseInt64(text: string): { ok: true; value: number } | { ok: false; error: string } {
  if (!/^[+-]?\d+$/.test(text)) {
    return {
      ok: false,
      error: `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`,
    };
  }
  const big = BigInt(text);
  if (big > 2n ** 63n - 1n || big < -(2n ** 63n)) {
    return {
      ok: false,
      error: `strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`,
    };
  }
  return { ok: true, value: Number(big) };
}

/** A resourceVersion other than "" and "0" is an unsigned number (the storage versioner's parse). */
function resourceVersionError(rv: string): string | null {
  if (rv === "" || rv === "0") return null;
  let why: string | null = null;
  if (!/^\d+$/.test(rv)) why = "invalid syntax";
  else if (BigInt(rv) > 2n ** 64n - 1n) why = "value out of range";
  if (why === null) return null;
  return `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
}

export function parseListOptions(
  query: URLSearchParams,
  watch: boolean,
): { ok: true; value: ListOptions } | { ok: false; error: ApiError } {
  const options: ListOptions = {
    resourceVersion: query.get("resourceVersion") ?? "",
    resourceVersionMatch: "",
    limit: 0,
    continue: query.get("continue") ?? "",
  };
  for (const name of ["limit", "timeoutSeconds"] as const) {
    const text = query.get(name);
    if (text === null || text === "") continue;
    const parsed = parseInt64(text);
    if (!parsed.ok) return { ok: false, error: badRequest(parsed.error) };
    if (name === "limit") options.limit = parsed.value;
    else options.timeoutSeconds = parsed.value;
  }
  const rvError = resourceVersionError(options.resourceVersion);
  if (rvError) return { ok: false, error: badRequest(rvError) };
  const match = query.get("resourceVersionMatch") ?? "";
  const errors: FieldError[] = [];
  if (match !== "") {
    const field = "resourceVersionMatch";
    if (watch) {
      errors.push({
        type: "FieldValueForbidden",
        field,
        detail: "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      });
    } else {
      if (options.resourceVersion === "") {
        errors.push({
          type: "FieldValueForbidden",
          field,
          detail: "resourceVersionMatch is forbidden unless resourceVersion is provided",
        });
      }
      if (options.continue !== "") {
        errors.push({
          type: "FieldValueForbidden",
          field,
          detail: "resourceVersionMatch is forbidden when continue is provided",
        });
      }
      if (match !== "Exact" && match !== "NotOlderThan") {
        errors.push({
          type: "FieldValueNotSupported",
          field,
          badValue: match,
          detail: 'supported values: "Exact", "NotOlderThan", ""',
        });
      }
      if (match === "Exact" && options.resourceVersion === "0") {
        errors.push({
          type: "FieldValueForbidden",
          field,
          detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        });
      }
    }
  }
  if (errors.length > 0) return { ok: false, error: invalid(LIST_OPTIONS, "", errors) };
  options.resourceVersionMatch = match as ResourceVersionMatch;
  return { ok: true, value: options };
}

/**
 * Waits until the store has reached resourceVersion `rv` (true), or `ms` passed (false): the
 * watch cache's wait for a resourceVersion newer than it has seen (upstream: 3 s).
 */
export function waitForResourceVersion(
  store: ObjectStore,
  rv: number,
  ms: number,
): Promise<boolean> {
  if (Number(store.resourceVersion()) >= rv) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    const unsubscribe = store.watch(() => {
      if (Number(store.resourceVersion()) < rv) return;
      clearTimeout(timer);
      // Not while the store is notifying its listeners.
      queueMicrotask(unsubscribe);
      resolve(true);
    });
  });
}
