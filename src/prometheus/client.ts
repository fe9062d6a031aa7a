// Prometheus' HTTP API (/api/v1/query, /query_range, /series) over the global fetch: the JSON
// API is small, so no client library. Failures are typed: `unreachable` (no answer, or not a
// Prometheus API), `bad_data` (Prometheus rejected the request, e.g. a PromQL parse error) and
// the other errorTypes Prometheus reports (`execution`, `timeout`, ...).

export interface PrometheusOptions {
  /** Base URL, e.g. http://127.0.0.1:9090 (a path prefix such as /prometheus is kept). */
  url: string;
  /** Sent as `Authorization: Bearer …` when set. */
  bearerToken?: string;
  /** Per-request deadline (default 30 s). */
  timeoutMs?: number;
}

export type Labels = Record<string, string>;

export interface Sample {
  /** Unix seconds. */
  t: number;
  value: number;
}

export type PrometheusFailure = {
  ok: false;
  /** "unreachable", or Prometheus' errorType ("bad_data", "execution", "timeout", ...). */
  kind: string;
  message: string;
};

export type PrometheusResult<T> = { ok: true; value: T } | PrometheusFailure;

type Params = Record<string, string | string[]>;

/** POSTs a form (so long queries fit) and returns `data` of a successful answer. */
async function call(
  options: PrometheusOptions,
  path: string,
  params: Params,
): Promise<PrometheusResult<unknown>> {
  const endpoint = `${options.url.replace(/\/+$/, "")}${path}`;
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
  }
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (options.bearerToken) headers.authorization = `Bearer ${options.bearerToken}`;
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    return { ok: false, kind: "unreachable", message: `${endpoint}: ${fetchMessage(error)}` };
  }
  const text = await response.text().catch(() => "");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      kind: "unreachable",
      message: `${endpoint}: HTTP ${response.status}, not a Prometheus API answer`,
    };
  }
  const answer = json as { status?: unknown; data?: unknown; errorType?: unknown; error?: unknown };
  if (answer.status === "success") return { ok: true, value: answer.data };
  if (answer.status === "error") {
    return {
      ok: false,
      kind: typeof answer.errorType === "string" ? answer.errorType : "error",
      message: typeof answer.error === "string" ? answer.error : `HTTP ${response.status}`,
    };
  }
  return {
    ok: false,
    kind: "unreachable",
    message: `${endpoint}: HTTP ${response.status}, not a Prometheus API answer`,
  };
}

function fetchMessage(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError") return "no answer before the deadline";
  const cause = e.cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "no such host";
  return cause?.message ?? e.message;
}

const malformed = (what: string): PrometheusFailure => ({
  ok: false,
  kind: "unreachable",
  message: `malformed ${what} answer`,
});

function sampleValue(v: unknown): number {
  // Prometheus sends values as strings ("1.5", "NaN", "+Inf").
  return typeof v === "string" ? Number(v.replace(/^\+?Inf$/, "Infinity")) : Number.NaN;
}

function isLabels(v: unknown): v is Labels {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A range query: one series per label set, samples in time order. */
export async function queryRange(
  options: PrometheusOptions,
  query: string,
  range: { start: number; end: number; step: number },
): Promise<PrometheusResult<{ metric: Labels; samples: Sample[] }[]>> {
  const answer = await call(options, "/api/v1/query_range", {
    query,
    start: String(range.start),
    end: String(range.end),
    step: String(range.step),
  });
  if (!answer.ok) return answer;
  const data = answer.value as { resultType?: unknown; result?: unknown };
  if (data?.resultType !== "matrix" || !Array.isArray(data.result)) return malformed("range query");
  const out: { metric: Labels; samples: Sample[] }[] = [];
  for (const series of data.result as { metric?: unknown; values?: unknown }[]) {
    if (!isLabels(series.metric) || !Array.isArray(series.values)) return malformed("range query");
    out.push({
      metric: series.metric,
      samples: (series.values as [number, string][]).map(([t, v]) => ({
        t,
        value: sampleValue(v),
      })),
    });
  }
  return { ok: true, value: out };
}

/** An instant query at `time` (Unix seconds; Prometheus' now when absent). A scalar result is one
 * sample with no labels. */
export async function queryInstant(
  options: PrometheusOptions,
  query: string,
  time?: number,
): Promise<PrometheusResult<{ metric: Labels; sample: Sample }[]>> {
  const answer = await call(options, "/api/v1/query", {
    query,
    ...(time !== undefined ? { time: String(time) } : {}),
  });
  if (!answer.ok) return answer;
  const data = answer.value as { resultType?: unknown; result?: unknown };
  if (data?.resultType === "scalar" && Array.isArray(data.result)) {
    const [t, v] = data.result as [number, string];
    return { ok: true, value: [{ metric: {}, sample: { t, value: sampleValue(v) } }] };
  }
  if (data?.resultType !== "vector" || !Array.isArray(data.result)) {
    return {
      ok: false,
      kind: "bad_data",
      message: `the query must return an instant vector, not ${String(data?.resultType)}`,
    };
  }
  const out: { metric: Labels; sample: Sample }[] = [];
  for (const item of data.result as { metric?: unknown; value?: unknown }[]) {
    if (!isLabels(item.metric) || !Array.isArray(item.value)) return malformed("instant query");
    const [t, v] = item.value as [number, string];
    out.push({ metric: item.metric, sample: { t, value: sampleValue(v) } });
  }
  return { ok: true, value: out };
}

/** The label sets of the series matching any of `match` (between start and end when given). */
export async function series(
  options: PrometheusOptions,
  match: string[],
  range?: { start: number; end: number },
): Promise<PrometheusResult<Labels[]>> {
  const answer = await call(options, "/api/v1/series", {
    "match[]": match,
    ...(range ? { start: String(range.start), end: String(range.end) } : {}),
  });
  if (!answer.ok) return answer;
  if (!Array.isArray(answer.value) || !answer.value.every(isLabels)) return malformed("series");
  return { ok: true, value: answer.value };
}
