// Feature gates the HPA API and controller consult, with their default, stage and lock in each
// supported Kubernetes version (src/api/versions.ts), and the `--feature-gates` flag syntax of
// k8s.io/component-base/featuregate. A gate set is made for one version, as a component built
// at (or emulating) that version has it.
//
// Stages (sources; docs/versions.md):
// - HPAScaleToZero: alpha since v1.16, default off through v1.36 (the v1.34 HPA API docs still
//   say "the alpha feature gate HPAScaleToZero"); beta and on in v1.37
//   (kubernetes/kubernetes#139648: `{Version: "1.37", Default: true, PreRelease: Beta}`).
// - HPAConfigurableTolerance: alpha in v1.33–v1.34, default off (kedacore/keda-docs#1662);
//   beta and on in v1.35–v1.36 (kubernetes/kubernetes#133128, kubernetes/website#52981); GA in
//   v1.37, so locked on (kubernetes/kubernetes#140107: "the related codepath is always
//   enabled"; the field's doc in kubernetes/api v0.37.0-beta.0 no longer says beta).
// - PodLevelResources: beta and on from v1.34 (kubernetes/kubernetes#132999). Its stage in
//   v1.35–v1.37 was not confirmed; on by default in each (what the HPA consults).

import {
  DEFAULT_KUBERNETES_VERSION,
  type KubernetesVersion,
  SUPPORTED_KUBERNETES_VERSIONS,
} from "./versions.js";

export type FeatureGateName = "HPAScaleToZero" | "HPAConfigurableTolerance" | "PodLevelResources";

export type FeatureStage = "ALPHA" | "BETA" | "GA";

export interface FeatureGateSpec {
  readonly name: FeatureGateName;
  readonly default: boolean;
  readonly stage: FeatureStage;
  /** First release with this stage. */
  readonly since: string;
  readonly lockToDefault: boolean;
}

function gate(
  name: FeatureGateName,
  st: FeatureStage,
  since: string,
  on: boolean,
  lockToDefault = false,
): FeatureGateSpec {
  return Object.freeze({ name, default: on, stage: st, since, lockToDefault });
}

const scaleToZeroAlpha = gate("HPAScaleToZero", "ALPHA", "1.16", false);
const toleranceAlpha = gate("HPAConfigurableTolerance", "ALPHA", "1.33", false);
const toleranceBeta = gate("HPAConfigurableTolerance", "BETA", "1.35", true);
const podLevelBeta = gate("PodLevelResources", "BETA", "1.34", true);

/** Each gate's spec in each supported version (a gate a version lacks is unrecognized there). */
export const FEATURE_GATES_BY_VERSION: Readonly<
  Record<KubernetesVersion, Readonly<Record<FeatureGateName, FeatureGateSpec>>>
> = {
  "1.34": {
    HPAScaleToZero: scaleToZeroAlpha,
    HPAConfigurableTolerance: toleranceAlpha,
    PodLevelResources: podLevelBeta,
  },
  "1.35": {
    HPAScaleToZero: scaleToZeroAlpha,
    HPAConfigurableTolerance: toleranceBeta,
    PodLevelResources: podLevelBeta,
  },
  "1.36": {
    HPAScaleToZero: scaleToZeroAlpha,
    HPAConfigurableTolerance: toleranceBeta,
    PodLevelResources: podLevelBeta,
  },
  "1.37": {
    HPAScaleToZero: gate("HPAScaleToZero", "BETA", "1.37", true),
    HPAConfigurableTolerance: gate("HPAConfigurableTolerance", "GA", "1.37", true, true),
    PodLevelResources: podLevelBeta,
  },
};

/** The gate's spec in `version`. */
export function featureGateSpec(
  name: FeatureGateName,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): FeatureGateSpec {
  return FEATURE_GATES_BY_VERSION[version][name];
}

// Every version knows the same gates today; checked here so a version table cannot drift.
for (const version of SUPPORTED_KUBERNETES_VERSIONS) {
  if (Object.keys(FEATURE_GATES_BY_VERSION[version]).length !== 3) {
    throw new Error(`feature gate table of ${version} is incomplete`);
  }
}

const GATE_NAMES = Object.keys(FEATURE_GATES_BY_VERSION["1.34"]) as FeatureGateName[];

// component-base accepts these two pseudo-gates: they set every alpha (beta) gate that is not
// set explicitly.
const ALL_ALPHA = "AllAlpha";
const ALL_BETA = "AllBeta";

export function isFeatureGateName(name: string): name is FeatureGateName {
  return (GATE_NAMES as string[]).includes(name);
}

// Go's strconv.ParseBool, which component-base uses for each value.
function parseGoBool(key: string, value: string): boolean {
  switch (value) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      throw new Error(
        `invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
  }
}

/** An immutable set of feature-gate values: one version's defaults plus explicit settings. */
export class FeatureGates {
  /** The Kubernetes version whose defaults, stages and locks apply. */
  readonly version: KubernetesVersion;
  readonly #specs: Readonly<Record<FeatureGateName, FeatureGateSpec>>;
  readonly #explicit: ReadonlyMap<FeatureGateName, boolean>;

  private constructor(version: KubernetesVersion, explicit: ReadonlyMap<FeatureGateName, boolean>) {
    this.version = version;
    this.#specs = FEATURE_GATES_BY_VERSION[version];
    this.#explicit = explicit;
  }

  /** Every gate at its default in `version` (the newest supported one unless given). */
  static defaults(version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): FeatureGates {
    return new FeatureGates(version, new Map());
  }

  /** The gate's spec in this set's version. */
  spec(name: FeatureGateName): FeatureGateSpec {
    return this.#specs[name];
  }

  /**
   * Parses `--feature-gates` syntax (`Name=true,Other=false`) over `base` (the defaults). Like
   * component-base, empty entries are skipped, keys and values are trimmed, a later entry wins,
   * and an entry without `=`, a value that is not a Go boolean, or an unknown gate is rejected
   * with an Error naming it, as is setting a gate its version locks to the other value.
   */
  static parse(flag: string, base: FeatureGates = FeatureGates.defaults()): FeatureGates {
    const entries = new Map<string, boolean>();
    for (const entry of flag.split(",")) {
      if (entry.length === 0) continue;
      const eq = entry.indexOf("=");
      const key = (eq < 0 ? entry : entry.slice(0, eq)).trim();
      if (eq < 0) throw new Error(`missing bool value for ${key}`);
      entries.set(key, parseGoBool(key, entry.slice(eq + 1).trim()));
    }
    return base.#apply(entries);
  }

  /** Applies a `{name: value}` map (e.g. a test vector's `featureGates`) over `base`. */
  static fromRecord(
    record: Readonly<Record<string, boolean>>,
    base: FeatureGates = FeatureGates.defaults(),
  ): FeatureGates {
    const entries = new Map<string, boolean>();
    for (const [key, value] of Object.entries(record)) {
      if (typeof value !== "boolean") {
        throw new Error(`invalid value of ${key}=${String(value)}: not a boolean`);
      }
      entries.set(key, value);
    }
    return base.#apply(entries);
  }

  #apply(entries: ReadonlyMap<string, boolean>): FeatureGates {
    const explicit = new Map(this.#explicit);
    const stageDefaults: Array<[FeatureStage, boolean]> = [];
    for (const [key, value] of entries) {
      if (key === ALL_ALPHA) stageDefaults.push(["ALPHA", value]);
      else if (key === ALL_BETA) stageDefaults.push(["BETA", value]);
      else if (!isFeatureGateName(key)) throw new Error(`unrecognized feature gate: ${key}`);
      else {
        const spec = this.#specs[key];
        if (spec.lockToDefault && spec.default !== value) {
          throw new Error(
            `cannot set feature gate ${key} to ${value}, feature is locked to ${spec.default}`,
          );
        }
        explicit.set(key, value);
      }
    }
    // AllAlpha/AllBeta only fill gates not set explicitly, whatever their position in the flag.
    for (const [stage, value] of stageDefaults) {
      for (const name of GATE_NAMES) {
        if (this.#specs[name].stage === stage && !explicit.has(name)) {
          explicit.set(name, value);
        }
      }
    }
    return new FeatureGates(this.version, explicit);
  }

  enabled(name: FeatureGateName): boolean {
    const value = this.#explicit.get(name);
    return value ?? this.#specs[name].default;
  }

  /** A copy with these gates set explicitly. */
  with(overrides: Partial<Record<FeatureGateName, boolean>>): FeatureGates {
    const entries = new Map<string, boolean>();
    for (const [key, value] of Object.entries(overrides)) {
      if (value !== undefined) entries.set(key, value);
    }
    return this.#apply(entries);
  }

  /** The explicitly set gates (what `toString()` prints). */
  overrides(): Partial<Record<FeatureGateName, boolean>> {
    return Object.fromEntries(this.#explicit) as Partial<Record<FeatureGateName, boolean>>;
  }

  /** The effective value of every known gate. */
  all(): Record<FeatureGateName, boolean> {
    return Object.fromEntries(GATE_NAMES.map((name) => [name, this.enabled(name)])) as Record<
      FeatureGateName,
      boolean
    >;
  }

  /** Flag syntax of the explicitly set gates, sorted, as component-base's String() prints it. */
  toString(): string {
    return [...this.#explicit]
      .map(([name, value]) => `${name}=${value}`)
      .sort()
      .join(",");
  }

  equals(other: FeatureGates): boolean {
    return (
      this.version === other.version &&
      GATE_NAMES.every((name) => this.enabled(name) === other.enabled(name))
    );
  }
}
