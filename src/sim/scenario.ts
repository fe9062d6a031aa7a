// Scenario files for `horizon simulate`: multi-document YAML holding ordinary Kubernetes
// manifests plus one Horizon `Scenario` document. Parses with source positions, converts and
// validates HPAs as kube-apiserver does, fills every default and reports every problem found
// with file:line:column, document and field path. The format is documented in
// docs/scenarios.md.
import { readFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { type Document, isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from "yaml";
import { readHorizontalPodAutoscaler } from "../api/conversion.js";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import { FeatureGates } from "../api/featuregates.js";
import { isRecord as isObj } from "../api/json.js";
import { mergePatch } from "../api/patch/merge-patch.js";
import { strategicMergePatch } from "../api/patch/strategic-merge-patch.js";
import { Quantity } from "../api/quantity.js";
import type { HorizontalPodAutoscaler, KubeObject, LabelSelector } from "../api/types.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  type FieldError,
  fieldErrorBody,
  validateHorizontalPodAutoscaler,
} from "../api/validation.js";
import { applyControllerFlags, defaultControllerConfig } from "../core/config.js";
import { parseDuration } from "../core/duration.js";
import { selectorFromLabelSelector, selectorMatches } from "../core/selector.js";
import type {
  ExternalMetricModel,
  ObjectMetricModel,
  PodLifecycleModel,
  PodsMetricModel,
  Scenario,
  ScenarioEvent,
  ScenarioSpec,
  TrafficModel,
  UsageModel,
  WorkloadModel,
  WorkloadRef,
} from "./scenario-types.js";
import {
  applySet,
  formatPath,
  keyText,
  type PathSegment,
  parseFieldPath,
  resolveKind,
  setOrigin,
} from "./set-path.js";

export const SCENARIO_API_VERSION = "horizon.dev/v1alpha1";

export interface ScenarioError {
  /** The problem, without location or path. */
  message: string;
  file: string;
  line?: number;
  column?: number;
  /** 1-based index of the YAML document. */
  document?: number;
  /** `Kind/name` of that document, when known. */
  object?: string;
  /** Field path in the document, e.g. `spec.workloads[0].traffic[1].rps`. */
  path?: string;
}

/** `file:line:column: document N (Kind/name): path: message`, parts left out when unknown. */
export function formatScenarioError(e: ScenarioError): string {
  let out = e.file;
  if (e.line !== undefined) out += `:${e.line}:${e.column ?? 1}`;
  out += ": ";
  if (e.document !== undefined) {
    out += `document ${e.document}${e.object ? ` (${e.object})` : ""}: `;
  }
  if (e.path) out += `${e.path}: `;
  return out + e.message;
}

/** For callers that prefer to throw: one line per error. */
export class ScenarioParseError extends Error {
  readonly errors: ScenarioError[];
  constructor(errors: ScenarioError[]) {
    super(errors.map(formatScenarioError).join("\n"));
    this.name = "ScenarioParseError";
    this.errors = errors;
  }
}

export interface LoadOptions {
  /** Display name in messages; "-" for stdin. */
  file: string;
  /** Directory replay trace paths are relative to. */
  baseDir: string;
  /** `--set PATH=VALUE` expressions, applied to the raw documents before validation. */
  sets?: string[];
  /** Reads a replay trace (absolute path); defaults to the file system. */
  readFile?: (path: string) => string;
}

export type ScenarioResult =
  | { ok: true; scenario: Scenario }
  | { ok: false; errors: ScenarioError[] };

/** Every default of the Scenario document (see docs/scenarios.md). */
export const SCENARIO_DEFAULTS = {
  durationMs: 3_600_000,
  seed: 1,
  metricsResolutionMs: 15_000,
  pod: {
    schedulingDelayMs: 1_000,
    containerStartDelayMs: 3_000,
    /** Used when no container has a readinessProbe. */
    readinessDelayMs: 5_000,
    /** Used when the pod template has no terminationGracePeriodSeconds. */
    terminationGracePeriodMs: 30_000,
    failureProbability: 0,
  },
  usage: {
    cpuBaseMilli: 0,
    cpuMilliPerRps: 1,
    memoryBaseBytes: 64 * 1024 * 1024,
    memoryBytesPerRps: 0,
    jitter: 0,
  },
  rateWindowMs: 60_000,
  diurnalPeriodMs: 86_400_000,
} as const;

/** Reads a scenario file ("-" reads stdin) and parses it. */
export function loadScenarioFile(path: string, options: { sets?: string[] } = {}): ScenarioResult {
  let text: string;
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    return {
      ok: false,
      errors: [{ file: path, message: `cannot read the scenario: ${ioMessage(error)}` }],
    };
  }
  const baseDir = path === "-" ? process.cwd() : dirname(resolve(path));
  return parseScenario(text, {
    file: path,
    baseDir,
    ...(options.sets ? { sets: options.sets } : {}),
  });
}

function ioMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return (error as Error).message;
}

// ---------------------------------------------------------------------------------------------
// Documents and error positions

type Path = PathSegment[];
type Obj = Record<string, unknown>;

interface Doc {
  index: number;
  ast: Document;
  data: unknown;
  object?: string;
}

class Reporter {
  readonly errors: ScenarioError[] = [];
  readonly warnings: string[] = [];
  constructor(
    readonly file: string,
    readonly lines: LineCounter,
  ) {}

  /** An error at `path` of `doc`; `at: "key"` points at the field name instead of its value. */
  error(doc: Doc | null, path: Path | undefined, message: string, at: "key" | "value" = "value") {
    this.errors.push(this.make(doc, path, message, at));
  }

  /** An upstream validation error: its own field path, located in `doc` at `locatePath`. */
  fieldError(doc: Doc, field: string, message: string, locatePath?: Path) {
    const parsed = parseFieldPath(field);
    const e = this.make(doc, locatePath ?? (parsed.ok ? parsed.path : []), message, "value");
    e.path = field;
    this.errors.push(e);
  }

  make(doc: Doc | null, path: Path | undefined, message: string, at: "key" | "value") {
    const e: ScenarioError = { message, file: this.file };
    if (doc) {
      const where = locate(doc.ast, path ?? [], at);
      if (where.offset !== undefined) {
        const pos = this.lines.linePos(where.offset);
        e.line = pos.line;
        e.column = pos.col;
      }
      if (where.setBy !== undefined) e.message += ` (set by --set ${where.setBy})`;
      e.document = doc.index;
      if (doc.object) e.object = doc.object;
    }
    if (path && path.length > 0) e.path = formatPath(path);
    return e;
  }

  /** `file:line:column: document N (Kind/name)` for warnings. */
  where(doc: Doc, path: Path = []): string {
    const e = this.make(doc, path, "", "value");
    return formatScenarioError({ ...e, path: undefined, message: "" }).replace(/: $/, "");
  }

  /** `file:line:column` where a document starts. */
  position(doc: Doc): string {
    const offset = locate(doc.ast, [], "value").offset;
    if (offset === undefined) return this.file;
    const pos = this.lines.linePos(offset);
    return `${this.file}:${pos.line}:${pos.col}`;
  }

  warn(doc: Doc | null, message: string, path?: Path) {
    this.warnings.push(doc ? `${this.where(doc, path)}: ${message}` : `${this.file}: ${message}`);
  }
}

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const range = (node as { range?: [number, number, number] | null }).range;
  return range ? range[0] : undefined;
}

/** The source offset of a field: its value for scalars, its key for collections and `at: key`;
 * the nearest existing ancestor when the field is missing. */
function locate(
  ast: Document,
  path: readonly PathSegment[],
  at: "key" | "value",
): { offset?: number; setBy?: string } {
  let node: unknown = ast.contents;
  let offset = rangeStart(node);
  let setBy = setOrigin(node);
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node) && typeof seg === "string") {
      const pair = node.items.find((p) => keyText(p.key) === seg);
      if (!pair) break;
      const keyAt = rangeStart(pair.key);
      const valueAt = rangeStart(pair.value);
      setBy = setOrigin(pair.value) ?? setOrigin(pair.key) ?? setBy;
      if (last && at === "key") offset = keyAt ?? offset;
      else if (isScalar(pair.value) && valueAt !== undefined) offset = valueAt;
      else offset = keyAt ?? valueAt ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg];
      if (item === undefined) break;
      setBy = setOrigin(item) ?? setBy;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else break;
  }
  return {
    ...(offset !== undefined ? { offset } : {}),
    ...(setBy !== undefined ? { setBy } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Field readers: each reports its own error and returns undefined on a bad value.

const MSG = {
  map: "must be a mapping",
  list: "must be a list",
  string: "must be a non-empty string",
  required: "Required value",
  nonNegative: "must be a non-negative number",
  positive: "must be a positive number",
  probability: "must be a number from 0 to 1",
  nonNegativeInt: "must be a non-negative integer",
  positiveInt: "must be a positive integer",
  bool: "must be true or false",
  negativeDuration: "must not be negative",
  zeroDuration: "must be greater than 0",
  negativeQuantity: "must not be negative",
} as const;

class Ctx {
  constructor(
    readonly r: Reporter,
    readonly doc: Doc,
  ) {}

  error(path: Path, message: string, at: "key" | "value" = "value") {
    this.r.error(this.doc, path, message, at);
  }

  /** A mapping with only `allowed` fields (strict: unknown fields are errors). */
  fields(value: unknown, path: Path, allowed: readonly string[]): Obj | undefined {
    if (!isObj(value)) {
      this.error(path, MSG.map);
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        this.error([...path, key], `unknown field "${key}" (known: ${allowed.join(", ")})`, "key");
      }
    }
    return value;
  }

  has(obj: Obj, key: string): boolean {
    return obj[key] !== undefined && obj[key] !== null;
  }

  require(obj: Obj, key: string, path: Path): boolean {
    if (this.has(obj, key)) return true;
    this.error([...path, key], MSG.required);
    return false;
  }

  number(
    obj: Obj,
    key: string,
    path: Path,
    rule: "nonNegative" | "positive" | "probability" | "nonNegativeInt" | "positiveInt",
    fallback?: number,
  ): number | undefined {
    if (!this.has(obj, key)) {
      if (fallback === undefined) this.error([...path, key], MSG.required);
      return fallback;
    }
    const v = obj[key];
    const ok =
      typeof v === "number" &&
      Number.isFinite(v) &&
      (rule === "positive" || rule === "positiveInt" ? v > 0 : v >= 0) &&
      (rule !== "probability" || v <= 1) &&
      (rule !== "nonNegativeInt" && rule !== "positiveInt" ? true : Number.isSafeInteger(v));
    if (!ok) {
      this.error([...path, key], MSG[rule]);
      return undefined;
    }
    return v as number;
  }

  duration(
    obj: Obj,
    key: string,
    path: Path,
    rule: "nonNegative" | "positive",
    fallback?: number,
  ): number | undefined {
    if (!this.has(obj, key)) {
      if (fallback === undefined) this.error([...path, key], MSG.required);
      return fallback;
    }
    return this.durationValue(obj[key], [...path, key], rule);
  }

  durationValue(v: unknown, path: Path, rule: "nonNegative" | "positive"): number | undefined {
    if (typeof v !== "string" && typeof v !== "number") {
      this.error(path, 'must be a duration such as "30s" or "5m"');
      return undefined;
    }
    const parsed = parseDuration(String(v));
    if (!parsed.ok) {
      this.error(path, parsed.error);
      return undefined;
    }
    if (parsed.ms < 0) this.error(path, MSG.negativeDuration);
    else if (rule === "positive" && parsed.ms === 0) this.error(path, MSG.zeroDuration);
    else return parsed.ms;
    return undefined;
  }

  /** A non-negative quantity in its base unit (cores, bytes), as an exact-enough float. */
  quantity(obj: Obj, key: string, path: Path, fallback?: number): number | undefined {
    if (!this.has(obj, key)) {
      if (fallback === undefined) this.error([...path, key], MSG.required);
      return fallback;
    }
    const parsed = Quantity.tryParse(obj[key]);
    if (!parsed.ok) {
      this.error([...path, key], parsed.error);
      return undefined;
    }
    const value = quantityNumber(parsed.quantity);
    if (value < 0) {
      this.error([...path, key], MSG.negativeQuantity);
      return undefined;
    }
    return value;
  }

  string(obj: Obj, key: string, path: Path, fallback?: string): string | undefined {
    if (!this.has(obj, key)) {
      if (fallback === undefined) this.error([...path, key], MSG.required);
      return fallback;
    }
    const v = obj[key];
    if (typeof v !== "string" || v === "") {
      this.error([...path, key], MSG.string);
      return undefined;
    }
    return v;
  }

  list(obj: Obj, key: string, path: Path, required = false): unknown[] | undefined {
    if (!this.has(obj, key)) {
      if (required) this.error([...path, key], MSG.required);
      return required ? undefined : [];
    }
    const v = obj[key];
    if (!Array.isArray(v)) {
      this.error([...path, key], MSG.list);
      return undefined;
    }
    return v;
  }
}

function quantityNumber(q: Quantity): number {
  const { unscaled, scale } = q.exactValue();
  return Number(`${unscaled}e${scale}`);
}

// ---------------------------------------------------------------------------------------------
// Manifests

const WORKLOAD_KINDS = [
  "Deployment",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
] as const;
type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** Kinds the embedded cluster holds, with the apiVersions kube-apiserver v1.34 serves them in. */
const MANIFEST_KINDS: Record<string, readonly string[]> = {
  Namespace: ["v1"],
  Service: ["v1"],
  Pod: ["v1"],
  ReplicationController: ["v1"],
  Deployment: ["apps/v1"],
  StatefulSet: ["apps/v1"],
  ReplicaSet: ["apps/v1"],
  HorizontalPodAutoscaler: [
    "autoscaling/v2",
    "autoscaling/v1",
    "autoscaling/v2beta2",
    "autoscaling/v2beta1",
  ],
};

interface ManifestWorkload {
  ref: WorkloadRef;
  doc: Doc;
  /** False when the manifest has errors (already reported): references to it are not. */
  valid: boolean;
  /** Defaults taken from the pod template. */
  readinessDelayMs: number;
  terminationGracePeriodMs: number;
  cpuLimitMilli: number | null;
}

interface ManifestHpa {
  doc: Doc;
  valid: boolean;
  /** autoscaling/v2, before defaulting (event patches apply to this). */
  raw: HorizontalPodAutoscaler;
  hpa: HorizontalPodAutoscaler;
}

const refKey = (ref: WorkloadRef) => `${ref.namespace}/${ref.kind}/${ref.name}`;
const refText = (ref: WorkloadRef) => `${ref.kind} ${ref.namespace}/${ref.name}`;

/** Quantity problems in a pod spec's containers, as (path, message). */
function podSpecProblems(podSpec: unknown, path: Path): { path: Path; message: string }[] {
  const out: { path: Path; message: string }[] = [];
  if (!isObj(podSpec)) return [{ path, message: MSG.required }];
  const containers = podSpec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    return [{ path: [...path, "containers"], message: MSG.required }];
  }
  for (const list of ["initContainers", "containers"] as const) {
    const items = podSpec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((container, i) => {
      const resources = isObj(container) ? container.resources : undefined;
      if (!isObj(resources)) return;
      for (const section of ["requests", "limits"] as const) {
        const values = resources[section];
        if (!isObj(values)) continue;
        for (const [name, value] of Object.entries(values)) {
          const parsed = Quantity.tryParse(value);
          if (!parsed.ok) {
            out.push({
              path: [...path, list, i, "resources", section, name],
              message: parsed.error,
            });
          }
        }
      }
    });
  }
  return out;
}

function podTemplateDefaults(podSpec: Obj): {
  readinessDelayMs: number;
  terminationGracePeriodMs: number;
  cpuLimitMilli: number | null;
} {
  const containers = (podSpec.containers as unknown[]).filter(isObj);
  // The readiness probe's initialDelaySeconds (0 when unset, as the kubelet defaults it); the
  // slowest container decides when the pod is Ready.
  let readiness: number | undefined;
  for (const c of containers) {
    if (!isObj(c.readinessProbe)) continue;
    const delay = c.readinessProbe.initialDelaySeconds;
    const seconds = typeof delay === "number" && delay > 0 ? delay : 0;
    readiness = Math.max(readiness ?? 0, seconds);
  }
  const grace = podSpec.terminationGracePeriodSeconds;
  // The pod's CPU limit is the sum of its containers' limits, if every container has one.
  let limit: number | null = 0;
  for (const c of containers) {
    const cpu =
      isObj(c.resources) && isObj(c.resources.limits) ? c.resources.limits.cpu : undefined;
    const parsed = cpu === undefined ? undefined : Quantity.tryParse(cpu);
    if (!parsed?.ok) {
      limit = null;
      break;
    }
    limit += quantityNumber(parsed.quantity) * 1000;
  }
  return {
    readinessDelayMs:
      readiness === undefined ? SCENARIO_DEFAULTS.pod.readinessDelayMs : readiness * 1000,
    terminationGracePeriodMs:
      typeof grace === "number" && grace >= 0
        ? grace * 1000
        : SCENARIO_DEFAULTS.pod.terminationGracePeriodMs,
    cpuLimitMilli: limit,
  };
}

function int32Problem(value: unknown, goStruct: string, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isInteger(value)) return null;
  const got = typeof value === "number" ? "number" : Array.isArray(value) ? "array" : typeof value;
  const what = got === "object" ? "object" : got;
  // What kube-apiserver answers when a field does not decode into its Go type.
  return `json: cannot unmarshal ${what} into Go struct field ${goStruct}.${field} of type int32`;
}

/** Shapes kube-apiserver's decoder rejects before validation (the int32 fields of the spec). */
function hpaDecodeProblems(hpa: HorizontalPodAutoscaler): { path: Path; message: string }[] {
  const out: { path: Path; message: string }[] = [];
  const spec = hpa.spec as unknown;
  if (!isObj(spec)) return [{ path: ["spec"], message: MSG.map }];
  for (const key of ["minReplicas", "maxReplicas"]) {
    const problem = int32Problem(spec[key], "HorizontalPodAutoscalerSpec", `spec.${key}`);
    if (problem) out.push({ path: ["spec", key], message: problem });
  }
  if (spec.metrics !== undefined && spec.metrics !== null && !Array.isArray(spec.metrics)) {
    out.push({ path: ["spec", "metrics"], message: MSG.list });
  }
  const behavior = spec.behavior;
  if (behavior !== undefined && behavior !== null && !isObj(behavior)) {
    out.push({ path: ["spec", "behavior"], message: MSG.map });
  } else if (isObj(behavior)) {
    for (const dir of ["scaleUp", "scaleDown"]) {
      const rules = behavior[dir];
      if (!isObj(rules)) continue;
      const window = int32Problem(
        rules.stabilizationWindowSeconds,
        "HPAScalingRules",
        `spec.behavior.${dir}.stabilizationWindowSeconds`,
      );
      if (window) {
        out.push({
          path: ["spec", "behavior", dir, "stabilizationWindowSeconds"],
          message: window,
        });
      }
      if (
        rules.policies !== undefined &&
        rules.policies !== null &&
        !Array.isArray(rules.policies)
      ) {
        out.push({ path: ["spec", "behavior", dir, "policies"], message: MSG.list });
      }
      if (!Array.isArray(rules.policies)) continue;
      rules.policies.forEach((policy, i) => {
        if (!isObj(policy)) return;
        for (const key of ["value", "periodSeconds"]) {
          const problem = int32Problem(
            policy[key],
            "HPAScalingPolicy",
            `spec.behavior.${dir}.policies.${key}`,
          );
          if (problem)
            out.push({ path: ["spec", "behavior", dir, "policies", i, key], message: problem });
        }
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The parser

/** Parses a scenario; never throws on bad input: every problem comes back in `errors`. */
export function parseScenario(text: string, options: LoadOptions): ScenarioResult {
  const lines = new LineCounter();
  const r = new Reporter(options.file, lines);
  const parsed = parseAllDocuments(text, {
    lineCounter: lines,
    prettyErrors: false,
    merge: true,
  });
  const asts: Document[] = Array.isArray(parsed) ? parsed : [];
  const broken = new Set<Document>();
  asts.forEach((ast, i) => {
    for (const e of ast.errors) {
      const pos = lines.linePos(e.pos[0]);
      r.errors.push({
        message: e.message,
        file: options.file,
        line: pos.line,
        column: pos.col,
        document: i + 1,
      });
      broken.add(ast);
    }
    for (const w of ast.warnings) {
      const pos = lines.linePos(w.pos[0]);
      r.warnings.push(`${options.file}:${pos.line}:${pos.col}: ${w.message}`);
    }
  });

  for (const expr of options.sets ?? []) {
    const applied = applySet(asts, expr);
    if (!applied.ok) r.errors.push({ file: options.file, message: applied.error });
  }

  const docs: Doc[] = [];
  asts.forEach((ast, i) => {
    if (broken.has(ast)) return;
    let data: unknown;
    try {
      data = ast.toJS({ maxAliasCount: 100 });
    } catch (error) {
      r.error({ index: i + 1, ast, data: null }, [], (error as Error).message);
      return;
    }
    if (data === null || data === undefined) return; // an empty document
    const doc: Doc = { index: i + 1, ast, data };
    if (isObj(data)) {
      const kind = typeof data.kind === "string" ? data.kind : "";
      const meta = isObj(data.metadata) ? data.metadata : {};
      const name = typeof meta.name === "string" ? meta.name : "";
      if (kind) doc.object = name ? `${kind}/${name}` : kind;
    }
    docs.push(doc);
  });

  // The Scenario document is read first: its feature gates govern HPA validation.
  const scenarioDocs = docs.filter(
    (d) => isObj(d.data) && (d.data.kind === "Scenario" || isHorizonApi(d.data.apiVersion)),
  );
  const scenarioDoc = scenarioDocs[0];
  for (const extra of scenarioDocs.slice(1)) {
    r.error(
      extra,
      ["kind"],
      `only one Scenario document is allowed (the first is document ${scenarioDoc!.index})`,
    );
  }
  const header = readScenarioHeader(r, scenarioDoc, options.file);

  const objects: KubeObject[] = [];
  const sources = new Map<KubeObject, string>();
  const workloads = new Map<string, ManifestWorkload>();
  const hpas = new Map<string, ManifestHpa>();
  const seen = new Map<string, Doc>();
  for (const doc of docs) {
    if (scenarioDocs.includes(doc)) continue;
    const obj = readManifest(r, doc, header.gates, workloads, hpas, seen);
    if (obj) {
      objects.push(obj);
      sources.set(obj, r.position(doc));
    }
  }

  const spec: ScenarioSpec = {
    name: header.name,
    durationMs: header.durationMs,
    seed: header.seed,
    controllerFlags: header.controllerFlags,
    featureGates: header.gates.overrides() as Record<string, boolean>,
    cluster: header.cluster,
    workloads: [],
    metrics: { pods: [], object: [], external: [] },
    events: [],
  };
  readScenarioBody(r, scenarioDoc, spec, workloads, hpas, header.gates, options);
  checkHpaReferences(r, spec, hpas, workloads);

  if (r.errors.length > 0) return { ok: false, errors: sortErrors(r.errors) };
  return { ok: true, scenario: { spec, objects, sources, warnings: r.warnings } };
}

function isHorizonApi(apiVersion: unknown): boolean {
  return typeof apiVersion === "string" && apiVersion.startsWith("horizon.dev/");
}

function sortErrors(errors: ScenarioError[]): ScenarioError[] {
  return errors
    .map((e, i) => ({ e, i }))
    .sort(
      (a, b) =>
        (a.e.document ?? 0) - (b.e.document ?? 0) ||
        (a.e.line ?? 0) - (b.e.line ?? 0) ||
        (a.e.column ?? 0) - (b.e.column ?? 0) ||
        a.i - b.i,
    )
    .map(({ e }) => e);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes manifests

function readManifest(
  r: Reporter,
  doc: Doc,
  gates: FeatureGates,
  workloads: Map<string, ManifestWorkload>,
  hpas: Map<string, ManifestHpa>,
  seen: Map<string, Doc>,
): KubeObject | undefined {
  const c = new Ctx(r, doc);
  const data = doc.data;
  if (!isObj(data)) {
    c.error([], "a document must be a mapping (a Kubernetes object)");
    return undefined;
  }
  let ok = true;
  for (const key of ["apiVersion", "kind"]) {
    if (typeof data[key] !== "string" || data[key] === "") {
      c.error([key], MSG.required);
      ok = false;
    }
  }
  if (!ok) return undefined;
  const kind = data.kind as string;
  const apiVersion = data.apiVersion as string;
  const versions = MANIFEST_KINDS[kind];
  if (!versions) {
    const name = isObj(data.metadata) ? data.metadata.name : undefined;
    r.warn(
      doc,
      `${kind}${typeof name === "string" ? ` ${name}` : ""} (${apiVersion}) is not simulated; skipped`,
    );
    return undefined;
  }
  if (!versions.includes(apiVersion)) {
    // kubectl's answer for a kind the server does not serve in that version.
    c.error(["apiVersion"], `no matches for kind "${kind}" in version "${apiVersion}"`);
    return undefined;
  }
  if (kind === "HorizontalPodAutoscaler") return readHpa(r, doc, data, gates, hpas, seen);

  if (!isObj(data.metadata) || typeof data.metadata.name !== "string" || !data.metadata.name) {
    c.error(["metadata", "name"], `${MSG.required}: name or generateName is required`);
    return undefined;
  }
  const obj = structuredClone(data) as KubeObject;
  if (kind !== "Namespace" && !obj.metadata.namespace) obj.metadata.namespace = "default";
  const namespace = obj.metadata.namespace ?? "";
  const key = `${kind}/${namespace}/${obj.metadata.name}`;
  const first = seen.get(key);
  if (first) {
    c.error(
      ["metadata", "name"],
      `${kind} ${namespace ? `${namespace}/` : ""}${obj.metadata.name} is already defined in document ${first.index}`,
    );
    return undefined;
  }
  seen.set(key, doc);

  const spec = isObj(data.spec) ? data.spec : {};
  let problems: { path: Path; message: string }[] = [];
  if (kind === "Pod") problems = podSpecProblems(data.spec, ["spec"]);
  if ((WORKLOAD_KINDS as readonly string[]).includes(kind)) {
    const replicas = spec.replicas;
    if (replicas !== undefined && replicas !== null) {
      if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
        problems.push({
          path: ["spec", "replicas"],
          message: int32Problem(replicas, `${kind}Spec`, "spec.replicas") ?? "",
        });
      } else if (replicas < 0) {
        problems.push({
          path: ["spec", "replicas"],
          message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
        });
      }
    }
    const template = isObj(spec.template) ? spec.template : undefined;
    if (!template) problems.push({ path: ["spec", "template"], message: MSG.required });
    else problems.push(...podSpecProblems(template.spec, ["spec", "template", "spec"]));
    problems.push(...selectorProblems(kind as WorkloadKind, spec));
    const ref = { namespace, kind: kind as WorkloadKind, name: obj.metadata.name };
    const valid = problems.length === 0 && template !== undefined;
    workloads.set(refKey(ref), {
      ref,
      doc,
      valid,
      ...(valid
        ? podTemplateDefaults(template.spec as Obj)
        : {
            readinessDelayMs: SCENARIO_DEFAULTS.pod.readinessDelayMs,
            terminationGracePeriodMs: SCENARIO_DEFAULTS.pod.terminationGracePeriodMs,
            cpuLimitMilli: null,
          }),
    });
  }
  for (const p of problems) c.error(p.path, p.message);
  return problems.length === 0 ? obj : undefined;
}

/** apps/v1 workloads need a selector that matches their template's labels (ValidateDeploymentSpec
 * and friends); a ReplicationController's selector defaults to the template labels. */
function selectorProblems(kind: WorkloadKind, spec: Obj): { path: Path; message: string }[] {
  const template = isObj(spec.template) ? spec.template : {};
  const labels =
    isObj(template.metadata) && isObj(template.metadata.labels) ? template.metadata.labels : {};
  const labelPath: Path = ["spec", "template", "metadata", "labels"];
  const mismatch = {
    path: labelPath,
    message: `Invalid value: ${JSON.stringify(labels)}: \`selector\` does not match template \`labels\``,
  };
  if (kind === "ReplicationController") {
    if (!isObj(spec.selector)) return [];
    const matches = Object.entries(spec.selector).every(([k, v]) => labels[k] === v);
    return matches ? [] : [mismatch];
  }
  if (!isObj(spec.selector)) return [{ path: ["spec", "selector"], message: MSG.required }];
  const selector = selectorFromLabelSelector(spec.selector as LabelSelector);
  if (!selector.ok) return [{ path: ["spec", "selector"], message: selector.error }];
  if (selector.selector.requirements.length === 0) {
    return [
      {
        path: ["spec", "selector"],
        message: `Invalid value: ${JSON.stringify(spec.selector)}: empty selector is invalid for deployment`,
      },
    ];
  }
  return selectorMatches(selector.selector, labels as Record<string, string>) ? [] : [mismatch];
}

function readHpa(
  r: Reporter,
  doc: Doc,
  data: Obj,
  gates: FeatureGates,
  hpas: Map<string, ManifestHpa>,
  seen: Map<string, Doc>,
): KubeObject | undefined {
  const c = new Ctx(r, doc);
  const read = readHorizontalPodAutoscaler(data);
  if (!read.ok) {
    c.error([], read.error);
    return undefined;
  }
  for (const w of read.value.warnings) r.warn(doc, w);
  const raw = read.value.hpa;
  raw.apiVersion = "autoscaling/v2";
  raw.kind = "HorizontalPodAutoscaler";
  raw.metadata = { ...raw.metadata, namespace: raw.metadata?.namespace || "default" };
  const decode = hpaDecodeProblems(raw);
  if (decode.length > 0) {
    for (const p of decode) c.error(p.path, p.message);
    return undefined;
  }
  const v1 = data.apiVersion === "autoscaling/v1";
  const admitted = admitHpa(
    raw,
    gates,
    (field, message) => {
      // A v1 object has its CPU target in a field of its own.
      const cpu = "spec.metrics[0].resource.target.averageUtilization";
      const locateAt: Path | undefined =
        v1 && field.startsWith("spec.metrics")
          ? ["spec", field === cpu ? "targetCPUUtilizationPercentage" : "metrics"]
          : undefined;
      r.fieldError(doc, field, message, locateAt);
    },
    (w) => r.warn(doc, w),
  );
  const hpa = admitted ?? raw;
  const key = `HorizontalPodAutoscaler/${hpa.metadata.namespace}/${hpa.metadata.name}`;
  const first = seen.get(key);
  if (first) {
    c.error(
      ["metadata", "name"],
      `HorizontalPodAutoscaler ${hpa.metadata.namespace}/${hpa.metadata.name} is already defined in document ${first.index}`,
    );
    return undefined;
  }
  seen.set(key, doc);
  hpas.set(`${hpa.metadata.namespace}/${hpa.metadata.name}`, { doc, valid: !!admitted, raw, hpa });
  return admitted ? (hpa as unknown as KubeObject) : undefined;
}

/** kube-apiserver's create path: default, drop fields of disabled gates, validate. */
function admitHpa(
  raw: HorizontalPodAutoscaler,
  gates: FeatureGates,
  onError: (field: string, message: string) => void,
  onWarning: (message: string) => void,
): HorizontalPodAutoscaler | undefined {
  let errors: FieldError[];
  let hpa: HorizontalPodAutoscaler;
  try {
    const defaulted = setDefaultsHorizontalPodAutoscaler(raw);
    hpa = dropDisabledHorizontalPodAutoscalerFields(defaulted, undefined, gates);
    for (const dir of ["scaleUp", "scaleDown"] as const) {
      const before = defaulted.spec.behavior?.[dir]?.tolerance;
      if (
        before !== undefined &&
        before !== null &&
        hpa.spec.behavior?.[dir]?.tolerance === undefined
      ) {
        onWarning(
          `spec.behavior.${dir}.tolerance is dropped: feature gate HPAConfigurableTolerance is off (enable it in spec.featureGates)`,
        );
      }
    }
    errors = validateHorizontalPodAutoscaler(hpa, { featureGates: gates });
  } catch (error) {
    onError("spec", `cannot be decoded: ${(error as Error).message}`);
    return undefined;
  }
  for (const e of errors) onError(e.field, fieldErrorBody(e));
  return errors.length === 0 ? hpa : undefined;
}

// ---------------------------------------------------------------------------------------------
// The Scenario document: header (read before the manifests) and body

const SCENARIO_TOP = ["apiVersion", "kind", "metadata", "spec"] as const;
const SCENARIO_SPEC = [
  "duration",
  "seed",
  "controller",
  "featureGates",
  "cluster",
  "workloads",
  "metrics",
  "events",
] as const;

interface Header {
  name: string;
  durationMs: number;
  seed: number;
  controllerFlags: Record<string, string>;
  gates: FeatureGates;
  cluster: ScenarioSpec["cluster"];
}

function defaultName(file: string): string {
  if (file === "-") return "stdin";
  return basename(file, extname(file));
}

function readScenarioHeader(r: Reporter, doc: Doc | undefined, file: string): Header {
  const header: Header = {
    name: defaultName(file),
    durationMs: SCENARIO_DEFAULTS.durationMs,
    seed: SCENARIO_DEFAULTS.seed,
    controllerFlags: {},
    gates: FeatureGates.defaults(),
    cluster: { capacityPods: null, metricsResolutionMs: SCENARIO_DEFAULTS.metricsResolutionMs },
  };
  if (!doc) return header;
  const c = new Ctx(r, doc);
  const top = c.fields(doc.data, [], SCENARIO_TOP);
  if (!top) return header;
  if (top.apiVersion !== SCENARIO_API_VERSION) {
    c.error(
      ["apiVersion"],
      `Unsupported value: ${JSON.stringify(top.apiVersion ?? "")}: supported values: "${SCENARIO_API_VERSION}"`,
    );
  }
  if (top.kind !== "Scenario") {
    c.error(
      ["kind"],
      `Unsupported value: ${JSON.stringify(top.kind ?? "")}: supported values: "Scenario"`,
    );
  }
  if (c.has(top, "metadata")) {
    const meta = c.fields(top.metadata, ["metadata"], ["name", "labels", "annotations"]);
    if (meta && c.has(meta, "name"))
      header.name = c.string(meta, "name", ["metadata"]) ?? header.name;
  }
  if (!c.has(top, "spec")) return header;
  const spec = c.fields(top.spec, ["spec"], SCENARIO_SPEC);
  if (!spec) return header;
  const P: Path = ["spec"];
  header.durationMs =
    c.duration(spec, "duration", P, "positive", header.durationMs) ?? header.durationMs;
  header.seed = c.number(spec, "seed", P, "nonNegativeInt", header.seed) ?? header.seed;

  // Controller flags, by upstream name, validated as kube-controller-manager parses them.
  const flagPaths = new Map<string, Path>();
  if (c.has(spec, "controller")) {
    const flags = c.fields(
      spec.controller,
      [...P, "controller"],
      Object.keys(isObj(spec.controller) ? spec.controller : {}),
    );
    for (const [key, value] of Object.entries(flags ?? {})) {
      const path: Path = [...P, "controller", key];
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
        c.error(path, "must be a string or a number");
        continue;
      }
      const flag = key.replace(/^--?/, "");
      header.controllerFlags[flag] = String(value);
      flagPaths.set(flag, path);
    }
    const applied = applyControllerFlags(defaultControllerConfig(), header.controllerFlags);
    if (!applied.ok) {
      for (const issue of applied.issues) {
        const flag = issue.flag.replace(/^--/, "");
        c.error(flagPaths.get(flag) ?? [...P, "controller", flag], issue.message);
      }
    } else header.gates = applied.config.featureGates;
  }
  if (c.has(spec, "featureGates")) {
    const gates = c.fields(
      spec.featureGates,
      [...P, "featureGates"],
      Object.keys(isObj(spec.featureGates) ? spec.featureGates : {}),
    );
    for (const [name, value] of Object.entries(gates ?? {})) {
      const path: Path = [...P, "featureGates", name];
      if (typeof value !== "boolean") {
        c.error(path, MSG.bool);
        continue;
      }
      try {
        header.gates = FeatureGates.fromRecord({ [name]: value }, header.gates);
      } catch (error) {
        c.error(path, (error as Error).message, "key");
      }
    }
  }
  if (c.has(spec, "cluster")) {
    const cluster = c.fields(
      spec.cluster,
      [...P, "cluster"],
      ["capacityPods", "metricsResolution"],
    );
    if (cluster) {
      const CP: Path = [...P, "cluster"];
      if (c.has(cluster, "capacityPods")) {
        header.cluster.capacityPods = c.number(cluster, "capacityPods", CP, "positiveInt") ?? null;
      }
      header.cluster.metricsResolutionMs =
        c.duration(
          cluster,
          "metricsResolution",
          CP,
          "positive",
          SCENARIO_DEFAULTS.metricsResolutionMs,
        ) ?? SCENARIO_DEFAULTS.metricsResolutionMs;
    }
  }
  return header;
}

function readScenarioBody(
  r: Reporter,
  doc: Doc | undefined,
  out: ScenarioSpec,
  workloads: Map<string, ManifestWorkload>,
  hpas: Map<string, ManifestHpa>,
  gates: FeatureGates,
  options: LoadOptions,
): void {
  const spec = doc && isObj(doc.data) && isObj(doc.data.spec) ? doc.data.spec : {};
  const c = doc ? new Ctx(r, doc) : undefined;
  const models = new Map<string, WorkloadModel>();
  if (c) {
    const list = c.list(spec, "workloads", ["spec"]) ?? [];
    list.forEach((item, i) => {
      const model = readWorkloadModel(c, item, ["spec", "workloads", i], workloads, options);
      if (!model) return;
      const key = refKey(model.target);
      if (models.has(key)) {
        c.error(
          ["spec", "workloads", i, "target"],
          `${refText(model.target)} already has a model above`,
        );
      } else models.set(key, model);
    });
  }
  // Every workload gets a model; those not listed get the defaults.
  for (const [key, w] of workloads) {
    if (w.valid) out.workloads.push(models.get(key) ?? defaultWorkloadModel(w));
  }
  if (!c) return;
  if (c.has(spec, "metrics")) {
    const metrics = c.fields(spec.metrics, ["spec", "metrics"], ["pods", "object", "external"]);
    if (metrics) readMetricModels(c, metrics, out, workloads, options);
  }
  const events = c.list(spec, "events", ["spec"]) ?? [];
  events.forEach((item, i) => {
    const event = readEvent(c, item, ["spec", "events", i], workloads, hpas, gates, options);
    if (!event) return;
    if (event.atMs > out.durationMs) {
      r.warn(
        doc!,
        `event at ${formatSeconds(event.atMs)} comes after the end of the run (${formatSeconds(out.durationMs)}); it never happens`,
        ["spec", "events", i, "at"],
      );
    }
    out.events.push(event);
  });
  out.events.sort((a, b) => a.atMs - b.atMs);
}

function formatSeconds(ms: number): string {
  return `${ms / 1000}s`;
}

function defaultWorkloadModel(w: ManifestWorkload): WorkloadModel {
  return {
    target: { ...w.ref },
    pod: {
      schedulingDelayMs: SCENARIO_DEFAULTS.pod.schedulingDelayMs,
      containerStartDelayMs: SCENARIO_DEFAULTS.pod.containerStartDelayMs,
      readinessDelayMs: w.readinessDelayMs,
      terminationGracePeriodMs: w.terminationGracePeriodMs,
      startupCpuBurst: null,
      failureProbability: SCENARIO_DEFAULTS.pod.failureProbability,
    },
    usage: {
      cpu: {
        baseMilli: SCENARIO_DEFAULTS.usage.cpuBaseMilli,
        milliPerRps: SCENARIO_DEFAULTS.usage.cpuMilliPerRps,
        limitMilli: w.cpuLimitMilli,
      },
      memory: {
        baseBytes: SCENARIO_DEFAULTS.usage.memoryBaseBytes,
        bytesPerRps: SCENARIO_DEFAULTS.usage.memoryBytesPerRps,
      },
      capacityRps: null,
      jitter: SCENARIO_DEFAULTS.usage.jitter,
    },
    traffic: [],
  };
}

/** `Kind/name`, `namespace/Kind/name` or `{kind, name, namespace}`; must name a manifest. */
function readRef(
  c: Ctx,
  value: unknown,
  path: Path,
  workloads: Map<string, ManifestWorkload>,
): WorkloadRef | undefined {
  let kindWord: string;
  let name: string;
  let namespace = "default";
  if (typeof value === "string") {
    const parts = value.split("/");
    if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === "")) {
      c.error(path, `must be "Kind/name" or "namespace/Kind/name", e.g. "Deployment/web"`);
      return undefined;
    }
    if (parts.length === 3) namespace = parts.shift()!;
    kindWord = parts[0]!;
    name = parts[1]!;
  } else {
    const obj = c.fields(value, path, ["kind", "name", "namespace"]);
    if (!obj) return undefined;
    const k = c.string(obj, "kind", path);
    const n = c.string(obj, "name", path);
    const ns = c.string(obj, "namespace", path, "default");
    if (k === undefined || n === undefined || ns === undefined) return undefined;
    kindWord = k;
    name = n;
    namespace = ns;
  }
  const kind = resolveKind(kindWord);
  if (!kind || !(WORKLOAD_KINDS as readonly string[]).includes(kind)) {
    c.error(
      path,
      `unknown workload kind "${kindWord}" (expected one of: ${WORKLOAD_KINDS.join(", ")})`,
    );
    return undefined;
  }
  const ref: WorkloadRef = { namespace, kind: kind as WorkloadKind, name };
  if (!workloads.has(refKey(ref))) {
    const known = [...workloads.values()].map((w) => refText(w.ref));
    c.error(
      path,
      `unknown workload ${refText(ref)}: no such manifest in the scenario (workloads: ${known.length > 0 ? known.join(", ") : "none"})`,
    );
    return undefined;
  }
  return ref;
}

const POD_FIELDS = [
  "schedulingDelay",
  "containerStartDelay",
  "readinessDelay",
  "terminationGracePeriod",
  "startupCpuBurst",
  "failureProbability",
] as const;

function readWorkloadModel(
  c: Ctx,
  value: unknown,
  path: Path,
  workloads: Map<string, ManifestWorkload>,
  options: LoadOptions,
): WorkloadModel | undefined {
  const obj = c.fields(value, path, ["target", "pod", "usage", "traffic"]);
  if (!obj) return undefined;
  const target = c.require(obj, "target", path)
    ? readRef(c, obj.target, [...path, "target"], workloads)
    : undefined;
  // The other fields are checked even when the target is bad, against generic defaults.
  const manifest = target ? workloads.get(refKey(target)) : undefined;
  const model = defaultWorkloadModel(
    manifest ?? {
      ref: { namespace: "default", kind: "Deployment", name: "" },
      doc: c.doc,
      valid: false,
      readinessDelayMs: SCENARIO_DEFAULTS.pod.readinessDelayMs,
      terminationGracePeriodMs: SCENARIO_DEFAULTS.pod.terminationGracePeriodMs,
      cpuLimitMilli: null,
    },
  );
  let ok = target !== undefined;
  if (c.has(obj, "pod")) {
    const pod = readPodModel(c, obj.pod, [...path, "pod"], model.pod);
    if (pod) model.pod = pod;
    else ok = false;
  }
  if (c.has(obj, "usage")) {
    const usage = readUsageModel(c, obj.usage, [...path, "usage"], model.usage);
    if (usage) model.usage = usage;
    else ok = false;
  }
  const traffic = readTrafficList(c, obj, "traffic", path, options);
  if (traffic) model.traffic = traffic;
  else ok = false;
  return ok ? model : undefined;
}

function readPodModel(
  c: Ctx,
  value: unknown,
  path: Path,
  defaults: PodLifecycleModel,
): PodLifecycleModel | undefined {
  const obj = c.fields(value, path, POD_FIELDS);
  if (!obj) return undefined;
  const pod: Partial<PodLifecycleModel> = {
    schedulingDelayMs: c.duration(
      obj,
      "schedulingDelay",
      path,
      "nonNegative",
      defaults.schedulingDelayMs,
    ),
    containerStartDelayMs: c.duration(
      obj,
      "containerStartDelay",
      path,
      "nonNegative",
      defaults.containerStartDelayMs,
    ),
    readinessDelayMs: c.duration(
      obj,
      "readinessDelay",
      path,
      "nonNegative",
      defaults.readinessDelayMs,
    ),
    terminationGracePeriodMs: c.duration(
      obj,
      "terminationGracePeriod",
      path,
      "nonNegative",
      defaults.terminationGracePeriodMs,
    ),
    failureProbability: c.number(
      obj,
      "failureProbability",
      path,
      "probability",
      defaults.failureProbability,
    ),
    startupCpuBurst: null,
  };
  let ok = true;
  if (c.has(obj, "startupCpuBurst")) {
    const BP: Path = [...path, "startupCpuBurst"];
    const burst = c.fields(obj.startupCpuBurst, BP, ["cpu", "duration"]);
    const cpu = burst ? c.quantity(burst, "cpu", BP) : undefined;
    const duration = burst ? c.duration(burst, "duration", BP, "positive") : undefined;
    if (cpu === undefined || duration === undefined) ok = false;
    else pod.startupCpuBurst = { milli: cpu * 1000, durationMs: duration };
  }
  if (!ok || Object.values(pod).some((v) => v === undefined)) return undefined;
  return pod as PodLifecycleModel;
}

function readUsageModel(
  c: Ctx,
  value: unknown,
  path: Path,
  defaults: UsageModel,
): UsageModel | undefined {
  const obj = c.fields(value, path, ["cpu", "memory", "capacityRps", "jitter"]);
  if (!obj) return undefined;
  const usage: UsageModel = structuredClone(defaults);
  let ok = true;
  if (c.has(obj, "cpu")) {
    const CP: Path = [...path, "cpu"];
    const cpu = c.fields(obj.cpu, CP, ["base", "perRps", "limit"]);
    if (!cpu) ok = false;
    else {
      const base = c.quantity(cpu, "base", CP, defaults.cpu.baseMilli / 1000);
      const perRps = c.quantity(cpu, "perRps", CP, defaults.cpu.milliPerRps / 1000);
      let limit: number | null | undefined = defaults.cpu.limitMilli;
      if (cpu.limit === null) limit = null;
      else if (cpu.limit !== undefined) {
        const cores = c.quantity(cpu, "limit", CP);
        limit = cores === undefined ? undefined : cores * 1000;
        if (cores === 0) {
          c.error([...CP, "limit"], "must be greater than 0 (write null for no limit)");
          limit = undefined;
        }
      }
      if (base === undefined || perRps === undefined || limit === undefined) ok = false;
      else usage.cpu = { baseMilli: base * 1000, milliPerRps: perRps * 1000, limitMilli: limit };
    }
  }
  if (c.has(obj, "memory")) {
    const MP: Path = [...path, "memory"];
    const memory = c.fields(obj.memory, MP, ["base", "perRps"]);
    const base = memory ? c.quantity(memory, "base", MP, defaults.memory.baseBytes) : undefined;
    const perRps = memory
      ? c.quantity(memory, "perRps", MP, defaults.memory.bytesPerRps)
      : undefined;
    if (base === undefined || perRps === undefined) ok = false;
    else usage.memory = { baseBytes: base, bytesPerRps: perRps };
  }
  if (c.has(obj, "capacityRps")) {
    const capacity = c.number(obj, "capacityRps", path, "positive");
    if (capacity === undefined) ok = false;
    else usage.capacityRps = capacity;
  }
  const jitter = c.number(obj, "jitter", path, "probability", defaults.jitter);
  if (jitter === undefined) ok = false;
  else usage.jitter = jitter;
  return ok ? usage : undefined;
}

// Traffic models -----------------------------------------------------------------------------

const TRAFFIC_FIELDS: Record<string, readonly string[]> = {
  constant: ["type", "rps"],
  step: ["type", "initial", "steps"],
  ramp: ["type", "from", "to", "start", "end"],
  sine: ["type", "base", "amplitude", "period", "phase"],
  diurnal: ["type", "base", "amplitude", "phase"],
  spike: ["type", "base", "peak", "at", "duration"],
  replay: ["type", "file"],
};

function readTrafficList(
  c: Ctx,
  obj: Obj,
  key: string,
  path: Path,
  options: LoadOptions,
  required = false,
): TrafficModel[] | undefined {
  const list = c.list(obj, key, path, required);
  if (!list) return undefined;
  const out: TrafficModel[] = [];
  let ok = true;
  list.forEach((item, i) => {
    const model = readTrafficModel(c, item, [...path, key, i], options);
    if (model) out.push(model);
    else ok = false;
  });
  return ok ? out : undefined;
}

function readTrafficModel(
  c: Ctx,
  value: unknown,
  path: Path,
  options: LoadOptions,
): TrafficModel | undefined {
  if (!isObj(value)) {
    c.error(path, MSG.map);
    return undefined;
  }
  const type = value.type;
  const fields = typeof type === "string" ? TRAFFIC_FIELDS[type] : undefined;
  if (!fields) {
    if (type === undefined || type === null) c.error([...path, "type"], MSG.required);
    else {
      c.error(
        [...path, "type"],
        `unknown traffic model ${JSON.stringify(type)} (expected one of: ${Object.keys(TRAFFIC_FIELDS).join(", ")})`,
      );
    }
    return undefined;
  }
  const obj = c.fields(value, path, fields)!;
  const all = <T extends TrafficModel>(model: T): T | undefined =>
    Object.values(model).some((v) => v === undefined) ? undefined : model;
  switch (type) {
    case "constant":
      return all({ type, rps: c.number(obj, "rps", path, "nonNegative")! });
    case "step": {
      const initial = c.number(obj, "initial", path, "nonNegative", 0);
      const list = c.list(obj, "steps", path, true);
      if (list && list.length === 0) c.error([...path, "steps"], "must have at least one step");
      const steps: { atMs: number; rps: number }[] = [];
      let ok = list !== undefined && list.length > 0;
      (list ?? []).forEach((item, i) => {
        const SP: Path = [...path, "steps", i];
        const step = c.fields(item, SP, ["at", "rps"]);
        const atMs = step ? c.duration(step, "at", SP, "nonNegative") : undefined;
        const rps = step ? c.number(step, "rps", SP, "nonNegative") : undefined;
        if (atMs === undefined || rps === undefined) {
          ok = false;
          return;
        }
        const previous = steps[steps.length - 1];
        if (previous && atMs <= previous.atMs) {
          c.error([...SP, "at"], `must be later than the previous step (steps[${i - 1}].at)`);
          ok = false;
        }
        steps.push({ atMs, rps });
      });
      return ok && initial !== undefined ? { type, initial, steps } : undefined;
    }
    case "ramp": {
      const model = all({
        type,
        from: c.number(obj, "from", path, "nonNegative", 0)!,
        to: c.number(obj, "to", path, "nonNegative")!,
        startMs: c.duration(obj, "start", path, "nonNegative", 0)!,
        endMs: c.duration(obj, "end", path, "nonNegative")!,
      });
      if (model && model.endMs <= model.startMs) {
        c.error([...path, "end"], "must be later than start");
        return undefined;
      }
      return model;
    }
    case "sine":
    case "diurnal": {
      const model = all({
        type: "sine" as const,
        base: c.number(obj, "base", path, "nonNegative")!,
        amplitude: c.number(obj, "amplitude", path, "nonNegative")!,
        periodMs:
          type === "diurnal"
            ? SCENARIO_DEFAULTS.diurnalPeriodMs
            : c.duration(obj, "period", path, "positive")!,
        phaseMs: c.duration(obj, "phase", path, "nonNegative", 0)!,
      });
      if (model && model.amplitude > model.base) {
        c.error(
          [...path, "amplitude"],
          "must not be greater than base (the rate would go negative)",
        );
        return undefined;
      }
      return model;
    }
    case "spike":
      return all({
        type,
        base: c.number(obj, "base", path, "nonNegative", 0)!,
        peak: c.number(obj, "peak", path, "nonNegative")!,
        atMs: c.duration(obj, "at", path, "nonNegative")!,
        durationMs: c.duration(obj, "duration", path, "positive")!,
      });
    case "replay": {
      const file = c.string(obj, "file", path);
      if (file === undefined) return undefined;
      const points = readTrace(c, file, [...path, "file"], options);
      return points ? { type, points, source: file } : undefined;
    }
  }
  return undefined;
}

/** A replay trace: CSV `seconds,rps` lines (an optional header, `#` comments) or JSON
 * `[{"t": seconds, "rps": n}]`. Times must increase. */
function readTrace(
  c: Ctx,
  file: string,
  path: Path,
  options: LoadOptions,
): { atMs: number; rps: number }[] | undefined {
  const absolute = resolve(options.baseDir, file);
  let text: string;
  try {
    text = (options.readFile ?? ((p: string) => readFileSync(p, "utf8")))(absolute);
  } catch (error) {
    c.error(path, `cannot read replay file ${JSON.stringify(file)}: ${ioMessage(error)}`);
    return undefined;
  }
  const problems: string[] = [];
  const points: { atMs: number; rps: number }[] = [];
  const add = (where: string, t: unknown, rps: unknown) => {
    if (typeof t !== "number" || !Number.isFinite(t) || t < 0) {
      problems.push(`${where}: time must be a non-negative number of seconds`);
    } else if (typeof rps !== "number" || !Number.isFinite(rps) || rps < 0) {
      problems.push(`${where}: rps must be a non-negative number`);
    } else {
      const previous = points[points.length - 1];
      if (previous && t * 1000 <= previous.atMs) {
        problems.push(
          `${where}: time ${t} must be later than the previous point's ${previous.atMs / 1000}`,
        );
      } else points.push({ atMs: t * 1000, rps });
    }
  };
  if (extname(file).toLowerCase() === ".json" || text.trimStart().startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      c.error(path, `${file}: not valid JSON: ${(error as Error).message}`);
      return undefined;
    }
    if (!Array.isArray(data)) {
      c.error(path, `${file}: must be a JSON array of {"t": seconds, "rps": number}`);
      return undefined;
    }
    data.forEach((p, i) => {
      if (!isObj(p))
        problems.push(`${file}: point ${i}: must be an object {"t": seconds, "rps": number}`);
      else add(`${file}: point ${i}`, p.t, p.rps);
    });
  } else {
    let dataLines = 0;
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      const where = `${file}:${i + 1}`;
      const cells = line.split(",").map((cell) => cell.trim());
      const numeric = (s: string | undefined) =>
        s !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)
          ? Number(s)
          : Number.NaN;
      // A first line that is not numeric is a header ("seconds,rps").
      if (dataLines++ === 0 && Number.isNaN(numeric(cells[0]))) return;
      if (cells.length !== 2) {
        problems.push(`${where}: expected "seconds,rps", got ${JSON.stringify(line)}`);
        return;
      }
      add(where, numeric(cells[0]), numeric(cells[1]));
    });
  }
  if (problems.length === 0 && points.length === 0) problems.push(`${file}: no points`);
  for (const problem of problems.slice(0, 5)) c.error(path, problem);
  if (problems.length > 5) c.error(path, `${file}: ${problems.length - 5} more problems`);
  return problems.length === 0 ? points : undefined;
}

// Metric models ------------------------------------------------------------------------------

function readMetricModels(
  c: Ctx,
  metrics: Obj,
  out: ScenarioSpec,
  workloads: Map<string, ManifestWorkload>,
  options: LoadOptions,
): void {
  const base: Path = ["spec", "metrics"];
  (c.list(metrics, "pods", base) ?? []).forEach((item, i) => {
    const path: Path = [...base, "pods", i];
    const obj = c.fields(item, path, ["name", "workload", "rateWindow"]);
    if (!obj) return;
    const name = c.string(obj, "name", path);
    const workload = c.require(obj, "workload", path)
      ? readRef(c, obj.workload, [...path, "workload"], workloads)
      : undefined;
    const rateWindowMs = c.duration(
      obj,
      "rateWindow",
      path,
      "positive",
      SCENARIO_DEFAULTS.rateWindowMs,
    );
    if (name === undefined || workload === undefined || rateWindowMs === undefined) return;
    const model: PodsMetricModel = { name, namespace: workload.namespace, workload, rateWindowMs };
    out.metrics.pods.push(model);
  });
  (c.list(metrics, "object", base) ?? []).forEach((item, i) => {
    const path: Path = [...base, "object", i];
    const obj = c.fields(item, path, ["name", "describedObject", "workload", "rateWindow"]);
    if (!obj) return;
    const name = c.string(obj, "name", path);
    const workload = c.require(obj, "workload", path)
      ? readRef(c, obj.workload, [...path, "workload"], workloads)
      : undefined;
    const rateWindowMs = c.duration(
      obj,
      "rateWindow",
      path,
      "positive",
      SCENARIO_DEFAULTS.rateWindowMs,
    );
    let described: ObjectMetricModel["describedObject"] | undefined;
    if (c.require(obj, "describedObject", path)) {
      const DP: Path = [...path, "describedObject"];
      const d = c.fields(obj.describedObject, DP, ["apiVersion", "kind", "name"]);
      if (d) {
        const apiVersion = c.string(d, "apiVersion", DP, "");
        const kind = c.string(d, "kind", DP);
        const dname = c.string(d, "name", DP);
        if (apiVersion !== undefined && kind !== undefined && dname !== undefined) {
          described = { apiVersion, kind, name: dname };
        }
      }
    }
    if (name === undefined || workload === undefined || rateWindowMs === undefined || !described)
      return;
    out.metrics.object.push({
      name,
      namespace: workload.namespace,
      describedObject: described,
      workload,
      rateWindowMs,
    });
  });
  (c.list(metrics, "external", base) ?? []).forEach((item, i) => {
    const path: Path = [...base, "external", i];
    const fields = [
      "name",
      "namespace",
      "selector",
      "arrivals",
      "servedBy",
      "serviceRatePerPod",
      "initialLength",
    ];
    const obj = c.fields(item, path, fields);
    if (!obj) return;
    const name = c.string(obj, "name", path);
    const servedBy = c.require(obj, "servedBy", path)
      ? readRef(c, obj.servedBy, [...path, "servedBy"], workloads)
      : undefined;
    const namespace = c.string(obj, "namespace", path, servedBy?.namespace ?? "default");
    let selector: LabelSelector | null | undefined = null;
    if (c.has(obj, "selector")) {
      const SP: Path = [...path, "selector"];
      const s = c.fields(obj.selector, SP, ["matchLabels", "matchExpressions"]);
      const parsed = s ? selectorFromLabelSelector(s as LabelSelector) : undefined;
      if (parsed && !parsed.ok) c.error(SP, parsed.error);
      selector = parsed?.ok ? (s as LabelSelector) : undefined;
    }
    const arrivals = readTrafficList(c, obj, "arrivals", path, options, true);
    const serviceRatePerPod = c.number(obj, "serviceRatePerPod", path, "positive");
    const initialLength = c.number(obj, "initialLength", path, "nonNegative", 0);
    const model: Partial<ExternalMetricModel> = {
      name,
      namespace,
      selector,
      arrivals,
      servedBy,
      serviceRatePerPod,
      initialLength,
    };
    if (Object.values(model).some((v) => v === undefined)) return;
    out.metrics.external.push(model as ExternalMetricModel);
  });
}

// Events -------------------------------------------------------------------------------------

const EVENT_FIELDS: Record<ScenarioEvent["type"], readonly string[]> = {
  updateTemplate: ["at", "type", "workload", "patch"],
  killPods: ["at", "type", "workload", "count"],
  metricsOutage: ["at", "type", "duration", "apis"],
  patchHpa: ["at", "type", "hpa", "patch"],
  restartController: ["at", "type"],
  setTraffic: ["at", "type", "workload", "traffic"],
  scale: ["at", "type", "workload", "replicas"],
};
const METRIC_APIS = ["resource", "custom", "external"] as const;

function readEvent(
  c: Ctx,
  value: unknown,
  path: Path,
  workloads: Map<string, ManifestWorkload>,
  hpas: Map<string, ManifestHpa>,
  gates: FeatureGates,
  options: LoadOptions,
): ScenarioEvent | undefined {
  if (!isObj(value)) {
    c.error(path, MSG.map);
    return undefined;
  }
  const type = value.type as ScenarioEvent["type"];
  const fields =
    typeof type === "string" && Object.hasOwn(EVENT_FIELDS, type) ? EVENT_FIELDS[type] : undefined;
  if (!fields) {
    if (type === undefined || type === null) c.error([...path, "type"], MSG.required);
    else {
      c.error(
        [...path, "type"],
        `unknown event ${JSON.stringify(type)} (expected one of: ${Object.keys(EVENT_FIELDS).join(", ")})`,
      );
    }
    return undefined;
  }
  const obj = c.fields(value, path, fields)!;
  const atMs = c.duration(obj, "at", path, "nonNegative");
  const workload = (): WorkloadRef | undefined =>
    c.require(obj, "workload", path)
      ? readRef(c, obj.workload, [...path, "workload"], workloads)
      : undefined;
  const patchOf = (): Record<string, unknown> | undefined => {
    if (!c.require(obj, "patch", path)) return undefined;
    if (!isObj(obj.patch)) {
      c.error([...path, "patch"], MSG.map);
      return undefined;
    }
    return obj.patch;
  };
  let event: ScenarioEvent | undefined;
  switch (type) {
    case "updateTemplate": {
      const ref = workload();
      const patch = patchOf();
      if (ref && patch) {
        // The patch must apply to the template as `kubectl patch` would, and leave a valid one.
        const manifest = workloads.get(refKey(ref))!;
        if (!manifest.valid) break;
        const spec =
          isObj(manifest.doc.data) && isObj(manifest.doc.data.spec) ? manifest.doc.data.spec : {};
        const patched = strategicMergePatch(isObj(spec.template) ? spec.template : {}, patch);
        if (!patched.ok) {
          c.error([...path, "patch"], `the patch does not apply to the template: ${patched.error}`);
          break;
        }
        const podSpec = isObj(patched.value) ? patched.value.spec : undefined;
        const problems = podSpecProblems(podSpec, ["spec"]);
        for (const p of problems) {
          c.error(
            [...path, "patch"],
            `the patched template is invalid: ${formatPath(p.path)}: ${p.message}`,
          );
        }
        if (problems.length === 0 && atMs !== undefined)
          event = { atMs, type, workload: ref, patch };
      }
      break;
    }
    case "killPods": {
      const ref = workload();
      const count = c.number(obj, "count", path, "positiveInt", 1);
      if (ref && count !== undefined && atMs !== undefined)
        event = { atMs, type, workload: ref, count };
      break;
    }
    case "metricsOutage": {
      const durationMs = c.duration(obj, "duration", path, "positive");
      let apis: ("resource" | "custom" | "external")[] | undefined = [...METRIC_APIS];
      if (c.has(obj, "apis")) {
        const list = c.list(obj, "apis", path);
        apis = list ? [] : undefined;
        (list ?? []).forEach((api, i) => {
          if (typeof api === "string" && (METRIC_APIS as readonly string[]).includes(api)) {
            apis?.push(api as (typeof METRIC_APIS)[number]);
          } else {
            c.error(
              [...path, "apis", i],
              `Unsupported value: ${JSON.stringify(api)}: supported values: ${METRIC_APIS.map((a) => `"${a}"`).join(", ")}`,
            );
            apis = undefined;
          }
        });
      }
      if (durationMs !== undefined && apis && atMs !== undefined)
        event = { atMs, type, durationMs, apis };
      break;
    }
    case "patchHpa": {
      const hpaName = c.string(obj, "hpa", path);
      const patch = patchOf();
      if (hpaName === undefined || !patch) break;
      const [namespace, name] = hpaName.includes("/")
        ? hpaName.split("/", 2)
        : ["default", hpaName];
      const target = hpas.get(`${namespace}/${name}`);
      if (target && !target.valid) break;
      if (!target) {
        const known = [...hpas.keys()];
        c.error(
          [...path, "hpa"],
          `unknown HorizontalPodAutoscaler ${namespace}/${name} (HPAs: ${known.length > 0 ? known.join(", ") : "none"})`,
        );
        break;
      }
      // The patched HPA must pass validation, as an update through the API would.
      // A copy of the patch: the HPA must not share (and later change) the event's values.
      const patched = mergePatch(target.raw, structuredClone(patch)) as HorizontalPodAutoscaler;
      let valid = true;
      for (const p of hpaDecodeProblems(patched)) {
        c.error(
          [...path, "patch"],
          `the patched HPA is invalid: ${formatPath(p.path)}: ${p.message}`,
        );
        valid = false;
      }
      if (valid) {
        admitHpa(
          patched,
          gates,
          (field, message) => {
            c.error([...path, "patch"], `the patched HPA is invalid: ${field}: ${message}`);
            valid = false;
          },
          () => {},
        );
      }
      if (valid && atMs !== undefined)
        event = { atMs, type, namespace: namespace!, name: name!, patch };
      break;
    }
    case "restartController":
      if (atMs !== undefined) event = { atMs, type };
      break;
    case "setTraffic": {
      const ref = workload();
      const traffic = readTrafficList(c, obj, "traffic", path, options, true);
      if (ref && traffic && atMs !== undefined) event = { atMs, type, workload: ref, traffic };
      break;
    }
    case "scale": {
      const ref = workload();
      const replicas = c.number(obj, "replicas", path, "nonNegativeInt");
      if (ref && replicas !== undefined && atMs !== undefined)
        event = { atMs, type, workload: ref, replicas };
      break;
    }
  }
  return event;
}

// Cross-checks -------------------------------------------------------------------------------

/** Warnings, not errors: upstream accepts these HPAs and then reports failures at run time. */
function checkHpaReferences(
  r: Reporter,
  spec: ScenarioSpec,
  hpas: Map<string, ManifestHpa>,
  workloads: Map<string, ManifestWorkload>,
): void {
  for (const { doc, hpa, valid } of hpas.values()) {
    if (!valid) continue;
    const namespace = hpa.metadata.namespace ?? "default";
    const ref = hpa.spec.scaleTargetRef;
    if (!workloads.has(`${namespace}/${ref.kind}/${ref.name}`)) {
      r.warn(
        doc,
        `scale target ${ref.kind}/${ref.name} is not among the manifests in namespace ${namespace}: the HPA will report FailedGetScale`,
        ["spec", "scaleTargetRef"],
      );
    }
    (hpa.spec.metrics ?? []).forEach((metric, i) => {
      const path: Path = ["spec", "metrics", i];
      if (metric.type === "Pods" && metric.pods) {
        const name = metric.pods.metric.name;
        if (!spec.metrics.pods.some((m) => m.name === name && m.namespace === namespace)) {
          r.warn(
            doc,
            `no spec.metrics.pods model provides Pods metric "${name}" in namespace ${namespace}: the metric will be unavailable`,
            path,
          );
        }
      } else if (metric.type === "Object" && metric.object) {
        const { metric: id, describedObject: d } = metric.object;
        const found = spec.metrics.object.some(
          (m) =>
            m.name === id.name &&
            m.namespace === namespace &&
            m.describedObject.kind === d.kind &&
            m.describedObject.name === d.name,
        );
        if (!found) {
          r.warn(
            doc,
            `no spec.metrics.object model provides Object metric "${id.name}" of ${d.kind}/${d.name} in namespace ${namespace}: the metric will be unavailable`,
            path,
          );
        }
      } else if (metric.type === "External" && metric.external) {
        const name = metric.external.metric.name;
        if (!spec.metrics.external.some((m) => m.name === name && m.namespace === namespace)) {
          r.warn(
            doc,
            `no spec.metrics.external model provides External metric "${name}" in namespace ${namespace}: the metric will be unavailable`,
            path,
          );
        }
      }
    });
  }
}
