// The static report (`horizon simulate --report`): one page over the run's report document
// (src/sim/report.ts), read from the page itself, drawn with the dashboard's components: the
// run(s) and their controller flags and scenario events, the summary (and deltas), and per HPA
// the charts (load, replicas, each metric against its target, CPU, workload metrics) with
// scaling actions and scenario events marked, the conditions and events over time and listed,
// and every scaling action's decision explained (src/explain, as the dashboard shows a sync)
// with its trace.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { withUnit } from "../../explain/format.js";
import type {
  ReportDocument,
  ReportHpa,
  ReportPoints,
  ReportRun,
  ReportTable,
} from "../../sim/report.js";
import { conditionState } from "../conditions.js";
import { type ChartMark, type ChartSeries, elapsedText, TimeChart } from "./charts.js";

/** An id for an in-page link, as the report always named them. */
export function anchor(prefix: string, text: string): string {
  return `${prefix}-${text.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

export function actionId(hpa: string, run: number, index: number): string {
  return anchor(`action-${run}`, `${hpa}-${index}`);
}

const PALETTE = ["#00798c", "#d1495b", "#edae49", "#66a182", "#2e4057", "#8d96a3", "#9b5de5"];

interface Line {
  label: string;
  color: string;
  points: ReportPoints | undefined;
  /** The run's duration: a step line holds its last value until then. */
  end: number;
  dash: boolean;
}

/** Lines of different sample times on one x axis: each holds its last value (steps). */
function alignLines(lines: Line[], duration: number): [number[], ...(number | null)[][]] {
  const times = new Set<number>([0, duration]);
  for (const line of lines) for (const [t] of line.points ?? []) times.add(t);
  const xs = [...times].sort((a, b) => a - b);
  const columns = lines.map((line) => {
    const points = line.points ?? [];
    const out: (number | null)[] = [];
    let i = 0;
    let value: number | null = null;
    for (const t of xs) {
      while (i < points.length && points[i]![0] <= t) value = points[i++]![1];
      out.push(t > line.end ? null : value);
    }
    return out;
  });
  return [xs, ...columns];
}

function lastValue(points: ReportPoints | undefined): string {
  const v = points?.[points.length - 1]?.[1];
  return v === undefined ? "–" : String(Math.round(v * 100) / 100);
}

function ReportChart(props: {
  title: string;
  lines: Line[];
  duration: number;
  marks: ChartMark[];
}) {
  const lines = props.lines.filter((l) => (l.points?.length ?? 0) > 0);
  if (lines.length === 0) return null;
  const series: ChartSeries[] = lines.map((l) => ({
    label: l.label,
    color: l.color,
    stepped: true,
    ...(l.dash ? { dash: true } : {}),
  }));
  return (
    <TimeChart
      title={props.title}
      series={series}
      data={alignLines(lines, props.duration)}
      elapsed
      marks={props.marks}
      summary={`at the end: ${lines.map((l) => `${l.label} ${lastValue(l.points)}`).join(", ")}`}
    />
  );
}

function RunHeader({ run, compare }: { run: ReportRun; compare: boolean }) {
  const s = run.start;
  const flags = Object.keys(s.controllerFlags).sort();
  const wallMs = run.summary.wallMs;
  return (
    <div>
      <p>
        {compare && <strong>{run.label}: </strong>}scenario <strong>{s.scenario}</strong>, seed{" "}
        {s.seed}, {elapsedText(s.durationSeconds)} from {s.startTime}
        {wallMs !== undefined && `, simulated in ${Math.round(wallMs) / 1000}s`}.
      </p>
      <details>
        <summary>Controller flags</summary>
        <table class="flags">
          <tbody>
            {flags.map((k) => (
              <tr key={k}>
                <td>{k}</td>
                <td>{s.controllerFlags[k]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <details open={run.scenarioEvents.length > 0}>
        <summary>{run.scenarioEvents.length} scenario events</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">time</th>
              <th scope="col">event</th>
              <th scope="col">detail</th>
            </tr>
          </thead>
          <tbody>
            {run.scenarioEvents.map((e, i) => (
              <tr key={i}>
                <td>{elapsedText(e.t)}</td>
                <td>{e.event}</td>
                <td>{e.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {run.scenarioEventsDropped > 0 && (
          <p class="muted">{run.scenarioEventsDropped} more not listed.</p>
        )}
      </details>
    </div>
  );
}

function SummaryTable({ table }: { table: ReportTable }) {
  return (
    <>
      {table.hpa && (
        <h3>
          <a href={`#${anchor("hpa", table.hpa)}`}>{table.hpa}</a>
        </h3>
      )}
      <div class="wide">
        <table class="summary">
          <thead>
            <tr>
              {table.head.map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.head}>
                <th scope="row">
                  {row.hpa ? <a href={`#${anchor("hpa", row.hpa)}`}>{row.head}</a> : row.head}
                </th>
                {row.cells.map((c, i) => (
                  <td class="num" key={i}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

interface BandRow {
  label: string;
  segments: { from: number; to: number; state: string; title: string }[];
  ticks: { t: number; kind: string; title: string }[];
}

/** Each condition's status over time as coloured bands, and a band of event ticks. */
function ConditionBands(props: { title: string; rows: BandRow[]; duration: number }) {
  const width = 960;
  const band = 22;
  const left = 170;
  const top = 8;
  const height = top + props.rows.length * band + 24;
  const duration = Math.max(props.duration, 1);
  const plot = width - left - 20;
  const x = (t: number) => left + (Math.min(Math.max(t, 0), duration) / duration) * plot;
  const ticks: number[] = [];
  const step = [60, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400].find(
    (s) => duration / s <= 10,
  );
  for (let t = 0; t <= duration; t += step ?? duration / 10) ticks.push(t);
  return (
    <figure class="chart">
      <figcaption>
        <strong>Events and condition changes</strong>
      </figcaption>
      <svg
        class="bands"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={props.title}
        preserveAspectRatio="xMinYMin meet"
      >
        <title>{props.title}</title>
        {props.rows.map((row, i) => {
          const y = top + i * band;
          return (
            <g key={i}>
              <text class="rowlab" x={left - 6} y={y + band / 2}>
                {row.label}
              </text>
              <rect class="frame" x={left} y={y + 3} width={plot} height={band - 6} />
              {row.segments.map((s, k) => (
                <rect
                  key={k}
                  class={`seg ${s.state}`}
                  x={x(s.from)}
                  y={y + 4}
                  width={Math.max(x(s.to) - x(s.from), 0.5)}
                  height={band - 8}
                >
                  <title>{s.title}</title>
                </rect>
              ))}
              {row.ticks.map((tk, k) => (
                <line
                  key={k}
                  class={`tick ${tk.kind}`}
                  x1={x(tk.t)}
                  x2={x(tk.t)}
                  y1={y + 3}
                  y2={y + band - 3}
                >
                  <title>{tk.title}</title>
                </line>
              ))}
            </g>
          );
        })}
        {ticks.map((t) => (
          <text key={t} class="xlab" x={x(t)} y={height - 6}>
            {elapsedText(t)}
          </text>
        ))}
      </svg>
    </figure>
  );
}

function Columns({ cols }: { cols: ComponentChildren[] }) {
  if (cols.length === 1) return <>{cols[0]}</>;
  return (
    <div class="cols">
      {cols.map((c, i) => (
        <div key={i}>{c}</div>
      ))}
    </div>
  );
}

function setAll(open: boolean) {
  for (const d of document.querySelectorAll<HTMLDetailsElement>("details.trace")) d.open = open;
}

function HpaReport({ name, doc }: { name: string; doc: ReportDocument }) {
  const runs = doc.runs;
  const compare = runs.length > 1;
  const datas: (ReportHpa | undefined)[] = runs.map((r) => r.hpas[name]);
  const first = datas.find((d) => d !== undefined);
  const target = first?.target ?? null;
  const label = (run: ReportRun, text: string) => (compare ? `${run.label}: ${text}` : text);
  const workloadOf = (i: number) => (target ? runs[i]!.workloads[target] : undefined);
  const duration = doc.durationSeconds;

  const marks: ChartMark[] = [];
  runs.forEach((run, i) => {
    const row = (i === 0 ? 0 : 1) as 0 | 1;
    for (const e of run.scenarioEvents) marks.push({ x: e.t, kind: "event", row });
    for (const a of datas[i]?.actions ?? [])
      marks.push({ x: a.t, kind: a.to > a.from ? "up" : "down", row });
  });
  const lines = (
    build: (run: ReportRun, i: number) => { text: string; color: string; points?: ReportPoints }[],
  ): Line[] =>
    runs.flatMap((run, i) =>
      build(run, i).map((l) => ({
        label: label(run, l.text),
        color: l.color,
        points: l.points,
        end: run.start.durationSeconds,
        dash: i > 0,
      })),
    );

  const metricIndexes = [
    ...new Set(datas.flatMap((d) => d?.metrics.map((m) => m.index) ?? [])),
  ].sort((a, b) => a - b);
  const sampleNames = [
    ...new Set(runs.flatMap((_, i) => Object.keys(workloadOf(i)?.sampleMetrics ?? {}))),
  ].sort();

  const bandRows: BandRow[] = [];
  runs.forEach((run, i) => {
    const d = datas[i];
    const end = run.start.durationSeconds;
    const types: string[] = [];
    for (const c of d?.conditions ?? []) if (!types.includes(c.type)) types.push(c.type);
    for (const type of types) {
      const changes = d!.conditions.filter((c) => c.type === type);
      bandRows.push({
        label: label(run, type),
        segments: changes.map((c, k) => ({
          from: c.t,
          to: changes[k + 1]?.t ?? end,
          state: conditionState(type, c.status, c.reason),
          title: `${type}=${c.status} ${c.reason} from ${elapsedText(c.t)}: ${c.message}`,
        })),
        ticks: [],
      });
    }
    bandRows.push({
      label: label(run, "events"),
      segments: [],
      ticks: [
        ...(d?.events ?? []).map((e) => ({
          t: e.t,
          kind: e.type,
          title: `${elapsedText(e.t)} ${e.type} ${e.reason}: ${e.message}${e.count > 1 ? ` (×${e.count} until ${elapsedText(e.lastT)})` : ""}`,
        })),
        ...run.scenarioEvents.map((e) => ({
          t: e.t,
          kind: "scenario",
          title: `${elapsedText(e.t)} scenario ${e.event}: ${e.detail}`,
        })),
      ],
    });
  });

  const listed = runs.map((run, i) => {
    const d = datas[i];
    const entries = [
      ...(d?.events ?? []).map((e) => ({
        t: e.t,
        kind: "event",
        type: e.type,
        reason: e.reason,
        message: e.message,
        more: e.count > 1 ? `(×${e.count}, last at ${elapsedText(e.lastT)})` : "",
      })),
      ...(d?.conditions ?? []).map((c) => ({
        t: c.t,
        kind: "condition",
        type: `${c.type}=${c.status}`,
        reason: c.reason,
        message: c.message,
        more: "",
      })),
    ].sort((a, b) => a.t - b.t);
    return (
      <>
        {compare && <h4>{run.label}</h4>}
        <details>
          <summary>{entries.length} events and condition changes</summary>
          <div class="wide">
            <table class="listed">
              <thead>
                <tr>
                  <th scope="col">time</th>
                  <th scope="col">kind</th>
                  <th scope="col">type</th>
                  <th scope="col">reason</th>
                  <th scope="col">message</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e, k) => (
                  <tr key={k}>
                    <td>{elapsedText(e.t)}</td>
                    <td>{e.kind}</td>
                    <td>{e.type}</td>
                    <td>{e.reason}</td>
                    <td>
                      {e.message} {e.more && <span class="muted">{e.more}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
        {d && d.eventsDropped + d.conditionsDropped > 0 && (
          <p class="muted">
            {d.eventsDropped} more events and {d.conditionsDropped} more condition changes not
            listed.
          </p>
        )}
      </>
    );
  });

  const actions = runs.map((run, i) => {
    const d = datas[i];
    return (
      <>
        {compare && <h4>{run.label}</h4>}
        {(!d || d.actions.length === 0) && <p class="muted">No scaling action.</p>}
        {d?.actions.map((a, k) => (
          <details class="trace" id={actionId(name, i, k)} key={k}>
            <summary>
              {elapsedText(a.t)}: {a.from} → {a.to} — {a.reason || "rescale"}
              {a.limit && <span class="muted"> [{a.limit}]</span>}
            </summary>
            <ul class="explanation">
              {a.explanation.map((line, j) => (
                <li key={j}>{line}</li>
              ))}
            </ul>
            <pre>{JSON.stringify(a.trace, null, 2)}</pre>
          </details>
        ))}
      </>
    );
  });

  return (
    <section
      class="hpa-report"
      id={anchor("hpa", name)}
      aria-labelledby={`${anchor("hpa", name)}-title`}
    >
      <h2 id={`${anchor("hpa", name)}-title`}>
        HPA {name}
        {target ? ` → ${target}` : ""}
      </h2>
      {first && first.metricsText.length > 0 && (
        <p class="muted">Metrics: {first.metricsText.join("; ")}</p>
      )}
      <div class="charts">
        <ReportChart
          title="Load: demand vs served (requests/s)"
          duration={duration}
          marks={marks}
          lines={lines((_, i) => [
            { text: "demand", color: PALETTE[1]!, points: workloadOf(i)?.demand },
            { text: "served", color: PALETTE[0]!, points: workloadOf(i)?.served },
          ])}
        />
        <ReportChart
          title="Replicas: current (spec.replicas), desired, ready, pods"
          duration={duration}
          marks={marks}
          lines={lines((_, i) => [
            { text: "current (spec.replicas)", color: "--c-current", points: workloadOf(i)?.spec },
            { text: "desired", color: "--c-desired", points: datas[i]?.desired },
            { text: "ready", color: "--c-ok", points: workloadOf(i)?.ready },
            { text: "pods", color: "--c-bound", points: workloadOf(i)?.pods },
          ])}
        />
        {metricIndexes.map((index) => {
          const meta = datas
            .map((d) => d?.metrics.find((m) => m.index === index))
            .find((m) => m !== undefined)!;
          return (
            <ReportChart
              key={index}
              title={`${withUnit(meta.label, meta.unit)} vs target`}
              duration={duration}
              marks={marks}
              lines={lines((_, i) => {
                const m = datas[i]?.metrics.find((x) => x.index === index);
                return [
                  { text: "current", color: "--c-current", points: m?.current },
                  { text: "target", color: "--c-target", points: m?.target },
                ];
              })}
            />
          );
        })}
        <ReportChart
          title="CPU utilization of ready pods (% of request, from samples)"
          duration={duration}
          marks={marks}
          lines={lines((_, i) => [
            { text: "cpu utilization", color: "--c-current", points: workloadOf(i)?.cpu },
          ])}
        />
        {sampleNames.length > 0 && (
          <ReportChart
            title="Workload metrics (from samples)"
            duration={duration}
            marks={marks}
            lines={lines((_, i) =>
              sampleNames.map((n, k) => ({
                text: n,
                color: PALETTE[k % PALETTE.length]!,
                points: workloadOf(i)?.sampleMetrics[n],
              })),
            )}
          />
        )}
      </div>
      <ConditionBands
        title={`Conditions and events of ${name}`}
        rows={bandRows}
        duration={duration}
      />
      <h3>Events and condition changes</h3>
      <Columns cols={listed} />
      <h3>Scaling actions and their decision traces</h3>
      <p class="tools">
        <button type="button" onClick={() => setAll(true)}>
          expand all
        </button>{" "}
        <button type="button" onClick={() => setAll(false)}>
          collapse all
        </button>
      </p>
      <Columns cols={actions} />
    </section>
  );
}

/** A link to an action's trace (#action-…) opens it. */
function openTarget() {
  const id = decodeURIComponent(location.hash.slice(1));
  const el = id ? document.getElementById(id) : null;
  if (el instanceof HTMLDetailsElement) {
    el.open = true;
    el.scrollIntoView();
  }
}

export function ReportPage({ doc }: { doc: ReportDocument }) {
  const compare = doc.runs.length > 1;
  useEffect(() => {
    openTarget();
    addEventListener("hashchange", openTarget);
    return () => removeEventListener("hashchange", openTarget);
  }, []);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <main id="main" class="report">
        <header>
          <h1>{doc.title}</h1>
          <Columns cols={doc.runs.map((run) => <RunHeader run={run} compare={compare} />)} />
          <p class="muted">
            {compare
              ? `Both runs are drawn on the same axes: ${doc.runs[0]!.label} solid, ${doc.runs[1]!.label} dashed; ▲/▼ mark scale-ups/downs (${doc.runs[0]!.label} on the top edge, ${doc.runs[1]!.label} on the bottom edge).`
              : "▲/▼ on the charts mark scale-ups/downs (each one's decision is listed under its HPA); dashed vertical lines are scenario events."}
          </p>
        </header>
        <nav aria-label="HPAs">
          <strong>HPAs:</strong>{" "}
          {doc.hpas.map((n, i) => (
            <span key={n}>
              {i > 0 && " · "}
              <a href={`#${anchor("hpa", n)}`}>{n}</a>
            </span>
          ))}
        </nav>
        <section id="summary" aria-labelledby="summary-title">
          <h2 id="summary-title">Summary{compare ? " and deltas" : ""}</h2>
          {doc.summary.map((table, i) => (
            <SummaryTable key={i} table={table} />
          ))}
        </section>
        {doc.hpas.map((name) => (
          <HpaReport key={name} name={name} doc={doc} />
        ))}
      </main>
    </>
  );
}
