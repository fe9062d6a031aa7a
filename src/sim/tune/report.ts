// `horizon tune --report`: a self-contained HTML page with the Pareto front of the objective
// against unmet demand (an SVG scatter: every candidate, the front joined, the references and
// the winner labelled apart from each other, each point's setting and measures in its tooltip,
// ticks at round values on both axes) and the ranked table with the CLI table's measures.
import { formatNumber } from "../../explain/format.js";
import { escapeHtml } from "../../explain/html.js";
import { type Objective, rowMeasure, tableMeasures } from "./objective.js";
import type { SearchEntry } from "./space.js";
import type { Row, TuneResult } from "./tuner.js";

const W = 720;
const H = 420;
const M = { left: 70, right: 20, top: 20, bottom: 50 };

/** Round tick values in [lo, hi]: steps of 1, 2 or 5 × 10ⁿ, at most about 1.5 × `count`. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const power = 10 ** Math.floor(Math.log10((hi - lo) / count));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => (hi - lo) / s <= count * 1.5)!;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    out.push(Number(t.toPrecision(12)));
  }
  return out;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Where a point's label goes: right of it (left where it would leave the plot), moved up or down
 * in steps until it covers no label placed before it. Text 12px: about 7px a character.
 */
export function placeLabel(
  px: number,
  py: number,
  text: string,
  placed: Box[],
): { x: number; y: number; anchor: "start" | "end" } {
  const w = text.length * 7 + 4;
  const h = 16;
  const anchor = px + 8 + w > W - M.right ? "end" : "start";
  const left = anchor === "start" ? px + 8 : px - 8 - w;
  // Above the point first, then below it, inside the plot (below it are the x axis' ticks).
  for (const dy of [-6, -22, -38, -54, -70, -86, 14, 30, 46, 62]) {
    const box = { x: left, y: py + dy - h + 3, w, h };
    if (box.y < 0 || box.y + h > H - M.bottom) continue;
    if (!placed.some((b) => overlaps(b, box))) {
      placed.push(box);
      return { x: anchor === "start" ? px + 8 : px - 8, y: py + dy, anchor };
    }
  }
  return { x: anchor === "start" ? px + 8 : px - 8, y: py - 6, anchor };
}

function valuesText(row: Row, entries: readonly SearchEntry[]): string {
  if (row.values === null) return row.label;
  return entries.map((e, i) => `${e.key}=${JSON.stringify(row.values![i])}`).join(", ");
}

function scatter(
  result: TuneResult,
  entries: readonly SearchEntry[],
  objective: Objective,
): string {
  const points = [...result.rows, ...result.references].filter(
    (r) => r.ok && r.objective !== null && r.unmetDemandPodSeconds !== null,
  );
  if (points.length === 0) return "<p>No run finished, so there is nothing to plot.</p>";
  const xs = points.map((r) => r.objective!);
  const ys = points.map((r) => r.unmetDemandPodSeconds!);
  const [x0, xMax] = [Math.min(...xs), Math.max(...xs)];
  const [y0, yMax] = [Math.min(0, ...ys), Math.max(...ys)];
  // One value on an axis (every run met demand: all 0) spans one unit, so it still has ticks.
  const [x1, y1] = [xMax > x0 ? xMax : x0 + 1, yMax > y0 ? yMax : y0 + 1];
  // A margin inside the axes, so no point sits on one (nor on its tick labels).
  const pad = (x1 - x0) * 0.05;
  const [left, right] = [x0 - pad, x1 + pad];
  const top = y1 + (y1 - y0) * 0.08;
  const sx = (x: number) => M.left + ((x - left) / (right - left)) * (W - M.left - M.right);
  const sy = (y: number) => H - M.bottom - ((y - y0) / (top - y0)) * (H - M.top - M.bottom);
  const best = result.rows.find((r) => r.ok && r.feasible);
  const front = points
    .filter((r) => r.pareto)
    .sort((a, b) => a.objective! - b.objective!)
    .map((r) => `${sx(r.objective!).toFixed(1)},${sy(r.unmetDemandPodSeconds!).toFixed(1)}`)
    .join(" ");
  const placed: Box[] = [];
  const dots = points
    .map((r) => {
      const cls = r === best ? "best" : r.id === null ? "ref" : r.pareto ? "front" : "cand";
      const [cx, cy] = [sx(r.objective!), sy(r.unmetDemandPodSeconds!)];
      const title = `${r === best ? "best: " : r.id === null ? `${r.label}: ` : ""}${valuesText(r, entries)}\n${objective.measure}=${formatNumber(r.objective!)}, unmetDemandPodSeconds=${formatNumber(r.unmetDemandPodSeconds!)}${r.feasible ? "" : ` (misses ${r.violated.join(", ")})`}`;
      let label = "";
      if (r.id === null || r === best) {
        const text = r === best ? "best" : r.label;
        const at = placeLabel(cx, cy, text, placed);
        label = `<text x="${at.x.toFixed(1)}" y="${at.y.toFixed(1)}"${at.anchor === "end" ? ' text-anchor="end"' : ""}>${escapeHtml(text)}</text>`;
      }
      // The tooltip is the group's: the dot, a wider invisible target around it, and its label.
      return `<g class="${cls}" tabindex="0"><title>${escapeHtml(title)}</title><circle class="hit" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="9"/><circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${cls === "cand" ? 3 : 5}"/>${label}</g>`;
    })
    .join("");
  const xTicks = niceTicks(left, right);
  const yTicks = niceTicks(y0, top);
  const axes = `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" class="axis"/><line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" class="axis"/>
${xTicks.map((t) => `<line class="grid" x1="${sx(t).toFixed(1)}" y1="${M.top}" x2="${sx(t).toFixed(1)}" y2="${H - M.bottom}"/><text class="xtick" x="${sx(t).toFixed(1)}" y="${H - M.bottom + 18}" text-anchor="middle">${formatNumber(t)}</text>`).join("")}
${yTicks.map((t) => `<line class="grid" x1="${M.left}" y1="${sy(t).toFixed(1)}" x2="${W - M.right}" y2="${sy(t).toFixed(1)}"/><text class="ytick" x="${M.left - 8}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${formatNumber(t)}</text>`).join("")}
<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">${escapeHtml(objective.measure)} (${objective.direction})</text>
<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">unmet demand (pod-seconds)</text>`;
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Pareto front of ${escapeHtml(objective.measure)} against unmet demand">${axes}<polyline class="frontline" points="${front}"/>${dots}</svg>`;
}

export function tuneReportHtml(
  result: TuneResult,
  entries: readonly SearchEntry[],
  objective: Objective,
  file: string,
  constraints: readonly { measure: string }[] = [],
): string {
  // The CLI table's measures: the objective, unmet demand, pod-hours and each constrained one.
  const measures = tableMeasures(objective, constraints);
  const cell = (r: Row, m: string) => {
    const v = r.summary || m === objective.measure ? rowMeasure(r, m, objective) : null;
    return `<td class="num">${v === null ? "-" : formatNumber(v)}</td>`;
  };
  const rows = [...result.rows.filter((r) => r.ok), ...result.references]
    .map(
      (r) =>
        `<tr${r.pareto ? ' class="pareto"' : ""}><td>${r.rank ?? escapeHtml(r.label)}</td><td>${escapeHtml(valuesText(r, entries))}</td>${measures.map((m) => cell(r, m)).join("")}<td>${r.feasible ? "yes" : escapeHtml(`no (${r.violated.join(", ")})`)}</td><td>${r.pareto ? "*" : ""}</td></tr>`,
    )
    .join("\n");
  const heads = measures
    .map(
      (m) =>
        `<th>${escapeHtml(m === objective.measure ? `${m} (${objective.direction === "minimize" ? "min" : "max"})` : m)}</th>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>horizon tune: ${escapeHtml(file)}</title>
<style>
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#8a929b;--accent:#1f6feb;--best:#d1242f}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#7d8590;--accent:#58a6ff;--best:#ff7b72}}
body{font:14px/1.4 system-ui,sans-serif;color:var(--fg);max-width:1000px;margin:2rem auto;padding:0 1rem}
svg{width:100%;max-width:${W}px;height:auto}svg text{fill:var(--fg);font-size:12px}
.axis{stroke:var(--muted)}.cand circle{fill:var(--muted);opacity:.6}.front circle{fill:var(--accent)}
.ref circle{fill:none;stroke:var(--fg);stroke-width:2}.best circle{fill:var(--best)}
.frontline{fill:none;stroke:var(--accent);stroke-width:1.5}.grid{stroke:var(--muted);opacity:.25}
.hit{fill:transparent}g:hover circle:not(.hit),g:focus circle:not(.hit){stroke:var(--fg);stroke-width:2}td.num{text-align:right}.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:2px 8px;border-bottom:1px solid var(--muted)}
tr.pareto td:first-child{font-weight:bold}
</style></head><body>
<h1>horizon tune: ${escapeHtml(file)}</h1>
<p>${result.strategy} search over ${result.spaceSize} combinations; ${result.runs} simulations.
Objective: ${objective.direction} ${escapeHtml(objective.measure)}${objective.hpa ? ` of hpa/${escapeHtml(objective.hpa)}` : ""}.
The Pareto front (joined) holds the candidates no other beats on both axes.</p>
${scatter(result, entries, objective)}
<div class="scroll"><table><thead><tr><th>rank</th><th>setting</th>${heads}<th>meets constraints</th><th>Pareto</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
</body></html>
`;
}
