// The controller's typed configuration: every field is an upstream kube-controller-manager
// flag with its production default (pkg/controller/podautoscaler/config/v1alpha1/defaults.go).

import { formatDuration, parseDuration } from "../api/duration.js";
import { FeatureGates } from "../api/featuregates.js";
import type { KubernetesVersion } from "../api/versions.js";

export interface ControllerConfig {
  /** --horizontal-pod-autoscaler-sync-period */
  syncPeriodMs: number;
  /** --horizontal-pod-autoscaler-tolerance */
  tolerance: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization */
  downscaleStabilizationWindowMs: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period */
  cpuInitializationPeriodMs: number;
  /** --horizontal-pod-autoscaler-initial-readiness-delay */
  initialReadinessDelayMs: number;
  /** --concurrent-horizontal-pod-autoscaler-syncs */
  concurrentSyncs: number;
  /** Legacy (no `behavior`) scale-up cap: max(factor × current, minimum). Not a flag upstream. */
  scaleUpLimitFactor: number;
  scaleUpLimitMinimum: number;
  /** --feature-gates, over the defaults of the Kubernetes version reproduced
   * (`featureGates.version`, which the version switches of the core read too). */
  featureGates: FeatureGates;
  /**
   * Not flags: one direction's tolerance for one HPA (`horizon.dev/scale-up-tolerance`,
   * `scale-down-tolerance`, docs/extensions.md), over `tolerance`. Never set by default.
   */
  scaleUpTolerance?: number;
  scaleDownTolerance?: number;
}

/** Production defaults, with the feature gates of `version` (default: the newest supported). */
export function defaultControllerConfig(version?: KubernetesVersion): ControllerConfig {
  return {
    syncPeriodMs: 15_000,
    tolerance: 0.1,
    downscaleStabilizationWindowMs: 300_000,
    cpuInitializationPeriodMs: 300_000,
    initialReadinessDelayMs: 30_000,
    concurrentSyncs: 5,
    scaleUpLimitFactor: 2.0,
    scaleUpLimitMinimum: 4.0,
    featureGates: FeatureGates.defaults(version),
  };
}

/** Upstream flag names, with the config field each one sets and how it is parsed. */
export const CONTROLLER_FLAGS = {
  "horizontal-pod-autoscaler-sync-period": { field: "syncPeriodMs", kind: "duration" },
  "horizontal-pod-autoscaler-tolerance": { field: "tolerance", kind: "float" },
  "horizontal-pod-autoscaler-downscale-stabilization": {
    field: "downscaleStabilizationWindowMs",
    kind: "duration",
  },
  "horizontal-pod-autoscaler-cpu-initialization-period": {
    field: "cpuInitializationPeriodMs",
    kind: "duration",
  },
  "horizontal-pod-autoscaler-initial-readiness-delay": {
    field: "initialReadinessDelayMs",
    kind: "duration",
  },
  "concurrent-horizontal-pod-autoscaler-syncs": { field: "concurrentSyncs", kind: "int" },
  "feature-gates": { field: "featureGates", kind: "featureGates" },
} as const;

export type ControllerFlagName = keyof typeof CONTROLLER_FLAGS;

export interface ConfigIssue {
  flag: string;
  message: string;
}

/**
 * Applies flag values (by upstream flag name, without the leading dashes) over `base`, then
 * validates. Returns every problem found, each naming its flag.
 */
export function applyControllerFlags(
  base: ControllerConfig,
  flags: Partial<Record<string, string>>,
): { ok: true; config: ControllerConfig } | { ok: false; issues: ConfigIssue[] } {
  // Every key in one order, whatever `base` is: a spread copy gets another hidden class once
  // this function is optimized, which deoptimizes every hot function that reads the config.
  const config: ControllerConfig = {
    syncPeriodMs: base.syncPeriodMs,
    tolerance: base.tolerance,
    downscaleStabilizationWindowMs: base.downscaleStabilizationWindowMs,
    cpuInitializationPeriodMs: base.cpuInitializationPeriodMs,
    initialReadinessDelayMs: base.initialReadinessDelayMs,
    concurrentSyncs: base.concurrentSyncs,
    scaleUpLimitFactor: base.scaleUpLimitFactor,
    scaleUpLimitMinimum: base.scaleUpLimitMinimum,
    featureGates: base.featureGates,
  };
  if (base.scaleUpTolerance !== undefined) config.scaleUpTolerance = base.scaleUpTolerance;
  if (base.scaleDownTolerance !== undefined) config.scaleDownTolerance = base.scaleDownTolerance;
  const issues: ConfigIssue[] = [];
  const mutable = config as unknown as Record<string, unknown>;
  for (const [flag, raw] of Object.entries(flags)) {
    if (raw === undefined) continue;
    const known = CONTROLLER_FLAGS[flag as ControllerFlagName];
    if (!known) {
      issues.push({ flag: `--${flag}`, message: `unknown flag --${flag}` });
      continue;
    }
    switch (known.kind) {
      case "duration": {
        const parsed = parseDuration(raw);
        if (parsed.ok) mutable[known.field] = parsed.ms;
        else issues.push({ flag: `--${flag}`, message: parsed.error });
        break;
      }
      case "float": {
        const value = Number(raw);
        if (raw.trim() === "" || !Number.isFinite(value)) {
          issues.push({ flag: `--${flag}`, message: `invalid number "${raw}"` });
        } else mutable[known.field] = value;
        break;
      }
      case "int": {
        const value = Number(raw);
        if (!/^[+-]?\d+$/.test(raw.trim())) {
          issues.push({ flag: `--${flag}`, message: `invalid integer "${raw}"` });
        } else mutable[known.field] = value;
        break;
      }
      case "featureGates": {
        try {
          config.featureGates = FeatureGates.parse(raw, base.featureGates);
        } catch (error) {
          issues.push({ flag: `--${flag}`, message: (error as Error).message });
        }
        break;
      }
    }
  }
  issues.push(...validateControllerConfig(config));
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config };
}

export function validateControllerConfig(config: ControllerConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const positive = (flag: ControllerFlagName, value: number) => {
    if (!(value > 0)) issues.push({ flag: `--${flag}`, message: `must be greater than 0` });
  };
  const nonNegative = (flag: ControllerFlagName, value: number) => {
    if (value < 0) issues.push({ flag: `--${flag}`, message: `must not be negative` });
  };
  positive("horizontal-pod-autoscaler-sync-period", config.syncPeriodMs);
  nonNegative("horizontal-pod-autoscaler-tolerance", config.tolerance);
  nonNegative(
    "horizontal-pod-autoscaler-downscale-stabilization",
    config.downscaleStabilizationWindowMs,
  );
  nonNegative(
    "horizontal-pod-autoscaler-cpu-initialization-period",
    config.cpuInitializationPeriodMs,
  );
  nonNegative("horizontal-pod-autoscaler-initial-readiness-delay", config.initialReadinessDelayMs);
  positive("concurrent-horizontal-pod-autoscaler-syncs", config.concurrentSyncs);
  return issues;
}

/** The flags as `kube-controller-manager` would print them (durations as Go prints them). */
export function describeControllerConfig(
  config: ControllerConfig,
): Record<ControllerFlagName, string> {
  return {
    "horizontal-pod-autoscaler-sync-period": formatDuration(config.syncPeriodMs),
    "horizontal-pod-autoscaler-tolerance": String(config.tolerance),
    "horizontal-pod-autoscaler-downscale-stabilization": formatDuration(
      config.downscaleStabilizationWindowMs,
    ),
    "horizontal-pod-autoscaler-cpu-initialization-period": formatDuration(
      config.cpuInitializationPeriodMs,
    ),
    "horizontal-pod-autoscaler-initial-readiness-delay": formatDuration(
      config.initialReadinessDelayMs,
    ),
    "concurrent-horizontal-pod-autoscaler-syncs": String(config.concurrentSyncs),
    "feature-gates": config.featureGates.toString(),
  };
}
