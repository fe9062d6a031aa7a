// One HPA: replicas (current, desired, the min–max band), each metric against its target,
// pods and ready pods and (where known) the offered load over the recorded syncs; the
// conditions with their messages; the Events; and the timeline of syncs, each opening its
// decision explained in words by src/explain (the lines `horizon explain` prints).
import { useContext, useEffect, useMemo, useState } from "preact/hooks";
import { replicaChange } from "../../explain/format.js";
import { conditionState } from "../conditions.js";
import type { HpaDetail, StreamEvents, SyncDetail, SyncEntry, SyncSample } from "../types.js";
import { api } from "./api.js";
import { type ChartSeries, RunStart, TimeChart } from "./charts.js";
import { ConditionChips } from "./overview.js";
import { Link } from "./router.js";
import { metricSeries, plottedDesired } from "./series.js";
import { ago, runTime, utcText } from "./time.js";
import { MeasuresTable, TrajectoryChart, WhatIfPanel } from "./whatif.js";

export interface HpaViewProps {
  namespace: string;
  name: string;
  now: number;
  /** Registers for this HPA's new syncs; returns the unsubscribe. */
  onSync: (key: string, listener: (data: StreamEvents["sync"]) => void) => () => void;
  /** The row as the overview last received it (live conditions and status). */
  summary: HpaDetail["summary"] | undefined;
}

const seconds = (samples: SyncSample[]) => samples.map((s) => s.at / 1000);

function last<T>(items: T[]): T | undefined {
  return items[items.length - 1];
}

function replicasChart(samples: SyncSample[]) {
  const series: ChartSeries[] = [
    { label: "current", color: "--c-current", stepped: true },
    { label: "desired", color: "--c-desired", stepped: true, dash: true },
    { label: "max", color: "--c-bound", stepped: true },
    { label: "min", color: "--c-bound", stepped: true },
  ];
  const data: [number[], ...(number | null)[][]] = [
    seconds(samples),
    samples.map((s) => s.currentReplicas),
    samples.map(plottedDesired),
    samples.map((s) => s.maxReplicas),
    samples.map((s) => s.minReplicas),
  ];
  const s = last(samples);
  const summary = s
    ? `now ${s.currentReplicas} → desired ${s.desiredReplicas} (min ${s.minReplicas}, max ${s.maxReplicas})`
    : "no syncs yet";
  return { series, data, summary };
}

function metricCharts(samples: SyncSample[]) {
  return metricSeries(samples).map(({ name, unit, current, target }) => {
    const data: [number[], ...(number | null)[][]] = [seconds(samples), current, target];
    const latest = samples[samples.length - 1]?.metrics.find((m) => m.name === name);
    const summary = latest
      ? `current ${latest.current ?? "unknown"}${unit ? ` ${unit}` : ""}, target ${latest.target ?? "unknown"}`
      : "";
    return {
      name,
      series: [
        { label: "current", color: "--c-current" },
        { label: "target", color: "--c-target", dash: true },
      ] as ChartSeries[],
      data,
      summary,
    };
  });
}

function podsChart(samples: SyncSample[]) {
  if (!samples.some((s) => s.pods !== null)) return null;
  const data: [number[], ...(number | null)[][]] = [
    seconds(samples),
    samples.map((s) => s.pods),
    samples.map((s) => s.readyPods),
    samples.map((s) => (s.pods === null || s.readyPods === null ? null : s.pods - s.readyPods)),
  ];
  const s = last(samples);
  return {
    series: [
      { label: "pods", color: "--c-current", stepped: true },
      { label: "ready", color: "--c-ok", stepped: true },
      { label: "not ready", color: "--c-warn", stepped: true },
    ] as ChartSeries[],
    data,
    summary: s?.pods != null ? `${s.pods} pods, ${s.readyPods ?? 0} ready` : "",
  };
}

/** The load offered to the scale target, where Horizon knows it (simulations, `horizon up`). */
function loadChart(samples: SyncSample[]) {
  if (!samples.some((s) => s.loadRps !== null)) return null;
  const data: [number[], ...(number | null)[][]] = [
    seconds(samples),
    samples.map((s) => s.loadRps),
  ];
  const rps = last(samples)?.loadRps;
  return {
    series: [{ label: "requests/s", color: "--c-target", stepped: true }] as ChartSeries[],
    data,
    summary: rps == null ? "" : `now ${Math.round(rps * 10) / 10} requests/s`,
  };
}

function SyncItem(props: { namespace: string; name: string; entry: SyncEntry }) {
  const [open, setOpen] = useState(false);
  const [detail, setDetail] = useState<SyncDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { entry } = props;
  const start = useContext(RunStart);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && !detail) {
      api
        .sync(props.namespace, props.name, entry.seq)
        .then(setDetail, (e: Error) => setError(e.message));
    }
  };
  const id = `sync-${entry.seq}`;
  const change = replicaChange(entry);
  return (
    <li class={`sync ${entry.outcome}`}>
      <button
        type="button"
        class="sync-toggle"
        aria-expanded={open}
        aria-controls={id}
        onClick={toggle}
      >
        <span class="when" title={utcText(entry.at)}>
          {runTime(entry.at, start)}
        </span>
        <span class="change">{change}</span>
        <span class={`outcome ${entry.outcome}`}>{entry.outcome}</span>
        <span class="reason clip">{entry.reason}</span>
      </button>
      {open && (
        <div id={id} class="explanation">
          {error && <p class="bad">{error}</p>}
          {!detail && !error && <p class="muted">loading…</p>}
          {detail && (
            <ul>
              {detail.text.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </li>
  );
}

/** The Syncs list's filters: what a reader looks for in thousands of syncs. */
const SYNC_FILTERS = {
  all: { label: "All", keep: (_: SyncEntry) => true },
  scaled: { label: "Scaled", keep: (e: SyncEntry) => e.outcome === "scaled" },
  failed: { label: "Failed", keep: (e: SyncEntry) => e.outcome === "failed" },
  limited: { label: "Limited", keep: (e: SyncEntry) => e.limited },
} as const;
type SyncFilter = keyof typeof SYNC_FILTERS;

/** Syncs shown at once; older ones are on the next pages. */
export const SYNCS_PER_PAGE = 50;

/** The recorded syncs, newest first, filtered and a page at a time. */
function SyncList(props: { namespace: string; name: string; syncs: SyncEntry[] }) {
  const [filter, setFilter] = useState<SyncFilter>("all");
  const [page, setPage] = useState(0);
  const kept = useMemo(
    () => props.syncs.filter(SYNC_FILTERS[filter].keep).reverse(),
    [props.syncs, filter],
  );
  const pages = Math.max(1, Math.ceil(kept.length / SYNCS_PER_PAGE));
  const shown = Math.min(page, pages - 1);
  const first = shown * SYNCS_PER_PAGE;
  const choose = (next: SyncFilter) => {
    setFilter(next);
    setPage(0);
  };
  return (
    <div class="sync-list">
      <fieldset class="sync-filters">
        <legend class="small">Show</legend>
        {(Object.keys(SYNC_FILTERS) as SyncFilter[]).map((name) => (
          <button
            key={name}
            type="button"
            aria-pressed={filter === name}
            onClick={() => choose(name)}
          >
            {SYNC_FILTERS[name].label} ({props.syncs.filter(SYNC_FILTERS[name].keep).length})
          </button>
        ))}
      </fieldset>
      {kept.length === 0 ? (
        <p class="muted">No {filter} syncs recorded.</p>
      ) : (
        <ol class="timeline" reversed start={kept.length - first}>
          {kept.slice(first, first + SYNCS_PER_PAGE).map((entry) => (
            <SyncItem key={entry.seq} namespace={props.namespace} name={props.name} entry={entry} />
          ))}
        </ol>
      )}
      {pages > 1 && (
        <nav class="sync-pages" aria-label="Sync pages">
          <button type="button" disabled={shown === 0} onClick={() => setPage(shown - 1)}>
            ← newer
          </button>
          <span class="small">
            {first + 1}–{Math.min(first + SYNCS_PER_PAGE, kept.length)} of {kept.length} (page{" "}
            {shown + 1} of {pages})
          </span>
          <button type="button" disabled={shown === pages - 1} onClick={() => setPage(shown + 1)}>
            older →
          </button>
        </nav>
      )}
    </div>
  );
}

export function HpaView(props: HpaViewProps) {
  const [detail, setDetail] = useState<HpaDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const start = useContext(RunStart);
  const key = `${props.namespace}/${props.name}`;

  useEffect(() => {
    let live = true;
    setDetail(null);
    setError(null);
    api.detail(props.namespace, props.name).then(
      (d) => live && setDetail(d),
      (e: Error) => live && setError(e.message),
    );
    const off = props.onSync(key, ({ sample, entry, events }) => {
      setDetail((d) => {
        if (!d || d.syncs.some((s) => s.seq === entry.seq)) return d;
        const cap = d.capacity;
        return {
          ...d,
          samples: [...d.samples, sample].slice(-cap),
          syncs: [...d.syncs, entry].slice(-cap),
          events: [...d.events, ...events.map((e) => ({ ...e, at: sample.at }))].slice(-100),
        };
      });
    });
    return () => {
      live = false;
      off();
    };
  }, [key]);

  const samples = detail?.samples ?? [];
  const replicas = useMemo(() => replicasChart(samples), [samples]);
  const metrics = useMemo(() => metricCharts(samples), [samples]);
  const pods = useMemo(() => podsChart(samples), [samples]);
  const load = useMemo(() => loadChart(samples), [samples]);

  if (error) {
    return (
      <section>
        <p>
          <Link href="/">← all HPAs</Link>
        </p>
        <p class="bad">{error}</p>
      </section>
    );
  }
  if (!detail) return <p class="muted">loading {key}…</p>;
  const summary = props.summary ?? detail.summary;
  return (
    <section aria-labelledby="hpa-title">
      <p>
        <Link href="/">← all HPAs</Link>
      </p>
      <div class="hpa-head">
        <h2 id="hpa-title">
          {summary.namespace}/{summary.name}
        </h2>
        <dl class="facts">
          <dt>Reference</dt>
          <dd>{summary.reference || "–"}</dd>
          <dt>Targets</dt>
          <dd>{summary.targets}</dd>
          <dt>Min–max</dt>
          <dd>
            {summary.minReplicas}–{summary.maxReplicas}
          </dd>
          <dt>Replicas</dt>
          <dd class="replicas">
            {summary.currentReplicas ?? "–"} → {summary.desiredReplicas ?? "–"}
          </dd>
          <dt>Last scale</dt>
          <dd>
            {summary.lastScaleTime ? ago(Date.parse(summary.lastScaleTime), props.now) : "never"}
          </dd>
          <dt>Conditions</dt>
          <dd>
            <ConditionChips conditions={summary.conditions} />
          </dd>
        </dl>
      </div>

      <div class="charts">
        <TimeChart title="Replicas" {...replicas} band={[2, 3]} />
        {metrics.map((m) => (
          <TimeChart
            key={m.name}
            title={m.name}
            series={m.series}
            data={m.data}
            summary={m.summary}
          />
        ))}
        {pods && <TimeChart title="Pods" {...pods} height={160} />}
        {load && <TimeChart title="Load" {...load} height={160} />}
      </div>

      {detail.compare && (
        <TrajectoryChart
          runs={[{ label: "this run", samples, measures: detail.measures }, detail.compare]}
          title="Desired replicas: both runs"
        />
      )}
      <MeasuresTable
        runs={[
          { label: detail.compare ? "this run" : "measures", samples, measures: detail.measures },
          ...(detail.compare ? [detail.compare] : []),
        ]}
      />
      {detail.whatIf && <WhatIfPanel detail={detail} />}

      <h3>Conditions</h3>
      {summary.conditions.length === 0 ? (
        <p class="muted">Not reported yet.</p>
      ) : (
        <ul class="conditions">
          {summary.conditions.map((c) => (
            <li key={c.type}>
              <span class={`chip ${conditionState(c.type, c.status, c.reason)}`}>
                {c.type} {c.status}
              </span>{" "}
              <strong>{c.reason}</strong> {c.message}
            </li>
          ))}
        </ul>
      )}

      <h3>Syncs</h3>
      <p class="muted small">
        The last {detail.capacity} syncs are kept; open one to read its decision.
      </p>
      <SyncList namespace={props.namespace} name={props.name} syncs={detail.syncs} />

      <h3>Events</h3>
      {detail.events.length === 0 ? (
        <p class="muted">No events in the recorded syncs.</p>
      ) : (
        <table class="events">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col">Reason</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {[...detail.events].reverse().map((e, i) => (
              <tr key={i}>
                <td class="small" title={utcText(e.at)}>
                  {runTime(e.at, start)}
                </td>
                <td class={e.type === "Warning" ? "warn" : ""}>{e.type}</td>
                <td>{e.reason}</td>
                <td>{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
