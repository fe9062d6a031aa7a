// Time-series charts (uPlot, canvas) and the overview's sparklines (inline SVG: 1,000 rows of
// them stay cheap). Colours come from the page's CSS variables, so light and dark both read.
import { createContext } from "preact";
import { useContext, useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { elapsedText, utcText, utcTicks, X_LABEL_ROOM } from "./time.js";

export { elapsedText } from "./time.js";

export interface ChartSeries {
  label: string;
  /** A CSS variable name (--c-current) or a colour. */
  color: string;
  dash?: boolean;
  /** A step line (replica counts change in steps). */
  stepped?: boolean;
}

export interface TimeChartProps {
  title: string;
  /** x: epoch seconds, then one array per series (null: no value). */
  data: [number[], ...(number | null)[][]];
  series: ChartSeries[];
  /** Shade between these two series (indexes into `series`), e.g. the min–max band. */
  band?: [number, number];
  height?: number;
  /** Figures in words for screen readers and the keyboard (the canvas says nothing). */
  summary: string;
  /** x is seconds since a run's start (a report), labelled as durations; default epoch seconds. */
  elapsed?: boolean;
  /** Scale-ups (▲), scale-downs (▼) and scenario events (dashed lines) over the plot. */
  marks?: ChartMark[];
}

/**
 * A simulation's first instant (epoch ms), which the dashboard reads its times from, as the CLI
 * does ("18h0m15s"); null: a live controller, whose times are UTC instants with their dates.
 */
export const RunStart = createContext<number | null>(null);

export interface ChartMark {
  /** On the x scale. */
  x: number;
  kind: "up" | "down" | "event";
  /** 0: the first run's (top edge), 1: a compared run's (bottom edge). */
  row: 0 | 1;
}

function drawMarks(u: uPlot, marks: ChartMark[]): void {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const px = devicePixelRatio || 1;
  ctx.save();
  for (const mark of marks) {
    const x = u.valToPos(mark.x, "x", true);
    if (x < left || x > left + width) continue;
    if (mark.kind === "event") {
      ctx.strokeStyle = cssColor(mark.row ? "--c-mark-b" : "--c-mark");
      ctx.setLineDash([3 * px, 3 * px]);
      ctx.lineWidth = px;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      continue;
    }
    const size = 5 * px;
    const y = mark.row === 0 ? top + size + px : top + height - size - px;
    const tip = mark.kind === "up" ? -size : size;
    ctx.fillStyle = cssColor(mark.kind === "up" ? "--c-ok" : "--c-bad");
    ctx.globalAlpha = mark.row ? 0.6 : 1;
    ctx.beginPath();
    ctx.moveTo(x - size, y - tip * 0.8);
    ctx.lineTo(x + size, y - tip * 0.8);
    ctx.lineTo(x, y + tip);
    ctx.closePath();
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  ctx.restore();
}

function cssColor(color: string): string {
  if (!color.startsWith("--")) return color;
  return getComputedStyle(document.documentElement).getPropertyValue(color).trim() || "#888";
}

function options(props: TimeChartProps, width: number, start: number | null): uPlot.Options {
  // x as offsets from this origin (seconds): a report's (x is already elapsed) or a simulation's.
  const origin = props.elapsed ? 0 : start === null ? null : start / 1000;
  const axisColor = cssColor("--fg-muted");
  const gridColor = cssColor("--grid");
  const axis = {
    stroke: axisColor,
    grid: { stroke: gridColor, width: 1 },
    ticks: { stroke: gridColor },
  };
  const opts: uPlot.Options = {
    width,
    height: props.height ?? 200,
    series: [
      // The x series is time: the legend says so (uPlot's default says "Value").
      {
        label: "time",
        value: (_u: uPlot, v: number | null) =>
          v === null ? "" : origin === null ? utcText(v * 1000) : elapsedText(v - origin),
      },
      ...props.series.map((s) => ({
        label: s.label,
        stroke: cssColor(s.color),
        width: 2,
        ...(s.dash ? { dash: [6, 4] } : {}),
        ...(s.stepped ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {}),
        spanGaps: false,
      })),
    ],
    axes: [
      origin !== null
        ? {
            ...axis,
            // Round durations: 15s, 1m, 5m, 15m, 1h, ...
            incrs: [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400],
            values: (_u: uPlot, ticks: number[]) => ticks.map((t) => elapsedText(t - origin)),
          }
        : {
            ...axis,
            // The browser's clock and locale would differ between viewers: UTC, with its date.
            values: (_u: uPlot, ticks: number[], _a: number, _s: number, incr: number) =>
              utcTicks(ticks, incr),
          },
      { ...axis, size: 50 },
    ],
    scales: { x: { time: origin === null } },
    tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    // Room right of the plot for half the last x label ("24h0m0s"), which centres on its tick.
    padding: [null, X_LABEL_ROOM, null, null],
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
  };
  const marks = props.marks;
  if (marks && marks.length > 0) opts.hooks = { draw: [(u) => drawMarks(u, marks)] };
  if (props.band) {
    const [upper, lower] = props.band;
    opts.bands = [{ series: [upper + 1, lower + 1], fill: cssColor("--band") }];
  }
  return opts;
}

export function TimeChart(props: TimeChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const start = useContext(RunStart);
  const shape = `${props.series.map((s) => s.label).join("\n")}\n${start}`;

  useEffect(() => {
    const el = holder.current!;
    const chart = new uPlot(
      options(props, el.clientWidth || 600, start),
      props.data as uPlot.AlignedData,
      el,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0) chart.setSize({ width: el.clientWidth, height: props.height ?? 200 });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // A new set of series makes a new chart; new data only updates it (below).
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(props.data as uPlot.AlignedData);
  }, [props.data]);

  return (
    <figure class="chart">
      <figcaption>
        <strong>{props.title}</strong> <span class="muted">{props.summary}</span>
      </figcaption>
      <div
        ref={holder}
        class="chart-canvas"
        role="img"
        aria-label={`${props.title}. ${props.summary}`}
      />
    </figure>
  );
}

/** A tiny step line of values; flat when there is one value or none. */
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const width = 96;
  const height = 22;
  if (values.length === 0) return <span class="muted">no syncs yet</span>;
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = max - min || 1;
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const y = (v: number) => (height - 2 - ((v - min) / span) * (height - 4)).toFixed(1);
  let d = `M0 ${y(values[0]!)}`;
  values.forEach((v, i) => {
    if (i === 0) return;
    d += ` H${(i * step).toFixed(1)} V${y(v)}`;
  });
  if (values.length === 1) d += ` H${width}`;
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <path d={d} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}
