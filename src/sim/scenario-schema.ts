// The Horizon `Scenario` document (apiVersion horizon.dev/v1alpha1) as one zod schema: fields,
// types, defaults, ranges, enums, durations and quantities (read with the project's own
// parsers). What the document refers to (workloads and HPAs among the manifests, replay traces)
// is checked through a `ScenarioContext`. Problems come back as zod issues with array paths;
// `issuesFromZod` turns them into the reader's issues, located in the YAML only at the edge
// (src/sim/scenario.ts). `docs/scenario.schema.json` is this schema as JSON Schema.
import { z } from "zod";
import { parseDuration } from "../api/duration.js";
import { FeatureGates } from "../api/featuregates.js";
import { isRecord as isObj } from "../api/json.js";
import { Quantity } from "../api/quantity.js";
import { selectorFromLabelSelector } from "../api/selector.js";
import type { LabelSelector } from "../api/types.js";
import {
  DEFAULT_KUBERNETES_VERSION,
  type KubernetesVersion,
  parseKubernetesVersion,
} from "../api/versions.js";
import { applyControllerFlags, defaultControllerConfig } from "../core/config.js";
import type {
  ExternalMetricModel,
  ObjectMetricModel,
  PodLifecycleModel,
  PodsMetricModel,
  ScenarioEvent,
  ScenarioSpec,
  TrafficModel,
  UsageModel,
  WorkloadModel,
  WorkloadRef,
} from "./scenario-types.js";
import { type PathSegment, resolveKind } from "./set-path.js";

export const SCENARIO_API_VERSION = "horizon.dev/v1alpha1";

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

export const WORKLOAD_KINDS = [
  "Deployment",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export const refKey = (ref: WorkloadRef) => `${ref.namespace}/${ref.kind}/${ref.name}`;
export const refText = (ref: WorkloadRef) => `${ref.kind} ${ref.namespace}/${ref.name}`;

/** Defaults a workload's model takes from its manifest's pod template. */
export interface TemplateDefaults {
  readinessDelayMs: number;
  terminationGracePeriodMs: number;
  cpuLimitMilli: number | null;
}

/** What the Scenario document refers to, supplied by the reader of the whole file. */
export interface ScenarioContext {
  /** The workload manifests by `refKey`. */
  workloads: ReadonlyMap<string, { ref: WorkloadRef; defaults: TemplateDefaults }>;
  /** Problems of the workload's pod template once `patch` is merged into it. */
  templatePatchProblems(ref: WorkloadRef, patch: Record<string, unknown>): string[];
  /** Problems of an HPA once `patch` is merged into it; `unknown` when there is no such HPA. */
  hpaPatchProblems(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
  ): { unknown: string } | { problems: string[] };
  /** The points a Prometheus range query gave (fetched before the document is read), its
   * problems by field, or `pending` while it is not fetched yet. */
  rangeQuery(
    request: RangeQueryRequest,
  ):
    | { ok: true; points: { atMs: number; rps: number }[] }
    | { ok: false; problems: { field: "url" | "query"; message: string }[] }
    | { ok: "pending" };
  /** The wall clock (ms) that `now` in a `prometheus` model's start and end means. */
  readonly nowMs: number;
  /** The Kubernetes version in force (`--kubernetes-version`, else `spec.kubernetesVersion`):
   * feature gates and controller flags are checked as that version checks them. */
  readonly kubernetesVersion: KubernetesVersion;
  /** A replay trace's points, or its problems (already worded, at most a handful). */
  readTrace(file: string):
    | { ok: true; points: { atMs: number; rps: number }[] }
    | {
        ok: false;
        problems: string[];
      };
}

/** A `type: prometheus` traffic model's range query, times in Unix seconds. */
export interface RangeQueryRequest {
  url: string;
  query: string;
  start: number;
  end: number;
  step: number;
}

/** Prometheus refuses range queries of more points per series than this. */
export const MAX_RANGE_POINTS = 11_000;

export const MSG = {
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

// ---------------------------------------------------------------------------------------------
// Field types. A field that is null is read as absent (as if not written): optional fields take
// their default, required ones are "Required value".

type Issue = { input?: unknown; code?: string };
const orRequired = (message: string) => (iss: Issue) =>
  iss.input === undefined || iss.input === null ? MSG.required : message;

/** A mapping with only the listed fields; `item`: a list item (null is not absent there). */
function strict<S extends z.core.$ZodLooseShape>(
  shape: S,
  options: { item?: boolean; known?: readonly (keyof S & string)[] } = {},
) {
  // `known` lists the fields as documented when the shape checks them in another order.
  const known = (options.known ?? Object.keys(shape)).join(", ");
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `(known: ${known})`
        : options.item
          ? MSG.map
          : orRequired(MSG.map)(iss),
  });
}

function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: orRequired(MSG.list) });
}

const optionalList = <T extends z.ZodType>(item: T) =>
  list(item)
    .nullish()
    .transform((v) => v ?? []);

function nonEmptyString() {
  return z.string({ error: orRequired(MSG.string) }).min(1, { error: MSG.string });
}

type NumberRule = "nonNegative" | "positive" | "probability" | "nonNegativeInt" | "positiveInt";
function number(rule: NumberRule) {
  const error = MSG[rule];
  const base =
    rule === "nonNegativeInt" || rule === "positiveInt"
      ? z.int({ error: orRequired(error) })
      : z.number({ error: orRequired(error) });
  const signed =
    rule === "positive" || rule === "positiveInt"
      ? base.positive({ error })
      : base.nonnegative({ error });
  return rule === "probability" ? signed.max(1, { error }) : signed;
}

/** A Go duration ("30s", "1h30m"; a bare 0), in milliseconds. */
function duration(rule: "nonNegative" | "positive") {
  return z
    .union([z.string(), z.number()], {
      error: orRequired('must be a duration such as "30s" or "5m"'),
    })
    .transform((v, ctx) => {
      const parsed = parseDuration(String(v));
      let message: string | undefined;
      if (!parsed.ok) message = parsed.error;
      else if (parsed.ms < 0) message = MSG.negativeDuration;
      else if (rule === "positive" && parsed.ms === 0) message = MSG.zeroDuration;
      else return parsed.ms;
      ctx.addIssue({ code: "custom", message, input: v });
      return z.NEVER;
    })
    .meta({ description: 'a duration such as "30s", "5m" or "1h30m"' });
}

type WallTime = { unixSeconds: number } | { nowMinusMs: number };

/** A point in wall-clock time: RFC 3339, Unix seconds, `now` or `now-DURATION` (`now-7d`). */
function wallTime() {
  const message =
    'must be an RFC 3339 time ("2026-11-17T00:00:00Z"), Unix seconds, "now" or "now-DURATION" (e.g. "now-7d")';
  return z
    .union([z.string(), z.number()], { error: orRequired(message) })
    .transform((v, ctx): WallTime => {
      if (typeof v === "number" && Number.isFinite(v) && v >= 0) return { unixSeconds: v };
      const text = String(v).trim();
      const relative = /^now(?:\s*-\s*(.+))?$/.exec(text);
      if (relative) {
        if (relative[1] === undefined) return { nowMinusMs: 0 };
        // Days and weeks as Prometheus writes them, the rest as Go durations.
        const days = /^(\d+)([dw])$/.exec(relative[1]);
        if (days) {
          return { nowMinusMs: Number(days[1]) * (days[2] === "w" ? 7 : 1) * 86_400_000 };
        }
        const parsed = parseDuration(relative[1]);
        if (parsed.ok && parsed.ms >= 0) return { nowMinusMs: parsed.ms };
      } else if (/^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))) {
        return { unixSeconds: Date.parse(text) / 1000 };
      }
      ctx.addIssue({ code: "custom", message, input: v });
      return z.NEVER;
    })
    .meta({ description: 'RFC 3339, Unix seconds, "now" or "now-DURATION" such as "now-7d"' });
}

function resolveWallTime(time: WallTime, nowMs: number): number {
  return "unixSeconds" in time ? time.unixSeconds : (nowMs - time.nowMinusMs) / 1000;
}

/** A non-negative Kubernetes quantity in its base unit (cores, bytes), as an exact-enough float. */
function quantity() {
  return z
    .union([z.string(), z.number()], {
      error: (iss) =>
        iss.input === undefined || iss.input === null
          ? MSG.required
          : quantityProblem(Quantity.tryParse(iss.input)),
    })
    .transform((v, ctx) => {
      const parsed = Quantity.tryParse(v);
      if (!parsed.ok) {
        ctx.addIssue({ code: "custom", message: parsed.error, input: v });
        return z.NEVER;
      }
      const value = quantityNumber(parsed.quantity);
      if (value >= 0) return value;
      ctx.addIssue({ code: "custom", message: MSG.negativeQuantity, input: v });
      return z.NEVER;
    })
    .meta({ description: 'a Kubernetes quantity such as "500m", "2" or "128Mi"' });
}

function quantityProblem(parsed: ReturnType<typeof Quantity.tryParse>): string {
  return parsed.ok ? "" : parsed.error;
}

export function quantityNumber(q: Quantity): number {
  const { unscaled, scale } = q.exactValue();
  return Number(`${unscaled}e${scale}`);
}

const withDefault = <T extends z.ZodType, D>(schema: T, fallback: D) =>
  schema.nullish().transform((v): z.output<T> | D => v ?? fallback);

/** An optional mapping: absent reads as the mapping with every default. */
const optionalMapping = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((v): z.output<T> => v ?? schema.parse({}));

/** Upstream's NotSupported wording; `missing` stands for an absent value. */
function unsupported(values: readonly string[], missing: unknown = "") {
  return (iss: Issue) =>
    `Unsupported value: ${JSON.stringify(iss.input ?? missing)}: supported values: ${values.map((v) => `"${v}"`).join(", ")}`;
}

// ---------------------------------------------------------------------------------------------
// Workload references

const REF_FORMAT = `must be "Kind/name" or "namespace/Kind/name", e.g. "Deployment/web"`;

/** `Kind/name`, `namespace/Kind/name` or `{kind, name, namespace}`; must name a manifest. */
function workloadRef(context: ScenarioContext) {
  const text = z
    .string()
    .regex(/^[^/]+\/[^/]+(\/[^/]+)?$/, { error: REF_FORMAT })
    .transform((v) => {
      const parts = v.split("/");
      const namespace = parts.length === 3 ? parts.shift()! : "default";
      return { kind: parts[0]!, name: parts[1]!, namespace };
    });
  const object = strict({
    kind: nonEmptyString(),
    name: nonEmptyString(),
    namespace: withDefault(nonEmptyString(), "default"),
  });
  return z
    .union([text, object], { error: orRequired(MSG.map) })
    .transform((v, ctx): WorkloadRef => {
      const kind = resolveKind(v.kind);
      if (!kind || !(WORKLOAD_KINDS as readonly string[]).includes(kind)) {
        ctx.addIssue({
          code: "custom",
          message: `unknown workload kind "${v.kind}" (expected one of: ${WORKLOAD_KINDS.join(", ")})`,
          input: v,
        });
        return z.NEVER;
      }
      const ref: WorkloadRef = { namespace: v.namespace, kind: kind as WorkloadKind, name: v.name };
      if (!context.workloads.has(refKey(ref))) {
        const known = [...context.workloads.values()].map((w) => refText(w.ref));
        ctx.addIssue({
          code: "custom",
          message: `unknown workload ${refText(ref)}: no such manifest in the scenario (workloads: ${known.length > 0 ? known.join(", ") : "none"})`,
          input: v,
        });
        return z.NEVER;
      }
      return ref;
    });
}

// ---------------------------------------------------------------------------------------------
// Traffic models

function trafficModel(context: ScenarioContext) {
  const constant = strict({ type: z.literal("constant"), rps: number("nonNegative") });
  const step = strict({
    type: z.literal("step"),
    initial: withDefault(number("nonNegative"), 0),
    steps: list(strict({ at: duration("nonNegative"), rps: number("nonNegative") }, { item: true }))
      .min(1, { error: "must have at least one step" })
      .superRefine((steps, ctx) => {
        steps.forEach((s, i) => {
          const previous = steps[i - 1];
          if (previous && s.at <= previous.at) {
            ctx.addIssue({
              code: "custom",
              message: `must be later than the previous step (steps[${i - 1}].at)`,
              path: [i, "at"],
              input: s,
            });
          }
        });
      }),
  }).transform(
    (v): TrafficModel => ({
      type: "step",
      initial: v.initial,
      steps: v.steps.map((s) => ({ atMs: s.at, rps: s.rps })),
    }),
  );
  const ramp = strict({
    type: z.literal("ramp"),
    from: withDefault(number("nonNegative"), 0),
    to: number("nonNegative"),
    start: withDefault(duration("nonNegative"), 0),
    end: duration("nonNegative"),
  })
    .superRefine((v, ctx) => {
      if (v.end <= v.start) {
        ctx.addIssue({ code: "custom", message: "must be later than start", path: ["end"] });
      }
    })
    .transform(
      (v): TrafficModel => ({
        type: "ramp",
        from: v.from,
        to: v.to,
        startMs: v.start,
        endMs: v.end,
      }),
    );
  const notAboveBase = (v: { base: number; amplitude: number }, ctx: z.RefinementCtx) => {
    if (v.amplitude > v.base) {
      ctx.addIssue({
        code: "custom",
        message: "must not be greater than base (the rate would go negative)",
        path: ["amplitude"],
      });
    }
  };
  const sine = strict({
    type: z.literal("sine"),
    base: number("nonNegative"),
    amplitude: number("nonNegative"),
    period: duration("positive"),
    phase: withDefault(duration("nonNegative"), 0),
  })
    .superRefine(notAboveBase)
    .transform(
      (v): TrafficModel => ({
        type: "sine",
        base: v.base,
        amplitude: v.amplitude,
        periodMs: v.period,
        phaseMs: v.phase,
      }),
    );
  // A sine with a 24 h period.
  const diurnal = strict({
    type: z.literal("diurnal"),
    base: number("nonNegative"),
    amplitude: number("nonNegative"),
    phase: withDefault(duration("nonNegative"), 0),
  })
    .superRefine(notAboveBase)
    .transform(
      (v): TrafficModel => ({
        type: "sine",
        base: v.base,
        amplitude: v.amplitude,
        periodMs: SCENARIO_DEFAULTS.diurnalPeriodMs,
        phaseMs: v.phase,
      }),
    );
  const spike = strict({
    type: z.literal("spike"),
    base: withDefault(number("nonNegative"), 0),
    peak: number("nonNegative"),
    at: duration("nonNegative"),
    duration: duration("positive"),
  }).transform(
    (v): TrafficModel => ({
      type: "spike",
      base: v.base,
      peak: v.peak,
      atMs: v.at,
      durationMs: v.duration,
    }),
  );
  const replay = strict({
    type: z.literal("replay"),
    file: nonEmptyString().meta({
      description:
        "a CSV (seconds or date-time, rate) or JSON trace, relative to the scenario's directory; a .gz file is gunzipped",
    }),
    interval: duration("positive").optional().nullable().meta({
      description:
        "each row is the rate from its time for this long; time no row covers is 0 (absent: linear interpolation between rows)",
    }),
    per: withDefault(duration("positive"), 1000).meta({
      description: "the trace's values are counts per this long (default 1s: requests/s)",
    }),
    scale: withDefault(number("positive"), 1).meta({
      description: "a factor on the trace's rate",
    }),
    offset: withDefault(duration("nonNegative"), 0).meta({
      description: "the trace's time (after its first row) that is the run's t=0",
    }),
  }).transform((v, ctx): TrafficModel => {
    const trace = context.readTrace(v.file);
    if (!trace.ok) {
      for (const message of trace.problems) {
        ctx.addIssue({ code: "custom", message, path: ["file"], input: v.file });
      }
      return z.NEVER;
    }
    const points =
      v.scale === 1 && v.per === 1000
        ? trace.points
        : trace.points.map((p) => ({ atMs: p.atMs, rps: (p.rps * v.scale * 1000) / v.per }));
    // Only what is set: a model as before these fields replays as before.
    const model: TrafficModel = { type: "replay", points, source: v.file };
    if (v.interval !== undefined && v.interval !== null) model.holdMs = v.interval;
    if (v.offset > 0) model.offsetMs = v.offset;
    return model;
  });
  // A range query's result replayed from `start` on: several series add up.
  const prometheus = strict({
    type: z.literal("prometheus"),
    url: nonEmptyString().meta({
      description: "the Prometheus server, e.g. http://127.0.0.1:9090",
    }),
    query: nonEmptyString().meta({ description: "PromQL giving requests per second" }),
    start: wallTime(),
    end: withDefault(wallTime(), { nowMinusMs: 0 }),
    step: withDefault(duration("positive"), 60_000),
  }).transform((v, ctx): TrafficModel => {
    const start = resolveWallTime(v.start, context.nowMs);
    const end = resolveWallTime(v.end, context.nowMs);
    const step = v.step / 1000;
    const source = `prometheus ${v.url}: ${v.query}`;
    if (end <= start) {
      ctx.addIssue({ code: "custom", message: "must be later than start", path: ["end"] });
      return z.NEVER;
    }
    if ((end - start) / step > MAX_RANGE_POINTS) {
      ctx.addIssue({
        code: "custom",
        message: `gives more than ${MAX_RANGE_POINTS} points from start to end (Prometheus' limit): use a longer step`,
        path: ["step"],
      });
      return z.NEVER;
    }
    const result = context.rangeQuery({ url: v.url, query: v.query, start, end, step });
    if (result.ok === "pending") return { type: "replay", points: [], source };
    if (result.ok) return { type: "replay", points: result.points, source };
    for (const problem of result.problems) {
      ctx.addIssue({ code: "custom", message: problem.message, path: [problem.field] });
    }
    return z.NEVER;
  });
  const types = ["constant", "step", "ramp", "sine", "diurnal", "spike", "replay", "prometheus"];
  return z.discriminatedUnion(
    "type",
    [constant, step, ramp, sine, diurnal, spike, replay, prometheus],
    {
      error: (iss) => {
        if (iss.code !== "invalid_union") return MSG.map;
        const type = (iss.input as { type?: unknown } | undefined)?.type;
        return type === undefined || type === null
          ? MSG.required
          : `unknown traffic model ${JSON.stringify(type)} (expected one of: ${types.join(", ")})`;
      },
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Workload models

/** The reference and traffic schemas, built once: each is one definition in the JSON Schema. */
interface Shared {
  ref: ReturnType<typeof workloadRef>;
  traffic: ReturnType<typeof trafficModel>;
}

function workloadModel(context: ScenarioContext, { ref, traffic }: Shared) {
  const pod = strict({
    schedulingDelay: duration("nonNegative").optional().nullable(),
    containerStartDelay: duration("nonNegative").optional().nullable(),
    readinessDelay: duration("nonNegative").optional().nullable().meta({
      description: "default: the readiness probe's initialDelaySeconds, else 5s",
    }),
    terminationGracePeriod: duration("nonNegative").optional().nullable().meta({
      description: "default: the template's terminationGracePeriodSeconds, else 30s",
    }),
    startupCpuBurst: withDefault(
      strict({ cpu: quantity(), duration: duration("positive") }).transform((v) => ({
        milli: v.cpu * 1000,
        durationMs: v.duration,
      })),
      null,
    ),
    failureProbability: withDefault(
      number("probability"),
      SCENARIO_DEFAULTS.pod.failureProbability,
    ),
  });
  const usage = strict({
    cpu: optionalMapping(
      strict({
        base: withDefault(quantity(), SCENARIO_DEFAULTS.usage.cpuBaseMilli / 1000),
        perRps: withDefault(quantity(), SCENARIO_DEFAULTS.usage.cpuMilliPerRps / 1000),
        // null: no limit; absent: the template's.
        limit: quantity()
          .superRefine((v, ctx) => {
            if (v === 0) {
              ctx.addIssue({
                code: "custom",
                message: "must be greater than 0 (write null for no limit)",
              });
            }
          })
          .nullable()
          .optional(),
      }),
    ),
    memory: optionalMapping(
      strict({
        base: withDefault(quantity(), SCENARIO_DEFAULTS.usage.memoryBaseBytes),
        perRps: withDefault(quantity(), SCENARIO_DEFAULTS.usage.memoryBytesPerRps),
      }),
    ),
    capacityRps: withDefault(number("positive"), null),
    jitter: withDefault(number("probability"), SCENARIO_DEFAULTS.usage.jitter),
  });
  return strict(
    {
      target: ref,
      pod: optionalMapping(pod),
      usage: optionalMapping(usage),
      traffic: optionalList(traffic),
    },
    { item: true },
  ).transform((v): WorkloadModel => {
    const template = context.workloads.get(refKey(v.target))?.defaults;
    const p = v.pod;
    const d = SCENARIO_DEFAULTS.pod;
    const podModel: PodLifecycleModel = {
      schedulingDelayMs: p.schedulingDelay ?? d.schedulingDelayMs,
      containerStartDelayMs: p.containerStartDelay ?? d.containerStartDelayMs,
      readinessDelayMs: p.readinessDelay ?? template?.readinessDelayMs ?? d.readinessDelayMs,
      terminationGracePeriodMs:
        p.terminationGracePeriod ??
        template?.terminationGracePeriodMs ??
        d.terminationGracePeriodMs,
      startupCpuBurst: p.startupCpuBurst,
      failureProbability: p.failureProbability,
    };
    const u = v.usage;
    const usageModel: UsageModel = {
      cpu: {
        baseMilli: u.cpu.base * 1000,
        milliPerRps: u.cpu.perRps * 1000,
        limitMilli:
          u.cpu.limit === undefined
            ? (template?.cpuLimitMilli ?? null)
            : u.cpu.limit === null
              ? null
              : u.cpu.limit * 1000,
      },
      memory: { baseBytes: u.memory.base, bytesPerRps: u.memory.perRps },
      capacityRps: u.capacityRps,
      jitter: u.jitter,
    };
    return { target: v.target, pod: podModel, usage: usageModel, traffic: v.traffic };
  });
}

/** The model a workload has when the document lists none. */
export function defaultWorkloadModel(target: WorkloadRef, t: TemplateDefaults): WorkloadModel {
  const d = SCENARIO_DEFAULTS;
  return {
    target: { ...target },
    pod: {
      schedulingDelayMs: d.pod.schedulingDelayMs,
      containerStartDelayMs: d.pod.containerStartDelayMs,
      readinessDelayMs: t.readinessDelayMs,
      terminationGracePeriodMs: t.terminationGracePeriodMs,
      startupCpuBurst: null,
      failureProbability: d.pod.failureProbability,
    },
    usage: {
      cpu: {
        baseMilli: d.usage.cpuBaseMilli,
        milliPerRps: d.usage.cpuMilliPerRps,
        limitMilli: t.cpuLimitMilli,
      },
      memory: { baseBytes: d.usage.memoryBaseBytes, bytesPerRps: d.usage.memoryBytesPerRps },
      capacityRps: null,
      jitter: d.usage.jitter,
    },
    traffic: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Metric models

function metricModels({ ref, traffic }: Shared) {
  const rateWindow = withDefault(duration("positive"), SCENARIO_DEFAULTS.rateWindowMs);
  const pods = strict(
    { name: nonEmptyString(), workload: ref, rateWindow },
    { item: true },
  ).transform(
    (v): PodsMetricModel => ({
      name: v.name,
      namespace: v.workload.namespace,
      workload: v.workload,
      rateWindowMs: v.rateWindow,
    }),
  );
  const object = strict(
    {
      name: nonEmptyString(),
      workload: ref,
      rateWindow,
      describedObject: strict({
        apiVersion: withDefault(nonEmptyString(), ""),
        kind: nonEmptyString(),
        name: nonEmptyString(),
      }),
    },
    { item: true, known: ["name", "describedObject", "workload", "rateWindow"] },
  ).transform(
    (v): ObjectMetricModel => ({
      name: v.name,
      namespace: v.workload.namespace,
      describedObject: v.describedObject,
      workload: v.workload,
      rateWindowMs: v.rateWindow,
    }),
  );
  const selector = strict({
    matchLabels: z
      .unknown()
      .optional()
      .meta({ type: "object", additionalProperties: { type: "string" } }),
    matchExpressions: z.unknown().optional().meta({ type: "array" }),
  }).superRefine((s, ctx) => {
    // The shape first: the selector parser takes a typed LabelSelector.
    const shape = labelSelectorShapeIssue(s);
    if (shape) {
      ctx.addIssue({ code: "custom", message: shape.message, path: shape.path });
      return;
    }
    const parsed = selectorFromLabelSelector(s as LabelSelector);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
  });
  const external = strict(
    {
      name: nonEmptyString(),
      servedBy: ref,
      namespace: nonEmptyString().nullish().meta({ description: "default: servedBy's namespace" }),
      selector: withDefault(selector, null),
      arrivals: list(traffic),
      serviceRatePerPod: number("positive"),
      initialLength: withDefault(number("nonNegative"), 0),
    },
    {
      item: true,
      known: [
        "name",
        "namespace",
        "selector",
        "arrivals",
        "servedBy",
        "serviceRatePerPod",
        "initialLength",
      ],
    },
  ).transform(
    (v): ExternalMetricModel => ({
      name: v.name,
      namespace: v.namespace ?? v.servedBy.namespace,
      selector: v.selector as LabelSelector | null,
      arrivals: v.arrivals,
      servedBy: v.servedBy,
      serviceRatePerPod: v.serviceRatePerPod,
      initialLength: v.initialLength,
    }),
  );
  return strict({
    pods: optionalList(pods),
    object: optionalList(object),
    external: optionalList(external),
  });
}

// ---------------------------------------------------------------------------------------------
// Events

/** `name` (in default) or `namespace/name`. */
function hpaName(text: string): { namespace: string; name: string } {
  const [namespace, name] = text.includes("/") ? text.split("/", 2) : ["default", text];
  return { namespace: namespace!, name: name! };
}

/** A workload reference that was read (a refinement that runs despite other issues sees values
 * that were not). */
function resolvedRef(context: ScenarioContext, value: unknown): WorkloadRef | undefined {
  if (!isObj(value)) return undefined;
  const { namespace, kind, name } = value;
  if (typeof namespace !== "string" || typeof kind !== "string" || typeof name !== "string") {
    return undefined;
  }
  const ref = { namespace, kind: kind as WorkloadKind, name };
  return context.workloads.get(refKey(ref))?.ref;
}

/** Where a label selector is not of LabelSelector's JSON types, and why; null when it is. */
function labelSelectorShapeIssue(selector: {
  matchLabels?: unknown;
  matchExpressions?: unknown;
}): { path: (string | number)[]; message: string } | null {
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isObj(matchLabels)) return { path: ["matchLabels"], message: MSG.map };
    for (const [key, value] of Object.entries(matchLabels)) {
      if (typeof value !== "string")
        return { path: ["matchLabels", key], message: "must be a string" };
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) return { path: ["matchExpressions"], message: MSG.list };
    for (const [i, expr] of matchExpressions.entries()) {
      if (!isObj(expr)) return { path: ["matchExpressions", i], message: MSG.map };
      for (const field of ["key", "operator"]) {
        if (typeof expr[field] !== "string") {
          return { path: ["matchExpressions", i, field], message: "must be a string" };
        }
      }
      const values = expr.values;
      if (values !== undefined && values !== null) {
        if (!Array.isArray(values))
          return { path: ["matchExpressions", i, "values"], message: MSG.list };
        const at = values.findIndex((v) => typeof v !== "string");
        if (at >= 0)
          return { path: ["matchExpressions", i, "values", at], message: "must be a string" };
      }
    }
  }
  return null;
}

const METRIC_APIS = ["resource", "custom", "external"] as const;

function scenarioEvent(context: ScenarioContext, { ref, traffic }: Shared) {
  const at = duration("nonNegative");
  const patch = z.record(z.string(), z.unknown(), { error: orRequired(MSG.map) });
  const event = <S extends z.core.$ZodLooseShape>(shape: S) => strict(shape, { item: true });
  // Checked once the workload and the patch are read, whatever else is wrong in the event.
  const always = { when: () => true };
  const updateTemplate = event({
    at,
    type: z.literal("updateTemplate"),
    workload: ref,
    patch: patch.meta({
      description: "a strategic merge patch of the workload's spec.template, as kubectl patch",
    }),
  })
    // The patched template must still be a valid pod template.
    .superRefine((v, ctx) => {
      const workload = resolvedRef(context, v.workload);
      if (!workload || !isObj(v.patch)) return;
      for (const message of context.templatePatchProblems(workload, v.patch)) {
        ctx.addIssue({
          code: "custom",
          message,
          path: ["patch"],
          input: v.patch,
        });
      }
    }, always)
    .transform(
      (v): ScenarioEvent => ({
        atMs: v.at,
        type: "updateTemplate",
        workload: v.workload,
        patch: v.patch,
      }),
    );
  const killPods = event({
    at,
    type: z.literal("killPods"),
    workload: ref,
    count: withDefault(number("positiveInt"), 1),
  }).transform(
    (v): ScenarioEvent => ({ atMs: v.at, type: "killPods", workload: v.workload, count: v.count }),
  );
  const metricsOutage = event({
    at,
    type: z.literal("metricsOutage"),
    duration: duration("positive"),
    apis: withDefault(list(z.enum(METRIC_APIS, { error: unsupported(METRIC_APIS, null) })), [
      ...METRIC_APIS,
    ]),
  }).transform(
    (v): ScenarioEvent => ({
      atMs: v.at,
      type: "metricsOutage",
      durationMs: v.duration,
      apis: v.apis,
    }),
  );
  // The patched HPA must pass validation, as an update through the API would.
  const patchHpa = event({
    at,
    type: z.literal("patchHpa"),
    hpa: nonEmptyString().meta({ description: "name or namespace/name" }),
    patch: patch.meta({ description: "a JSON merge patch of the HPA in its autoscaling/v2 form" }),
  })
    .superRefine((v, ctx) => {
      if (typeof v.hpa !== "string" || v.hpa === "" || !isObj(v.patch)) return;
      const { namespace, name } = hpaName(v.hpa);
      const checked = context.hpaPatchProblems(namespace, name, v.patch);
      if ("unknown" in checked) {
        ctx.addIssue({ code: "custom", message: checked.unknown, path: ["hpa"], input: v.hpa });
      }
      for (const message of "problems" in checked ? checked.problems : []) {
        ctx.addIssue({
          code: "custom",
          message,
          path: ["patch"],
          input: v.patch,
        });
      }
    }, always)
    .transform(
      (v): ScenarioEvent => ({ atMs: v.at, type: "patchHpa", ...hpaName(v.hpa), patch: v.patch }),
    );
  const restartController = event({ at, type: z.literal("restartController") }).transform(
    (v): ScenarioEvent => ({ atMs: v.at, type: "restartController" }),
  );
  const setTraffic = event({
    at,
    type: z.literal("setTraffic"),
    workload: ref,
    traffic: list(traffic),
  }).transform(
    (v): ScenarioEvent => ({
      atMs: v.at,
      type: "setTraffic",
      workload: v.workload,
      traffic: v.traffic,
    }),
  );
  const scale = event({
    at,
    type: z.literal("scale"),
    workload: ref,
    replicas: number("nonNegativeInt"),
  }).transform(
    (v): ScenarioEvent => ({
      atMs: v.at,
      type: "scale",
      workload: v.workload,
      replicas: v.replicas,
    }),
  );
  const types: ScenarioEvent["type"][] = [
    "updateTemplate",
    "killPods",
    "metricsOutage",
    "patchHpa",
    "restartController",
    "setTraffic",
    "scale",
  ];
  return z.discriminatedUnion(
    "type",
    [updateTemplate, killPods, metricsOutage, patchHpa, restartController, setTraffic, scale],
    {
      error: (iss) => {
        if (iss.code !== "invalid_union") return MSG.map;
        const type = (iss.input as { type?: unknown } | undefined)?.type;
        return type === undefined || type === null
          ? MSG.required
          : `unknown event ${JSON.stringify(type)} (expected one of: ${types.join(", ")})`;
      },
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Controller flags and feature gates

/** Controller flags by upstream name, validated as kube-controller-manager parses them. */
const controllerFlags = z
  .record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean()], { error: "must be a string or a number" }),
    { error: orRequired(MSG.map) },
  )
  .superRefine(
    (flags, ctx) => {
      if (!isObj(flags)) return;
      const { values, paths } = flagValues(flags);
      const base = defaultControllerConfig(activeContext().kubernetesVersion);
      const applied = applyControllerFlags(base, values);
      if (applied.ok) return;
      for (const issue of applied.issues) {
        const flag = issue.flag.replace(/^--/, "");
        ctx.addIssue({ code: "custom", message: issue.message, path: [paths.get(flag) ?? flag] });
      }
    },
    { when: () => true },
  )
  .transform((flags) =>
    Object.fromEntries(
      Object.entries(flags).map(([key, value]) => [key.replace(/^--?/, ""), String(value)]),
    ),
  )
  .meta({
    description:
      'kube-controller-manager flags by name, e.g. "horizontal-pod-autoscaler-sync-period": 30s',
  });

/** Flag values by flag name (leading dashes dropped), and the key each was written as. A value
 * of a wrong type is reported by itself: it is left out, and the other flags still count. */
function flagValues(flags: Record<string, unknown>) {
  const paths = new Map<string, string>();
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(flags)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      continue;
    }
    const flag = key.replace(/^--?/, "");
    values[flag] = String(value);
    paths.set(flag, key);
  }
  return { values, paths };
}

function gateProblem(
  name: string,
  value: boolean,
  version: KubernetesVersion = activeContext().kubernetesVersion,
): string | undefined {
  try {
    FeatureGates.fromRecord({ [name]: value }, FeatureGates.defaults(version));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const featureGates = z
  .record(z.string(), z.boolean({ error: MSG.bool }), { error: orRequired(MSG.map) })
  .superRefine(
    (gates, ctx) => {
      if (!isObj(gates)) return;
      for (const [name, value] of Object.entries(gates)) {
        if (typeof value !== "boolean") continue;
        const problem = gateProblem(name, value);
        if (problem) {
          ctx.addIssue({ code: "custom", message: problem, path: [name], params: { at: "key" } });
        }
      }
    },
    { when: () => true },
  )
  .meta({ description: "feature gates by name, e.g. HPAScaleToZero: true" });

const kubernetesVersion = z
  .string({ error: orRequired(MSG.string) })
  .superRefine(
    (text, ctx) => {
      if (typeof text !== "string") return;
      try {
        parseKubernetesVersion(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    },
    { when: () => true },
  )
  .transform((text) => parseKubernetesVersion(text).version)
  .meta({
    description:
      'the Kubernetes version whose behaviour to reproduce: "1.34" to "1.37" (a patch such as "v1.37.2" is accepted); default the newest, 1.37',
  });

/** The Kubernetes version a Scenario document runs under: `override` (the flag), else its
 * `spec.kubernetesVersion`, else the default. A bad value counts as the default here (the
 * document's parse reports it). */
export function scenarioVersion(data: unknown, override?: KubernetesVersion): KubernetesVersion {
  if (override !== undefined) return override;
  const spec = isObj(data) && isObj(data.spec) ? data.spec : {};
  if (typeof spec.kubernetesVersion !== "string") return DEFAULT_KUBERNETES_VERSION;
  try {
    return parseKubernetesVersion(spec.kubernetesVersion).version;
  } catch {
    return DEFAULT_KUBERNETES_VERSION;
  }
}

/**
 * The feature gates a Scenario document sets, at its version: the controller's `feature-gates`
 * flag, then `spec.featureGates`. Read before the manifests (HPA validation depends on them);
 * entries with problems are left out (the document's parse reports them).
 */
export function scenarioGates(data: unknown, override?: KubernetesVersion): FeatureGates {
  const version = scenarioVersion(data, override);
  let gates = FeatureGates.defaults(version);
  const spec = isObj(data) && isObj(data.spec) ? data.spec : {};
  if (isObj(spec.controller)) {
    const applied = applyControllerFlags(
      defaultControllerConfig(version),
      flagValues(spec.controller).values,
    );
    if (applied.ok) gates = applied.config.featureGates;
  }
  for (const [name, value] of Object.entries(isObj(spec.featureGates) ? spec.featureGates : {})) {
    if (typeof value === "boolean" && gateProblem(name, value, version) === undefined) {
      gates = FeatureGates.fromRecord({ [name]: value }, gates);
    }
  }
  return gates;
}

// ---------------------------------------------------------------------------------------------
// The document

/** The Scenario document read: what `ScenarioSpec` holds, less what the manifests add (a model
 * for every workload, the feature gates' effect) and in the document's order. */
export interface ScenarioDocument {
  name: string | undefined;
  durationMs: number;
  seed: number;
  controllerFlags: Record<string, string>;
  cluster: ScenarioSpec["cluster"];
  workloads: WorkloadModel[];
  metrics: ScenarioSpec["metrics"];
  events: ScenarioEvent[];
}

// Building the schema costs far more than a parse, and zod has no per-parse context: the schema
// is built once, over a context that forwards to the one of the parse under way.
let active: ScenarioContext | undefined;
const forwarding: ScenarioContext = {
  get workloads() {
    return activeContext().workloads;
  },
  templatePatchProblems: (ref, patch) => activeContext().templatePatchProblems(ref, patch),
  hpaPatchProblems: (namespace, name, patch) =>
    activeContext().hpaPatchProblems(namespace, name, patch),
  readTrace: (file) => activeContext().readTrace(file),
  rangeQuery: (request) => activeContext().rangeQuery(request),
  get nowMs() {
    return activeContext().nowMs;
  },
  get kubernetesVersion() {
    return activeContext().kubernetesVersion;
  },
};

function activeContext(): ScenarioContext {
  if (!active) throw new Error("the Scenario schema is used outside readScenarioDocument");
  return active;
}

let built: ReturnType<typeof buildScenarioSchema> | undefined;

/** The schema of the Scenario document (for JSON Schema; parse with `readScenarioDocument`). */
export function scenarioSchema() {
  built ??= buildScenarioSchema(forwarding);
  return built;
}

/** Reads a Scenario document; `context` resolves what it refers to. */
export function readScenarioDocument(data: unknown, context: ScenarioContext) {
  const schema = scenarioSchema();
  const outer = active;
  active = context;
  try {
    return schema.safeParse(data);
  } finally {
    active = outer;
  }
}

function buildScenarioSchema(context: ScenarioContext) {
  const shared: Shared = {
    ref: workloadRef(context).meta({
      id: "WorkloadRef",
      description:
        'a workload among the manifests: "Kind/name", "namespace/Kind/name" or {kind, name, namespace}',
    }),
    traffic: trafficModel(context).meta({
      id: "TrafficModel",
      description: "requests per second over time; several models on one workload add up",
    }),
  };
  const spec = strict({
    duration: withDefault(duration("positive"), SCENARIO_DEFAULTS.durationMs),
    seed: withDefault(number("nonNegativeInt"), SCENARIO_DEFAULTS.seed),
    kubernetesVersion: withDefault(kubernetesVersion, DEFAULT_KUBERNETES_VERSION),
    controller: withDefault(controllerFlags, {}),
    featureGates: withDefault(featureGates, {}),
    cluster: optionalMapping(
      strict({
        capacityPods: withDefault(number("positiveInt"), null).meta({
          description: "pods beyond this many, cluster-wide, stay Pending; null: unlimited",
        }),
        metricsResolution: withDefault(duration("positive"), SCENARIO_DEFAULTS.metricsResolutionMs),
      }),
    ),
    workloads: optionalList(workloadModel(context, shared)).superRefine((models, ctx) => {
      const seen = new Set<string>();
      models.forEach((model, i) => {
        const key = refKey(model.target);
        if (seen.has(key)) {
          ctx.addIssue({
            code: "custom",
            message: `${refText(model.target)} already has a model above`,
            path: [i, "target"],
          });
        }
        seen.add(key);
      });
    }),
    metrics: optionalMapping(metricModels(shared)),
    events: optionalList(scenarioEvent(context, shared)),
  });
  return strict({
    apiVersion: z.literal(SCENARIO_API_VERSION, {
      error: unsupported([SCENARIO_API_VERSION]),
    }),
    kind: z.literal("Scenario", { error: unsupported(["Scenario"]) }),
    metadata: optionalMapping(
      strict({
        name: nonEmptyString().nullish(),
        labels: z.unknown().optional(),
        annotations: z.unknown().optional(),
      }),
    ),
    spec: optionalMapping(spec),
  }).transform(
    (v): ScenarioDocument => ({
      name: v.metadata.name ?? undefined,
      durationMs: v.spec.duration,
      seed: v.spec.seed,
      controllerFlags: v.spec.controller,
      cluster: {
        capacityPods: v.spec.cluster.capacityPods,
        metricsResolutionMs: v.spec.cluster.metricsResolution,
      },
      workloads: v.spec.workloads,
      metrics: v.spec.metrics,
      events: v.spec.events,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// JSON Schema

/**
 * The Scenario document as JSON Schema (draft-07, which editors read), for a scenario file as a
 * whole: editors check every YAML document of a file against it, so a document that is not a
 * Scenario (no `kind: Scenario`, no horizon.dev apiVersion) is left alone. The file's own
 * references (manifests, replay traces) are checked by the reader only.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(scenarioSchema(), {
    io: "input",
    target: "draft-07",
    reused: "inline",
  }) as Record<string, unknown>;
  const { $schema, definitions, ...document } = generated;
  return {
    $schema,
    title: "Horizon Scenario",
    description:
      "The Scenario document (horizon.dev/v1alpha1) of a scenario file for horizon simulate and horizon up; see docs/scenarios.md.",
    if: {
      anyOf: [
        { required: ["kind"], properties: { kind: { const: "Scenario" } } },
        {
          required: ["apiVersion"],
          properties: { apiVersion: { type: "string", pattern: "^horizon\\.dev/" } },
        },
      ],
    },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
    then: { $ref: "#/definitions/Scenario" },
    definitions: { Scenario: document, ...(definitions as object) },
  };
}

/** docs/scenario.schema.json's text (`npm run schema:scenario` writes it). */
export function renderScenarioJsonSchema(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Issues

/** A problem in the document: where (a path; `at: "key"` points at the field's name) and what. */
export interface SchemaIssue {
  path: PathSegment[];
  message: string;
  at: "key" | "value";
}

/** zod's issues as the reader reports them: one per unknown field, a union's issues from the
 * one alternative whose type the value has. */
export function issuesFromZod(issues: readonly z.core.$ZodIssue[], base: PathSegment[] = []) {
  const out: SchemaIssue[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSegment[])];
    if (issue.code === "unrecognized_keys") {
      // Before the issues of the mapping's own fields, which zod reports first.
      let first = out.findIndex((o) => path.every((seg, i) => o.path[i] === seg));
      if (first < 0) first = out.length;
      out.splice(
        first,
        0,
        ...issue.keys.map((key) => ({
          path: [...path, key],
          message: `unknown field "${key}" ${issue.message}`,
          at: "key" as const,
        })),
      );
    } else if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const matched = issue.errors.filter(
        (branch) =>
          !(
            branch.length === 1 &&
            branch[0]!.code === "invalid_type" &&
            branch[0].path.length === 0
          ),
      );
      if (matched.length === 1) out.push(...issuesFromZod(matched[0]!, path));
      else out.push({ path, message: issue.message, at: "value" });
    } else {
      const at = issue.code === "custom" && issue.params?.at === "key" ? "key" : "value";
      out.push({ path, message: issue.message, at });
    }
  }
  return out;
}
