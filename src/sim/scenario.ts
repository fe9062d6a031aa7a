// Scenario files for `horizon simulate`: multi-document YAML holding ordinary Kubernetes
// manifests plus one Horizon `Scenario` document. Parses with source positions, converts and
// validates HPAs as kube-apiserver does, reads the Scenario document with its zod schema
// (scenario-schema.ts), fills every default and reports every problem found with
// file:line:column, document and field path. The format is documented in docs/scenarios.md.
import { readFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { type Document, isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from "yaml";
import { readHorizontalPodAutoscaler } from "../api/conversion.js";
import { setDefaultsHorizontalPodAutoscaler } from "../api/defaults.js";
import type { FeatureGates } from "../api/featuregates.js";
import { isRecord as isObj } from "../api/json.js";
import { mergePatch } from "../api/patch/merge-patch.js";
import { strategicMergePatch } from "../api/patch/strategic-merge-patch.js";
import { Quantity } from "../api/quantity.js";
import { selectorFromLabelSelector, selectorMatches } from "../api/selector.js";
import type { HorizontalPodAutoscaler, KubeObject, LabelSelector } from "../api/types.js";
import {
  dropDisabledHorizontalPodAutoscalerFields,
  type FieldError,
  fieldErrorBody,
  validateHorizontalPodAutoscaler,
} from "../api/validation.js";
import type { KubernetesVersion } from "../api/versions.js";
import { type DecodeProblem, strictDecodeProblems } from "../apiserver/strictdecode.js";
import { goNumber, jsonKind } from "../apiserver/typeddecode.js";
import { annotationFieldIssues } from "../core/extensions/annotations.js";
import { podTemplatePatchMeta } from "../kinds/patchmeta.js";
import { kindDefinition } from "../kinds/registry.js";
import { applyFromPrometheus, RangeQueries } from "./prometheus-traffic.js";
import {
  defaultWorkloadModel,
  issuesFromZod,
  MSG,
  quantityNumber,
  readScenarioDocument,
  refKey,
  SCENARIO_API_VERSION,
  SCENARIO_DEFAULTS,
  type ScenarioContext,
  scenarioGates,
  type TemplateDefaults,
  WORKLOAD_KINDS,
  type WorkloadKind,
} from "./scenario-schema.js";
import type { Scenario, ScenarioSpec, WorkloadRef } from "./scenario-types.js";
import {
  applySet,
  formatPath,
  keyText,
  type PathSegment,
  parseFieldPath,
  setOrigin,
} from "./set-path.js";

export { SCENARIO_API_VERSION, SCENARIO_DEFAULTS } from "./scenario-schema.js";

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
  /** Field path in the document, e.g. ["spec", "workloads", 0, "traffic", 1, "rps"]. */
  path?: PathSegment[];
}

/** `file:line:column: document N (Kind/name): path: message`, parts left out when unknown. */
export function formatScenarioError(e: ScenarioError): string {
  let out = e.file;
  if (e.line !== undefined) out += `:${e.line}:${e.column ?? 1}`;
  out += ": ";
  if (e.document !== undefined) {
    out += `document ${e.document}${e.object ? ` (${e.object})` : ""}: `;
  }
  if (e.path && e.path.length > 0) out += `${formatPath(e.path)}: `;
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
  /** The wall clock (ms) `now` means in `prometheus` models; defaults to Date.now(). */
  nowMs?: number;
  /** `--from-prometheus URL`: every workload's traffic from this Prometheus (the common query),
   * over `durationMs` (default: the scenario's duration) up to now. */
  fromPrometheus?: { url: string; durationMs?: number };
  /** `prometheus` models' range queries, fetched by `resolveScenario`. */
  rangeQueries?: RangeQueries;
  /**
   * The objects go to `horizon up`'s API server: kinds it serves that the simulator does not
   * model (SERVED_ONLY_KINDS) are kept, checked as the API server checks them, not skipped.
   */
  served?: boolean;
  /** `--kubernetes-version`: wins over the document's `spec.kubernetesVersion`. */
  kubernetesVersion?: KubernetesVersion;
}

export type ScenarioResult =
  | { ok: true; scenario: Scenario }
  | { ok: false; errors: ScenarioError[] };

/** Reads a scenario file ("-" reads stdin) and parses it, fetching what its `prometheus`
 * traffic models replay. */
export async function loadScenarioFile(
  path: string,
  options: Pick<
    LoadOptions,
    "sets" | "fromPrometheus" | "nowMs" | "rangeQueries" | "served" | "kubernetesVersion"
  > = {},
): Promise<ScenarioResult> {
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
  return resolveScenario(text, { ...options, file: path, baseDir });
}

/** `parseScenario`, after fetching the range queries of its `prometheus` traffic models. */
export async function resolveScenario(text: string, options: LoadOptions): Promise<ScenarioResult> {
  const rangeQueries = options.rangeQueries ?? new RangeQueries();
  const withQueries = { ...options, nowMs: options.nowMs ?? Date.now(), rangeQueries };
  const first = parseScenario(text, withQueries);
  if (rangeQueries.pending.size === 0) return first;
  await rangeQueries.fetchPending();
  return parseScenario(text, withQueries);
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
  /** An item of a `kind: List` document: its path in the document (`items[i]`). */
  base?: Path;
}

/** A path of `doc`'s data as a path in its YAML document. */
function inDocument(doc: Doc, path: readonly PathSegment[]): PathSegment[] {
  return doc.base ? [...doc.base, ...path] : [...path];
}

/** A problem found while reading: data with a path, located in the YAML only by `errors()`. */
interface Issue {
  doc: Doc | null;
  path: Path;
  message: string;
  /** "key" points at the field's name instead of its value. */
  at: "key" | "value";
  /** Located here instead of at `path` (an autoscaling/v1 field upstream reports as v2's). */
  locateAt?: Path;
}

class Reporter {
  /** Problems the YAML parser and --set report with their own positions. */
  readonly positioned: ScenarioError[] = [];
  readonly issues: Issue[] = [];
  readonly warnings: string[] = [];
  constructor(
    readonly file: string,
    readonly lines: LineCounter,
  ) {}

  /** An error at `path` of `doc`; `at: "key"` points at the field name instead of its value. */
  error(doc: Doc | null, path: Path | undefined, message: string, at: "key" | "value" = "value") {
    this.issues.push({ doc, path: path ?? [], message, at });
  }

  /** An upstream validation error: its own field path, located in `doc` at `locatePath`. */
  fieldError(doc: Doc, field: string, message: string, locatePath?: Path) {
    const parsed = parseFieldPath(field);
    const path = parsed.ok ? parsed.path : field.split(".");
    this.issues.push({
      doc,
      path,
      message,
      at: "value",
      ...(locatePath ? { locateAt: locatePath } : {}),
    });
  }

  /** Every error, located: `file:line:column` from the path in the document's source map. */
  errors(): ScenarioError[] {
    return [...this.positioned, ...this.issues.map((issue) => this.locateIssue(issue))];
  }

  locateIssue(issue: Issue): ScenarioError {
    const e: ScenarioError = { message: issue.message, file: this.file };
    const { doc, path } = issue;
    if (doc) {
      const where = locate(doc.ast, inDocument(doc, issue.locateAt ?? path), issue.at);
      if (where.offset !== undefined) {
        const pos = this.lines.linePos(where.offset);
        e.line = pos.line;
        e.column = pos.col;
      }
      if (where.setBy !== undefined) e.message += ` (set by --set ${where.setBy})`;
      e.document = doc.index;
      if (doc.object) e.object = doc.object;
    }
    if (path.length > 0) e.path = path;
    return e;
  }

  /** `file:line:column: document N (Kind/name)` for warnings. */
  where(doc: Doc, path: Path = []): string {
    const e = this.locateIssue({ doc, path, message: "", at: "value" });
    return formatScenarioError({ ...e, path: undefined, message: "" }).replace(/: $/, "");
  }

  /** `file:line:column` where a document starts. */
  position(doc: Doc): string {
    const offset = locate(doc.ast, inDocument(doc, []), "value").offset;
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

class Ctx {
  constructor(
    readonly r: Reporter,
    readonly doc: Doc,
  ) {}

  error(path: Path, message: string, at: "key" | "value" = "value") {
    this.r.error(this.doc, path, message, at);
  }
}

// ---------------------------------------------------------------------------------------------
// Manifests

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

/**
 * Kinds `horizon up` serves but the simulator does not model, with their served version: in a
 * scenario given to `horizon up` they are created like the other objects (so the book's
 * ServiceMonitor is scraped, and the Prometheus Operator's CRDs are accepted as kubectl apply
 * accepts them); `horizon simulate` skips them with a warning.
 */
const SERVED_ONLY_KINDS: Record<string, string> = {
  ServiceMonitor: "monitoring.coreos.com/v1",
  CustomResourceDefinition: "apiextensions.k8s.io/v1",
};

/** A served-only object, checked by its kind's create strategy (errors name the field). */
function readServedOnly(
  c: Ctx,
  doc: Doc,
  data: Obj,
  gates: FeatureGates,
  seen: Map<string, Doc>,
): KubeObject | undefined {
  const kind = data.kind as string;
  const apiVersion = data.apiVersion as string;
  if (apiVersion !== SERVED_ONLY_KINDS[kind]) {
    c.error(["apiVersion"], `no matches for kind "${kind}" in version "${apiVersion}"`);
    return undefined;
  }
  if (!isObj(data.metadata) || typeof data.metadata.name !== "string" || !data.metadata.name) {
    c.error(["metadata", "name"], `${MSG.required}: name or generateName is required`);
    return undefined;
  }
  const obj = structuredClone(data) as KubeObject;
  const definition = kindDefinition(kind);
  if (definition?.namespaced && !obj.metadata.namespace) obj.metadata.namespace = "default";
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
  const prepared = definition?.strategy.prepareForCreate(obj, { featureGates: gates });
  if (prepared && !prepared.ok) {
    for (const e of prepared.errors) c.r.fieldError(doc, e.field, fieldErrorBody(e));
    return undefined;
  }
  return obj;
}

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

/** What kube-apiserver answers when a value does not decode into its Go int32 field. */
function int32Problem(value: unknown, goStruct: string, field: string): string {
  const got = typeof value === "number" ? `number ${goNumber(value)}` : jsonKind(value);
  return `json: cannot unmarshal ${got} into Go struct field ${goStruct}.${field} of type int32`;
}

/** A decode problem as an error: an unknown field points at its name. */
function reportDecode(c: Ctx, problems: readonly DecodeProblem[]): void {
  for (const p of problems) c.error(p.path, p.message, p.unknownField ? "key" : "value");
}

// ---------------------------------------------------------------------------------------------
// The parser

// `horizon tune` parses one text once per candidate (only its --set edits differ): the last
// text's documents are kept, and each parse gets a copy to edit.
let lastParsed: { text: string; lines: LineCounter; asts: Document[] } | null = null;

function parseDocuments(text: string): { lines: LineCounter; asts: Document[] } {
  if (lastParsed?.text !== text) {
    const lines = new LineCounter();
    const parsed = parseAllDocuments(text, {
      lineCounter: lines,
      prettyErrors: false,
      merge: true,
    });
    lastParsed = { text, lines, asts: Array.isArray(parsed) ? parsed : [] };
  }
  return { lines: lastParsed.lines, asts: lastParsed.asts.map((ast) => ast.clone()) };
}

/** Parses a scenario; never throws on bad input: every problem comes back in `errors`. */
export function parseScenario(text: string, options: LoadOptions): ScenarioResult {
  const { lines, asts } = parseDocuments(text);
  const r = new Reporter(options.file, lines);
  const broken = new Set<Document>();
  asts.forEach((ast, i) => {
    for (const e of ast.errors) {
      const pos = lines.linePos(e.pos[0]);
      r.positioned.push({
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
    if (!applied.ok) r.positioned.push({ file: options.file, message: applied.error });
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
    if (isObj(data) && data.kind === "List" && data.apiVersion === "v1") {
      // What `kubectl get -o yaml` prints: `kubectl create -f` creates each item.
      if (!Array.isArray(data.items)) {
        if (data.items !== undefined && data.items !== null)
          r.error({ index: i + 1, ast, data, object: "List" }, ["items"], MSG.list);
        return;
      }
      data.items.forEach((item: unknown, j: number) => {
        const doc: Doc = { index: i + 1, ast, data: item, base: ["items", j] };
        const object = objectName(item);
        doc.object = `List items[${j}]${object ? `: ${object}` : ""}`;
        docs.push(doc);
      });
      return;
    }
    const doc: Doc = { index: i + 1, ast, data };
    const object = objectName(data);
    if (object) doc.object = object;
    docs.push(doc);
  });

  if (docs.length === 0 && r.positioned.length === 0) {
    // Nothing to simulate: an empty file (or only comments) is a mistake, not an empty run.
    r.positioned.push({
      file: options.file,
      message:
        "nothing to simulate: no document; a scenario is a workload's manifest, its HorizontalPodAutoscaler and optionally a Scenario document (docs/scenarios.md)",
    });
  }
  // The Scenario document's feature gates govern HPA validation: they are read first.
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
  const gates = scenarioGates(scenarioDoc?.data, options.kubernetesVersion);

  const objects: KubeObject[] = [];
  const sources = new Map<KubeObject, string>();
  const workloads = new Map<string, ManifestWorkload>();
  const hpas = new Map<string, ManifestHpa>();
  const seen = new Map<string, Doc>();
  for (const doc of docs) {
    if (scenarioDocs.includes(doc)) continue;
    const obj = readManifest(r, doc, gates, workloads, hpas, seen, options.served === true);
    if (obj) {
      objects.push(obj);
      sources.set(obj, r.position(doc));
    }
  }

  const scenarioData = scenarioDoc?.data ?? { apiVersion: SCENARIO_API_VERSION, kind: "Scenario" };
  if (options.fromPrometheus !== undefined && isObj(scenarioData)) {
    const refs = [...workloads.values()].filter((w) => w.valid).map((w) => w.ref);
    applyFromPrometheus(scenarioData, refs, options.fromPrometheus);
  }
  const read = readScenarioDocument(scenarioData, scenarioContext(workloads, hpas, gates, options));
  if (!read.success) {
    for (const issue of issuesFromZod(read.error.issues)) {
      r.error(scenarioDoc ?? null, issue.path, issue.message, issue.at);
    }
  }
  if (r.issues.length > 0 || r.positioned.length > 0 || !read.success) {
    return { ok: false, errors: sortErrors(r.errors()) };
  }

  const document = read.data;
  const spec: ScenarioSpec = {
    name: document.name ?? defaultName(options.file),
    durationMs: document.durationMs,
    seed: document.seed,
    kubernetesVersion: gates.version,
    controllerFlags: document.controllerFlags,
    featureGates: gates.overrides() as Record<string, boolean>,
    cluster: document.cluster,
    // Every workload gets a model; those the document does not list get the defaults.
    workloads: [...workloads.values()]
      .filter((w) => w.valid)
      .map(
        (w) =>
          document.workloads.find((m) => refKey(m.target) === refKey(w.ref)) ??
          defaultWorkloadModel(w.ref, w),
      ),
    metrics: document.metrics,
    events: [...document.events].sort((a, b) => a.atMs - b.atMs),
  };
  document.events.forEach((event, i) => {
    if (event.atMs > spec.durationMs) {
      r.warn(
        scenarioDoc!,
        `event at ${formatSeconds(event.atMs)} comes after the end of the run (${formatSeconds(spec.durationMs)}); it never happens`,
        ["spec", "events", i, "at"],
      );
    }
  });
  checkHpaReferences(r, spec, hpas, workloads);
  return { ok: true, scenario: { spec, objects, sources, warnings: r.warnings } };
}

/** `Kind/name` of a document's object, or its kind; "" when it has no kind. */
function objectName(data: unknown): string {
  if (!isObj(data)) return "";
  const kind = typeof data.kind === "string" ? data.kind : "";
  const meta = isObj(data.metadata) ? data.metadata : {};
  const name = typeof meta.name === "string" ? meta.name : "";
  return kind && name ? `${kind}/${name}` : kind;
}

function asObj(hpa: HorizontalPodAutoscaler): Obj {
  return hpa as unknown as Obj;
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

function defaultName(file: string): string {
  if (file === "-") return "stdin";
  return basename(file, extname(file));
}

function formatSeconds(ms: number): string {
  return `${ms / 1000}s`;
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
  served: boolean,
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
  if (!versions && served && Object.hasOwn(SERVED_ONLY_KINDS, kind)) {
    return readServedOnly(c, doc, data, gates, seen);
  }
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
  // Unknown fields refused, as kube-apiserver's strict decoding of what `kubectl create` sends
  // (the JSON types of what the simulator reads are checked below, value by value).
  const decode = strictDecodeProblems(kind, apiVersion, data, { typed: false });
  const isWorkload = (WORKLOAD_KINDS as readonly string[]).includes(kind);
  if (decode.length > 0) {
    reportDecode(c, decode);
    // Never validated; a workload stays known (invalid) to what refers to it.
    const name = isObj(data.metadata) ? data.metadata.name : undefined;
    if (isWorkload && typeof name === "string" && name) {
      const namespace = (data.metadata as Obj).namespace;
      const ref = {
        namespace: typeof namespace === "string" && namespace ? namespace : "default",
        kind: kind as WorkloadKind,
        name,
      };
      registerWorkload(workloads, doc, ref, null);
    }
    return undefined;
  }
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
  if (isWorkload) {
    const replicas = spec.replicas;
    if (replicas !== undefined && replicas !== null) {
      if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
        problems.push({
          path: ["spec", "replicas"],
          message: int32Problem(replicas, `${kind}Spec`, "spec.replicas"),
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
    registerWorkload(workloads, doc, ref, valid ? (template.spec as Obj) : null);
  }
  for (const p of problems) c.error(p.path, p.message);
  return problems.length === 0 ? obj : undefined;
}

/** A workload manifest; `podSpec` null when the manifest has errors. */
function registerWorkload(
  workloads: Map<string, ManifestWorkload>,
  doc: Doc,
  ref: WorkloadRef,
  podSpec: Obj | null,
): void {
  const valid = podSpec !== null;
  workloads.set(refKey(ref), {
    ref,
    doc,
    valid,
    ...(podSpec !== null
      ? podTemplateDefaults(podSpec)
      : {
          readinessDelayMs: SCENARIO_DEFAULTS.pod.readinessDelayMs,
          terminationGracePeriodMs: SCENARIO_DEFAULTS.pod.terminationGracePeriodMs,
          cpuLimitMilli: null,
        }),
  });
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
  // A served version is decoded as kube-apiserver decodes it (typed, unknown fields refused).
  const served = strictDecodeProblems("HorizontalPodAutoscaler", data.apiVersion as string, data);
  if (served.length > 0) {
    reportDecode(c, served);
    return undefined;
  }
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
  if (data.apiVersion !== "autoscaling/v1" && data.apiVersion !== "autoscaling/v2") {
    // A legacy version, converted: checked in the autoscaling/v2 shape it now has.
    const legacy = strictDecodeProblems("HorizontalPodAutoscaler", "autoscaling/v2", asObj(raw));
    if (legacy.length > 0) {
      reportDecode(c, legacy);
      return undefined;
    }
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
    // Horizon's API server also checks the horizon.dev/ annotations (docs/extensions.md).
    const extensions = annotationFieldIssues(hpa);
    for (const warning of extensions.warnings) onWarning(warning);
    errors = [
      ...validateHorizontalPodAutoscaler(hpa, { featureGates: gates }),
      ...extensions.errors,
    ];
  } catch (error) {
    onError("spec", `cannot be decoded: ${(error as Error).message}`);
    return undefined;
  }
  for (const e of errors) onError(e.field, fieldErrorBody(e));
  return errors.length === 0 ? hpa : undefined;
}

// ---------------------------------------------------------------------------------------------
// What the Scenario document refers to

function scenarioContext(
  workloads: Map<string, ManifestWorkload>,
  hpas: Map<string, ManifestHpa>,
  gates: FeatureGates,
  options: LoadOptions,
): ScenarioContext {
  return {
    workloads: new Map(
      [...workloads].map(([key, w]): [string, { ref: WorkloadRef; defaults: TemplateDefaults }] => [
        key,
        { ref: w.ref, defaults: w },
      ]),
    ),
    templatePatchProblems(ref, patch) {
      const manifest = workloads.get(refKey(ref));
      // An invalid manifest is reported already.
      if (!manifest?.valid) return [];
      const spec =
        isObj(manifest.doc.data) && isObj(manifest.doc.data.spec) ? manifest.doc.data.spec : {};
      // The patch must apply to the template as `kubectl patch` would, and leave a valid one.
      const patched = strategicMergePatch(
        isObj(spec.template) ? spec.template : {},
        patch,
        podTemplatePatchMeta(ref.kind),
      );
      if (!patched.ok) return [`the patch does not apply to the template: ${patched.error}`];
      const podSpec = isObj(patched.value) ? patched.value.spec : undefined;
      return podSpecProblems(podSpec, ["spec"]).map(
        (p) => `the patched template is invalid: ${formatPath(p.path)}: ${p.message}`,
      );
    },
    hpaPatchProblems(namespace, name, patch) {
      const target = hpas.get(`${namespace}/${name}`);
      if (!target) {
        const known = [...hpas.keys()];
        return {
          unknown: `unknown HorizontalPodAutoscaler ${namespace}/${name} (HPAs: ${known.length > 0 ? known.join(", ") : "none"})`,
        };
      }
      // An invalid HPA is reported already.
      if (!target.valid) return { problems: [] };
      // A copy of the patch: the HPA must not share (and later change) the event's values.
      const patched = mergePatch(target.raw, structuredClone(patch)) as HorizontalPodAutoscaler;
      const invalid = "the patched HPA is invalid";
      // As `kubectl patch` sends it: decoded strictly (typed, unknown fields refused).
      const decode = strictDecodeProblems(
        "HorizontalPodAutoscaler",
        "autoscaling/v2",
        asObj(patched),
      );
      if (decode.length > 0) {
        return { problems: decode.map((p) => `${invalid}: ${formatPath(p.path)}: ${p.message}`) };
      }
      const problems: string[] = [];
      admitHpa(
        patched,
        gates,
        (field, message) => problems.push(`${invalid}: ${field}: ${message}`),
        () => {},
      );
      return { problems };
    },
    readTrace: (file) => readTrace(file, options),
    rangeQuery: (request) =>
      options.rangeQueries?.lookup(request) ?? {
        ok: false,
        problems: [
          {
            field: "url",
            message: "Prometheus is not queried here (read the scenario with resolveScenario)",
          },
        ],
      },
    nowMs: options.nowMs ?? Date.now(),
    kubernetesVersion: gates.version,
  };
}

/** Reads a trace file as text: a `.gz` file is gunzipped. */
function readTraceText(path: string): string {
  if (!path.toLowerCase().endsWith(".gz")) return readFileSync(path, "utf8");
  return gunzipSync(readFileSync(path)).toString("utf8");
}

/** `2026-11-17 08:00`, `2026-11-17T08:00:00Z`, `…+02:00`, with optional seconds and fraction. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A CSV time cell as a date-time, in Unix ms (no zone: UTC); NaN if it is not one. */
export function parseDateTime(text: string): number {
  const m = DATE_TIME.exec(text);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return Number.NaN;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, second) + Number(frac ?? 0) * 1000;
  if (new Date(ms).getUTCDate() !== day) return Number.NaN;
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ms;
}

/** A replay trace: CSV `time,rate` lines (an optional header, `#` comments), the time in
 * seconds or a date-time (then relative to the first row's), or JSON `[{"t": seconds, "rps":
 * n}]`. Times must increase. */
function readTrace(
  file: string,
  options: LoadOptions,
): { ok: true; points: { atMs: number; rps: number }[] } | { ok: false; problems: string[] } {
  const absolute = resolve(options.baseDir, file);
  let text: string;
  try {
    text = (options.readFile ?? readTraceText)(absolute);
  } catch (error) {
    return {
      ok: false,
      problems: [`cannot read replay file ${JSON.stringify(file)}: ${ioMessage(error)}`],
    };
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
      return { ok: false, problems: [`${file}: not valid JSON: ${(error as Error).message}`] };
    }
    if (!Array.isArray(data)) {
      return {
        ok: false,
        problems: [`${file}: must be a JSON array of {"t": seconds, "rps": number}`],
      };
    }
    data.forEach((p, i) => {
      if (!isObj(p))
        problems.push(`${file}: point ${i}: must be an object {"t": seconds, "rps": number}`);
      else add(`${file}: point ${i}`, p.t, p.rps);
    });
  } else {
    let dataLines = 0;
    // Date-time rows are relative to the first one; a file is all seconds or all date-times.
    let firstDateMs: number | null | undefined;
    const numeric = (s: string | undefined) =>
      s !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : Number.NaN;
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      const where = `${file}:${i + 1}`;
      const cells = line.split(",").map((cell) => cell.trim());
      const seconds = numeric(cells[0]);
      const dateMs = Number.isNaN(seconds) ? parseDateTime(cells[0] ?? "") : Number.NaN;
      // A first line that is neither seconds nor a date-time is a header ("seconds,rps").
      if (dataLines++ === 0 && Number.isNaN(seconds) && Number.isNaN(dateMs)) return;
      if (cells.length !== 2) {
        const shape = typeof firstDateMs === "number" ? "date-time,rate" : "seconds,rps";
        problems.push(`${where}: expected "${shape}", got ${JSON.stringify(line)}`);
        return;
      }
      if (firstDateMs === undefined) firstDateMs = Number.isNaN(dateMs) ? null : dateMs;
      if (firstDateMs === null) {
        add(where, seconds, numeric(cells[1]));
      } else if (Number.isNaN(dateMs)) {
        problems.push(
          `${where}: time ${JSON.stringify(cells[0])} must be a date-time such as "1995-07-01 00:00:00", as the first row's`,
        );
      } else add(where, (dateMs - firstDateMs) / 1000, numeric(cells[1]));
    });
  }
  if (problems.length === 0 && points.length === 0) problems.push(`${file}: no points`);
  if (problems.length === 0) return { ok: true, points };
  const shown = problems.slice(0, 5);
  if (problems.length > 5) shown.push(`${file}: ${problems.length - 5} more problems`);
  return { ok: false, problems: shown };
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
