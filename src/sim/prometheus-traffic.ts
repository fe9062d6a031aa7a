// `type: prometheus` traffic models: their range queries are fetched before the scenario is
// read (the reader is synchronous), and `--from-prometheus URL` writes one such model, with the
// common request-rate query, on every workload of the scenario.

import { parseDuration } from "../api/duration.js";
import { isRecord as isObj } from "../api/json.js";
import { queryRange } from "../prometheus/client.js";
import {
  MAX_RANGE_POINTS,
  type RangeQueryRequest,
  SCENARIO_DEFAULTS,
  type ScenarioContext,
  WORKLOAD_KINDS,
} from "./scenario-schema.js";
import type { WorkloadRef } from "./scenario-types.js";
import { resolveKind } from "./set-path.js";

export type RangeQueryResult = ReturnType<ScenarioContext["rangeQuery"]>;

/** Range query results by request (`rangeQueryKey`), and the requests not fetched yet. */
export class RangeQueries {
  readonly results = new Map<string, RangeQueryResult>();
  readonly pending = new Map<string, RangeQueryRequest>();

  lookup(request: RangeQueryRequest): RangeQueryResult {
    const key = JSON.stringify(request);
    const found = this.results.get(key);
    if (found) return found;
    this.pending.set(key, request);
    return { ok: "pending" };
  }

  /** Fetches every pending request (in parallel). */
  async fetchPending(): Promise<void> {
    const pending = [...this.pending];
    this.pending.clear();
    await Promise.all(
      pending.map(async ([key, request]) => {
        this.results.set(key, await fetchRange(request));
      }),
    );
  }
}

/** One model's points: the series summed per sample time, times from `start` on. */
async function fetchRange(request: RangeQueryRequest): Promise<RangeQueryResult> {
  const answer = await queryRange({ url: request.url }, request.query, request);
  if (!answer.ok) {
    return answer.kind === "unreachable"
      ? {
          ok: false,
          problems: [{ field: "url", message: `cannot query Prometheus: ${answer.message}` }],
        }
      : {
          ok: false,
          problems: [
            { field: "query", message: `Prometheus rejected the query: ${answer.message}` },
          ],
        };
  }
  const sums = new Map<number, number>();
  for (const series of answer.value) {
    for (const sample of series.samples) {
      // NaN (0/0) and infinities are gaps, not traffic.
      if (!Number.isFinite(sample.value)) continue;
      sums.set(sample.t, (sums.get(sample.t) ?? 0) + sample.value);
    }
  }
  if (sums.size === 0) {
    return {
      ok: false,
      problems: [
        {
          field: "query",
          message: `the query returned no samples between start and end (${new Date(request.start * 1000).toISOString()} to ${new Date(request.end * 1000).toISOString()})`,
        },
      ],
    };
  }
  const points = [...sums]
    .sort((a, b) => a[0] - b[0])
    .map(([t, rps]) => ({ atMs: Math.round((t - request.start) * 1000), rps: Math.max(rps, 0) }));
  return { ok: true, points };
}

/** The request rate of a workload's pods, as `--from-prometheus` queries it: the pods are told
 * apart by the names their controller gives them. */
export function commonQuery(ref: WorkloadRef): string {
  const suffix =
    ref.kind === "Deployment"
      ? "-[a-z0-9]+-[a-z0-9]+"
      : ref.kind === "StatefulSet"
        ? "-[0-9]+"
        : "-[a-z0-9]+";
  const name = ref.name.replace(/[.]/g, "\\\\.");
  return `sum(rate(http_requests_total{namespace="${ref.namespace}",pod=~"${name}${suffix}"}[2m]))`;
}

/**
 * `--from-prometheus URL`: every workload's traffic becomes the common query over the scenario's
 * duration (or `from.durationMs`) up to now, with the finest step Prometheus allows (at least
 * 15 s). `scenario` is the
 * raw Scenario document (changed in place); `workloads` the manifests' workloads.
 */
export function applyFromPrometheus(
  scenario: Record<string, unknown>,
  workloads: readonly WorkloadRef[],
  from: { url: string; durationMs?: number },
): void {
  if (!isObj(scenario.spec)) scenario.spec = {};
  const spec = scenario.spec as Record<string, unknown>;
  const raw = spec.duration;
  const parsed = parseDuration(String(raw ?? ""));
  const durationMs =
    from.durationMs ??
    (raw !== undefined && raw !== null && parsed.ok && parsed.ms > 0
      ? parsed.ms
      : SCENARIO_DEFAULTS.durationMs);
  const url = from.url;
  const stepS = Math.max(15, Math.ceil(durationMs / 1000 / MAX_RANGE_POINTS));
  const model = (ref: WorkloadRef) => ({
    type: "prometheus",
    url,
    query: commonQuery(ref),
    start: `now-${durationMs / 1000}s`,
    end: "now",
    step: `${stepS}s`,
  });
  if (!Array.isArray(spec.workloads)) spec.workloads = [];
  const entries = spec.workloads as unknown[];
  const covered = new Set<string>();
  for (const entry of entries) {
    if (!isObj(entry)) continue;
    const ref = rawRef(entry.target);
    if (!ref) continue;
    covered.add(key(ref));
    entry.traffic = [model(ref)];
  }
  for (const ref of workloads) {
    if (covered.has(key(ref))) continue;
    entries.push({ target: `${ref.namespace}/${ref.kind}/${ref.name}`, traffic: [model(ref)] });
  }
}

const key = (ref: WorkloadRef) => `${ref.namespace}/${ref.kind}/${ref.name}`;

/** A workload reference as written (`Kind/name`, `ns/Kind/name`, `{kind, name, namespace}`). */
function rawRef(target: unknown): WorkloadRef | null {
  let parts: { kind: unknown; name: unknown; namespace: unknown };
  if (typeof target === "string") {
    const words = target.split("/");
    if (words.length < 2 || words.length > 3) return null;
    const namespace = words.length === 3 ? words.shift() : "default";
    parts = { kind: words[0], name: words[1], namespace };
  } else if (isObj(target)) {
    parts = { kind: target.kind, name: target.name, namespace: target.namespace ?? "default" };
  } else return null;
  const kind = typeof parts.kind === "string" ? resolveKind(parts.kind) : undefined;
  if (!kind || !(WORKLOAD_KINDS as readonly string[]).includes(kind)) return null;
  if (typeof parts.name !== "string" || typeof parts.namespace !== "string") return null;
  return { kind: kind as WorkloadRef["kind"], name: parts.name, namespace: parts.namespace };
}
