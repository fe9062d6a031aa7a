// Structured logs: one JSON object per line — ts (RFC 3339, milliseconds), level, msg, v (the
// verbosity of info lines), then the fields. Verbosity is klog's: `-v N` prints info lines of
// level ≤ N; warnings and errors always print. The sync messages are upstream's
// ("Successfully rescaled" at V(0), "Decided not to scale" / "Proposing desired replicas" at V(4)).
import type { SyncObservation } from "./metrics.js";

export type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface InfoLogger {
  readonly enabled: boolean;
  info(msg: string, fields?: LogFields): void;
}

export interface Logger {
  readonly verbosity: number;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, error?: unknown, fields?: LogFields): void;
  /** Info at verbosity `level` (printed when level ≤ -v). */
  v(level: number): InfoLogger;
  /** A logger adding these fields to every line. */
  with(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** `-v`; default 0. */
  verbosity?: number;
  /** One line without its newline; default process.stderr (as klog). */
  write?: (line: string) => void;
  /** Epoch milliseconds; default Date.now. */
  now?: () => number;
}

const RESERVED = new Set(["ts", "level", "msg", "v"]);

/** JSON-safe values: Errors become their message, bigints strings, cycles "[Circular]". */
function jsonSafe(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return value.message;
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return null;
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => jsonSafe(item, seen));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = jsonSafe(item, seen);
  return out;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(jsonSafe(error));
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const verbosity = options.verbosity ?? 0;
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const emit = (level: LogLevel, v: number | null, msg: string, fields: LogFields) => {
    const line: Record<string, unknown> = {
      ts: new Date(now()).toISOString(),
      level,
      msg,
    };
    if (v !== null) line.v = v;
    for (const [key, value] of Object.entries({ ...base, ...fields })) {
      if (value === undefined) continue;
      // A field may not overwrite the envelope.
      line[RESERVED.has(key) ? `_${key}` : key] = jsonSafe(value);
    }
    write(JSON.stringify(line));
  };
  // One per level: v(N) runs several times per sync, mostly to find it disabled.
  const byLevel = new Map<number, InfoLogger>();
  const infoAt = (level: number): InfoLogger => {
    let logger = byLevel.get(level);
    if (logger === undefined) {
      logger = {
        enabled: level <= verbosity,
        info(msg, fields = {}) {
          if (level <= verbosity) emit("info", level, msg, fields);
        },
      };
      byLevel.set(level, logger);
    }
    return logger;
  };
  return {
    verbosity,
    info: (msg, fields = {}) => emit("info", 0, msg, fields),
    warn: (msg, fields = {}) => emit("warn", null, msg, fields),
    error: (msg, error, fields = {}) =>
      emit("error", null, msg, error === undefined ? fields : { ...fields, err: errorText(error) }),
    v: infoAt,
    with: (fields) => createLogger(options, { ...base, ...fields }),
  };
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = createLogger({ verbosity: -1, write: () => {} });

/** The log lines of one sync, as upstream's controller words them. */
export function logSync(log: Logger, observation: SyncObservation): void {
  const hpa = `${observation.hpa.metadata.namespace ?? "default"}/${observation.hpa.metadata.name ?? ""}`;
  const result = observation.result ?? null;
  if (result === null) {
    log.error("Sync failed", observation.error, { HPA: hpa, durationMs: observation.durationMs });
    return;
  }
  const trace = result.trace;
  const ref = observation.hpa.spec.scaleTargetRef;
  const scaleTarget = `${ref.kind}/${observation.hpa.metadata.namespace ?? "default"}/${ref.name}`;
  // The fields of V(4) and V(6) lines are made only when they print (every sync reaches here).
  const v4 = log.v(4).enabled;
  if (trace.recommendation !== null && v4) {
    log.v(4).info("Proposing desired replicas", {
      desiredReplicas: trace.recommendation,
      metric: trace.recommendationMetric ?? "",
      scaleTarget,
    });
  }
  if (result.scaleUpdated) {
    log.info("Successfully rescaled", {
      HPA: hpa,
      currentReplicas: trace.currentReplicas,
      desiredReplicas: result.desiredReplicas,
      reason: trace.rescaleReason ?? "",
    });
  } else if (trace.outcome !== "failed" && v4) {
    log.v(4).info("Decided not to scale", {
      scaleTarget,
      desiredReplicas: trace.desiredReplicas,
      lastScaleTime: result.status.lastScaleTime ?? null,
    });
  }
  // Upstream hands the reconcile's error to utilruntime.HandleError, logged as an error.
  if (result.error !== null) log.error("Sync error", result.error, { HPA: hpa });
  if (observation.statusError)
    log.error("Status update failed", observation.statusError, { HPA: hpa });
  if (log.v(6).enabled) {
    log
      .v(6)
      .info("Synced", { HPA: hpa, durationMs: observation.durationMs, outcome: trace.outcome });
  }
}
