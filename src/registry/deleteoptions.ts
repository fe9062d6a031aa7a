// metav1.DeleteOptions of a DELETE request: decoded from the body or the query, and validated
// (the delete handler's decoding, then apimachinery's ValidateDeleteOptions).

import { isRecord } from "../api/json.js";
import { type FieldError, goQuote } from "../api/validation.js";

export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

/** metav1.DeleteOptions as a DELETE carries it (body, or query parameters when the body is empty). */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  /** Deprecated upstream; still honoured (and, set to false, it makes an unfinished delete 202). */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

const POLICIES: readonly PropagationPolicy[] = ["Foreground", "Background", "Orphan"];

export type OptionsError =
  | { reason: "BadRequest"; message: string }
  | { reason: "Invalid"; errors: FieldError[] };

export type OptionsResult = { ok: true; value: DeleteOptions } | { ok: false; error: OptionsError };

function badRequest(message: string): OptionsResult {
  return { ok: false, error: { reason: "BadRequest", message } };
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * DeleteOptions of a DELETE: the JSON body when there is one, else the query parameters
 * (the delete handler decodes one or the other), then ValidateDeleteOptions.
 */
export function parseDeleteOptions(body: string, query: URLSearchParams): OptionsResult {
  const options: DeleteOptions = {};
  if (body.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
    if (!isRecord(parsed)) {
      return badRequest(
        `json: cannot unmarshal ${goType(parsed)} into Go value of type v1.DeleteOptions`,
      );
    }
    const field = (name: string, want: "number" | "string" | "boolean"): unknown => {
      const value = parsed[name];
      if (value === undefined || value === null) return undefined;
      const okType = want === "number" ? Number.isInteger(value) : typeof value === want;
      if (!okType) {
        const goWant = { number: "int64", string: "string", boolean: "bool" }[want];
        throw new Error(
          `json: cannot unmarshal ${goType(value)} into Go struct field DeleteOptions.${name} of type ${goWant}`,
        );
      }
      return value;
    };
    try {
      const grace = field("gracePeriodSeconds", "number");
      if (grace !== undefined) options.gracePeriodSeconds = grace as number;
      const policy = field("propagationPolicy", "string");
      if (policy !== undefined) options.propagationPolicy = policy as string;
      const orphan = field("orphanDependents", "boolean");
      if (orphan !== undefined) options.orphanDependents = orphan as boolean;
    } catch (err) {
      return badRequest((err as Error).message);
    }
    if (isRecord(parsed.preconditions)) {
      const pre: DeleteOptions["preconditions"] = {};
      if (typeof parsed.preconditions.uid === "string") pre.uid = parsed.preconditions.uid;
      if (typeof parsed.preconditions.resourceVersion === "string")
        pre.resourceVersion = parsed.preconditions.resourceVersion;
      options.preconditions = pre;
    }
    if (Array.isArray(parsed.dryRun)) options.dryRun = parsed.dryRun.map(String);
  } else {
    const grace = query.get("gracePeriodSeconds");
    if (grace !== null) {
      if (!/^[+-]?\d+$/.test(grace)) {
        return badRequest(`strconv.ParseInt: parsing ${goQuote(grace)}: invalid syntax`);
      }
      options.gracePeriodSeconds = Number(grace);
    }
    const policy = query.get("propagationPolicy");
    if (policy !== null) options.propagationPolicy = policy;
    const orphan = query.get("orphanDependents");
    if (orphan !== null) {
      if (orphan !== "true" && orphan !== "false") {
        return badRequest(`strconv.ParseBool: parsing ${goQuote(orphan)}: invalid syntax`);
      }
      options.orphanDependents = orphan === "true";
    }
    const dryRun = query.getAll("dryRun");
    if (dryRun.length > 0) options.dryRun = dryRun;
  }
  const errors = validateDeleteOptions(options);
  return errors.length > 0
    ? { ok: false, error: { reason: "Invalid", errors } }
    : { ok: true, value: options };
}

/** ValidateDeleteOptions (apimachinery meta/v1/validation). */
export function validateDeleteOptions(options: DeleteOptions): FieldError[] {
  const errors: FieldError[] = [];
  const policy = options.propagationPolicy;
  if (options.orphanDependents !== undefined && policy !== undefined) {
    errors.push({
      type: "FieldValueInvalid",
      field: "propagationPolicy",
      badValue: policy,
      badValueJSON: true,
      detail: "orphanDependents and deletionPropagation cannot be both set",
    });
  }
  if (policy !== undefined && !POLICIES.includes(policy as PropagationPolicy)) {
    errors.push({
      type: "FieldValueNotSupported",
      field: "propagationPolicy",
      badValue: policy,
      badValueJSON: true,
      detail: `supported values: ${[...POLICIES, "nil"].map(goQuote).join(", ")}`,
    });
  }
  const dryRun = options.dryRun ?? [];
  if (dryRun.length > 1 || (dryRun.length === 1 && dryRun[0] !== "All")) {
    errors.push({
      type: "FieldValueNotSupported",
      field: "dryRun",
      badValue: dryRun,
      detail: `supported values: ${goQuote("All")}`,
    });
  }
  return errors;
}
