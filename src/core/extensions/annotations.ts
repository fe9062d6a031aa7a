// Horizon's opt-in extensions of one HPA, read from its `horizon.dev/` annotations into one typed
// value. Errors and warnings name the annotation at fault; an HPA without any `horizon.dev/`
// annotation has no extensions at all, so it takes upstream's code path unchanged.

import { parseDuration } from "../../api/duration.js";
import { Quantity } from "../../api/quantity.js";
import type { HorizontalPodAutoscaler } from "../../api/types.js";
import type { FieldError } from "../../api/validation.js";
import {
  DEFAULT_PREDICTIVE_HISTORY_MS,
  DEFAULT_PREDICTIVE_SEASONS_MS,
  type Predictive,
  parseSpan,
} from "./predictive.js";
import { parseSchedule, type Schedule } from "./schedule.js";

export const ANNOTATION_PREFIX = "horizon.dev/";

export const ANNOTATIONS = {
  paused: "horizon.dev/paused",
  pausedReplicas: "horizon.dev/paused-replicas",
  dryRun: "horizon.dev/dry-run",
  syncPeriod: "horizon.dev/sync-period",
  tolerance: "horizon.dev/tolerance",
  scaleUpTolerance: "horizon.dev/scale-up-tolerance",
  scaleDownTolerance: "horizon.dev/scale-down-tolerance",
  cpuInitializationPeriod: "horizon.dev/cpu-initialization-period",
  initialReadinessDelay: "horizon.dev/initial-readiness-delay",
  downscaleStabilization: "horizon.dev/downscale-stabilization",
  fallbackReplicas: "horizon.dev/fallback-replicas",
  fallbackFailureThreshold: "horizon.dev/fallback-failure-threshold",
  fallbackMode: "horizon.dev/fallback-mode",
  minReplicas: "horizon.dev/min-replicas",
  cooldownPeriod: "horizon.dev/cooldown-period",
  schedule: "horizon.dev/schedule",
  timeZone: "horizon.dev/time-zone",
  predictive: "horizon.dev/predictive",
  predictiveLead: "horizon.dev/predictive-lead",
  predictiveSeasons: "horizon.dev/predictive-seasons",
  predictiveHistory: "horizon.dev/predictive-history",
  predictiveMode: "horizon.dev/predictive-mode",
  predictiveModel: "horizon.dev/predictive-model",
} as const;

/** `horizon.dev/activation.<metric name>`: one per Object or External metric. */
export const ACTIVATION_PREFIX = "horizon.dev/activation.";

/** KEDA's default cooldown before scaling back to zero. */
export const DEFAULT_COOLDOWN_MS = 300_000;

export interface ScaleToZero {
  /** Back to zero after this long with every activation metric at or below its value. */
  cooldownMs: number;
  /** Activation values (milli-units) by metric name; metrics without one activate above 0. */
  activations: ReadonlyMap<string, bigint>;
}

/** KEDA's fallback behaviours: max(current, replicas), or exactly `replicas`. */
export type FallbackMode = "currentReplicasIfHigher" | "static";

export interface Fallback {
  replicas: number;
  /** Consecutive syncs with a failed metric before the fallback applies (default 3). */
  failureThreshold: number;
  mode: FallbackMode;
}

export const DEFAULT_FALLBACK_FAILURE_THRESHOLD = 3;

/** Per-HPA values of controller flags: each overrides its flag for this HPA only. */
export interface Knobs {
  /** --horizontal-pod-autoscaler-sync-period (`horizon.dev/sync-period`) */
  syncPeriodMs: number | null;
  /** --horizontal-pod-autoscaler-tolerance (`horizon.dev/tolerance`, both directions) */
  tolerance: number | null;
  /** `horizon.dev/scale-up-tolerance` / `scale-down-tolerance`: one direction, over `tolerance`. */
  scaleUpTolerance: number | null;
  scaleDownTolerance: number | null;
  /** --horizontal-pod-autoscaler-cpu-initialization-period */
  cpuInitializationPeriodMs: number | null;
  /** --horizontal-pod-autoscaler-initial-readiness-delay */
  initialReadinessDelayMs: number | null;
  /** --horizontal-pod-autoscaler-downscale-stabilization */
  downscaleStabilizationWindowMs: number | null;
}

export interface Extensions {
  /** No scaling; the status is still updated (`horizon.dev/paused`). */
  paused: boolean;
  /** Hold the target at this count (`horizon.dev/paused-replicas`); implies paused. */
  pausedReplicas: number | null;
  /** Decide and record, never write the scale (`horizon.dev/dry-run`). */
  dryRun: boolean;
  knobs: Knobs;
  fallback: Fallback | null;
  scaleToZero: ScaleToZero | null;
  schedule: Schedule | null;
  /** Scale ahead of a seasonal forecast (`horizon.dev/predictive`). */
  predictive: Predictive | null;
}

const NO_KNOBS: Knobs = Object.freeze({
  syncPeriodMs: null,
  tolerance: null,
  scaleUpTolerance: null,
  scaleDownTolerance: null,
  cpuInitializationPeriodMs: null,
  initialReadinessDelayMs: null,
  downscaleStabilizationWindowMs: null,
});

export interface ExtensionIssue {
  /** The annotation at fault, e.g. `horizon.dev/paused`. */
  annotation: string;
  message: string;
}

export interface ParsedExtensions {
  /** null: no `horizon.dev/` annotation, or errors (then no extension applies). */
  extensions: Extensions | null;
  errors: ExtensionIssue[];
  /** Unknown `horizon.dev/` keys: reported, otherwise ignored. */
  warnings: ExtensionIssue[];
}

const NONE: ParsedExtensions = Object.freeze({ extensions: null, errors: [], warnings: [] });

const KNOWN = new Set<string>(Object.values(ANNOTATIONS));

function parseBool(annotation: string, raw: string, errors: ExtensionIssue[]): boolean | undefined {
  if (raw === "true") return true;
  if (raw === "false") return false;
  errors.push({ annotation, message: `invalid value "${raw}": must be "true" or "false"` });
  return undefined;
}

function parseCount(annotation: string, raw: string, errors: ExtensionIssue[]): number | null {
  // int32 like spec.minReplicas; no sign, no exponent.
  if (/^\d{1,10}$/.test(raw) && Number(raw) <= 2_147_483_647) return Number(raw);
  errors.push({
    annotation,
    message: `invalid value "${raw}": must be a whole number of replicas (0 or more)`,
  });
  return null;
}

function parseTolerance(annotation: string, raw: string, errors: ExtensionIssue[]): number | null {
  // A plain decimal, as the flag takes it (behavior's tolerance is a Quantity: "0.05" reads the same).
  if (/^\d+(\.\d+)?$|^\.\d+$/.test(raw)) return Number(raw);
  errors.push({
    annotation,
    message: `invalid value "${raw}": must be a decimal number, 0 or more (e.g. "0.05")`,
  });
  return null;
}

function parseDurationAnnotation(
  annotation: string,
  raw: string,
  errors: ExtensionIssue[],
): number | null {
  const parsed = parseDuration(raw);
  if (!parsed.ok) {
    errors.push({ annotation, message: `invalid value "${raw}": ${parsed.error}` });
    return null;
  }
  if (parsed.ms < 0) {
    errors.push({ annotation, message: `invalid value "${raw}": must not be negative` });
    return null;
  }
  return parsed.ms;
}

/**
 * Reads and validates the `horizon.dev/` annotations of one HPA; with its spec, also the rules
 * that depend on it (scale to zero needs an Object or External metric, activations name one).
 */
export function parseExtensions(
  annotations: Readonly<Record<string, string>> | undefined,
  spec?: HorizontalPodAutoscaler["spec"],
): ParsedExtensions {
  if (!annotations) return NONE;
  const keys = Object.keys(annotations).filter((key) => key.startsWith(ANNOTATION_PREFIX));
  if (keys.length === 0) return NONE;
  const errors: ExtensionIssue[] = [];
  const warnings: ExtensionIssue[] = [];
  for (const key of keys.sort()) {
    if (!KNOWN.has(key) && !key.startsWith(ACTIVATION_PREFIX)) {
      warnings.push({
        annotation: key,
        message: "unknown annotation: Horizon ignores it (see docs/extensions.md)",
      });
    }
  }
  const value = (key: string): string | undefined => annotations[key];
  const extensions: Extensions = {
    paused: false,
    pausedReplicas: null,
    dryRun: false,
    knobs: { ...NO_KNOBS },
    fallback: null,
    scaleToZero: null,
    schedule: null,
    predictive: null,
  };

  const paused = value(ANNOTATIONS.paused);
  if (paused !== undefined)
    extensions.paused = parseBool(ANNOTATIONS.paused, paused, errors) ?? false;
  const pausedReplicas = value(ANNOTATIONS.pausedReplicas);
  if (pausedReplicas !== undefined) {
    extensions.pausedReplicas = parseCount(ANNOTATIONS.pausedReplicas, pausedReplicas, errors);
    if (paused === "false") {
      errors.push({
        annotation: ANNOTATIONS.pausedReplicas,
        message: `holds the target, which contradicts ${ANNOTATIONS.paused}: "false"`,
      });
    }
  }
  const dryRun = value(ANNOTATIONS.dryRun);
  if (dryRun !== undefined)
    extensions.dryRun = parseBool(ANNOTATIONS.dryRun, dryRun, errors) ?? false;
  const knobs = extensions.knobs;
  const duration = (annotation: string): number | null => {
    const raw = value(annotation);
    return raw === undefined ? null : parseDurationAnnotation(annotation, raw, errors);
  };
  const tolerance = (annotation: string): number | null => {
    const raw = value(annotation);
    return raw === undefined ? null : parseTolerance(annotation, raw, errors);
  };
  knobs.syncPeriodMs = duration(ANNOTATIONS.syncPeriod);
  if (knobs.syncPeriodMs === 0) {
    errors.push({ annotation: ANNOTATIONS.syncPeriod, message: "must be greater than 0" });
  }
  knobs.tolerance = tolerance(ANNOTATIONS.tolerance);
  knobs.scaleUpTolerance = tolerance(ANNOTATIONS.scaleUpTolerance);
  knobs.scaleDownTolerance = tolerance(ANNOTATIONS.scaleDownTolerance);
  knobs.cpuInitializationPeriodMs = duration(ANNOTATIONS.cpuInitializationPeriod);
  knobs.initialReadinessDelayMs = duration(ANNOTATIONS.initialReadinessDelay);
  knobs.downscaleStabilizationWindowMs = duration(ANNOTATIONS.downscaleStabilization);

  extensions.fallback = parseFallback(value, errors);
  extensions.scaleToZero = parseScaleToZero(annotations, spec, errors);
  extensions.schedule = parseScheduleAnnotations(value, spec, errors);
  extensions.predictive = parsePredictive(value, errors);

  if (extensions.dryRun && (extensions.paused || extensions.pausedReplicas !== null)) {
    const pause = extensions.paused ? ANNOTATIONS.paused : ANNOTATIONS.pausedReplicas;
    errors.push({
      annotation: ANNOTATIONS.dryRun,
      message: `contradicts ${pause}: a paused HPA decides nothing to try; remove one of them`,
    });
  }
  return errors.length > 0
    ? { extensions: null, errors, warnings }
    : { extensions, errors, warnings };
}

/** Object and External metrics by name: the ones with a value at zero replicas. */
export function activationMetricNames(spec: HorizontalPodAutoscaler["spec"] | undefined): string[] {
  const names: string[] = [];
  for (const metric of spec?.metrics ?? []) {
    if (metric.type === "Object" && metric.object) names.push(metric.object.metric.name);
    if (metric.type === "External" && metric.external) names.push(metric.external.metric.name);
  }
  return names;
}

function parseScaleToZero(
  annotations: Readonly<Record<string, string>>,
  spec: HorizontalPodAutoscaler["spec"] | undefined,
  errors: ExtensionIssue[],
): ScaleToZero | null {
  const min = annotations[ANNOTATIONS.minReplicas];
  const cooldown = annotations[ANNOTATIONS.cooldownPeriod];
  const activationKeys = Object.keys(annotations)
    .filter((key) => key.startsWith(ACTIVATION_PREFIX))
    .sort();
  if (min === undefined && cooldown === undefined && activationKeys.length === 0) return null;
  if (min !== undefined && min !== "0") {
    errors.push({
      annotation: ANNOTATIONS.minReplicas,
      message: `unsupported value "${min}": only "0" (scale to zero); other minimums go in spec.minReplicas`,
    });
  }
  // Upstream's own minReplicas: 0 (HPAScaleToZero) takes activations and a cooldown too.
  const zero = min === "0" || spec?.minReplicas === 0;
  if (!zero) {
    for (const key of [
      ...(cooldown !== undefined ? [ANNOTATIONS.cooldownPeriod] : []),
      ...activationKeys,
    ]) {
      errors.push({
        annotation: key,
        message: `needs ${ANNOTATIONS.minReplicas}: "0" (or spec.minReplicas 0)`,
      });
    }
    return null;
  }
  const names = activationMetricNames(spec);
  if (spec && names.length === 0 && min !== undefined) {
    errors.push({
      annotation: ANNOTATIONS.minReplicas,
      message:
        "scaling to zero needs at least one Object or External metric (pods' metrics do not exist at zero replicas)",
    });
  }
  let cooldownMs = DEFAULT_COOLDOWN_MS;
  if (cooldown !== undefined) {
    cooldownMs = parseDurationAnnotation(ANNOTATIONS.cooldownPeriod, cooldown, errors) ?? 0;
  }
  const activations = new Map<string, bigint>();
  for (const key of activationKeys) {
    const name = key.slice(ACTIVATION_PREFIX.length);
    const raw = annotations[key]!;
    if (spec && !names.includes(name)) {
      errors.push({
        annotation: key,
        message: `no Object or External metric named "${name}" in spec.metrics${names.length > 0 ? ` (there are: ${names.join(", ")})` : ""}`,
      });
      continue;
    }
    try {
      const quantity = Quantity.parse(raw);
      if (quantity.sign() < 0) throw new Error("negative");
      activations.set(name, quantity.milliValue());
    } catch {
      errors.push({
        annotation: key,
        message: `invalid value "${raw}": must be a quantity, 0 or more (e.g. "10", "500m")`,
      });
    }
  }
  return { cooldownMs, activations };
}

function parseScheduleAnnotations(
  value: (key: string) => string | undefined,
  spec: HorizontalPodAutoscaler["spec"] | undefined,
  errors: ExtensionIssue[],
): Schedule | null {
  const raw = value(ANNOTATIONS.schedule);
  const timeZone = value(ANNOTATIONS.timeZone);
  if (raw === undefined) {
    if (timeZone !== undefined) {
      errors.push({ annotation: ANNOTATIONS.timeZone, message: `needs ${ANNOTATIONS.schedule}` });
    }
    return null;
  }
  const parsed = parseSchedule(raw, timeZone, spec?.maxReplicas);
  if (!parsed.ok) {
    for (const e of parsed.errors) {
      errors.push({
        annotation: e.time ? ANNOTATIONS.timeZone : ANNOTATIONS.schedule,
        message: e.message,
      });
    }
    return null;
  }
  return parsed.schedule;
}

const PREDICTIVE_KEYS = [
  ANNOTATIONS.predictiveLead,
  ANNOTATIONS.predictiveSeasons,
  ANNOTATIONS.predictiveHistory,
  ANNOTATIONS.predictiveMode,
  ANNOTATIONS.predictiveModel,
] as const;

function parsePredictive(
  value: (key: string) => string | undefined,
  errors: ExtensionIssue[],
): Predictive | null {
  const raw = value(ANNOTATIONS.predictive);
  const on = raw === undefined ? false : parseBool(ANNOTATIONS.predictive, raw, errors);
  if (!on) {
    for (const key of PREDICTIVE_KEYS) {
      if (value(key) !== undefined) {
        errors.push({ annotation: key, message: `needs ${ANNOTATIONS.predictive}: "true"` });
      }
    }
    return null;
  }
  const predictive: Predictive = {
    leadMs: null,
    seasonsMs: [...DEFAULT_PREDICTIVE_SEASONS_MS],
    historyMs: DEFAULT_PREDICTIVE_HISTORY_MS,
    mode: "scale",
    model: "demand",
  };
  const lead = value(ANNOTATIONS.predictiveLead);
  if (lead !== undefined) {
    const ms = parseDurationAnnotation(ANNOTATIONS.predictiveLead, lead, errors);
    if (ms === 0) {
      errors.push({ annotation: ANNOTATIONS.predictiveLead, message: "must be greater than 0" });
    } else if (ms !== null && ms > 86_400_000) {
      errors.push({
        annotation: ANNOTATIONS.predictiveLead,
        message: `invalid value "${lead}": at most 24h ahead`,
      });
    } else predictive.leadMs = ms;
  }
  const seasons = value(ANNOTATIONS.predictiveSeasons);
  if (seasons !== undefined) {
    const parsed: number[] = [];
    for (const part of seasons.split(",")) {
      const span = parseSpan(part.trim());
      if (!span.ok) {
        errors.push({
          annotation: ANNOTATIONS.predictiveSeasons,
          message: `invalid season "${part.trim()}": ${span.error}`,
        });
      } else if (span.ms < 3_600_000) {
        errors.push({
          annotation: ANNOTATIONS.predictiveSeasons,
          message: `invalid season "${part.trim()}": at least 1h`,
        });
      } else parsed.push(span.ms);
    }
    parsed.sort((a, b) => a - b);
    const shortest = parsed[0];
    for (const season of parsed.slice(1)) {
      if (shortest !== undefined && (season === shortest || season % shortest !== 0)) {
        errors.push({
          annotation: ANNOTATIONS.predictiveSeasons,
          message: `invalid value "${seasons}": each longer season must be a whole multiple of the shortest (e.g. "1d,7d")`,
        });
        break;
      }
    }
    if (parsed.length > 0) predictive.seasonsMs = parsed;
  }
  const history = value(ANNOTATIONS.predictiveHistory);
  if (history !== undefined) {
    const span = parseSpan(history);
    if (!span.ok) {
      errors.push({
        annotation: ANNOTATIONS.predictiveHistory,
        message: `invalid value "${history}": ${span.error}`,
      });
    } else if (span.ms < (predictive.seasonsMs[0] ?? 0)) {
      errors.push({
        annotation: ANNOTATIONS.predictiveHistory,
        message: `invalid value "${history}": shorter than the shortest season; the model learns from whole seasons`,
      });
    } else predictive.historyMs = span.ms;
  }
  const mode = value(ANNOTATIONS.predictiveMode);
  if (mode !== undefined) {
    if (mode === "scale" || mode === "forecast-only") predictive.mode = mode;
    else {
      errors.push({
        annotation: ANNOTATIONS.predictiveMode,
        message: `unsupported value "${mode}": must be "scale" (the default) or "forecast-only"`,
      });
    }
  }
  const model = value(ANNOTATIONS.predictiveModel);
  if (model !== undefined) {
    if (model === "demand" || model === "replicas-holt-winters") predictive.model = model;
    else {
      errors.push({
        annotation: ANNOTATIONS.predictiveModel,
        message: `unsupported value "${model}": must be "demand" (the default) or "replicas-holt-winters"`,
      });
    }
  }
  return predictive;
}

function parseFallback(
  value: (key: string) => string | undefined,
  errors: ExtensionIssue[],
): Fallback | null {
  const replicas = value(ANNOTATIONS.fallbackReplicas);
  const threshold = value(ANNOTATIONS.fallbackFailureThreshold);
  const mode = value(ANNOTATIONS.fallbackMode);
  if (replicas === undefined) {
    for (const [annotation, raw] of [
      [ANNOTATIONS.fallbackFailureThreshold, threshold],
      [ANNOTATIONS.fallbackMode, mode],
    ] as const) {
      if (raw !== undefined) {
        errors.push({ annotation, message: `needs ${ANNOTATIONS.fallbackReplicas}` });
      }
    }
    return null;
  }
  const count = parseCount(ANNOTATIONS.fallbackReplicas, replicas, errors);
  let failureThreshold = DEFAULT_FALLBACK_FAILURE_THRESHOLD;
  if (threshold !== undefined) {
    if (/^\d{1,4}$/.test(threshold) && Number(threshold) >= 1) failureThreshold = Number(threshold);
    else {
      errors.push({
        annotation: ANNOTATIONS.fallbackFailureThreshold,
        message: `invalid value "${threshold}": must be a whole number of syncs, 1 or more`,
      });
    }
  }
  if (mode !== undefined && mode !== "currentReplicasIfHigher" && mode !== "static") {
    errors.push({
      annotation: ANNOTATIONS.fallbackMode,
      message: `unsupported value "${mode}": must be "currentReplicasIfHigher" (the default) or "static"`,
    });
  }
  if (count === null) return null;
  return {
    replicas: count,
    failureThreshold,
    mode: mode === "static" ? "static" : "currentReplicasIfHigher",
  };
}

/**
 * The annotations' problems as kube-apiserver reports problems: field errors at
 * `metadata.annotations[key]` (a 422) and warning texts (a `Warning:` header).
 */
export function annotationFieldIssues(hpa: HorizontalPodAutoscaler): {
  errors: FieldError[];
  warnings: string[];
} {
  const parsed = parseExtensions(hpa.metadata.annotations, hpa.spec);
  return {
    errors: parsed.errors.map((e) => ({
      type: "FieldValueInvalid",
      field: `metadata.annotations[${e.annotation}]`,
      badValue: hpa.metadata.annotations?.[e.annotation] ?? "",
      detail: e.message,
    })),
    warnings: parsed.warnings.map((w) => `metadata.annotations[${w.annotation}]: ${w.message}`),
  };
}

/** Whether any annotation is one Horizon acts on (unknown `horizon.dev/` keys are not). */
export function hasKnownAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): boolean {
  if (!annotations) return false;
  // A loop over the keys, not Object.keys + some: no array and closure at every sync.
  for (const key in annotations) {
    if (KNOWN.has(key) || key.startsWith(ACTIVATION_PREFIX)) return true;
  }
  return false;
}

const cache = new WeakMap<
  Readonly<Record<string, string>>,
  { spec: HorizontalPodAutoscaler["spec"]; parsed: ParsedExtensions }
>();

/**
 * The extensions of an HPA, parsed once per annotations and spec objects (stored objects are
 * replaced, never mutated): a status write makes a new HPA object but keeps both, so the
 * syncs in between parse nothing and fill no cache.
 */
export function extensionsOf(hpa: HorizontalPodAutoscaler): ParsedExtensions {
  const annotations = hpa.metadata.annotations;
  if (!annotations) return NONE;
  const cached = cache.get(annotations);
  if (cached !== undefined && cached.spec === hpa.spec) return cached.parsed;
  const parsed = parseExtensions(annotations, hpa.spec);
  cache.set(annotations, { spec: hpa.spec, parsed });
  return parsed;
}

/** `horizon.dev/paused` or a held count. */
export function isPaused(extensions: Extensions): boolean {
  return extensions.paused || extensions.pausedReplicas !== null;
}
