// `horizon tune --report`: a self-contained HTML page with the Pareto front of the objective
// against unmet demand (an SVG scatter: every candidate, the front joined, the references and
// the winner labelled) and the ranked table.
import { formatNumber } from "../../explain/format.js";
import { escapeHtml } from "../../explain/html.js";
import type { Objective } from "./objective.js";
import type { SearchEntry } from "./space.js";
import type { Row, TuneResult } from "./tuner.js";

const W = 720;
const H = 420;
const M = { left: 70, right: 20, top: 20, bottom: 50 };

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
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(0, ...ys), Math.max(...ys)];
  const sx = (x: number) => M.left + ((x - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const sy = (y: number) => H - M.bottom - ((y - y0) / (y1 - y0 || 1)) * (H - M.top - M.bottom);
  const best = result.rows.find((r) => r.ok && r.feasible);
  const front = points
    .filter((r) => r.pareto)
    .sort((a, b) => a.objective! - b.objective!)
    .map((r) => `${sx(r.objective!).toFixed(1)},${sy(r.unmetDemandPodSeconds!).toFixed(1)}`)
    .join(" ");
  const dots = points
    .map((r) => {
      const cls = r === best ? "best" : r.id === null ? "ref" : r.pareto ? "front" : "cand";
      const title = `${valuesText(r, entries)}\n${objective.measure}=${formatNumber(r.objective!)}, unmetDemandPodSeconds=${formatNumber(r.unmetDemandPodSeconds!)}${r.feasible ? "" : " (misses a constraint)"}`;
      const label =
        r.id === null || r === best
          ? `<text x="${(sx(r.objective!) + 8).toFixed(1)}" y="${(sy(r.unmetDemandPodSeconds!) - 6).toFixed(1)}">${escapeHtml(r === best ? "best" : r.label)}</text>`
          : "";
      return `<g class="${cls}"><circle cx="${sx(r.objective!).toFixed(1)}" cy="${sy(r.unmetDemandPodSeconds!).toFixed(1)}" r="${cls === "cand" ? 3 : 5}"><title>${escapeHtml(title)}</title></circle>${label}</g>`;
    })
    .join("");
  const axes = `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" class="axis"/><line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" class="axis"/>
<text x="${M.left}" y="${H - M.bottom + 18}">${formatNumber(x0)}</text><text x="${W - M.right}" y="${H - M.bottom + 18}" text-anchor="end">${formatNumber(x1)}</text>
<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">${escapeHtml(objective.measure)} (${objective.direction})</text>
<text x="${M.left - 8}" y="${H - M.bottom}" text-anchor="end">${formatNumber(y0)}</text><text x="${M.left - 8}" y="${M.top + 10}" text-anchor="end">${formatNumber(y1)}</text>
<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">unmet demand (pod-seconds)</text>`;
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Pareto front of ${escapeHtml(objective.measure)} against unmet demand">${axes}<polyline class="frontline" points="${front}"/>${dots}</svg>`;
}

export function tuneReportHtml(
  result: TuneResult,
  entries: readonly SearchEntry[],
  objective: Objective,
  file: string,
): string {
  const rows = [...result.rows.filter((r) => r.ok), ...result.references]
    .map(
      (r) =>
        `<tr${r.pareto ? ' class="pareto"' : ""}><td>${r.rank ?? escapeHtml(r.label)}</td><td>${escapeHtml(valuesText(r, entries))}</td><td>${r.objective === null ? "-" : formatNumber(r.objective)}</td><td>${r.unmetDemandPodSeconds === null ? "-" : formatNumber(r.unmetDemandPodSeconds)}</td><td>${r.feasible ? "yes" : escapeHtml(`no (${r.violated.join(", ")})`)}</td><td>${r.pareto ? "*" : ""}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>horizon tune: ${escapeHtml(file)}</title>
<style>
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#8a929b;--accent:#1f6feb;--best:#d1242f}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#7d8590;--accent:#58a6ff;--best:#ff7b72}}
body{font:14px/1.4 system-ui,sans-serif;color:var(--fg);max-width:1000px;margin:2rem auto;padding:0 1rem}
svg{width:100%;max-width:${W}px;height:auto}svg text{fill:var(--fg);font-size:12px}
.axis{stroke:var(--muted)}.cand circle{fill:var(--muted);opacity:.6}.front circle{fill:var(--accent)}
.ref circle{fill:none;stroke:var(--fg);stroke-width:2}.best circle{fill:var(--best)}
.frontline{fill:none;stroke:var(--accent);stroke-width:1.5}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:2px 8px;border-bottom:1px solid var(--muted)}
tr.pareto td:first-child{font-weight:bold}
</style></head><body>
<h1>horizon tune: ${escapeHtml(file)}</h1>
<p>${result.strategy} search over ${result.spaceSize} combinations; ${result.runs} simulations.
Objective: ${objective.direction} ${escapeHtml(objective.measure)}${objective.hpa ? ` of hpa/${escapeHtml(objective.hpa)}` : ""}.
The Pareto front (joined) holds the candidates no other beats on both axes.</p>
${scatter(result, entries, objective)}
<table><thead><tr><th>rank</th><th>setting</th><th>${escapeHtml(objective.measure)}</th><th>unmet demand (pod-s)</th><th>meets constraints</th><th>Pareto</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
