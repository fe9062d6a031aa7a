// Feature gates the HPA API and controller consult, with their Kubernetes v1.34 defaults, and the
// `--feature-gates` flag syntax of k8s.io/component-base/featuregate.
//
// v1.34 states (sources):
// - HPAScaleToZero: alpha since v1.16, default off (pkg/features/kube_features.go; the HPA API
//   docs still describe it as "the alpha feature gate HPAScaleToZero").
// - HPAConfigurableTolerance: alpha since v1.33, default off, still alpha in v1.34; beta (default
//   on) only from v1.35 (kubernetes/kubernetes#133128 "Promote HPAConfigurableTolerance gate to
//   beta", kubernetes/website#52981 stages: alpha 1.33–1.34, beta from 1.35;
//   kedacore/keda-docs#1662 "Hpa tolerance with kubernetes v1.34 is still behind feature-gate").
// - PodLevelResources: alpha in v1.32–v1.33, beta and default on in v1.34
//   (kubernetes/kubernetes#132999 "Promote PodLevelResources to Beta": {1.34, true, Beta}); the
//   HPA replica calculator uses it when summing pod requests.

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

export const KNOWN_FEATURE_GATES: Readonly<Record<FeatureGateName, FeatureGateSpec>> = {
  HPAScaleToZero: {
    name: "HPAScaleToZero",
    default: false,
    stage: "ALPHA",
    since: "1.16",
    lockToDefault: false,
  },
  HPAConfigurableTolerance: {
    name: "HPAConfigurableTolerance",
    default: false,
    stage: "ALPHA",
    since: "1.33",
    lockToDefault: false,
  },
  PodLevelResources: {
    name: "PodLevelResources",
    default: true,
    stage: "BETA",
    since: "1.34",
    lockToDefault: false,
  },
};

const GATE_NAMES = Object.keys(KNOWN_FEATURE_GATES) as FeatureGateName[];

// component-base accepts these two pseudo-gates: they set every alpha (beta) gate that is not
// set explicitly.
const ALL_ALPHA = "AllAlpha";
const ALL_BETA = "AllBeta";

export function isFeatureGateName(name: string): name is FeatureGateName {
  return Object.hasOwn(KNOWN_FEATURE_GATES, name);
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

/** An immutable set of feature-gate values: v1.34 defaults plus explicit settings. */
export class FeatureGates {
  readonly #explicit: ReadonlyMap<FeatureGateName, boolean>;

  private constructor(explicit: ReadonlyMap<FeatureGateName, boolean>) {
    this.#explicit = explicit;
  }

  /** Every gate at its Kubernetes v1.34 default. */
  static defaults(): FeatureGates {
    return new FeatureGates(new Map());
  }

  /**
   * Parses `--feature-gates` syntax (`Name=true,Other=false`) over `base` (v1.34 defaults). Like
   * component-base, empty entries are skipped, keys and values are trimmed, a later entry wins,
   * and an entry without `=`, a value that is not a Go boolean, or an unknown gate is rejected
   * with an Error naming it.
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
        const spec = KNOWN_FEATURE_GATES[key];
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
        if (KNOWN_FEATURE_GATES[name].stage === stage && !explicit.has(name)) {
          explicit.set(name, value);
        }
      }
    }
    return new FeatureGates(explicit);
  }

  enabled(name: FeatureGateName): boolean {
    const value = this.#explicit.get(name);
    return value ?? KNOWN_FEATURE_GATES[name].default;
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
    return GATE_NAMES.every((name) => this.enabled(name) === other.enabled(name));
  }
}
